"""Rattus Cartus rules: setup, whose turn it is, legal actions, validate, apply, views and scoring.

How a round flows (phases A-E of the rulebook):
- A. `BuildingsRevealed`: 2 or 3 building cards are turned up (redrawn from the reserve while
  they all show one building).
- B. Every seat owes a `choose_supply` (all at once, or in turn order), then any Nun-row looks.
- C. The head of `enter_queue` enters a building (or plays a Pass and goes to the back of the
  queue), then plays cards face down one at a time and says `finish_entering`.
- D. Buildings resolve in row order: reveal (influence, rats, Sword/Flute duels), then each
  entrant's action, premium holder first; decisions (victim choice, giving cards, Hospital
  discards, Nun-row looks) pause the flow; then the played cards are cleared.
- E. `RoundEnded`: the start player card moves left; after the last round the game is over.

`validate` turns a player's decision into events and then keeps emitting the automatic events
(`_advance`) until somebody owes a decision again, drawing from the state's Rng on the way
(reshuffles) and writing what it drew into the events. `apply` is bookkeeping only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from services.kernel import (
    EventLog,
    GameSpec,
    Outcome,
    PlayerResult,
    Rejection,
    Rng,
    RngCursor,
    SetupError,
    illegal,
    put,
    rules_version,
    seats_from,
    without,
)
from services.kernel.gamedata import count_text
from services.rattus_cartus.catalog import Catalog, default_catalog
from services.rattus_cartus.model import (
    BUILDING_CLASS,
    CLASSES,
    DRAW,
    ENTER,
    FLUTE,
    GOLD,
    JOKER,
    OVER,
    PASS,
    PLAYABLE_SPECIALS,
    RESOLVE,
    SPECIAL_SUPPLIED_BY,
    SUPPLIES,
    SUPPLY_KINDS,
    SWORD,
    VP_TOKEN,
    Action,
    ActionTaken,
    BuildingCard,
    BuildingCleared,
    BuildingEntered,
    BuildingRevealed,
    BuildingsRevealed,
    CardDiscardedForRat,
    CardGiven,
    CardPlayed,
    CardsDrawn,
    ChooseSupply,
    ChooseVictim,
    DeckReshuffled,
    DiscardForRat,
    Duel,
    DuelLost,
    EnterBuilding,
    EnteringFinished,
    EnteringStarted,
    Event,
    FinishEntering,
    Gift,
    GiveCard,
    HospitalLeft,
    HospitalOpened,
    HospitalTurn,
    InfluenceGained,
    LookAtNun,
    LooksGranted,
    NunLooked,
    Options,
    PassPlayed,
    PlayCard,
    PlayPass,
    RatsDiscarded,
    ResolutionStarted,
    RoundEnded,
    SeatView,
    State,
    StopDiscarding,
    SuppliesTaken,
    SupplyChosen,
    TrackView,
    TributeDemanded,
    View,
    card_class,
    card_nuns,
    is_population,
    population_card,
)
from services.rattus_cartus.present import PRESENTATION
from services.rattus_cartus.undo import UNDO

# players -> (cards moved to the reserve, rounds, buildings revealed per round) [SEED setup table;
# rounds also EN/DE]. 30 building cards = rounds x buildings + reserve in every row.
PLAYER_COUNT_RULES: dict[int, tuple[int, int, int]] = {
    2: (10, 10, 2),
    3: (12, 9, 2),
    4: (6, 8, 3),
    5: (6, 8, 3),
}
RECOMMENDED_BUILDINGS = ("farm", "marketplace", "monastery", "castle", "palace", "fortune_tellers_tent")
STARTING_RATS = 10
STARTING_HAND = 5
NUN_ROW_SIZE = 5
INFLUENCE_AWARDS = (10, 5, 2)
TWO_PLAYER_INFLUENCE_AWARDS = (10, 5)
GOLD_FIRST, GOLD_SECOND = 6, 3
GUARD_TOWER_TRIBUTE = 3
FINAL_ROUND_BONUS = "final_round_bonus"

_SUPPLY_INDEX = {kind: i for i, kind in enumerate(SUPPLY_KINDS)}
_CLASS_INDEX = {klass: i for i, klass in enumerate(CLASSES)}


# -- small tuple helpers ---------------------------------------------------------------------


def _add_cards(hand: tuple[str, ...], cards: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(hand + tuple(cards)))


def _counts_for_influence(card: str) -> bool:
    """Population cards of any class and Jokers give influence (and decide the premium action)."""
    return card == JOKER or is_population(card)


# -- setup ------------------------------------------------------------------------------------


def setup(catalog: Catalog, players: int, seed: int, options: Options) -> State:
    """The opening state: buildings chosen and dealt, hands of 5, 10 rats each, round 1 revealed."""
    if players not in PLAYER_COUNT_RULES:
        raise SetupError(f"Rattus Cartus is played by 2 to 5 players, not {players}")
    reserve_size, rounds, per_round = PLAYER_COUNT_RULES[players]
    cursor = Rng.from_seed(seed).cursor()
    cards = cursor.shuffle(_choose_building_cards(catalog, players, options, cursor))
    # The reserve comes off the top of the shuffled 30, face down and unseen.
    reserve, building_deck = cards[:reserve_size], cards[reserve_size:]
    population = cursor.shuffle(
        [population_card(klass, nuns) for klass in CLASSES for nuns in catalog.population.nuns[klass]]
    )
    nun_row = population[:NUN_ROW_SIZE]
    dealt = population[NUN_ROW_SIZE:]
    hands = tuple(tuple(sorted(dealt[i * STARTING_HAND : (i + 1) * STARTING_HAND])) for i in range(players))
    deck = dealt[players * STARTING_HAND :]
    start_player = cursor.randbelow(players)
    in_game = tuple(sorted({card.building for card in cards}))
    row, building_deck, reserve, _ = _draw_row(building_deck, reserve, per_round)
    seats = range(players)
    return State(
        players=players,
        rng=cursor.rng,
        options=options,
        rounds=rounds,
        buildings_per_round=per_round,
        phase=SUPPLIES,
        start_player=start_player,
        building_deck=building_deck,
        reserve=reserve,
        row=row,
        buildings_in_game=in_game,
        deck=deck,
        nun_row=nun_row,
        nun_seen=tuple(() for _ in seats),
        hands=hands,
        supply=_opening_supply(catalog, in_game),
        vp_tokens=tuple(0 for _ in seats),
        rats=tuple(STARTING_RATS for _ in seats),
        influence=tuple(tuple(0 for _ in seats) for _ in CLASSES),
        arrival=tuple(tuple(0 for _ in seats) for _ in CLASSES),
        round_influence=tuple(0 for _ in seats),
        supply_choice=tuple(-1 for _ in seats),
        looks_owed=tuple(0 for _ in seats),
        entries=tuple(() for _ in row),
        played=tuple(() for _ in seats),
    )


def _opening_supply(catalog: Catalog, in_game: Sequence[str]) -> tuple[int, ...]:
    """Jokers and VP tokens always; a special card only if a chosen building hands it out."""
    specials = catalog.specials
    full = {
        JOKER: specials.jokers,
        SWORD: specials.swords,
        FLUTE: specials.flutes,
        PASS: specials.passes,
        GOLD: specials.gold,
        VP_TOKEN: specials.vp_tokens,
    }
    return tuple(
        full[kind] if kind not in SPECIAL_SUPPLIED_BY or SPECIAL_SUPPLIED_BY[kind] in in_game else 0
        for kind in SUPPLY_KINDS
    )


def _building_cards(catalog: Catalog, building: str) -> list[BuildingCard]:
    entry = catalog.building(building)
    return [
        BuildingCard(building, number, copy.draw, copy.discard_rats, copy.look)
        for number, copy in enumerate(entry.copies, start=1)
    ]


def _choose_building_cards(
    catalog: Catalog, players: int, options: Options, cursor: RngCursor
) -> list[BuildingCard]:
    """The 30 building cards of this game, 5 per class, by the chosen selection method."""
    mode = options.building_selection
    if options.buildings and mode != "explicit":
        raise SetupError('`buildings` is only read with building_selection "explicit"')
    guard_tower_allowed = players != 2 or options.allow_guard_tower_with_two

    def candidates(klass: str) -> list[str]:
        return [
            b for b, k in BUILDING_CLASS.items() if k == klass and (b != "guard_tower" or guard_tower_allowed)
        ]

    cards: list[BuildingCard] = []
    if mode == "recommended":
        for building in RECOMMENDED_BUILDINGS:
            cards.extend(_building_cards(catalog, building))
    elif mode == "random_buildings":
        for klass in CLASSES:
            cards.extend(_building_cards(catalog, cursor.choice(candidates(klass))))
    elif mode == "random_cards":
        for klass in CLASSES:
            pool = [card for b in candidates(klass) for card in _building_cards(catalog, b)]
            cards.extend(cursor.sample(pool, 5))
    else:
        cards = _explicit_building_cards(catalog, options.buildings, guard_tower_allowed, cursor)
    return cards


def _explicit_building_cards(
    catalog: Catalog, names: Sequence[str], guard_tower_allowed: bool, cursor: RngCursor
) -> list[BuildingCard]:
    """6 buildings (all 5 copies each) or 30 cards; copies of a partly used building are random."""
    unknown = sorted({n for n in names if n not in BUILDING_CLASS})
    if unknown:
        raise SetupError(f"unknown buildings {unknown}; choose from {sorted(BUILDING_CLASS)}")
    if "guard_tower" in names and not guard_tower_allowed:
        raise SetupError(
            "the rulebook advises against the Guard Tower with 2 players; "
            "set allow_guard_tower_with_two to use it"
        )
    if len(names) not in (6, 30):
        raise SetupError(f"list 6 buildings (one per class) or 30 building cards, not {len(names)}")
    copies = 5 if len(names) == 6 else 1
    for klass in CLASSES:
        in_class = sum(copies for n in names if BUILDING_CLASS[n] == klass)
        if in_class != 5:
            raise SetupError(f"the buildings must give 5 cards of each class; {klass} has {in_class}")
    cards: list[BuildingCard] = []
    for building in sorted(set(names)):
        wanted = copies * list(names).count(building)
        if wanted > 5:
            raise SetupError(f"there are only 5 {building} cards, not {wanted}")
        cards.extend(cursor.sample(_building_cards(catalog, building), wanted))
    return cards


def _draw_row(
    deck: tuple[BuildingCard, ...], reserve: tuple[BuildingCard, ...], count: int
) -> tuple[tuple[BuildingCard, ...], tuple[BuildingCard, ...], tuple[BuildingCard, ...], int]:
    """Phase A: reveal `count` cards; while they all show one building, the last one goes under
    the reserve and the reserve's top card takes its place. Returns (row, deck, reserve, swaps)."""
    row = list(deck[:count])
    queue = list(reserve)
    swaps = 0
    # Each swap tries the next reserve card; after a full cycle nothing different is left.
    while len(row) > 1 and len({card.building for card in row}) == 1 and swaps < len(queue):
        replaced = row[-1]
        row[-1] = queue.pop(0)
        queue.append(replaced)
        swaps += 1
    return tuple(row), deck[count:], tuple(queue), swaps


