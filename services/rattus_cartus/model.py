"""Rattus Cartus data shapes: options, state, actions, events and views (frozen msgspec Structs).

Cards are plain strings so hands, decks and events read well in JSON:
a population card is "<class>:<nuns>" (e.g. "church:3" is a Church card showing 3 nuns);
every other card is its kind: "joker", "sword", "flute", "pass", "gold".
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from services.kernel import Rng

# -- fixed game vocabulary -------------------------------------------------------------

CLASSES: tuple[str, ...] = ("peasantry", "bourgeoisie", "church", "chivalry", "magic", "royalty")

JOKER = "joker"
SWORD = "sword"
FLUTE = "flute"
PASS = "pass"
GOLD = "gold"
VP_TOKEN = "vp_token"

# What the general supply holds, in the order of `State.supply`.
SUPPLY_KINDS: tuple[str, ...] = (JOKER, SWORD, FLUTE, PASS, GOLD, VP_TOKEN)

# Cards that may be played face down into a building (phase C). Gold and Pass never can.
PLAYABLE_SPECIALS = frozenset({JOKER, SWORD, FLUTE})

# The 12 buildings, two per class [SEED building overview, untangled with EN p.4].
BUILDING_CLASS: dict[str, str] = {
    "farm": "peasantry",
    "brewery": "peasantry",
    "marketplace": "bourgeoisie",
    "office": "bourgeoisie",
    "monastery": "church",
    "hospital": "church",
    "castle": "chivalry",
    "guard_tower": "chivalry",
    "fortune_tellers_tent": "magic",
    "pipers_hut": "magic",
    "palace": "royalty",
    "treasury": "royalty",
}

# The special card each building hands out, so setup only lays out the supplies in use.
SPECIAL_SUPPLIED_BY: dict[str, str] = {
    SWORD: "castle",
    FLUTE: "pipers_hut",
    PASS: "office",
    GOLD: "treasury",
}

# Phases of a round. Phase A (draw buildings) and E (end of round) never wait for anyone.
DRAW = "draw"
SUPPLIES = "supplies"
ENTER = "enter"
RESOLVE = "resolve"
OVER = "over"


def is_population(card: str) -> bool:
    return ":" in card


def card_class(card: str) -> str:
    """The class of a population card ("" for any other card)."""
    return card.partition(":")[0] if ":" in card else ""


def card_nuns(card: str) -> int:
    return int(card.partition(":")[2]) if ":" in card else 0


def population_card(klass: str, nuns: int) -> str:
    return f"{klass}:{nuns}"


# -- options ------------------------------------------------------------------------------

BuildingSelection = Literal["recommended", "random_buildings", "random_cards", "explicit"]


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Match options. `buildings` is only read with building_selection="explicit"."""

    # recommended: the first-game set; random_buildings: one random building per class (all 5 copies);
    # random_cards: 5 random cards of each class's 10; explicit: the `buildings` list.
    building_selection: BuildingSelection = "recommended"
    # 6 building ids (one per class, all 5 copies each) or 30 ids (5 per class, a building repeated
    # once per copy, at most 5 times).
    buildings: tuple[str, ...] = ()
    # Phase B: everyone chooses at once (the rulebook's "if all agree"), else in turn order.
    simultaneous_supplies: bool = True
    # The rulebook advises against the Guard Tower with 2 players; random selection skips it then.
    allow_guard_tower_with_two: bool = False
    vp_token_value: Annotated[int, msgspec.Meta(ge=1, le=100)] = 1
    # If the plague kills everyone, declare the lowest rat total the winner (optional rule).
    all_eliminated_lowest_rats_wins: bool = False


# -- state ----------------------------------------------------------------------------------


class BuildingCard(msgspec.Struct, frozen=True):
    """One building card: which building, which of its 5 copies, and its printed supply action."""

    building: str
    copy: int
    draw: int = 0  # supply action: draw this many population cards
    discard_rats: int = 0  # supply action: discard this many rats
    look: int = 0  # supply action: look at this many Nun-row cards


