"""Greedy evaluation for Bruges, from a seat's view and the game's public card data.

Every card is a person printed with its colour, price and points (the game's data, bots/data.py),
and a card can be played for exactly one of six actions, so the evaluation prices what each
play adds to the seat's end score: a recruited person's points (plus its ability and the people
majority), a house (a point and a place for a person), a canal space, workers and guilders by
what they buy next, and giving back a threat by how close that colour is to a calamity (three
threats of a colour strike).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from guildhall_client.bots.data import catalog


@lru_cache(maxsize=1)
def _persons() -> dict[int, Any]:
    return {p.id: p for p in catalog("bruges").persons}


def _person(card: int) -> Any:
    return _persons().get(card)


def _colour(card: int) -> str:
    person = _person(card)
    return person.colour if person is not None else ""


def _card_worth(card: int) -> float:
    """A card kept in hand: the points of the person it could become."""
    person = _person(card)
    return 1.0 + (person.points if person is not None else 0) * 0.5


def _play_value(view: Mapping[str, Any], me: Mapping[str, Any], action: Mapping[str, Any]) -> float:
    card = int(action["card"])
    colour = _colour(card)
    kind = action["action"]
    empty_houses = sum(1 for h in me["houses"] if h["person"] < 0)
    if kind == "recruit":
        person = _person(card)
        points = person.points if person is not None else 0
        price = person.price if person is not None else 0
        return 3.0 + points + (1.0 if person is not None and person.icon == "laurel" else 0.0) - 0.1 * price
    if kind == "house":
        return 2.5 - 1.0 * empty_houses
    if kind == "canal":
        return 3.0
    if kind == "workers":
        have = me["workers"].get(colour, 0)
        return 1.2 + (0.6 if have == 0 else 0.0)
    if kind == "guilders":
        return 0.35 * float(view["dice"].get(colour, 0))
    if kind == "threat":
        threats = me["threats"].get(colour, 0)
        return 2.5 if threats >= 2 else 0.8
    return 0.0


def evaluate(view: Mapping[str, Any], action: Mapping[str, Any], seat: int) -> float:
    """How much better the position after `action` is for `seat` than now (estimated)."""
    me = view["seats"][seat]
    kind = action["type"]
    if kind == "play_card":
        return _play_value(view, me, action)
    if kind == "buy_reputation":
        return 2.0 if action["advance"] else 0.0
    if kind == "activate":
        return 1.2
    if kind == "discard_card":
        return -_card_worth(int(action["card"]))
    if kind == "give_worker":
        return 0.1 * float(me["workers"].get(action["colour"], 0))  # give from the largest pile
    if kind == "return_threat":
        return 0.5 * float(me["threats"].get(action["colour"], 0))  # the most dangerous colour first
    if kind == "suffer_calamity":
        house = int(action.get("house", -1))
        if 0 <= house < len(me["houses"]):
            person = me["houses"][house]["person"]
            lost = _person(person).points if person >= 0 and _person(person) is not None else 0
            return -(lost + (1.0 if action["colour"] == "red" else 0.0) + (2.0 if person >= 0 else 0.0))
        return -2.0  # a canal token
    if kind == "remove_canal":
        return -1.0
    # draw_card, stop_drawing, end_turn: the baseline.
    return 0.0
