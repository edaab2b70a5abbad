"""Scenario builders: a real setup, then the fields a rule needs pinned down, then real
decide/evolve (and the rules' own automatic flow)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from services.kernel import EventLog, Rejection
from services.ys import GAME
from services.ys.model import (
    COUNTING_START,
    PLACE,
    WINDOW,
    Action,
    Broker,
    Event,
    Options,
    State,
)
from services.ys.rules import RULES

# Seats named after the colours of the rulebook's examples.
BLUE, ORANGE, PURPLE, YELLOW = 0, 1, 2, 3


def new_game(players: int = 4, options: Options | None = None, seed: int = 1) -> State:
    return GAME.setup(players, seed, options or Options())


def put(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


def settle(state: State) -> tuple[State, list[Event]]:
    """Run the automatic flow until somebody owes a decision."""
    log = EventLog(RULES.apply, state)
    RULES._advance(log)
    return log.state, log.events


def play(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """A legal action, decided and applied; fails the test on a rejection."""
    events = GAME.decide(state, seat, action)
    assert not isinstance(events, Rejection), f"{action!r} rejected: {events}"
    return GAME.evolve(state, events), list(events)


def reject(state: State, seat: int, action: Action) -> Rejection:
    result = GAME.decide(state, seat, action)
    assert isinstance(result, Rejection), f"{action!r} was accepted"
    return result


def broker(owner: int, value: int, place: str, face_up: bool = True, **kw: Any) -> Broker:
    known = kw.pop("known", 0 if face_up else 1 << owner if owner < 4 else 0)
    return Broker(owner, value, place, face_up, known, **kw)


def ship_id(large: str, small: Sequence[str]) -> str:
    for ship in RULES.catalog.ships:
        if ship.large == large and sorted(ship.small) == sorted(small):
            return ship.id
    raise KeyError((large, small))


def counting(
    players: int = 4,
    *,
    board: Sequence[Broker],
    front: Sequence[Sequence[int]] | None = None,
    order_cards: Sequence[int] | None = None,
    options: Options | None = None,
    **changes: Any,
) -> State:
    """A state at the end of phase 3 (counting-start window closed, nobody holds a card)."""
    state = new_game(players, options)
    return put(
        state,
        phase=WINDOW,
        window=COUNTING_START,
        queue=(),
        board=tuple(board),
        front=tuple(tuple(sorted(f)) for f in front) if front else state.front,
        order_cards=tuple(order_cards) if order_cards else state.order_cards,
        screens=((),) * players,
        **changes,
    )


def placing(players: int = 4, *, seat: int = 0, options: Options | None = None, **changes: Any) -> State:
    """Placement round 1 with `seat` on turn (order cards by seat number unless given)."""
    state = new_game(players, options)
    order = tuple(range(players))
    defaults: dict[str, Any] = {
        "phase": PLACE,
        "window": "",
        "round": 1,
        "queue": (seat, *[p for p in order if p != seat]),
        "order_cards": tuple(p + 1 for p in order),
        "front": ((0, 0),) * players,
        "screens": ((1, 1, 1, 2, 3, 3, 3, 4, 4),) * players,
        "bids": ((0, 0),) * players,
    }
    defaults.update(changes)
    return put(state, **defaults)


def drive(state: State, until: Any = None, limit: int = 200) -> tuple[State, list[Event]]:
    """Settle, then let every active seat take its first legal action until `until(state)` holds
    (or nobody acts); returns the events on the way."""
    state, events = settle(state)
    for _ in range(limit):
        if until is not None and until(state):
            break
        active = GAME.active_players(state)
        if not active:
            break
        seat = active[0]
        state, more = play(state, seat, GAME.legal_actions(state, seat)[0])
        events += more
    return state, events
