"""Greedy evaluation for Ys, from a seat's view.

A view cannot be simulated exactly (brokers behind screens, unseen face-down values, the ship
deck), so the evaluation estimates the position after the action:
- a city area or market row goes to the highest broker total; face-down values this seat cannot
  see count as the mean broker (about 2), and the chance of winning a place moves smoothly with
  the lead, so a broker that takes the lead is worth most where the place is worth most;
- a market square pays 1 gold at once (sure gold is what wins);
- gems are worth what they add to the seat's end scoring (majorities by quotation rank, black
  gems) against its best rival, and quotation moves are priced the same way;
- everything is relative to the other humans: with two players the neutral party takes places
  and gems but cannot win, so feeding it a place the opponent would win is good.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

COLOURS = ("blue", "green", "yellow", "red")
# End scoring by quotation rank (row) and place (column); black gems held -> points [SEED p.9].
GEM_TABLE = ((24, 18, 12, 6), (20, 15, 10, 5), (16, 12, 8, 4), (12, 9, 6, 3))
BLACK_TABLE = (0, 1, 4, 8, 12, 16, 20, 24)
COLUMN_MOVES = (2, 1, -1, -2)
MEAN_BROKER = 2.0  # 0,0,1,1,1,2,3,3,3,4,4: mean 2.0 (and 1.75 for the neutral 0,1,2,4)
PORT_VALUE = 7.0  # the winner's two gem picks (seconds take one)
PALACE_VALUE = 3.5  # a character card
ROW_GEM_VALUE = 3.0
SPREAD = 1.5  # how sharply the chance of winning a place follows the lead (broker values)


def _parties(view: Mapping[str, Any]) -> int:
    return int(view["players"]) + (1 if view.get("neutral") else 0)


def _gem_counts(view: Mapping[str, Any]) -> list[dict[str, int]]:
    counts = [dict(seat["gems"]) for seat in view["seats"]]
    if view.get("neutral"):
        counts.append({k: v for k, v in view["neutral"].items() if k != "score"})
    return counts


def _majority(counts: Sequence[int], table: Sequence[int]) -> list[int]:
    """Tied parties take the lowest of the places they cover; no gem of a colour, no points."""
    points = [0] * len(counts)
    ranked = sorted((p for p, n in enumerate(counts) if n > 0), key=lambda p: -counts[p])
    place = 0
    while place < len(ranked):
        tied = [p for p in ranked if counts[p] == counts[ranked[place]]]
        last = place + len(tied) - 1
        for p in tied:
            points[p] = table[last] if last < len(table) else 0
        place += len(tied)
    return points


def gem_scores(view: Mapping[str, Any], gems: list[dict[str, int]], prices: Mapping[str, int]) -> list[int]:
    """Each party's end scoring from gems if the game ended with these gems and quotations."""
    places = min(len(gems), 4)
    order = sorted(range(4), key=lambda c: (-prices[COLOURS[c]], c))
    scores = [0] * len(gems)
    for rank, c in enumerate(order):
        points = _majority([g.get(COLOURS[c], 0) for g in gems], GEM_TABLE[rank][:places])
        scores = [s + p for s, p in zip(scores, points, strict=True)]
    return [
        s + BLACK_TABLE[min(g.get("black", 0), len(BLACK_TABLE) - 1)]
        for s, g in zip(scores, gems, strict=True)
    ]


def _relative(view: Mapping[str, Any], seat: int, scores: Sequence[float]) -> float:
    """The seat's score against its best human rival (the neutral party cannot win)."""
    rivals = [scores[p] for p in range(view["players"]) if p != seat]
    return scores[seat] - max(rivals, default=0.0)


def _gem_position(
    view: Mapping[str, Any], seat: int, gems: list[dict[str, int]], prices: Mapping[str, int]
) -> float:
    return _relative(view, seat, gem_scores(view, gems, prices))


def _with_gems(gems: list[dict[str, int]], seat: int, taken: Sequence[str]) -> list[dict[str, int]]:
    out = [dict(g) for g in gems]
    for gem in taken:
        out[seat][gem] = out[seat].get(gem, 0) + 1
    return out


def _broker_value(broker: Mapping[str, Any]) -> float:
    if broker.get("mercenary"):
        return 5.0
    return float(broker["value"]) if broker["value"] is not None else MEAN_BROKER


def _group(place: str) -> str:
    """The places scored together with `place`: its market row ("m2"), or the city area itself."""
    return place[:2] if place.startswith("m") else place


# What the last view's evaluations share: a bot evaluates every legal action against one view,
# and a placement offers ~190 (each place by broker value and face), so the broker totals per
# group and each (seat, place, party, value) placement are worked out once per view. Holding
# the view itself keeps its id from being reused.
_last_view: list[Any] = [None, {}, {}]