# -- whose decision is it ------------------------------------------------------------------

# The decisions a seat can owe; `_decision` names the one a seat owes now.
CHOOSE_SUPPLY = "choose_supply"
LOOK = "look"
ENTER_TURN = "enter_turn"
PLACE_CARDS = "place_cards"
GIVE = "give"
CHOOSE_VICTIM = "choose_victim"
HOSPITAL = "hospital"

_PROMPTS = {
    CHOOSE_SUPPLY: "choose the supply action of one of this round's buildings",
    LOOK: "look at a Nun-row card you have not seen",
    ENTER_TURN: "enter a building or play a Pass",
    PLACE_CARDS: "play a card into your building or finish entering",
    GIVE: "give a card from your hand",
    CHOOSE_VICTIM: "choose which of the tied players pays",
    HOSPITAL: "discard a card for a rat or stop discarding",
}
_ACTIONS_FOR: dict[str, tuple[type, ...]] = {
    CHOOSE_SUPPLY: (ChooseSupply,),
    LOOK: (LookAtNun,),
    ENTER_TURN: (EnterBuilding, PlayPass),
    PLACE_CARDS: (PlayCard, FinishEntering),
    GIVE: (GiveCard,),
    CHOOSE_VICTIM: (ChooseVictim,),
    HOSPITAL: (DiscardForRat, StopDiscarding),
}


def active_players(state: State) -> tuple[int, ...]:
    """The seats that owe a decision now (several at once for simultaneous choices)."""
    phase = state.phase
    if phase == SUPPLIES:
        order = seats_from(state.start_player, state.players)
        pending = [p for p in order if state.supply_choice[p] < 0 or state.looks_owed[p] > 0]
        if state.options.simultaneous_supplies:
            return tuple(sorted(pending))
        return tuple(pending[:1])
    if phase == ENTER:
        return (state.placing,) if state.placing >= 0 else state.enter_queue[:1]
    if phase == RESOLVE:
        if state.gifts:
            return tuple(sorted({gift.giver for gift in state.gifts}))
        if state.duels and len(state.duels[0].candidates) > 1:
            return (state.duels[0].winner,)
        if state.hospital is not None:
            return (state.hospital.player,)
        return tuple(p for p in range(state.players) if state.looks_owed[p] > 0)
    return ()


def _decision(state: State, player: int) -> str | None:
    if player not in active_players(state):
        return None
    if state.phase == SUPPLIES:
        return LOOK if state.looks_owed[player] > 0 else CHOOSE_SUPPLY
    if state.phase == ENTER:
        return PLACE_CARDS if state.placing == player else ENTER_TURN
    # The same order of precedence as in active_players.
    if state.gifts:
        return GIVE
    if state.duels and len(state.duels[0].candidates) > 1:
        return CHOOSE_VICTIM
    if state.hospital is not None:
        return HOSPITAL
    return LOOK


# -- legal actions ------------------------------------------------------------------------------


