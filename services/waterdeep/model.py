"""Lords of Waterdeep data shapes: options, state, actions, events and views (frozen msgspec Structs).

Vocabulary (plain strings, so JSON reads well):
- adventurers: "cleric", "fighter", "rogue", "wizard"; a bundle of resources is a 6-tuple
  (clerics, fighters, rogues, wizards, gold, vp) in that order (see `RES`);
- action spaces: the ids of the data file's `[[spaces]]` (basic buildings) and the tile ids of
  `[[buildings]]` once in play (or while in Builder's Hall, for Sample Wares);
- intrigue cards in play are copies named `<card id>.<copy>` (e.g. "ambush.2"); a Mandatory
  Quest given to a player sits among that player's quests under the same copy id.

Nothing moves without an event; pending decisions are a stack in the state (`pending`, top
last): the top decision, or the top run of decisions sharing a `group`, is owed now.
"""

from __future__ import annotations

import msgspec

from services.kernel import Rng

CUBES: tuple[str, ...] = ("cleric", "fighter", "rogue", "wizard")
QUEST_TYPES: tuple[str, ...] = ("arcana", "commerce", "piety", "skullduggery", "warfare")
MANDATORY = "mandatory"
RES: tuple[str, ...] = ("c", "f", "r", "w", "gold", "vp")
ZERO: tuple[int, ...] = (0, 0, 0, 0, 0, 0)
ROUNDS = 8
CUBE_SUPPLY = 25  # per type [FACTS 0: 100 cubes, 25 each]
AGENTS = {2: 4, 3: 3, 4: 2, 5: 2}  # [SEED Preparar; FACTS 1]
START_GOLD = (4, 5, 6, 7, 8)  # by seat from the first player [SEED; FACTS 1]
INN_SLOTS = 4
HALL_SLOTS = 3
HARBOR: tuple[str, ...] = ("waterdeep_harbor_1", "waterdeep_harbor_2", "waterdeep_harbor_3")

