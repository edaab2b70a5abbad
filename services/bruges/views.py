"""Hidden information: what each seat may see, events as each seat may see them, and the
resampling of everything a seat cannot see (conformance proves the views leak nothing).

Hidden: which card each hand holds (from the others; from its owner too for cards drawn in
phase 1 until the seat has finished drawing), which card each house is (face down: only its
colour shows), the order of the draw piles and the extra pile. Public: the colour on the back of
every card in hand (each was drawn with its back in view) and of each pile's top card, every
person, the discard pile, and every count on the table.
"""

from __future__ import annotations

import msgspec

from services.bruges.model import (
    CALAMITY,
    COLOUR_INDEX,
    COLOURS,
    DRAW,
    MAJORITIES,
    OVER,
    PLAY,
    REPUTATION,
    T_GIVE,
    TASK_KINDS,
    CardDrawn,
    CardPlayed,
    Event,
    HandLooked,
    HouseView,
    SeatView,
    State,
    View,
)
from services.bruges.primitives import Tables
from services.kernel import Rng


def _seen_hand(state: State, player: int) -> tuple[int, ...]:
    seat = state.seats[player]
    return seat.hand[: len(seat.hand) - seat.unseen]


def view(
    tables: Tables, state: State, viewer: int | None, active: tuple[int, ...], scores: tuple[int, ...]
) -> View:
    """`scores`: what the table shows as each seat's score (scoring.table_scores)."""
    seats = []
    for p, seat in enumerate(state.seats):
        mine = p == viewer
        seats.append(
            SeatView(
                player=p,
                score=scores[p],
                guilders=seat.guilders,
                workers=dict(zip(COLOURS, seat.workers, strict=True)),
                threats=dict(zip(COLOURS, seat.threats, strict=True)),
                reputation=seat.reputation,
                hand_size=len(seat.hand),
                hand_colours=tuple(
                    sorted((tables.colour[c] for c in seat.hand), key=COLOUR_INDEX.__getitem__)
                ),
                hand=tuple(sorted(_seen_hand(state, p))) if mine else None,
                known_hand=tuple(sorted(seat.known)),
                houses=tuple(
                    HouseView(tables.colour[h.card], h.card if mine else None, h.person, h.used)
                    for h in seat.houses
                ),
                canals=seat.canals,
                canal_spaces=(tables.board.guard_houses[p].left, tables.board.guard_houses[p].right),
                statues=seat.statues,
                majorities=dict(zip(MAJORITIES, seat.majorities, strict=True)),
                plays_left=seat.plays_left,
            )
        )
    return View(
        players=state.players,
        viewer=viewer,
        round=state.round,
        phase=state.phase,
        start=state.start,
        active=active,
        current=state.current,
        played=state.played,
        allowed=state.allowed,
        queue=state.queue,
        dice=dict(zip(COLOURS, state.dice, strict=True)),
        reputation_cost=state.reputation_cost if state.phase == REPUTATION else 0,
        pile_sizes=(len(state.piles[0]), len(state.piles[1])),
        pile_tops=tuple(tables.colour[p[0]] if p else "" for p in state.piles),  # type: ignore[arg-type]
        extra_size=len(state.extra),
        extra_in=state.extra_in,
        last_round=state.last_round,
        discard=state.discard,
        statues=state.statues,
        seats=tuple(seats),
        tasks=state.tasks,
        canal_costs=tables.board.canal_costs,
        reputation_points=tables.board.reputation_points,
    )


def redact_event(event: Event, viewer: int | None) -> Event:
    """Blank the cards a viewer may not see: draws (but the drawer's own looked-at cards), a
    hand looked at, and the card built face down as a house."""
    if isinstance(event, CardDrawn) and not (event.seen and viewer == event.player):
        return msgspec.structs.replace(event, card=-1)
    if isinstance(event, HandLooked) and viewer != event.player:
        return msgspec.structs.replace(event, cards=())
    if isinstance(event, CardPlayed) and event.action == "house" and viewer != event.player:
        return msgspec.structs.replace(event, card=-1)
    return event


