"""Discworld: Ankh-Morpork: the types of its actions, events, views, options, outcome and game data.

Generated from schemas/ankh_morpork/ by `python -m guildhall_client.games.generate`: do not edit.
Views and events arrive as decoded JSON (dicts); these TypedDicts type them, e.g.
`view = cast(ankh_morpork.View, match_view.view)`, and type-check actions before they are sent.
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
    areas: list[AreaView]
    current: int
    deck_size: int
    discard: list[CardId | Literal[""]]
    end_reason: str
    events_done: list[EventId | Literal[""]]
    events_left: int
    gained: list[int]
    over: bool
    pending: list[Frame]
    played: list[CardId | Literal[""]]
    players: int
    seats: list[SeatView]
    shown_hand: list[CardId | Literal[""]] | None
    turn: int
    unused_personalities: int
    used_abilities: list[int]
    viewer: int | None
    winners: list[int]


class Options(TypedDict):
    """Match options. The rulebook has no variants; these settle its open questions."""

    demons_void_scoring: NotRequired[bool]


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


class AbilityUsed(TypedDict):
    area: int
    player: int
    type: Literal["ability_used"]


class Area(TypedDict):
    ability: str
    adjacent: list[int]
    amount: NotRequired[int]
    cost: int
    name: str
    number: int
    river: bool
    source: NotRequired[str]


class AreaView(TypedDict):
    area: int
    building: int
    card_lost: bool
    controller: int
    demons: int
    minions: list[int]
    name: str
    trolls: int
    trouble: bool


class Assassinate(TypedDict):
    """Remove a minion of `owner` (a seat, -1 troll, -2 demon) from a troubled `area`."""

    area: int
    owner: int
    type: Literal["assassinate"]


class Build(TypedDict):
    """Place a building in `area`; with all 6 on the board take yours off `from_area` first."""

    area: int
    from_area: NotRequired[int]
    type: Literal["build"]


class BuildingPlaced(TypedDict):
    area: int
    cost: int
    from_area: NotRequired[int]
    paid_to: NotRequired[int]
    player: int
    type: Literal["building_placed"]


class BuildingRemoved(TypedDict):
    area: int
    owner: int
    type: Literal["building_removed"]


class Card(TypedDict):
    amount: NotRequired[int]
    area: NotRequired[int]
    count: NotRequired[int]
    deck: str
    effect: NotRequired[str]
    id: str
    interrupt: NotRequired[str]
    lose: NotRequired[str]
    name: str
    penalty: NotRequired[int]
    source: NotRequired[str]
    stand_in: NotRequired[bool]
    symbols: list[str]
    two_player: NotRequired[bool]
    win: NotRequired[str]


class CardDiscarded(TypedDict):
    card: CardId | Literal[""]
    player: int
    type: Literal["card_discarded"]


class CardFinished(TypedDict):
    """A played card leaves the table: to the discard pile, in front of a seat (a loan, a
    penalty card) or back to its player's hand (Doctor Mossy Lawn).
    """

    card: CardId | Literal[""]
    holder: NotRequired[int]
    player: int
    to: NotRequired[str]
    type: Literal["card_finished"]


class CardPlayed(TypedDict):
    card: CardId | Literal[""]
    interrupt: NotRequired[bool]
    player: int
    type: Literal["card_played"]


class CardsDrawn(TypedDict):
    """Cards from the top of the draw pile into a hand (blanked for other viewers)."""

    cards: NotRequired[list[CardId | Literal[""]]]
    count: int
    player: int
    type: Literal["cards_drawn"]


class CardsGiven(TypedDict):
    """Cards from one hand to another (blanked but for the two seats)."""

    cards: NotRequired[list[CardId | Literal[""]]]
    count: int
    giver: int
    receiver: int
    type: Literal["cards_given"]


class CardsTaken(TypedDict):
    """Stanley: cards taken at random from `victim`'s hand, held by `taker` until one goes back."""

    cards: NotRequired[list[CardId | Literal[""]]]
    count: int
    taker: int
    type: Literal["cards_taken"]
    victim: int


class Catalog(TypedDict):
    areas: list[Area]
    cards: list[Card]
    events: list[RandomEvent]
    notice: str
    personalities: list[Personality]
    schema_version: int
    stand_in: bool


class ChooseArea(TypedDict):
    area: int
    type: Literal["choose_area"]


class ChooseCard(TypedDict):
    card: CardId | Literal[""]
    type: Literal["choose_card"]


class ChooseMinion(TypedDict):
    area: int
    owner: int
    type: Literal["choose_minion"]


class ChooseOption(TypedDict):
    """A named choice the pending step offers: "pay", "refuse", "money"."""

    option: str
    type: Literal["choose_option"]


class ChoosePlayer(TypedDict):
    player: int
    type: Literal["choose_player"]


class CityCardLost(TypedDict):
    area: int
    type: Literal["city_card_lost"]


class DeckDiscarded(TypedDict):
    """Fog: the top cards of the draw pile go face up to the discard pile."""

    cards: list[CardId | Literal[""]]
    type: Literal["deck_discarded"]