def _per_view(view: Mapping[str, Any]) -> tuple[dict[str, dict[int, float]], dict[tuple[Any, ...], float]]:
    """(estimated broker totals per party in each group of places, figures worked out)."""
    if _last_view[0] is not view:
        totals: dict[str, dict[int, float]] = {}
        for broker in view["board"]:
            group = totals.setdefault(_group(broker["place"]), {})
            group[broker["owner"]] = group.get(broker["owner"], 0.0) + _broker_value(broker)
        _last_view[:] = [view, totals, {}]
    return _last_view[1], _last_view[2]


def _shares(totals: Mapping[int, float], parties: int) -> list[float]:
    """Chance each party wins a place: smooth in the lead; only present parties can win."""
    shares = [0.0] * parties
    if not totals:
        return shares
    weights = {p: math.exp(t / SPREAD) for p, t in totals.items()}
    whole = sum(weights.values())
    for p, w in weights.items():
        shares[p] = w / whole
    return shares


def _place_gain(
    view: Mapping[str, Any], seat: int, place: str, party: int, value: float, worth: float
) -> float:
    """What adding `value` for `party` at `place` (and the places scored with it) is worth to `seat`."""
    parties = _parties(view)
    group_totals, done = _per_view(view)
    totals = dict(group_totals.get(_group(place), {}))
    now = ("now", seat, _group(place))
    if now not in done:
        done[now] = _relative(view, seat, _shares(totals, parties))
    totals[party] = totals.get(party, 0.0) + value
    return worth * (_relative(view, seat, _shares(totals, parties)) - done[now])


def _place_worth(view: Mapping[str, Any], place: str) -> float:
    """What winning `place` (with the places scored together with it) is worth."""
    if place.startswith("m"):
        row = int(place[1])
        gems = view["market_gems"]
        return ROW_GEM_VALUE if row < len(gems) and gems[row] else 0.5
    area = place.partition(".")[2]
    return {"port": PORT_VALUE, "commercial": float(view.get("commercial_vp", 3)), "palace": PALACE_VALUE}[
        area
    ]


def _gems_now(view: Mapping[str, Any], seat: int) -> float:
    """The seat's gem position as the view stands (what every gem action is compared with)."""
    done = _per_view(view)[1]
    key = ("gems", seat)
    if key not in done:
        done[key] = _gem_position(view, seat, _gem_counts(view), view["prices"])
    return done[key]


def _placement(view: Mapping[str, Any], seat: int, place: str, party: int, value: float) -> float:
    done = _per_view(view)[1]
    key = (seat, place, party, value)
    if key not in done:
        gain = _place_gain(view, seat, place, party, value, _place_worth(view, place))
        if place.startswith("m") and party == seat:
            gain += 1.0  # a market square pays a gold at once
        done[key] = gain
    return done[key]


def evaluate(view: Mapping[str, Any], action: Mapping[str, Any], seat: int) -> float:
    """How much better the position after `action` is for `seat` than now (estimated)."""
    kind = action["type"]
    if kind == "place_broker":
        value = float(action["value"])
        # A high broker spent here is missing elsewhere later in the turn.
        return _placement(view, seat, action["place"], seat, value) - 0.15 * value
    if kind == "place_neutral":
        neutral = view["players"]
        value = float(action["value"]) if action.get("value", -1) >= 0 else 1.75
        return _placement(view, seat, action["place"], neutral, value)
    if kind == "take_gems":
        taken = list(action["gems"])
        if action.get("white_as"):
            taken = [action["white_as"] if g == "white" else g for g in taken]
        gems = _gem_counts(view)
        return _gem_position(view, seat, _with_gems(gems, seat, taken), view["prices"]) - _gems_now(
            view, seat
        )
    if kind == "move_quotation":
        prices = dict(view["prices"])
        prices[action["colour"]] += action["step"]
        gems = _gem_counts(view)
        return _gem_position(view, seat, gems, prices) - _gems_now(view, seat)
    if kind == "rank_columns":
        prices = dict(view["prices"])
        for colour, move in zip(action["order"], COLUMN_MOVES, strict=False):
            prices[colour] += move
        gems = _gem_counts(view)
        return _gem_position(view, seat, gems, prices)
    if kind == "bid":
        # Low bids keep the strong brokers for the board; the order card matters less.
        return -0.2 * float(sum(action["values"]))
    if kind == "choose_order_card":
        return -0.3 * float(action["card"])  # earlier placement and ties to the lower card
    if kind == "send_to_throne":
        return 0.5 * float(action["value"])
    # Character cards, peeks, passes, Conjurer replacements: no estimate; ties are random.
    return 0.0
