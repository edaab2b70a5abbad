"""Seeded positions of every game for the bot tests: random play from a seed, a stop every few
actions, the seat that owes a decision there."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from services.kernel import GameSpec, SetupConfig
from services.registry import GAMES

GAME_IDS = ("rattus_cartus", "ys", "bruges", "ankh_morpork", "waterdeep")


def positions(game: str, players: int, seed: int, every: int, limit: int) -> Iterator[tuple[Any, int]]:
    """(state, seat owing a decision) every `every` actions of a random seeded game, `limit` times."""
    spec: GameSpec[Any] = GAMES[game]
    state = spec.start(SetupConfig(players=players, seed=seed))
    order = random.Random(seed)
    step = found = 0
    while spec.outcome(state) is None and found < limit:
        seat = order.choice(list(spec.active_players(state)))
        if step % every == every - 1:
            found += 1
            yield state, seat
        legal = spec.legal_actions(state, seat)
        events = spec.decide(state, seat, order.choice(legal))
        assert isinstance(events, list | tuple), events
        state = spec.evolve(state, events)
        step += 1
