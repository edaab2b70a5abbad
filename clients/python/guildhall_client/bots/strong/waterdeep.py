"""Lords of Waterdeep for the search bot: the sampler, and a leaf evaluation of points and holdings.

The evaluation is the final scoring as if the game ended now (VP, adventurers, gold, the Lord's
bonus for the quests completed), plus what a seat holds towards more: wizards and clerics count
double (they are scarce), intrigue cards, and each active quest by its reward in proportion to
how much of its requirement the seat already holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guildhall_client.bots import waterdeep as greedy
from guildhall_client.bots.strong.search import GameKit
from services.waterdeep import GAME
from services.waterdeep.model import State
from services.waterdeep.rules import RULES, base
from services.waterdeep.sampler import sample
from services.waterdeep.scoring import lord_bonus

SCARCE_CUBE = 1.0  # a wizard or a cleric beyond its end-game point
INTRIGUE_CARD = 1.5
QUEST_SHARE = 0.6  # of a quest's reward, times the share of its requirement held


def _quest_value(cubes: tuple[int, ...], gold: int, quest_id: str) -> float:
    quest = RULES.quests.get(base(quest_id))
    if quest is None:
        return 0.0
    need = quest.requires
    wanted = (need.c, need.f, need.r, need.w, need.gold)
    held = (*cubes, gold)
    total = sum(wanted)
    share = sum(min(h, w) for h, w in zip(held, wanted, strict=True)) / total if total else 1.0
    return QUEST_SHARE * quest.reward.vp * share


def evaluate(state: State) -> Sequence[float]:
    points = []
    for p, x in enumerate(state.seats):
        value: float = x.vp + sum(x.cubes) + x.gold // 2 + lord_bonus(RULES.catalog, x, state, p)
        value += SCARCE_CUBE * (x.cubes[0] + x.cubes[3]) + INTRIGUE_CARD * len(x.intrigue)
        value += sum(_quest_value(x.cubes, x.gold, q) for q in x.quests)
        points.append(value)
    return points


def kit(options: Any = None) -> GameKit:
    return GameKit(
        spec=GAME,
        sample=lambda view, seat, rng: sample(view, seat, rng, options),
        evaluate=evaluate,
        greedy=greedy.evaluate,
        scale=8.0,
    )
