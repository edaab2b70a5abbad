"""The strong bot: information-set MCTS (search.py) with a kit per game (sampler, evaluation).

It plays from exactly what a client gets, like every bot: its seat's JSON view and the JSON
legal actions. The view is decoded into the game's view Struct, the game's sampler deals the
hidden parts anew for each iteration, and the search plays the game's own rules in process.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from guildhall_client.bots.strong.search import Budget, GameKit, search

DEFAULT_BUDGET_S = 1.0
# Bumped whenever the search or a kit changes how it plays: bench results of older versions
# stop counting (bench/bots/results.jsonl keeps them, the summary skips them).
STRONG_VERSION = 1
# One module per game under guildhall_client/bots/strong/, each with `kit(options) -> GameKit`.
STRONG_GAMES = ("rattus_cartus", "ys", "bruges", "ankh_morpork", "waterdeep")


def game_kit(game: str, options: Any = None) -> GameKit:
    if game not in STRONG_GAMES:
        raise ValueError(f"no strong bot for {game!r} yet")
    module = importlib.import_module(f"guildhall_client.bots.strong.{game}")
    return module.kit(options)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Decision:
    """One decision the bot searched: its cost and how many iterations it ran."""

    seconds: float
    iterations: int


class StrongBot:
    """Search for `budget_s` seconds on `clock` per decision (or `iterations`, if given: then
    each choice is a pure function of the view, the legal actions and the seed). A decision
    with one legal option is answered at once."""

    name = "strong"

    def __init__(
        self,
        game: str,
        seed: int | None = None,
        *,
        budget_s: float = DEFAULT_BUDGET_S,
        clock: Callable[[], float] = time.perf_counter,
        iterations: int | None = None,
        options: Any = None,
    ) -> None:
        self.game = game
        self._kit = game_kit(game, options)
        self._rng = random.Random(seed)
        self._budget = Budget(
            seconds=None if iterations is not None else budget_s, iterations=iterations, clock=clock
        )
        self._clock = clock
        self.decisions: list[Decision] = []

    def choose(self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], seat: int) -> int:
        if not legal:
            raise ValueError("no legal action to choose from")
        if len(legal) == 1:
            return 0
        started = self._clock()
        codec = self._kit.spec.codec
        view_struct = codec.decode_view(msgspec.json.encode(view))
        actions = [codec.decode_action(msgspec.json.encode(a)) for a in legal]
        result = search(self._kit, view_struct, seat, actions, self._budget, self._rng)
        self.decisions.append(Decision(self._clock() - started, result.iterations))
        return result.choice


__all__ = ["DEFAULT_BUDGET_S", "STRONG_VERSION", "STRONG_GAMES", "Decision", "StrongBot", "game_kit"]
