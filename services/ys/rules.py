"""Ys rules: setup, whose decision it is, legal actions, validate and apply.

A turn (4 per game) flows as the rulebook's phases [SEED p.6-8]:
1. `TurnStarted`: a character card revealed per neighbourhood, a ship in each port, the market
   ship's gems on the market rows.
2. Every seat owes a secret `bid` (all at once); `BidsRevealed`; order cards are chosen in bid
   order (`choose_order_card`, the last one automatic).
3. The placement-start card window (`WindowOpened`), then 4 (Ys Express: 3) placement rounds in
   order-card order: per round a seat places one broker face up and one face down (2 players:
   plus one neutral broker), with the Queen before and Mercenary/Magician/Herald after;
   `LeftoversShown`.
4. The counting-start card window, then each neighbourhood (gems by rank, black gem, gold,
   character card) and the market (rows, columns, biggest contributor), then the counting-end
   card window.
5. King's Favor only: everyone secretly sends a broker to the throne. `TurnEnded`.

`validate` turns a decision into events and keeps emitting the automatic ones (`_advance`) until
someone owes a decision again; `apply` is bookkeeping only. Card effects are data (catalog
`effect`, `amount`, `window`) read by the primitives in `services.ys.effects`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import msgspec

from services.kernel import (
    EventLog,
    GameSpec,
    Rejection,
    Rng,
    SetupError,
    illegal,
    put,
    rules_version,
    without,
)
from services.ys import effects, scoring, views
from services.ys.catalog import Catalog, default_catalog
from services.ys.model import (
    AFTER_PLACING,
    AREAS,
    BEFORE_PLACING,
    BID,
    BLACK,
    COLOURS,
    COUNT,
    COUNTING_END,
    COUNTING_START,
    GEM_KINDS,
    IMMEDIATE,
    ORDER,
    OVER,
    PLACE,
    PLACEMENT_START,
    THRONE,
    TURNS,
    WHITE,
    WINDOW,
    Action,
    Bid,
    BidPlaced,
    BidsRevealed,
    Broker,
    BrokerPeeked,
    BrokerPlaced,
    BrokersReturned,
    CharacterDiscarded,
    CharacterPlayed,
    CharacterWon,
    ChooseOrderCard,
    ColumnsRanked,
    CountingStarted,
    Event,
    FrontReplaced,
    GemGrant,
    GemsTaken,
    LeftoversShown,
    MarketCounted,
    MoveQuotation,
    NeighbourhoodCounted,
    NeutralPlaced,
    NoContributor,
    Options,
    OrderCardChosen,
    Pass,
    Peek,
    PlaceBroker,
    PlacementFinished,
    PlacementRoundStarted,
    PlaceNeutral,
    PlayCharacter,
    QuotationMoved,
    RankColumns,
    ReplaceFront,
    SendToThrone,
    State,
    TakeGems,
    ThroneChosen,
    ThroneFilled,
    ThroneOpened,
    TurnEnded,
    TurnStarted,
    View,
    WindowOpened,
    WindowPassed,
    is_market,
    place_column,
    place_neighbourhood,
    place_row,
)
from services.ys.present import make_presentation
from services.ys.tables import (
    BID_SIZE,
    BROKERS,
    CARD_LIMIT,
    COLUMN_MOVES,
    EXPRESS_BROKERS,
    KINGS_FAVOR_TWOS,
    MARKET_GOLD,
    NEUTRAL_BROKERS,
    YELLOW_PER_PILE,
    add_gem,
    add_value,
    clamp_price,
    contains,
    gain_gold,
    gem_order,
    neutral_party,
    open_places,
    place_open,
    rank_parties,
    tie_key,
)
from services.ys.undo import UNDO

PLAYER_COUNTS = (2, 3, 4)
_COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}

# What a seat owes, named for rejection messages.
_PROMPTS = {
    "bid": "bid two brokers",
    "order": "choose an order card",
    "window": "play a character card or pass",
    "place": "place your brokers",
    "replace": "put a broker from behind your screen in front of it (Conjurer)",
    "after": "play a character card, look with the Spy, or pass",
    "gems": "take the gems you won",
    "columns": "rank the tied market columns",
    "contributor": "move a quotation as the biggest market contributor",
    "throne": "send a broker to the throne",
}
_ACCEPTS: dict[str, tuple[type, ...]] = {
    "bid": (Bid,),
    "order": (ChooseOrderCard,),
    "window": (PlayCharacter, Peek, Pass),
    "place": (PlaceBroker, PlaceNeutral, PlayCharacter, Peek),
    "replace": (ReplaceFront,),
    "after": (PlayCharacter, Peek, Pass),
    "gems": (TakeGems,),
    "columns": (RankColumns,),
    "contributor": (MoveQuotation,),
    "throne": (SendToThrone,),
}


def bit(seat: int) -> int:
    return 1 << seat


# The validate-call log every handler writes to (see services.kernel.log).
_Log = EventLog[State, Event]


class Rules:
    """The rules of Ys played with one data file."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.ships = {s.id: s for s in catalog.ships}
        self.cards = {c.id: c for c in catalog.characters}
        self._appliers: dict[type, Callable[[State, Any], State]] = {
            TurnStarted: self._apply_turn_started,
            BidPlaced: _apply_bid_placed,
            BidsRevealed: _apply_bids_revealed,
            OrderCardChosen: _apply_order_card_chosen,
            WindowOpened: _apply_window_opened,
            WindowPassed: _apply_window_passed,
            PlacementRoundStarted: _apply_round_started,
            BrokerPlaced: _apply_broker_placed,
            NeutralPlaced: _apply_neutral_placed,
            FrontReplaced: _apply_front_replaced,
            PlacementFinished: _apply_placement_finished,
            CharacterPlayed: self._apply_character_played,
            BrokerPeeked: _apply_broker_peeked,
            LeftoversShown: _apply_leftovers_shown,
            CountingStarted: _apply_counting_started,
            NeighbourhoodCounted: self._apply_neighbourhood_counted,
            GemsTaken: _apply_gems_taken,
            CharacterWon: self._apply_character_won,
            CharacterDiscarded: _apply_character_discarded,
            BrokersReturned: _apply_brokers_returned,
            MarketCounted: _apply_market_counted,
            ColumnsRanked: _apply_columns_ranked,
            QuotationMoved: _apply_quotation_moved,
            NoContributor: _apply_no_contributor,
            ThroneOpened: _apply_throne_opened,
            ThroneChosen: _apply_throne_chosen,
            ThroneFilled: _apply_throne_filled,
            TurnEnded: _apply_turn_ended,
        }
        self._handlers: dict[type, Callable[[_Log, int, Any], Rejection | None]] = {
            Bid: self._on_bid,
            ChooseOrderCard: self._on_choose_order,
            PlaceBroker: self._on_place_broker,
            PlaceNeutral: self._on_place_neutral,
            ReplaceFront: self._on_replace_front,
            PlayCharacter: self._on_play_character,
            Peek: self._on_peek,
            Pass: self._on_pass,
            TakeGems: self._on_take_gems,
            RankColumns: self._on_rank_columns,
            MoveQuotation: self._on_move_quotation,
            SendToThrone: self._on_send_to_throne,
        }

    # -- setup ---------------------------------------------------------------------------------

    def setup(self, players: int, seed: int, options: Options) -> State:
        if players not in PLAYER_COUNTS:
            raise SetupError(f"Ys is played by 2, 3 or 4 players, not {players}")
        if players == 2 and (options.express or options.kings_favor) and not options.variants_with_two:
            raise SetupError(
                "Ys Express and the King's Favor are 3-4 player variants; "
                "set variants_with_two to play them with 2"
            )
        neighbourhoods = 4 if players == 4 else 3 if players == 2 else options.three_player_neighbourhoods
        parties = players + (1 if players == 2 else 0)
        cursor = Rng.from_seed(seed).cursor()
        ships = [s.id for s in self.catalog.ships if not (options.express and s.has_white)]
        deck = cursor.shuffle(ships)
        yellow = cursor.shuffle(self.catalog.yellow)
        piles = tuple(
            tuple(yellow[k * YELLOW_PER_PILE : (k + 1) * YELLOW_PER_PILE]) for k in range(neighbourhoods)
        )
        order_cards = cursor.shuffle(list(range(1, players + 1)))
        brokers = EXPRESS_BROKERS if options.express else BROKERS
        state = State(
            players=players,
            parties=parties,
            rng=cursor.rng,
            options=options,
            neighbourhoods=neighbourhoods,
            rounds=3 if options.express else 4,
            scores=(0,) * parties,
            vp_market=(0,) * parties,
            vp_commercial=(0,) * parties,
            vp_characters=(0,) * parties,
            gems=((0,) * len(GEM_KINDS),) * parties,
            screens=(brokers,) * players,
            front=((),) * players,
            bids=((),) * players,
            twos=(KINGS_FAVOR_TWOS if options.kings_favor else 0,) * players,
            throne=((),) * players,
            throne_pick=(-1,) * players,
            neutral_pool=(NEUTRAL_BROKERS if players == 2 else (),) * players,
            order_cards=tuple(order_cards),
            previous_order=tuple(order_cards),
            ship_deck=tuple(deck),
            ports=("",) * neighbourhoods,
            piles=piles,
            unused=tuple(yellow[neighbourhoods * YELLOW_PER_PILE :]),
            blue_left=len(self.catalog.blue),
            offered=("",) * neighbourhoods,
            hands=((),) * players,
            new_cards=((),) * players,
            played=(0,) * players,
            all_face_down=(False,) * players,
            from_front=(False,) * players,
            peeks=(0,) * players,
        )
        return self.apply(state, self._turn_start(state, 1))

    def _turn_start(self, state: State, turn: int) -> TurnStarted:
        """Phase 1 [SEED p.6]: characters (blue cards in turn 4), ports in neighbourhood order,
        then the market ship: with 4 players white goes on row 1 and the two others on rows 2
        and 3 (no white: the large gem on row 1, the small ones on rows 2, 3); with 2-3 players
        only the small gems, on rows 2 and 3."""
        n = state.neighbourhoods
        if turn <= YELLOW_PER_PILE:
            characters = tuple(pile[0] for pile in state.piles)
        else:
            blue = self.catalog.blue
            start = len(blue) - state.blue_left
            characters = tuple(blue[start : start + n])
        ports = state.ship_deck[:n]
        market = state.ship_deck[n]
        ship = self.ships[market]
        gems = ["", "", "", ""]
        small = list(ship.small)
        if state.players == 4:
            if WHITE in small:
                small.remove(WHITE)
                gems[1], gems[2], gems[3] = WHITE, ship.large, small[0]
            else:
                gems[1], gems[2], gems[3] = ship.large, small[0], small[1]
        else:
            gems[2], gems[3] = small[0], small[1]
        return TurnStarted(turn, characters, ports, market, tuple(gems))

    # -- whose decision ----------------------------------------------------------------------

    def active_players(self, state: State) -> tuple[int, ...]:
        phase = state.phase
        if phase == BID:
            return tuple(p for p in range(state.players) if not state.bids[p])
        if phase == THRONE:
            return tuple(p for p in range(state.players) if state.throne_pick[p] < 0)
        if phase == COUNT:
            seat = self._count_decider(state)
            return (seat,) if seat >= 0 else ()
        if phase == OVER or (phase == ORDER and len(state.queue) == 1):  # the last card is automatic
            return ()
        if phase == PLACE and state.queue and not self._owes_in_place(state):
            return ()
        if phase == WINDOW and state.queue and not self._owes_in_window(state):
            return ()
        return state.queue[:1]

    def _owes_in_window(self, state: State) -> bool:
        """The seat at the head of a card window still has a card it can play (or Spy looks)."""
        seat = state.queue[0]
        if state.peeks[seat] > 0 and state.window == PLACEMENT_START:
            return True
        return any(self._card_actions(state, seat, c) for c in self._window_cards(state, seat, state.window))

    def _count_decider(self, state: State) -> int:
        if state.grants:
            head = state.grants[0]
            return head.party if head.party < state.players and _grant_is_choice(state, head) else -1
        if state.counting == state.neighbourhoods:
            if state.stage == 1 and state.deciding >= 0:
                return state.deciding
            if state.stage == 2 and 0 <= state.contributor < state.players:
                return state.contributor
        return -1

    def _owes_in_place(self, state: State) -> bool:
        """The seat on turn still has something to do this round (else it is finished)."""
        if state.replacing or not self._complete(state):
            return True
        seat = state.queue[0]
        return state.peeks[seat] > 0 or any(
            self._card_actions(state, seat, card) for card in self._window_cards(state, seat, AFTER_PLACING)
        )

    def _complete(self, state: State) -> bool:
        return state.placed_up + state.placed_down == 2 and (state.neutral_placed or state.players != 2)

    def _decision(self, state: State, player: int) -> str | None:
        if player not in self.active_players(state):
            return None
        phase = state.phase
        if phase == BID:
            return "bid"
        if phase == ORDER:
            return "order"
        if phase == WINDOW:
            return "window"
        if phase == PLACE:
            if state.replacing:
                return "replace"
            return "after" if self._complete(state) else "place"
        if phase == THRONE:
            return "throne"
        if state.grants:
            return "gems"
        return "columns" if state.stage == 1 else "contributor"

    # -- legal actions -------------------------------------------------------------------------

    def legal_actions(self, state: State, player: int) -> list[Action]:
        decision = self._decision(state, player)
        if decision is None:
            return []
        if decision == "bid":
            values = sorted(set(state.screens[player]))
            return [
                Bid((a, b))
                for i, a in enumerate(values)
                for b in values[i:]
                if a != b or state.screens[player].count(a) >= 2
            ]
        if decision == "order":
            return [ChooseOrderCard(c) for c in self._free_order_cards(state)]
        if decision == "window":
            return [*self._card_options(state, player, state.window), *self._peeks(state, player), Pass()]
        if decision == "replace":
            return [ReplaceFront(v) for v in sorted(set(state.screens[player]))]
        if decision == "place":
            return self._placements(state, player)
        if decision == "after":
            return [*self._card_options(state, player, AFTER_PLACING), *self._peeks(state, player), Pass()]
        if decision == "gems":
            return self._grant_choices(state, state.grants[0])
        if decision == "columns":
            return [RankColumns(order) for order in self._column_orders(state)]
        if decision == "contributor":
            return [MoveQuotation(c, s) for c in COLOURS for s in (1, -1)]
        return [SendToThrone(v) for v in sorted(set(state.front[player]))]

    def _free_order_cards(self, state: State) -> list[int]:
        taken = set(state.order_cards)
        return [c for c in range(1, state.players + 1) if c not in taken]

    def _faces(self, state: State, player: int) -> list[bool]:
        """One broker face up and one face down per round; the Bishop allows both face down."""
        faces = []
        if state.placed_up == 0:
            faces.append(True)
        if state.placed_down == 0 or (
            state.all_face_down[player] and state.placed_up + state.placed_down < 2
        ):
            faces.append(False)
        return faces

    def _placements(self, state: State, player: int) -> list[Action]:
        actions: list[Action] = []
        places = open_places(state)
        if state.placed_up + state.placed_down < 2:
            faces = self._faces(state, player)
            sources = [(v, False) for v in sorted(set(state.screens[player]))]
            if state.from_front[player] and state.screens[player]:
                sources += [(v, True) for v in sorted(set(state.front[player]))]
            actions += [
                PlaceBroker(v, place, face, front)
                for v, front in sources
                for place in places
                for face in faces
            ]
        if state.players == 2 and not state.neutral_placed:
            if state.options.neutral_chosen:
                values = sorted(set(state.neutral_pool[player]))
                actions += [PlaceNeutral(place, v) for place in places for v in values]
            else:
                actions += [PlaceNeutral(place) for place in places]
        if state.placed_up + state.placed_down == 0 and not state.neutral_placed:
            actions += self._card_options(state, player, BEFORE_PLACING)
        actions += self._peeks(state, player)
        return actions

    def _window_cards(self, state: State, player: int, window: str) -> list[str]:
        if state.played[player] >= CARD_LIMIT:
            return []
        return [c for c in state.hands[player] if self.cards[c].window == window]

    def _card_options(self, state: State, player: int, window: str) -> list[Action]:
        actions: list[Action] = []
        for card in sorted(set(self._window_cards(state, player, window))):
            actions += self._card_actions(state, player, card)
        return actions

    def _card_actions(self, state: State, player: int, card: str) -> list[PlayCharacter]:
        entry = self.cards[card]
        return effects.options(state, player, card, entry.effect, entry.amount)

    def _peeks(self, state: State, player: int) -> list[Action]:
        if state.peeks[player] <= 0 or state.phase not in (PLACE, WINDOW):
            return []
        if state.phase == WINDOW and state.window != PLACEMENT_START:
            return []
        me = bit(player)
        out: list[Action] = [
            Peek(broker=i) for i, b in enumerate(state.board) if not b.face_up and not b.known & me
        ]
        for seat, throne in enumerate(state.throne):
            out += [Peek(throne_seat=seat, throne_slot=k) for k, b in enumerate(throne) if not b.known & me]
        return out

    def _grant_choices(self, state: State, grant: GemGrant) -> list[Action]:
        """The ways to take a grant: which port gems (a multiset), and a colour for a white one."""
        if grant.source == "port":
            pool = state.port_pool
            picks = sorted(_combinations(pool, min(grant.count, len(pool))))
        else:
            picks = [(grant.gem,)]
        out: list[Action] = []
        for pick in picks:
            if WHITE in pick:
                out += [TakeGems(pick, c) for c in COLOURS]
            else:
                out.append(TakeGems(pick))
        return out

    # -- probes (conformance: what legal_actions leaves out must be rejected) -----------------

    def probe_actions(self, state: State, player: int) -> list[Action]:
        probes: list[Action] = [
            Bid((4, 4, 4)),
            Bid((2, 2)),
            Bid((0, 4)),
            ChooseOrderCard(1),
            ChooseOrderCard(5),
            PlaceBroker(2, "m0.blue", True),
            PlaceBroker(2, "m1.red", False),
            PlaceBroker(0, "n4.palace", True),
            PlaceBroker(4, "n1.port", False, True),
            PlaceBroker(3, "nowhere", True),
            PlaceNeutral("m1.green"),
            PlaceNeutral("n1.port"),
            PlaceNeutral("n1.port", 4),
            ReplaceFront(2),
            Peek(broker=0),
            Peek(broker=99),
            Peek(throne_seat=0, throne_slot=0),
            Pass(),
            TakeGems(("blue", "blue")),
            TakeGems((WHITE,), BLACK),
            TakeGems(("red",)),
            RankColumns(COLOURS),
            RankColumns(tuple(reversed(COLOURS))),
            MoveQuotation("black", 1),
            MoveQuotation("blue", 0),
            SendToThrone(2),
            SendToThrone(4),
        ]
        probes += [PlayCharacter(card) for card in self.cards]
        probes += [
            PlayCharacter("queen", place="m2.blue"),
            PlayCharacter("queen", place="n1.port"),
            PlayCharacter("captain", ports=(1, 2)),
            PlayCharacter("captain", ports=(1, 1)),
            PlayCharacter("jeweler", colours=("red",)),
            PlayCharacter("jeweler", colours=(BLACK,)),
            PlayCharacter("banker", colours=("red", "red")),
            PlayCharacter("alchemist", colours=("blue", "green")),
            PlayCharacter("mercenary", brokers=(0,)),
            PlayCharacter("magician", brokers=(0, 1)),
            PlayCharacter("herald", brokers=(0,), place="m3.red"),
        ]
        return probes

    # -- validate --------------------------------------------------------------------------------

    def validate(self, state: State, player: int, action: Action) -> list[Event] | Rejection:
        """The events `player`'s action causes, up to the next decision anybody owes; or why not."""
        decision = self._decision(state, player)
        assert decision is not None, "GameSpec.decide only asks active seats"
        if not isinstance(action, _ACCEPTS[decision]):
            return illegal(f"Not now: you must {_PROMPTS[decision]}.")
        log = EventLog(self.apply, state)
        rejection = self._handlers[type(action)](log, player, action)
        if rejection is not None:
            return rejection
        self._advance(log)
        return log.events

    def _on_bid(self, log: _Log, player: int, action: Bid) -> Rejection | None:
        """Exactly two brokers from behind the screen [SEED phase 2]."""
        if len(action.values) != BID_SIZE:
            return illegal("Bid exactly two brokers.")
        if list(action.values) != sorted(action.values):
            return illegal("List the two values of your bid lowest first.")
        if not contains(log.state.screens[player], action.values):
            return illegal("You do not have those brokers behind your screen.")
        log.emit(BidPlaced(player, action.values))
        return None

    def _on_choose_order(self, log: _Log, player: int, action: ChooseOrderCard) -> Rejection | None:
        if action.card not in self._free_order_cards(log.state):
            return illegal(f"Order card {action.card} is not available.")
        log.emit(OrderCardChosen(player, action.card))
        return None

    def _on_place_broker(self, log: _Log, player: int, action: PlaceBroker) -> Rejection | None:
        state = log.state
        if state.placed_up + state.placed_down >= 2:
            return illegal("You have placed your two brokers this round.")
        if action.face_up not in self._faces(state, player):
            other = "face down" if action.face_up else "face up"
            return illegal(f"Your other broker this round must go {other}.")
        if action.from_front:
            if not state.from_front[player]:
                return illegal("Only the Conjurer lets you place a broker from in front of your screen.")
            if action.value not in state.front[player] or not state.screens[player]:
                return illegal("You have no such broker in front of your screen to place.")
        elif action.value not in state.screens[player]:
            return illegal(f"You have no broker of value {action.value} behind your screen.")
        if not place_open(state, action.place):
            return illegal(f"You cannot place a broker on {action.place!r} now.")
        gold = MARKET_GOLD if is_market(action.place) else 0
        hidden = not state.options.see_own_face_down and not action.from_front
        log.emit(
            BrokerPlaced(player, action.place, action.face_up, action.value, action.from_front, gold, hidden)
        )
        return None

    def _on_place_neutral(self, log: _Log, player: int, action: PlaceNeutral) -> Rejection | None:
        state = log.state
        if state.players != 2 or state.neutral_placed:
            return illegal("You have no neutral broker to place this round.")
        if not place_open(state, action.place):
            return illegal(f"You cannot place a broker on {action.place!r} now.")
        gold = MARKET_GOLD if is_market(action.place) else 0
        if state.options.neutral_chosen:
            if action.value not in state.neutral_pool[player]:
                return illegal("Choose the value of one of your neutral brokers.")
            log.emit(NeutralPlaced(player, action.place, action.value, state.rng.counter, gold, True))
            return None
        if action.value != -1:
            return illegal("Neutral brokers are drawn unseen: leave their value out.")
        value = log.cursor.choice(state.neutral_pool[player])
        log.emit(NeutralPlaced(player, action.place, value, log.cursor.rng.counter, gold))
        return None

    def _on_replace_front(self, log: _Log, player: int, action: ReplaceFront) -> Rejection | None:
        if action.value not in log.state.screens[player]:
            return illegal(f"You have no broker of value {action.value} behind your screen.")
        log.emit(FrontReplaced(player, action.value))
        return None

    def _on_play_character(self, log: _Log, player: int, action: PlayCharacter) -> Rejection | None:
        state = log.state
        if action.card not in state.hands[player]:
            if action.card in state.new_cards[player]:
                return illegal("A character card can be played from the turn after you won it.")
            return illegal(f"You hold no {action.card!r} card.")
        entry = self.cards[action.card]
        window = (
            state.window
            if state.phase == WINDOW
            else AFTER_PLACING
            if self._complete(state)
            else BEFORE_PLACING
        )
        if entry.window != window:
            return illegal(f"The {entry.name} is not played now.")
        if window == BEFORE_PLACING and (state.placed_up + state.placed_down > 0 or state.neutral_placed):
            return illegal(f"The {entry.name} is played just before one of your placement rounds.")
        if state.played[player] >= CARD_LIMIT:
            return illegal("You have already played two character cards this turn.")
        if action not in self._card_actions(state, player, action.card):
            return illegal(f"The {entry.name} cannot be played like that: {effects.HELP[entry.effect]}.")
        log.emit(
            CharacterPlayed(player, action.card, action.place, action.brokers, action.colours, action.ports)
        )
        return None

    def _on_peek(self, log: _Log, player: int, action: Peek) -> Rejection | None:
        if action not in self._peeks(log.state, player):
            return illegal("You cannot look at that broker (Spy: a face-down broker you have not seen).")
        state = log.state
        if action.broker >= 0:
            value = state.board[action.broker].value
        else:
            value = state.throne[action.throne_seat][action.throne_slot].value
        log.emit(BrokerPeeked(player, action.broker, action.throne_seat, action.throne_slot, value))
        return None

    def _on_pass(self, log: _Log, player: int, action: Pass) -> Rejection | None:
        if log.state.phase == WINDOW:
            log.emit(WindowPassed(player))
        else:
            log.emit(PlacementFinished(player))
        return None

    def _on_take_gems(self, log: _Log, player: int, action: TakeGems) -> Rejection | None:
        grant = log.state.grants[0]
        if action not in self._grant_choices(log.state, grant):
            return illegal(
                "Take gems that are on offer to you; a white gem becomes blue, green, yellow or red."
            )
        log.emit(GemsTaken(player, grant.source, action.gems, action.white_as))
        return None

    def _on_rank_columns(self, log: _Log, player: int, action: RankColumns) -> Rejection | None:
        if action.order not in self._column_orders(log.state):
            return illegal("Only columns tied on value and number of brokers may be ordered freely.")
        log.emit(self._columns_ranked(log.state, action.order, player))
        return None

    def _on_move_quotation(self, log: _Log, player: int, action: MoveQuotation) -> Rejection | None:
        if action.colour not in COLOURS or action.step not in (1, -1):
            return illegal("Move the quotation of blue, green, yellow or red one step up (1) or down (-1).")
        c = _COLOUR_INDEX[action.colour]
        moved = clamp_price(log.state, log.state.prices[c] + action.step) - log.state.prices[c]
        log.emit(QuotationMoved(player, action.colour, action.step, moved))
        return None

    def _on_send_to_throne(self, log: _Log, player: int, action: SendToThrone) -> Rejection | None:
        if action.value not in log.state.front[player]:
            return illegal("Send one of the brokers in front of your screen to the throne.")
        log.emit(ThroneChosen(player, action.value))
        return None

    # -- the automatic flow -------------------------------------------------------------------------

    def _advance(self, log: _Log) -> None:
        """Play out everything automatic until somebody owes a decision or the game is over."""
        while log.state.phase != OVER and not self.active_players(log.state):
            self._step(log)

    def _step(self, log: _Log) -> None:
        state = log.state
        phase = state.phase
        if phase == BID:
            log.emit(_bids_revealed(state))
        elif phase == ORDER:
            if len(state.queue) == 1:
                log.emit(OrderCardChosen(state.queue[0], self._free_order_cards(state)[0]))
            else:
                log.emit(self._window(state, PLACEMENT_START))
        elif phase == WINDOW:
            if state.queue:
                log.emit(WindowPassed(state.queue[0]))  # nothing left to play
            elif state.window == PLACEMENT_START:
                log.emit(PlacementRoundStarted(1, _play_order(state)))
            elif state.window == COUNTING_START:
                log.emit(CountingStarted())
            elif state.options.kings_favor:
                log.emit(ThroneOpened())
            else:
                log.emit(TurnEnded(state.turn, state.turn == TURNS))
                self._next_turn(log)
        elif phase == PLACE:
            if state.queue:
                log.emit(PlacementFinished(state.queue[0]))
            elif state.round < state.rounds:
                log.emit(PlacementRoundStarted(state.round + 1, _play_order(state)))
            else:
                log.emit(LeftoversShown(state.screens))
                log.emit(self._window(log.state, COUNTING_START))
        elif phase == COUNT:
            self._count_step(log)
        elif phase == THRONE:
            log.emit(ThroneFilled(state.turn < TURNS and state.twos[0] > 0))
            log.emit(TurnEnded(state.turn, state.turn == TURNS))
            self._next_turn(log)

    def _next_turn(self, log: _Log) -> None:
        if log.state.phase != OVER:
            log.emit(self._turn_start(log.state, log.state.turn + 1))

    def _window(self, state: State, window: str) -> WindowOpened:
        seats = tuple(
            p
            for p in _play_order(state)
            if any(self._card_actions(state, p, c) for c in self._window_cards(state, p, window))
        )
        return WindowOpened(window, seats)

    def _count_step(self, log: _Log) -> None:
        state = log.state
        if state.grants:
            head = state.grants[0]
            if head.party == neutral_party(state):
                gems, white_as = self._neutral_pick(state, head)
                log.emit(GemsTaken(head.party, head.source, gems, white_as))
            else:
                choice = self._grant_choices(state, head)[0]
                assert isinstance(choice, TakeGems)
                log.emit(GemsTaken(head.party, head.source, choice.gems, choice.white_as))
            return
        if state.counting < state.neighbourhoods:
            k = state.counting + 1
            if state.stage == 0:
                log.emit(self._count_neighbourhood(state, k))
            elif state.stage == 1:
                log.emit(self._award_character(state, k))
            else:
                log.emit(BrokersReturned(f"n{k}"))
            return
        if state.stage == 0:
            log.emit(self._count_market(state))
        elif state.stage == 1:
            orders = self._column_orders(state)
            log.emit(self._columns_ranked(state, orders[0], -1))
        elif state.stage == 2:
            log.emit(NoContributor(state.contributor))
        else:
            log.emit(BrokersReturned("market"))
            log.emit(self._window(log.state, COUNTING_END))

    # -- counting -----------------------------------------------------------------------------------

    def _count_neighbourhood(self, state: State, k: int) -> NeighbourhoodCounted:
        """Reveal, rank the parties by their total over the three areas (a 0 broker is
        presence), and find the port, commercial and palace majorities [SEED p.7-8]."""
        revealed: list[tuple[int, int]] = []
        totals: dict[int, int] = {}
        areas: dict[str, dict[int, int]] = {a: {} for a in AREAS}
        for i, b in enumerate(state.board):
            if place_neighbourhood(b.place) != k:
                continue
            if not b.face_up:
                revealed.append((i, b.value))
            value = 5 if b.mercenary else b.value
            totals[b.owner] = totals.get(b.owner, 0) + value
            area = areas[b.place.partition(".")[2]]
            area[b.owner] = area.get(b.owner, 0) + value
        ranking = tuple(rank_parties(state, totals))
        port, commercial, palace = ((rank_parties(state, areas[a]) or [-1])[0] for a in AREAS)
        gold = state.commercial_vp if commercial >= 0 else 0
        return NeighbourhoodCounted(k, tuple(revealed), ranking, port, commercial, palace, gold)

    def _award_character(self, state: State, k: int) -> Event:
        card = state.offered[k - 1]
        winner = state.last_palace
        if winner < 0 or not card:
            return CharacterDiscarded(k, card)
        entry = self.cards[card]
        gold = entry.amount if entry.effect == "gain_vp" else 0
        neutral_gem = ""
        if winner == neutral_party(state) and entry.effect != "gain_vp":
            neutral_gem = COLOURS[gem_order(state.prices)[0]]
        return CharacterWon(k, winner, card, gold, neutral_gem)

    def _neutral_pick(self, state: State, grant: GemGrant) -> tuple[tuple[str, ...], str]:
        """The neutral player takes the gems quoted highest (white: the top colour) [FACTS 10, decided]."""
        order = gem_order(state.prices)
        rank = {COLOURS[c]: i for i, c in enumerate(order)}
        rank[WHITE] = -1
        pool = state.port_pool if grant.source == "port" else (grant.gem,)
        gems = tuple(sorted(sorted(pool, key=lambda g: rank[g])[: grant.count]))
        return gems, (COLOURS[order[0]] if WHITE in gems else "")

    def _market_brokers(self, state: State) -> list[tuple[int, Broker]]:
        return [(i, b) for i, b in enumerate(state.board) if is_market(b.place)]

    def _column_stats(self, state: State) -> tuple[list[int], list[int]]:
        values = [0, 0, 0, 0]
        counts = [0, 0, 0, 0]
        for _, b in self._market_brokers(state):
            c = _COLOUR_INDEX[place_column(b.place)]
            values[c] += 5 if b.mercenary else b.value
            counts[c] += 1
        return values, counts

    def _count_market(self, state: State) -> MarketCounted:
        """Rows to the highest total, column totals, the biggest contributor [SEED p.8]."""
        market = self._market_brokers(state)
        revealed = tuple((i, b.value) for i, b in market if not b.face_up)
        rows = [-1, -1, -1, -1]
        for r in range(4):
            totals: dict[int, int] = {}
            for _, b in market:
                if place_row(b.place) == r:
                    totals[b.owner] = totals.get(b.owner, 0) + (5 if b.mercenary else b.value)
            if totals and state.market_gems[r]:
                rows[r] = rank_parties(state, totals)[0]
        values, counts = self._column_stats(state)
        contribution: dict[int, int] = {}
        for _, b in market:
            contribution[b.owner] = contribution.get(b.owner, 0) + (5 if b.mercenary else b.value)
        contributor = rank_parties(state, contribution)[0] if contribution else -1
        decider = -1
        groups = {(values[c], counts[c]) for c in range(4)}
        if len(groups) < 4:
            # The Intriguer's holder orders columns tied on value and brokers, else the seat with
            # the highest tie-break value (then the lower order card) [SEED p.8, p.11].
            if state.intriguer >= 0:
                decider = state.intriguer
            else:
                decider = max(range(state.players), key=lambda p: tie_key(state, p, 0))
        return MarketCounted(revealed, tuple(rows), tuple(values), tuple(counts), decider, contributor)

    def _column_orders(self, state: State) -> list[tuple[str, ...]]:
        """Every column order consistent with value, then number of brokers (ties free)."""
        values, counts = self._column_stats(state)
        keyed = sorted(range(4), key=lambda c: (-values[c], -counts[c], c))
        groups: list[list[int]] = []
        for c in keyed:
            if groups and (values[groups[-1][0]], counts[groups[-1][0]]) == (values[c], counts[c]):
                groups[-1].append(c)
            else:
                groups.append([c])
        orders: list[tuple[str, ...]] = [()]
        for group in groups:
            orders = [o + tuple(COLOURS[c] for c in perm) for o in orders for perm in _permutations(group)]
        return orders

    def _columns_ranked(self, state: State, order: tuple[str, ...], decider: int) -> ColumnsRanked:
        moves = [0, 0, 0, 0]
        for colour, step in zip(order, COLUMN_MOVES, strict=True):
            c = _COLOUR_INDEX[colour]
            moves[c] = clamp_price(state, state.prices[c] + step) - state.prices[c]
        return ColumnsRanked(order, tuple(moves), decider)

    # -- apply -------------------------------------------------------------------------------------

    def apply(self, state: State, event: Event) -> State:
        """Fold one event into the state (total: it never rejects an event validate produced)."""
        return self._appliers[type(event)](state, event)

    def _apply_turn_started(self, state: State, e: TurnStarted) -> State:
        n = state.neighbourhoods
        yellow = e.turn <= YELLOW_PER_PILE
        return _replace(
            state,
            turn=e.turn,
            phase=BID,
            queue=(),
            offered=e.characters,
            piles=tuple(p[1:] for p in state.piles) if yellow else state.piles,
            blue_left=state.blue_left if yellow else state.blue_left - n,
            ports=e.ports,
            ship_deck=state.ship_deck[n + 1 :],
            market_gems=e.market_gems,
            bids=((),) * state.players,
        )

    def _apply_character_played(self, state: State, e: CharacterPlayed) -> State:
        p = e.player
        hand = list(state.hands[p])
        hand.remove(e.card)
        state = _replace(
            state, hands=put(state.hands, p, tuple(hand)), played=put(state.played, p, state.played[p] + 1)
        )
        entry = self.cards[e.card]
        return effects.apply(state, e, entry.effect, entry.amount)

    def _apply_neighbourhood_counted(self, state: State, e: NeighbourhoodCounted) -> State:
        board = _reveal(state.board, e.revealed)
        gems = state.gems
        if e.port >= 0:
            gems = add_gem(gems, e.port, BLACK, 1)
        state = _replace(state, board=board, gems=gems, last_palace=e.palace)
        if e.commercial >= 0:
            state = gain_gold(state, e.commercial, e.gold, "commercial")
        ship = self.ships[state.ports[e.neighbourhood - 1]]
        if state.players == 4:
            pool: tuple[str, ...] = (ship.large, ship.large, *ship.small)
            shares: tuple[int, ...] = (2, 1, 1)
        else:
            pool = (ship.large, *ship.small)
            shares = (2, 1)
        grants = tuple(GemGrant(p, n, "port") for p, n in zip(e.ranking, shares, strict=False))
        return _replace(state, port_pool=tuple(sorted(pool)), grants=grants, stage=1)

    def _apply_character_won(self, state: State, e: CharacterWon) -> State:
        entry = self.cards[e.card]
        state = _replace(state, offered=put(state.offered, e.neighbourhood - 1, ""), stage=2)
        if e.gold:
            return gain_gold(state, e.party, e.gold, "characters")
        if e.neutral_gem:
            return _replace(state, gems=add_gem(state.gems, e.party, e.neutral_gem, 1))
        if entry.window == IMMEDIATE:  # a blue card: a white gem, exchanged at once
            return _replace(state, grants=(*state.grants, GemGrant(e.party, 1, "card", WHITE)))
        return _replace(
            state, new_cards=put(state.new_cards, e.party, tuple(sorted((*state.new_cards[e.party], e.card))))
        )


