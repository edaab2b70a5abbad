"""The names check of every game (tests/conformance/test_seat_names.py runs it): every text a
player reads that names a player can be shown with the names chosen at the table.

In a seeded random playout, every decision's prompt, steps and labels and every event's
description (as each viewer receives it) are rendered as a client at a table with chosen names
renders them (docs/clients.md, "Names chosen at the table"): each `{slot}` of a template filled
with its argument, a seat argument by the seat's name, an argument whose component stands for
a seat (`values.seat`, Ys's parties) by that seat's name when the match has it, else by the
component's `values.seatless`. No "Player N" may be left: a seat named in plain text is a seat a
client cannot name. A module of its own, like presentation.py, so a game's tests can run it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from services.gamedata import game_data
from services.kernel import GameSpec
from services.kernel.present import SEAT, Arg, Decision, Description
from services.kernel.testing import random_playout

# Names no game text holds, so one found in a rendered text was put there by its template.
TABLE_NAMES = ("Ann Table", "Bob Table", "Cy Table", "Di Table", "Ed Table")
_PLAYER_N = re.compile(r"\bPlayer \d")


class TableNames:
    """How a client at a table with chosen names renders a template (the rule of the docstring)."""

    def __init__(self, spec: GameSpec[Any], players: int) -> None:
        self.names = TABLE_NAMES[:players]
        # (kind, id) -> (seat, seatless text) for components that stand for a seat
        self.seats: dict[tuple[str, str], tuple[int, str]] = {}
        for c in game_data(spec).components:
            seat = c.values.get("seat")
            if isinstance(seat, int) and not isinstance(seat, bool):
                self.seats[(c.kind, c.id)] = (seat, str(c.values.get("seatless", c.name)))

    def arg(self, a: Arg) -> str:
        if a.kind == SEAT and a.id.lstrip("-").isdigit():
            seat = int(a.id)
            return self.names[seat] if 0 <= seat < len(self.names) else a.text
        stands_for = self.seats.get((a.kind, a.id))
        if stands_for is None:
            return a.text
        seat, seatless = stands_for
        return self.names[seat] if seat < len(self.names) else seatless

    def render(self, text: str, template: str, args: Sequence[Arg]) -> str:
        if not template:
            return text
        out = template
        for a in args:
            out = out.replace("{" + a.name + "}", self.arg(a))
        return out


def decision_texts(decision: Decision, names: TableNames) -> Iterator[str]:
    yield names.render(decision.prompt, decision.prompt_template, decision.prompt_args)
    for option in decision.options:
        for c in option.choices:
            yield names.render(c.step, c.step_template, c.step_args)
            yield names.render(c.label, c.label_template, c.label_args)


def description_text(description: Description, names: TableNames) -> str:
    return names.render(description.text, description.template, description.args)


def seat_name_faults(spec: GameSpec[Any], players: int, seed: int, options: Any = None) -> list[str]:
    """Every rendered text of one seeded playout that still says "Player N"."""
    presentation = spec.presentation
    assert presentation is not None, f"{spec.game_id} has no presentation"
    names = TableNames(spec, players)
    playout = random_playout(spec, players, seed, options)
    state = spec.start(playout.config)
    faults: list[str] = []
    for step in [*playout.steps, None]:
        for seat in spec.active_players(state):
            decision = presentation.decision(state, seat, list(spec.legal_actions(state, seat)))
            texts = decision_texts(decision, names)
            faults += [f"decision {decision.key!r}: {t!r}" for t in texts if _PLAYER_N.search(t)]
        if step is None:
            break
        for viewer in (*range(players), None):
            for event in step.events:
                description = presentation.describe(spec.redact_event(event, viewer), viewer)
                text = description_text(description, names)
                if _PLAYER_N.search(text):
                    faults.append(f"event {type(event).__struct_config__.tag}: {text!r}")
        state = spec.evolve(state, step.events)
    # one line per kind of text: numbers aside, the same fault at many steps is one
    return list({re.sub(r"\d+", "N", f): f for f in faults}.values())
