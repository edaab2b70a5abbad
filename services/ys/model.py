"""Ys data shapes: options, state, actions, events and views (frozen msgspec Structs).

Vocabulary, all plain strings so actions, events and views read well in JSON:
- gem colours: "blue", "green", "yellow", "red" (coloured, quoted on the price scales, left to
  right in that order), "black" (port majorities only) and "white" (wild, never kept);
- places: "n<k>.<area>" is area port/commercial/palace of neighbourhood k (1-4), e.g. "n2.palace";
  "m<row>.<colour>" is the market square of that row (1-3) and column, e.g. "m3.red";
- parties: the seats 0..n-1; with 2 players party 2 is the neutral player (no seat).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from services.kernel import Rng

# -- fixed game vocabulary -------------------------------------------------------------

COLOURS: tuple[str, ...] = ("blue", "green", "yellow", "red")  # market columns, left to right [SEED]
BLACK = "black"
WHITE = "white"
GEM_KINDS: tuple[str, ...] = (*COLOURS, BLACK)  # the order of a party's gem counts
AREAS: tuple[str, ...] = ("port", "commercial", "palace")
TURNS = 4

# Phases of a turn (phase 1 "start of turn" never waits for anyone).
BID = "bid"  # phase 2: everyone secretly bids two brokers
ORDER = "order"  # phase 2: order cards chosen in bid order
WINDOW = "window"  # a character-card window (see WINDOWS)
PLACE = "place"  # phase 3
COUNT = "count"  # phase 4 (neighbourhoods, then the market)
THRONE = "throne"  # King's Favor phase 5: everyone secretly sends a broker to the throne
OVER = "over"

# Character-card windows, named after the symbol printed on the cards [SEED p.10].
PLACEMENT_START = "placement_start"  # person symbol: start of phase 3, in turn order
BEFORE_PLACING = "before_placing"  # person + star: just before one of your own placement rounds
AFTER_PLACING = "after_placing"  # person + star: right after placing your two brokers
COUNTING_START = "counting_start"  # coin symbol: start of phase 4, in turn order
COUNTING_END = "counting_end"  # clock symbol: end of phase 4, in turn order
IMMEDIATE = "immediate"  # King, Prince, blue cards: take effect when won
WINDOWS: tuple[str, ...] = (
    PLACEMENT_START,
    BEFORE_PLACING,
    AFTER_PLACING,
    COUNTING_START,
    COUNTING_END,
    IMMEDIATE,
)

# The effect primitives a character card can name in the data file.
EFFECTS: tuple[str, ...] = (
    "gain_vp",  # amount
    "gain_white_gem",  # a white gem, exchanged at once for a coloured gem of the winner's choice
    "gain_gems",  # amount gems of one colour of your choice (not black)
    "exchange_gem",  # swap one of your coloured gems for another colour
    "shift_prices",  # one quotation up `amount`, another down `amount`
    "swap_ships",  # swap two port ship cards
    "commercial_bonus",  # commercial majorities pay `amount` this counting phase
    "win_ties",  # win every tie this counting phase (column values excepted)
    "all_face_down",  # this turn both brokers of a placement may go face down
    "place_from_front",  # this turn you may place tie-break brokers, replaced from behind the screen
    "peek",  # look at `amount` hidden brokers during this placement phase
    "close_area",  # close one city area for the rest of the turn
    "fixed_value",  # one of the two brokers just placed counts `amount` in this counting phase
    "swap_own_brokers",  # swap the places of two of your brokers
    "move_own_broker",  # move one of your brokers to another place
)

Colour = Literal["blue", "green", "yellow", "red"]


def city_place(neighbourhood: int, area: str) -> str:
    return f"n{neighbourhood}.{area}"


def market_place(row: int, colour: str) -> str:
    return f"m{row}.{colour}"


def is_market(place: str) -> bool:
    return place.startswith("m")


def place_neighbourhood(place: str) -> int:
    """1-4 for a city area, 0 for a market square."""
    return int(place[1]) if place.startswith("n") else 0


def place_row(place: str) -> int:
    return int(place[1])


def place_column(place: str) -> str:
    return place.partition(".")[2]


# -- options ------------------------------------------------------------------------------


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Match options (all decided before the game starts)."""

    # Ys Express: 9 brokers (one 3 and one 1 removed), no ship cards with a white gem, 3 rounds.
    express: bool = False
    # The King's Favor: three extra '2' brokers and the throne room (phase 5, final scoring).
    kings_favor: bool = False
    # The rulebook offers both variants for 3-4 players; allow them with 2 as well (house rule).
    variants_with_two: bool = False
    # May a player see the value of their own face-down brokers once placed? (rulebook: yes for
    # early games, no for experts)
    see_own_face_down: bool = True
    # With 3 players the group plays with 3 or 4 neighbourhoods (2 players: always 3; 4: always 4).
    three_player_neighbourhoods: Annotated[int, msgspec.Meta(ge=3, le=4)] = 4
    # 2 players: the neutral broker is drawn unseen (default), or chosen by its placer, who then
    # knows its value (the rules only say nobody may look at it once placed).
    neutral_chosen: bool = False
    # Quotations move between -limit and +limit around the starting square (the scale length is
    # not in the rules text; only the order of the four gems scores).
    price_limit: Annotated[int, msgspec.Meta(ge=2, le=20)] = 8