def legal_actions(state: State, player: int) -> list[Action]:
    """Everything `player` may do now, and nothing else."""
    decision = _decision(state, player)
    if decision is None:
        return []
    hand = state.hands[player]
    distinct = sorted(set(hand))
    if decision == CHOOSE_SUPPLY:
        return [ChooseSupply(b) for b in range(len(state.row))]
    if decision == LOOK:
        return [LookAtNun(i) for i in _unseen_positions(state, player)]
    if decision == ENTER_TURN:
        enters: list[Action] = [EnterBuilding(b) for b in range(len(state.row))]
        return enters + ([PlayPass()] if PASS in hand else [])
    if decision == PLACE_CARDS:
        plays: list[Action] = [PlayCard(c) for c in distinct if _playable(c)]
        return [*plays, FinishEntering()]
    if decision == GIVE:
        return [GiveCard(c) for c in distinct]
    if decision == CHOOSE_VICTIM:
        return [ChooseVictim(p) for p in state.duels[0].candidates]
    discards: list[Action] = [DiscardForRat(c) for c in distinct]
    return [*discards, StopDiscarding()]


def _playable(card: str) -> bool:
    """Population cards, Jokers, Swords and Flutes may be played; Gold and Pass never."""
    return is_population(card) or card in PLAYABLE_SPECIALS


def _unseen_positions(state: State, player: int) -> list[int]:
    return [i for i in range(len(state.nun_row)) if i not in state.nun_seen[player]]


def probe_actions(state: State, player: int) -> list[Action]:
    """A broad superset of plausible actions, for the conformance checker."""
    cards = [population_card(k, n) for k in CLASSES for n in range(5)]
    cards += [JOKER, SWORD, FLUTE, PASS, GOLD, "dragon"]
    indexes = range(-1, 6)
    probes: list[Action] = [PlayPass(), FinishEntering(), StopDiscarding()]
    probes += [ChooseSupply(i) for i in indexes] + [EnterBuilding(i) for i in indexes]
    probes += [LookAtNun(i) for i in indexes] + [ChooseVictim(i) for i in range(-1, state.players + 1)]
    probes += [PlayCard(c) for c in cards] + [GiveCard(c) for c in cards] + [DiscardForRat(c) for c in cards]
    return probes


# -- validate -------------------------------------------------------------------------------


# The validate-call log every handler writes to (see services.kernel.log).
_Log = EventLog[State, Event]


def validate(state: State, player: int, action: Action) -> list[Event] | Rejection:
    """The events `player`'s action causes, up to the next decision anybody owes; or why not."""
    decision = _decision(state, player)
    assert decision is not None, "GameSpec.decide only asks active seats"
    handler = _HANDLERS[type(action)]
    if not isinstance(action, _ACTIONS_FOR[decision]):
        return illegal(f"Not now: you must {_PROMPTS[decision]}.")
    log = EventLog(apply, state)
    rejection = handler(log, player, action)
    if rejection is not None:
        return rejection
    _advance(log)
    return log.events


def _building_index(state: State, building: int) -> Rejection | None:
    if 0 <= building < len(state.row):
        return None
    return illegal(f"There is no building {building} this round; choose 0 to {len(state.row) - 1}.")


def _on_choose_supply(log: _Log, player: int, action: ChooseSupply) -> Rejection | None:
    """Phase B: carry out the supply action printed on one of this round's building cards."""
    state = log.state
    if (rejection := _building_index(state, action.building)) is not None:
        return rejection
    card = state.row[action.building]
    log.emit(SupplyChosen(player, action.building))
    _draw(log, player, card.draw)
    if card.discard_rats:
        log.emit(RatsDiscarded(player, card.discard_rats))
    _grant_looks(log, player, card.look)
    return None


def _on_look(log: _Log, player: int, action: LookAtNun) -> Rejection | None:
    """Look at one Nun-row card you have not seen; the row's order never changes."""
    state = log.state
    if not 0 <= action.position < len(state.nun_row):
        return illegal(f"The Nun-row has positions 0 to {len(state.nun_row) - 1}.")
    if action.position in state.nun_seen[player]:
        return illegal("You have already seen that Nun-row card; look at another one.")
    log.emit(NunLooked(player, action.position, state.nun_row[action.position]))
    return None


def _on_play_pass(log: _Log, player: int, action: PlayPass) -> Rejection | None:
    """A Pass, at the start of your turn, sends you to the back of the entering order."""
    if PASS not in log.state.hands[player]:
        return illegal("You have no Pass card.")
    log.emit(PassPlayed(player))
    return None


def _on_enter(log: _Log, player: int, action: EnterBuilding) -> Rejection | None:
    """Put a disc on the first free space of a building, even one others entered already."""
    state = log.state
    if (rejection := _building_index(state, action.building)) is not None:
        return rejection
    log.emit(BuildingEntered(player, action.building, len(state.entries[action.building]) + 1))
    return None


def _on_play_card(log: _Log, player: int, action: PlayCard) -> Rejection | None:
    """Put a card face down in front of you; Gold and Pass cannot be played."""
    if action.card not in log.state.hands[player]:
        return illegal(f"You have no {action.card!r} card in your hand.")
    if not _playable(action.card):
        return illegal("Only population cards, Jokers, Swords and Flutes can be played into a building.")
    log.emit(CardPlayed(player, action.card))
    return None


def _on_finish_entering(log: _Log, player: int, action: FinishEntering) -> Rejection | None:
    log.emit(EnteringFinished(player, len(log.state.played[player])))
    return None


def _on_choose_victim(log: _Log, player: int, action: ChooseVictim) -> Rejection | None:
    """The duel winner picks which of the players tied for fewest pays."""
    duel = log.state.duels[0]
    if action.player not in duel.candidates:
        names = ", ".join(str(p) for p in duel.candidates)
        return illegal(f"Choose one of the players tied for fewest {duel.kind}s: {names}.")
    _settle_duel(log, duel, action.player)
    return None


def _on_give(log: _Log, player: int, action: GiveCard) -> Rejection | None:
    """The giver chooses which cards to give."""
    if action.card not in log.state.hands[player]:
        return illegal(f"You have no {action.card!r} card in your hand.")
    gift = next(g for g in log.state.gifts if g.giver == player)
    log.emit(CardGiven(player, gift.receiver, action.card))
    return None


def _on_discard_for_rat(log: _Log, player: int, action: DiscardForRat) -> Rejection | None:
    """Hospital: any card from your hand (Gold too) can be discarded to discard a rat."""
    if action.card not in log.state.hands[player]:
        return illegal(f"You have no {action.card!r} card in your hand.")
    log.emit(CardDiscardedForRat(player, action.card))
    return None


def _on_stop_discarding(log: _Log, player: int, action: StopDiscarding) -> Rejection | None:
    log.emit(HospitalLeft(player))
    return None


_HANDLERS: dict[type, Callable[[_Log, int, Any], Rejection | None]] = {
    ChooseSupply: _on_choose_supply,
    LookAtNun: _on_look,
    PlayPass: _on_play_pass,
    EnterBuilding: _on_enter,
    PlayCard: _on_play_card,
    FinishEntering: _on_finish_entering,
    ChooseVictim: _on_choose_victim,
    GiveCard: _on_give,
    DiscardForRat: _on_discard_for_rat,
    StopDiscarding: _on_stop_discarding,
}


