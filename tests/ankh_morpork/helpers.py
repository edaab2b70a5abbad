"""Scenario builders: a real setup, then the fields a rule needs pinned down (board, hands,
money, dice), then real decide/evolve with the rules' own automatic flow."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from services.ankh_morpork import GAME, default_catalog
from services.ankh_morpork.model import AREAS, Action, Event, Frame, Options, State
from services.kernel import Rejection, Rng

RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3  # seats named after the rulebook's colours
INTERRUPTS = frozenset(c.id for c in default_catalog().cards if c.interrupt)


def put(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


def table(
    players: int = 3,
    seat: int = RED,
    *,
    hands: Mapping[int, Sequence[str]] | None = None,
    minions: Mapping[int, Mapping[int, int]] | None = None,
    trouble: Sequence[int] = (),
    buildings: Mapping[int, int] | None = None,
    money: Sequence[int] | None = None,
    trolls: Mapping[int, int] | None = None,
    demons: Mapping[int, int] | None = None,
    personalities: Sequence[str] | None = None,
    deck: Sequence[str] | None = None,
    stack: Sequence[Frame] | None = None,
    options: Options | None = None,
    seed: int = 7,
    **changes: Any,
) -> State:
    """A state on `seat`'s turn. Board arguments replace the setup board entirely (an empty
    board when given as {}); cards named in hands leave the draw pile and the other hands."""
    state = GAME.setup(players, seed, options or Options())
    hands = dict(hands or {})
    given = [c for cards in hands.values() for c in cards]
    pool = [c for c in (*[c for h in state.hands for c in h], *state.deck) if c not in given]
    new_hands = []
    plain = [c for c in pool if c not in INTERRUPTS]  # default hands hold no interrupt
    for p in range(players):
        if p in hands:
            new_hands.append(tuple(hands[p]))
        else:
            new_hands.append(tuple(plain[:5]))
            for card in plain[:5]:
                pool.remove(card)
            plain = plain[5:]
    fields: dict[str, Any] = {
        "hands": tuple(new_hands),
        "deck": tuple(deck) if deck is not None else tuple(pool),
        "current": seat,
        "stack": tuple(stack) if stack is not None else (Frame(kind="turn", player=seat),),
    }
    if minions is not None:
        fields["minions"] = tuple(
            tuple(minions.get(a + 1, {}).get(p, 0) for p in range(players)) for a in range(AREAS)
        )
        fields["trouble"] = tuple(a + 1 in trouble for a in range(AREAS))
    elif trouble:
        fields["trouble"] = tuple(a + 1 in trouble for a in range(AREAS))
    if buildings is not None:
        fields["buildings"] = tuple(buildings.get(a + 1, -1) for a in range(AREAS))
    if trolls is not None:
        fields["trolls"] = tuple(trolls.get(a + 1, 0) for a in range(AREAS))
    if demons is not None:
        fields["demons"] = tuple(demons.get(a + 1, 0) for a in range(AREAS))
    if money is not None:
        fields["money"] = tuple(money)
    if personalities is not None:
        fields["personalities"] = tuple(personalities)
    fields.update(changes)
    return put(state, **fields)


def dice(state: State, *values: int) -> State:
    """The same state with the generator moved to where the next d12 rolls are `values`."""
    for counter in range(2_000_000):
        cursor = state.rng.at(counter).cursor()
        if all(cursor.die(12) == v for v in values):
            return put(state, rng=state.rng.at(counter))
    raise AssertionError(f"no counter rolls {values}")


def play(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """A legal action, decided and applied; fails the test on a rejection."""
    events = GAME.decide(state, seat, action)
    assert not isinstance(events, Rejection), f"{action!r} rejected: {events}"
    return GAME.evolve(state, events), list(events)


def run(state: State, *moves: tuple[int, Action]) -> tuple[State, list[Event]]:
    """Several (seat, action) decisions in a row; all events together."""
    events: list[Event] = []
    for seat, action in moves:
        state, new = play(state, seat, action)
        events += new
    return state, events


def reject(state: State, seat: int, action: Action) -> Rejection:
    before = GAME.codec.encode_state(state)
    result = GAME.decide(state, seat, action)
    assert isinstance(result, Rejection), f"{action!r} was accepted"
    assert GAME.codec.encode_state(state) == before
    return result


def legal(state: State, seat: int) -> list[Action]:
    return list(GAME.legal_actions(state, seat))


def minions_at(state: State, area: int, seat: int) -> int:
    return state.minions[area - 1][seat]


def top(state: State) -> Frame:
    return state.stack[-1]


def of_type(events: Sequence[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


__all__ = ["Rng"]
