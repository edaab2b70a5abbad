"""The effect primitives of the character cards. A card names one primitive and an amount in the
data file (`effect`, `amount`); `options` lists every legal way to play it now and `apply` carries
it out. The King, Prince and blue cards act when won (see rules `_award_character`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from services.kernel import put
from services.ys.model import (
    AREAS,
    COLOURS,
    CharacterPlayed,
    PlayCharacter,
    State,
    city_place,
    is_market,
)
from services.ys.tables import add_gem, clamp_price, gain_gold, open_places

_COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}

# What each primitive needs, for rejection messages.
HELP: dict[str, str] = {
    "gain_vp": "it pays at once when won",
    "gain_white_gem": "it gives a gem at once when won",
    "gain_gems": "name one colour (blue, green, yellow or red) in `colours`",
    "exchange_gem": "`colours` = (a colour you hold, the colour you take instead)",
    "shift_prices": "`colours` = (the gem to move up, a different gem to move down)",
    "swap_ships": "`ports` = two different neighbourhoods in play",
    "commercial_bonus": "it needs nothing",
    "win_ties": "it needs nothing",
    "all_face_down": "it needs nothing",
    "place_from_front": "it needs nothing",
    "peek": "it needs nothing; look with `peek` actions",
    "close_area": "`place` = a city area that is still open",
    "fixed_value": "`brokers` = one of the two brokers you just placed",
    "swap_own_brokers": "`brokers` = two of your brokers in different places, none in a closed area "
    "(King's Favor: -1-k is your throne broker k)",
    "move_own_broker": "`brokers` = one of your brokers outside a closed area, `place` = an open place",
}


def _own(state: State, player: int) -> list[int]:
    """Board indices of the seat's own brokers that a card may touch (not in a closed area)."""
    return [i for i, b in enumerate(state.board) if b.owner == player and b.place not in state.closed]


def options(state: State, player: int, card: str, effect: str, amount: int) -> list[PlayCharacter]:
    """Every legal way to play `card` now (its window and the card limit are checked by the rules)."""
    if effect in ("gain_vp", "gain_white_gem"):
        return []
    if effect in ("commercial_bonus", "win_ties", "all_face_down", "place_from_front", "peek"):
        return [PlayCharacter(card)]
    if effect == "gain_gems":
        return [PlayCharacter(card, colours=(c,)) for c in COLOURS]
    if effect == "exchange_gem":
        held = [c for i, c in enumerate(COLOURS) if state.gems[player][i] > 0]
        return [PlayCharacter(card, colours=(g, t)) for g in held for t in COLOURS if t != g]
    if effect == "shift_prices":
        return [PlayCharacter(card, colours=(u, d)) for u in COLOURS for d in COLOURS if u != d]
    if effect == "swap_ships":
        n = state.neighbourhoods
        return [PlayCharacter(card, ports=(a, b)) for a in range(1, n + 1) for b in range(a + 1, n + 1)]
    if effect == "close_area":
        return [
            PlayCharacter(card, place=city_place(k, a))
            for k in range(1, state.neighbourhoods + 1)
            for a in AREAS
            if city_place(k, a) not in state.closed
        ]
    if effect == "fixed_value":
        return [PlayCharacter(card, brokers=(i,)) for i in state.just_placed]
    if effect == "swap_own_brokers":
        own = _own(state, player)
        out = [
            PlayCharacter(card, brokers=(i, j))
            for x, i in enumerate(own)
            for j in own[x + 1 :]
            if state.board[i].place != state.board[j].place
        ]
        out += [
            PlayCharacter(card, brokers=(i, -1 - k)) for i in own for k in range(len(state.throne[player]))
        ]
        return out
    if effect == "move_own_broker":
        places = open_places(state)
        return [
            PlayCharacter(card, brokers=(i,), place=place)
            for i in _own(state, player)
            for place in places
            if place != state.board[i].place
        ]
    raise AssertionError(f"unknown effect {effect}")


def apply(state: State, e: CharacterPlayed, effect: str, amount: int) -> State:
    return _APPLY[effect](state, e, amount)


