"""Ankh-Morpork data shapes: options, state, actions, events and views (frozen msgspec Structs).

Vocabulary: areas are numbered 1-12 as on the board (the die picks them); seats are 0..n-1;
a minion "owner" is a seat, TROLL (-1) or DEMON (-2); cards, events and personalities are the
string ids of the data file. State tuples indexed by area hold area `a` at index `a - 1`.

Pending decisions are a stack of `Frame`s (the top one is asked next); a frame is either a
decision of one seat or an automatic step still to run (a removal waiting for its interrupt
window, the rest of a random event). The stack is part of the state, changed only by events.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from services.kernel import Rng

TROLL = -1
DEMON = -2
BANK = -1
AREAS = 12
MINIONS = 12  # per colour [SEED Preparar]
BUILDINGS = 6  # per colour [SEED]
START_MONEY = 10  # [SEED]
HAND = 5  # [SEED]
START_AREAS = (7, 5, 1)  # The Shades, The Scours, Dolly Sisters [SEED Preparar]

Area = Annotated[int, msgspec.Meta(ge=1, le=12)]
AreaOrNone = Annotated[int, msgspec.Meta(ge=0, le=12)]
Owner = Annotated[int, msgspec.Meta(ge=-2, le=3)]
Seat = Annotated[int, msgspec.Meta(ge=0, le=3)]


# -- options ------------------------------------------------------------------------------------


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Match options. The rulebook has no variants; these settle its open questions."""

    # Pieces in an area with a demon score nothing and such buildings do not count for
    # Chrysoprase (HRF, FS 3.3 [M/L]). False: they count as usual.
    demons_void_scoring: bool = True


# -- state ----------------------------------------------------------------------------------------


