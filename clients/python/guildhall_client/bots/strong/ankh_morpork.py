"""Ankh-Morpork for the search bot: the sampler, and a leaf evaluation of goal progress.

A seat wins by meeting its secret personality's goal at the start of its turn, so the
evaluation is the share of its goal a seat has met (areas controlled, money, minions spread,
trouble markers), squared so the last steps count most, with the end-of-game points (minions,
buildings, money, loans) as a small tie-breaker. Commander Vimes wins when the draw pile runs
out: his progress is the share of the pile drawn. In a determinization every personality is
dealt, so the evaluation of rivals uses the sampled ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guildhall_client.bots import ankh_morpork as greedy
from guildhall_client.bots.strong.search import GameKit
from services.ankh_morpork import GAME
from services.ankh_morpork.model import State
from services.ankh_morpork.rules import RULES
from services.ankh_morpork.sampler import sample
from services.ankh_morpork.scoring import breakdowns, goal_progress, threshold

GOAL = 30.0
POINTS = 0.05
FULL_DECK = 100  # about the size of the draw pile at the start


def evaluate(state: State) -> Sequence[float]:
    t = RULES.t
    values = []
    sheets = breakdowns(t, state)
    for seat, person in enumerate(state.personalities):
        if t.personalities[person].goal == "deck_out":
            share = 1.0 - min(len(state.deck), FULL_DECK) / FULL_DECK
        else:
            share = min(1.0, goal_progress(t, state, seat) / max(1, threshold(t, person, state.players)))
        values.append(GOAL * share * share + POINTS * sum(sheets[seat].values()))
    return values


def kit(options: Any = None) -> GameKit:
    return GameKit(
        spec=GAME,
        sample=lambda view, seat, rng: sample(view, seat, rng, options),
        evaluate=evaluate,
        greedy=greedy.evaluate,
        scale=4.0,
    )