class Duel(msgspec.Struct, frozen=True):
    """A Sword or Flute comparison in one building with a clear winner and the tied losers."""

    kind: str  # "sword" or "flute"
    winner: int
    candidates: tuple[int, ...]  # the seats with the fewest; the winner picks one if several


class Gift(msgspec.Struct, frozen=True):
    """Cards `giver` still owes `receiver` (a lost Sword duel or a Guard Tower premium)."""

    giver: int
    receiver: int
    count: int


class HospitalTurn(msgspec.Struct, frozen=True):
    """A Hospital visitor who may still discard up to `cards` cards, one rat each."""

    player: int
    cards: int


class State(msgspec.Struct, frozen=True, kw_only=True):
    players: int
    rng: Rng
    options: Options = Options()
    rounds: int  # rounds in this game (10 / 9 / 8 / 8 for 2 / 3 / 4 / 5 players)
    buildings_per_round: int  # 2 with 2-3 players, 3 with 4-5
    round: int = 1
    phase: str = SUPPLIES
    start_player: int = 0
    # building cards (face down decks are hidden; top card first)
    building_deck: tuple[BuildingCard, ...] = ()
    reserve: tuple[BuildingCard, ...] = ()
    row: tuple[BuildingCard, ...] = ()  # this round's revealed buildings, in resolution order
    buildings_in_game: tuple[str, ...] = ()  # distinct buildings among the 30 chosen cards
    # population cards
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    nun_row: tuple[str, ...] = ()  # order never changes
    nun_seen: tuple[tuple[int, ...], ...] = ()  # per seat: Nun-row positions it has looked at
    hands: tuple[tuple[str, ...], ...] = ()  # per seat, sorted
    supply: tuple[int, ...] = ()  # counts in SUPPLY_KINDS order
    vp_tokens: tuple[int, ...] = ()  # tokens held per seat
    rats: tuple[int, ...] = ()  # rat total per seat (public: see rules.view)
    influence: tuple[tuple[int, ...], ...] = ()  # [class][seat]
    arrival: tuple[tuple[int, ...], ...] = ()  # [class][seat]: when the marker reached its space
    moves: int = 0  # marker moves so far; stamps `arrival` so a stack's bottom marker wins ties
    round_influence: tuple[int, ...] = ()  # influence each seat scored this round (Brewery)
    # phase B
    supply_choice: tuple[int, ...] = ()  # per seat: row index whose supply action it took, or -1
    looks_owed: tuple[int, ...] = ()  # Nun-row looks each seat still has to take
    # phase C
    enter_queue: tuple[int, ...] = ()  # seats still to enter, the head is on turn
    placing: int = -1  # the seat now putting cards face down, or -1
    entries: tuple[tuple[int, ...], ...] = ()  # per row building: seats by entry space (1, 2, ...)
    entry_order: tuple[int, ...] = ()  # seats in the order they put a disc on any building
    played: tuple[tuple[str, ...], ...] = ()  # per seat: cards played this round
    # phase D
    premium: tuple[int, ...] = ()  # per row building: who takes its premium action, or -1
    resolving: int = 0  # row index of the building being resolved
    revealed: bool = False  # whether that building's cards are turned up yet
    duels: tuple[Duel, ...] = ()  # Sword then Flute duels still to settle
    gifts: tuple[Gift, ...] = ()
    actors: tuple[int, ...] = ()  # seats still to take this building's action, premium first
    hospital: HospitalTurn | None = None


# -- actions ------------------------------------------------------------------------------


class ChooseSupply(msgspec.Struct, frozen=True, tag="choose_supply"):
    """Phase B: carry out the supply action printed on this round's building number `building`."""

    building: int


class LookAtNun(msgspec.Struct, frozen=True, tag="look_at_nun"):
    """Look at the Nun-row card at `position` (0-4), one you have not seen yet."""

    position: int


class PlayPass(msgspec.Struct, frozen=True, tag="play_pass"):
    """Phase C, at the start of your turn: play a Pass instead of entering now."""


class EnterBuilding(msgspec.Struct, frozen=True, tag="enter_building"):
    """Phase C: put a disc on the first free space of this round's building number `building`."""

    building: int