class Frame(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One pending step. `kind` names it (see rules.FRAME_KINDS); the other fields are its
    arguments. `cards` may be secret (Stanley's two cards): views show it to `player` only."""

    kind: str
    player: int = -1  # who decides (the owner of the piece for protection steps)
    actor: int = -1  # who caused it (the player of the card, the drawer of the event)
    card: str = ""  # the card being resolved / played
    source: str = ""  # "symbol", "scroll", "event", "ability"
    step: int = 0  # next symbol index / counter
    count: int = 0
    area: int = 0
    to_area: int = 0
    owner: int = 0  # owner of the piece concerned
    target: int = -1  # a chosen seat
    areas: tuple[int, ...] = ()
    seats: tuple[int, ...] = ()
    cards: tuple[str, ...] = ()
    mode: str = ""  # a variant of the kind (which effect, "quiet" placement...)
    flag: bool = False  # kind-specific: may be skipped / relocate after removal


class State(msgspec.Struct, frozen=True, kw_only=True):
    players: int
    rng: Rng
    options: Options = Options()
    turn: int = 1
    current: int = 0  # the seat whose turn it is
    minions: tuple[tuple[int, ...], ...] = ()  # per area: count per seat
    trolls: tuple[int, ...] = (0,) * AREAS
    demons: tuple[int, ...] = (0,) * AREAS
    trouble: tuple[bool, ...] = (False,) * AREAS
    buildings: tuple[int, ...] = (-1,) * AREAS  # owner seat or -1
    lost_cards: tuple[bool, ...] = (False,) * AREAS  # set aside by Bloody Stupid Johnson
    money: tuple[int, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()
    deck: tuple[str, ...] = ()  # draw pile, top first (hidden)
    discard: tuple[str, ...] = ()  # face up, oldest first
    events_deck: tuple[str, ...] = ()  # random events, top first (hidden)
    events_done: tuple[str, ...] = ()
    personalities: tuple[str, ...] = ()  # per seat (hidden until revealed)
    unused_personalities: tuple[str, ...] = ()  # set aside unseen
    loans: tuple[tuple[str, ...], ...] = ()  # loan cards in front of each seat
    penalties: tuple[tuple[str, ...], ...] = ()  # Dr Whiteface / Fools' Guild in front of a seat
    used_abilities: tuple[int, ...] = ()  # areas whose ability the current seat used this turn
    gained: tuple[int, ...] = ()  # areas whose card the current seat gained this turn
    played: tuple[str, ...] = ()  # cards the current seat played this turn (for Mossy Lawn)
    stack: tuple[Frame, ...] = ()
    over: bool = False
    end_reason: str = ""  # "personality", "riots", "deck_out"
    winners: tuple[int, ...] = ()


# -- actions ----------------------------------------------------------------------------------------


class PlayCard(msgspec.Struct, frozen=True, tag="play_card", forbid_unknown_fields=True):
    """Play a card from your hand (your turn's card, 'play another card', Drumknott)."""

    card: str


class Skip(msgspec.Struct, frozen=True, tag="skip", forbid_unknown_fields=True):
    """Do not do the offered optional thing (a symbol, an interrupt, more discards)."""


class PlaceMinion(msgspec.Struct, frozen=True, tag="place_minion", forbid_unknown_fields=True):
    """Place a minion in `area`; with all 12 on the board take one off `from_area` first."""

    area: Area
    from_area: AreaOrNone = 0


class MoveMinion(msgspec.Struct, frozen=True, tag="move_minion", forbid_unknown_fields=True):
    """Move one of your minions from `from_area` to `area` (Flood, Rincewind, Dorfl...)."""

    from_area: Area
    area: Area


class Build(msgspec.Struct, frozen=True, tag="build", forbid_unknown_fields=True):
    """Place a building in `area`; with all 6 on the board take yours off `from_area` first."""

    area: Area
    from_area: AreaOrNone = 0


class Assassinate(msgspec.Struct, frozen=True, tag="assassinate", forbid_unknown_fields=True):
    """Remove a minion of `owner` (a seat, -1 troll, -2 demon) from a troubled `area`."""

    area: Area
    owner: Owner


class RemoveTrouble(msgspec.Struct, frozen=True, tag="remove_trouble", forbid_unknown_fields=True):
    area: Area


class TakeMoney(msgspec.Struct, frozen=True, tag="take_money", forbid_unknown_fields=True):
    """The card's money symbol: take its amount from the bank."""


class Scroll(msgspec.Struct, frozen=True, tag="scroll", forbid_unknown_fields=True):
    """Do the card's scroll text."""


class ChoosePlayer(msgspec.Struct, frozen=True, tag="choose_player", forbid_unknown_fields=True):
    player: Seat


class ChooseCard(msgspec.Struct, frozen=True, tag="choose_card", forbid_unknown_fields=True):
    card: str


class ChooseArea(msgspec.Struct, frozen=True, tag="choose_area", forbid_unknown_fields=True):
    area: Area


class ChooseMinion(msgspec.Struct, frozen=True, tag="choose_minion", forbid_unknown_fields=True):
    area: Area
    owner: Owner


class ChooseOption(msgspec.Struct, frozen=True, tag="choose_option", forbid_unknown_fields=True):
    """A named choice the pending step offers: "pay", "refuse", "money"."""

    option: str


class UseAbility(msgspec.Struct, frozen=True, tag="use_ability", forbid_unknown_fields=True):
    """Use the City Area card of `area` (Small Gods: pay $3 to protect the piece at stake)."""

    area: Area


class PlayInterrupt(msgspec.Struct, frozen=True, tag="play_interrupt", forbid_unknown_fields=True):
    card: str


class EndTurn(msgspec.Struct, frozen=True, tag="end_turn", forbid_unknown_fields=True):
    """Finish your turn: refill your hand to five cards."""


Action = (
    PlayCard
    | Skip
    | PlaceMinion
    | MoveMinion
    | Build
    | Assassinate
    | RemoveTrouble
    | TakeMoney
    | Scroll
    | ChoosePlayer
    | ChooseCard
    | ChooseArea
    | ChooseMinion
    | ChooseOption
    | UseAbility
    | PlayInterrupt
    | EndTurn
)


# -- events ------------------------------------------------------------------------------------------


class TurnStarted(msgspec.Struct, frozen=True, tag="turn_started"):
    player: int
    turn: int


class CardPlayed(msgspec.Struct, frozen=True, tag="card_played"):
    player: int
    card: str
    interrupt: bool = False


class CardFinished(msgspec.Struct, frozen=True, tag="card_finished"):
    """A played card leaves the table: to the discard pile, in front of a seat (a loan, a
    penalty card) or back to its player's hand (Doctor Mossy Lawn)."""

    player: int
    card: str
    to: str = "discard"  # "discard", "loan", "penalty", "hand"
    holder: int = -1


class SymbolDone(msgspec.Struct, frozen=True, tag="symbol_done"):
    """A symbol of the card being resolved was done or skipped."""

    player: int
    card: str
    symbol: str
    skipped: bool = False


class StackSet(msgspec.Struct, frozen=True, tag="stack_set"):
    """The pending steps after this point (`cards` of a frame blanked for other viewers)."""

    stack: tuple[Frame, ...]


class MinionPlaced(msgspec.Struct, frozen=True, tag="minion_placed"):
    owner: int  # seat, TROLL or DEMON
    area: int
    from_area: int = 0  # a seat with all 12 minions out took this one off first
    quiet: bool = False  # no trouble marker (Mr Shine, Deep Dwarves)
    trouble: bool = False  # a trouble marker was added (derived, for readers)


class MinionRemoved(msgspec.Struct, frozen=True, tag="minion_removed"):
    owner: int
    area: int
    by: int = -1


class MinionMoved(msgspec.Struct, frozen=True, tag="minion_moved"):
    owner: int
    from_area: int
    area: int
    trouble: bool = False


class TroublePlaced(msgspec.Struct, frozen=True, tag="trouble_placed"):
    area: int


class TroubleRemoved(msgspec.Struct, frozen=True, tag="trouble_removed"):
    area: int


class BuildingPlaced(msgspec.Struct, frozen=True, tag="building_placed"):
    player: int
    area: int
    cost: int  # paid to `paid_to` (the bank, or the old owner on a take-over)
    from_area: int = 0
    paid_to: int = BANK


class BuildingRemoved(msgspec.Struct, frozen=True, tag="building_removed"):
    area: int
    owner: int


class Paid(msgspec.Struct, frozen=True, tag="paid"):
    """Money moves: `payer` or `payee` -1 is the bank."""

    payer: int
    payee: int
    amount: int


class CardsDrawn(msgspec.Struct, frozen=True, tag="cards_drawn"):
    """Cards from the top of the draw pile into a hand (blanked for other viewers)."""

    player: int
    count: int
    cards: tuple[str, ...] = ()


class DiscardDrawn(msgspec.Struct, frozen=True, tag="discard_drawn"):
    """History Monks: cards drawn at random from the face-up discard pile."""

    player: int
    cards: tuple[str, ...]


class CardDiscarded(msgspec.Struct, frozen=True, tag="card_discarded"):
    player: int
    card: str


class CardsGiven(msgspec.Struct, frozen=True, tag="cards_given"):
    """Cards from one hand to another (blanked but for the two seats)."""

    giver: int
    receiver: int
    count: int
    cards: tuple[str, ...] = ()


class CardsTaken(msgspec.Struct, frozen=True, tag="cards_taken"):
    """Stanley: cards taken at random from `victim`'s hand, held by `taker` until one goes back."""

    taker: int
    victim: int
    count: int
    cards: tuple[str, ...] = ()


class HandsSwapped(msgspec.Struct, frozen=True, tag="hands_swapped"):
    first: int
    second: int


class HandShown(msgspec.Struct, frozen=True, tag="hand_shown"):
    """Cable Street Particulars: `owner` shows their hand to `viewer` only."""

    viewer: int
    owner: int
    cards: tuple[str, ...] = ()


class DeckDiscarded(msgspec.Struct, frozen=True, tag="deck_discarded"):
    """Fog: the top cards of the draw pile go face up to the discard pile."""

    cards: tuple[str, ...]


class EventDrawn(msgspec.Struct, frozen=True, tag="event_drawn"):
    player: int
    event: str


class DieRolled(msgspec.Struct, frozen=True, tag="die_rolled"):
    player: int
    value: int
    reason: str


class CityCardLost(msgspec.Struct, frozen=True, tag="city_card_lost"):
    area: int


class AbilityUsed(msgspec.Struct, frozen=True, tag="ability_used"):
    player: int
    area: int


class PersonalitySwapped(msgspec.Struct, frozen=True, tag="personality_swapped"):
    """Zorgo: ids blanked but for the player."""

    player: int
    old: str = ""
    new: str = ""


class PersonalitiesSeen(msgspec.Struct, frozen=True, tag="personalities_seen"):
    """Mrs Cake: the unused personalities shown to `player` (blanked for others)."""

    player: int
    count: int
    cards: tuple[str, ...] = ()


class Interrupted(msgspec.Struct, frozen=True, tag="interrupted"):
    """An interrupt or Small Gods stopped, or changed, the step at stake."""

    player: int
    card: str  # the interrupt card, or "small_gods"
    what: str  # the step it answered


class RngAdvanced(msgspec.Struct, frozen=True, tag="rng_advanced"):
    counter: int


class GameEnded(msgspec.Struct, frozen=True, tag="game_ended"):
    reason: str
    winners: tuple[int, ...]
    personalities: tuple[str, ...]  # every seat's card, revealed


Event = (
    TurnStarted
    | CardPlayed
    | CardFinished
    | SymbolDone
    | StackSet
    | MinionPlaced
    | MinionRemoved
    | MinionMoved
    | TroublePlaced
    | TroubleRemoved
    | BuildingPlaced
    | BuildingRemoved
    | Paid
    | CardsDrawn
    | DiscardDrawn
    | CardDiscarded
    | CardsGiven
    | CardsTaken
    | HandsSwapped
    | HandShown
    | DeckDiscarded
    | EventDrawn
    | DieRolled
    | CityCardLost
    | AbilityUsed
    | PersonalitySwapped
    | PersonalitiesSeen
    | Interrupted
    | RngAdvanced
    | GameEnded
)


# -- views ---------------------------------------------------------------------------------------------


class AreaView(msgspec.Struct, frozen=True):
    area: int
    name: str
    minions: tuple[int, ...]  # per seat
    trolls: int
    demons: int
    trouble: bool
    building: int  # owner seat, -1 none
    card_lost: bool
    controller: int  # seat in control, -1 none


class SeatView(msgspec.Struct, frozen=True):
    player: int
    # The score a table shows: the points if the game ended on points now (the same at the end).
    score: int
    money: int
    hand_size: int
    hand: tuple[str, ...] | None  # the seat itself only
    personality: str | None  # the seat itself, everyone once revealed
    minions_in_supply: int
    buildings_in_supply: int
    loans: tuple[str, ...]
    penalties: tuple[str, ...]


class View(msgspec.Struct, frozen=True):
    players: int
    viewer: int | None
    turn: int
    current: int
    active: tuple[int, ...]
    areas: tuple[AreaView, ...]
    seats: tuple[SeatView, ...]
    deck_size: int
    discard: tuple[str, ...]
    events_left: int
    events_done: tuple[str, ...]
    unused_personalities: int
    used_abilities: tuple[int, ...]
    gained: tuple[int, ...]
    played: tuple[str, ...]
    pending: tuple[Frame, ...]  # top last; secret cards blanked for other seats
    shown_hand: tuple[str, ...] | None  # Cable Street Particulars: the hand the viewer inspects
    over: bool
    end_reason: str
    winners: tuple[int, ...]