class DieRolled(TypedDict):
    player: int
    reason: str
    type: Literal["die_rolled"]
    value: int


class DiscardDrawn(TypedDict):
    """History Monks: cards drawn at random from the face-up discard pile."""

    cards: list[CardId | Literal[""]]
    player: int
    type: Literal["discard_drawn"]


class EndTurn(TypedDict):
    """Finish your turn: refill your hand to five cards."""

    type: Literal["end_turn"]


class EventDrawn(TypedDict):
    event: EventId | Literal[""]
    player: int
    type: Literal["event_drawn"]


class Frame(TypedDict):
    """One pending step. `kind` names it (see rules.FRAME_KINDS); the other fields are its
    arguments. `cards` may be secret (Stanley's two cards): views show it to `player` only.
    """

    actor: NotRequired[int]
    area: NotRequired[int]
    areas: NotRequired[list[int]]
    card: NotRequired[str]
    cards: NotRequired[list[str]]
    count: NotRequired[int]
    flag: NotRequired[bool]
    kind: str
    mode: NotRequired[str]
    owner: NotRequired[int]
    player: NotRequired[int]
    seats: NotRequired[list[int]]
    source: NotRequired[str]
    step: NotRequired[int]
    target: NotRequired[int]
    to_area: NotRequired[int]


class GameEnded(TypedDict):
    personalities: list[PersonalityId | Literal[""]]
    reason: str
    type: Literal["game_ended"]
    winners: list[int]


class HandShown(TypedDict):
    """Cable Street Particulars: `owner` shows their hand to `viewer` only."""

    cards: NotRequired[list[CardId | Literal[""]]]
    owner: int
    type: Literal["hand_shown"]
    viewer: int


class HandsSwapped(TypedDict):
    first: int
    second: int
    type: Literal["hands_swapped"]


class Interrupted(TypedDict):
    """An interrupt or Small Gods stopped, or changed, the step at stake."""

    card: ReactionId | Literal[""]
    player: int
    type: Literal["interrupted"]
    what: str


class MinionMoved(TypedDict):
    area: int
    from_area: int
    owner: int
    trouble: NotRequired[bool]
    type: Literal["minion_moved"]


class MinionPlaced(TypedDict):
    area: int
    from_area: NotRequired[int]
    owner: int
    quiet: NotRequired[bool]
    trouble: NotRequired[bool]
    type: Literal["minion_placed"]


class MinionRemoved(TypedDict):
    area: int
    by: NotRequired[int]
    owner: int
    type: Literal["minion_removed"]


class MoveMinion(TypedDict):
    """Move one of your minions from `from_area` to `area` (Flood, Rincewind, Dorfl...)."""

    area: int
    from_area: int
    type: Literal["move_minion"]


class Paid(TypedDict):
    """Money moves: `payer` or `payee` -1 is the bank."""

    amount: int
    payee: int
    payer: int
    type: Literal["paid"]


class PersonalitiesSeen(TypedDict):
    """Mrs Cake: the unused personalities shown to `player` (blanked for others)."""

    cards: NotRequired[list[PersonalityId | Literal[""]]]
    count: int
    player: int
    type: Literal["personalities_seen"]


class Personality(TypedDict):
    goal: str
    id: str
    name: str
    source: NotRequired[str]
    stand_in: NotRequired[bool]
    thresholds: list[int]
    two_player: NotRequired[bool]


class PersonalitySwapped(TypedDict):
    """Zorgo: ids blanked but for the player."""

    new: NotRequired[str]
    old: NotRequired[str]
    player: int
    type: Literal["personality_swapped"]


class PlaceMinion(TypedDict):
    """Place a minion in `area`; with all 12 on the board take one off `from_area` first."""

    area: int
    from_area: NotRequired[int]
    type: Literal["place_minion"]


class PlayCard(TypedDict):
    """Play a card from your hand (your turn's card, 'play another card', Drumknott)."""

    card: CardId | Literal[""]
    type: Literal["play_card"]


class PlayInterrupt(TypedDict):
    card: CardId | Literal[""]
    type: Literal["play_interrupt"]


class RandomEvent(TypedDict):
    amount: NotRequired[int]
    effect: str
    id: str
    name: str
    source: NotRequired[str]
    stand_in: NotRequired[bool]


class RemoveTrouble(TypedDict):
    area: int
    type: Literal["remove_trouble"]


class RngAdvanced(TypedDict):
    counter: int
    type: Literal["rng_advanced"]


class Scroll(TypedDict):
    """Do the card's scroll text."""

    type: Literal["scroll"]


class SeatView(TypedDict):
    buildings_in_supply: int
    hand: list[CardId | Literal[""]] | None
    hand_size: int
    loans: list[CardId | Literal[""]]
    minions_in_supply: int
    money: int
    penalties: list[CardId | Literal[""]]
    personality: PersonalityId | Literal[""] | None
    player: int
    score: int


