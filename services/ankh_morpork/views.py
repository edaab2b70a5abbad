"""Hidden information: what each seat may see, events as each seat may see them, and the
resampling of everything a seat cannot see (conformance proves the views leak nothing).

Hidden: the personality cards until the game ends (or their owner's), the hands (but one's
own; a hand shown by Cable Street Particulars to its viewer while they choose), the order of
the draw pile and of the random events, the unused personalities, Stanley's two cards (but
from the taker). Public: the board, money [SEED: money may not be hidden], the discard pile,
loans and penalty cards in front of players, every count.
"""

from __future__ import annotations

import msgspec

from services.ankh_morpork.board import Tables, buildings_of, controller, minions_of
from services.ankh_morpork.model import (
    BUILDINGS,
    MINIONS,
    AreaView,
    CardsDrawn,
    CardsGiven,
    CardsTaken,
    Event,
    Frame,
    HandShown,
    PersonalitiesSeen,
    PersonalitySwapped,
    SeatView,
    StackSet,
    State,
    View,
)
from services.kernel import Rng


def _frame_for(frame: Frame, viewer: int | None) -> Frame:
    if frame.cards and frame.player != viewer:
        return msgspec.structs.replace(frame, cards=())
    return frame


def shown_hand(state: State, viewer: int | None) -> tuple[str, ...] | None:
    """The hand the viewer is inspecting right now (Cable Street Particulars)."""
    if state.stack and viewer is not None:
        top = state.stack[-1]
        if top.kind == "choose_card" and top.mode == "inspect" and top.player == viewer:
            return state.hands[top.target]
    return None


def view(
    t: Tables, state: State, viewer: int | None, active: tuple[int, ...], scores: tuple[int, ...]
) -> View:
    """`scores`: what the table shows as each seat's score (scoring.table_scores)."""
    n = state.players
    areas = tuple(
        AreaView(
            area=a + 1,
            name=t.areas[a].name,
            minions=state.minions[a],
            trolls=state.trolls[a],
            demons=state.demons[a],
            trouble=state.trouble[a],
            building=state.buildings[a],
            card_lost=state.lost_cards[a],
            controller=controller(state, a + 1),
        )
        for a in range(len(state.minions))
    )
    seats = tuple(
        SeatView(
            player=p,
            score=scores[p],
            money=state.money[p],
            hand_size=len(state.hands[p]),
            hand=state.hands[p] if p == viewer else None,
            personality=state.personalities[p] if p == viewer or state.over else None,
            minions_in_supply=MINIONS - minions_of(state, p),
            buildings_in_supply=BUILDINGS - len(buildings_of(state, p)),
            loans=state.loans[p],
            penalties=state.penalties[p],
        )
        for p in range(n)
    )
    return View(
        players=n,
        viewer=viewer,
        turn=state.turn,
        current=state.current,
        active=active,
        areas=areas,
        seats=seats,
        deck_size=len(state.deck),
        discard=state.discard,
        events_left=len(state.events_deck),
        events_done=state.events_done,
        unused_personalities=len(state.unused_personalities),
        used_abilities=state.used_abilities,
        gained=state.gained,
        played=state.played,
        pending=tuple(_frame_for(f, viewer) for f in state.stack),
        shown_hand=shown_hand(state, viewer),
        over=state.over,
        end_reason=state.end_reason,
        winners=state.winners,
    )


def redact_event(event: Event, viewer: int | None) -> Event:
    """The event as `viewer` may see it: card ids blanked where the viewer may not know them."""
    if isinstance(event, CardsDrawn):
        return event if event.player == viewer else msgspec.structs.replace(event, cards=())
    if isinstance(event, CardsGiven):
        return event if viewer in (event.giver, event.receiver) else msgspec.structs.replace(event, cards=())
    if isinstance(event, CardsTaken):
        return event if viewer in (event.taker, event.victim) else msgspec.structs.replace(event, cards=())
    if isinstance(event, HandShown):
        return event if viewer in (event.viewer, event.owner) else msgspec.structs.replace(event, cards=())
    if isinstance(event, (PersonalitySwapped, PersonalitiesSeen)):
        if event.player == viewer:
            return event
        if isinstance(event, PersonalitySwapped):
            return msgspec.structs.replace(event, old="", new="")
        return msgspec.structs.replace(event, cards=())
    if isinstance(event, StackSet):
        return StackSet(tuple(_frame_for(f, viewer) for f in event.stack))
    return event


def resample_hidden(state: State, viewer: int, rng: Rng) -> State:
    """A state `viewer` cannot tell from this one: the cards it cannot see reshuffled between
    the other hands and the draw pile, the random events reshuffled, and the personalities it
    cannot see reshuffled between their holders and the unused pile."""
    cursor = rng.cursor()
    fixed = {viewer}
    shown = shown_hand(state, viewer)
    if shown is not None:
        fixed.add(state.stack[-1].target)
    for frame in state.stack:  # Stanley's two cards stay where the taker saw them
        if frame.cards and frame.player == viewer:
            fixed.add(frame.target)
    others = [p for p in range(state.players) if p not in fixed]
    pool = [c for p in others for c in state.hands[p]] + list(state.deck)
    pool = list(cursor.shuffle(pool))
    hands = list(state.hands)
    for p in others:
        size = len(hands[p])
        hands[p] = tuple(pool[:size])
        pool = pool[size:]
    changes: dict[str, object] = {
        "hands": tuple(hands),
        "deck": tuple(pool),
        "events_deck": cursor.shuffle(state.events_deck),
    }
    if not state.over:
        hidden = [p for p in range(state.players) if p != viewer]
        persons = list(
            cursor.shuffle([state.personalities[p] for p in hidden] + list(state.unused_personalities))
        )
        people = list(state.personalities)
        for p in hidden:
            people[p] = persons.pop()
        changes["personalities"] = tuple(people)
        changes["unused_personalities"] = tuple(sorted(persons))
    return msgspec.structs.replace(state, **changes)
