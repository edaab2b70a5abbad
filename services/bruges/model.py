"""Bruges data shapes: options, state, actions, events and views (frozen msgspec Structs).

Vocabulary, plain strings so actions, events and views read well in JSON:
- colours: "blue", "brown", "red", "purple", "yellow" (cards, dice, workers, threat markers,
  canal spaces); counts per colour are tuples in that order;
- card ids: integers 0..164 from the data file; a person is a card recruited onto a house;
- houses: a seat's houses in the order built (index 0 first); a house is the face-down card;
- canal sections: 0 (left of the guard house) and 1 (right), 5 spaces each, built outward;
- the six card actions: "workers", "guilders", "threat", "canal", "house", "recruit".
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from services.kernel import Rng

COLOURS: tuple[str, ...] = ("blue", "brown", "red", "purple", "yellow")  # [SEED anatomy]
COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
GROUPS: tuple[str, ...] = (  # [SEED person cards: the 11 groups]
    "noble",
    "entertainer",
    "craftsman",
    "church",
    "protector",
    "scholar",
    "bureaucrat",
    "merchant",
    "castle",
    "artist",
    "underworld",
)
CARD_ACTIONS: tuple[str, ...] = ("workers", "guilders", "threat", "canal", "house", "recruit")

# Activation icons [SEED "Activar personas"] and the three kinds of infinity loop [FS §4].
ARROW = "arrow"  # once, right after recruiting
WORKER = "worker"  # once a round in your turn, paying one worker of the printed colour
ONCE_PER_ROUND = "once_per_round"  # infinity kind 1: free, once a round in your turn
PERMANENT = "permanent"  # infinity kind 2: improves an action every time
TRIGGER = "trigger"  # infinity kind 3: fires whenever its situation arises
LAUREL = "laurel"  # final scoring only
ICONS: tuple[str, ...] = (ARROW, WORKER, ONCE_PER_ROUND, PERMANENT, TRIGGER, LAUREL)

# Phases of a round [SEED "Cómo se juega"].
DRAW = "draw"  # phase 1, seats in turn order
CALAMITY = "calamity"  # phase 2: seats choosing what a calamity costs them (all at once)
REPUTATION = "reputation"  # phase 2: seats in turn order may buy one step
PLAY = "play"  # phase 3
OVER = "over"

HAND_SIZE = 5
PLAYS_PER_ROUND = 4
SECTION_SPACES = 5
REPUTATION_STEPS = 12
MAX_STATUES = 2
THREAT_LIMIT = 3  # the third marker of a colour strikes
MARKERS_PER_COLOUR = 9
MAJORITY_POINTS = 4
SPACE_THREE_POINTS = 3
STARTING_SCORE = 5
STARTING_GUILDERS = 5
INTRIGUE_LOSS = 3

MAJORITIES: tuple[str, ...] = ("reputation", "people", "canals")  # checked in this order [FS §2]

# Pending decisions ("tasks") a seat owes before play goes on.
T_DRAW = "draw"  # draw one card, choosing the pile (a person's effect in phase 3)
T_DISCARD = "discard"  # discard one card from hand
T_THREAT = "threat"  # give back one threat marker of a colour of your choice (+1 point)
T_GIVE = "give_workers"  # give one worker of your choice to `other`
T_CANAL = "lose_canal"  # give back your outermost canal token of a section of your choice
T_PLAGUE = "plague"  # brown calamity: discard one of your persons
T_FIRE = "fire"  # red calamity: discard one house or one canal token
CALAMITY_TASKS = (T_PLAGUE, T_FIRE)
TASK_KINDS = (T_DRAW, T_DISCARD, T_THREAT, T_GIVE, T_CANAL, T_PLAGUE, T_FIRE)

NonNegative = Annotated[int, msgspec.Meta(ge=0)]


# -- options ------------------------------------------------------------------------------


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Match options (decided before the game starts)."""

    # Who starts [SEED: "the player who last fried something"]: the table decides; seat 0 by default.
    first_player: Annotated[int, msgspec.Meta(ge=0, le=3)] = 0


# -- state ----------------------------------------------------------------------------------