class PlayCard(msgspec.Struct, frozen=True, tag="play_card"):
    """Phase C, after entering: put one more card face down (population, Joker, Sword or Flute)."""

    card: str


class FinishEntering(msgspec.Struct, frozen=True, tag="finish_entering"):
    """Phase C: you have put down all the cards you want to play in your building."""


class ChooseVictim(msgspec.Struct, frozen=True, tag="choose_victim"):
    """A Sword or Flute winner picks which of the tied losers pays."""

    player: int


class GiveCard(msgspec.Struct, frozen=True, tag="give_card"):
    """Hand one card you owe (Sword loss or Guard Tower) to its receiver."""

    card: str


class DiscardForRat(msgspec.Struct, frozen=True, tag="discard_for_rat"):
    """Hospital: discard a card from your hand to discard one rat."""

    card: str


class StopDiscarding(msgspec.Struct, frozen=True, tag="stop_discarding"):
    """Hospital: discard no more cards."""


Action = (
    ChooseSupply
    | LookAtNun
    | PlayPass
    | EnterBuilding
    | PlayCard
    | FinishEntering
    | ChooseVictim
    | GiveCard
    | DiscardForRat
    | StopDiscarding
)


# -- events -------------------------------------------------------------------------------


class SupplyChosen(msgspec.Struct, frozen=True, tag="supply_chosen"):
    player: int
    building: int


class DeckReshuffled(msgspec.Struct, frozen=True, tag="deck_reshuffled"):
    """The discard pile, shuffled, goes under what is left of the population deck."""

    count: int
    order: tuple[str, ...] = ()  # blanked for every viewer
    rng_counter: int = 0  # blanked for every viewer


class CardsDrawn(msgspec.Struct, frozen=True, tag="cards_drawn"):
    player: int
    count: int
    cards: tuple[str, ...] = ()  # blanked for everyone but the drawer


class RatsDiscarded(msgspec.Struct, frozen=True, tag="rats_discarded"):
    """The rats a rule lets the player discard; a player with fewer discards all they have."""

    player: int
    count: int


class LooksGranted(msgspec.Struct, frozen=True, tag="looks_granted"):
    player: int
    count: int


class NunLooked(msgspec.Struct, frozen=True, tag="nun_looked"):
    player: int
    position: int
    card: str | None = None  # blanked for everyone but the looker


class EnteringStarted(msgspec.Struct, frozen=True, tag="entering_started"):
    order: tuple[int, ...]


class PassPlayed(msgspec.Struct, frozen=True, tag="pass_played"):
    player: int


class BuildingEntered(msgspec.Struct, frozen=True, tag="building_entered"):
    player: int
    building: int
    space: int  # 1 = first


class CardPlayed(msgspec.Struct, frozen=True, tag="card_played"):
    player: int
    card: str | None = None  # face down: blanked for everyone but the player


class EnteringFinished(msgspec.Struct, frozen=True, tag="entering_finished"):
    player: int
    cards: int


class ResolutionStarted(msgspec.Struct, frozen=True, tag="resolution_started"):
    """Phase D begins. Who takes each premium action follows from the face-down cards, so
    `premium` is blanked for every viewer; each building's holder is public at its reveal."""

    premium: tuple[int, ...] = ()  # per row building, -1 when nobody takes its premium action


class BuildingRevealed(msgspec.Struct, frozen=True, tag="building_revealed"):
    """Everyone in the building turns up their cards; gains are per entrant, in entry order."""

    building: int
    name: str
    entrants: tuple[int, ...]
    cards: tuple[tuple[str, ...], ...]
    influence: tuple[int, ...]
    rats: tuple[int, ...]
    duels: tuple[Duel, ...]
    actors: tuple[int, ...]
    premium: int = -1  # who takes the premium action here (or the final-round bonus)


class DuelLost(msgspec.Struct, frozen=True, tag="duel_lost"):
    kind: str
    winner: int
    loser: int
    cards_owed: int = 0  # Sword: half the loser's hand, rounded down


class CardGiven(msgspec.Struct, frozen=True, tag="card_given"):
    giver: int
    receiver: int
    card: str | None = None  # blanked for everyone but giver and receiver


