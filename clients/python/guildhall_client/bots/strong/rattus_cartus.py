"""Rattus Cartus for the search bot: the sampler, and a leaf evaluation of points and plague risk.

The evaluation is the score the game would give now (influence awards, hand majorities, VP
tokens) less the plague: a seat with more rats than the Nun row shows nuns is eliminated at the
end, so each rat above one below that line costs as much as a majority. Cards in hand add half
a point each for the influence they can still bring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guildhall_client.bots import rattus_cartus as greedy
from guildhall_client.bots.strong.search import GameKit
from services.rattus_cartus import GAME
from services.rattus_cartus.model import State
from services.rattus_cartus.rules import _counts_for_influence, nuns_in_row, score_breakdowns
from services.rattus_cartus.sampler import sample

PLAGUE_COST = 5.0  # points per rat at or above the plague line
HAND_CARD = 0.5


def evaluate(state: State) -> Sequence[float]:
    nuns = nuns_in_row(state)
    points = []
    for p, sheet in enumerate(score_breakdowns(state)):
        danger = max(0, state.rats[p] - nuns + 1)
        held = sum(1 for c in state.hands[p] if _counts_for_influence(c))
        points.append(sum(sheet.values()) - PLAGUE_COST * danger + HAND_CARD * held)
    return points


def kit(options: Any = None) -> GameKit:
    return GameKit(
        spec=GAME,
        sample=lambda view, seat, rng: sample(view, seat, rng, options),
        evaluate=evaluate,
        greedy=greedy.evaluate,
        scale=6.0,
    )