class House(msgspec.Struct, frozen=True):
    """A card built face down as a house; `person` is the card recruited onto it (-1: empty)."""

    card: int
    person: int = -1
    used: bool = False  # the person was rotated (activated) this round


class Task(msgspec.Struct, frozen=True):
    """A decision `seat` owes `count` times before play goes on (see TASK_KINDS)."""

    seat: int
    kind: str
    count: int = 1
    other: int = -1  # T_GIVE: the seat that receives


class Seat(msgspec.Struct, frozen=True):
    """Everything one player has. Only `hand` (and which card each house is) is hidden."""

    score: int = STARTING_SCORE
    guilders: int = STARTING_GUILDERS
    workers: tuple[int, ...] = (1, 1, 1, 1, 1)
    threats: tuple[int, ...] = (0, 0, 0, 0, 0)
    reputation: int = 0  # 0 = the town hall
    hand: tuple[int, ...] = ()  # in the order drawn
    unseen: int = 0  # the last `unseen` cards of the hand were drawn and not looked at yet
    known: tuple[int, ...] = ()  # cards in hand the whole table knows (persons sent back by Fire)
    houses: tuple[House, ...] = ()
    canals: tuple[int, int] = (0, 0)  # tokens per section
    statue_sections: tuple[bool, bool] = (False, False)  # a section that already earned a statue
    statues: tuple[int, ...] = ()
    majorities: tuple[bool, bool, bool] = (False, False, False)  # MAJORITIES order
    plays_left: int = 0  # cards still to play this round (phase 3)


class State(msgspec.Struct, frozen=True, kw_only=True):
    players: int
    rng: Rng
    options: Options = Options()
    round: int = 1
    phase: str = DRAW
    start: int = 0  # the start player
    seats: tuple[Seat, ...] = ()
    piles: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())  # draw piles, top first (hidden)
    extra: tuple[int, ...] = ()  # the extra draw pile (hidden)
    extra_in: bool = False  # the extra pile has come into play
    last_round: int = 0  # the round after which the game ends (0: not known yet)
    discard: tuple[int, ...] = ()  # face up, most recent last
    statues: tuple[int, ...] = (7, 6, 5, 4, 3, 2)  # the statue pile, top first
    dice: tuple[int, ...] = (0, 0, 0, 0, 0)  # COLOURS order; 0 before the first roll
    queue: tuple[int, ...] = ()  # DRAW / REPUTATION: seats still to act, head first
    current: int = -1  # PLAY: the seat on turn (or the last one, between turns)
    in_turn: bool = False  # PLAY: `current` is in the middle of its turn
    reputation_cost: int = 0  # this round's price of a reputation step (0: none can be bought)
    played: int = 0  # PLAY: cards the seat on turn has played this turn
    allowed: int = 1  # PLAY: cards the seat on turn may play this turn (Coachman: +1)
    tasks: tuple[Task, ...] = ()


# -- actions ----------------------------------------------------------------------------------


class DrawCard(msgspec.Struct, frozen=True, tag="draw_card", forbid_unknown_fields=True):
    """Draw the top card of draw pile 0 or 1 (only the colour of its back is known)."""

    pile: int


class StopDrawing(msgspec.Struct, frozen=True, tag="stop_drawing", forbid_unknown_fields=True):
    """Keep five cards although a person (Inventor) lets you draw more."""


class BuyReputation(msgspec.Struct, frozen=True, tag="buy_reputation", forbid_unknown_fields=True):
    """Pay this round's price for one reputation step (`advance`), or decline."""

    advance: bool


class PlayCard(msgspec.Struct, frozen=True, tag="play_card", forbid_unknown_fields=True):
    """Play a hand card for one of the six actions; `target` is the canal section (canal) or the
    empty house (recruit), -1 otherwise."""

    card: int
    action: str
    target: int = -1


class Activate(msgspec.Struct, frozen=True, tag="activate", forbid_unknown_fields=True):
    """Use the person on your house `house`; `target` is a canal section for the Acrobat."""

    house: int
    target: int = -1


class EndTurn(msgspec.Struct, frozen=True, tag="end_turn", forbid_unknown_fields=True):
    """Finish your turn (after playing your card)."""


