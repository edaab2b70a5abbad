"""Bruges: the types of its actions, events, views, options, outcome and game data.

Generated from schemas/bruges/ by `python -m guildhall_client.games.generate`: do not edit.
Views and events arrive as decoded JSON (dicts); these TypedDicts type them, e.g.
`view = cast(bruges.View, match_view.view)`, and type-check actions before they are sent.
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
    allowed: int
    canal_costs: list[int]
    current: int
    dice: dict[str, int]
    discard: list[int]
    extra_in: bool
    extra_size: int
    last_round: int
    phase: PhaseId | Literal[""]
    pile_sizes: list[int]
    pile_tops: list[str]
    played: int
    players: int
    queue: list[int]
    reputation_cost: int
    reputation_points: list[int]
    round: int
    seats: list[SeatView]
    start: int
    statues: list[int]
    tasks: list[Task]
    viewer: int | None


class Options(TypedDict):
    """Match options (decided before the game starts)."""

    first_player: NotRequired[int]


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


class Activate(TypedDict):
    """Use the person on your house `house`; `target` is a canal section for the Acrobat."""

    house: int
    target: NotRequired[int]
    type: Literal["activate"]


class Board(TypedDict):
    canal_costs: list[int]
    guard_houses: list[GuardHouse]
    reputation_points: list[int]
    source: NotRequired[str]
    stand_in: NotRequired[bool]
    statues: list[int]


class BuyReputation(TypedDict):
    """Pay this round's price for one reputation step (`advance`), or decline."""

    advance: bool
    type: Literal["buy_reputation"]


class CalamityStruck(TypedDict):
    """A third marker: the three go back (no points) and the penalty follows (blue, yellow,
    purple at once; brown and red as a task).
    """

    colour: ColourId | Literal[""]
    player: int
    type: Literal["calamity_struck"]


class CanalBuilt(TypedDict):
    cost: int
    player: int
    section: int
    type: Literal["canal_built"]


class CanalRemoved(TypedDict):
    player: int
    section: int
    task: NotRequired[str]
    type: Literal["canal_removed"]


class CardDiscarded(TypedDict):
    card: int
    player: int
    task: NotRequired[str]
    type: Literal["card_discarded"]


class CardDrawn(TypedDict):
    """`card` is -1 for everybody but a drawer who may look at it (`seen`)."""

    card: int
    colour: ColourId | Literal[""]
    pile: int
    player: int
    seen: bool
    task: NotRequired[str]
    type: Literal["card_drawn"]


class CardPlayed(TypedDict):
    """A card leaves the hand: to the discard pile, face down as a house (`card` -1 for others),
    or onto house `target` as a person. `cost` guilders and `worker` (a colour) are paid.
    """

    action: CardActionId | Literal[""]
    card: int
    colour: ColourId | Literal[""]
    cost: NotRequired[int]
    extra: NotRequired[bool]
    player: int
    target: NotRequired[int]
    type: Literal["card_played"]
    worker: NotRequired[str]


class Catalog(TypedDict):
    board: Board
    notice: str
    persons: list[Person]
    schema_version: int
    stand_in: bool


class DiceRolled(TypedDict):
    dice: list[int]
    rng_counter: int
    type: Literal["dice_rolled"]


class DiscardCard(TypedDict):
    card: int
    type: Literal["discard_card"]


class DrawCard(TypedDict):
    """Draw the top card of draw pile 0 or 1 (only the colour of its back is known)."""

    pile: int
    type: Literal["draw_card"]


class EndTurn(TypedDict):
    """Finish your turn (after playing your card)."""

    type: Literal["end_turn"]


class ExtraPlayGranted(TypedDict):
    player: int
    type: Literal["extra_play_granted"]


class Gained(TypedDict):
    """Guilders, workers (per colour) and points gained (or lost); `why` names the cause."""

    guilders: NotRequired[int]
    player: int
    points: NotRequired[int]
    reputation: NotRequired[int]
    type: Literal["gained"]
    why: str
    workers: NotRequired[list[int]]