# -- state ----------------------------------------------------------------------------------


class Broker(msgspec.Struct, frozen=True):
    """A broker on the board. `owner` is a party (the neutral party with 2 players)."""

    owner: int
    value: int
    place: str
    face_up: bool
    known: int = 0  # bitmask of seats that know the value of this face-down broker
    pool: int = -1  # a neutral broker: the seat whose set of neutral brokers it came from
    mercenary: bool = False  # counts 5 in this counting phase


class GemGrant(msgspec.Struct, frozen=True):
    """Gems a party is owed: `count` from the port pool, or the single `gem` of a row or card."""

    party: int
    count: int
    source: str  # "port", "row" or "card"
    gem: str = ""


class State(msgspec.Struct, frozen=True, kw_only=True):
    players: int
    parties: int  # players, plus the neutral party with 2 players
    rng: Rng
    options: Options = Options()
    neighbourhoods: int  # 4, or 3 (2 players, or 3 players by choice)
    rounds: int  # placement rounds per turn: 4, or 3 in Ys Express
    turn: int = 1
    phase: str = BID
    window: str = ""  # the open character-card window while phase == WINDOW
    queue: tuple[int, ...] = ()  # seats still to act in a sequential step, the head acts
    prices: tuple[int, ...] = (0, 0, 0, 0)  # offset of each quotation from its starting square
    scores: tuple[int, ...] = ()  # per party
    vp_market: tuple[int, ...] = ()  # per party: gold from market placements
    vp_commercial: tuple[int, ...] = ()  # per party: gold from commercial majorities
    vp_characters: tuple[int, ...] = ()  # per party: gold from the King and the Prince
    gems: tuple[tuple[int, ...], ...] = ()  # per party, GEM_KINDS order
    # brokers (values) per seat
    screens: tuple[tuple[int, ...], ...] = ()  # behind the screen (hidden), sorted
    front: tuple[tuple[int, ...], ...] = ()  # in front of the screen (bid + leftover), sorted
    bids: tuple[tuple[int, ...], ...] = ()  # secret bid until revealed; () = not yet bid
    twos: tuple[int, ...] = ()  # King's Favor: '2' brokers still beside the board
    throne: tuple[tuple[Broker, ...], ...] = ()  # King's Favor: brokers in the throne room (face down)
    throne_pick: tuple[int, ...] = ()  # King's Favor phase 5: the chosen value, -1 = not yet
    neutral_pool: tuple[tuple[int, ...], ...] = ()  # 2 players: each seat's unplaced neutral brokers
    board: tuple[Broker, ...] = ()
    # order cards
    order_cards: tuple[int, ...] = ()  # per seat; 0 while being chosen
    previous_order: tuple[int, ...] = ()  # per seat: the card held before this turn's choice
    bid_order: tuple[int, ...] = ()  # seats in the order they choose an order card
    # ships
    ship_deck: tuple[str, ...] = ()  # card ids, top first (hidden)
    ports: tuple[str, ...] = ()  # per neighbourhood: this turn's ship card
    market_gems: tuple[str, ...] = ("", "", "", "")  # per market row 0-3, "" = none
    # characters
    piles: tuple[tuple[str, ...], ...] = ()  # per neighbourhood: face-down yellow cards, top first
    unused: tuple[str, ...] = ()  # yellow cards left in the box unseen
    blue_left: int = 0  # blue-edged cards still beside the board
    offered: tuple[str, ...] = ()  # per neighbourhood: this turn's revealed card, "" once gone
    hands: tuple[tuple[str, ...], ...] = ()  # per seat: cards playable from this turn on, sorted
    new_cards: tuple[tuple[str, ...], ...] = ()  # per seat: cards won this turn (next turn on)
    played: tuple[int, ...] = ()  # per seat: character cards played this turn (limit 2)
    # effects of cards played this turn
    all_face_down: tuple[bool, ...] = ()
    from_front: tuple[bool, ...] = ()
    peeks: tuple[int, ...] = ()  # hidden brokers each seat may still look at
    closed: tuple[str, ...] = ()  # city areas closed by the Queen
    commercial_vp: int = 3
    intriguer: int = -1  # the seat that wins every tie this counting phase
    # placement
    round: int = 1
    placed_up: int = 0  # brokers the seat on turn placed face up this round
    placed_down: int = 0
    neutral_placed: bool = False
    just_placed: tuple[int, ...] = ()  # board indices of the brokers the seat on turn just placed
    replacing: bool = False  # the seat on turn owes a replacement for a tie-break broker it placed
    # counting
    counting: int = 0  # neighbourhood being counted (0-based), == neighbourhoods: the market
    stage: int = 0
    port_pool: tuple[str, ...] = ()  # gems of the port being shared out
    grants: tuple[GemGrant, ...] = ()  # gems owed, the head is being taken
    last_palace: int = -1  # the palace winner of the neighbourhood being counted
    deciding: int = -1  # the seat ordering market columns tied on value and brokers
    contributor: int = -1  # the biggest market contributor (moves a quotation)


