"""Fixed numbers of Ys: broker sets, gem shares, scoring tables, and the small pure helpers
every part of the rules uses (tuple updates, where a broker may go, tie-break keys, quotation
order). It imports only the model, so effects, rules, views and scoring may all read it."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from services.kernel import put
from services.ys.model import AREAS, COLOURS, GEM_KINDS, State, city_place, market_place

# The 11 brokers of a colour used in a normal game; the three other '2's stay in the box
# [SEED setup; values FACTS 2 after BGG-REV].
BROKERS: tuple[int, ...] = (0, 0, 1, 1, 1, 2, 3, 3, 3, 4, 4)
# Ys Express removes one '3' and one '1' [SEED p.13].
EXPRESS_BROKERS: tuple[int, ...] = (0, 0, 1, 1, 2, 3, 3, 4, 4)
KINGS_FAVOR_TWOS = 3  # [SEED p.13]
NEUTRAL_BROKERS: tuple[int, ...] = (0, 1, 2, 4)  # per human, 2 players [FACTS 10, UBG]
BID_SIZE = 2  # [SEED phase 2]
CARD_LIMIT = 2  # character cards a player may play per turn [SEED p.10]
YELLOW_PER_PILE = 3  # [SEED setup]
COMMERCIAL_GOLD = 3  # [SEED phase 4]
MARKET_GOLD = 1  # [SEED phase 3]

# End scoring [SEED p.9 and p.17]: points by gem rank (row) and player place (column).
GEM_TABLE: tuple[tuple[int, ...], ...] = (
    (24, 18, 12, 6),
    (20, 15, 10, 5),
    (16, 12, 8, 4),
    (12, 9, 6, 3),
)
# Black gems held -> points (7 or more: 24) [SEED p.9].
BLACK_TABLE: tuple[int, ...] = (0, 1, 4, 8, 12, 16, 20, 24)
THRONE_POINTS: tuple[int, ...] = (12, 7, 3, 0)  # King's Favor [SEED p.13]
COLUMN_MOVES: tuple[int, ...] = (2, 1, -1, -2)  # market columns, best first [SEED phase 4]


# City areas in play by neighbourhood count, and the market squares in use: rows 1-3 with 4
# players, rows 2-3 with 2-3 players; row 0 never.
_CITY = {n: tuple(city_place(k, a) for k in range(1, n + 1) for a in AREAS) for n in (3, 4)}
_CITY_SET = {n: frozenset(places) for n, places in _CITY.items()}
_MARKET = {
    four: tuple(market_place(r, c) for r in range(1 if four else 2, 4) for c in COLOURS)
    for four in (True, False)
}
_MARKET_SET = {four: frozenset(places) for four, places in _MARKET.items()}


def open_places(state: State) -> list[str]:
    """Places a broker may go now: city areas in play not closed by the Queen, and empty
    market squares of the rows in use (rows 1-3 with 4 players, 2-3 with 2-3) [SEED p.7, p.13]."""
    taken = {b.place for b in state.board}
    city = [p for p in _CITY[state.neighbourhoods] if p not in state.closed]
    return city + [p for p in _MARKET[state.players == 4] if p not in taken]


def place_open(state: State, place: str) -> bool:
    """Whether a broker may go to `place` now (the membership test of `open_places`)."""
    if place in _CITY_SET[state.neighbourhoods]:
        return place not in state.closed
    if place in _MARKET_SET[state.players == 4]:
        return all(b.place != place for b in state.board)
    return False


def add_value(values: tuple[int, ...], value: int) -> tuple[int, ...]:
    return tuple(sorted((*values, value)))


def contains(values: Sequence[int], wanted: Sequence[int]) -> bool:
    pool = list(values)
    for value in wanted:
        if value not in pool:
            return False
        pool.remove(value)
    return True


def neutral_party(state: State) -> int:
    """The neutral party index with 2 players, else -1."""
    return state.players if state.parties > state.players else -1


def tiebreak_value(state: State, party: int) -> int:
    """The sum of the brokers in front of a seat's screen (the neutral party has none)."""
    return sum(state.front[party]) if party < state.players else 0


def tie_key(state: State, party: int, total: int) -> tuple[int, int, int, int, int]:
    """Sort key, best first when sorted in reverse: the total, then the Intriguer, then the
    neutral player (wins every tie but the Intriguer's), then the tie-break brokers in front of
    the screen, then the lower order card [SEED p.8; FACTS 10]."""
    neutral = party == neutral_party(state)
    order = state.order_cards[party] if party < state.players else 0
    return (total, int(party == state.intriguer), int(neutral), tiebreak_value(state, party), -order)


def rank_parties(state: State, totals: dict[int, int]) -> list[int]:
    """Parties present (any broker, even a 0) best first, ties broken by `tie_key`."""
    return sorted(totals, key=lambda p: tie_key(state, p, totals[p]), reverse=True)


def gem_order(prices: Sequence[int]) -> list[int]:
    """Colour indices from the highest quotation down; equal quotations: the leftmost first."""
    return sorted(range(len(COLOURS)), key=lambda c: (-prices[c], c))


def clamp_price(state: State, price: int) -> int:
    limit = state.options.price_limit
    return max(-limit, min(limit, price))


_GEM_INDEX = {g: i for i, g in enumerate(GEM_KINDS)}
_GOLD_FIELD = {"market": "vp_market", "commercial": "vp_commercial", "characters": "vp_characters"}


def add_gem(gems: tuple[tuple[int, ...], ...], party: int, kind: str, n: int) -> tuple[tuple[int, ...], ...]:
    i = _GEM_INDEX[kind]
    return put(gems, party, put(gems[party], i, gems[party][i] + n))


def gain_gold(state: State, party: int, gold: int, source: str) -> State:
    """Gold (victory points) for a party, booked under its source for the final breakdown."""
    field = _GOLD_FIELD[source]
    track = getattr(state, field)
    changes = {
        "scores": put(state.scores, party, state.scores[party] + gold),
        field: put(track, party, track[party] + gold),
    }
    return msgspec.structs.replace(state, **changes)
