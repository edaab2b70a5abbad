"""Lords of Waterdeep: the types of its actions, events, views, options, outcome and game data.

Generated from schemas/waterdeep/ by `python -m guildhall_client.games.generate`: do not edit.
Views and events arrive as decoded JSON (dicts); these TypedDicts type them, e.g.
`view = cast(waterdeep.View, match_view.view)`, and type-check actions before they are sent.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

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
]


class View(TypedDict):
    active: list[int]
    ambassador: int
    buildings: list[Building]
    current: int
    first: int
    hall: list[str]
    hall_vp: list[int]
    inn: list[str]
    intrigue_deck_size: int
    intrigue_discard: list[str]
    pending: list[EventDecision]
    phase: str
    placed: list[Placed]
    players: int
    quest_deck_size: int
    quest_discard: list[str]
    reassigning: bool
    revealed: list[str]
    round: int
    seats: list[SeatView]
    stack_size: int
    viewer: int | None


class Options(TypedDict):
    """Match options."""

    larissa: NotRequired[bool]


class Outcome(TypedDict):
    """A finished game: who won (several on a shared win, none if all lost) and every result.
    `reason`: how it ended, in a sentence a person reads (names from the game data, no seat
    named: a client says who won with the names chosen at the table).
    """

    reason: NotRequired[str]
    results: list[PlayerResult]
    winners: list[int]


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


class Rejection(TypedDict):
    """Why an action was refused: a stable `code` and a message a player understands."""

    code: Literal[
        "not_your_turn",
        "illegal_action",
        "game_over",
        "unknown_player",
        "unknown_action",
        "stale_version",
        "unknown_match",
        "wrong_game",
        "command_id_in_use",
        "seat_taken",
        "bad_invite",
        "cannot_undo",
    ]
    message: str


class Decision(TypedDict):
    """What one seat is asked now. `simultaneous`: other seats decide at the same time, unseen."""

    key: NotRequired[str]
    options: list[Option]
    prompt: str
    seat: int
    simultaneous: NotRequired[bool]


class Description(TypedDict):
    """An event as a log line: `template` with `{name}` slots for `args`, and `text` rendered
    with the default names. `internal`: engine bookkeeping a log may leave out.
    """

    args: NotRequired[list[Arg]]
    internal: NotRequired[bool]
    key: str
    template: str
    text: str


class ActionBegun(TypedDict):
    """A building space or an intrigue card starts to resolve (plot quests fire once per action)."""

    player: int
    type: Literal["action_begun"]
    what: str


class AgentPlaced(TypedDict):
    ambassador: NotRequired[bool]
    from_pool: NotRequired[bool]
    orb: NotRequired[bool]
    player: int
    shares: NotRequired[str]
    space: str
    type: Literal["agent_placed"]


class AgentRemoved(TypedDict):
    """An agent leaves a space (reassignment, Recall Agent, Research Chronomancy, Accelerate Plans)."""

    ambassador: NotRequired[bool]
    player: int
    shares: NotRequired[str]
    space: str
    to_pool: bool
    type: Literal["agent_removed"]


class AmbassadorTaken(TypedDict):
    player: int
    type: Literal["ambassador_taken"]


class Arg(TypedDict):
    """A named argument of a description: its text, and what it stands for (a seat, a card...)."""

    id: NotRequired[str]
    kind: NotRequired[str]
    name: str
    text: str


class Building(TypedDict):
    """A purchased Building tile in play, its owner and what has piled up on it (RES order)."""

    owner: int
    stock: NotRequired[list[int]]
    tile: str


class BuildingBought(TypedDict):
    """A tile goes into play under `player`: from Builder's Hall `slot` (its VP tokens are
    scored), or from the top of the stack (`slot` -1).
    """

    cost: int
    player: int
    slot: int
    tile: str
    type: Literal["building_bought"]
    vp: int


class BuildingDiscarded(TypedDict):
    player: int
    tile: str
    type: Literal["building_discarded"]


class Catalog(TypedDict):
    buildings: list[Tile]
    intrigues: list[Intrigue]
    lords: list[Lord]
    notice: str
    quests: list[Quest]
    schema_version: int
    spaces: list[Space]
    stand_in: bool


class Choice(TypedDict):
    """One step of an option: `step` is the question ("Which broker?"), `label` the answer in
    words; `kind` and `id` name what it stands for in the game data (empty for a plain value).
    """

    id: NotRequired[str]
    kind: NotRequired[str]
    label: str
    step: str


class Choose(TypedDict):
    """Answer the decision owed: `option` is one of the strings legal_actions lists."""

    option: str
    type: Literal["choose"]


class CompleteQuest(TypedDict):
    quest: str
    type: Literal["complete_quest"]


class Component(TypedDict):
    """One card, tile, area or figure, found by (`kind`, `id`): ids are unique within a kind."""

    count: NotRequired[int]
    id: str
    kind: str
    name: str
    source: NotRequired[str]
    stand_in: NotRequired[bool]
    text: NotRequired[str]
    values: NotRequired[dict[str, Any]]


class DecisionDone(TypedDict):
    index: int
    type: Literal["decision_done"]


class DecisionsPushed(TypedDict):
    decisions: list[EventDecision]
    type: Literal["decisions_pushed"]


class Deck(TypedDict):
    """A deck or pile as the box holds it before setup: which components, how many of each."""

    id: str
    name: str
    parts: list[DeckPart]
    text: NotRequired[str]


class DeckPart(TypedDict):
    count: int
    id: str
    kind: str


class DeckShuffled(TypedDict):
    """A discard pile becomes the new deck; `order` is hidden from every seat."""

    deck: str
    order: list[str]
    rng_counter: int
    type: Literal["deck_shuffled"]


class Effect(TypedDict):
    c: NotRequired[int]
    choices: NotRequired[list[str]]
    f: NotRequired[int]
    gold: NotRequired[int]
    intrigue: NotRequired[int]
    n: NotRequired[int]
    op: str
    r: NotRequired[int]
    types: NotRequired[list[str]]
    vp: NotRequired[int]
    w: NotRequired[int]
    when: NotRequired[str]


class EndTurn(TypedDict):
    """Complete no quest this turn."""

    type: Literal["end_turn"]


class EventDecision(TypedDict):
    """A decision a seat owes. `kind` names it (see rules.DECISIONS); `items` and `count` are
    its arguments; `source` the card or space that caused it; `act` the action it belongs to
    (plot quests fire once per action); decisions sharing a nonzero `group` at the top of the
    stack are owed at once by different seats.
    """

    act: NotRequired[int]
    count: NotRequired[int]
    group: NotRequired[int]
    items: NotRequired[list[str]]
    kind: str
    player: int
    source: NotRequired[str]


class FirstPlayerTaken(TypedDict):
    player: int
    type: Literal["first_player_taken"]


class Gained(TypedDict):
    """Resources change (RES order; negative = paid or returned)."""

    delta: list[int]
    player: int
    type: Literal["gained"]
    why: NotRequired[str]


class GameEnded(TypedDict):
    lords: list[str]
    type: Literal["game_ended"]


class HallRefilled(TypedDict):
    slot: int
    tile: str
    type: Literal["hall_refilled"]


class HarborShared(TypedDict):
    """The Zoarstar agent of `player` copied Harbor space `harbor`: it is reassigned with it."""

    harbor: str
    player: int
    type: Literal["harbor_shared"]


class InnCleared(TypedDict):
    quests: list[str]
    type: Literal["inn_cleared"]


class InnRefilled(TypedDict):
    quest: str
    slot: int
    type: Literal["inn_refilled"]


class Intrigue(TypedDict):
    copies: int
    effect: list[Effect]
    id: str
    name: str
    source: NotRequired[str]
    type: str


class IntrigueDrawn(TypedDict):
    card: str
    player: int
    type: Literal["intrigue_drawn"]


class IntriguePlayed(TypedDict):
    card: str
    player: int
    type: Literal["intrigue_played"]


class LieutenantJoined(TypedDict):
    player: int
    type: Literal["lieutenant_joined"]


class Lord(TypedDict):
    id: str
    name: str
    quest_types: NotRequired[list[str]]
    source: NotRequired[str]
    vp_per_building: NotRequired[int]
    vp_per_quest: NotRequired[int]


class MandatoryQuestGiven(TypedDict):
    card: str
    player: int
    target: int
    type: Literal["mandatory_quest_given"]


class Option(TypedDict):
    """A complete answer to a decision: its choices in order, and the legal action it is (the
    index in the same answer's legal actions).
    """

    action: int
    choices: list[Choice]


class Place(TypedDict):
    """A place of the board: area, district, canal, building slot, market row, track space...

    `x`, `y` are a suggested position for a schematic drawing in the unit square (0,0 top
    left); `neighbours` are the places the rules treat as adjacent (empty where adjacency
    plays no part); `group` gathers places drawn together (a neighbourhood, a row).
    """

    group: NotRequired[str]
    id: str
    kind: str
    name: str
    neighbours: NotRequired[list[str]]
    source: NotRequired[str]
    stand_in: NotRequired[bool]
    text: NotRequired[str]
    values: NotRequired[dict[str, Any]]
    x: float
    y: float


class PlaceAgent(TypedDict):
    """Assign an agent (or the Ambassador, or a reassigned Harbor agent) to an action space."""

    space: str
    type: Literal["place_agent"]


class Placed(TypedDict):
    """An agent on an action space. `ambassador`: the neutral Ambassador, assigned by `player`.
    `shares`: a Harbor space this agent also uses (The Zoarstar copying an occupied Harbor
    space): it is reassigned with that space, right after the agent already there.
    """

    ambassador: NotRequired[bool]
    player: int
    shares: NotRequired[str]
    space: str


class PlacementPassed(TypedDict):
    """No legal action space: the seat's remaining agents sit out this round."""

    player: int
    type: Literal["placement_passed"]


class PlayerResult(TypedDict):
    """One seat's final result: `breakdown` says where the points came from (it sums to
    `score`); `facts` are other figures that decided the result (e.g. rats against nuns).
    """

    breakdown: NotRequired[dict[str, int]]
    eliminated: NotRequired[bool]
    facts: NotRequired[dict[str, int]]
    note: NotRequired[str]
    player: int
    score: int


class PlotFired(TypedDict):
    act: int
    player: int
    plot: str
    type: Literal["plot_fired"]


class Quest(TypedDict):
    extra: NotRequired[list[Effect]]
    id: str
    name: str
    plot: NotRequired[list[Effect]]
    requires: Resources
    reward: Resources
    source: NotRequired[str]
    type: str


class QuestCompleted(TypedDict):
    player: int
    plot: bool
    quest: str
    type: Literal["quest_completed"]
    vp: int


class QuestCompletedThisTurn(TypedDict):
    player: int
    type: Literal["quest_limit_reached"]


class QuestDiscarded(TypedDict):
    player: int
    quest: str
    type: Literal["quest_discarded"]


class QuestTaken(TypedDict):
    """`slot` 0-3: from Cliffwatch Inn; -1: the top of the Quest deck; -2: from the revealed quests."""

    player: int
    quest: str
    slot: int
    type: Literal["quest_taken"]


class QuestsRevealed(TypedDict):
    """Quests turned face up from the top of the deck (Bidding War, Special Assignment)."""

    keep: bool
    quests: list[str]
    type: Literal["quests_revealed"]


class ReassignmentStarted(TypedDict):
    type: Literal["reassignment_started"]


class Resources(TypedDict):
    c: NotRequired[int]
    f: NotRequired[int]
    gold: NotRequired[int]
    intrigue: NotRequired[int]
    r: NotRequired[int]
    vp: NotRequired[int]
    w: NotRequired[int]


class RoundEnded(TypedDict):
    round: int
    type: Literal["round_ended"]


class RoundFlagUsed(TypedDict):
    flag: str
    player: int
    type: Literal["round_flag_used"]


class RoundStarted(TypedDict):
    """1 VP on each Builder's Hall tile, stock on accumulating tiles in play, round 5's agent."""

    round: int
    type: Literal["round_started"]


class ScoreSheet(TypedDict):
    """What a game's score means, for a client's players table and end screen.

    Every view's `seats[i].score` is the score a table shows for seat i: while the game runs,
    what `during_play` says (the public part of the score, "so far"); once it is over, the
    final score, equal to the outcome's. `breakdown` and `facts` name the keys of the outcome's
    PlayerResult.breakdown and .facts in words.
    """

    breakdown: NotRequired[dict[str, str]]
    during_play: NotRequired[str]
    facts: NotRequired[dict[str, str]]


class SeatView(TypedDict):
    agents: int
    completed: list[str]
    cubes: dict[str, int]
    gold: int
    intrigue: list[str] | None
    intrigue_count: int
    lieutenant: bool
    lord: str | None
    miracle_used: bool
    orb_used: bool
    player: int
    plots: list[str]
    pool: int
    quests: list[str]
    score: int
    vp: int


class Space(TypedDict):
    action: list[Effect]
    id: str
    name: str
    source: NotRequired[str]


class StockTaken(TypedDict):
    tile: str
    type: Literal["stock_taken"]


class Tile(TypedDict):
    action: list[Effect]
    cost: int
    id: str
    name: str
    owner: list[Effect]
    source: NotRequired[str]
    stock: NotRequired[Resources]


class TurnEnded(TypedDict):
    player: int
    type: Literal["turn_ended"]


class TurnStarted(TypedDict):
    ambassador: NotRequired[bool]
    player: int
    type: Literal["turn_started"]


Action: TypeAlias = PlaceAgent | CompleteQuest | EndTurn | Choose
"""Lords of Waterdeep action"""
Event: TypeAlias = (
    RoundStarted
    | TurnStarted
    | TurnEnded
    | ReassignmentStarted
    | RoundEnded
    | GameEnded
    | DecisionsPushed
    | DecisionDone
    | AgentPlaced
    | AgentRemoved
    | HarborShared
    | PlacementPassed
    | ActionBegun
    | Gained
    | PlotFired
    | StockTaken
    | DeckShuffled
    | IntrigueDrawn
    | IntriguePlayed
    | MandatoryQuestGiven
    | QuestTaken
    | InnRefilled
    | InnCleared
    | QuestsRevealed
    | QuestDiscarded
    | QuestCompleted
    | BuildingBought
    | HallRefilled
    | BuildingDiscarded
    | FirstPlayerTaken
    | AmbassadorTaken
    | LieutenantJoined
    | RoundFlagUsed
    | QuestCompletedThisTurn
)
"""Lords of Waterdeep event"""
