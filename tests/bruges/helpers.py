"""Scenario builders: a real setup, then the fields a rule needs pinned down (cards moved, never
invented, so every card stays in exactly one place), then real decide/evolve."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from services.bruges import GAME
from services.bruges.model import PLAY, House, Options, Seat, State
from services.bruges.rules import RULES
from services.bruges.views import check_state
from services.kernel import EventLog, Rejection

BY_NAME = {p.name: p.id for p in RULES.persons}


def card(name: str) -> int:
    """The id of a named person card."""
    return BY_NAME[name]


def colour(card_id: int) -> str:
    return RULES.colour[card_id]


def plain(colour_name: str, k: int = 0, *, avoid: Iterable[int] = ()) -> int:
    """The k-th stand-in card of a colour (its front never matters when it is played for an action)."""
    avoided = set(avoid)
    cards = [p.id for p in RULES.persons if p.stand_in and p.colour == colour_name and p.id not in avoided]
    return cards[k]


def with_effect(effect: str, **fields: Any) -> int:
    """A card whose person uses `effect` (and has the given fields)."""
    for p in RULES.persons:
        if p.effect == effect and all(getattr(p, k) == v for k, v in fields.items()):
            return p.id
    raise KeyError((effect, fields))


def new_game(players: int = 2, seed: int = 1, options: Options | None = None) -> State:
    return GAME.setup(players, seed, options or Options())


def put(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


def _without(cards: tuple[int, ...], taken: set[int]) -> tuple[int, ...]:
    return tuple(c for c in cards if c not in taken)


def seat(
    state: State,
    player: int,
    *,
    hand: Sequence[int] | None = None,
    houses: Sequence[tuple[int, int] | House] | None = None,
    **changes: Any,
) -> State:
    """Pin down one seat; cards named for its hand or houses are taken from the draw piles."""
    taken: set[int] = set()
    new = dict(changes)
    if hand is not None:
        taken |= set(hand)
        new["hand"] = tuple(hand)
    if houses is not None:
        built = tuple(h if isinstance(h, House) else House(h[0], h[1]) for h in houses)
        taken |= {h.card for h in built} | {h.person for h in built if h.person >= 0}
        new["houses"] = built
    piles = (_without(state.piles[0], taken), _without(state.piles[1], taken))
    state = put(
        state, piles=piles, extra=_without(state.extra, taken), discard=_without(state.discard, taken)
    )
    seats = list(state.seats)
    seats[player] = msgspec.structs.replace(seats[player], **new)
    return put(state, seats=tuple(seats))


def playing(
    players: int = 2, *, current: int = 0, dice: Sequence[int] = (3, 3, 3, 3, 3), **changes: Any
) -> State:
    """Phase 3 with `current` on turn, before its card, everyone with four cards to play."""
    state = new_game(players)
    state = put(
        state,
        phase=PLAY,
        queue=(),
        current=current,
        in_turn=True,
        played=0,
        allowed=1,
        dice=tuple(dice),
        seats=tuple(msgspec.structs.replace(Seat(), plays_left=4) for _ in range(players)),
        **changes,
    )
    return state


def settle(state: State) -> tuple[State, list[Any]]:
    """Run the automatic flow until somebody owes a decision."""
    log = EventLog(RULES.apply, state)
    RULES._advance(log)
    return log.state, log.events


def play(state: State, player: int, action: Any) -> tuple[State, list[Any]]:
    """A legal action, decided and applied; fails the test on a rejection."""
    events = GAME.decide(state, player, action)
    assert not isinstance(events, Rejection), f"{action!r} rejected: {events}"
    assert action in GAME.legal_actions(state, player), f"{action!r} accepted but not listed"
    state = GAME.evolve(state, events)
    check_state(RULES, state)
    return state, list(events)


def reject(state: State, player: int, action: Any) -> Rejection:
    result = GAME.decide(state, player, action)
    assert isinstance(result, Rejection), f"{action!r} was accepted"
    assert action not in GAME.legal_actions(state, player)
    return result


def of_type(events: Iterable[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]