# -- the automatic flow ----------------------------------------------------------------------


def _advance(log: _Log) -> None:
    """Play out everything automatic until somebody owes a decision or the game is over."""
    while log.state.phase != OVER and not active_players(log.state):
        _step(log)


def _step(log: _Log) -> None:
    state = log.state
    if state.phase == SUPPLIES:
        log.emit(EnteringStarted(seats_from(state.start_player, state.players)))
    elif state.phase == ENTER:
        log.emit(ResolutionStarted(_premium_holders(state)))
    elif state.phase == DRAW:
        row, _, _, swaps = _draw_row(state.building_deck, state.reserve, state.buildings_per_round)
        log.emit(BuildingsRevealed(state.round, row, swaps))
    elif state.resolving == len(state.row):
        last = state.round == state.rounds
        log.emit(RoundEnded(state.round, last, (state.start_player + 1) % state.players))
    elif not state.revealed:
        log.emit(_reveal(state))
    elif state.duels:  # a single loser: nobody has to choose
        _settle_duel(log, state.duels[0], state.duels[0].candidates[0])
    elif state.actors:
        _take_action(log, state.actors[0])
    else:
        log.emit(BuildingCleared(state.resolving))


def _draw(log: _Log, player: int, count: int) -> None:
    """Draw population cards; an empty deck is replaced by the shuffled discards; stop when both run out."""
    if count <= 0:
        return
    state = log.state
    if len(state.deck) < count and state.discard:
        # Shuffling the discards under the rest of the deck deals the same cards as drawing the
        # rest first and then reshuffling.
        order = log.cursor.shuffle(state.discard)
        log.emit(DeckReshuffled(len(order), order, log.cursor.rng.counter))
    cards = log.state.deck[:count]
    if cards:
        log.emit(CardsDrawn(player, len(cards), cards))


def _grant_looks(log: _Log, player: int, count: int) -> None:
    """Looks at Nun-row cards; a player who has seen them all has nothing left to look at."""
    count = min(count, len(_unseen_positions(log.state, player)))
    if count > 0:
        log.emit(LooksGranted(player, count))


def _strength(state: State, player: int) -> int:
    """Population cards plus Jokers played: what wins the premium action."""
    return sum(1 for card in state.played[player] if _counts_for_influence(card))


def _premium_holders(state: State) -> tuple[int, ...]:
    """Per building, who takes the premium action: most population + Jokers, ties to the first in.

    With 2 players only one premium action happens per round, even in different buildings; a
    tie goes to whoever put their disc down first this round."""
    if state.players == 2:
        holder = min(state.entry_order, key=lambda p: (-_strength(state, p), state.entry_order.index(p)))
        return tuple(holder if holder in entrants else -1 for entrants in state.entries)
    return tuple(
        min(entrants, key=lambda p: (-_strength(state, p), entrants.index(p))) if entrants else -1
        for entrants in state.entries
    )


def _reveal(state: State) -> BuildingRevealed:
    """Step a: +1 influence in the building's class per population card or Joker, +1 rat per
    population card of another class; then the Sword and Flute duels."""
    b = state.resolving
    name = state.row[b].building
    klass = BUILDING_CLASS[name]
    entrants = state.entries[b]
    cards = tuple(state.played[p] for p in entrants)
    influence = tuple(sum(1 for c in played if _counts_for_influence(c)) for played in cards)
    rats = tuple(sum(1 for c in played if is_population(c) and card_class(c) != klass) for played in cards)
    duels = tuple(d for d in (_duel(SWORD, entrants, cards), _duel(FLUTE, entrants, cards)) if d is not None)
    premium = state.premium[b]
    if state.round == state.rounds:
        # Final round: no actions; only the premium holder acts, to gain 1 influence.
        actors: tuple[int, ...] = (premium,) if premium >= 0 else ()
    else:
        first = (premium,) if premium >= 0 else ()
        actors = first + tuple(p for p in entrants if p != premium)
    return BuildingRevealed(b, name, entrants, cards, influence, rats, duels, actors, premium)


def _duel(kind: str, entrants: tuple[int, ...], cards: tuple[tuple[str, ...], ...]) -> Duel | None:
    """Most Swords (Flutes) against fewest, counting 0 for none; ties for most go to the first in;
    all equal (or a player alone) means nothing happens."""
    counts = [played.count(kind) for played in cards]
    if len(set(counts)) <= 1:
        return None
    winner = entrants[counts.index(max(counts))]
    losers = tuple(p for p, n in zip(entrants, counts, strict=True) if n == min(counts))
    return Duel(kind, winner, losers)


def _settle_duel(log: _Log, duel: Duel, loser: int) -> None:
    """Sword: the loser owes half their hand, rounded down. Flute: the loser gets a rat from the winner."""
    owed = len(log.state.hands[loser]) // 2 if duel.kind == SWORD else 0
    log.emit(DuelLost(duel.kind, duel.winner, loser, owed))


def _take_action(log: _Log, player: int) -> None:
    """Step b: the premium holder acts first, then the others in entry order."""
    state = log.state
    b = state.resolving
    building = state.row[b].building
    premium = player == state.premium[b]
    if state.round == state.rounds:
        log.emit(ActionTaken(b, player, premium, FINAL_ROUND_BONUS))
        log.emit(InfluenceGained(player, BUILDING_CLASS[building], 1))
        return
    log.emit(ActionTaken(b, player, premium, building))
    BUILDING_ACTIONS[building](log, player, premium)


# -- the 12 buildings ------------------------------------------------------------------------


def _take_supplies(log: _Log, player: int, kind: str, wanted: int) -> None:
    """Take from the general supply; an exhausted supply gives what is left."""
    count = min(wanted, log.state.supply[_SUPPLY_INDEX[kind]])
    if count > 0:
        log.emit(SuppliesTaken(player, kind, count))


def _farm(log: _Log, player: int, premium: bool) -> None:
    """Farm: draw 4 population cards (standard: 2)."""
    _draw(log, player, 4 if premium else 2)


