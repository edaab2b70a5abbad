"""Greedy evaluation for Discworld: Ankh-Morpork, from a seat's view.

The evaluation estimates what the position after an action is worth at the end-of-deck
scoring (each minion on the board counts, buildings count their area's cost, money counts, loans
cost) plus control of areas, which most personalities need to win: a minion or building that
takes an area from a rival is worth more, pieces of rivals removed are worth something, the
seat's own pieces lost cost. Effects whose value the view cannot tell (which card to play, a
scroll's text) are neutral, so the tie-break picks among them at random.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MINION = 5.0  # points of a minion on the board at the end
CONTROL = 3.0  # an area this seat controls, for goals and City Area cards


def _area(view: Mapping[str, Any], number: int) -> Mapping[str, Any] | None:
    area: Mapping[str, Any]
    for area in view["areas"]:
        if area["area"] == number:
            return area
    return None


def _controls(area: Mapping[str, Any], seat: int, extra_minions: int = 0, building: bool = False) -> bool:
    """Control: more pieces (minions, plus a building) than any other player and than the trolls
    and demons together; demons in an area stop anyone controlling it."""
    if area["demons"]:
        return False
    minions = list(area["minions"])
    minions[seat] += extra_minions
    pieces = [
        m + (1 if area["building"] == p or (building and p == seat) else 0) for p, m in enumerate(minions)
    ]
    mine = pieces[seat]
    others = max((n for p, n in enumerate(pieces) if p != seat), default=0)
    return bool(mine > others and mine > area["trolls"])


def _rival_control_lost(area: Mapping[str, Any], seat: int, owner: int) -> float:
    return CONTROL * 0.5 if area["controller"] == owner and owner != seat else 0.0


def _personality(view: Mapping[str, Any], seat: int) -> str:
    """The seat's own secret personality (its view shows it; others' stay hidden)."""
    return str(view["seats"][seat].get("personality") or "")


def evaluate(view: Mapping[str, Any], action: Mapping[str, Any], seat: int) -> float:
    """How much better the position after `action` is for `seat` than now (estimated)."""
    value = _base(view, action, seat)
    kind = action["type"]
    goal = _personality(view, seat)
    area = _area(view, action["area"]) if "area" in action and kind != "use_ability" else None
    # Each personality wins its own way [rulebook]: lean the estimate towards it.
    if goal.startswith("lord_") and goal != "lord_vetinari" and kind in ("place_minion", "build"):
        value *= 1.3  # the Lords win by controlling areas
    elif (
        goal == "lord_vetinari" and kind == "place_minion" and area is not None and not area["minions"][seat]
    ):
        value += 3.0  # Vetinari wins with minions in many areas
    elif goal == "dragon_king_of_arms":
        if kind == "place_minion" and area is not None and any(area["minions"]) and not area["trouble"]:
            value += 2.0  # a minion joining others makes trouble: the Dragon King counts trouble
        if kind == "remove_trouble":
            value -= 2.0
    elif goal == "chrysoprase" and kind in ("take_money", "build"):
        value += 2.0  # Chrysoprase wins by net worth
    return value


def _base(view: Mapping[str, Any], action: Mapping[str, Any], seat: int) -> float:
    kind = action["type"]
    if kind in ("place_minion", "move_minion", "build"):
        area = _area(view, action["area"])
        if area is None:
            return 0.0
        building = kind == "build"
        before = bool(area["controller"] == seat)
        after = _controls(area, seat, 0 if building else 1, building)
        value = CONTROL * (after - before)
        if kind == "place_minion":
            value += MINION if not action.get("from_area") else 0.5
            value -= 1.5 if area["trouble"] else 0.0  # a troubled area invites an assassination
            value += 1.0 if any(m for p, m in enumerate(area["minions"]) if p != seat) else 0.0
        elif kind == "build":
            value += 4.0  # its cost comes back as points, and its City Area card acts every turn
        else:
            source = _area(view, action["from_area"])
            if source is not None and source["controller"] == seat and not _controls(source, seat, -1):
                value -= CONTROL
        return value
    if kind in ("assassinate", "choose_minion"):
        owner = action["owner"]
        area = _area(view, action["area"])
        if owner == seat:
            return -MINION
        bonus = _rival_control_lost(area, seat, owner) if area is not None else 0.0
        return 2.0 + bonus if owner >= 0 else 0.5  # trolls and demons: less at stake
    if kind == "remove_trouble":
        area = _area(view, action["area"])
        return 1.0 if area is not None and area["minions"][seat] else 0.3
    if kind == "take_money":
        return 2.5
    if kind in ("scroll", "use_ability", "play_interrupt"):
        return 1.0
    if kind == "play_card":
        return 0.5
    if kind == "choose_player":
        target = action["player"]
        if target == seat:
            return -1.0
        rival = view["seats"][target]
        return 0.05 * float(rival.get("money", 0) + MINION * (12 - rival.get("minions_in_supply", 12)))
    # skip, end_turn, choose_area, choose_card, choose_option: the baseline.
    return 0.0
