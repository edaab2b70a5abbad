"""Ys for the search bot: the sampler, and a leaf evaluation of the final scoring as it stands
plus the majorities still to be counted.

The evaluation is each seat's gold plus the end scoring of its gems at the current quotations
(the game's own score sheets), plus what the brokers on the board are still to win: each city
area, each neighbourhood's ranking (the port's gems) and each market row goes to the highest
broker total, so each party gets the place's worth times a share that grows smoothly with its
lead (later placements can still turn it). In a determinization every broker's value is dealt,
so the totals are exact for the position; the smoothness stands for what is still to come.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from guildhall_client.bots import ys as greedy
from guildhall_client.bots.strong.search import GameKit
from services.ys import GAME
from services.ys.model import State, place_neighbourhood
from services.ys.sampler import sample
from services.ys.scoring import score_breakdowns

SPREAD = 1.5  # broker value of a lead that makes a place about e times likelier to be won
AREA_WORTH = {"port": 4.0, "palace": 3.5}  # a black gem; a character card (commercial: its gold)
RANKING_WORTH = 5.0  # first in a neighbourhood: two of the port's gems
ROW_WORTH = 3.0  # a market row's gem


def _shares(totals: dict[int, float], parties: int) -> list[float]:
    shares = [0.0] * parties
    if totals:
        top = max(totals.values())
        weights = {p: math.exp((t - top) / SPREAD) for p, t in totals.items()}
        whole = sum(weights.values())
        for p, w in weights.items():
            shares[p] = w / whole
    return shares


def pending(state: State) -> list[float]:
    """Each party's expected winnings from the brokers on the board (not yet counted)."""
    groups: dict[str, dict[int, float]] = {}
    for b in state.board:
        value = 5.0 if b.mercenary else float(b.value)
        keys = [b.place[:2]] if b.place.startswith("m") else [b.place, f"n{place_neighbourhood(b.place)}"]
        for key in keys:
            group = groups.setdefault(key, {})
            group[b.owner] = group.get(b.owner, 0.0) + value
    out = [0.0] * state.parties
    for key, totals in groups.items():
        if key.startswith("m"):
            row = int(key[1])
            worth = ROW_WORTH if row < len(state.market_gems) and state.market_gems[row] else 0.0
        elif "." in key:
            area = key.partition(".")[2]
            worth = float(state.commercial_vp) if area == "commercial" else AREA_WORTH[area]
        else:
            worth = RANKING_WORTH
        for p, share in enumerate(_shares(totals, state.parties)):
            out[p] += worth * share
    return out


def evaluate(state: State) -> Sequence[float]:
    sheets = score_breakdowns(state)
    later = pending(state)
    return [sum(sheets[p].values()) + later[p] for p in range(state.players)]


def kit(options: Any = None) -> GameKit:
    return GameKit(
        spec=GAME,
        sample=lambda view, seat, rng: sample(view, seat, rng, options),
        evaluate=evaluate,
        greedy=greedy.evaluate,
        scale=8.0,
        horizon=16,
        version=2,
    )
