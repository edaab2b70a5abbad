"""Every id a client receives has a name, and every decision maps one-to-one onto the legal actions.

Over a seeded random playout of every game and player count, at every step:

- each seat that owes a decision gets one whose options cover its legal actions exactly once,
  by distinct paths (none the start of another), every choice named, every id resolving;
- every id in a view (each seat's and the spectator's), a legal action or an event (as each
  viewer receives it) resolves to a name in the game data (the game's `refs` say which fields
  hold ids of what kind);
- every event a viewer receives has a description: a key, a text that is its template rendered,
  every argument's id resolving; viewers shown equal events get equal descriptions (issue 45: the
  rules service describes each distinct event of a call once);
- every decision's table of distinct choices gives its options back (the shape it travels in);
- every top-level field of every view belongs to one of the documented view sections.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from services.gamedata import game_data
from services.kernel.present import VIEW_SECTIONS, describe
from services.registry import GAMES
from tests.conformance.presentation import presentation_faults

SEED = 7
# Faults are collected, not raised at the first: a report names a few of each kind.
_SHOWN = 12

CASES = [(spec.game_id, players) for spec in GAMES.values() for players in spec.player_counts]


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_every_id_has_a_name_and_every_decision_maps_onto_the_legal_actions(
    game_id: str, players: int
) -> None:
    faults = presentation_faults(GAMES[game_id], players, SEED)
    assert not faults, f"{len(faults)} faults, first ones:\n" + "\n".join(faults[:_SHOWN])


def test_a_description_that_depends_on_who_reads_it_is_caught() -> None:
    """The rules service describes each distinct event once per call and hands the description
    to every viewer shown that event: a game telling viewers of one event different things would
    have all but the first told the first one's."""
    spec = GAMES["rattus_cartus"]
    assert spec.presentation is not None
    by_viewer = dataclasses.replace(
        spec.presentation, describe=lambda event, viewer: describe("seen", f"Seen by viewer {viewer}")
    )
    faults = presentation_faults(dataclasses.replace(spec, presentation=by_viewer), 2, SEED)
    assert any("viewers shown the same event are told different things" in f for f in faults)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_view_section_is_documented(game_id: str) -> None:
    presentation = GAMES[game_id].presentation
    assert presentation is not None
    assert set(presentation.view_sections.values()) <= set(VIEW_SECTIONS)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_place_has_a_position_in_the_unit_square_and_known_neighbours(game_id: str) -> None:
    document = game_data(GAMES[game_id])
    ids = {place.id for place in document.places}
    assert document.places, f"{game_id} publishes no board places"
    assert len(ids) == len(document.places), "place ids are unique"
    for place in document.places:
        assert 0.0 <= place.x <= 1.0 and 0.0 <= place.y <= 1.0, place.id
        assert place.name.strip(), place.id
        assert set(place.neighbours) <= ids, f"{place.id}: unknown neighbours"
        assert all(place.id in _place(document, n).neighbours for n in place.neighbours), (
            f"{place.id}: adjacency is symmetric"
        )


def _place(document: Any, place_id: str) -> Any:
    return next(p for p in document.places if p.id == place_id)