# -- actions ------------------------------------------------------------------------------

_Value = Annotated[int, msgspec.Meta(ge=0, le=4)]


class Bid(msgspec.Struct, frozen=True, tag="bid", forbid_unknown_fields=True):
    """Phase 2: secretly bid two brokers from behind your screen (values, any order)."""

    values: tuple[_Value, ...]


class ChooseOrderCard(msgspec.Struct, frozen=True, tag="choose_order_card", forbid_unknown_fields=True):
    card: Annotated[int, msgspec.Meta(ge=1, le=6)]


class PlaceBroker(msgspec.Struct, frozen=True, tag="place_broker", forbid_unknown_fields=True):
    """Phase 3: put a broker of this value on a place, face up or face down.
    `from_front` (Conjurer): take it from in front of your screen instead of behind it."""

    value: _Value
    place: str
    face_up: bool
    from_front: bool = False


class PlaceNeutral(msgspec.Struct, frozen=True, tag="place_neutral", forbid_unknown_fields=True):
    """2 players: put one of your neutral brokers face down on a place; it is drawn unseen
    (`value` -1) unless the option `neutral_chosen` lets you pick its value."""

    place: str
    value: Annotated[int, msgspec.Meta(ge=-1, le=4)] = -1


class ReplaceFront(msgspec.Struct, frozen=True, tag="replace_front", forbid_unknown_fields=True):
    """Conjurer: put this broker from behind your screen face up in front of it."""

    value: _Value


