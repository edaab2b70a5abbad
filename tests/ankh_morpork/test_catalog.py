"""The data file: the map invariants and card counts of the fact sheet (FS 8.1-8.2), and
replacement files checked on load."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.ankh_morpork import CatalogError, default_catalog, load_catalog, load_game
from services.ankh_morpork.catalog import parse_catalog
from services.ankh_morpork.rules import RULES
from services.ankh_morpork.scoring import threshold

DATA = Path(__file__).parents[2] / "services/ankh_morpork/data/ankh_morpork.toml"


def test_the_map_has_twelve_numbered_areas_with_their_costs() -> None:
    areas = default_catalog().areas
    assert [a.number for a in areas] == list(range(1, 13))
    assert [a.cost for a in areas] == [6, 18, 12, 18, 6, 12, 6, 6, 12, 12, 18, 12]


def test_adjacency_is_symmetric_with_the_published_degrees() -> None:
    areas = default_catalog().areas
    for area in areas:
        for other in area.adjacent:
            assert area.number in areas[other - 1].adjacent
    assert [len(a.adjacent) for a in areas] == [3, 6, 3, 5, 5, 3, 3, 3, 3, 5, 4, 3]
    assert sum(len(a.adjacent) for a in areas) == 46  # 23 edges


def test_only_dragons_landing_and_the_hippo_are_off_the_river() -> None:
    assert {a.number for a in default_catalog().areas if not a.river} == {3, 6}


def test_101_unique_cards_48_green_and_53_brown() -> None:
    cards = default_catalog().cards
    assert len(cards) == 101 and len({c.id for c in cards}) == 101
    assert sum(c.deck == "green" for c in cards) == 48
    assert sum(c.deck == "brown" for c in cards) == 53


def test_nine_random_event_cards_six_interrupts_and_one_blank() -> None:
    cards = default_catalog().cards
    assert sum("E" in c.symbols for c in cards) == 9
    assert {c.id for c in cards if "I" in c.symbols} == {
        "wallace_sonky", "gaspode", "fresh_start_club", "susan", "igor", "doctor_mossy_lawn",
    }  # fmt: skip
    assert [c.id for c in cards if not c.symbols] == ["peeled_nuts"]


def test_symbols_keep_their_printed_order() -> None:
    cards = RULES.t.cards
    assert cards["mr_teatime"].symbols == ("$3", "A", "P")
    assert cards["moist_von_lipwig"].symbols == ("M", "$3", "S", "P")
    assert cards["death"].symbols == ("A", "A", "B")
    assert cards["the_clacks"].symbols == ("S", "$2", "P")  # decided $2 (FS B39)


@pytest.mark.parametrize(("players", "vetinari", "lords"), [(2, 11, 7), (3, 10, 5), (4, 9, 4)])
def test_win_thresholds_follow_13_minus_n_and_14_5_over_n(players: int, vetinari: int, lords: int) -> None:
    assert threshold(RULES.t, "lord_vetinari", players) == vetinari == 13 - players
    for lord in ("lord_selachii", "lord_rust", "lord_de_worde"):
        assert threshold(RULES.t, lord, players) == lords == round(14.5 / players)
    assert threshold(RULES.t, "dragon_king_of_arms", players) == 8


def test_every_entry_names_its_source() -> None:
    catalog = default_catalog()
    for entry in (*catalog.areas, *catalog.cards, *catalog.events, *catalog.personalities):
        assert entry.source


def test_a_replacement_file_with_the_same_schema_is_accepted(tmp_path: Path) -> None:
    text = DATA.read_text().replace('notice = "', 'notice = "replacement: ', 1)
    path = tmp_path / "real.toml"
    path.write_text(text)
    game = load_game(path)
    assert game.rules_version != RULES and game.rules_version.startswith("1.0+")
    assert load_catalog(path).notice.startswith("replacement")


def test_a_broken_file_is_refused_naming_every_fault() -> None:
    text = DATA.read_text()
    broken = text.replace("adjacent = [2, 3, 12]", "adjacent = [2, 3]").replace(
        'symbols = ["T", "P"]', 'symbols = ["X"]'
    )
    with pytest.raises(CatalogError) as error:
        parse_catalog(broken)
    assert "not symmetric" in str(error.value) and "unknown symbol" in str(error.value)
    with pytest.raises(CatalogError, match="not valid TOML"):
        parse_catalog("[[areas")
    with pytest.raises(CatalogError, match="cannot read"):
        load_catalog("/no/such/file.toml")


def test_every_primitive_the_schema_names_has_an_implementation() -> None:
    from services.ankh_morpork import catalog, events
    from services.ankh_morpork.cards import SCROLLS

    assert set(catalog.EFFECTS) == set(SCROLLS)
    assert set(catalog.EVENT_EFFECTS) == set(events.EFFECTS)
