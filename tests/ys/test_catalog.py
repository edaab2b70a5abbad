"""The data file: checked on load, a replacement is accepted, its digest is in the rules version."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.ys import GAME, CatalogError, default_catalog, load_game
from services.ys.catalog import parse_catalog

DATA = Path(__file__).resolve().parents[2] / "services" / "ys" / "data" / "ys.toml"


def test_shipped_data_is_a_labelled_stand_in_with_a_source_on_every_entry() -> None:
    catalog = default_catalog()
    assert catalog.stand_in and "STAND-IN" in catalog.notice
    assert len(catalog.ships) == 24 and all(s.stand_in and s.source for s in catalog.ships)
    assert all(c.source for c in catalog.characters)
    assert sum(s.has_white for s in catalog.ships) <= 4
    assert all(s.large != "white" and list(s.small).count("white") <= 1 for s in catalog.ships)


def test_fifteen_named_yellow_cards_and_four_blue_ones() -> None:
    catalog = default_catalog()
    assert len(catalog.yellow) == 15 and len(catalog.blue) == 4
    assert {"king", "prince", "queen", "spy", "intriguer"} <= set(catalog.yellow)


def test_the_rules_version_follows_the_data_not_the_file(tmp_path: Path) -> None:
    copy = tmp_path / "copy.toml"
    copy.write_bytes(DATA.read_bytes())
    assert load_game(copy).rules_version == GAME.rules_version


def test_a_replacement_file_is_loaded(tmp_path: Path) -> None:
    text = DATA.read_text().replace(
        'large = "blue"\nsmall = ["green", "yellow"]', 'large = "blue"\nsmall = ["red", "red"]', 1
    )
    path = tmp_path / "real.toml"
    path.write_text(text)
    game = load_game(path)
    assert game.rules_version != GAME.rules_version


@pytest.mark.parametrize(
    ("old", "new", "fault"),
    [
        ('large = "red"', 'large = "white"', "never white"),
        ('small = ["green", "yellow"]', 'small = ["white", "white"]', "at most one white"),
        ('effect = "peek"', 'effect = "fly"', "unknown effect"),
        ('window = "counting_end"', 'window = "whenever"', "unknown window"),
    ],
)
def test_a_faulty_file_is_refused_with_the_fault_named(old: str, new: str, fault: str) -> None:
    with pytest.raises(CatalogError, match=fault):
        parse_catalog(DATA.read_text().replace(old, new, 1))
