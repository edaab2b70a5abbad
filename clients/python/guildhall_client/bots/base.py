"""Bots choose among the legal actions a client was given, from the view it was given.

A bot sees exactly what a third-party client sees: the decoded JSON view of its seat and the
decoded JSON legal actions (dicts). It never touches server-side state, so the same bot plays
in process (benchmarks) and over the gateway (`guildhall bots`, `guildhall play`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

# (view, action, seat) -> the bot's estimate of how good the position after `action` is for it.
Evaluator = Callable[[Mapping[str, Any], Mapping[str, Any], int], float]


class Bot(Protocol):
    """Anything that picks one of the legal actions (by index) for `seat`."""

    name: str

    def choose(self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], seat: int) -> int: ...


class RandomBot:
    """Uniform among the legal actions: every game, no knowledge at all."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], seat: int) -> int:
        if not legal:
            raise ValueError("no legal action to choose from")
        return self._rng.randrange(len(legal))


class GreedyBot:
    """One ply: the legal action whose resulting position the game's evaluator scores best.

    Ties are broken at random (seeded), so two greedy bots do not mirror each other and a flat
    evaluation degrades to the random bot rather than to "always the first action"."""

    name = "greedy"

    def __init__(self, evaluate: Evaluator, seed: int | None = None) -> None:
        self._evaluate = evaluate
        self._rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], seat: int) -> int:
        if not legal:
            raise ValueError("no legal action to choose from")
        if len(legal) == 1:
            return 0
        scores = [self._evaluate(view, action, seat) for action in legal]
        best = max(scores)
        # Float noise from summed weights must not split equal choices.
        top = [i for i, s in enumerate(scores) if s >= best - 1e-9]
        return self._rng.choice(top)
