"""Greedy evaluation for Lords of Waterdeep, from a seat's view and the game's public card data.

Quests, action spaces and Building tiles are printed on the board and cards, so the bot reads
them from the game's published data (bots/data.py); what it cannot see (others'
Intrigue hands and Lords, the decks) it does not use. The estimate of the position after an
action: victory points, plus resources valued by what they are for. Wizards and Clerics are the
scarce cubes; every resource is worth more while it closes the gap to the seat's best open
quest (the one with most points for the least still missing); a quest of the seat's Lord's
types is worth the Lord's bonus more. Completing a quest is always worth doing.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from guildhall_client.bots.data import catalog

CUBES = {"cleric": "c", "fighter": "f", "rogue": "r", "wizard": "w"}
RESOURCES = ("c", "f", "r", "w", "gold", "vp", "intrigue")
BASE = {"c": 2.0, "w": 2.0, "f": 1.0, "r": 1.0, "gold": 0.5, "vp": 1.0, "intrigue": 1.2}
NEED_BONUS = 3.0  # per unit that closes the gap to the target quest
_OTHER_OPS = {
    "inn_quest": 3.0,
    "reset_inn": 0.3,
    "first_player": 1.0,
    "ambassador": 1.0,
    "copy_space": 2.0,
    "gold_per_building": 1.5,
}


@lru_cache(maxsize=1)
def _catalog() -> Any:
    data = catalog("waterdeep")
    return (
        {s.id: s for s in data.spaces},
        {t.id: t for t in data.buildings},
        {q.id: q for q in data.quests},
        {lord.id: lord for lord in data.lords},
    )


def _have(seat_view: Mapping[str, Any]) -> dict[str, int]:
    have = {CUBES[k]: v for k, v in seat_view["cubes"].items() if k in CUBES}
    have["gold"] = seat_view["gold"]
    return have


def _deficit(quest: Any, have: Mapping[str, int]) -> dict[str, int]:
    need = quest.requires
    return {r: max(getattr(need, r) - have.get(r, 0), 0) for r in ("c", "f", "r", "w", "gold")}


def _lord_bonus(view: Mapping[str, Any], seat: int, quest: Any) -> float:
    lord_id = view["seats"][seat].get("lord")
    lord = _catalog()[3].get(lord_id) if lord_id else None
    return float(lord.vp_per_quest) if lord is not None and quest.type in lord.quest_types else 0.0


def _target_gap(view: Mapping[str, Any], seat: int) -> dict[str, int]:
    """What the seat still misses for its most attractive open quest."""
    quests = _catalog()[2]
    me = view["seats"][seat]
    have = _have(me)
    best: tuple[float, dict[str, int]] | None = None
    for qid in me["quests"]:
        quest = quests.get(qid)
        if quest is None:
            continue
        gap = _deficit(quest, have)
        score = (quest.reward.vp + _lord_bonus(view, seat, quest)) / (1 + sum(gap.values()))
        if best is None or score > best[0]:
            best = (score, gap)
    return best[1] if best else {}


def _value(view: Mapping[str, Any], seat: int, gains: Mapping[str, float]) -> float:
    gap = _target_gap(view, seat)
    total = 0.0
    for r, amount in gains.items():
        total += BASE.get(r, 0.0) * amount
        if amount > 0 and gap.get(r, 0) > 0:
            total += NEED_BONUS * min(amount, gap[r])
    return total


def _effects_value(view: Mapping[str, Any], seat: int, effects: Any, space: str) -> float:
    me = view["seats"][seat]
    total = 0.0
    for e in effects:
        if e.op == "gain":
            total += _value(view, seat, {r: getattr(e, r) for r in RESOURCES})
        elif e.op == "take_stock":
            building = next((b for b in view["buildings"] if b["tile"] == space), None)
            stock = building["stock"] if building else []
            total += _value(view, seat, dict(zip(("c", "f", "r", "w", "gold", "vp"), stock, strict=False)))
        elif e.op == "buy_building":
            total += 2.0 if me["gold"] >= 4 else -1.0
        elif e.op == "play_intrigue":
            total += 1.5 if me["intrigue_count"] > 0 else -1.0
        elif e.op == "choose_cubes":
            total += BASE["c"] * max(e.n, 1)
        elif e.op == "inn_quest":
            # A new quest is worth most to a seat with little to work on; a seat holding many
            # should be gathering what they need instead.
            total += _OTHER_OPS["inn_quest"] - 1.5 * max(len(me["quests"]) - 1, 0)
        else:
            total += _OTHER_OPS.get(e.op, 0.5)
    return total


def _quest_value(view: Mapping[str, Any], seat: int, qid: str) -> float:
    quest = _catalog()[2].get(qid)
    if quest is None:
        return 0.0
    gap = _deficit(quest, _have(view["seats"][seat]))
    reward = {r: getattr(quest.reward, r) for r in RESOURCES}
    return float(
        reward["vp"]
        + _lord_bonus(view, seat, quest)
        + 0.5 * _value(view, seat, reward)
        - 0.8 * sum(gap.values())
    )


def _decision(view: Mapping[str, Any], seat: int) -> str:
    for d in reversed(view.get("pending") or []):
        if d["player"] == seat:
            return str(d["kind"])
    return ""


def _leader_value(view: Mapping[str, Any], option: str) -> float:
    """Aim at whoever leads (their public victory points)."""
    target = option.partition(":")[0]
    if not target.isdigit() or int(target) >= len(view["seats"]):
        return 0.0
    return 0.1 * float(view["seats"][int(target)]["vp"])


def evaluate(view: Mapping[str, Any], action: Mapping[str, Any], seat: int) -> float:
    """How much better the position after `action` is for `seat` than now (estimated)."""
    spaces, tiles, _, _ = _catalog()
    kind = action["type"]
    if kind == "complete_quest":
        return 10.0 + _quest_value(view, seat, action["quest"]) + 0.8 * 10
    if kind == "place_agent":
        space = action["space"]
        if space in spaces:
            return _effects_value(view, seat, spaces[space].action, space)
        if space in tiles:
            return _effects_value(view, seat, tiles[space].action, space)
        return 0.5
    if kind != "choose":
        return 0.0  # end_turn: the baseline
    option = str(action["option"])
    decision = _decision(view, seat)
    if decision in ("inn_quest", "bidding", "quest"):
        return _quest_value(view, seat, option)
    if decision in ("cube", "miracle"):
        return _value(view, seat, {CUBES[option]: 1}) if option in CUBES else 0.0
    if decision == "return_cube":
        return -BASE[CUBES[option]] if option in CUBES else 0.0
    if decision == "favor":
        resource, _, amount = option.partition("=")
        return _value(view, seat, {resource: float(amount or 0)})
    if decision in ("buy", "buy_free"):
        tile = tiles.get(option)
        return 2.0 - (0.2 * tile.cost if tile is not None and decision == "buy" else 0.0)
    if decision in ("opponent", "target", "steal"):
        value = _leader_value(view, option)
        if decision == "steal":
            cube = option.partition(":")[2]
            value += BASE.get(CUBES.get(cube, ""), 0.0)
        return value
    if decision == "discard_own":
        return -_quest_value(view, seat, option)
    if decision == "garden":
        return 1.0 if option == "complete" else 0.0
    if decision in ("intrigue", "intrigue_optional"):
        return -0.5 if option == "skip" else 0.5
    if decision == "copy":
        return _effects_value(view, seat, spaces[option].action, option) if option in spaces else 0.5
    return 0.0
