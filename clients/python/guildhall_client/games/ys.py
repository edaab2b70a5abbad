"""Ys: the types of its actions, events, views, options, outcome and game data.

Generated from schemas/ys/ by `python -m guildhall_client.games.generate`: do not edit.
Views and events arrive as decoded JSON (dicts); these TypedDicts type them, e.g.
`view = cast(ys.View, match_view.view)`, and type-check actions before they are sent.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from guildhall_client.games._shared import (
    Arg,
    Choice,
    Component,
    Decision,
    Deck,
    DeckPart,
    Description,
    Option,
    Outcome,
    Place,
    PlayerResult,
    Rejection,
    ScoreSheet,
)

__all__ = [
    "Action",
    "Event",
    "View",
    "Options",
    "Outcome",
    "GameData",
    "Rejection",
    "Decision",
    "Description",
    "Arg",
    "Choice",
    "Component",
    "Deck",
    "DeckPart",
    "Option",
    "Place",
    "PlayerResult",
    "ScoreSheet",
]


class View(TypedDict):
    active: list[int]
    after: bool
    bid_order: list[int]
    board: list[BrokerView]
    closed: list[PlaceId | Literal[""]]
    commercial_vp: int
    deciding: int
    grants: list[GemGrant]
    intriguer: int
    just_placed: list[int]
    market_gems: list[GemId | Literal[""]]
    neighbourhoods: int
    neutral: dict[str, int] | None
    neutral_placed: bool
    offered: list[CharacterId | Literal[""]]
    peeks_left: int
    phase: PhaseId | Literal[""]
    pile_sizes: list[int]
    placed_down: int
    placed_up: int
    players: int
    port_pool: list[GemId | Literal[""]]
    ports: list[str]
    price_limit: int
    prices: dict[str, int]
    queue: list[int]
    replacing: bool
    round: int
    rounds: int
    seats: list[SeatView]
    ship_deck_size: int
    turn: int
    viewer: int | None
    window: WindowId | Literal[""]


class Options(TypedDict):
    """Match options (all decided before the game starts)."""

    express: NotRequired[bool]
    kings_favor: NotRequired[bool]
    neutral_chosen: NotRequired[bool]
    price_limit: NotRequired[int]
    see_own_face_down: NotRequired[bool]
    three_player_neighbourhoods: NotRequired[int]
    variants_with_two: NotRequired[bool]


class GameData(TypedDict):
    """Everything static a client needs to show a match of this game with names, not ids."""

    boards: dict[str, Any]
    catalog: Catalog
    components: list[Component]
    data_digest: str
    decks: list[Deck]
    game_id: str
    kinds: dict[str, str]
    notice: str
    places: NotRequired[list[Place]]
    schema_version: NotRequired[int]
    score: NotRequired[ScoreSheet]
    stand_in: bool
    title: str
    version: str


class Bid(TypedDict):
    """Phase 2: secretly bid two brokers from behind your screen (values, any order)."""

    type: Literal["bid"]
    values: list[int]


class BidPlaced(TypedDict):
    player: int
    type: Literal["bid_placed"]
    values: NotRequired[list[int]]


class BidsRevealed(TypedDict):
    bids: list[list[int]]
    choosing_order: list[int]
    type: Literal["bids_revealed"]


class BrokerPeeked(TypedDict):
    broker: NotRequired[int]
    player: int
    throne_seat: NotRequired[int]
    throne_slot: NotRequired[int]
    type: Literal["broker_peeked"]
    value: NotRequired[int]


class BrokerPlaced(TypedDict):
    face_up: bool
    from_front: NotRequired[bool]
    gold: NotRequired[int]
    hidden_from_owner: NotRequired[bool]
    place: PlaceId | Literal[""]
    player: int
    type: Literal["broker_placed"]
    value: NotRequired[int]


class BrokerView(TypedDict):
    face_up: bool
    index: int
    mercenary: bool
    owner: int
    place: PlaceId | Literal[""]
    value: int | None


class BrokersReturned(TypedDict):
    """Brokers of a neighbourhood (or the market) go back behind their owners' screens."""

    type: Literal["brokers_returned"]
    where: PlaceId | Literal[""]


class Catalog(TypedDict):
    characters: list[Character]
    notice: str
    schema_version: int
    ships: list[ShipCard]
    stand_in: bool


class Character(TypedDict):
    amount: NotRequired[int]
    edge: str
    effect: str
    id: str
    name: str
    name_es: NotRequired[str]
    source: NotRequired[str]
    stand_in: NotRequired[bool]
    window: str


class CharacterDiscarded(TypedDict):
    card: CharacterId | Literal[""]
    neighbourhood: int
    type: Literal["character_discarded"]


class CharacterPlayed(TypedDict):
    brokers: NotRequired[list[int]]
    card: CharacterId | Literal[""]
    colours: NotRequired[list[GemId | Literal[""]]]
    place: NotRequired[PlaceId | Literal[""]]
    player: int
    ports: NotRequired[list[int]]
    type: Literal["character_played"]


