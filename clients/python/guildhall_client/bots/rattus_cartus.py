"""Greedy evaluation for Rattus Cartus, from a seat's view.

The view cannot be simulated exactly (the deck order, others' hands and unseen Nun-row cards
are hidden), so the evaluation estimates the position after the action from what the view
shows. What decides a game, and so what the estimate weighs:
- the plague: a seat with more rats than the Nun-row shows nuns scores nothing, so every rat
  gained or shed is priced by how it moves the chance of dying (a normal approximation of the
  unseen Nun-row cards, wider with more rounds left for rats to move);
- influence: each point is worth a little on its own (tracks are scored at the end) and more
  when it changes the seat's place on a track (10 / 5 / 2 VP; 10 / 5 with two players);
- cards in hand are future influence, worth less as the game runs out;
- a building's action, and its premium action when the seat is likely to be strongest there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

# Class of each building (the rulebook's building overview, as in services/rattus_cartus/model.py;
# a client keeps its own copy so it does not need the rules package).
BUILDING_CLASS = {
    "farm": "peasantry",
    "brewery": "peasantry",
    "marketplace": "bourgeoisie",
    "office": "bourgeoisie",
    "monastery": "church",
    "hospital": "church",
    "castle": "chivalry",
    "guard_tower": "chivalry",
    "fortune_tellers_tent": "magic",
    "pipers_hut": "magic",
    "palace": "royalty",
    "treasury": "royalty",
}
# Mean nuns on a population card: 24x4, 12x3, 12x2, 12x1 and 24x0 over 84 cards = 2.0 [catalog].
MEAN_NUNS = 2.0
NUNS_VARIANCE = 2.5  # of one unseen card's nuns under that split
SURVIVAL_VALUE = 60.0  # a seat eliminated by the plague loses whatever it scored
RAT_COST = 10.0  # per rat, whatever the odds (see rat_value); tuned with benchmarks/bench_bots.py
# Knowing a Nun-row card narrows the plague estimate the whole game relies on.
LOOK_VALUE = 1.0
_HAND_VALUE = {"joker": 1.2, "sword": 0.5, "flute": 0.5, "pass": 0.6, "gold": 0.9}


def _cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def elimination_chance(view: Mapping[str, Any], rats: int) -> float:
    """P(the Nun-row shows fewer nuns than `rats`) given the Nun-row cards this seat has seen."""
    known = [c for c in view["nun_row"] if c is not None]
    unknown = len(view["nun_row"]) - len(known)
    mean = sum(int(c.partition(":")[2]) for c in known) + MEAN_NUNS * unknown
    rounds_left = max(view["rounds"] - view["round"], 0)
    # Rats still move in later rounds: the further the end, the less a rat today is a sure loss.
    sd = math.sqrt(NUNS_VARIANCE * unknown + 1.5 * rounds_left + 0.25)
    # Eliminated when rats > nuns, i.e. nuns <= rats - 1 (continuity-corrected).
    return _cdf((rats - 0.5 - mean) / sd)


def rat_value(view: Mapping[str, Any], seat: int, change: int) -> float:
    """What gaining (`change` > 0) or shedding (< 0) rats is worth to `seat` (negative = bad)."""
    rats = view["seats"][seat]["rats"]
    after = max(rats + change, 0)
    # Besides the chance of dying now, every rat is one more to shed before the end: a seat far
    # past the line must still prefer fewer rats, or it gives up on surviving.
    dying = elimination_chance(view, after) - elimination_chance(view, rats)
    return -SURVIVAL_VALUE * dying - RAT_COST * float(after - rats)


def _unseen(view: Mapping[str, Any]) -> int:
    return sum(1 for c in view["nun_row"] if c is None)


def _progress(view: Mapping[str, Any]) -> float:
    return min(float(view["round"]) / max(int(view["rounds"]), 1), 1.0)


def _awards(players: int) -> tuple[int, ...]:
    return (10, 5) if players == 2 else (10, 5, 2)


def influence_value(view: Mapping[str, Any], seat: int, klass: str, gain: int) -> float:
    """`gain` influence on `klass`'s track: a little per point, plus the change of award."""
    if gain <= 0:
        return 0.0
    track = next(t for t in view["tracks"] if t["track"] == klass)
    influence = list(track["influence"])
    awards = _awards(view["players"])

    def award(values: Sequence[int]) -> int:
        mine = values[seat]
        if mine <= 0:
            return 0
        # Equal influence: the marker that got there first stays ahead, so count equals as ahead.
        ahead = sum(1 for p, v in enumerate(values) if p != seat and v >= mine)
        return awards[ahead] if ahead < len(awards) else 0

    before = award(influence)
    influence[seat] += gain
    after = award(influence)
    # Standings early in the game are fragile; near the end they are what gets scored.
    return 0.8 * gain + (after - before) * (0.3 + 0.6 * _progress(view))


def hand_value(view: Mapping[str, Any], card: str) -> float:
    """A card kept: future influence (less as the game runs out), or its special use."""
    if ":" in card:
        return 0.9 * (1.0 - 0.7 * _progress(view))
    return _HAND_VALUE.get(card, 0.5)