# -- appliers that need no data ----------------------------------------------------------------------


def _replace(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


def _combinations(pool: tuple[str, ...], k: int) -> set[tuple[str, ...]]:
    """The distinct multisets of k gems from a sorted pool, each sorted."""
    return set(itertools.combinations(pool, k))


def _grant_is_choice(state: State, grant: GemGrant) -> bool:
    """Whether taking a grant needs a decision (more than one way to take it)."""
    if grant.source != "port":
        return grant.gem == WHITE
    pool = state.port_pool
    return WHITE in pool or (min(grant.count, len(pool)) < len(pool) and len(set(pool)) > 1)


def _permutations(items: list[int]) -> list[tuple[int, ...]]:
    if len(items) <= 1:
        return [tuple(items)]
    return [(x, *rest) for i, x in enumerate(items) for rest in _permutations(items[:i] + items[i + 1 :])]


def _play_order(state: State) -> tuple[int, ...]:
    return tuple(sorted(range(state.players), key=lambda p: state.order_cards[p]))


def _bids_revealed(state: State) -> BidsRevealed:
    """Highest bid chooses first; ties: the lower order card of the previous turn [SEED p.6]."""
    order = sorted(range(state.players), key=lambda p: (-sum(state.bids[p]), state.order_cards[p]))
    return BidsRevealed(state.bids, tuple(order))


def _reveal(board: tuple[Broker, ...], revealed: tuple[tuple[int, int], ...]) -> tuple[Broker, ...]:
    if not revealed:
        return board
    out = list(board)
    for i, _ in revealed:
        out[i] = msgspec.structs.replace(out[i], face_up=True)
    return tuple(out)


def _apply_bid_placed(state: State, e: BidPlaced) -> State:
    p = e.player
    return _replace(
        state,
        bids=put(state.bids, p, e.values),
        screens=put(state.screens, p, without(state.screens[p], *e.values)),
    )


def _apply_bids_revealed(state: State, e: BidsRevealed) -> State:
    return _replace(
        state,
        phase=ORDER,
        front=tuple(tuple(sorted(b)) for b in e.bids),
        queue=e.choosing_order,
        bid_order=e.choosing_order,
        previous_order=state.order_cards,
        order_cards=(0,) * state.players,
    )


def _apply_order_card_chosen(state: State, e: OrderCardChosen) -> State:
    return _replace(state, order_cards=put(state.order_cards, e.player, e.card), queue=state.queue[1:])


def _apply_window_opened(state: State, e: WindowOpened) -> State:
    return _replace(state, phase=WINDOW, window=e.window, queue=e.seats)


def _apply_window_passed(state: State, e: WindowPassed) -> State:
    return _replace(state, queue=state.queue[1:])


def _apply_round_started(state: State, e: PlacementRoundStarted) -> State:
    return _replace(
        state,
        phase=PLACE,
        window="",
        round=e.round,
        queue=e.order,
        placed_up=0,
        placed_down=0,
        neutral_placed=False,
        just_placed=(),
    )


def _apply_broker_placed(state: State, e: BrokerPlaced) -> State:
    p = e.player
    known = bit(p) if state.options.see_own_face_down else 0
    if e.from_front:  # everyone saw which broker left the front of the screen
        known = (1 << state.players) - 1
    broker = Broker(p, e.value, e.place, e.face_up, 0 if e.face_up else known)
    changes: dict[str, Any] = {
        "board": (*state.board, broker),
        "just_placed": (*state.just_placed, len(state.board)),
    }
    if e.face_up:
        changes["placed_up"] = state.placed_up + 1
    else:
        changes["placed_down"] = state.placed_down + 1
    if e.from_front:
        changes["front"] = put(state.front, p, without(state.front[p], e.value))
        changes["replacing"] = True
    else:
        changes["screens"] = put(state.screens, p, without(state.screens[p], e.value))
    state = _replace(state, **changes)
    return gain_gold(state, p, e.gold, "market") if e.gold else state


def _apply_neutral_placed(state: State, e: NeutralPlaced) -> State:
    broker = Broker(state.players, e.value, e.place, False, bit(e.pool) if e.chosen else 0, e.pool)
    state = _replace(
        state,
        board=(*state.board, broker),
        neutral_pool=put(state.neutral_pool, e.pool, without(state.neutral_pool[e.pool], e.value)),
        neutral_placed=True,
        rng=state.rng.at(e.rng_counter),
    )
    return gain_gold(state, state.players, e.gold, "market") if e.gold else state


def _apply_front_replaced(state: State, e: FrontReplaced) -> State:
    p = e.player
    return _replace(
        state,
        screens=put(state.screens, p, without(state.screens[p], e.value)),
        front=put(state.front, p, add_value(state.front[p], e.value)),
        replacing=False,
    )


def _apply_placement_finished(state: State, e: PlacementFinished) -> State:
    return _replace(
        state, queue=state.queue[1:], placed_up=0, placed_down=0, neutral_placed=False, just_placed=()
    )


def _apply_broker_peeked(state: State, e: BrokerPeeked) -> State:
    me = bit(e.player)
    state = _replace(state, peeks=put(state.peeks, e.player, state.peeks[e.player] - 1))
    if e.broker >= 0:
        b = state.board[e.broker]
        return _replace(
            state, board=put(state.board, e.broker, msgspec.structs.replace(b, known=b.known | me))
        )
    throne = state.throne[e.throne_seat]
    b = throne[e.throne_slot]
    throne = put(throne, e.throne_slot, msgspec.structs.replace(b, known=b.known | me))
    return _replace(state, throne=put(state.throne, e.throne_seat, throne))


def _apply_leftovers_shown(state: State, e: LeftoversShown) -> State:
    return _replace(
        state,
        front=tuple(tuple(sorted((*f, *left))) for f, left in zip(state.front, e.leftovers, strict=True)),
        screens=((),) * state.players,
    )


def _apply_counting_started(state: State, e: CountingStarted) -> State:
    return _replace(state, phase=COUNT, window="", queue=(), counting=0, stage=0)


def _apply_gems_taken(state: State, e: GemsTaken) -> State:
    gems = state.gems
    for gem in e.gems:
        gems = add_gem(gems, e.party, e.white_as if gem == WHITE else gem, 1)
    pool = state.port_pool
    if e.source == "port":
        rest = list(pool)
        for gem in e.gems:
            rest.remove(gem)
        pool = tuple(rest)
    return _replace(state, gems=gems, port_pool=pool, grants=state.grants[1:])


def _apply_character_discarded(state: State, e: CharacterDiscarded) -> State:
    return _replace(state, offered=put(state.offered, e.neighbourhood - 1, ""), stage=2)


def _apply_brokers_returned(state: State, e: BrokersReturned) -> State:
    """Brokers go back behind their owners' screens (neutral ones to their set)."""
    market = e.where == "market"
    k = 0 if market else int(e.where[1:])
    screens = list(state.screens)
    pool = list(state.neutral_pool)
    board: list[Broker] = []
    for b in state.board:
        if is_market(b.place) if market else place_neighbourhood(b.place) == k:
            if b.owner < state.players:
                screens[b.owner] = add_value(screens[b.owner], b.value)
            else:
                pool[b.pool] = add_value(pool[b.pool], b.value)
        else:
            board.append(b)
    changes: dict[str, Any] = {"board": tuple(board), "neutral_pool": tuple(pool), "stage": 0}
    if market:
        changes["market_gems"] = ("", "", "", "")
        changes["stage"] = 4
        if not state.options.kings_favor:  # tie-break brokers go back too [SEED p.8]
            screens = [tuple(sorted((*s, *f))) for s, f in zip(screens, state.front, strict=True)]
            changes["front"] = ((),) * state.players
    else:
        changes["counting"] = state.counting + 1
    changes["screens"] = tuple(screens)
    return _replace(state, **changes)


def _apply_market_counted(state: State, e: MarketCounted) -> State:
    grants = tuple(
        GemGrant(winner, 1, "row", state.market_gems[r]) for r, winner in enumerate(e.rows) if winner >= 0
    )
    return _replace(
        state,
        board=_reveal(state.board, e.revealed),
        grants=grants,
        stage=1,
        deciding=e.column_decider,
        contributor=e.contributor,
    )


def _apply_columns_ranked(state: State, e: ColumnsRanked) -> State:
    prices = tuple(p + m for p, m in zip(state.prices, e.moves, strict=True))
    return _replace(state, prices=prices, stage=2, deciding=-1)


def _apply_quotation_moved(state: State, e: QuotationMoved) -> State:
    c = _COLOUR_INDEX[e.colour]
    return _replace(state, prices=put(state.prices, c, state.prices[c] + e.moved), stage=3, contributor=-1)


def _apply_no_contributor(state: State, e: NoContributor) -> State:
    return _replace(state, stage=3, contributor=-1)


def _apply_throne_opened(state: State, e: ThroneOpened) -> State:
    return _replace(state, phase=THRONE, window="", queue=(), throne_pick=(-1,) * state.players)


def _apply_throne_chosen(state: State, e: ThroneChosen) -> State:
    return _replace(state, throne_pick=put(state.throne_pick, e.player, e.value))


def _apply_throne_filled(state: State, e: ThroneFilled) -> State:
    """Phase 5: the chosen broker goes face down to the throne, the other two behind the
    screen, and (turns 1-3) one '2' from beside the board joins them [SEED p.13]."""
    screens = []
    thrones = []
    for p in range(state.players):
        pick = state.throne_pick[p]
        rest = without(state.front[p], pick)
        screen = tuple(sorted((*state.screens[p], *rest, *((2,) if e.twos_taken else ()))))
        screens.append(screen)
        thrones.append((*state.throne[p], Broker(p, pick, "throne", False, bit(p))))
    twos = tuple(t - 1 for t in state.twos) if e.twos_taken else state.twos
    return _replace(
        state,
        screens=tuple(screens),
        throne=tuple(thrones),
        front=((),) * state.players,
        twos=twos,
        throne_pick=(-1,) * state.players,
    )


def _apply_turn_ended(state: State, e: TurnEnded) -> State:
    """Port ships are discarded; cards won this turn become playable; this turn's card effects end."""
    n = state.players
    return _replace(
        state,
        phase=OVER if e.last else state.phase,
        ports=("",) * state.neighbourhoods,
        offered=("",) * state.neighbourhoods,
        hands=tuple(tuple(sorted((*h, *new))) for h, new in zip(state.hands, state.new_cards, strict=True)),
        new_cards=((),) * n,
        played=(0,) * n,
        all_face_down=(False,) * n,
        from_front=(False,) * n,
        peeks=(0,) * n,
        closed=(),
        commercial_vp=3,
        intriguer=-1,
        window="",
        queue=(),
        counting=0,
        stage=0,
    )


# -- the game ------------------------------------------------------------------------------------------

VARIANTS: dict[str, Options] = {
    "ys_express": Options(express=True, variants_with_two=True),
    "kings_favor": Options(kings_favor=True, variants_with_two=True),
    "express_with_kings_favor": Options(express=True, kings_favor=True, variants_with_two=True),
    "experts_no_peeking_three_neighbourhoods": Options(
        see_own_face_down=False, three_player_neighbourhoods=3
    ),
}


def make_game(catalog: Catalog) -> GameSpec[State]:
    """Ys played with this data file; its rules version digests the code and this data."""
    return _make_game(Rules(catalog))


def _make_game(rules: Rules) -> GameSpec[State]:
    catalog = rules.catalog

    def view(state: State, viewer: int | None) -> View:
        complete = state.phase == PLACE and bool(state.queue) and rules._complete(state)
        return views.view(state, viewer, rules.active_players(state), complete, scoring.table_scores(state))

    return GameSpec(
        game_id="ys",
        title="Ys",
        rules_version=rules_version("1.0", catalog, package=__package__),
        player_counts=PLAYER_COUNTS,
        options_type=Options,
        state_type=State,
        action_type=Action,
        event_type=Event,
        view_type=View,
        setup=rules.setup,
        active_players=rules.active_players,
        legal_actions=rules.legal_actions,
        validate=rules.validate,
        apply=rules.apply,
        view=view,
        outcome=scoring.outcome,
        redact_event=views.redact_event,
        probe_actions=rules.probe_actions,
        resample_hidden=views.resample_hidden,
        variants=VARIANTS,
        data=catalog,
        presentation=make_presentation(catalog),
        undoable=UNDO,
    )


RULES = Rules(default_catalog())
GAME = _make_game(RULES)