def resample_hidden(tables: Tables, state: State, viewer: int, rng: Rng) -> State:
    """A state `viewer` cannot tell from this one: every card it cannot identify dealt anew,
    keeping the colour of each slot whose colour it knows (cards in hand, houses, pile tops)."""
    cursor = rng.cursor()
    colour = tables.colour
    # Slots: ("hand", seat, index), ("house", seat, index), ("pile", pile, index), ("extra", 0, i)
    known_colour: list[tuple[str, int, int]] = []
    unknown: list[tuple[str, int, int]] = []
    hidden: list[int] = []
    for p, seat in enumerate(state.seats):
        first_hidden = 0 if p != viewer else len(seat.hand) - seat.unseen
        for i in range(first_hidden, len(seat.hand)):
            if seat.hand[i] in seat.known:
                continue  # the table saw this person go back to the hand
            known_colour.append(("hand", p, i))
            hidden.append(seat.hand[i])
        if p != viewer:
            for i, house in enumerate(seat.houses):
                known_colour.append(("house", p, i))
                hidden.append(house.card)
    for k, pile in enumerate(state.piles):
        for i, card in enumerate(pile):
            (known_colour if i == 0 else unknown).append(("pile", k, i))
            hidden.append(card)
    for i, card in enumerate(state.extra):
        unknown.append(("extra", 0, i))
        hidden.append(card)
    by_colour: dict[str, list[int]] = {c: [] for c in COLOURS}
    for card in cursor.shuffle(hidden):
        by_colour[colour[card]].append(card)
    placed: dict[tuple[str, int, int], int] = {}
    for slot in known_colour:
        placed[slot] = by_colour[colour[_card_at(state, slot)]].pop()
    rest = list(cursor.shuffle([c for cards in by_colour.values() for c in cards]))
    for slot in unknown:
        placed[slot] = rest.pop()
    seats = []
    for p, seat in enumerate(state.seats):
        hand = tuple(placed.get(("hand", p, i), c) for i, c in enumerate(seat.hand))
        houses = tuple(
            msgspec.structs.replace(h, card=placed.get(("house", p, i), h.card))
            for i, h in enumerate(seat.houses)
        )
        seats.append(msgspec.structs.replace(seat, hand=hand, houses=houses))
    piles = tuple(
        tuple(placed[("pile", k, i)] for i in range(len(pile))) for k, pile in enumerate(state.piles)
    )
    extra = tuple(placed[("extra", 0, i)] for i in range(len(state.extra)))
    return msgspec.structs.replace(state, seats=tuple(seats), piles=(piles[0], piles[1]), extra=extra)


def _card_at(state: State, slot: tuple[str, int, int]) -> int:
    kind, a, i = slot
    if kind == "hand":
        return state.seats[a].hand[i]
    if kind == "house":
        return state.seats[a].houses[i].card
    if kind == "pile":
        return state.piles[a][i]
    return state.extra[i]


def check_state(tables: Tables, state: State) -> None:
    """Raise ValueError naming the fault when a decoded state does not fit the game."""
    n = state.players
    if n not in (2, 3, 4) or len(state.seats) != n:
        raise ValueError("one seat per player, 2 to 4 players")
    cards: list[int] = [*state.piles[0], *state.piles[1], *state.extra, *state.discard]
    for seat in state.seats:
        if len(seat.workers) != 5 or len(seat.threats) != 5 or min(seat.workers + seat.threats) < 0:
            raise ValueError("workers and threats are five counts of 0 or more")
        if not 0 <= seat.reputation <= 12 or seat.guilders < 0 or seat.score < 0:
            raise ValueError("reputation 0-12, guilders and score 0 or more")
        if not 0 <= seat.unseen <= len(seat.hand) or any(not 0 <= c <= 5 for c in seat.canals):
            raise ValueError("unseen cards are in the hand; a canal section holds 0-5 tokens")
        if not set(seat.known) <= set(seat.hand):
            raise ValueError("cards known to be in a hand are in that hand")
        cards.extend(seat.hand)
        for house in seat.houses:
            cards.append(house.card)
            if house.person >= 0:
                cards.append(house.person)
    if sorted(cards) != list(range(len(tables.persons))):
        raise ValueError("every card is in exactly one place")
    if any(not 0 <= t.seat < n or t.kind not in TASK_KINDS or t.count < 1 for t in state.tasks):
        raise ValueError("tasks name a seat of this match, a known kind and a count of 1 or more")
    if any(t.kind == T_GIVE and not 0 <= t.other < n for t in state.tasks):
        raise ValueError("a worker is given to a seat of this match")
    if not -1 <= state.current < n or not 0 <= state.start < n or any(not 0 <= q < n for q in state.queue):
        raise ValueError("turns and queues name seats of this match")
    if state.phase not in (DRAW, CALAMITY, REPUTATION, PLAY, OVER) or state.round < 1:
        raise ValueError("a known phase of round 1 or later")
    if state.phase == PLAY and state.in_turn and state.current < 0:
        raise ValueError("a turn in progress names its seat")
    if not 0 <= state.played <= state.allowed or state.reputation_cost < 0:
        raise ValueError("cards played this turn within those allowed; a price of 0 or more")
    if len(state.dice) != 5 or any(not 0 <= d <= 6 for d in state.dice):
        raise ValueError("five dice showing 1-6 (0 before the first roll)")
