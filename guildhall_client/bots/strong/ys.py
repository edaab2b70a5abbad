"""Ys for the search bot: the sampler, and a leaf evaluation of the final scoring as it stands.

The evaluation is each seat's gold plus the end scoring of its gems at the current quotations
(the game's own score sheets). Broker majorities still to be counted are left to the playouts,
which run long enough to reach the counting of a turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guildhall_client.bots.strong.search import GameKit
from services.ys import GAME
from services.ys.model import State
from services.ys.sampler import sample
from services.ys.scoring import score_breakdowns


def evaluate(state: State) -> Sequence[float]:
    sheets = score_breakdowns(state)
    return [sum(sheets[p].values()) for p in range(state.players)]


def kit(options: Any = None) -> GameKit:
    return GameKit(
        spec=GAME,
        sample=lambda view, seat, rng: sample(view, seat, rng, options),
        evaluate=evaluate,
        scale=8.0,
        horizon=40,
    )