class Skip(TypedDict):
    """Do not do the offered optional thing (a symbol, an interrupt, more discards)."""

    type: Literal["skip"]


class StackSet(TypedDict):
    """The pending steps after this point (`cards` of a frame blanked for other viewers)."""

    stack: list[Frame]
    type: Literal["stack_set"]


class SymbolDone(TypedDict):
    """A symbol of the card being resolved was done or skipped."""

    card: CardId | Literal[""]
    player: int
    skipped: NotRequired[bool]
    symbol: str
    type: Literal["symbol_done"]


class TakeMoney(TypedDict):
    """The card's money symbol: take its amount from the bank."""

    type: Literal["take_money"]


class TroublePlaced(TypedDict):
    area: int
    type: Literal["trouble_placed"]


class TroubleRemoved(TypedDict):
    area: int
    type: Literal["trouble_removed"]


class TurnStarted(TypedDict):
    player: int
    turn: int
    type: Literal["turn_started"]


class UseAbility(TypedDict):
    """Use the City Area card of `area` (Small Gods: pay $3 to protect the piece at stake)."""

    area: int
    type: Literal["use_ability"]


Action: TypeAlias = (
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
"""Discworld: Ankh-Morpork action"""
Event: TypeAlias = (
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
"""Discworld: Ankh-Morpork event"""
CardId: TypeAlias = Literal[
    "adora_belle_dearheart",
    "agony_aunts",
    "alchemists_guild",
    "archchancellor_ridcully",
    "bank_of_ankh_morpork",
    "beggars_guild",
    "buggy_swires",
    "burleigh_and_stronginthearm",
    "cable_street_particulars",
    "canting_crew",
    "captain_carrot",
    "carcer",
    "chair_of_indefinite_studies",
    "cmot_dibbler",
    "cosmo_lavish",
    "death",
    "deep_dwarves",
    "doctor_hix",
    "doctor_mossy_lawn",
    "dorfl",
    "dr_cruces",
    "dr_whiteface",
    "drumknott",
    "dwarves",
    "edward_death",
    "errol",
    "fire_brigade",
    "fools_guild",
    "foul_ole_ron",
    "fresh_start_club",
    "gargoyles",
    "gaspode",
    "gimlets_dwarf_delicatessen",
    "groat",
    "hargas_house_of_ribs",
    "harry_king",
    "here_n_now",
    "hex",
    "history_monks",
    "hobsons_livery_stable",
    "hubert",
    "igor",
    "inigo_skimmer",
    "leonard_of_quirm",
    "librarian",
    "lord_downey",
    "mended_drum",
    "modo",
    "moist_von_lipwig",
    "mr_bent",
    "mr_boggis",
    "mr_gryle",
    "mr_pin_and_mr_tulip",
    "mr_shine",
    "mr_slant",
    "mr_teatime",
    "mrs_cake",
    "nobby_nobbs",
    "opera_house",
    "otto_chriek",
    "patricians_palace",
    "peeled_nuts",
    "pink_pussy_cat_club",
    "ponder_stibbons",
    "post_office",
    "professor_of_recent_runes",
    "queen_molly",
    "reacher_gilt",
    "rincewind",
    "rosie_palm",
    "royal_mint",
    "ruby",
    "sacharissa_cripslock",
    "seamstresses_guild",
    "senior_wrangler",
    "sergeant_angua",
    "sergeant_cheery_littlebottom",
    "sergeant_colon",
    "sergeant_detritus",
    "shonky_shop",
    "sir_charles_lavatory",
    "smoking_gnu",
    "stanley",
    "sunshine_dragon_sanctuary",
    "susan",
    "sybil_vimes",
    "the_auditors",
    "the_bursar",
    "the_clacks",
    "the_dean",
    "the_duckman",
    "the_dysk",
    "the_luggage",
    "the_mob",
    "the_watch",
    "thieves_guild",
    "wallace_sonky",
    "wee_mad_arthur",
    "william_de_worde",
    "willikins",
    "zorgo",
]
"""An id of a card of Discworld: Ankh-Morpork's game data."""
EventId: TypeAlias = Literal[
    "bloody_stupid_johnson",
    "demons_from_the_dungeon_dimensions",
    "earthquake",
    "explosion",
    "fire",
    "flood",
    "fog",
    "mysterious_murders",
    "riots",
    "subsidence",
    "the_dragon",
    "trolls",
]
"""An id of a event of Discworld: Ankh-Morpork's game data."""
PersonalityId: TypeAlias = Literal[
    "chrysoprase",
    "commander_vimes",
    "dragon_king_of_arms",
    "lord_de_worde",
    "lord_rust",
    "lord_selachii",
    "lord_vetinari",
]
"""An id of a personality of Discworld: Ankh-Morpork's game data."""
ReactionId: TypeAlias = Literal[
    "doctor_mossy_lawn", "fresh_start_club", "gaspode", "igor", "small_gods", "susan", "wallace_sonky"
]
"""An id of a reaction of Discworld: Ankh-Morpork's game data."""
