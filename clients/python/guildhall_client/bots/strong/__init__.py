"""The strong bot: a search over determinizations with greedy playouts (search.py) and a kit
per game (sampler, greedy evaluator, leaf evaluation).

It plays from exactly what a client gets, like every bot: its seat's JSON view and the JSON
legal actions. The greedy evaluation ranks the legal actions, the view is decoded into the
game's view Struct, the game's sampler deals the hidden parts anew for each round, and the
search plays the game's own rules in process.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from guildhall_client.bots.strong.search import Budget, GameKit, greedy_order, search

DEFAULT_BUDGET_S = 1.0
# Bumped whenever the search changes how it plays (a kit's own changes bump its `version`):
# bench results of older versions stop counting (bench/bots/results.jsonl keeps them, the
# summary skips them).
STRONG_VERSION = 2
# One module per game under guildhall_client/bots/strong/, each with `kit(options) -> GameKit`.
STRONG_GAMES = ("rattus_cartus", "ys", "bruges", "ankh_morpork", "waterdeep")


def game_kit(game: str, options: Any = None) -> GameKit:
    if game not in STRONG_GAMES:
        raise ValueError(f"no strong bot for {game!r} yet")
    module = importlib.import_module(f"guildhall_client.bots.strong.{game}")
    return module.kit(options)  # type: ignore[no-any-return]


@functools.lru_cache
def strong_version(game: str) -> str:
    """The version of the strong bot of `game`: the search's and the game kit's."""
    return f"{STRONG_VERSION}.{game_kit(game).version}"


@dataclass(frozen=True)
class Decision:
    """One decision the bot searched: its cost and how many rounds and rollouts it ran."""

    seconds: float
    rounds: int  # determinizations every candidate was played out in
    rollouts: int


class StrongBot:
    """Search for `budget_s` seconds on `clock` per decision (or `rounds`, if given: then each
    choice is a pure function of the view, the legal actions and the seed). A decision with one
    legal option is answered at once."""

    name = "strong"

    def __init__(
        self,
        game: str,
        seed: int | None = None,
        *,
        budget_s: float = DEFAULT_BUDGET_S,
        clock: Callable[[], float] = time.perf_counter,
        rounds: int | None = None,
        options: Any = None,
    ) -> None:
        self.game = game
        self._kit = game_kit(game, options)
        self._rng = random.Random(seed)
        self._budget = Budget(seconds=None if rounds is not None else budget_s, rounds=rounds, clock=clock)
        self._clock = clock
        self.decisions: list[Decision] = []

    def choose(
        self,
        view: Mapping[str, Any],
        legal: Sequence[Mapping[str, Any]],
        seat: int,
        *,
        budget_s: float | None = None,
    ) -> int:
        """The index of the action chosen; `budget_s` replaces the bot's time budget for this
        decision (the bot worker shortens it while other searches wait)."""
        if not legal:
            raise ValueError("no legal action to choose from")
        if len(legal) == 1:
            return 0
        started = self._clock()
        codec = self._kit.spec.codec
        view_struct = codec.decode_view(msgspec.json.encode(view))
        actions = [codec.decode_action(msgspec.json.encode(a)) for a in legal]
        order = greedy_order(self._kit.greedy, view, legal, seat, self._rng)
        budget = self._budget
        if budget.seconds is not None:  # the decoding and ranking above count against the budget
            seconds = budget_s if budget_s is not None else budget.seconds
            budget = dataclasses.replace(budget, seconds=seconds - (self._clock() - started))
        result = search(self._kit, view_struct, seat, actions, order, budget, self._rng)
        self.decisions.append(Decision(self._clock() - started, result.rounds, result.rollouts))
        return result.choice


__all__ = [
    "DEFAULT_BUDGET_S",
    "STRONG_GAMES",
    "STRONG_VERSION",
    "Decision",
    "StrongBot",
    "game_kit",
    "strong_version",
]
