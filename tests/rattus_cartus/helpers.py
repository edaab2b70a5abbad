"""Scenario builders: real setup, then the fields a rule needs pinned down, then real decide/evolve."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from services.kernel import Rejection
from services.rattus_cartus import GAME
from services.rattus_cartus.model import (
    ENTER,
    FLUTE,
    GOLD,
    PASS,
    SPECIAL_SUPPLIED_BY,
    SUPPLY_KINDS,
    SWORD,
    Action,
    BuildingCard,
    EnterBuilding,
    Event,
    FinishEntering,
    Options,
    PlayCard,
    State,
)

# Population cards named after the rulebook example's figures (the nun counts are arbitrary).
MONK = "church:1"
KING = "royalty:2"
WITCH = "magic:0"
FARMER = "peasantry:0"
MERCHANT = "bourgeoisie:3"
KNIGHT = "chivalry:4"


def card(building: str, copy: int = 1, draw: int = 0, discard_rats: int = 0, look: int = 0) -> BuildingCard:
    return BuildingCard(building, copy, draw, discard_rats, look)


def scenario(
    players: int = 4,
    *,
    row: Sequence[BuildingCard | str] = ("farm", "monastery"),
    hands: Mapping[int, Sequence[str]] | None = None,
    start_player: int = 0,
    options: Options | None = None,
    seed: int = 1,
    supply: dict[str, int] | None = None,
    **changes: Any,
) -> State:
    """A state in phase B of round 1 with the given row, start player and hands."""
    state = GAME.setup(players, seed, options or Options())
    cards = tuple(c if isinstance(c, BuildingCard) else card(c, draw=1) for c in row)
    new_hands = list(state.hands)
    for seat, hand in (hands or {}).items():
        new_hands[seat] = tuple(sorted(hand))
    counts = list(state.supply)
    full = {SWORD: 12, FLUTE: 12, PASS: 12, GOLD: 15}
    for kind, building in SPECIAL_SUPPLIED_BY.items():  # the supply of each building in the row
        if any(c.building == building for c in cards):
            counts[SUPPLY_KINDS.index(kind)] = full[kind]
    for kind, count in (supply or {}).items():
        counts[SUPPLY_KINDS.index(kind)] = count
    state = msgspec.structs.replace(
        state,
        row=cards,
        entries=tuple(() for _ in cards),
        start_player=start_player,
        hands=tuple(new_hands),
        supply=tuple(counts),
        buildings_in_game=tuple(sorted({*state.buildings_in_game, *(c.building for c in cards)})),
    )
    return msgspec.structs.replace(state, **changes)


def entering(state: State) -> State:
    """Skip phase B: everyone has taken a supply action; phase C starts with the start player."""
    order = tuple((state.start_player + i) % state.players for i in range(state.players))
    return msgspec.structs.replace(
        state, phase=ENTER, enter_queue=order, supply_choice=tuple(0 for _ in range(state.players))
    )


def decide(state: State, player: int, action: Action) -> list[Event]:
    result = GAME.decide(state, player, action)
    assert not isinstance(result, Rejection), f"seat {player} {action!r} rejected: {result}"
    return list(result)


def act(state: State, player: int, action: Action) -> State:
    """Play one action through the real validate and apply."""
    return GAME.evolve(state, decide(state, player, action))


def act_all(state: State, moves: Iterable[tuple[int, Action]]) -> State:
    for player, action in moves:
        state = act(state, player, action)
    return state


def enter(state: State, player: int, building: int, cards: Sequence[str] = ()) -> State:
    """Phase C turn: enter a building and put these cards face down."""
    state = act(state, player, EnterBuilding(building))
    for c in cards:
        state = act(state, player, PlayCard(c))
    return act(state, player, FinishEntering())


def rejected(state: State, player: int, action: Action) -> Rejection:
    """The action is refused and nothing changes."""
    before = GAME.codec.encode_state(state)
    result = GAME.decide(state, player, action)
    assert isinstance(result, Rejection), f"{action!r} was accepted: {result}"
    assert GAME.codec.encode_state(state) == before
    return result


def influence(state: State, player: int, track: str) -> int:
    from services.rattus_cartus.model import CLASSES

    return state.influence[CLASSES.index(track)][player]


def supply_of(state: State, kind: str) -> int:
    return state.supply[SUPPLY_KINDS.index(kind)]
