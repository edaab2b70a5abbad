"""`legal_actions` is exact: over sampled states of real games, every candidate action from a
wide generator is accepted exactly when it is listed."""

from __future__ import annotations

from itertools import product

import pytest

from services.kernel import Rejection
from services.kernel.testing import random_playout
from services.ys import GAME
from services.ys.model import (
    AREAS,
    COLOURS,
    Bid,
    ChooseOrderCard,
    MoveQuotation,
    Options,
    PlaceBroker,
    PlaceNeutral,
    ReplaceFront,
    SendToThrone,
)
from services.ys.rules import RULES

PLACES = [f"n{k}.{a}" for k in range(1, 5) for a in AREAS] + [f"m{r}.{c}" for r in range(4) for c in COLOURS]


def candidates(state, seat):  # noqa: ANN001, ANN201
    out = [Bid((a, b)) for a, b in product(range(5), repeat=2)]
    out += [ChooseOrderCard(c) for c in range(1, 7)]
    out += [
        PlaceBroker(v, p, f, ff) for v, p, f, ff in product(range(5), PLACES, (True, False), (True, False))
    ]
    out += [PlaceNeutral(p, v) for p in PLACES for v in range(-1, 5)]
    out += [ReplaceFront(v) for v in range(5)] + [SendToThrone(v) for v in range(5)]
    out += [MoveQuotation(c, s) for c in COLOURS for s in (-1, 0, 1)]
    # Every way any card could be played, whoever holds it.
    for card in RULES.cards:
        entry = RULES.cards[card]
        for player in range(state.players):
            out += RULES._card_actions(state, player, card) if entry.window != "immediate" else []
    out += list(RULES.probe_actions(state, seat))
    return out


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (4, Options(kings_favor=True)),
        (2, Options()),
        (2, Options(neutral_chosen=True)),
        (3, Options(express=True)),
    ],
)
def test_every_candidate_is_accepted_exactly_when_listed(players: int, options: Options) -> None:
    playout = random_playout(GAME, players, 17, options)
    state = GAME.start(playout.config)
    for n, step in enumerate(playout.steps):
        if n % 9 == 0:
            for seat in GAME.active_players(state):
                listed = {GAME.codec.encode_json(a) for a in GAME.legal_actions(state, seat)}
                for action in candidates(state, seat):
                    accepted = not isinstance(GAME.decide(state, seat, action), Rejection)
                    assert accepted == (GAME.codec.encode_json(action) in listed), (n, seat, action)
        state = GAME.evolve(state, step.events)
