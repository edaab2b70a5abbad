"""Hidden information: what each seat may see, events as each seat may see them, and the
resampling of everything a seat cannot see (conformance proves the views leak nothing).

Hidden [FACTS 1; issue 9]: each Lord card (until final scoring), each intrigue hand (but from its
owner), the order of the Quest deck, the Intrigue deck and the Building stack. Everything else is
public: quests are dealt and taken face up, played intrigue cards are shown, the discard piles
and every count are on the table.
"""

from __future__ import annotations

import msgspec

from services.kernel import Rng
from services.waterdeep.catalog import Catalog
from services.waterdeep.model import (
    CUBES,
    OVER,
    DeckShuffled,
    Event,
    IntrigueDrawn,
    SeatView,
    State,
    View,
)


def view(state: State, viewer: int | None, active: tuple[int, ...], scores: tuple[int, ...]) -> View:
    """`scores`: what the table shows as each seat's score (scoring.table_scores)."""
    over = state.phase == OVER
    seats = tuple(
        SeatView(
            player=p,
            score=scores[p],
            gold=x.gold,
            vp=x.vp,
            cubes=dict(zip(CUBES, x.cubes, strict=True)),
            agents=x.agents,
            pool=x.pool,
            intrigue_count=len(x.intrigue),
            intrigue=tuple(sorted(x.intrigue)) if p == viewer else None,
            lord=x.lord if p == viewer or over else None,
            quests=x.quests,
            completed=x.completed,
            plots=x.plots,
            orb_used=x.orb_used,
            miracle_used=x.miracle_used,
            lieutenant=x.lieutenant,
        )
        for p, x in enumerate(state.seats)
    )
    return View(
        viewer=viewer,
        players=state.players,
        round=state.round,
        phase=state.phase,
        first=state.first,
        current=state.current,
        reassigning=state.reassigning,
        active=active,
        seats=seats,
        placed=state.placed,
        ambassador=state.ambassador,
        buildings=state.buildings,
        hall=state.hall,
        hall_vp=state.hall_vp,
        stack_size=len(state.stack),
        inn=state.inn,
        quest_deck_size=len(state.quest_deck),
        quest_discard=state.quest_discard,
        intrigue_deck_size=len(state.intrigue_deck),
        intrigue_discard=state.intrigue_discard,
        revealed=state.revealed,
        pending=state.pending,
    )


def redact_event(event: Event, viewer: int | None) -> Event:
    """Blank another seat's intrigue draws and every reshuffled deck order."""
    if isinstance(event, IntrigueDrawn) and viewer != event.player:
        return msgspec.structs.replace(event, card="")
    if isinstance(event, DeckShuffled):
        return msgspec.structs.replace(event, order=(), rng_counter=0)
    return event


def resample_hidden(state: State, viewer: int, rng: Rng, catalog: Catalog) -> State:
    """A state `viewer` cannot tell from this one: the other hands and the Intrigue deck dealt
    anew from their cards, the Quest deck and the Building stack reshuffled, the other Lords
    drawn again from the Lords the viewer has not seen."""
    cursor = rng.cursor()
    seats = list(state.seats)
    others = [p for p in range(state.players) if p != viewer]
    cards = list(state.intrigue_deck)
    for p in others:
        cards += seats[p].intrigue
    cards = list(cursor.shuffle(cards))
    for p in others:
        k = len(seats[p].intrigue)
        seats[p] = msgspec.structs.replace(seats[p], intrigue=tuple(cards[:k]))
        cards = cards[k:]
    if state.phase != OVER:
        mine = seats[viewer].lord
        lords = [
            lord.id
            for lord in catalog.lords
            if lord.id != mine and (state.options.larissa or lord.vp_per_building == 0)
        ]
        for p, lord in zip(others, cursor.sample(lords, len(others)), strict=True):
            seats[p] = msgspec.structs.replace(seats[p], lord=lord)
    return msgspec.structs.replace(
        state,
        seats=tuple(seats),
        intrigue_deck=tuple(cards),
        quest_deck=cursor.shuffle(state.quest_deck),
        stack=cursor.shuffle(state.stack),
    )