class ActionTaken(msgspec.Struct, frozen=True, tag="action_taken"):
    building: int
    player: int
    premium: bool
    action: str  # the building id, or "final_round_bonus"


class SuppliesTaken(msgspec.Struct, frozen=True, tag="supplies_taken"):
    player: int
    kind: str
    count: int


class InfluenceGained(msgspec.Struct, frozen=True, tag="influence_gained"):
    player: int
    track: str
    amount: int


class HospitalOpened(msgspec.Struct, frozen=True, tag="hospital_opened"):
    player: int
    cards: int


class CardDiscardedForRat(msgspec.Struct, frozen=True, tag="card_discarded_for_rat"):
    player: int
    card: str


class HospitalLeft(msgspec.Struct, frozen=True, tag="hospital_left"):
    player: int


class TributeDemanded(msgspec.Struct, frozen=True, tag="tribute_demanded"):
    receiver: int
    givers: tuple[int, ...]
    counts: tuple[int, ...]


class BuildingCleared(msgspec.Struct, frozen=True, tag="building_cleared"):
    """Played population cards go to the discard pile, Jokers and specials back to the supply."""

    building: int


class RoundEnded(msgspec.Struct, frozen=True, tag="round_ended"):
    round: int
    last: bool
    next_start_player: int


class BuildingsRevealed(msgspec.Struct, frozen=True, tag="buildings_revealed"):
    round: int
    row: tuple[BuildingCard, ...]
    swaps: int  # "all the same building" redraws from the reserve


Event = (
    SupplyChosen
    | DeckReshuffled
    | CardsDrawn
    | RatsDiscarded
    | LooksGranted
    | NunLooked
    | EnteringStarted
    | PassPlayed
    | BuildingEntered
    | CardPlayed
    | EnteringFinished
    | ResolutionStarted
    | BuildingRevealed
    | DuelLost
    | CardGiven
    | ActionTaken
    | SuppliesTaken
    | InfluenceGained
    | HospitalOpened
    | CardDiscardedForRat
    | HospitalLeft
    | TributeDemanded
    | BuildingCleared
    | RoundEnded
    | BuildingsRevealed
)


# -- views --------------------------------------------------------------------------------


class SeatView(msgspec.Struct, frozen=True):
    player: int
    # The score a table shows: during play the public part (influence awards as the tracks stand
    # and victory-point tokens), the final score once the game is over.
    score: int
    hand_size: int
    played: int  # cards in front of them this round (face down until their building resolves)
    vp_tokens: int
    nun_looked: tuple[int, ...]  # Nun-row positions they have looked at (not what they saw)
    supply_choice: int
    looks_owed: int
    rats: int  # public: every gain and loss is a visible value-1 token from a known start


class TrackView(msgspec.Struct, frozen=True):
    track: str
    influence: tuple[int, ...]  # per seat
    standing: tuple[int, ...]  # seats best first; equal influence: the lower marker in the stack first


class View(msgspec.Struct, frozen=True):
    players: int
    viewer: int | None
    round: int
    rounds: int
    phase: str
    start_player: int
    active: tuple[int, ...]
    row: tuple[BuildingCard, ...]
    entries: tuple[tuple[int, ...], ...]
    premium: tuple[int, ...]  # per row building once it is revealed, else -1
    resolving: int
    revealed_cards: tuple[tuple[str, ...], ...]  # per seat: played cards that are face up
    hand: tuple[str, ...] | None
    my_played: tuple[str, ...] | None
    # The cards the viewer has seen (a spectator: those every seat has seen; all once the game is over).
    nun_row: tuple[str | None, ...]
    seats: tuple[SeatView, ...]
    tracks: tuple[TrackView, ...]
    supply: dict[str, int]
    deck_size: int
    discard: tuple[str, ...]
    building_deck_size: int
    reserve_size: int
    enter_queue: tuple[int, ...]
    placing: int
    duels: tuple[Duel, ...]
    gifts: tuple[Gift, ...]
    actors: tuple[int, ...]
    hospital: HospitalTurn | None
