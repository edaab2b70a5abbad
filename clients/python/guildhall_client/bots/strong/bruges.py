"""Bruges for the search bot: the sampler, and a leaf evaluation of the end score and holdings.

The evaluation is the final scoring as if the game ended now (running score, persons, houses,
laurels, majorities, canals, statues, reputation), plus what a seat holds towards more: guilders
and workers (what pays for persons and canals), cards in hand, less the threats that bring a
calamity nearer (quadratic: the third threat of a colour strikes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guildhall_client.bots import bruges as greedy
from guildhall_client.bots.strong.search import GameKit
from services.bruges import GAME
from services.bruges.model import State
from services.bruges.rules import RULES
from services.bruges.sampler import sample
from services.bruges.scoring import breakdown

GUILDER = 0.25
WORKER = 0.3
HAND_CARD = 0.6
THREAT = 0.4  # times the square of a colour's threats


def evaluate(state: State) -> Sequence[float]:
    return [
        sum(breakdown(RULES, seat).values())
        + GUILDER * seat.guilders
        + WORKER * sum(seat.workers)
        + HAND_CARD * len(seat.hand)
        - THREAT * sum(t * t for t in seat.threats)
        for seat in state.seats
    ]


def kit(options: Any = None) -> GameKit:
    return GameKit(
        spec=GAME,
        sample=lambda view, seat, rng: sample(view, seat, rng, options),
        evaluate=evaluate,
        greedy=greedy.evaluate,
        scale=4.0,
    )