class DiscardCard(msgspec.Struct, frozen=True, tag="discard_card", forbid_unknown_fields=True):
    card: int


class ReturnThreat(msgspec.Struct, frozen=True, tag="return_threat", forbid_unknown_fields=True):
    colour: str


class GiveWorker(msgspec.Struct, frozen=True, tag="give_worker", forbid_unknown_fields=True):
    colour: str


class RemoveCanal(msgspec.Struct, frozen=True, tag="remove_canal", forbid_unknown_fields=True):
    section: int


class SufferCalamity(msgspec.Struct, frozen=True, tag="suffer_calamity", forbid_unknown_fields=True):
    """Resolve a pending brown (Plague: `house` loses its person) or red calamity (Fire: lose
    house `house`, or the outermost canal token of `section`)."""

    colour: str
    house: int = -1
    section: int = -1


Action = (
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


# -- events -----------------------------------------------------------------------------------


class RoundStarted(msgspec.Struct, frozen=True, tag="round_started"):
    round: int
    start: int


class CardDrawn(msgspec.Struct, frozen=True, tag="card_drawn"):
    """`card` is -1 for everybody but a drawer who may look at it (`seen`)."""

    player: int
    pile: int
    colour: str
    card: int
    seen: bool
    task: str = ""  # the task this resolves ("" for the draw of phase 1)


class PileReplaced(msgspec.Struct, frozen=True, tag="pile_replaced"):
    """An empty draw pile is replaced by the extra pile (`split` false) or, once the extra pile is
    in play, the other pile is split in two (`split` true)."""

    pile: int
    split: bool
    sizes: tuple[int, int]


class LastRoundSet(msgspec.Struct, frozen=True, tag="last_round_set"):
    round: int


class HandLooked(msgspec.Struct, frozen=True, tag="hand_looked"):
    """A seat finished drawing and looks at its hand (`cards` blank for others)."""

    player: int
    cards: tuple[int, ...]


class DiceRolled(msgspec.Struct, frozen=True, tag="dice_rolled"):
    dice: tuple[int, ...]
    rng_counter: int


class ThreatTaken(msgspec.Struct, frozen=True, tag="threat_taken"):
    player: int
    colour: str


class CalamityStruck(msgspec.Struct, frozen=True, tag="calamity_struck"):
    """A third marker: the three go back (no points) and the penalty follows (blue, yellow,
    purple at once; brown and red as a task)."""

    player: int
    colour: str


class ReputationBought(msgspec.Struct, frozen=True, tag="reputation_bought"):
    player: int
    cost: int
    advanced: bool


class PhaseStarted(msgspec.Struct, frozen=True, tag="phase_started"):
    """REPUTATION (with the seats that can pay, in turn order) or PLAY (four cards each)."""

    phase: str
    queue: tuple[int, ...] = ()
    cost: int = 0


class TurnStarted(msgspec.Struct, frozen=True, tag="turn_started"):
    player: int


class CardPlayed(msgspec.Struct, frozen=True, tag="card_played"):
    """A card leaves the hand: to the discard pile, face down as a house (`card` -1 for others),
    or onto house `target` as a person. `cost` guilders and `worker` (a colour) are paid."""

    player: int
    card: int
    colour: str
    action: str
    target: int = -1
    cost: int = 0
    worker: str = ""
    extra: bool = False  # a play beyond the round's four (Coachman)


class Gained(msgspec.Struct, frozen=True, tag="gained"):
    """Guilders, workers (per colour) and points gained (or lost); `why` names the cause."""

    player: int
    why: str
    guilders: int = 0
    workers: tuple[int, ...] = (0, 0, 0, 0, 0)
    points: int = 0
    reputation: int = 0


class ThreatReturned(msgspec.Struct, frozen=True, tag="threat_returned"):
    """One threat marker back to the supply and one point [SEED: every discarded marker]."""

    player: int
    colour: str
    task: str = ""  # the task this resolves, if any


class CanalBuilt(msgspec.Struct, frozen=True, tag="canal_built"):
    player: int
    section: int
    cost: int


class StatueTaken(msgspec.Struct, frozen=True, tag="statue_taken"):
    player: int
    section: int
    value: int


class CanalRemoved(msgspec.Struct, frozen=True, tag="canal_removed"):
    player: int
    section: int
    task: str = ""  # the task this resolves, if any


class PersonActivated(msgspec.Struct, frozen=True, tag="person_activated"):
    """The person on `house` is used (rotated unless permanent); `worker` is the colour paid."""

    player: int
    house: int
    person: int
    worker: str = ""


class ExtraPlayGranted(msgspec.Struct, frozen=True, tag="extra_play_granted"):
    player: int


class TasksAdded(msgspec.Struct, frozen=True, tag="tasks_added"):
    tasks: tuple[Task, ...]


class TaskDropped(msgspec.Struct, frozen=True, tag="task_dropped"):
    """A task nobody can carry out (nothing left to give, draw or lose) is void."""

    seat: int
    kind: str


class CardDiscarded(msgspec.Struct, frozen=True, tag="card_discarded"):
    player: int
    card: int
    task: str = ""  # the task this resolves, if any


class WorkerGiven(msgspec.Struct, frozen=True, tag="worker_given"):
    player: int
    to: int
    colour: str
    task: str = ""  # the task this resolves, if any


class PersonLost(msgspec.Struct, frozen=True, tag="person_lost"):
    """Plague: the person on `house` goes to the discard pile; the house stays."""

    player: int
    house: int
    person: int
    task: str = ""  # the task this resolves, if any


class HouseLost(msgspec.Struct, frozen=True, tag="house_lost"):
    """Fire: the house card is discarded (face up); its person goes back to the hand."""

    player: int
    house: int
    card: int
    person: int
    task: str = ""  # the task this resolves, if any


class TurnEnded(msgspec.Struct, frozen=True, tag="turn_ended"):
    player: int


class MajoritiesChecked(msgspec.Struct, frozen=True, tag="majorities_checked"):
    """Phase 4: per majority (MAJORITIES order) the seat that flips its marker, -1 for none."""

    winners: tuple[int, ...]


class RoundEnded(msgspec.Struct, frozen=True, tag="round_ended"):
    round: int
    next_start: int


class GameEnded(msgspec.Struct, frozen=True, tag="game_ended"):
    round: int


Event = (
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


# -- views ----------------------------------------------------------------------------------


class HouseView(msgspec.Struct, frozen=True):
    colour: str
    card: int | None  # which card is the house: its owner only
    person: int  # -1: empty
    used: bool


class SeatView(msgspec.Struct, frozen=True):
    player: int
    # The score a table shows: the scoring track during play, the final score once it is over.
    score: int
    guilders: int
    workers: dict[str, int]
    threats: dict[str, int]
    reputation: int
    hand_size: int
    hand_colours: tuple[str, ...]  # sorted: every card's back colour was seen when drawn
    hand: tuple[int, ...] | None  # the cards the owner has looked at (owner only)
    known_hand: tuple[int, ...]  # cards in this hand everyone knows (persons sent back by Fire)
    houses: tuple[HouseView, ...]
    canals: tuple[int, int]
    canal_spaces: tuple[tuple[str, ...], tuple[str, ...]]  # this seat's space colours, seal outward
    statues: tuple[int, ...]
    majorities: dict[str, bool]
    plays_left: int


class View(msgspec.Struct, frozen=True):
    players: int
    viewer: int | None
    round: int
    phase: str
    start: int
    active: tuple[int, ...]
    current: int
    played: int
    allowed: int
    queue: tuple[int, ...]
    dice: dict[str, int]
    reputation_cost: int
    pile_sizes: tuple[int, int]
    pile_tops: tuple[str, str]  # the colour on the back of each pile's top card ("" if empty)
    extra_size: int
    extra_in: bool
    last_round: int
    discard: tuple[int, ...]
    statues: tuple[int, ...]
    seats: tuple[SeatView, ...]
    tasks: tuple[Task, ...]
    canal_costs: tuple[int, ...]  # guilders per canal space, seal outward (board data)
    reputation_points: tuple[int, ...]  # points of reputation steps 1..12 (board data)