class PlayCharacter(msgspec.Struct, frozen=True, tag="play_character", forbid_unknown_fields=True):
    """Play a character card from your hand. What the effect needs, by card:
    Queen `place` (a city area); Captain `ports` (two neighbourhoods 1-4); Mercenary `brokers`
    (one just placed); Magician `brokers` (two of yours; -1-k is throne slot k); Herald
    `brokers` (one) and `place`; Alchemist `colours` (give, take); Banker `colours` (up, down);
    Jeweler `colours` (one). The others need nothing."""

    card: str
    place: str = ""
    brokers: tuple[int, ...] = ()
    colours: tuple[str, ...] = ()
    ports: tuple[int, ...] = ()


class Peek(msgspec.Struct, frozen=True, tag="peek", forbid_unknown_fields=True):
    """Spy: look at a face-down broker (board index) or, with `throne_seat`, a throne broker."""

    broker: int = -1
    throne_seat: int = -1
    throne_slot: int = -1


class Pass(msgspec.Struct, frozen=True, tag="pass", forbid_unknown_fields=True):
    """Play no (more) character cards now."""


class TakeGems(msgspec.Struct, frozen=True, tag="take_gems", forbid_unknown_fields=True):
    """Take the gems you won (port picks by colour, sorted); a white one becomes `white_as`."""

    gems: tuple[str, ...]
    white_as: str = ""


class RankColumns(msgspec.Struct, frozen=True, tag="rank_columns", forbid_unknown_fields=True):
    """Order the market columns best first (only tied columns may be ordered freely)."""

    order: tuple[str, ...]


class MoveQuotation(msgspec.Struct, frozen=True, tag="move_quotation", forbid_unknown_fields=True):
    """Biggest market contributor: move one gem's quotation one step up (+1) or down (-1)."""

    colour: str
    step: Annotated[int, msgspec.Meta(ge=-1, le=1)]


class SendToThrone(msgspec.Struct, frozen=True, tag="send_to_throne", forbid_unknown_fields=True):
    """King's Favor: secretly put one of the brokers in front of your screen in the throne."""

    value: _Value


Action = (
    Bid
    | ChooseOrderCard
    | PlaceBroker
    | PlaceNeutral
    | ReplaceFront
    | PlayCharacter
    | Peek
    | Pass
    | TakeGems
    | RankColumns
    | MoveQuotation
    | SendToThrone
)


# -- events -------------------------------------------------------------------------------


class TurnStarted(msgspec.Struct, frozen=True, tag="turn_started"):
    """Phase 1: the revealed character cards, a ship in each port, the market gems (rows 0-3)."""

    turn: int
    characters: tuple[str, ...]
    ports: tuple[str, ...]
    market_ship: str
    market_gems: tuple[str, ...]


class BidPlaced(msgspec.Struct, frozen=True, tag="bid_placed"):
    player: int
    values: tuple[int, ...] = ()  # blanked for everyone but the bidder


class BidsRevealed(msgspec.Struct, frozen=True, tag="bids_revealed"):
    bids: tuple[tuple[int, ...], ...]
    choosing_order: tuple[int, ...]


class OrderCardChosen(msgspec.Struct, frozen=True, tag="order_card_chosen"):
    player: int
    card: int


class WindowOpened(msgspec.Struct, frozen=True, tag="window_opened"):
    """A character-card window; `seats` are those who hold a card for it, in turn order."""

    window: str
    seats: tuple[int, ...]


class WindowPassed(msgspec.Struct, frozen=True, tag="window_passed"):
    player: int


class PlacementRoundStarted(msgspec.Struct, frozen=True, tag="placement_round_started"):
    round: int
    order: tuple[int, ...]