PLACE = "place"
OVER = "over"


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Match options."""

    # Some groups remove Larissa Neathal from the Lords by agreement (a house rule, FACTS 5).
    larissa: bool = True


# -- state ------------------------------------------------------------------------------------


class Placed(msgspec.Struct, frozen=True):
    """An agent on an action space. `ambassador`: the neutral Ambassador, assigned by `player`.
    `shares`: a Harbor space this agent also uses (The Zoarstar copying an occupied Harbor
    space): it is reassigned with that space, right after the agent already there."""

    player: int
    space: str
    ambassador: bool = False
    shares: str = ""


class Building(msgspec.Struct, frozen=True):
    """A purchased Building tile in play, its owner and what has piled up on it (RES order)."""

    tile: str
    owner: int
    stock: tuple[int, ...] = ZERO


class Decision(msgspec.Struct, frozen=True):
    """A decision a seat owes. `kind` names it (see rules.DECISIONS); `items` and `count` are
    its arguments; `source` the card or space that caused it; `act` the action it belongs to
    (plot quests fire once per action); decisions sharing a nonzero `group` at the top of the
    stack are owed at once by different seats."""

    player: int
    kind: str
    items: tuple[str, ...] = ()
    count: int = 0
    source: str = ""
    act: int = 0
    group: int = 0


class Seat(msgspec.Struct, frozen=True):
    gold: int = 0
    vp: int = 0
    cubes: tuple[int, ...] = (0, 0, 0, 0)
    agents: int = 0  # own agents in the game (the Lieutenant included)
    pool: int = 0  # agents not yet assigned this round
    intrigue: tuple[str, ...] = ()  # hidden hand
    lord: str = ""  # hidden until the end
    quests: tuple[str, ...] = ()  # active quests (Mandatory Quests too), public
    completed: tuple[str, ...] = ()  # completed quests (plot quests too), public
    plots: tuple[str, ...] = ()  # completed plot quests whose effect lasts
    orb_used: bool = False  # Recover the Magister's Orb: used this round
    miracle_used: bool = False  # Produce a Miracle for the Masses: used this round
    lieutenant: bool = False
    quest_vp: int = 0  # VP scored by completing quests (for the breakdown)


class State(msgspec.Struct, frozen=True, kw_only=True):
    players: int
    rng: Rng
    options: Options = Options()
    round: int = 1
    phase: str = PLACE
    first: int = 0  # holder of the First Player marker
    current: int = -1  # seat whose turn it is (-1 between turns)
    next_seat: int = 0  # where the search for the next turn starts
    reassigning: bool = False
    ambassador_first: bool = False  # the Ambassador is still to be assigned at the start of this round
    ambassador_turn: bool = False  # the turn under way assigns the Ambassador
    seats: tuple[Seat, ...] = ()
    placed: tuple[Placed, ...] = ()
    ambassador: int = -1  # seat holding the unassigned Ambassador
    buildings: tuple[Building, ...] = ()
    hall: tuple[str, ...] = ("", "", "")
    hall_vp: tuple[int, ...] = (0, 0, 0)
    stack: tuple[str, ...] = ()  # face-down Building tiles, top first (hidden)
    inn: tuple[str, ...] = ("", "", "", "")
    quest_deck: tuple[str, ...] = ()  # top first (hidden)
    quest_discard: tuple[str, ...] = ()
    intrigue_deck: tuple[str, ...] = ()  # top first (hidden)
    intrigue_discard: tuple[str, ...] = ()
    revealed: tuple[str, ...] = ()  # quests drawn face up for Bidding War
    pending: tuple[Decision, ...] = ()
    acts: int = 0
    fired_act: int = 0
    fired: tuple[str, ...] = ()
    completed_turn: bool = False  # the seat on turn has completed its one quest


# -- actions --------------------------------------------------------------------------------


class PlaceAgent(msgspec.Struct, frozen=True, tag="place_agent", forbid_unknown_fields=True):
    """Assign an agent (or the Ambassador, or a reassigned Harbor agent) to an action space."""

    space: str


class CompleteQuest(msgspec.Struct, frozen=True, tag="complete_quest", forbid_unknown_fields=True):
    quest: str


class EndTurn(msgspec.Struct, frozen=True, tag="end_turn", forbid_unknown_fields=True):
    """Complete no quest this turn."""


class Choose(msgspec.Struct, frozen=True, tag="choose", forbid_unknown_fields=True):
    """Answer the decision owed: `option` is one of the strings legal_actions lists."""

    option: str


Action = PlaceAgent | CompleteQuest | EndTurn | Choose


# -- events -----------------------------------------------------------------------------------


class RoundStarted(msgspec.Struct, frozen=True, tag="round_started"):
    """1 VP on each Builder's Hall tile, stock on accumulating tiles in play, round 5's agent."""

    round: int


class TurnStarted(msgspec.Struct, frozen=True, tag="turn_started"):
    player: int
    ambassador: bool = False  # the turn assigns the Ambassador (start of round)


class TurnEnded(msgspec.Struct, frozen=True, tag="turn_ended"):
    player: int


class ReassignmentStarted(msgspec.Struct, frozen=True, tag="reassignment_started"):
    pass


class RoundEnded(msgspec.Struct, frozen=True, tag="round_ended"):
    round: int


class GameEnded(msgspec.Struct, frozen=True, tag="game_ended"):
    lords: tuple[str, ...]  # revealed


class DecisionsPushed(msgspec.Struct, frozen=True, tag="decisions_pushed"):
    decisions: tuple[Decision, ...]  # the last one ends up on top


class DecisionDone(msgspec.Struct, frozen=True, tag="decision_done"):
    index: int  # position in the pending stack, from the bottom


class AgentPlaced(msgspec.Struct, frozen=True, tag="agent_placed"):
    player: int
    space: str
    ambassador: bool = False
    shares: str = ""
    orb: bool = False  # Recover the Magister's Orb let it share an occupied space
    from_pool: bool = True  # False: a reassigned or Sample Wares agent already counted


class AgentRemoved(msgspec.Struct, frozen=True, tag="agent_removed"):
    """An agent leaves a space (reassignment, Recall Agent, Research Chronomancy, Accelerate Plans)."""

    player: int
    space: str
    to_pool: bool
    ambassador: bool = False
    shares: str = ""


class HarborShared(msgspec.Struct, frozen=True, tag="harbor_shared"):
    """The Zoarstar agent of `player` copied Harbor space `harbor`: it is reassigned with it."""

    player: int
    harbor: str


class PlacementPassed(msgspec.Struct, frozen=True, tag="placement_passed"):
    """No legal action space: the seat's remaining agents sit out this round."""

    player: int


class ActionBegun(msgspec.Struct, frozen=True, tag="action_begun"):
    """A building space or an intrigue card starts to resolve (plot quests fire once per action)."""

    player: int
    what: str


class Gained(msgspec.Struct, frozen=True, tag="gained"):
    """Resources change (RES order; negative = paid or returned)."""

    player: int
    delta: tuple[int, ...]
    why: str = ""


