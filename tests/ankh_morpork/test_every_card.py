"""Every one of the 101 cards can be played from a busy table and leaves it as the rules say;
each symbol is offered in printed order with the action that does it."""

from __future__ import annotations

import pytest

from services.ankh_morpork.model import (
    Assassinate,
    Build,
    PlaceMinion,
    PlayCard,
    PlayInterrupt,
    RemoveTrouble,
    Scroll,
    Skip,
    TakeMoney,
    UseAbility,
)
from services.ankh_morpork.rules import RULES
from tests.ankh_morpork.helpers import GREEN, RED, YELLOW, legal, play, put, table

CARDS = [c.id for c in RULES.catalog.cards]
DOES = {"M": PlaceMinion, "B": Build, "A": Assassinate, "T": RemoveTrouble, "S": Scroll}
FILLERS = ["peeled_nuts", "groat", "dwarves", "hex"]


def _busy(card: str):  # type: ignore[no-untyped-def]
    hand = [card, *[f for f in FILLERS if f != card][:3]]
    state = table(
        4,
        hands={RED: hand, YELLOW: ["modo", "errol"], GREEN: ["dorfl"]},
        minions={
            1: {RED: 1, YELLOW: 1},
            2: {RED: 1, GREEN: 1},
            5: {YELLOW: 2, 3: 1},
            7: {RED: 1},
            10: {GREEN: 1},
        },
        trouble=[1, 5],
        buildings={3: YELLOW, 9: GREEN},
        money=[30, 10, 10, 10],
    )
    return put(state, events_deck=("fog", *[e for e in state.events_deck if e != "fog"]))


@pytest.mark.parametrize("card", CARDS)
def test_the_card_plays_through_and_leaves_the_table(card: str) -> None:
    info = RULES.t.cards[card]
    state = _busy(card)
    if info.interrupt:
        assert PlayCard(card) not in legal(state, RED)
        return
    state, _ = play(state, RED, PlayCard(card))
    for _ in range(80):
        if state.over or state.current != RED:
            break
        seat = state.stack[-1].player
        options = legal(state, seat)
        frame = state.stack[-1]
        if frame.kind == "card" and frame.card == card and frame.step < len(info.symbols):
            symbol = info.symbols[frame.step]
            wanted = TakeMoney if symbol.startswith("$") else DOES.get(symbol)
            doing = [a for a in options if wanted is not None and isinstance(a, wanted)]
            if doing:
                state, _ = play(state, seat, doing[0])
                continue
        choice = next(
            (a for a in options if not isinstance(a, (UseAbility, PlayInterrupt, PlayCard))), options[0]
        )
        if isinstance(choice, Skip) and len(options) > 1 and frame.kind != "card":
            choice = next(a for a in options if not isinstance(a, Skip))
        state, _ = play(state, seat, choice)
    assert state.over or state.current != RED
    placed = (
        card in state.discard
        or card in state.loans[RED]
        or any(card in row for row in state.penalties)
        or card in state.hands[RED]  # drawn back (History Monks) or Mossy Lawn
    )
    assert placed, f"{card} vanished"