class GameEnded(TypedDict):
    round: int
    type: Literal["game_ended"]


class GiveWorker(TypedDict):
    colour: ColourId | Literal[""]
    type: Literal["give_worker"]


class GuardHouse(TypedDict):
    """The two canal sections beside one guard house: space colours from the seal outward."""

    left: list[str]
    right: list[str]
    source: NotRequired[str]
    stand_in: NotRequired[bool]


class HandLooked(TypedDict):
    """A seat finished drawing and looks at its hand (`cards` blank for others)."""

    cards: list[int]
    player: int
    type: Literal["hand_looked"]


class HouseLost(TypedDict):
    """Fire: the house card is discarded (face up); its person goes back to the hand."""

    card: int
    house: int
    person: int
    player: int
    task: NotRequired[str]
    type: Literal["house_lost"]


class HouseView(TypedDict):
    card: int | None
    colour: ColourId | Literal[""]
    person: int
    used: bool


class LastRoundSet(TypedDict):
    round: int
    type: Literal["last_round_set"]


class MajoritiesChecked(TypedDict):
    """Phase 4: per majority (MAJORITIES order) the seat that flips its marker, -1 for none."""

    type: Literal["majorities_checked"]
    winners: list[int]


class Person(TypedDict):
    """One card: its colour (both sides), the person on its front and the effect primitive the
    person uses with its parameters.
    """

    amount: NotRequired[int]
    colour: str
    effect: str
    group: str
    icon: str
    id: int
    name: str
    name_de: NotRequired[str]
    param_action: NotRequired[str]
    param_colour: NotRequired[str]
    param_group: NotRequired[str]
    points: int
    price: int
    source: NotRequired[str]
    stand_in: NotRequired[bool]
    threshold: NotRequired[int]
    verified: NotRequired[list[str]]
    worker: NotRequired[str]


class PersonActivated(TypedDict):
    """The person on `house` is used (rotated unless permanent); `worker` is the colour paid."""

    house: int
    person: int
    player: int
    type: Literal["person_activated"]
    worker: NotRequired[str]


class PersonLost(TypedDict):
    """Plague: the person on `house` goes to the discard pile; the house stays."""

    house: int
    person: int
    player: int
    task: NotRequired[str]
    type: Literal["person_lost"]


class PhaseStarted(TypedDict):
    """REPUTATION (with the seats that can pay, in turn order) or PLAY (four cards each)."""

    cost: NotRequired[int]
    phase: PhaseId | Literal[""]
    queue: NotRequired[list[int]]
    type: Literal["phase_started"]


class PileReplaced(TypedDict):
    """An empty draw pile is replaced by the extra pile (`split` false) or, once the extra pile is
    in play, the other pile is split in two (`split` true).
    """

    pile: int
    sizes: list[int]
    split: bool
    type: Literal["pile_replaced"]


class PlayCard(TypedDict):
    """Play a hand card for one of the six actions; `target` is the canal section (canal) or the
    empty house (recruit), -1 otherwise.
    """

    action: CardActionId | Literal[""]
    card: int
    target: NotRequired[int]
    type: Literal["play_card"]


class RemoveCanal(TypedDict):
    section: int
    type: Literal["remove_canal"]


class ReputationBought(TypedDict):
    advanced: bool
    cost: int
    player: int
    type: Literal["reputation_bought"]


class ReturnThreat(TypedDict):
    colour: ColourId | Literal[""]
    type: Literal["return_threat"]


class RoundEnded(TypedDict):
    next_start: int
    round: int
    type: Literal["round_ended"]


class RoundStarted(TypedDict):
    round: int
    start: int
    type: Literal["round_started"]