class CharacterWon(TypedDict):
    """The palace winner takes the card; King/Prince pay at once; a blue card owes a gem.
    With 2 players a neutral winner discards any other card and takes `neutral_gem`.
    """

    card: CharacterId | Literal[""]
    gold: NotRequired[int]
    neighbourhood: int
    neutral_gem: NotRequired[GemId | Literal[""]]
    party: int
    type: Literal["character_won"]


class ChooseOrderCard(TypedDict):
    card: int
    type: Literal["choose_order_card"]


class ColumnsRanked(TypedDict):
    decided_by: NotRequired[int]
    moves: list[int]
    order: list[GemId | Literal[""]]
    type: Literal["columns_ranked"]


class CountingStarted(TypedDict):
    """Phase 4 begins: neighbourhoods 1 to 4, then the market."""

    type: Literal["counting_started"]


class FrontReplaced(TypedDict):
    player: int
    type: Literal["front_replaced"]
    value: int


class GemGrant(TypedDict):
    """Gems a party is owed: `count` from the port pool, or the single `gem` of a row or card."""

    count: int
    gem: NotRequired[GemId | Literal[""]]
    party: int
    source: str


class GemsTaken(TypedDict):
    gems: list[GemId | Literal[""]]
    party: int
    source: str
    type: Literal["gems_taken"]
    white_as: NotRequired[GemId | Literal[""]]


class LeftoversShown(TypedDict):
    """End of phase 3: each seat's last broker joins its bid in front of the screen."""

    leftovers: list[list[int]]
    type: Literal["leftovers_shown"]


class MarketCounted(TypedDict):
    column_brokers: list[int]
    column_decider: NotRequired[int]
    column_values: list[int]
    contributor: NotRequired[int]
    revealed: list[list[int]]
    rows: list[int]
    type: Literal["market_counted"]


class MoveQuotation(TypedDict):
    """Biggest market contributor: move one gem's quotation one step up (+1) or down (-1)."""

    colour: GemId | Literal[""]
    step: int
    type: Literal["move_quotation"]


class NeighbourhoodCounted(TypedDict):
    """Phase 4 for one neighbourhood: the revealed brokers (by board index), the parties ranked
    for its ship's gems, and the winners of port (black gem), commercial (gold) and palace.
    """

    commercial: int
    gold: int
    neighbourhood: int
    palace: int
    port: int
    ranking: list[int]
    revealed: list[list[int]]
    type: Literal["neighbourhood_counted"]


class NeutralPlaced(TypedDict):
    """A neutral broker from `pool`'s set; its value is blanked for everyone (but the placer
    when it was chosen).
    """

    chosen: NotRequired[bool]
    gold: NotRequired[int]
    place: PlaceId | Literal[""]
    pool: int
    rng_counter: NotRequired[int]
    type: Literal["neutral_placed"]
    value: NotRequired[int]


class NoContributor(TypedDict):
    """Nobody (or the neutral player) moves a quotation."""

    party: NotRequired[int]
    type: Literal["no_contributor"]


class OrderCardChosen(TypedDict):
    card: int
    player: int
    type: Literal["order_card_chosen"]


class Pass(TypedDict):
    """Play no (more) character cards now."""

    type: Literal["pass"]


class Peek(TypedDict):
    """Spy: look at a face-down broker (board index) or, with `throne_seat`, a throne broker."""

    broker: NotRequired[int]
    throne_seat: NotRequired[int]
    throne_slot: NotRequired[int]
    type: Literal["peek"]


class PlaceBroker(TypedDict):
    """Phase 3: put a broker of this value on a place, face up or face down.
    `from_front` (Conjurer): take it from in front of your screen instead of behind it.
    """

    face_up: bool
    from_front: NotRequired[bool]
    place: PlaceId | Literal[""]
    type: Literal["place_broker"]
    value: int


class PlaceNeutral(TypedDict):
    """2 players: put one of your neutral brokers face down on a place; it is drawn unseen
    (`value` -1) unless the option `neutral_chosen` lets you pick its value.
    """

    place: PlaceId | Literal[""]
    type: Literal["place_neutral"]
    value: NotRequired[int]


class PlacementFinished(TypedDict):
    """A seat's turn of this round is over."""

    player: int
    type: Literal["placement_finished"]


class PlacementRoundStarted(TypedDict):
    order: list[int]
    round: int
    type: Literal["placement_round_started"]


class PlayCharacter(TypedDict):
    """Play a character card from your hand. What the effect needs, by card:
    Queen `place` (a city area); Captain `ports` (two neighbourhoods 1-4); Mercenary `brokers`
    (one just placed); Magician `brokers` (two of yours; -1-k is throne slot k); Herald
    `brokers` (one) and `place`; Alchemist `colours` (give, take); Banker `colours` (up, down);
    Jeweler `colours` (one). The others need nothing.
    """

    brokers: NotRequired[list[int]]
    card: CharacterId | Literal[""]
    colours: NotRequired[list[GemId | Literal[""]]]
    place: NotRequired[PlaceId | Literal[""]]
    ports: NotRequired[list[int]]
    type: Literal["play_character"]


class QuotationMoved(TypedDict):
    colour: GemId | Literal[""]
    moved: int
    party: int
    step: int
    type: Literal["quotation_moved"]