class BrokerPlaced(msgspec.Struct, frozen=True, tag="broker_placed"):
    player: int
    place: str
    face_up: bool
    value: int = -1  # -1 for viewers who may not know it (a face-down broker)
    from_front: bool = False
    gold: int = 0  # 1 for a market square
    hidden_from_owner: bool = False  # the owner may not look at their face-down brokers


class NeutralPlaced(msgspec.Struct, frozen=True, tag="neutral_placed"):
    """A neutral broker from `pool`'s set; its value is blanked for everyone (but the placer
    when it was chosen)."""

    pool: int
    place: str
    value: int = -1
    rng_counter: int = 0  # blanked for every viewer
    gold: int = 0
    chosen: bool = False


class FrontReplaced(msgspec.Struct, frozen=True, tag="front_replaced"):
    player: int
    value: int


class PlacementFinished(msgspec.Struct, frozen=True, tag="placement_finished"):
    """A seat's turn of this round is over."""

    player: int


class CharacterPlayed(msgspec.Struct, frozen=True, tag="character_played"):
    player: int
    card: str
    place: str = ""
    brokers: tuple[int, ...] = ()
    colours: tuple[str, ...] = ()
    ports: tuple[int, ...] = ()


class BrokerPeeked(msgspec.Struct, frozen=True, tag="broker_peeked"):
    player: int
    broker: int = -1
    throne_seat: int = -1
    throne_slot: int = -1
    value: int = -1  # blanked for everyone but the spy


class LeftoversShown(msgspec.Struct, frozen=True, tag="leftovers_shown"):
    """End of phase 3: each seat's last broker joins its bid in front of the screen."""

    leftovers: tuple[tuple[int, ...], ...]


class CountingStarted(msgspec.Struct, frozen=True, tag="counting_started"):
    """Phase 4 begins: neighbourhoods 1 to 4, then the market."""


class NeighbourhoodCounted(msgspec.Struct, frozen=True, tag="neighbourhood_counted"):
    """Phase 4 for one neighbourhood: the revealed brokers (by board index), the parties ranked
    for its ship's gems, and the winners of port (black gem), commercial (gold) and palace."""

    neighbourhood: int
    revealed: tuple[tuple[int, int], ...]  # (board index, value) of each broker turned up
    ranking: tuple[int, ...]
    port: int
    commercial: int
    palace: int
    gold: int


class GemsTaken(msgspec.Struct, frozen=True, tag="gems_taken"):
    party: int
    source: str
    gems: tuple[str, ...]  # as won (a white one included)
    white_as: str = ""


class CharacterWon(msgspec.Struct, frozen=True, tag="character_won"):
    """The palace winner takes the card; King/Prince pay at once; a blue card owes a gem.
    With 2 players a neutral winner discards any other card and takes `neutral_gem`."""

    neighbourhood: int
    party: int
    card: str
    gold: int = 0
    neutral_gem: str = ""


class CharacterDiscarded(msgspec.Struct, frozen=True, tag="character_discarded"):
    neighbourhood: int
    card: str


class BrokersReturned(msgspec.Struct, frozen=True, tag="brokers_returned"):
    """Brokers of a neighbourhood (or the market) go back behind their owners' screens."""

    where: str  # "n<k>" or "market"


class MarketCounted(msgspec.Struct, frozen=True, tag="market_counted"):
    revealed: tuple[tuple[int, int], ...]
    rows: tuple[int, ...]  # winner per row 0-3 (-1: nobody or no gem)
    column_values: tuple[int, ...]
    column_brokers: tuple[int, ...]
    column_decider: int = -1  # who orders columns tied on value and brokers (-1: no such tie)
    contributor: int = -1  # the biggest contributor (-1: empty market)


class ColumnsRanked(msgspec.Struct, frozen=True, tag="columns_ranked"):
    order: tuple[str, ...]
    moves: tuple[int, ...]  # quotation change per colour (COLOURS order), after the bounds
    decided_by: int = -1


