"""Rattus Cartus: the types of its actions, events, views, options, outcome and game data.

Generated from schemas/rattus_cartus/ by `python -m guildhall_client.games.generate`: do not edit.
Views and events arrive as decoded JSON (dicts); these TypedDicts type them, e.g.
`view = cast(rattus_cartus.View, match_view.view)`, and type-check actions before they are sent.
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
    actors: list[int]
    building_deck_size: int
    deck_size: int
    discard: list[CardId | Literal[""]]
    duels: list[Duel]
    enter_queue: list[int]
    entries: list[list[int]]
    gifts: list[Gift]
    hand: list[CardId | Literal[""]] | None
    hospital: HospitalTurn | None
    my_played: list[CardId | Literal[""]] | None
    nun_row: list[CardId | Literal[""] | None]
    phase: PhaseId | Literal[""]
    placing: int
    players: int
    premium: list[int]
    reserve_size: int
    resolving: int
    revealed_cards: list[list[CardId | Literal[""]]]
    round: int
    rounds: int
    row: list[BuildingCard]
    seats: list[SeatView]
    start_player: int
    supply: dict[str, int]
    tracks: list[TrackView]
    viewer: int | None


class Options(TypedDict):
    """Match options. `buildings` is only read with building_selection="explicit"."""

    all_eliminated_lowest_rats_wins: NotRequired[bool]
    allow_guard_tower_with_two: NotRequired[bool]
    building_selection: NotRequired[Literal["explicit", "random_buildings", "random_cards", "recommended"]]
    buildings: NotRequired[list[str]]
    simultaneous_supplies: NotRequired[bool]
    vp_token_value: NotRequired[int]


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


class ActionTaken(TypedDict):
    action: BuildingActionId | Literal[""]
    building: int
    player: int
    premium: bool
    type: Literal["action_taken"]


class BuildingCard(TypedDict):
    """One building card: which building, which of its 5 copies, and its printed supply action."""

    building: str
    copy: int
    discard_rats: NotRequired[int]
    draw: NotRequired[int]
    look: NotRequired[int]


class BuildingCleared(TypedDict):
    """Played population cards go to the discard pile, Jokers and specials back to the supply."""

    building: int
    type: Literal["building_cleared"]


class BuildingEntered(TypedDict):
    building: int
    player: int
    space: int
    type: Literal["building_entered"]


BuildingEntry = TypedDict(
    "BuildingEntry",
    {
        "class": "str",
        "copies": "NotRequired[list[SupplyAction]]",
        "id": "str",
        "name": "NotRequired[str]",
        "name_es": "NotRequired[str]",
        "source": "NotRequired[str]",
    },
)


class BuildingRevealed(TypedDict):
    """Everyone in the building turns up their cards; gains are per entrant, in entry order."""

    actors: list[int]
    building: int
    cards: list[list[CardId | Literal[""]]]
    duels: list[Duel]
    entrants: list[int]
    influence: list[int]
    name: BuildingId | Literal[""]
    premium: NotRequired[int]
    rats: list[int]
    type: Literal["building_revealed"]


class BuildingsRevealed(TypedDict):
    round: int
    row: list[BuildingCard]
    swaps: int
    type: Literal["buildings_revealed"]


class CardDiscardedForRat(TypedDict):
    card: CardId | Literal[""]
    player: int
    type: Literal["card_discarded_for_rat"]


class CardGiven(TypedDict):
    card: NotRequired[CardId | Literal[""] | None]
    giver: int
    receiver: int
    type: Literal["card_given"]


class CardPlayed(TypedDict):
    card: NotRequired[CardId | Literal[""] | None]
    player: int
    type: Literal["card_played"]


class CardsDrawn(TypedDict):
    cards: NotRequired[list[CardId | Literal[""]]]
    count: int
    player: int
    type: Literal["cards_drawn"]


class Catalog(TypedDict):
    buildings: list[BuildingEntry]
    notice: str
    population: Population
    schema_version: int
    specials: Specials
    stand_in: bool


class ChooseSupply(TypedDict):
    """Phase B: carry out the supply action printed on this round's building number `building`."""

    building: int
    type: Literal["choose_supply"]


class ChooseVictim(TypedDict):
    """A Sword or Flute winner picks which of the tied losers pays."""

    player: int
    type: Literal["choose_victim"]


class DeckReshuffled(TypedDict):
    """The discard pile, shuffled, goes under what is left of the population deck."""

    count: int
    order: NotRequired[list[CardId | Literal[""]]]
    rng_counter: NotRequired[int]
    type: Literal["deck_reshuffled"]


class DiscardForRat(TypedDict):
    """Hospital: discard a card from your hand to discard one rat."""

    card: CardId | Literal[""]
    type: Literal["discard_for_rat"]


class Duel(TypedDict):
    """A Sword or Flute comparison in one building with a clear winner and the tied losers."""

    candidates: list[int]
    kind: SpecialId | Literal[""]
    winner: int


class DuelLost(TypedDict):
    cards_owed: NotRequired[int]
    kind: SpecialId | Literal[""]
    loser: int
    type: Literal["duel_lost"]
    winner: int


class EnterBuilding(TypedDict):
    """Phase C: put a disc on the first free space of this round's building number `building`."""

    building: int
    type: Literal["enter_building"]


class EnteringFinished(TypedDict):
    cards: int
    player: int
    type: Literal["entering_finished"]


class EnteringStarted(TypedDict):
    order: list[int]
    type: Literal["entering_started"]


class FinishEntering(TypedDict):
    """Phase C: you have put down all the cards you want to play in your building."""

    type: Literal["finish_entering"]


class Gift(TypedDict):
    """Cards `giver` still owes `receiver` (a lost Sword duel or a Guard Tower premium)."""

    count: int
    giver: int
    receiver: int


