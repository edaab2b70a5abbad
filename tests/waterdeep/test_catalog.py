"""The data file matches the box [FACTS 0, 9.3] and can be replaced (a corrected value is a data change)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.waterdeep import GAME, CatalogError, load_catalog, load_game
from services.waterdeep.catalog import default_catalog

DATA = Path(__file__).resolve().parents[2] / "services" / "waterdeep" / "data" / "waterdeep.toml"


def test_component_counts() -> None:
    c = default_catalog()
    quests = [q for q in c.quests if q.type != "mandatory"]
    assert len(quests) == 60 and sum(bool(q.plot) for q in quests) == 15
    assert sum(i.copies for i in c.intrigues) == 50
    assert len(c.buildings) == 24 and len(c.lords) == 11 and len(c.spaces) == 13
    assert len(quests) + sum(i.copies for i in c.intrigues) + len(c.lords) == 121
    assert not c.stand_in


def test_every_entry_names_its_source_and_disputed_values_say_so() -> None:
    c = default_catalog()
    by_id = {q.id: q for q in c.quests}
    assert "DISPUTED" in by_id["fence_goods_for_duke_of_darkness"].source
    assert by_id["fence_goods_for_duke_of_darkness"].requires.f == 1
    assert by_id["convert_a_noble_to_lathander"].requires.f == 1
    assert by_id["placate_angry_merchants"].reward.vp == 4
    assert by_id["repel_drow_invaders"].requires.r == 2


def test_a_replacement_file_changes_the_rules_version(tmp_path: Path) -> None:
    text = DATA.read_text().replace(
        'reward = { vp = 4 }\nsource = "FACTS 7 (Mandatory Quest intrigue card); DISPUTED',
        'reward = { vp = 2 }\nsource = "FACTS 7 (Mandatory Quest intrigue card); DISPUTED',
    )
    path = tmp_path / "waterdeep.toml"
    path.write_text(text)
    game = load_game(path)
    assert game.rules_version != GAME.rules_version
    assert next(q for q in load_catalog(path).quests if q.id == "placate_angry_merchants").reward.vp == 2


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("cost = 8\n", "cost = 7\n", "Building tile costs"),
        ("copies = 3", "copies = 2", "intrigue cards by type"),
        ('op = "take_stock"', 'op = "teleport"', "not allowed"),
    ],
)
def test_a_bad_file_is_refused_with_the_fault_named(tmp_path: Path, old: str, new: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(DATA.read_text().replace(old, new, 1))
    with pytest.raises(CatalogError, match=message):
        load_catalog(path)
