"""Lords of Waterdeep rules: setup, whose decision it is, legal actions, validate.

A round [SEED Como se Juega; FACTS 2]: `RoundStarted` (VP on Builder's Hall tiles, stock on
accumulating tiles, round 5's agent), start-of-round plot choices, the Ambassador, then turns
clockwise from the First Player: assign one agent (`place_agent`), resolve the space, then
optionally complete one quest (`complete_quest` / `end_turn`). When nobody has agents left,
Harbor agents are reassigned space 1 -> 3 (each a turn of its own), then the round ends.

Every decision is a `Decision` on the state's stack; `validate` answers the decision owed and
keeps resolving automatic steps (`_advance`) until somebody owes one again; `apply` is
bookkeeping (services.waterdeep.apply). Spaces, tiles, quests and intrigue cards are data whose
effects are lists of primitives resolved by `_resolve`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from services.kernel import EventLog, GameSpec, Rejection, Rng, SetupError, illegal, rules_version, seats_from
from services.kernel.spec import clip
from services.waterdeep import scoring, views
from services.waterdeep.apply import PALACE, make_applier
from services.waterdeep.catalog import Catalog, Effect, Intrigue, Quest, Tile, default_catalog
from services.waterdeep.model import (
    AGENTS,
    CUBE_SUPPLY,
    CUBES,
    HALL_SLOTS,
    HARBOR,
    INN_SLOTS,
    MANDATORY,
    OVER,
    QUEST_TYPES,
    ROUNDS,
    START_GOLD,
    Action,
    ActionBegun,
    AgentPlaced,
    AgentRemoved,
    AmbassadorTaken,
    BuildingBought,
    BuildingDiscarded,
    Choose,
    CompleteQuest,
    Decision,
    DecisionDone,
    DecisionsPushed,
    DeckShuffled,
    EndTurn,
    Event,
    FirstPlayerTaken,
    Gained,
    GameEnded,
    HallRefilled,
    HarborShared,
    InnCleared,
    InnRefilled,
    IntrigueDrawn,
    IntriguePlayed,
    LieutenantJoined,
    MandatoryQuestGiven,
    Options,
    PlaceAgent,
    PlacementPassed,
    PlotFired,
    QuestCompleted,
    QuestDiscarded,
    QuestsRevealed,
    QuestTaken,
    ReassignmentStarted,
    RoundEnded,
    RoundFlagUsed,
    RoundStarted,
    Seat,
    State,
    StockTaken,
    TurnEnded,
    TurnStarted,
    View,
)
from services.waterdeep.present import make_presentation
from services.waterdeep.undo import UNDO

PLAYER_COUNTS = (2, 3, 4, 5)
# Decisions whose options come from an effect of their source card.
_EFFECT_OF = {
    "opponent": "opponent_gain",
    "favor": "favor",
    "offer": "offer",
    "discard_own": "change_of_plans",
    "discard_other": "change_of_plans",
}
_CUBE_INDEX = {c: i for i, c in enumerate(CUBES)}
_RES_INDEX = {"c": 0, "f": 1, "r": 2, "w": 3, "gold": 4, "vp": 5}

# Decisions that assign an agent (answered with place_agent).
_PLACING = frozenset({"place", "place_extra", "ambassador", "reassign", "place_now"})
# What each decision asks, for rejection messages.
_PROMPTS = {
    "place": "assign an agent",
    "place_extra": "assign an agent (Accelerate Plans)",
    "ambassador": "assign the Ambassador",
    "reassign": "reassign your agent from Waterdeep Harbor",
    "place_now": "assign the agent Research Chronomancy returned",
    "quest": "complete a quest or end your turn",
}


def base(card: str) -> str:
    """A card copy's catalog id ("ambush.2" -> "ambush")."""
    return card.partition(".")[0]


def bundle(**kw: int) -> tuple[int, ...]:
    return tuple(kw.get(k, 0) for k in ("c", "f", "r", "w", "gold", "vp"))


# The validate-call log every handler writes to (see services.kernel.log).
_Log = EventLog[State, Event]


