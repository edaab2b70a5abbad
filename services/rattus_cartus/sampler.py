"""A full Rattus Cartus state from one seat's view: what a search bot plays its determinizations in.

`sample(view, seat, rng, options)` reads nothing but the seat's view, the match options (public)
and the sampling Rng, and deals everything the seat cannot see at random, consistent with the view:

- the population cards the seat has not seen (all 120 less its hand, its played cards, the face-up
  played cards, the discard pile and the Nun-row cards it looked at) go to the other hands, the
  others' face-down played cards, the deck and the unseen Nun-row positions;
- the special cards out of the supply that the seat cannot see (each kind's total less the supply
  and the ones in view) go to other hands and face-down played cards; Pass and Gold never into a
  building (they cannot be played there);
- the building deck and reserve are drawn from the game's 30 building cards less this round's row;
- a fresh Rng key: the true one is the server's secret.

What the view does not say and a perfect-memory player could know is approximated, which the
rules only read in corners: earlier rounds' rows (so the building deck may hold a card already
used), who holds a special card, the influence scored this round (the Brewery reads it), the
order of entries across buildings (the 2-player premium tie), and the arrival order on a track
(rebuilt from the public standing, which is all it decides).
"""

from __future__ import annotations

import msgspec

from services.kernel import Rng
from services.kernel.tuples import seats_from
from services.rattus_cartus.catalog import default_catalog
from services.rattus_cartus.model import (
    BUILDING_CLASS,
    CLASSES,
    PLAYABLE_SPECIALS,
    RESOLVE,
    SPECIAL_SUPPLIED_BY,
    SUPPLY_KINDS,
    VP_TOKEN,
    Options,
    State,
    View,
    is_population,
    population_card,
)
from services.rattus_cartus.rules import (
    PLAYER_COUNT_RULES,
    RECOMMENDED_BUILDINGS,
    _choose_building_cards,
    _counts_for_influence,
    _opening_supply,
    _premium_holders,
)


def _in_game(view: View, options: Options) -> tuple[str, ...]:
    """The buildings in this game as far as the seat can tell."""
    if options.building_selection == "recommended":
        return tuple(sorted(RECOMMENDED_BUILDINGS))
    if options.building_selection == "explicit":
        return tuple(sorted(set(options.buildings)))
    seen = {card.building for card in view.row}
    seen |= {SPECIAL_SUPPLIED_BY[k] for k in SPECIAL_SUPPLIED_BY if view.supply.get(k, 0) > 0}
    return tuple(sorted(seen))


def _revealed(view: View) -> bool:
    """Whether the building being resolved has turned up its cards."""
    if view.phase != RESOLVE or view.resolving >= len(view.row):
        return False
    b = view.resolving
    return bool(
        view.premium[b] >= 0
        or view.actors
        or view.duels
        or view.gifts
        or view.hospital is not None
        or any(view.revealed_cards[p] for p in view.entries[b])
    )


