"""The presentation check of every game (tests/conformance/test_presentation.py runs it for every
game and player count; a game's own tests run it with their seeds and options): in a seeded
random playout, every id a client receives has a name, every decision maps one-to-one onto the
legal actions (and travels as a table of its distinct choices that gives its options back), every
event a viewer receives is described (viewers shown equal events alike: the rules service
describes each distinct event once), every view field has a section.

A module of its own, apart from the registry, so a game's tests import only that game."""

from __future__ import annotations

from typing import Any

import msgspec

from services.gamedata import game_data
from services.kernel import GameSpec
from services.kernel.present import (
    VIEW_SECTIONS,
    Names,
    choice_table,
    decision_faults,
    description_faults,
    unresolved_ids,
)
from services.kernel.testing import random_playout


def _json(spec: GameSpec[Any], value: Any) -> Any:
    return msgspec.json.decode(spec.codec.encode_json(value))


def presentation_faults(spec: GameSpec[Any], players: int, seed: int, options: Any = None) -> list[str]:
    """Everything that breaks the rules of the module docstring in one seeded playout."""
    presentation = spec.presentation
    assert presentation is not None, f"{spec.game_id} has no presentation"
    names = Names(game_data(spec), players)
    playout = random_playout(spec, players, seed, options)
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
            table, paths = choice_table(decision.options)
            if len(set(table)) != len(table) or [tuple(table[i] for i in path) for path in paths] != [
                o.choices for o in decision.options
            ]:
                faults.append(f"{where} seat {seat}: the choice table does not give the options back")
        if step is None:
            break
        described: dict[bytes, Any] = {}  # by the JSON of the event as shown
        for viewer in (*range(players), None):
            for event in step.events:
                shown = spec.redact_event(event, viewer)
                tag = type(shown).__struct_config__.tag
                faults += unresolved_ids(_json(spec, shown), presentation, names, f"{where} {tag}")
                description = presentation.describe(shown, viewer)
                faults += [f"{where} {tag}: {f}" for f in description_faults(description, names)]
                if described.setdefault(spec.codec.encode_json(shown), description) != description:
                    faults.append(f"{where} {tag}: viewers shown the same event are told different things")
        state = spec.evolve(state, step.events)
    return list(dict.fromkeys(faults))  # the same fault at many steps is one