class GiveCard(TypedDict):
    """Hand one card you owe (Sword loss or Guard Tower) to its receiver."""

    card: CardId | Literal[""]
    type: Literal["give_card"]


class HospitalLeft(TypedDict):
    player: int
    type: Literal["hospital_left"]


class HospitalOpened(TypedDict):
    cards: int
    player: int
    type: Literal["hospital_opened"]


class HospitalTurn(TypedDict):
    """A Hospital visitor who may still discard up to `cards` cards, one rat each."""

    cards: int
    player: int


class InfluenceGained(TypedDict):
    amount: int
    player: int
    track: InfluenceTrackId | Literal[""]
    type: Literal["influence_gained"]


class LookAtNun(TypedDict):
    """Look at the Nun-row card at `position` (0-4), one you have not seen yet."""

    position: int
    type: Literal["look_at_nun"]


class LooksGranted(TypedDict):
    count: int
    player: int
    type: Literal["looks_granted"]


class NunLooked(TypedDict):
    card: NotRequired[CardId | Literal[""] | None]
    player: int
    position: int
    type: Literal["nun_looked"]


class PassPlayed(TypedDict):
    player: int
    type: Literal["pass_played"]


class PlayCard(TypedDict):
    """Phase C, after entering: put one more card face down (population, Joker, Sword or Flute)."""

    card: CardId | Literal[""]
    type: Literal["play_card"]


class PlayPass(TypedDict):
    """Phase C, at the start of your turn: play a Pass instead of entering now."""

    type: Literal["play_pass"]


class Population(TypedDict):
    nuns: dict[str, list[int]]
    source: NotRequired[str]


class RatsDiscarded(TypedDict):
    """The rats a rule lets the player discard; a player with fewer discards all they have."""

    count: int
    player: int
    type: Literal["rats_discarded"]


class ResolutionStarted(TypedDict):
    """Phase D begins. Who takes each premium action follows from the face-down cards, so
    `premium` is blanked for every viewer; each building's holder is public at its reveal.
    """

    premium: NotRequired[list[int]]
    type: Literal["resolution_started"]


class RoundEnded(TypedDict):
    last: bool
    next_start_player: int
    round: int
    type: Literal["round_ended"]


class SeatView(TypedDict):
    hand_size: int
    looks_owed: int
    nun_looked: list[int]
    played: int
    player: int
    rats: int
    score: int
    supply_choice: int
    vp_tokens: int


class Specials(TypedDict):
    flutes: int
    gold: int
    jokers: int
    passes: int
    source: NotRequired[str]
    swords: int
    vp_tokens: int


class StopDiscarding(TypedDict):
    """Hospital: discard no more cards."""

    type: Literal["stop_discarding"]


class SuppliesTaken(TypedDict):
    count: int
    kind: SpecialId | Literal[""]
    player: int
    type: Literal["supplies_taken"]


class SupplyAction(TypedDict):
    """The supply action printed on one building card (phase B)."""

    discard_rats: NotRequired[int]
    draw: NotRequired[int]
    look: NotRequired[int]
    source: NotRequired[str]


class SupplyChosen(TypedDict):
    building: int
    player: int
    type: Literal["supply_chosen"]


class TrackView(TypedDict):
    influence: list[int]
    standing: list[int]
    track: InfluenceTrackId | Literal[""]


class TributeDemanded(TypedDict):
    counts: list[int]
    givers: list[int]
    receiver: int
    type: Literal["tribute_demanded"]


Action: TypeAlias = (
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
"""Rattus Cartus action"""
Event: TypeAlias = (
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
"""Rattus Cartus event"""
BuildingActionId: TypeAlias = Literal[
    "brewery",
    "castle",
    "farm",
    "final_round_bonus",
    "fortune_tellers_tent",
    "guard_tower",
    "hospital",
    "marketplace",
    "monastery",
    "office",
    "palace",
    "pipers_hut",
    "treasury",
]
"""An id of a building action of Rattus Cartus's game data."""
BuildingId: TypeAlias = Literal[
    "brewery",
    "castle",
    "farm",
    "fortune_tellers_tent",
    "guard_tower",
    "hospital",
    "marketplace",
    "monastery",
    "office",
    "palace",
    "pipers_hut",
    "treasury",
]
"""An id of a building of Rattus Cartus's game data."""
CardId: TypeAlias = Literal[
    "bourgeoisie:0",
    "bourgeoisie:1",
    "bourgeoisie:2",
    "bourgeoisie:3",
    "bourgeoisie:4",
    "chivalry:0",
    "chivalry:1",
    "chivalry:2",
    "chivalry:3",
    "chivalry:4",
    "church:0",
    "church:1",
    "church:2",
    "church:3",
    "church:4",
    "flute",
    "gold",
    "joker",
    "magic:0",
    "magic:1",
    "magic:2",
    "magic:3",
    "magic:4",
    "pass",
    "peasantry:0",
    "peasantry:1",
    "peasantry:2",
    "peasantry:3",
    "peasantry:4",
    "royalty:0",
    "royalty:1",
    "royalty:2",
    "royalty:3",
    "royalty:4",
    "sword",
]
"""An id of a card of Rattus Cartus's game data."""
InfluenceTrackId: TypeAlias = Literal["bourgeoisie", "chivalry", "church", "magic", "peasantry", "royalty"]
"""An id of a influence track of Rattus Cartus's game data."""
PhaseId: TypeAlias = Literal["draw", "enter", "over", "resolve", "supplies"]
"""An id of a phase of Rattus Cartus's game data."""
SpecialId: TypeAlias = Literal["flute", "gold", "joker", "pass", "sword", "vp_token"]
"""An id of a special of Rattus Cartus's game data."""
