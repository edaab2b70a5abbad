"""The data file: 165 distinct persons in 11 groups of 15, real ones flagged, a source on every
entry, and a replacement file with the same schema loads without code changes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from services.bruges import GAME, CatalogError, default_catalog, load_game
from services.bruges.catalog import parse_catalog
from services.kernel.testing import random_playout

DATA = Path(__file__).parents[2] / "services" / "bruges" / "data" / "bruges.toml"


def test_the_shipped_data_has_165_distinct_persons_in_eleven_groups_of_fifteen() -> None:
    catalog = default_catalog()
    assert len({p.name for p in catalog.persons}) == 165
    assert set(Counter(p.group for p in catalog.persons).values()) == {15}
    assert all(p.points == p.price // 3 and p.source for p in catalog.persons)


def test_stand_ins_are_labelled_and_the_real_persons_say_what_is_verified() -> None:
    catalog = default_catalog()
    assert catalog.stand_in and "STAND-IN" in catalog.notice and catalog.board.stand_in
    real = [p for p in catalog.persons if not p.stand_in]
    assert len(real) == 28 and all(p.verified and "name" in p.verified for p in real)
    assert all(
        p.name.startswith("Stand-in ") and "STAND-IN" in p.source for p in catalog.persons if p.stand_in
    )
    assert catalog.board.reputation_points[5] == 7  # the one value the rulebook gives


def test_a_replacement_file_with_the_same_schema_plays_without_code_changes(tmp_path: Path) -> None:
    text = DATA.read_text().replace('name = "Stand-in Noble 04"', 'name = "Real Noble"')
    text = text.replace("reputation_points = [1, 2, 3", "reputation_points = [0, 2, 3")
    path = tmp_path / "real.toml"
    path.write_text(text)
    game = load_game(path)
    assert game.rules_version != GAME.rules_version
    assert any(p.name == "Real Noble" for p in parse_catalog(text).persons)
    assert random_playout(game, 2, 5).outcome is not None


@pytest.mark.parametrize(
    ("find", "replace", "fault"),
    [
        ("points = 3\n", "points = 2\n", "a third of the price"),
        ('group = "noble"', 'group = "pirate"', "unknown group"),
        ('effect = "gain_points"', 'effect = "fly"', "cannot have icon"),
        ("canal_costs = [1, 2, 3, 4, 5]", "canal_costs = [1, 2]", "5 spaces"),
        ("schema_version = 1", "schema_version = 9", "schema_version"),
    ],
)
def test_a_bad_file_is_refused_with_the_fault_named(find: str, replace: str, fault: str) -> None:
    text = DATA.read_text()
    assert find in text
    with pytest.raises(CatalogError, match=fault):
        parse_catalog(text.replace(find, replace, 1))


def test_a_missing_or_malformed_file_is_a_catalog_error(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="cannot read"):
        load_game(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("persons = [")
    with pytest.raises(CatalogError, match="not valid TOML"):
        load_game(bad)


def test_the_rules_version_follows_the_data_not_the_file(tmp_path: Path) -> None:
    copy = tmp_path / "copy.toml"
    copy.write_bytes(DATA.read_bytes())
    assert load_game(copy).rules_version == GAME.rules_version