class PlotFired(msgspec.Struct, frozen=True, tag="plot_fired"):
    player: int
    plot: str
    act: int


class StockTaken(msgspec.Struct, frozen=True, tag="stock_taken"):
    tile: str


class DeckShuffled(msgspec.Struct, frozen=True, tag="deck_shuffled"):
    """A discard pile becomes the new deck; `order` is hidden from every seat."""

    deck: str  # "quest" or "intrigue"
    order: tuple[str, ...]
    rng_counter: int


class IntrigueDrawn(msgspec.Struct, frozen=True, tag="intrigue_drawn"):
    player: int
    card: str  # "" for every other seat


class IntriguePlayed(msgspec.Struct, frozen=True, tag="intrigue_played"):
    player: int
    card: str


class MandatoryQuestGiven(msgspec.Struct, frozen=True, tag="mandatory_quest_given"):
    player: int
    target: int
    card: str


class QuestTaken(msgspec.Struct, frozen=True, tag="quest_taken"):
    """`slot` 0-3: from Cliffwatch Inn; -1: the top of the Quest deck; -2: from the revealed quests."""

    player: int
    quest: str
    slot: int


class InnRefilled(msgspec.Struct, frozen=True, tag="inn_refilled"):
    slot: int
    quest: str  # "" if both deck and discard are empty


class InnCleared(msgspec.Struct, frozen=True, tag="inn_cleared"):
    quests: tuple[str, ...]


class QuestsRevealed(msgspec.Struct, frozen=True, tag="quests_revealed"):
    """Quests turned face up from the top of the deck (Bidding War, Special Assignment)."""

    quests: tuple[str, ...]
    keep: bool  # True: they wait in `revealed`; False: discarded at once


class QuestDiscarded(msgspec.Struct, frozen=True, tag="quest_discarded"):
    player: int  # -1: from the revealed quests
    quest: str


class QuestCompleted(msgspec.Struct, frozen=True, tag="quest_completed"):
    player: int
    quest: str
    plot: bool
    vp: int  # VP scored for it, bonuses included


class BuildingBought(msgspec.Struct, frozen=True, tag="building_bought"):
    """A tile goes into play under `player`: from Builder's Hall `slot` (its VP tokens are
    scored), or from the top of the stack (`slot` -1)."""

    player: int
    tile: str
    slot: int
    cost: int
    vp: int


class HallRefilled(msgspec.Struct, frozen=True, tag="hall_refilled"):
    slot: int
    tile: str  # "" once the stack is empty


class BuildingDiscarded(msgspec.Struct, frozen=True, tag="building_discarded"):
    player: int
    tile: str


class FirstPlayerTaken(msgspec.Struct, frozen=True, tag="first_player_taken"):
    player: int


class AmbassadorTaken(msgspec.Struct, frozen=True, tag="ambassador_taken"):
    player: int  # -1: the Ambassador was unavailable, nothing happens


class LieutenantJoined(msgspec.Struct, frozen=True, tag="lieutenant_joined"):
    player: int


class RoundFlagUsed(msgspec.Struct, frozen=True, tag="round_flag_used"):
    player: int
    flag: str  # "orb" or "miracle"


class QuestCompletedThisTurn(msgspec.Struct, frozen=True, tag="quest_limit_reached"):
    player: int


Event = (
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


# -- views ----------------------------------------------------------------------------------


class SeatView(msgspec.Struct, frozen=True):
    player: int
    # The score a table shows: the VP track during play, the final score once the game is over.
    score: int
    gold: int
    vp: int
    cubes: dict[str, int]
    agents: int
    pool: int
    intrigue_count: int
    intrigue: tuple[str, ...] | None  # own hand only
    lord: str | None  # own Lord only (everyone's once the game is over)
    quests: tuple[str, ...]
    completed: tuple[str, ...]
    plots: tuple[str, ...]
    orb_used: bool
    miracle_used: bool
    lieutenant: bool


class View(msgspec.Struct, frozen=True):
    viewer: int | None
    players: int
    round: int
    phase: str
    first: int
    current: int
    reassigning: bool
    active: tuple[int, ...]
    seats: tuple[SeatView, ...]
    placed: tuple[Placed, ...]
    ambassador: int
    buildings: tuple[Building, ...]
    hall: tuple[str, ...]
    hall_vp: tuple[int, ...]
    stack_size: int
    inn: tuple[str, ...]
    quest_deck_size: int
    quest_discard: tuple[str, ...]
    intrigue_deck_size: int
    intrigue_discard: tuple[str, ...]
    revealed: tuple[str, ...]
    pending: tuple[Decision, ...]