def _brewery(log: _Log, player: int, premium: bool) -> None:
    """Brewery: draw 1 card per influence scored this round (standard: 1 per 2, rounded down)."""
    scored = log.state.round_influence[player]
    _draw(log, player, scored if premium else scored // 2)


def _marketplace(log: _Log, player: int, premium: bool) -> None:
    """Marketplace: take 2 Jokers (standard: 1)."""
    _take_supplies(log, player, JOKER, 2 if premium else 1)


def _office(log: _Log, player: int, premium: bool) -> None:
    """Office: take 2 Pass cards (standard: 1)."""
    _take_supplies(log, player, PASS, 2 if premium else 1)


def _monastery(log: _Log, player: int, premium: bool) -> None:
    """Monastery: discard 2 rats (standard: 1)."""
    log.emit(RatsDiscarded(player, 2 if premium else 1))


def _hospital(log: _Log, player: int, premium: bool) -> None:
    """Hospital: discard 1 rat and up to 3 cards for 1 rat each (standard: up to 2 cards)."""
    if premium:
        log.emit(RatsDiscarded(player, 1))
    if log.state.hands[player]:
        log.emit(HospitalOpened(player, 3 if premium else 2))


def _castle(log: _Log, player: int, premium: bool) -> None:
    """Castle: take 2 Swords (standard: 1)."""
    _take_supplies(log, player, SWORD, 2 if premium else 1)


def _guard_tower(log: _Log, player: int, premium: bool) -> None:
    """Guard Tower: everyone not in a Guard Tower this round holding at least as many cards as you
    gives you 3 cards of their choice (all, if fewer). Standard: no action, only protection."""
    if not premium:
        return
    state = log.state
    protected = {
        p for b, card in enumerate(state.row) if card.building == "guard_tower" for p in state.entries[b]
    }
    mine = len(state.hands[player])
    givers = tuple(
        p
        for p in range(state.players)
        if p not in protected and state.hands[p] and len(state.hands[p]) >= mine
    )
    if givers:
        counts = tuple(min(GUARD_TOWER_TRIBUTE, len(state.hands[p])) for p in givers)
        log.emit(TributeDemanded(player, givers, counts))


def _fortune_tellers_tent(log: _Log, player: int, premium: bool) -> None:
    """Fortune-teller's Tent: look at 2 Nun-row cards (standard: 1)."""
    _grant_looks(log, player, 2 if premium else 1)


def _pipers_hut(log: _Log, player: int, premium: bool) -> None:
    """Piper's Hut: take 2 Flutes (standard: 1)."""
    _take_supplies(log, player, FLUTE, 2 if premium else 1)


def _palace(log: _Log, player: int, premium: bool) -> None:
    """Palace: take 2 victory-point tokens (standard: 1)."""
    _take_supplies(log, player, VP_TOKEN, 2 if premium else 1)


def _treasury(log: _Log, player: int, premium: bool) -> None:
    """Treasury: take 2 Gold cards (standard: 1)."""
    _take_supplies(log, player, GOLD, 2 if premium else 1)


BUILDING_ACTIONS: dict[str, Callable[[_Log, int, bool], None]] = {
    "farm": _farm,
    "brewery": _brewery,
    "marketplace": _marketplace,
    "office": _office,
    "monastery": _monastery,
    "hospital": _hospital,
    "castle": _castle,
    "guard_tower": _guard_tower,
    "fortune_tellers_tent": _fortune_tellers_tent,
    "pipers_hut": _pipers_hut,
    "palace": _palace,
    "treasury": _treasury,
}


# -- apply ----------------------------------------------------------------------------------------


def apply(state: State, event: Event) -> State:
    """Fold one event into the state (total: it never rejects an event validate produced)."""
    return _APPLIERS[type(event)](state, event)


def _replace(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


def _hand(state: State, player: int, hand: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    return put(state.hands, player, hand)


def _lose_rats(state: State, player: int, count: int) -> tuple[int, ...]:
    return put(state.rats, player, max(0, state.rats[player] - count))


def _return_card(state: State, card: str) -> State:
    """A used card goes back: population cards to the discard pile, the others to their supply."""
    if is_population(card):
        return _replace(state, discard=(*state.discard, card))
    i = _SUPPLY_INDEX[card]
    return _replace(state, supply=put(state.supply, i, state.supply[i] + 1))


def _gain_influence(state: State, player: int, track: str, amount: int) -> State:
    """Move a marker up; it lands on top of any stack on its new space (arrival order)."""
    if amount <= 0:
        return state
    k = _CLASS_INDEX[track]
    moves = state.moves + 1
    return _replace(
        state,
        influence=put(
            state.influence, k, put(state.influence[k], player, state.influence[k][player] + amount)
        ),
        arrival=put(state.arrival, k, put(state.arrival[k], player, moves)),
        moves=moves,
    )


def _apply_supply_chosen(state: State, e: SupplyChosen) -> State:
    return _replace(state, supply_choice=put(state.supply_choice, e.player, e.building))


def _apply_deck_reshuffled(state: State, e: DeckReshuffled) -> State:
    return _replace(state, deck=state.deck + e.order, discard=(), rng=state.rng.at(e.rng_counter))


def _apply_cards_drawn(state: State, e: CardsDrawn) -> State:
    hand = _add_cards(state.hands[e.player], e.cards)
    return _replace(state, deck=state.deck[e.count :], hands=_hand(state, e.player, hand))


def _apply_rats_discarded(state: State, e: RatsDiscarded) -> State:
    return _replace(state, rats=_lose_rats(state, e.player, e.count))


def _apply_looks_granted(state: State, e: LooksGranted) -> State:
    return _replace(state, looks_owed=put(state.looks_owed, e.player, state.looks_owed[e.player] + e.count))


def _apply_nun_looked(state: State, e: NunLooked) -> State:
    seen = tuple(sorted((*state.nun_seen[e.player], e.position)))
    return _replace(
        state,
        nun_seen=put(state.nun_seen, e.player, seen),
        looks_owed=put(state.looks_owed, e.player, state.looks_owed[e.player] - 1),
    )


def _apply_entering_started(state: State, e: EnteringStarted) -> State:
    return _replace(state, phase=ENTER, enter_queue=e.order)


def _apply_pass_played(state: State, e: PassPlayed) -> State:
    state = _replace(
        state,
        hands=_hand(state, e.player, without(state.hands[e.player], PASS)),
        enter_queue=(*state.enter_queue[1:], e.player),
    )
    return _return_card(state, PASS)


def _apply_building_entered(state: State, e: BuildingEntered) -> State:
    return _replace(
        state,
        enter_queue=state.enter_queue[1:],
        placing=e.player,
        entries=put(state.entries, e.building, (*state.entries[e.building], e.player)),
        entry_order=(*state.entry_order, e.player),
    )


def _apply_card_played(state: State, e: CardPlayed) -> State:
    assert e.card is not None  # only redacted copies lack the card, and they are never applied
    return _replace(
        state,
        hands=_hand(state, e.player, without(state.hands[e.player], e.card)),
        played=put(state.played, e.player, (*state.played[e.player], e.card)),
    )


def _apply_entering_finished(state: State, e: EnteringFinished) -> State:
    return _replace(state, placing=-1)


def _apply_resolution_started(state: State, e: ResolutionStarted) -> State:
    return _replace(state, phase=RESOLVE, premium=e.premium, resolving=0, revealed=False)


def _apply_building_revealed(state: State, e: BuildingRevealed) -> State:
    klass = BUILDING_CLASS[e.name]
    rats = list(state.rats)
    scored = list(state.round_influence)
    for player, influence, new_rats in zip(e.entrants, e.influence, e.rats, strict=True):
        state = _gain_influence(state, player, klass, influence)
        rats[player] += new_rats
        scored[player] += influence
    return _replace(
        state, rats=tuple(rats), round_influence=tuple(scored), duels=e.duels, actors=e.actors, revealed=True
    )


def _apply_duel_lost(state: State, e: DuelLost) -> State:
    state = _replace(state, duels=state.duels[1:])
    if e.kind == SWORD:
        if e.cards_owed > 0:
            state = _replace(state, gifts=(*state.gifts, Gift(e.loser, e.winner, e.cards_owed)))
        return state
    # Flute: the rat moves from the winner to the loser; a rat-less winner's rat comes from the supply.
    rats = _lose_rats(state, e.winner, 1)
    return _replace(state, rats=put(rats, e.loser, rats[e.loser] + 1))


def _apply_card_given(state: State, e: CardGiven) -> State:
    assert e.card is not None
    hands = put(state.hands, e.giver, without(state.hands[e.giver], e.card))
    hands = put(hands, e.receiver, _add_cards(hands[e.receiver], (e.card,)))
    gifts: list[Gift] = []
    paid = False
    for gift in state.gifts:
        if not paid and gift.giver == e.giver:
            paid = True
            if gift.count > 1:
                gifts.append(Gift(gift.giver, gift.receiver, gift.count - 1))
        else:
            gifts.append(gift)
    return _replace(state, hands=hands, gifts=tuple(gifts))


def _apply_action_taken(state: State, e: ActionTaken) -> State:
    return _replace(state, actors=state.actors[1:])


def _apply_supplies_taken(state: State, e: SuppliesTaken) -> State:
    i = _SUPPLY_INDEX[e.kind]
    state = _replace(state, supply=put(state.supply, i, state.supply[i] - e.count))
    if e.kind == VP_TOKEN:
        return _replace(state, vp_tokens=put(state.vp_tokens, e.player, state.vp_tokens[e.player] + e.count))
    return _replace(
        state, hands=_hand(state, e.player, _add_cards(state.hands[e.player], [e.kind] * e.count))
    )


def _apply_influence_gained(state: State, e: InfluenceGained) -> State:
    return _gain_influence(state, e.player, e.track, e.amount)


def _apply_hospital_opened(state: State, e: HospitalOpened) -> State:
    return _replace(state, hospital=HospitalTurn(e.player, e.cards))


def _apply_card_discarded_for_rat(state: State, e: CardDiscardedForRat) -> State:
    left = state.hospital.cards - 1 if state.hospital is not None else 0
    state = _replace(
        state,
        hands=_hand(state, e.player, without(state.hands[e.player], e.card)),
        rats=_lose_rats(state, e.player, 1),
        hospital=HospitalTurn(e.player, left) if left > 0 else None,
    )
    return _return_card(state, e.card)


def _apply_hospital_left(state: State, e: HospitalLeft) -> State:
    return _replace(state, hospital=None)


def _apply_tribute_demanded(state: State, e: TributeDemanded) -> State:
    gifts = tuple(Gift(giver, e.receiver, count) for giver, count in zip(e.givers, e.counts, strict=True))
    return _replace(state, gifts=state.gifts + gifts)


def _apply_building_cleared(state: State, e: BuildingCleared) -> State:
    played = state.played
    for player in state.entries[e.building]:
        for card in played[player]:
            state = _return_card(state, card)
        played = put(played, player, ())
    return _replace(state, played=played, resolving=e.building + 1, revealed=False, actors=())


def _apply_round_ended(state: State, e: RoundEnded) -> State:
    """Discs go home, the used buildings are discarded, the start player card moves left."""
    seats = range(state.players)
    return _replace(
        state,
        phase=OVER if e.last else DRAW,
        round=state.round if e.last else state.round + 1,
        start_player=e.next_start_player,
        row=(),
        entries=(),
        entry_order=(),
        premium=(),
        resolving=0,
        round_influence=tuple(0 for _ in seats),
        supply_choice=tuple(-1 for _ in seats),
    )


def _apply_buildings_revealed(state: State, e: BuildingsRevealed) -> State:
    row, deck, reserve, _ = _draw_row(state.building_deck, state.reserve, state.buildings_per_round)
    return _replace(
        state,
        phase=SUPPLIES,
        row=row,
        building_deck=deck,
        reserve=reserve,
        entries=tuple(() for _ in row),
    )


_APPLIERS: dict[type, Callable[[State, Any], State]] = {
    SupplyChosen: _apply_supply_chosen,
    DeckReshuffled: _apply_deck_reshuffled,
    CardsDrawn: _apply_cards_drawn,
    RatsDiscarded: _apply_rats_discarded,
    LooksGranted: _apply_looks_granted,
    NunLooked: _apply_nun_looked,
    EnteringStarted: _apply_entering_started,
    PassPlayed: _apply_pass_played,
    BuildingEntered: _apply_building_entered,
    CardPlayed: _apply_card_played,
    EnteringFinished: _apply_entering_finished,
    ResolutionStarted: _apply_resolution_started,
    BuildingRevealed: _apply_building_revealed,
    DuelLost: _apply_duel_lost,
    CardGiven: _apply_card_given,
    ActionTaken: _apply_action_taken,
    SuppliesTaken: _apply_supplies_taken,
    InfluenceGained: _apply_influence_gained,
    HospitalOpened: _apply_hospital_opened,
    CardDiscardedForRat: _apply_card_discarded_for_rat,
    HospitalLeft: _apply_hospital_left,
    TributeDemanded: _apply_tribute_demanded,
    BuildingCleared: _apply_building_cleared,
    RoundEnded: _apply_round_ended,
    BuildingsRevealed: _apply_buildings_revealed,
}


# -- scoring ----------------------------------------------------------------------------------------


def standing(state: State, track: str) -> tuple[int, ...]:
    """Seats with influence on a track, best first; on equal influence the lower marker
    in the stack (the one that got there first) is ahead."""
    k = _CLASS_INDEX[track]
    values, arrival = state.influence[k], state.arrival[k]
    return tuple(p for _, _, p in sorted((-v, arrival[p], p) for p, v in enumerate(values) if v > 0))


def influence_awards(state: State, track: str) -> list[int]:
    """10 / 5 / 2 VP for the top three on a track (2 players: 10 / 5); 0 influence scores nothing."""
    awards = TWO_PLAYER_INFLUENCE_AWARDS if state.players == 2 else INFLUENCE_AWARDS
    points = [0] * state.players
    for award, player in zip(awards, standing(state, track), strict=False):
        points[player] = award
    return points


def majority_awards(counts: Sequence[int]) -> list[int]:
    """2 VP for holding the most; tied leaders score 1 VP each; nobody scores by holding none."""
    top = max(counts)
    if top == 0:
        return [0] * len(counts)
    leaders = sum(1 for n in counts if n == top)
    return [(2 if leaders == 1 else 1) if n == top else 0 for n in counts]


def gold_awards(counts: Sequence[int], two_players: bool) -> list[int]:
    """Most Gold 6 VP, second 3 VP; a tie for first splits 9 (rounded down) and nobody is second;
    a tie for second splits 3; with 2 players there is no second place."""
    points = [0] * len(counts)
    top = max(counts)
    if top == 0:
        return points
    first = [p for p, n in enumerate(counts) if n == top]
    if len(first) > 1:
        for p in first:
            points[p] = (GOLD_FIRST + GOLD_SECOND) // len(first)
        return points
    points[first[0]] = GOLD_FIRST
    rest = [n for n in counts if 0 < n < top]
    if two_players or not rest:
        return points
    second = [p for p, n in enumerate(counts) if n == max(rest)]
    for p in second:
        points[p] = GOLD_SECOND // len(second)
    return points


def nuns_in_row(state: State) -> int:
    return sum(card_nuns(card) for card in state.nun_row)


def score_breakdowns(state: State) -> list[dict[str, int]]:
    """Each seat's victory points by source."""
    n = state.players
    sheets: list[dict[str, int]] = [{} for _ in range(n)]

    def add(key: str, points: Sequence[int]) -> None:
        for sheet, value in zip(sheets, points, strict=True):
            sheet[key] = value

    for track in CLASSES:
        add(f"influence_{track}", influence_awards(state, track))
    add(
        "hand_majority", majority_awards([sum(1 for c in h if _counts_for_influence(c)) for h in state.hands])
    )
    for kind in (SWORD, FLUTE, PASS):
        add(f"{kind}_majority", majority_awards([h.count(kind) for h in state.hands]))
    if "treasury" in state.buildings_in_game:
        add("gold", gold_awards([h.count(GOLD) for h in state.hands], n == 2))
    else:
        add("gold", [0] * n)
    add("vp_tokens", [tokens * state.options.vp_token_value for tokens in state.vp_tokens])
    return sheets


def table_scores(state: State) -> tuple[int, ...]:
    """The score a table shows for each seat (docs/rules/rattus_cartus.md, "Score"): while the
    game runs, the public part of the final score, the influence awards as the tracks stand plus
    the victory-point tokens (hands and their majorities are secret); the final score once over."""
    if state.phase == OVER:
        return tuple(sum(sheet.values()) for sheet in score_breakdowns(state))
    awards = TWO_PLAYER_INFLUENCE_AWARDS if state.players == 2 else INFLUENCE_AWARDS
    points = [tokens * state.options.vp_token_value for tokens in state.vp_tokens]
    for track in CLASSES:
        for award, player in zip(awards, standing(state, track), strict=False):
            points[player] += award
    return tuple(points)


def outcome_reason(nuns: int, eliminated: Sequence[bool], winners: Sequence[int]) -> str:
    """How the game ended, in a sentence: the plague check and what it left."""
    plague = f"The last round was played and scored; the Nun-row showed {count_text(nuns, 'nun')}"
    if not any(eliminated):
        return f"{plague}, and the plague spared everyone. The most points wins; a tie goes to fewer rats."
    if all(eliminated):
        tail = " (the lowest rat total wins by the optional rule)" if winners else ": nobody wins"
        return f"{plague}, and the plague took every player{tail}."
    return (
        f"{plague}: the plague took every player with more rats than that. The best surviving score "
        "wins; a tie goes to fewer rats."
    )


def outcome(state: State) -> Outcome | None:
    """After the last round: score, then the plague kills everyone with more rats than the
    Nun-row shows nuns; the best surviving score wins, ties to fewer rats, then shared."""
    if state.phase != OVER:
        return None
    nuns = nuns_in_row(state)
    sheets = score_breakdowns(state)
    scores = [sum(sheet.values()) for sheet in sheets]
    eliminated = [rats > nuns for rats in state.rats]
    results = []
    for p, sheet in enumerate(sheets):
        note = (
            f"Eliminated by the plague: {count_text(state.rats[p], 'rat')} against {count_text(nuns, 'nun')}"
            if eliminated[p]
            else ""
        )
        facts = {"rats": state.rats[p], "nuns": nuns}
        results.append(PlayerResult(p, scores[p], sheet, eliminated[p], note, facts))
    survivors = [p for p in range(state.players) if not eliminated[p]]
    if survivors:
        best = max(scores[p] for p in survivors)
        tied = [p for p in survivors if scores[p] == best]
    elif state.options.all_eliminated_lowest_rats_wins:
        tied = list(range(state.players))
    else:
        tied = []  # the plague took everyone: everybody loses
    fewest = min((state.rats[p] for p in tied), default=0)
    winners = tuple(p for p in tied if state.rats[p] == fewest)
    return Outcome(winners, tuple(results), outcome_reason(nuns, eliminated, winners))


# -- hidden information ----------------------------------------------------------------------------


def _revealed(state: State, building: int) -> bool:
    """Whether this round's building number `building` has turned up its cards yet."""
    return state.phase == RESOLVE and (
        building < state.resolving or (building == state.resolving and state.revealed)
    )


def _face_up(state: State, player: int) -> bool:
    """Played cards stay face down until their building resolves."""
    return state.phase == RESOLVE and state.revealed and player in state.entries[state.resolving]


def view(state: State, viewer: int | None) -> View:
    """What `viewer` may see: their own hand and Nun-row looks; everyone's public counts. A
    spectator sees the Nun-row cards every seat has looked at (who looked where is public, so
    the whole table knows every seat knows them).

    Rat totals are public: every gain and loss is a visible value-1 token and everyone
    starts at 10, so a player with perfect memory of the table knows every total."""
    over = state.phase == OVER
    n = state.players
    scores = table_scores(state)
    seats = tuple(
        SeatView(
            player=p,
            score=scores[p],
            hand_size=len(state.hands[p]),
            played=len(state.played[p]),
            vp_tokens=state.vp_tokens[p],
            nun_looked=state.nun_seen[p],
            supply_choice=state.supply_choice[p],
            looks_owed=state.looks_owed[p],
            rats=state.rats[p],
        )
        for p in range(n)
    )
    seen = state.nun_seen[viewer] if viewer is not None else set.intersection(*map(set, state.nun_seen))
    nun_row = tuple(card if over or i in seen else None for i, card in enumerate(state.nun_row))
    tracks = tuple(
        TrackView(
            track,
            state.influence[k],
            tuple(sorted(range(n), key=lambda p: (-state.influence[k][p], state.arrival[k][p], p))),
        )
        for k, track in enumerate(CLASSES)
    )
    return View(
        players=n,
        viewer=viewer,
        round=state.round,
        rounds=state.rounds,
        phase=state.phase,
        start_player=state.start_player,
        active=active_players(state),
        row=state.row,
        entries=state.entries,
        premium=tuple(p if _revealed(state, b) else -1 for b, p in enumerate(state.premium)),
        resolving=state.resolving,
        revealed_cards=tuple(state.played[p] if _face_up(state, p) else () for p in range(n)),
        hand=state.hands[viewer] if viewer is not None else None,
        my_played=state.played[viewer] if viewer is not None else None,
        nun_row=nun_row,
        seats=seats,
        tracks=tracks,
        supply=dict(zip(SUPPLY_KINDS, state.supply, strict=True)),
        deck_size=len(state.deck),
        discard=state.discard,
        building_deck_size=len(state.building_deck),
        reserve_size=len(state.reserve),
        enter_queue=state.enter_queue,
        placing=state.placing,
        duels=state.duels,
        gifts=state.gifts,
        actors=state.actors,
        hospital=state.hospital,
    )


def redact_event(event: Event, viewer: int | None) -> Event:
    """Blank what `viewer` may not see: others' drawn, played, given and looked-at cards,
    deck orders, the Rng counter, and premium holders before their building is revealed."""
    if isinstance(event, DeckReshuffled):
        return msgspec.structs.replace(event, order=(), rng_counter=0)
    if isinstance(event, ResolutionStarted):
        return ResolutionStarted()
    if isinstance(event, CardsDrawn) and viewer != event.player:
        return msgspec.structs.replace(event, cards=())
    if isinstance(event, (NunLooked, CardPlayed)) and viewer != event.player:
        return msgspec.structs.replace(event, card=None)
    if isinstance(event, CardGiven) and viewer not in (event.giver, event.receiver):
        return msgspec.structs.replace(event, card=None)
    return event


def resample_hidden(state: State, viewer: int, rng: Rng) -> State:
    """A state `viewer` cannot tell from this one: the population cards it cannot see (others'
    hands and face-down cards, the deck, unseen Nun-row cards) dealt anew and the building decks
    reshuffled. Rat totals stay: they are public (see `view`)."""
    cursor = rng.cursor()
    others = [p for p in range(state.players) if p != viewer]
    hidden_played = [p for p in others if not _face_up(state, p)]
    unseen = [i for i in range(len(state.nun_row)) if i not in state.nun_seen[viewer]]
    pool: list[str] = [c for p in others for c in state.hands[p] if is_population(c)]
    pool += [c for p in hidden_played for c in state.played[p] if is_population(c)]
    pool += list(state.deck) + [state.nun_row[i] for i in unseen]
    fresh: Iterator[str] = iter(cursor.shuffle(pool))

    def redeal(cards: Sequence[str]) -> tuple[str, ...]:
        return tuple(next(fresh) if is_population(c) else c for c in cards)

    hands = list(state.hands)
    for p in others:
        hands[p] = tuple(sorted(redeal(state.hands[p])))
    played = list(state.played)
    for p in hidden_played:
        played[p] = redeal(state.played[p])
    deck = redeal(state.deck)
    nun_row = list(state.nun_row)
    for i in unseen:
        nun_row[i] = next(fresh)
    buildings = cursor.shuffle(state.building_deck + state.reserve)
    split = len(state.building_deck)
    return _replace(
        state,
        hands=tuple(hands),
        played=tuple(played),
        deck=deck,
        nun_row=tuple(nun_row),
        building_deck=buildings[:split],
        reserve=buildings[split:],
        rng=Rng.from_seed(cursor.next_u64()).at(state.rng.counter),
    )


# -- the game ---------------------------------------------------------------------------------------


# The rulebook's ways to play, as option sets the conformance suite plays at every player count.
VARIANTS: dict[str, Options] = {
    "recommended_buildings": Options(),
    "one_random_building_per_class": Options(building_selection="random_buildings"),
    "five_random_cards_per_class": Options(building_selection="random_cards"),
    "explicit_other_six_buildings": Options(
        building_selection="explicit",
        buildings=("brewery", "office", "hospital", "guard_tower", "pipers_hut", "treasury"),
        allow_guard_tower_with_two=True,
    ),
    "supplies_in_turn_order": Options(simultaneous_supplies=False),
    "lowest_rats_win_if_all_die": Options(all_eliminated_lowest_rats_wins=True, vp_token_value=3),
}


# Every card id a state may hold: population cards (class and 0-9 nuns) and the special cards.
_KNOWN_CARDS = frozenset(
    [population_card(klass, nuns) for klass in CLASSES for nuns in range(10)] + list(SUPPLY_KINDS)
)


def check_state(state: State) -> None:
    """Raise ValueError when a decoded state does not fit the game (a forged or corrupted one)."""
    n = state.players
    if n not in PLAYER_COUNT_RULES:
        raise ValueError(f"{n} players")
    seats = range(n)
    per_seat = {
        "hands": state.hands,
        "played": state.played,
        "nun_seen": state.nun_seen,
        "vp_tokens": state.vp_tokens,
        "rats": state.rats,
        "supply_choice": state.supply_choice,
        "looks_owed": state.looks_owed,
    }
    for name, values in per_seat.items():
        if len(values) != n:
            raise ValueError(f"{name} has {len(values)} entries for {n} seats")
    for name, table in (("influence", state.influence), ("arrival", state.arrival)):
        if len(table) != len(CLASSES) or any(len(row) != n for row in table):
            raise ValueError(f"{name} is not one row per class of one entry per seat")
    if len(state.supply) != len(SUPPLY_KINDS) or len(state.nun_row) != NUN_ROW_SIZE:
        raise ValueError("supply or Nun-row of the wrong size")
    if state.round_influence and len(state.round_influence) != n:
        raise ValueError("round_influence has the wrong size")
    if len(state.entries) != len(state.row) or len(state.premium) not in (0, len(state.row)):
        raise ValueError("entries or premium do not match the building row")
    if not (0 <= state.resolving <= len(state.row)) or state.phase not in (
        DRAW,
        SUPPLIES,
        ENTER,
        RESOLVE,
        OVER,
    ):
        raise ValueError("resolving index or phase out of range")
    mentioned = [state.start_player, *state.enter_queue, *state.entry_order, *state.actors]
    mentioned += [p for entry in state.entries for p in entry]
    mentioned += [p for p in (state.placing, *state.premium) if p != -1]
    mentioned += [p for duel in state.duels for p in (duel.winner, *duel.candidates)]
    mentioned += [p for gift in state.gifts for p in (gift.giver, gift.receiver)]
    mentioned += [state.hospital.player] if state.hospital is not None else []
    if any(p not in seats for p in mentioned):
        raise ValueError("a seat number out of range")
    if any(not 0 <= i < NUN_ROW_SIZE for seen in state.nun_seen for i in seen):
        raise ValueError("a Nun-row position out of range")
    if any(not 0 <= c < len(state.row) for c in state.supply_choice if c != -1):
        raise ValueError("a supply choice out of range")
    cards = {*state.deck, *state.discard, *state.nun_row}
    cards.update(*state.hands, *state.played)
    if not cards <= _KNOWN_CARDS:
        raise ValueError("an unknown card")
    if any(v < 0 for v in (*state.supply, *state.vp_tokens, *state.rats, *state.looks_owed)):
        raise ValueError("a negative count")


def make_game(catalog: Catalog) -> GameSpec[State]:
    """Rattus Cartus played with this card catalog; its rules version digests the code and this data."""

    def setup_with_catalog(players: int, seed: int, options: Options) -> State:
        return setup(catalog, players, seed, options)

    return GameSpec(
        game_id="rattus_cartus",
        title="Rattus Cartus",
        rules_version=rules_version("2.0", catalog, package=__package__),
        player_counts=tuple(PLAYER_COUNT_RULES),
        options_type=Options,
        state_type=State,
        action_type=Action,
        event_type=Event,
        view_type=View,
        setup=setup_with_catalog,
        active_players=active_players,
        legal_actions=legal_actions,
        validate=validate,
        apply=apply,
        view=view,
        outcome=outcome,
        redact_event=redact_event,
        probe_actions=probe_actions,
        resample_hidden=resample_hidden,
        variants=VARIANTS,
        check_state=check_state,
        data=catalog,
        presentation=PRESENTATION,
        undoable=UNDO,
    )


GAME = make_game(default_catalog())