class Rules:
    """The rules of Lords of Waterdeep played with one data file."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.spaces = {s.id: s.action for s in catalog.spaces}
        self.tiles: dict[str, Tile] = {t.id: t for t in catalog.buildings}
        self.quests: dict[str, Quest] = {q.id: q for q in catalog.quests}
        self.intrigues: dict[str, Intrigue] = {i.id: i for i in catalog.intrigues}
        self.lords = {lord.id: lord for lord in catalog.lords}
        self.basic = tuple(s.id for s in catalog.spaces)
        self.intrigue_copies = tuple(f"{i.id}.{k}" for i in catalog.intrigues for k in range(1, i.copies + 1))
        self.quest_ids = tuple(q.id for q in catalog.quests if q.type != MANDATORY)
        self._stock = {t.id: t.stock.bundle for t in catalog.buildings}
        self.apply = make_applier(
            lambda tile: self._stock.get(tile, (0,) * 6),
            lambda card: (
                self.quests.get(base(card), None) is not None and self.quests[base(card)].type == MANDATORY
            ),
        )
        self._option_fns = self._build_option_fns()

    # -- setup ------------------------------------------------------------------------------

    def setup(self, players: int, seed: int, options: Options) -> State:
        if players not in PLAYER_COUNTS:
            raise SetupError(f"Lords of Waterdeep is played by 2 to 5 players, not {players}")
        cursor = Rng.from_seed(seed).cursor()
        first = cursor.randbelow(players)  # "most recently in another city": drawn at random [FACTS 1.7]
        tiles = cursor.shuffle([t.id for t in self.catalog.buildings])
        lords = [lord.id for lord in self.catalog.lords if options.larissa or lord.vp_per_building == 0]
        dealt_lords = cursor.sample(lords, players)
        quests = cursor.shuffle(self.quest_ids)
        intrigue = cursor.shuffle(self.intrigue_copies)
        seats = []
        for p in range(players):
            seats.append(
                Seat(
                    gold=START_GOLD[(p - first) % players],
                    agents=AGENTS[players],
                    pool=AGENTS[players],
                    lord=dealt_lords[p],
                    quests=tuple(quests[2 * p : 2 * p + 2]),
                    intrigue=tuple(intrigue[2 * p : 2 * p + 2]),
                )
            )
        q = 2 * players
        state = State(
            players=players,
            rng=cursor.rng,
            options=options,
            round=0,
            first=first,
            next_seat=first,
            seats=tuple(seats),
            hall=tuple(tiles[:HALL_SLOTS]),
            hall_vp=(0,) * HALL_SLOTS,
            stack=tuple(tiles[HALL_SLOTS:]),
            inn=tuple(quests[q : q + INN_SLOTS]),
            quest_deck=tuple(quests[q + INN_SLOTS :]),
            intrigue_deck=tuple(intrigue[2 * players :]),
        )
        log = EventLog(self.apply, state)
        self._start_round(log, 1)
        self._advance(log)
        return log.state

    # -- whose decision -----------------------------------------------------------------------

    def active_players(self, state: State) -> tuple[int, ...]:
        pending = state.pending
        if not pending or state.phase == OVER:
            return ()
        top = pending[-1]
        if not top.group:
            return (top.player,)
        return tuple(sorted(d.player for d in self._top_group(state)))

    def _top_group(self, state: State) -> list[Decision]:
        pending = state.pending
        top = pending[-1]
        if not top.group:
            return [top]
        group = []
        for d in reversed(pending):
            if d.group != top.group:
                break
            group.append(d)
        return group

    def _owed(self, state: State, player: int) -> int:
        """Index in the stack of the decision `player` owes now, or -1."""
        pending = state.pending
        if not pending:
            return -1
        top = pending[-1]
        if not top.group:
            return len(pending) - 1 if top.player == player else -1
        for i in range(len(pending) - 1, -1, -1):
            d = pending[i]
            if d.group != top.group:
                break
            if d.player == player:
                return i
        return -1

    # -- legal actions --------------------------------------------------------------------

    def legal_actions(self, state: State, player: int) -> list[Action]:
        if state.phase == OVER:
            return []
        i = self._owed(state, player)
        if i < 0:
            return []
        d = state.pending[i]
        options = self.options(state, d)
        if d.kind in _PLACING:
            return [PlaceAgent(o) for o in options]
        if d.kind == "quest":
            return [*(CompleteQuest(q) for q in options), EndTurn()]
        return [Choose(o) for o in options]

    def probe_actions(self, state: State, player: int) -> Iterable[Action]:
        """Plausible actions the conformance suite tries (most of them illegal now)."""
        yield EndTurn()
        for space in (*self.basic, *state.hall, *(b.tile for b in state.buildings)):
            if space:
                yield PlaceAgent(space)
        yield PlaceAgent("nowhere")
        x = state.seats[player]
        for q in (*x.quests, *state.inn, "no_such_quest"):
            if q:
                yield CompleteQuest(q)
                yield Choose(q)
        for o in (*CUBES, *QUEST_TYPES, "yes", "no", "skip", "complete", "keep", "0", "1", "gold=4", "f=2"):
            yield Choose(o)
        for card in x.intrigue:
            yield Choose(card)
        for seat in range(state.players):
            yield Choose(str(seat))
            yield Choose(f"{seat}:fighter")

    # -- options of each decision -----------------------------------------------------------

    def options(self, state: State, d: Decision) -> tuple[str, ...]:
        """Every legal answer to decision `d` (place_agent spaces, quest ids or choose options)."""
        return self._option_fns[d.kind](state, d)

    def _build_option_fns(self) -> dict[str, Callable[[State, Decision], tuple[str, ...]]]:
        return {
            "place": lambda s, d: self._spaces(s, d.player, harbor=not s.reassigning),
            "place_extra": lambda s, d: (
                self._spaces(s, d.player, harbor=not s.reassigning) if s.seats[d.player].pool > 0 else ()
            ),
            "place_now": lambda s, d: (
                self._spaces(s, d.player, harbor=False) if s.seats[d.player].pool > 0 else ()
            ),
            "ambassador": lambda s, d: (
                self._spaces(s, d.player, harbor=True, ambassador=True) if s.ambassador == d.player else ()
            ),
            "reassign": lambda s, d: self._spaces(s, d.player, harbor=False, pool=1),
            "quest": self._completable_options,
            "cube": lambda s, d: tuple(t for t in d.items if self._supply(s, _CUBE_INDEX[t]) > 0),
            "return_cube": lambda s, d: tuple(
                t for i, t in enumerate(CUBES) if s.seats[d.player].cubes[i] > 0
            ),
            "inn_quest": lambda s, d: tuple(q for q in s.inn if q),
            "garden": lambda s, d: (
                ("complete", "skip")
                if d.items[0] in s.seats[d.player].quests and self._can_complete(s, d.player, d.items[0])
                else ()
            ),
            "buy": lambda s, d: tuple(
                t for t in s.hall if t and self.tiles[t].cost <= s.seats[d.player].gold
            ),
            "buy_free": lambda s, d: tuple(t for t in s.hall if t),
            "intrigue": lambda s, d: self._playable_cards(s, d.player, harbor=bool(d.items)),
            "intrigue_optional": lambda s, d: (
                (*self._playable_cards(s, d.player, harbor=False), "skip")
                if self._playable_cards(s, d.player, harbor=False)
                else ()
            ),
            "copy": lambda s, d: self._copy_targets(s, d.player, 0),
            "opponent": lambda s, d: tuple(str(o) for o in range(s.players) if o != d.player),
            "target": lambda s, d: tuple(str(o) for o in range(s.players) if o != d.player),
            "steal": lambda s, d: tuple(
                f"{o}:{t}"
                for o in range(s.players)
                if o != d.player
                for i, t in enumerate(CUBES)
                if s.seats[o].cubes[i] > 0
            ),
            "offer": self._offer_options,
            "favor": lambda s, d: self._effect(d.source, "favor").choices,
            "discard_own": lambda s, d: s.seats[d.player].quests,
            "discard_other": lambda s, d: (
                (*s.seats[d.player].quests, "keep") if s.seats[d.player].quests else ()
            ),
            "bidding": lambda s, d: tuple(sorted(set(s.revealed))),
            "quest_type": lambda s, d: QUEST_TYPES,
            "own_building": lambda s, d: tuple(
                b.tile for b in s.buildings if b.owner == d.player and not self._occupied(s, b.tile)
            ),
            "recall": lambda s, d: self._own_spaces(s, d.player),
            "chronomancy": lambda s, d: self._own_spaces(s, d.player),
            "accelerate": lambda s, d: tuple(sp for sp in self._own_spaces(s, d.player) if sp in HARBOR),
            "miracle": lambda s, d: (
                (
                    *(t for i, t in enumerate(CUBES) if i > 0 and s.seats[d.player].cubes[i] > 0),
                    "skip",
                )
                if any(s.seats[d.player].cubes[1:]) and self._supply(s, 0) > 0
                else ()
            ),
            "sample": lambda s, d: (
                tuple(
                    t
                    for t in s.hall
                    if t
                    and not self._occupied(s, t)
                    and self._resolvable(s, d.player, self.tiles[t].action, 0)
                )
                if s.seats[d.player].pool > 0
                else ()
            ),
        }

    def _offer_options(self, state: State, d: Decision) -> tuple[str, ...]:
        e = self._effect(d.source, "offer")
        x = state.seats[d.player]
        can = x.gold >= e.gold if e.gold else x.cubes[_CUBE_INDEX[e.types[0]]] > 0
        return ("yes", "no") if can else ()

    def _completable_options(self, state: State, d: Decision) -> tuple[str, ...]:
        if state.completed_turn:
            return ()
        return tuple(q for q in state.seats[d.player].quests if self._can_complete(state, d.player, q))

    def _can_complete(self, state: State, p: int, q: str) -> bool:
        """Requirements paid from the Tavern; an open Mandatory Quest blocks every other [FACTS 6.1]."""
        x = state.seats[p]
        quest = self.quests[base(q)]
        if quest.type != MANDATORY and any(self.quests[base(o)].type == MANDATORY for o in x.quests):
            return False
        r = quest.requires
        c = x.cubes
        return c[0] >= r.c and c[1] >= r.f and c[2] >= r.r and c[3] >= r.w and x.gold >= r.gold

    def _has_effect(self, source: str, op: str) -> bool:
        card = self.intrigues.get(base(source))
        quest = self.quests.get(base(source))
        effects = card.effect if card else quest.extra if quest else ()
        return any(e.op == op for e in effects)

    def _effect(self, source: str, op: str) -> Effect:
        card = self.intrigues.get(base(source))
        effects = card.effect if card else self.quests[base(source)].extra
        return next(e for e in effects if e.op == op)

    # -- board queries ----------------------------------------------------------------------

    def _supply(self, state: State, k: int) -> int:
        held = sum(x.cubes[k] for x in state.seats) + sum(b.stock[k] for b in state.buildings)
        return CUBE_SUPPLY - held

    def _occupied(self, state: State, space: str) -> bool:
        return any(x.space == space for x in state.placed)

    def _own_spaces(self, state: State, p: int) -> tuple[str, ...]:
        return tuple(dict.fromkeys(x.space for x in state.placed if x.player == p and not x.ambassador))

    def _has_opponent(self, state: State, space: str, p: int) -> bool:
        """An opponent's agent is there (the Ambassador counts as one for everybody) [FACTS 3.3]."""
        return any(x.space == space and (x.ambassador or x.player != p) for x in state.placed)

    def _action_of(self, space: str) -> tuple[Effect, ...]:
        basic = self.spaces.get(space)
        return basic if basic is not None else self.tiles[space].action

    def _spaces(
        self, state: State, p: int, *, harbor: bool, ambassador: bool = False, pool: int = 0
    ) -> tuple[str, ...]:
        """Action spaces `p` may assign an agent to: unoccupied (or, with the Magister's Orb once a
        round, holding an opponent's agent) and resolvable; the Harbor only with a playable card."""
        x = state.seats[p]
        orb = not ambassador and not x.orb_used and any(self._plot_op(pl) == "orb" for pl in x.plots)
        out = []
        in_play = (*self.basic, *(b.tile for b in state.buildings))
        for space in in_play:
            if space in HARBOR and not harbor:
                continue
            if self._occupied(state, space) and not (orb and self._has_opponent(state, space, p)):
                continue
            if space in HARBOR:
                if not self._playable_cards(state, p, harbor=True, pool_delta=0 if ambassador else 1):
                    continue
            elif not self._resolvable(
                state, p, self._action_of(space), 0, pool_delta=0 if ambassador else 1 - pool
            ):
                continue
            out.append(space)
        return tuple(out)

    def _plot_op(self, quest: str) -> str:
        return self.quests[quest].plot[0].op

    def _resolvable(
        self,
        state: State,
        p: int,
        effects: tuple[Effect, ...],
        paid: int,
        pool_delta: int = 0,
        depth: int = 0,
    ) -> bool:
        """Can `p` carry out this action (pay its gold, return its adventurers, buy, play, copy)?"""
        x = state.seats[p]
        gold = x.gold - paid
        for e in effects:
            if e.op == "pay" and gold < e.gold:
                return False
            if e.op == "return_cubes" and sum(x.cubes) < e.n:
                return False
            if e.op == "buy_building" and not any(t and self.tiles[t].cost <= gold for t in state.hall):
                return False
            if e.op == "play_intrigue" and not self._playable_cards(
                state, p, harbor=False, paid=paid, depth=depth + 1
            ):
                return False
            if e.op == "copy_space" and (
                depth > 0 or not self._copy_targets(state, p, paid, pool_delta, depth + 1)
            ):
                return False
        return True

    def _copy_targets(
        self, state: State, p: int, paid: int, pool_delta: int = 0, depth: int = 0
    ) -> tuple[str, ...]:
        """Spaces holding an opponent's agent whose action `p` can resolve (The Zoarstar, Bribe
        Agent); a space that itself copies is never a target."""
        out = []
        for space in dict.fromkeys(x.space for x in state.placed):
            if not self._has_opponent(state, space, p):
                continue
            if space not in self.spaces and space not in self.tiles:
                continue
            action = self._action_of(space)
            if any(e.op == "copy_space" for e in action):
                continue
            if space in HARBOR:
                if not self._playable_cards(state, p, harbor=False, paid=paid, depth=depth + 1):
                    continue
            elif not self._resolvable(state, p, action, paid, pool_delta, depth=depth + 1):
                continue
            out.append(space)
        return tuple(out)

    def _playable_cards(
        self, state: State, p: int, *, harbor: bool, pool_delta: int = 0, paid: int = 0, depth: int = 0
    ) -> tuple[str, ...]:
        """Cards in hand whose mandatory cost can be paid now [FACTS 7, playability]. `harbor`: the
        card is played from an agent on the Harbor (placed already, or about to be: `pool_delta`)."""
        x = state.seats[p]
        out = []
        seen: set[str] = set()
        for card in x.intrigue:
            if card in seen:
                continue
            seen.add(card)
            if self._playable(state, p, base(card), harbor, pool_delta, paid, depth):
                out.append(card)
        return tuple(out)

    def _playable(
        self, state: State, p: int, card: str, harbor: bool, pool_delta: int, paid: int, depth: int = 0
    ) -> bool:
        """Whether card `card` can be played; copies of copies are cut at two levels (a copied
        space that plays a card that copies again is never needed to decide the game)."""
        x = state.seats[p]
        for e in self.intrigues[card].effect:
            op = e.op
            if op in ("bribe", "sample_wares") and depth >= 2:
                return False
            if op == "bribe":
                if x.gold - paid < e.gold or not self._copy_targets(state, p, paid + e.gold, 0, depth + 1):
                    return False
            elif op == "accelerate":
                if not harbor and not any(s in HARBOR for s in self._own_spaces(state, p)):
                    return False
            elif op == "real_estate":
                owned = [
                    b.tile for b in state.buildings if b.owner == p and not self._occupied(state, b.tile)
                ]
                if not owned or not any(state.hall):
                    return False
            elif op == "recall":
                if not harbor and not self._own_spaces(state, p):
                    return False
            elif op == "change_of_plans":
                if not x.quests:  # discarding a quest is the card's cost
                    return False
            elif op == "sample_wares":
                if x.pool - pool_delta < 1:
                    return False
                if not any(
                    t
                    and not self._occupied(state, t)
                    and self._resolvable(state, p, self.tiles[t].action, paid, depth=depth + 1)
                    for t in state.hall
                ):
                    return False
        return True

    # -- validate -------------------------------------------------------------------------------

    def validate(self, state: State, player: int, action: Action) -> list[Event] | Rejection:
        i = self._owed(state, player)
        if i < 0:
            return illegal("You owe no decision now.")
        d = state.pending[i]
        options = self.options(state, d)
        prompt = _PROMPTS.get(d.kind, f"answer {d.kind.replace('_', ' ')} ({d.source or 'rules'})")
        if d.kind in _PLACING:
            if not isinstance(action, PlaceAgent):
                return illegal(f"You must {prompt}.")
            if action.space not in options:
                return illegal(f"You cannot assign an agent to {clip(action.space)!r} now.")
            answer = action.space
        elif d.kind == "quest":
            if isinstance(action, EndTurn):
                answer = ""
            elif isinstance(action, CompleteQuest):
                if action.quest not in options:
                    return illegal(self._why_not_complete(state, player, action.quest))
                answer = action.quest
            else:
                return illegal(f"You must {prompt}.")
        else:
            if not isinstance(action, Choose):
                return illegal(f"You must {prompt}: choose one of {', '.join(options)}.")
            if action.option not in options:
                return illegal(
                    f"{clip(action.option)!r} is not an option: choose one of {', '.join(options)}."
                )
            answer = action.option
        log = EventLog(self.apply, state)
        log.emit(DecisionDone(i))
        self._answer(log, d, answer)
        self._advance(log)
        if log.drew and log.cursor.rng != log.state.rng:
            raise AssertionError("a draw was not recorded in an event")
        return log.events

    def _why_not_complete(self, state: State, p: int, q: str) -> str:
        x = state.seats[p]
        if q not in x.quests:
            return f"{clip(q)!r} is not one of your active quests."
        if state.completed_turn:
            return "You may complete only one quest per turn."
        quest = self.quests[base(q)]
        if quest.type != MANDATORY and any(self.quests[base(o)].type == MANDATORY for o in x.quests):
            return "You must complete your Mandatory Quest before any other quest."
        return f"You lack the adventurers or gold {quest.name} requires."

    # -- the automatic flow -----------------------------------------------------------------

    def _advance(self, log: _Log) -> None:
        """Resolve everything automatic until a seat owes a decision (or the game ends)."""
        while True:
            s = log.state
            if s.phase == OVER:
                return
            if s.pending:
                stuck = [
                    i
                    for i in range(len(s.pending) - 1, -1, -1)
                    if (
                        i == len(s.pending) - 1
                        or (s.pending[i].group and s.pending[i].group == s.pending[-1].group)
                    )
                    and not self.options(s, s.pending[i])
                ]
                if not stuck:
                    return
                i = stuck[0]
                d = s.pending[i]
                log.emit(DecisionDone(i))
                if d.kind == "place":  # no legal space: the seat must pass [SEED Asignar agente]
                    log.emit(PlacementPassed(d.player))
                elif d.kind == "reassign":  # nowhere to go: the agent simply leaves the Harbor
                    log.emit(AgentRemoved(d.player, d.items[0], False, shares=d.items[1]))
                elif d.kind == "ambassador" and s.ambassador == d.player:
                    log.emit(AmbassadorTaken(-1))
                if d.kind in ("place", "reassign", "ambassador"):
                    # No assignment, so no quest completion either: the turn is over.
                    below = log.state.pending
                    if below and below[-1].kind == "quest" and below[-1].player == d.player:
                        log.emit(DecisionDone(len(below) - 1))
                continue
            if s.current >= 0:
                log.emit(TurnEnded(s.current))
                continue
            if s.ambassador_first and s.ambassador >= 0:
                holder = s.ambassador
                log.emit(TurnStarted(holder, ambassador=True))
                log.emit(DecisionsPushed((Decision(holder, "quest"), Decision(holder, "ambassador"))))
                continue
            if not s.reassigning:
                nxt = self._next_seat(s)
                if nxt >= 0:
                    log.emit(TurnStarted(nxt))
                    log.emit(DecisionsPushed((Decision(nxt, "quest"), Decision(nxt, "place"))))
                    continue
                log.emit(ReassignmentStarted())
                continue
            agent = self._harbor_agent(s)
            if agent is not None:
                p, space, shares = agent
                log.emit(TurnStarted(p))
                log.emit(
                    DecisionsPushed(
                        (
                            Decision(p, "quest"),
                            Decision(p, "reassign", (space, shares), source=shares or space),
                        )
                    )
                )
                continue
            log.emit(RoundEnded(s.round))
            if s.round >= ROUNDS:
                log.emit(GameEnded(tuple(x.lord for x in log.state.seats)))
                return
            self._start_round(log, s.round + 1)

    def _next_seat(self, s: State) -> int:
        for k in range(s.players):
            p = (s.next_seat + k) % s.players
            if s.seats[p].pool > 0:
                return p
        return -1

    def _harbor_agent(self, s: State) -> tuple[int, str, str] | None:
        """The next agent to reassign: Harbor spaces 1 -> 3, each in placement order [FACTS 3.1];
        the Ambassador stays put."""
        for h in HARBOR:
            for x in s.placed:
                if x.ambassador:
                    continue
                if x.space == h or x.shares == h:
                    return x.player, x.space, x.shares
        return None

    def _start_round(self, log: _Log, number: int) -> None:
        log.emit(RoundStarted(number))
        group = 1000 + number
        choices = [
            Decision(p, "cube", CUBES, 1, "defend_the_tower_of_luck", group=group)
            for p, x in enumerate(log.state.seats)
            for q in x.plots
            if self._plot_op(q) == "round_cube"
        ]
        if choices:
            log.emit(DecisionsPushed(tuple(choices)))

    # -- answering decisions --------------------------------------------------------------

    def _answer(self, log: _Log, d: Decision, answer: str) -> None:
        p = d.player
        kind = d.kind
        if kind in ("place", "place_extra", "place_now"):
            self._place(log, p, answer)
        elif kind == "ambassador":
            self._place(log, p, answer, ambassador=True)
        elif kind == "reassign":
            space, shares = d.items
            log.emit(AgentRemoved(p, space, False, shares=shares))
            self._place(log, p, answer, from_pool=False)
        elif kind == "quest":
            if answer:
                self._complete(log, p, answer)
        elif kind == "cube":
            k = _CUBE_INDEX[answer]
            self._gain(log, p, tuple(1 if i == k else 0 for i in range(6)), d.source, d.act)
            if d.count > 1:
                self._push(log, Decision(p, "cube", d.items, d.count - 1, d.source, d.act, d.group))
        elif kind == "return_cube":
            k = _CUBE_INDEX[answer]
            self._gain(log, p, tuple(-1 if i == k else 0 for i in range(6)), d.source)
            if d.count > 1:
                self._push(log, Decision(p, "return_cube", d.items, d.count - 1, d.source, d.act))
        elif kind == "inn_quest":
            slot = log.state.inn.index(answer)
            log.emit(QuestTaken(p, answer, slot))
            self._refill_inn(log, slot)
            if d.source == "heroes_garden":
                self._push(log, Decision(p, "garden", (answer,), source=d.source, act=d.act))
        elif kind == "garden":
            if answer == "complete":
                self._complete(
                    log, p, d.items[0], bonus=self._effect_of_tile("heroes_garden", "heroes_garden").vp
                )
        elif kind in ("buy", "buy_free"):
            self._buy(log, p, answer, free=kind == "buy_free")
        elif kind in ("intrigue", "intrigue_optional"):
            if answer != "skip":
                self._play_intrigue(log, p, answer)
        elif kind == "copy":
            if d.source.startswith("the_zoarstar") and answer in HARBOR:
                log.emit(HarborShared(p, answer))
            self._resolve(log, p, self._action_of(answer), answer, d.act, copy=True)
        elif kind == "opponent":
            e = self._effect(d.source, "opponent_gain")
            self._gain(log, int(answer), e.bundle, d.source)
        elif kind == "target":
            log.emit(MandatoryQuestGiven(p, int(answer), d.items[0]))
        elif kind == "steal":
            o, _, t = answer.partition(":")
            k = _CUBE_INDEX[t]
            one = tuple(1 if i == k else 0 for i in range(6))
            log.emit(Gained(int(o), tuple(-v for v in one), d.source))
            self._gain(log, p, one, d.source, d.act, exact=one)  # from a Tavern, not the supply
        elif kind == "offer":
            if answer == "yes":
                e = self._effect(d.source, "offer")
                giver = tuple(-1 if t in e.types else 0 for t in CUBES) + (-e.gold, e.vp)
                log.emit(Gained(p, giver, d.source))
                taker = int(d.items[0])
                log.emit(Gained(taker, tuple(-v for v in giver[:5]) + (0,), d.source))
        elif kind == "favor":
            key, _, amount = answer.partition("=")
            gain = tuple(int(amount) if i == _RES_INDEX[key] else 0 for i in range(6))
            self._gain(log, p, gain, d.source, d.act)
        elif kind in ("discard_own", "discard_other"):
            if answer != "keep":
                log.emit(QuestDiscarded(p, answer))
                e = self._effect(d.source, "change_of_plans")
                vp = e.vp if kind == "discard_own" else e.n
                log.emit(Gained(p, bundle(vp=vp), d.source))
        elif kind == "bidding":
            log.emit(QuestTaken(p, answer, -2))
            if log.state.revealed:
                nxt = (p + 1) % log.state.players
                self._push(log, Decision(nxt, "bidding", source=d.source))
        elif kind == "quest_type":
            self._special_assignment(log, p, answer)
        elif kind == "own_building":
            log.emit(BuildingDiscarded(p, answer))
        elif kind == "recall":
            log.emit(AgentRemoved(p, answer, True))
        elif kind == "chronomancy":
            log.emit(AgentRemoved(p, answer, True))
            if log.state.reassigning:  # the returned agent is assigned at once [FACTS 3.1]
                self._push(log, Decision(p, "place_now", source=d.source))
        elif kind == "accelerate":
            log.emit(AgentRemoved(p, answer, True))
            self._push(
                log, Decision(p, "place_extra", source=d.source), Decision(p, "place_extra", source=d.source)
            )
        elif kind == "miracle":
            if answer != "skip":
                k = _CUBE_INDEX[answer]
                log.emit(RoundFlagUsed(p, "miracle"))
                log.emit(Gained(p, tuple(1 if i == 0 else -1 if i == k else 0 for i in range(6)), d.source))
        elif kind == "sample":
            log.emit(AgentPlaced(p, answer))
            act = log.state.acts
            self._resolve(log, p, self.tiles[answer].action, answer, act, sampled=True)
        else:  # pragma: no cover - every kind is listed in _build_option_fns
            raise AssertionError(f"unknown decision {kind}")

    def _effect_of_tile(self, tile: str, op: str) -> Effect:
        return next(e for e in self.tiles[tile].action if e.op == op)

    # -- a forged or corrupted state is the caller's fault -----------------------------------

    def check_state(self, state: State) -> None:
        """Raise ValueError naming the first way a decodable state does not fit the game."""
        n = state.players
        if n not in PLAYER_COUNTS or len(state.seats) != n:
            raise ValueError("players and seats disagree")
        if not 0 <= state.first < n or not -1 <= state.current < n or not 0 <= state.next_seat < n:
            raise ValueError("a turn marker names no seat")
        if not -1 <= state.ambassador < n or not 0 <= state.round <= ROUNDS:
            raise ValueError("ambassador or round out of range")
        if len(state.inn) != INN_SLOTS or len(state.hall) != HALL_SLOTS or len(state.hall_vp) != HALL_SLOTS:
            raise ValueError("Cliffwatch Inn has 4 slots and Builder's Hall 3")
        quests = (*state.inn, *state.quest_deck, *state.quest_discard, *state.revealed)
        quests += tuple(q for x in state.seats for q in (*x.quests, *x.completed))
        if any(q and base(q) not in self.quests for q in quests):
            raise ValueError("an unknown quest")
        cards = (*state.intrigue_deck, *state.intrigue_discard, *(c for x in state.seats for c in x.intrigue))
        if any(base(c) not in self.intrigues for c in cards):
            raise ValueError("an unknown intrigue card")
        tiles = (*state.hall, *state.stack, *(b.tile for b in state.buildings))
        if any(t and t not in self.tiles for t in tiles):
            raise ValueError("an unknown Building tile")
        for b in state.buildings:
            if not 0 <= b.owner < n or len(b.stock) != 6:
                raise ValueError(f"building {b.tile}: bad owner or stock")
        for x in state.seats:
            if len(x.cubes) != 4 or min(x.cubes) < 0 or x.gold < 0 or x.pool < 0 or x.lord not in self.lords:
                raise ValueError("a seat's resources or Lord are malformed")
            if any(q not in self.quests or not self.quests[q].plot for q in x.plots):
                raise ValueError("a plot that is not a plot quest")
        for placed in state.placed:
            if not 0 <= placed.player < n or (
                placed.space not in self.spaces and placed.space not in self.tiles
            ):
                raise ValueError("an agent on an unknown space")
        for d in state.pending:
            if not 0 <= d.player < n or d.kind not in self._option_fns:
                raise ValueError("a malformed pending decision")
            if d.kind in ("cube", "reassign") and (
                (d.kind == "cube" and any(t not in _CUBE_INDEX for t in d.items))
                or (d.kind == "reassign" and len(d.items) != 2)
            ):
                raise ValueError("a malformed pending decision")
            op = _EFFECT_OF.get(d.kind)
            if op is not None and not self._has_effect(d.source, op):
                raise ValueError(f"a pending {d.kind} decision from a card without that effect")
            if d.kind == "garden" and (len(d.items) != 1 or base(d.items[0]) not in self.quests):
                raise ValueError("a malformed pending decision")
            if d.kind in ("offer", "target") and len(d.items) != 1:
                raise ValueError("a malformed pending decision")
            if d.kind == "offer" and d.items[0] not in {str(p) for p in range(n)}:
                raise ValueError("an offer to an unknown seat")

    def _push(self, log: _Log, *decisions: Decision) -> None:
        """Push decisions so that the first one given is answered first."""
        log.emit(DecisionsPushed(tuple(reversed(decisions))))

    # -- placing an agent -----------------------------------------------------------------

    def _place(
        self,
        log: _Log,
        p: int,
        space: str,
        *,
        ambassador: bool = False,
        from_pool: bool = True,
    ) -> None:
        s = log.state
        orb = self._occupied(s, space)  # only the Magister's Orb lets an agent share a space
        log.emit(
            AgentPlaced(p, space, ambassador=ambassador, orb=orb, from_pool=from_pool and not ambassador)
        )
        act = log.state.acts
        owner = next((b.owner for b in s.buildings if b.tile == space), -1)
        decisions: list[Decision] = []
        self._resolve(log, p, self._action_of(space), space, act, collect=decisions)
        # The owner's benefit when anyone else (or the Ambassador) is assigned there [SEED Propietario].
        if owner >= 0 and owner != p:
            for e in self.tiles[space].owner:
                if e.op == "gain":
                    self._gain(log, owner, e.bundle, f"owner:{space}")
                    self._draw_intrigue(log, owner, e.intrigue)
                else:
                    decisions.insert(0, Decision(owner, "cube", e.types, e.n or 1, f"owner:{space}"))
        if decisions:
            self._push(log, *decisions)

    def _resolve(
        self,
        log: _Log,
        p: int,
        effects: tuple[Effect, ...],
        source: str,
        act: int,
        *,
        copy: bool = False,
        sampled: bool = False,
        collect: list[Decision] | None = None,
    ) -> None:
        """Carry out an action space's effects for `p`: gains at once, choices as decisions
        answered in the order listed."""
        decisions: list[Decision] = [] if collect is None else collect
        for e in effects:
            op = e.op
            if op == "gain":
                self._gain(log, p, e.bundle, source, act)
                self._draw_intrigue(log, p, e.intrigue)
            elif op == "choose_cubes":
                decisions.append(Decision(p, "cube", e.types, e.n, source, act))
            elif op == "pay":
                self._gain(log, p, bundle(gold=-e.gold), source)
            elif op == "return_cubes":
                decisions.append(Decision(p, "return_cube", CUBES, e.n, source, act))
            elif op == "take_stock":
                self._take_stock(log, p, source, act, sampled)
            elif op in ("inn_quest", "heroes_garden"):
                decisions.append(
                    Decision(
                        p, "inn_quest", source="heroes_garden" if op == "heroes_garden" else source, act=act
                    )
                )
            elif op == "reset_inn":
                s = log.state
                log.emit(InnCleared(tuple(q for q in s.inn if q)))
                for slot in range(INN_SLOTS):
                    self._refill_inn(log, slot)
            elif op == "first_player":
                log.emit(FirstPlayerTaken(p))
            elif op == "buy_building":
                decisions.append(Decision(p, "buy", source=source, act=act))
            elif op == "play_intrigue":
                on_harbor = () if copy else ("harbor",)  # a copied Harbor space has no agent there
                decisions.append(Decision(p, "intrigue", on_harbor, source=source, act=act))
            elif op == "ambassador":
                # Nothing if the Ambassador is waiting with another seat (or it is round 8).
                if log.state.ambassador < 0 and log.state.round < ROUNDS and self._palace_in_play(log.state):
                    log.emit(AmbassadorTaken(p))
            elif op == "copy_space":
                decisions.append(Decision(p, "copy", source=source, act=act))
            elif op == "gold_per_building":
                self._gain(log, p, bundle(gold=len(log.state.buildings)), source, act)
        if collect is None and decisions:
            self._push(log, *decisions)

    def _palace_in_play(self, s: State) -> bool:
        return any(b.tile == PALACE for b in s.buildings) or PALACE in s.hall

    def _take_stock(self, log: _Log, p: int, tile: str, act: int, sampled: bool) -> None:
        s = log.state
        b = next((b for b in s.buildings if b.tile == tile), None)
        if sampled or b is None:
            # A tile in the Hall holds nothing but its VP tokens, which only The Waymoot gives
            # (Sample Wares, or a copy of a sampled tile) [FACTS 7, Sample Wares; FAQ].
            if self._stock[tile][5] and tile in s.hall:
                vp = s.hall_vp[s.hall.index(tile)]
                log.emit(StockTaken(tile))
                if vp:
                    log.emit(Gained(p, bundle(vp=vp), tile))
            return
        log.emit(StockTaken(tile))
        self._gain(log, p, b.stock, tile, act, exact=b.stock)

    # -- gains, plots, draws ----------------------------------------------------------------

    def _gain(
        self,
        log: _Log,
        p: int,
        delta: tuple[int, ...],
        why: str,
        act: int = 0,
        exact: tuple[int, ...] | None = None,
    ) -> None:
        """Resources to `p`, adventurers only as far as the supply goes [SEED Preparar]; `act`: the
        gain comes from an action `p` took, so plot quests fire (once each per action)."""
        s = log.state
        d = list(delta)
        if exact is None:
            for k in range(4):
                if d[k] > 0:
                    d[k] = max(0, min(d[k], self._supply(s, k)))
        if not any(d):
            return
        log.emit(Gained(p, tuple(d), why))
        if act <= 0:
            return
        x = log.state.seats[p]
        for q in x.plots:
            plot = self.quests[q].plot[0]
            if plot.op == "on_gain" and d[_RES_INDEX[plot.when]] > 0:
                key = f"{p}:{q}"
                st = log.state
                if st.fired_act == act and key in st.fired:
                    continue
                log.emit(PlotFired(p, q, act))
                self._gain(log, p, plot.bundle, q)  # a plot's bonus is no action: no chains
                self._draw_intrigue(log, p, plot.intrigue)
            elif plot.op == "miracle" and d[0] > 0 and not x.miracle_used:
                key = f"{p}:{q}"
                st = log.state
                if st.fired_act == act and key in st.fired:
                    continue
                log.emit(PlotFired(p, q, act))
                self._push(log, Decision(p, "miracle", source=q, act=act))

    def _draw_intrigue(self, log: _Log, p: int, n: int) -> None:
        for _ in range(n):
            s = log.state
            if not s.intrigue_deck:
                if not s.intrigue_discard:
                    return
                cursor = log.cursor
                order = cursor.shuffle(s.intrigue_discard)
                log.emit(DeckShuffled("intrigue", order, cursor.rng.counter))
            log.emit(IntrigueDrawn(p, log.state.intrigue_deck[0]))

    def _quest_top(self, log: _Log) -> str:
        """The top quest of the deck, the discard pile reshuffled into it if need be ("" if none)."""
        s = log.state
        if not s.quest_deck:
            if not s.quest_discard:
                return ""
            cursor = log.cursor
            order = cursor.shuffle(s.quest_discard)
            log.emit(DeckShuffled("quest", order, cursor.rng.counter))
        return log.state.quest_deck[0]

    def _refill_inn(self, log: _Log, slot: int) -> None:
        top = self._quest_top(log)
        if top or log.state.inn[slot]:
            log.emit(InnRefilled(slot, top))

    # -- buildings ------------------------------------------------------------------------

    def _buy(self, log: _Log, p: int, tile: str, *, free: bool) -> None:
        s = log.state
        slot = s.hall.index(tile)
        cost = 0 if free else self.tiles[tile].cost
        log.emit(BuildingBought(p, tile, slot, cost, s.hall_vp[slot]))
        log.emit(HallRefilled(slot, log.state.stack[0] if log.state.stack else ""))
        if not free:  # Infiltrate Builder's Hall counts purchases only [FACTS 6.2, L]
            for q in log.state.seats[p].plots:
                plot = self.quests[q].plot[0]
                if plot.op == "buy_vp":
                    log.emit(Gained(p, bundle(vp=plot.vp), q))

    # -- quests -----------------------------------------------------------------------------

    def _complete(self, log: _Log, p: int, q: str, bonus: int = 0) -> None:
        quest = self.quests[base(q)]
        r = quest.requires
        log.emit(Gained(p, (-r.c, -r.f, -r.r, -r.w, -r.gold, 0), f"quest:{q}"))
        vp = quest.reward.vp + bonus
        for plot_id in log.state.seats[p].plots:  # plots completed earlier only [FACTS 6.2, L]
            plot = self.quests[plot_id].plot[0]
            if plot.op == "type_bonus" and quest.type in plot.types:
                vp += plot.vp
        log.emit(QuestCompleted(p, q, bool(quest.plot), vp))
        reward = quest.reward.bundle[:5] + (0,)
        self._gain(log, p, reward, f"quest:{q}")
        self._draw_intrigue(log, p, quest.reward.intrigue)
        decisions: list[Decision] = []
        for e in quest.plot:
            if e.op == "lieutenant":
                log.emit(LieutenantJoined(p))
        for e in quest.extra:
            op = e.op
            if op == "recall_agent":
                decisions.append(Decision(p, "chronomancy", source=q))
            elif op == "draw_quest":
                top = self._quest_top(log)
                if top:
                    log.emit(QuestTaken(p, top, -1))
            elif op == "free_hall_building":
                decisions.append(Decision(p, "buy_free", source=q))
            elif op == "free_stack_building":
                s = log.state
                if s.stack:
                    log.emit(BuildingBought(p, s.stack[0], -1, 0, 0))
            elif op == "opponent_gain":
                decisions.append(Decision(p, "opponent", source=q))
            elif op == "inn_quest":
                decisions.append(Decision(p, "inn_quest", source=q))
            elif op == "vp_per_building":
                owned = sum(b.owner == p for b in log.state.buildings)
                if owned:
                    log.emit(Gained(p, bundle(vp=e.vp * owned), q))
            elif op == "play_intrigue":
                decisions.append(Decision(p, "intrigue_optional", source=q))
        if decisions:
            self._push(log, *decisions)

    def _special_assignment(self, log: _Log, p: int, quest_type: str) -> None:
        """Reveal quests until one of the named type; keep it, discard the others [FACTS 7]. With
        no quest of that type left in deck or discard nothing is revealed."""
        s = log.state
        if not any(self.quests[q].type == quest_type for q in (*s.quest_deck, *s.quest_discard)):
            return
        while True:
            top = self._quest_top(log)
            if self.quests[top].type == quest_type:
                log.emit(QuestTaken(p, top, -1))
                return
            log.emit(QuestsRevealed((top,), keep=False))

    # -- intrigue cards -----------------------------------------------------------------------

    def _play_intrigue(self, log: _Log, p: int, card: str) -> None:
        log.emit(IntriguePlayed(p, card))
        log.emit(ActionBegun(p, card))
        act = log.state.acts
        for q in log.state.seats[p].plots:  # Place a Sleeper Agent in Skullport
            plot = self.quests[q].plot[0]
            if plot.op == "intrigue_vp":
                log.emit(Gained(p, bundle(vp=plot.vp), q))
        n = log.state.players
        opponents = seats_from(p, n)[1:]
        decisions: list[Decision] = []
        group = 10_000 + 4 * log.state.acts  # unique per card played (round starts use 1001-1008)
        for e in self.intrigues[base(card)].effect:
            op = e.op
            if op == "gain":
                self._gain(log, p, e.bundle, card, act)
            elif op == "choose_cubes":
                decisions.append(Decision(p, "cube", e.types, e.n, card, act))
            elif op == "attack":
                k = _CUBE_INDEX[e.types[0]]
                missed = 0
                for o in opponents:
                    if log.state.seats[o].cubes[k] > 0:
                        log.emit(Gained(o, tuple(-1 if i == k else 0 for i in range(6)), card))
                    else:
                        missed += 1
                if missed:
                    self._gain(log, p, tuple(v * missed for v in e.bundle), card, act)
                    self._draw_intrigue(log, p, e.intrigue * missed)
            elif op == "opponent_gain":
                decisions.append(Decision(p, "opponent", source=card))
            elif op == "each_opponent_chooses":
                decisions.extend(Decision(o, "cube", e.types, e.n, card, group=group) for o in opponents)
            elif op == "offer":
                decisions.extend(
                    Decision(o, "offer", (str(p),), source=card, group=group + 1) for o in opponents
                )
            elif op == "favor":
                decisions.append(Decision(p, "favor", source=card, act=act))
            elif op == "steal":
                decisions.append(Decision(p, "steal", source=card, act=act))
            elif op == "bribe":
                self._gain(log, p, bundle(gold=-e.gold), card)
                decisions.append(Decision(p, "copy", source=card, act=act))
            elif op == "accelerate":
                decisions.append(Decision(p, "accelerate", source=card))
            elif op == "bidding_war":
                for _ in range(n):
                    top = self._quest_top(log)
                    if not top:
                        break
                    log.emit(QuestsRevealed((top,), keep=True))
                if log.state.revealed:
                    decisions.append(Decision(p, "bidding", source=card))
            elif op == "change_of_plans":
                decisions.append(Decision(p, "discard_own", source=card))
                decisions.extend(
                    Decision(o, "discard_other", source=card, group=group + 2) for o in opponents
                )
            elif op == "real_estate":
                decisions.append(Decision(p, "own_building", source=card))
                decisions.append(Decision(p, "buy_free", source=card))
            elif op == "recall":
                decisions.append(Decision(p, "recall", source=card))
            elif op == "sample_wares":
                decisions.append(Decision(p, "sample", source=card, act=act))
            elif op == "special_assignment":
                decisions.append(Decision(p, "quest_type", source=card))
            elif op == "mandatory":
                decisions.append(Decision(p, "target", (card,), source=card))
        if decisions:
            self._push(log, *decisions)


