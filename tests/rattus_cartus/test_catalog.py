"""The card catalog: the shipped stand-in, replacement files, and malformed files."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import msgspec
import pytest

from services.kernel import Rejection
from services.kernel.testing import check_conformance
from services.rattus_cartus import GAME, CatalogError, default_catalog, load_catalog, load_game, make_game
from services.rattus_cartus.model import ChooseSupply, Options

SHIPPED = resources.files("services.rattus_cartus").joinpath("data/catalog.toml").read_text(encoding="utf-8")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "catalog.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_catalog_is_labelled_a_stand_in() -> None:
    catalog = default_catalog()
    assert catalog.stand_in is True
    assert "STAND-IN" in catalog.notice
    assert "STAND-IN" in SHIPPED.splitlines()[2]


def test_the_shipped_catalog_holds_the_three_known_supply_actions() -> None:
    catalog = default_catalog()
    monastery = catalog.building("monastery").copies
    tent = catalog.building("fortune_tellers_tent").copies
    assert (monastery[0].draw, monastery[0].discard_rats, monastery[0].look) == (4, 0, 0)
    assert (monastery[3].draw, monastery[3].discard_rats, monastery[3].look) == (0, 2, 0)
    assert (tent[2].draw, tent[2].discard_rats, tent[2].look) == (2, 0, 1)
    assert all(c.source for b in catalog.buildings for c in b.copies)


def test_the_rules_version_follows_the_data_not_the_file(tmp_path: Path) -> None:
    assert load_game(write(tmp_path, SHIPPED)).rules_version == GAME.rules_version


FARM_COPY_1 = "  [[buildings.copies]]  # copy 1\n  draw = 4\n"


def replacement(tmp_path: Path) -> Path:
    """A real-data file would look like this: same schema, the Farm's first copy reads
    "draw 1 + look at 1 Nun-row card", no longer a stand-in."""
    farm = SHIPPED.index('id = "farm"')
    edited = SHIPPED[farm:].replace(
        FARM_COPY_1, "  [[buildings.copies]]  # copy 1\n  draw = 1\n  look = 1\n", 1
    )
    text = SHIPPED[:farm] + edited
    return write(tmp_path, text.replace("stand_in = true", "stand_in = false"))


def test_a_replacement_catalog_file_is_accepted_and_used(tmp_path: Path) -> None:
    catalog = load_catalog(replacement(tmp_path))
    assert catalog.stand_in is False
    game = make_game(catalog)
    assert game.rules_version != GAME.rules_version
    state = game.setup(4, 3, Options())  # the recommended set has all five Farms
    farms = {c.copy: c for c in (*state.row, *state.building_deck, *state.reserve) if c.building == "farm"}
    assert (farms[1].draw, farms[1].discard_rats, farms[1].look) == (1, 0, 1)

    # Its supply action now draws 1 card and owes a Nun-row look.
    state = msgspec.structs.replace(state, row=(farms[1], farms[2]), entries=((), ()))
    events = game.decide(state, 0, ChooseSupply(0))
    assert not isinstance(events, Rejection)
    state = game.evolve(state, events)
    assert len(state.hands[0]) == 6 and state.looks_owed[0] == 1
    check_conformance(game, 3, 5)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("schema_version = 1", "schema_version = 2"), "schema_version must be 1"),
        (lambda t: t.replace("  draw = 3\n", '  draw = "three"\n', 1), r"Expected `int`, got `str`"),
        (lambda t: t.replace("  draw = 3\n", "  draw = -3\n", 1), r">= 0"),
        (lambda t: t.replace("  draw = 3\n", "  draw = 3\n  steal = 1\n", 1), "unknown field `steal`"),
        (
            lambda t: t.replace('class = "peasantry"\nname = "Farm"', 'class = "royalty"\nname = "Farm"'),
            "farm belongs",
        ),
        (lambda t: t.replace('id = "brewery"', 'id = "winery"'), "missing: \\['brewery'\\]"),
        (
            lambda t: re.sub(r"  \[\[buildings.copies\]\]  # copy 5\n(  \w+ = .*\n)+", "", t, count=1),
            "4 copies, not 5",
        ),
        (lambda t: t.replace("peasantry = [4, 4, 4, 4,", "peasantry = [4, 4, 4, 4, 4,"), "15 cards, not 14"),
        (lambda t: t.replace("church = [4, 4, 4, 4, 3", "church = [4, 4, 4, 4, 4"), "24 cards with 4"),
        (lambda t: t.replace("  draw = 3\n", "  draw = 0\n", 1), "empty supply action"),
        (lambda t: t.replace("[specials]", "[specials"), "not valid TOML"),
        (lambda t: t.replace("jokers = 15\n", ""), "missing required field `jokers`"),
    ],
)
def test_a_malformed_catalog_is_refused_with_a_clear_error(
    tmp_path: Path, edit: object, message: str
) -> None:
    text = edit(SHIPPED)  # type: ignore[operator]
    assert text != SHIPPED
    with pytest.raises(CatalogError, match=message):
        load_catalog(write(tmp_path, text))


def test_a_missing_catalog_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="cannot read catalog"):
        load_catalog(tmp_path / "nope.toml")