class RankColumns(TypedDict):
    """Order the market columns best first (only tied columns may be ordered freely)."""

    order: list[GemId | Literal[""]]
    type: Literal["rank_columns"]


class ReplaceFront(TypedDict):
    """Conjurer: put this broker from behind your screen face up in front of it."""

    type: Literal["replace_front"]
    value: int


class SeatView(TypedDict):
    bid: list[int] | None
    front: list[int]
    gems: dict[str, int]
    hand: list[CharacterId | Literal[""]]
    has_bid: bool
    neutral_left: int
    neutral_pool: list[int] | None
    new_cards: list[CharacterId | Literal[""]]
    order_card: int
    played: int
    player: int
    score: int
    screen: list[int] | None
    screen_size: int
    throne: list[int | None] | None
    throne_chosen: bool
    throne_pick: int | None
    throne_size: int
    twos: int


class SendToThrone(TypedDict):
    """King's Favor: secretly put one of the brokers in front of your screen in the throne."""

    type: Literal["send_to_throne"]
    value: int


class ShipCard(TypedDict):
    id: str
    large: str
    small: list[str]
    source: NotRequired[str]
    stand_in: NotRequired[bool]


class TakeGems(TypedDict):
    """Take the gems you won (port picks by colour, sorted); a white one becomes `white_as`."""

    gems: list[GemId | Literal[""]]
    type: Literal["take_gems"]
    white_as: NotRequired[GemId | Literal[""]]


class ThroneChosen(TypedDict):
    player: int
    type: Literal["throne_chosen"]
    value: NotRequired[int]


class ThroneFilled(TypedDict):
    """Everyone's broker is in the throne; the other two go behind the screen with a '2'."""

    twos_taken: bool
    type: Literal["throne_filled"]


class ThroneOpened(TypedDict):
    """King's Favor phase 5 begins."""

    type: Literal["throne_opened"]


class TurnEnded(TypedDict):
    last: bool
    turn: int
    type: Literal["turn_ended"]


class TurnStarted(TypedDict):
    """Phase 1: the revealed character cards, a ship in each port, the market gems (rows 0-3)."""

    characters: list[CharacterId | Literal[""]]
    market_gems: list[GemId | Literal[""]]
    market_ship: ShipId | Literal[""]
    ports: list[ShipId | Literal[""]]
    turn: int
    type: Literal["turn_started"]


class WindowOpened(TypedDict):
    """A character-card window; `seats` are those who hold a card for it, in turn order."""

    seats: list[int]
    type: Literal["window_opened"]
    window: WindowId | Literal[""]


class WindowPassed(TypedDict):
    player: int
    type: Literal["window_passed"]


Action: TypeAlias = (
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
"""Ys action"""
Event: TypeAlias = (
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
"""Ys event"""
CharacterId: TypeAlias = Literal[
    "alchemist",
    "banker",
    "bishop",
    "blue1",
    "blue2",
    "blue3",
    "blue4",
    "captain",
    "conjurer",
    "herald",
    "intriguer",
    "jeweler",
    "king",
    "magician",
    "mercenary",
    "merchant",
    "prince",
    "queen",
    "spy",
]
"""An id of a character of Ys's game data."""
GemId: TypeAlias = Literal["black", "blue", "green", "red", "white", "yellow"]
"""An id of a gem of Ys's game data."""
PhaseId: TypeAlias = Literal["bid", "count", "order", "over", "place", "throne", "window"]
"""An id of a phase of Ys's game data."""
PlaceId: TypeAlias = Literal[
    "m0",
    "m0.blue",
    "m0.green",
    "m0.red",
    "m0.yellow",
    "m1",
    "m1.blue",
    "m1.green",
    "m1.red",
    "m1.yellow",
    "m2",
    "m2.blue",
    "m2.green",
    "m2.red",
    "m2.yellow",
    "m3",
    "m3.blue",
    "m3.green",
    "m3.red",
    "m3.yellow",
    "market",
    "n1",
    "n1.commercial",
    "n1.palace",
    "n1.port",
    "n2",
    "n2.commercial",
    "n2.palace",
    "n2.port",
    "n3",
    "n3.commercial",
    "n3.palace",
    "n3.port",
    "n4",
    "n4.commercial",
    "n4.palace",
    "n4.port",
    "scale.blue",
    "scale.green",
    "scale.red",
    "scale.yellow",
    "throne",
]
"""An id of a place of Ys's game data."""
ShipId: TypeAlias = Literal[
    "s01",
    "s02",
    "s03",
    "s04",
    "s05",
    "s06",
    "s07",
    "s08",
    "s09",
    "s10",
    "s11",
    "s12",
    "s13",
    "s14",
    "s15",
    "s16",
    "s17",
    "s18",
    "s19",
    "s20",
    "s21",
    "s22",
    "s23",
    "s24",
]
"""An id of a ship of Ys's game data."""
WindowId: TypeAlias = Literal[
    "after_placing", "before_placing", "counting_end", "counting_start", "immediate", "placement_start"
]
"""An id of a window of Ys's game data."""