VARIANTS: dict[str, Options] = {
    "standard": Options(),
    "without_larissa": Options(larissa=False),
}


def make_game(catalog: Catalog) -> GameSpec[State]:
    """Lords of Waterdeep played with this data file; its rules version digests the code and this data."""
    return _make_game(Rules(catalog))


def _make_game(rules: Rules) -> GameSpec[State]:
    def view(state: State, viewer: int | None) -> View:
        scores = scoring.table_scores(rules.catalog, state)
        return views.view(state, viewer, rules.active_players(state), scores)

    return GameSpec(
        game_id="waterdeep",
        title="Lords of Waterdeep",
        rules_version=rules_version("1.0", rules.catalog, package=__package__),
        player_counts=PLAYER_COUNTS,
        options_type=Options,
        state_type=State,
        action_type=Action,
        event_type=Event,
        view_type=View,
        setup=rules.setup,
        active_players=rules.active_players,
        legal_actions=rules.legal_actions,
        validate=rules.validate,
        apply=rules.apply,
        view=view,
        outcome=lambda state: scoring.outcome(state, rules.catalog),
        redact_event=views.redact_event,
        probe_actions=rules.probe_actions,
        resample_hidden=lambda state, viewer, rng: views.resample_hidden(state, viewer, rng, rules.catalog),
        check_state=rules.check_state,
        data=rules.catalog,
        variants=VARIANTS,
        presentation=make_presentation(rules.catalog),
        undoable=UNDO,
    )


RULES = Rules(default_catalog())
GAME = _make_game(RULES)