def _action_value(view: Mapping[str, Any], seat: int, building: str, premium: bool) -> float:
    """A building's action for `seat` (the premium one if `premium`)."""
    n = 2 if premium else 1
    if building == "farm":
        return 0.7 * (4 if premium else 2)
    if building == "brewery":
        return 1.2 if premium else 0.6
    if building == "marketplace":
        return _HAND_VALUE["joker"] * n
    if building == "office":
        return _HAND_VALUE["pass"] * n
    if building == "monastery":
        return rat_value(view, seat, -n)
    if building == "hospital":
        # The premium sheds a rat outright; both let cards go for rats later (priced when asked).
        return (rat_value(view, seat, -1) if premium else 0.0) + 0.5
    if building in ("castle", "pipers_hut"):
        return 0.5 * n
    if building == "guard_tower":
        return 2.5 if premium else 0.3
    if building == "fortune_tellers_tent":
        return LOOK_VALUE * min(n, _unseen(view))
    if building == "palace":
        return 1.0 * n
    if building == "treasury":
        return _HAND_VALUE["gold"] * n
    return 0.0


def _my_building(view: Mapping[str, Any], seat: int) -> int:
    for b, entrants in enumerate(view["entries"]):
        if seat in entrants:
            return b
    return -1


def _planned_cards(view: Mapping[str, Any], seat: int, klass: str) -> tuple[int, int]:
    """(cards this seat would play in a `klass` building, of which off-class) within its rat margin."""
    hand = view["hand"] or []
    same = sum(1 for c in hand if c == "joker" or c.partition(":")[0] == klass)
    off = 0
    for extra in range(1, sum(1 for c in hand if ":" in c and c.partition(":")[0] != klass) + 1):
        if rat_value(view, seat, extra) < -0.8 * extra:
            break
        off = extra
    return same, off


def _enter_value(view: Mapping[str, Any], seat: int, b: int) -> float:
    card = view["row"][b]
    building = card["building"]
    klass = BUILDING_CLASS.get(building, "")
    same, off = _planned_cards(view, seat, klass)
    strength = same + off
    # Who is already in: the first in wins ties, and their face-down card counts are public.
    rivals = [view["seats"][p]["played"] for p in view["entries"][b] if p != seat]
    premium = strength > max(rivals, default=-1)
    final = view["round"] >= view["rounds"]
    value = influence_value(view, seat, klass, strength) + rat_value(view, seat, off)
    if final:
        value += influence_value(view, seat, klass, 1) if premium else 0.0
    else:
        value += _action_value(view, seat, building, premium)
    return value - 0.3 * len(rivals)


def evaluate(view: Mapping[str, Any], action: Mapping[str, Any], seat: int) -> float:
    """How much better the position after `action` is for `seat` than now (estimated)."""
    kind = action["type"]
    if kind == "choose_supply":
        card = view["row"][action["building"]]
        return float(
            card.get("draw", 0) * hand_value(view, "peasantry:0")
            + rat_value(view, seat, -card.get("discard_rats", 0))
            + LOOK_VALUE * min(card.get("look", 0), _unseen(view))
        )
    if kind == "enter_building":
        return _enter_value(view, seat, action["building"])
    if kind == "play_pass":
        # Entering later shows where the others went, but the Pass is worth keeping for its majority.
        return max(_enter_value(view, seat, b) for b in range(len(view["row"]))) - hand_value(view, "pass")
    if kind == "play_card":
        return _play_card_value(view, seat, action["card"])
    if kind == "give_card":
        return -hand_value(view, action["card"])
    if kind == "discard_for_rat":
        return rat_value(view, seat, -1) - hand_value(view, action["card"])
    if kind == "choose_victim":
        victim = view["seats"][action["player"]]
        duel = view["duels"][0] if view["duels"] else {"kind": "sword"}
        if duel["kind"] == "sword":
            return float(victim["hand_size"])  # the loser gives half of it
        # The loser takes a rat: hurt whoever is nearest to the plague without being safe already.
        return -abs(elimination_chance(view, victim["rats"] + 1) - 0.5)
    # finish_entering, stop_discarding, look_at_nun: the baseline every other choice is compared to.
    return 0.0


def _play_card_value(view: Mapping[str, Any], seat: int, card: str) -> float:
    b = _my_building(view, seat)
    if b < 0:
        return -hand_value(view, card)
    klass = BUILDING_CLASS.get(view["row"][b]["building"], "")
    rivals = [p for p in view["entries"][b] if p != seat]
    keep = hand_value(view, card)
    if card in ("sword", "flute"):
        others_may_come = bool(view["enter_queue"])
        if not rivals and not others_may_come:
            return -keep
        if card == "sword":
            loot = max((view["seats"][p]["hand_size"] for p in rivals), default=2) // 2
            return 0.5 * loot * 0.8 - keep
        return 0.5 * -rat_value(view, seat, -1) - keep
    value = influence_value(view, seat, klass, 1) - keep
    if card != "joker" and card.partition(":")[0] != klass:
        value += rat_value(view, seat, 1)
    played = len(view["my_played"] or [])
    rival_strength = max((view["seats"][p]["played"] for p in rivals), default=-1)
    if played <= rival_strength:
        # One more card may take the premium action from those already in.
        value += 0.5 * _action_value(view, seat, view["row"][b]["building"], True)
    return value