class SeatView(TypedDict):
    canal_spaces: list[list[str]]
    canals: list[int]
    guilders: int
    hand: list[int] | None
    hand_colours: list[ColourId | Literal[""]]
    hand_size: int
    houses: list[HouseView]
    known_hand: list[int]
    majorities: dict[str, bool]
    player: int
    plays_left: int
    reputation: int
    score: int
    statues: list[int]
    threats: dict[str, int]
    workers: dict[str, int]


class StatueTaken(TypedDict):
    player: int
    section: int
    type: Literal["statue_taken"]
    value: int


class StopDrawing(TypedDict):
    """Keep five cards although a person (Inventor) lets you draw more."""

    type: Literal["stop_drawing"]


class SufferCalamity(TypedDict):
    """Resolve a pending brown (Plague: `house` loses its person) or red calamity (Fire: lose
    house `house`, or the outermost canal token of `section`).
    """

    colour: ColourId | Literal[""]
    house: NotRequired[int]
    section: NotRequired[int]
    type: Literal["suffer_calamity"]


class Task(TypedDict):
    """A decision `seat` owes `count` times before play goes on (see TASK_KINDS)."""

    count: NotRequired[int]
    kind: TaskId | Literal[""]
    other: NotRequired[int]
    seat: int


class TaskDropped(TypedDict):
    """A task nobody can carry out (nothing left to give, draw or lose) is void."""

    kind: TaskId | Literal[""]
    seat: int
    type: Literal["task_dropped"]


class TasksAdded(TypedDict):
    tasks: list[Task]
    type: Literal["tasks_added"]


class ThreatReturned(TypedDict):
    """One threat marker back to the supply and one point [SEED: every discarded marker]."""

    colour: ColourId | Literal[""]
    player: int
    task: NotRequired[str]
    type: Literal["threat_returned"]


class ThreatTaken(TypedDict):
    colour: ColourId | Literal[""]
    player: int
    type: Literal["threat_taken"]


class TurnEnded(TypedDict):
    player: int
    type: Literal["turn_ended"]


class TurnStarted(TypedDict):
    player: int
    type: Literal["turn_started"]


class WorkerGiven(TypedDict):
    colour: ColourId | Literal[""]
    player: int
    task: NotRequired[str]
    to: int
    type: Literal["worker_given"]


Action: TypeAlias = (
    DrawCard
    | StopDrawing
    | BuyReputation
    | PlayCard
    | Activate
    | EndTurn
    | DiscardCard
    | ReturnThreat
    | GiveWorker
    | RemoveCanal
    | SufferCalamity
)
"""Bruges action"""
Event: TypeAlias = (
    RoundStarted
    | CardDrawn
    | PileReplaced
    | LastRoundSet
    | HandLooked
    | DiceRolled
    | ThreatTaken
    | CalamityStruck
    | ReputationBought
    | PhaseStarted
    | TurnStarted
    | CardPlayed
    | Gained
    | ThreatReturned
    | CanalBuilt
    | StatueTaken
    | CanalRemoved
    | PersonActivated
    | ExtraPlayGranted
    | TasksAdded
    | TaskDropped
    | CardDiscarded
    | WorkerGiven
    | PersonLost
    | HouseLost
    | TurnEnded
    | MajoritiesChecked
    | RoundEnded
    | GameEnded
)
"""Bruges event"""
CardActionId: TypeAlias = Literal["canal", "guilders", "house", "recruit", "threat", "workers"]
"""An id of a card action of Bruges's game data."""
ColourId: TypeAlias = Literal["blue", "brown", "purple", "red", "yellow"]
"""An id of a colour of Bruges's game data."""
PhaseId: TypeAlias = Literal["calamity", "draw", "over", "play", "reputation"]
"""An id of a phase of Bruges's game data."""
TaskId: TypeAlias = Literal["discard", "draw", "fire", "give_workers", "lose_canal", "plague", "threat"]
"""An id of a task of Bruges's game data."""
