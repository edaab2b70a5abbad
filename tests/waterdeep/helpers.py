"""Scenario builders: a real setup, then the fields a rule needs pinned down, then real
decide/evolve (and the rules' own automatic flow)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from services.kernel import EventLog, Rejection
from services.waterdeep import GAME
from services.waterdeep.model import (
    Action,
    Building,
    Choose,
    CompleteQuest,
    Decision,
    EndTurn,
    Event,
    Options,
    PlaceAgent,
    Seat,
    State,
)
from services.waterdeep.rules import RULES

INN = (
    "expose_red_wizards_spies",
    "host_festival_for_sune",
    "raid_orc_stronghold",
    "create_a_shrine_to_oghma",
)
HALL = ("dragon_tower", "the_golden_horn", "the_zoarstar")


def put(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


def seat(state: State, p: int, **changes: Any) -> State:
    seats = list(state.seats)
    seats[p] = msgspec.structs.replace(seats[p], **changes)
    return put(state, seats=tuple(seats))


def table(players: int = 2, *, options: Options | None = None, seed: int = 1, **changes: Any) -> State:
    """Round 1, seat 0 first and on turn, every seat with its agents, no gold, no adventurers,
    no quests and no cards; Cliffwatch Inn and Builder's Hall as INN and HALL (1 VP each)."""
    state = GAME.setup(players, seed, options or Options())
    agents = state.seats[0].agents
    lords = [x.lord for x in state.seats]
    seats = tuple(Seat(agents=agents, pool=agents, lord=lords[p]) for p in range(players))
    used = set(INN)
    deck = tuple(
        q
        for q in (*state.quest_deck, *state.inn, *(q for x in state.seats for q in x.quests))
        if q not in used
    )
    intrigue = tuple(c for c in (*state.intrigue_deck, *(c for x in state.seats for c in x.intrigue)))
    stack = tuple(t for t in (*state.stack, *state.hall) if t not in HALL)
    defaults: dict[str, Any] = {
        "first": 0,
        "current": 0,
        "next_seat": 0,
        "seats": seats,
        "inn": INN,
        "quest_deck": deck,
        "hall": HALL,
        "hall_vp": (1, 1, 1),
        "stack": stack,
        "intrigue_deck": intrigue,
        "pending": (Decision(0, "quest"), Decision(0, "place")),
    }
    defaults.update(changes)
    return put(state, **defaults)


def with_building(state: State, tile: str, owner: int, stock: Sequence[int] = (0,) * 6) -> State:
    """Tile `tile` in play under `owner` (taken out of the Hall or the stack)."""
    stack = tuple(t for t in state.stack if t != tile)
    hall = state.hall
    if tile in hall:
        hall = tuple(stack[0] if t == tile else t for t in hall)
        stack = stack[1:]
    return put(
        state, hall=hall, stack=stack, buildings=(*state.buildings, Building(tile, owner, tuple(stock)))
    )


def card(state: State, name: str) -> str:
    """A copy of intrigue card `name` (taken out of the deck and the other hands)."""
    for c in RULES.intrigue_copies:
        if c.partition(".")[0] == name and all(c not in x.intrigue for x in state.seats):
            return c
    raise KeyError(name)


def give_card(state: State, p: int, name: str) -> tuple[State, str]:
    c = card(state, name)
    deck = tuple(x for x in state.intrigue_deck if x != c)
    state = put(state, intrigue_deck=deck)
    return seat(state, p, intrigue=(*state.seats[p].intrigue, c)), c


def res(state: State, p: int) -> dict[str, int]:
    x = state.seats[p]
    return {"c": x.cubes[0], "f": x.cubes[1], "r": x.cubes[2], "w": x.cubes[3], "gold": x.gold, "vp": x.vp}


def settle(state: State) -> tuple[State, list[Event]]:
    log = EventLog(RULES.apply, state)
    RULES._advance(log)
    return log.state, log.events


def play(state: State, p: int, action: Action) -> tuple[State, list[Event]]:
    """A legal action, decided and applied; fails the test on a rejection."""
    assert action in GAME.legal_actions(state, p), f"{action!r} not listed: {GAME.legal_actions(state, p)}"
    events = GAME.decide(state, p, action)
    assert not isinstance(events, Rejection), f"{action!r} rejected: {events}"
    return GAME.evolve(state, events), list(events)


def reject(state: State, p: int, action: Action) -> Rejection:
    result = GAME.decide(state, p, action)
    assert isinstance(result, Rejection), f"{action!r} was accepted"
    assert action not in GAME.legal_actions(state, p)
    return result


def place(state: State, p: int, space: str) -> State:
    return play(state, p, PlaceAgent(space))[0]


def choose(state: State, p: int, option: str) -> State:
    return play(state, p, Choose(option))[0]


def complete(state: State, p: int, quest: str) -> State:
    return play(state, p, CompleteQuest(quest))[0]


def end_turn(state: State, p: int) -> State:
    return play(state, p, EndTurn())[0]


def owes(state: State, p: int) -> str:
    """The kind of decision seat p owes now ("" if none)."""
    i = RULES._owed(state, p)
    return state.pending[i].kind if i >= 0 else ""


def options(state: State, p: int) -> list[str]:
    out = []
    for a in GAME.legal_actions(state, p):
        out.append(getattr(a, "space", getattr(a, "option", getattr(a, "quest", "end_turn"))))
    return out