def _replace(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


def _gain_gems(state: State, e: CharacterPlayed, amount: int) -> State:
    return _replace(state, gems=add_gem(state.gems, e.player, e.colours[0], amount))


def _exchange_gem(state: State, e: CharacterPlayed, amount: int) -> State:
    gems = add_gem(state.gems, e.player, e.colours[0], -1)
    return _replace(state, gems=add_gem(gems, e.player, e.colours[1], 1))


def _shift_prices(state: State, e: CharacterPlayed, amount: int) -> State:
    up, down = (_COLOUR_INDEX[c] for c in e.colours)
    prices = put(state.prices, up, clamp_price(state, state.prices[up] + amount))
    prices = put(prices, down, clamp_price(state, prices[down] - amount))
    return _replace(state, prices=prices)


def _swap_ships(state: State, e: CharacterPlayed, amount: int) -> State:
    a, b = (k - 1 for k in e.ports)
    ports = put(put(state.ports, a, state.ports[b]), b, state.ports[a])
    return _replace(state, ports=ports)


def _commercial_bonus(state: State, e: CharacterPlayed, amount: int) -> State:
    return _replace(state, commercial_vp=amount)


def _win_ties(state: State, e: CharacterPlayed, amount: int) -> State:
    return _replace(state, intriguer=e.player)


def _all_face_down(state: State, e: CharacterPlayed, amount: int) -> State:
    return _replace(state, all_face_down=put(state.all_face_down, e.player, True))


def _place_from_front(state: State, e: CharacterPlayed, amount: int) -> State:
    return _replace(state, from_front=put(state.from_front, e.player, True))


def _peek(state: State, e: CharacterPlayed, amount: int) -> State:
    return _replace(state, peeks=put(state.peeks, e.player, state.peeks[e.player] + amount))


def _close_area(state: State, e: CharacterPlayed, amount: int) -> State:
    return _replace(state, closed=(*state.closed, e.place))


def _fixed_value(state: State, e: CharacterPlayed, amount: int) -> State:
    i = e.brokers[0]
    return _replace(state, board=put(state.board, i, msgspec.structs.replace(state.board[i], mercenary=True)))


def _swap_own_brokers(state: State, e: CharacterPlayed, amount: int) -> State:
    i, j = e.brokers
    a = state.board[i]
    if j >= 0:
        b = state.board[j]
        board = put(
            put(state.board, i, msgspec.structs.replace(a, place=b.place)),
            j,
            msgspec.structs.replace(b, place=a.place),
        )
        return _replace(state, board=board)
    # King's Favor: a board broker and a throne broker change places, both face down there.
    k = -1 - j
    throne = state.throne[e.player]
    t = throne[k]
    everyone = (1 << state.players) - 1
    into_throne = msgspec.structs.replace(
        a, place="throne", face_up=False, known=everyone if a.face_up else a.known, mercenary=False
    )
    out_of_throne = msgspec.structs.replace(t, place=a.place, face_up=False, mercenary=False)
    return _replace(
        state,
        board=put(state.board, i, out_of_throne),
        throne=put(state.throne, e.player, put(throne, k, into_throne)),
    )


def _move_own_broker(state: State, e: CharacterPlayed, amount: int) -> State:
    i = e.brokers[0]
    b = state.board[i]
    state = _replace(state, board=put(state.board, i, msgspec.structs.replace(b, place=e.place)))
    if is_market(e.place) and not is_market(b.place):  # city to market: 1 gold [SEED p.11]
        return gain_gold(state, e.player, 1, "market")
    return state


_APPLY: dict[str, Callable[[State, CharacterPlayed, int], State]] = {
    "gain_gems": _gain_gems,
    "exchange_gem": _exchange_gem,
    "shift_prices": _shift_prices,
    "swap_ships": _swap_ships,
    "commercial_bonus": _commercial_bonus,
    "win_ties": _win_ties,
    "all_face_down": _all_face_down,
    "place_from_front": _place_from_front,
    "peek": _peek,
    "close_area": _close_area,
    "fixed_value": _fixed_value,
    "swap_own_brokers": _swap_own_brokers,
    "move_own_broker": _move_own_broker,
}