def sample(view: View, seat: int, rng: Rng, options: Options | None = None) -> State:
    options = options or Options()
    catalog = default_catalog()
    cursor = rng.cursor()
    n = view.players
    hand = view.hand or ()
    mine = view.my_played or ()
    others = [p for p in range(n) if p != seat]
    face_down = [p for p in others if not view.revealed_cards[p] and view.seats[p].played]
    # Population cards the seat has not seen.
    unseen = [population_card(k, nuns) for k in CLASSES for nuns in catalog.population.nuns[k]]
    face_up = [c for p in others for c in view.revealed_cards[p]]
    seen_cards = [*hand, *mine, *face_up, *view.discard]
    seen_cards += [c for c in view.nun_row if c is not None]
    for card in seen_cards:
        if is_population(card):
            unseen.remove(card)
    # Special cards in others' hands or face down: each kind's total less what the seat can see.
    in_game = _in_game(view, options)
    totals = dict(zip(SUPPLY_KINDS, _opening_supply(catalog, in_game), strict=True))
    specials: list[str] = []
    for kind in SUPPLY_KINDS:
        if kind == VP_TOKEN:
            continue
        visible = view.supply[kind] + sum(c == kind for c in seen_cards)
        specials += [kind] * max(0, totals[kind] - visible)
    # Slots: (where, seat, index). Specials go to hands and face-down cards only.
    hand_slots = [("hand", p, i) for p in others for i in range(view.seats[p].hand_size)]
    played_slots = [("played", p, i) for p in face_down for i in range(view.seats[p].played)]
    placed: dict[tuple[str, int, int], str] = {}
    free_hands = list(cursor.shuffle(hand_slots))
    free_any = list(cursor.shuffle(hand_slots + played_slots))
    for card in cursor.shuffle(specials):
        pool = free_any if card in PLAYABLE_SPECIALS else free_hands
        slot = next((s for s in pool if s not in placed), None)
        if slot is not None:
            placed[slot] = card
    fresh = list(cursor.shuffle(unseen))
    for slot in hand_slots + played_slots:
        if slot not in placed:
            placed[slot] = fresh.pop() if fresh else "joker"
    hands = [tuple(hand)] * n
    played = [tuple(mine)] * n
    for p in range(n):
        if p != seat:
            hands[p] = tuple(sorted(placed[("hand", p, i)] for i in range(view.seats[p].hand_size)))
            played[p] = (
                tuple(placed[("played", p, i)] for i in range(view.seats[p].played))
                if p in face_down
                else view.revealed_cards[p]
            )
    nun_row = tuple(card if card is not None else fresh.pop() for card in view.nun_row)
    deck = tuple(fresh[: view.deck_size])
    # Building cards: the game's 30 less this round's row, dealt to the deck and the reserve.
    buildings = list(_choose_building_cards(catalog, n, options, cursor))
    for building in view.row:
        if building in buildings:
            buildings.remove(building)
    buildings = list(cursor.shuffle(buildings))
    building_deck = tuple(buildings[: view.building_deck_size])
    reserve = tuple(buildings[view.building_deck_size : view.building_deck_size + view.reserve_size])
    # A track's standing is all its arrival order decides: rebuild arrivals from it.
    arrival = tuple(tuple(t.standing.index(p) for p in range(n)) for t in view.tracks)
    revealed = _revealed(view)
    resolved = [b < view.resolving or (b == view.resolving and revealed) for b in range(len(view.row))]
    round_influence = tuple(
        sum(1 for c in view.revealed_cards[p] if _counts_for_influence(c)) if view.phase == RESOLVE else 0
        for p in range(n)
    )
    entered = [p for entrants in view.entries for p in entrants]
    entry_order = tuple(p for p in seats_from(view.start_player, n) if p in entered)
    state = State(
        players=n,
        rng=Rng.from_seed(cursor.next_u64()),
        options=options,
        rounds=view.rounds,
        buildings_per_round=PLAYER_COUNT_RULES[n][2],
        round=view.round,
        phase=view.phase,
        start_player=view.start_player,
        building_deck=building_deck,
        reserve=reserve,
        row=view.row,
        buildings_in_game=tuple(b for b in in_game if b in BUILDING_CLASS),
        deck=deck,
        discard=view.discard,
        nun_row=nun_row,
        nun_seen=tuple(s.nun_looked for s in view.seats),
        hands=tuple(hands),
        supply=tuple(view.supply[k] for k in SUPPLY_KINDS),
        vp_tokens=tuple(s.vp_tokens for s in view.seats),
        rats=tuple(s.rats for s in view.seats),
        influence=tuple(t.influence for t in view.tracks),
        arrival=arrival,
        moves=n,
        round_influence=round_influence,
        supply_choice=tuple(s.supply_choice for s in view.seats),
        looks_owed=tuple(s.looks_owed for s in view.seats),
        enter_queue=view.enter_queue,
        placing=view.placing,
        entries=view.entries,
        entry_order=entry_order,
        played=tuple(played),
        premium=view.premium,
        resolving=view.resolving,
        revealed=revealed,
        duels=view.duels,
        gifts=view.gifts,
        actors=view.actors,
        hospital=view.hospital,
    )
    if view.phase == RESOLVE:
        # Premium holders of buildings not yet turned up follow from the dealt face-down cards.
        holders = _premium_holders(state)
        premium = tuple(view.premium[b] if resolved[b] else holders[b] for b in range(len(view.row)))
        state = msgspec.structs.replace(state, premium=premium)
    return state