class QuotationMoved(msgspec.Struct, frozen=True, tag="quotation_moved"):
    party: int
    colour: str
    step: int
    moved: int  # the change after the bounds


class NoContributor(msgspec.Struct, frozen=True, tag="no_contributor"):
    """Nobody (or the neutral player) moves a quotation."""

    party: int = -1


class ThroneOpened(msgspec.Struct, frozen=True, tag="throne_opened"):
    """King's Favor phase 5 begins."""


class ThroneChosen(msgspec.Struct, frozen=True, tag="throne_chosen"):
    player: int
    value: int = -1  # blanked for everyone but the player


class ThroneFilled(msgspec.Struct, frozen=True, tag="throne_filled"):
    """Everyone's broker is in the throne; the other two go behind the screen with a '2'."""

    twos_taken: bool


class TurnEnded(msgspec.Struct, frozen=True, tag="turn_ended"):
    turn: int
    last: bool


Event = (
    TurnStarted
    | BidPlaced
    | BidsRevealed
    | OrderCardChosen
    | WindowOpened
    | WindowPassed
    | PlacementRoundStarted
    | BrokerPlaced
    | NeutralPlaced
    | FrontReplaced
    | PlacementFinished
    | CharacterPlayed
    | BrokerPeeked
    | LeftoversShown
    | CountingStarted
    | NeighbourhoodCounted
    | GemsTaken
    | CharacterWon
    | CharacterDiscarded
    | BrokersReturned
    | MarketCounted
    | ColumnsRanked
    | QuotationMoved
    | NoContributor
    | ThroneOpened
    | ThroneChosen
    | ThroneFilled
    | TurnEnded
)


# -- views --------------------------------------------------------------------------------


class BrokerView(msgspec.Struct, frozen=True):
    index: int
    owner: int
    place: str
    face_up: bool
    value: int | None  # None when the viewer may not know it
    mercenary: bool


class SeatView(msgspec.Struct, frozen=True):
    player: int
    # The score a table shows: the gold won so far during play, the final score once it is over.
    score: int
    gems: dict[str, int]
    order_card: int
    screen_size: int
    screen: tuple[int, ...] | None  # only the seat itself
    front: tuple[int, ...]
    has_bid: bool
    bid: tuple[int, ...] | None  # the bidder, or everyone once revealed
    hand: tuple[str, ...]  # won in the open: everyone remembers who holds what
    new_cards: tuple[str, ...]
    played: int
    twos: int
    throne_size: int
    throne: tuple[int | None, ...] | None  # the seat itself (values it knows), everyone at the end
    throne_chosen: bool
    throne_pick: int | None  # phase 5: the seat's own secret choice
    neutral_left: int
    neutral_pool: tuple[int, ...] | None  # the seat's own neutral brokers when it chooses them


class View(msgspec.Struct, frozen=True):
    players: int
    viewer: int | None
    turn: int
    phase: str
    window: str
    active: tuple[int, ...]
    queue: tuple[int, ...]
    round: int
    rounds: int
    neighbourhoods: int
    prices: dict[str, int]
    price_limit: int
    seats: tuple[SeatView, ...]
    neutral: dict[str, int] | None  # 2 players: the neutral party's score and gems
    board: tuple[BrokerView, ...]
    ports: tuple[str, ...]
    port_pool: tuple[str, ...]
    market_gems: tuple[str, ...]
    offered: tuple[str, ...]
    pile_sizes: tuple[int, ...]
    ship_deck_size: int
    closed: tuple[str, ...]
    commercial_vp: int
    intriguer: int
    peeks_left: int
    bid_order: tuple[int, ...]
    grants: tuple[GemGrant, ...]
    deciding: int
    placed_up: int
    placed_down: int
    neutral_placed: bool
    just_placed: tuple[int, ...]
    replacing: bool
    after: bool
