"""Every id a client receives has a name, and every decision maps one-to-one onto the legal actions.

Over a seeded random playout of every game and player count, at every step:

- each seat that owes a decision gets one whose options cover its legal actions exactly once,
  by distinct paths (none the start of another), every choice named, every id resolving;
- every id in a view (each seat's and the spectator's), a legal action or an event (as each
  viewer receives it) resolves to a name in the game data (the game's `refs` say which fields
  hold ids of what kind);
- every event a viewer receives has a description: a key, a text that is its template rendered,
  every argument's id resolving;
- every top-level field of every view belongs to one of the documented view sections.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.gamedata import game_data
from services.kernel import GameSpec
from services.kernel.present import (
    VIEW_SECTIONS,
    Names,
    decision_faults,
    description_faults,
    unresolved_ids,
)
from services.kernel.testing import random_playout
from services.registry import GAMES

SEED = 7
# Faults are collected, not raised at the first: a report names a few of each kind.
_SHOWN = 12

CASES = [(spec.game_id, players) for spec in GAMES.values() for players in spec.player_counts]


def _json(spec: GameSpec[Any], value: Any) -> Any:
    return msgspec.json.decode(spec.codec.encode_json(value))


def presentation_faults(spec: GameSpec[Any], players: int, seed: int) -> list[str]:
    """Everything that breaks the rules of the module docstring in one seeded playout."""
    presentation = spec.presentation
    assert presentation is not None, f"{spec.game_id} has no presentation"
    names = Names(game_data(spec), players)
    playout = random_playout(spec, players, seed)
    state = spec.start(playout.config)
    faults: list[str] = []
    for number, step in enumerate([*playout.steps, None]):
        where = f"step {number}"
        for viewer in (*range(players), None):
            view = _json(spec, spec.view(state, viewer))
            faults += unresolved_ids(view, presentation, names, f"{where} view[{viewer}]")
            for key in view:
                section = presentation.view_sections.get(key)
                if section not in VIEW_SECTIONS:
                    faults.append(f"view field {key!r} has no section (got {section!r})")
        for seat in spec.active_players(state):
            legal = list(spec.legal_actions(state, seat))
            for i, action in enumerate(legal):
                faults += unresolved_ids(_json(spec, action), presentation, names, f"{where} action {i}")
            decision = presentation.decision(state, seat, legal)
            faults += [
                f"{where} seat {seat}: {f}" for f in decision_faults(decision, seat, len(legal), names)
            ]
        if step is None:
            break
        for viewer in (*range(players), None):
            for event in step.events:
                shown = spec.redact_event(event, viewer)
                tag = type(shown).__struct_config__.tag
                faults += unresolved_ids(_json(spec, shown), presentation, names, f"{where} {tag}")
                description = presentation.describe(shown, viewer)
                faults += [f"{where} {tag}: {f}" for f in description_faults(description, names)]
        state = spec.evolve(state, step.events)
    return list(dict.fromkeys(faults))  # the same fault at many steps is one


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_every_id_has_a_name_and_every_decision_maps_onto_the_legal_actions(
    game_id: str, players: int
) -> None:
    faults = presentation_faults(GAMES[game_id], players, SEED)
    assert not faults, f"{len(faults)} faults, first ones:\n" + "\n".join(faults[:_SHOWN])


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
