"""Bruges rules: setup, whose decision it is, legal actions, validate and apply.

A round flows as the rulebook's four phases [SEED "Cómo se juega"]:
1. Draw: from the start player on, each seat draws one card at a time from the pile of its
   choice (`draw_card`) up to 5 (6 with the Inventor, `stop_drawing` at 5), then looks at them.
2. Dice: `DiceRolled`; every 5 or 6 gives every seat a threat marker of that colour; a third
   marker strikes its calamity (brown and red ask the seat to choose, all such seats at once).
   Then from the start player on, each seat that can pay may buy one reputation step.
3. Play: turns from the start player on until everyone has played four cards; in a turn a seat
   plays one card for one of the six actions and may activate persons before and after it.
4. Majorities (reputation, people, canals), rotated persons straightened, the start player
   passes clockwise. The round in which the extra pile came into play is the last (the next one
   if it came in during phase 3).

`validate` turns a decision into events and keeps emitting the automatic ones (`_advance`) until
someone owes a decision again; `apply` is bookkeeping only. Person effects are data (catalog
`effect` and parameters) carried out by the primitives in `services.bruges.effects`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from services.bruges import effects, scoring, views
from services.bruges.catalog import Catalog, default_catalog
from services.bruges.model import (
    CALAMITY,
    CALAMITY_TASKS,
    CARD_ACTIONS,
    COLOUR_INDEX,
    COLOURS,
    DRAW,
    HAND_SIZE,
    INTRIGUE_LOSS,
    ONCE_PER_ROUND,
    OVER,
    PLAY,
    PLAYS_PER_ROUND,
    REPUTATION,
    REPUTATION_STEPS,
    T_CANAL,
    T_DISCARD,
    T_DRAW,
    T_FIRE,
    T_GIVE,
    T_PLAGUE,
    T_THREAT,
    THREAT_LIMIT,
    WORKER,
    Action,
    Activate,
    BuyReputation,
    CalamityStruck,
    CanalBuilt,
    CanalRemoved,
    CardDiscarded,
    CardDrawn,
    CardPlayed,
    DiceRolled,
    DiscardCard,
    DrawCard,
    EndTurn,
    Event,
    ExtraPlayGranted,
    Gained,
    GameEnded,
    GiveWorker,
    HandLooked,
    House,
    HouseLost,
    LastRoundSet,
    MajoritiesChecked,
    Options,
    PersonActivated,
    PersonLost,
    PhaseStarted,
    PileReplaced,
    PlayCard,
    RemoveCanal,
    ReputationBought,
    ReturnThreat,
    RoundEnded,
    RoundStarted,
    Seat,
    State,
    StatueTaken,
    StopDrawing,
    SufferCalamity,
    Task,
    TaskDropped,
    TasksAdded,
    ThreatReturned,
    ThreatTaken,
    TurnEnded,
    TurnStarted,
    View,
    WorkerGiven,
)
from services.bruges.present import make_presentation
from services.bruges.primitives import Log, Tables
from services.bruges.undo import UNDO
from services.kernel import (
    EventLog,
    GameSpec,
    Rejection,
    Rng,
    SetupError,
    illegal,
    rules_version,
    seats_from,
    shift,
)

PLAYER_COUNTS = (2, 3, 4)
STACKS = 5  # the shuffled deck is cut into 5 stacks; one per player forms the draw piles [SEED]
NO_WORKERS = (0, 0, 0, 0, 0)

_PROMPTS = {
    "refill": "draw a card (or stop at five with the Inventor)",
    "reputation": "buy a reputation step or decline",
    "turn": "play a card, activate a person or end your turn",
    T_DRAW: "draw a card from a pile of your choice",
    T_DISCARD: "discard a card from your hand",
    T_THREAT: "give back a threat marker",
    T_GIVE: "give a worker",
    T_CANAL: "give back a canal token",
    T_PLAGUE: "resolve your calamity",
    T_FIRE: "resolve your calamity",
}
_ACCEPTS: dict[str, tuple[type, ...]] = {
    "refill": (DrawCard, StopDrawing),
    "reputation": (BuyReputation,),
    "turn": (PlayCard, Activate, EndTurn),
    T_DRAW: (DrawCard,),
    T_DISCARD: (DiscardCard,),
    T_THREAT: (ReturnThreat,),
    T_GIVE: (GiveWorker,),
    T_CANAL: (RemoveCanal,),
    T_PLAGUE: (SufferCalamity,),
    T_FIRE: (SufferCalamity,),
}


def _replace(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


def _set_seat(state: State, player: int, seat: Seat) -> State:
    seats = list(state.seats)
    seats[player] = seat
    return msgspec.structs.replace(state, seats=tuple(seats))


def workers_of(colour: str, amount: int) -> tuple[int, ...]:
    return shift(NO_WORKERS, COLOUR_INDEX[colour], amount)


class Rules(Tables):
    """The rules of Bruges played with one data file (its figures and shared steps: `Tables`)."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__(catalog)
        self._appliers: dict[type, Callable[[State, Any], State]] = {
            RoundStarted: _apply_round_started,
            CardDrawn: _apply_card_drawn,
            PileReplaced: _apply_pile_replaced,
            LastRoundSet: _apply_last_round_set,
            HandLooked: _apply_hand_looked,
            DiceRolled: _apply_dice_rolled,
            ThreatTaken: _apply_threat_taken,
            CalamityStruck: _apply_calamity_struck,
            ReputationBought: _apply_reputation_bought,
            PhaseStarted: _apply_phase_started,
            TurnStarted: _apply_turn_started,
            CardPlayed: _apply_card_played,
            Gained: _apply_gained,
            ThreatReturned: _apply_threat_returned,
            CanalBuilt: _apply_canal_built,
            StatueTaken: _apply_statue_taken,
            CanalRemoved: _apply_canal_removed,
            PersonActivated: _apply_person_activated,
            ExtraPlayGranted: _apply_extra_play_granted,
            TasksAdded: _apply_tasks_added,
            TaskDropped: _apply_task_dropped,
            CardDiscarded: _apply_card_discarded,
            WorkerGiven: _apply_worker_given,
            PersonLost: _apply_person_lost,
            HouseLost: _apply_house_lost,
            TurnEnded: _apply_turn_ended,
            MajoritiesChecked: _apply_majorities_checked,
            RoundEnded: _apply_round_ended,
            GameEnded: _apply_game_ended,
        }
        self._handlers: dict[type, Callable[[Log, int, Any], Rejection | None]] = {
            DrawCard: self._on_draw,
            StopDrawing: self._on_stop,
            BuyReputation: self._on_reputation,
            PlayCard: self._on_play,
            Activate: self._on_activate,
            EndTurn: self._on_end_turn,
            DiscardCard: self._on_discard,
            ReturnThreat: self._on_return_threat,
            GiveWorker: self._on_give_worker,
            RemoveCanal: self._on_remove_canal,
            SufferCalamity: self._on_calamity,
        }

    # -- setup ---------------------------------------------------------------------------------

    def setup(self, players: int, seed: int, options: Options) -> State:
        """Shuffle, cut 5 stacks, take one per player into two draw piles, the rest is the
        extra pile [SEED "Tarjetas"]; 5 points, 5 guilders, one worker of each colour each."""
        if players not in PLAYER_COUNTS:
            raise SetupError(f"Bruges is played by 2, 3 or 4 players, not {players}")
        if options.first_player >= players:
            raise SetupError(f"first_player is a seat 0..{players - 1}")
        cursor = Rng.from_seed(seed).cursor()
        deck = cursor.shuffle(range(len(self.persons)))
        cuts = [round(k * len(deck) / STACKS) for k in range(STACKS + 1)]
        stacks = [deck[cuts[k] : cuts[k + 1]] for k in range(STACKS)]
        used = cursor.shuffle([c for stack in stacks[:players] for c in stack])
        half = (len(used) + 1) // 2
        extra = tuple(c for stack in stacks[players:] for c in stack)
        state = State(
            players=players,
            rng=cursor.rng,
            options=options,
            start=options.first_player,
            seats=(Seat(),) * players,
            piles=(tuple(used[:half]), tuple(used[half:])),
            extra=extra,
            statues=self.board.statues,
        )
        state = _apply_round_started(state, RoundStarted(1, options.first_player))
        log = EventLog(self.apply, state)
        self._advance(log)
        return log.state

    # -- whose decision ----------------------------------------------------------------------

    def active_players(self, state: State) -> tuple[int, ...]:
        if state.phase == OVER:
            return ()
        if state.tasks:
            return tuple(sorted({t.seat for t in state.tasks}))
        if state.phase in (DRAW, REPUTATION):
            return state.queue[:1]
        if state.phase == PLAY and state.in_turn:
            return (state.current,)
        return ()

    def _decision(self, state: State, player: int) -> str | None:
        if player not in self.active_players(state):
            return None
        if state.tasks:
            return self._first_task(state, player).kind
        if state.phase == DRAW:
            return "refill"
        if state.phase == REPUTATION:
            return "reputation"
        return "turn"

    @staticmethod
    def _first_task(state: State, player: int) -> Task:
        return next(t for t in state.tasks if t.seat == player)

    # -- legal actions -------------------------------------------------------------------------

    def legal_actions(self, state: State, player: int) -> list[Action]:
        decision = self._decision(state, player)
        if decision is None:
            return []
        if decision == "refill":
            out: list[Action] = [DrawCard(p) for p in (0, 1) if state.piles[p]]
            if len(state.seats[player].hand) >= HAND_SIZE:
                out.append(StopDrawing())
            return out
        if decision == "reputation":
            return [BuyReputation(True), BuyReputation(False)]
        if decision == "turn":
            return self._turn_actions(state, player)
        return self._task_options(state, player)

    def _turn_actions(self, state: State, player: int) -> list[Action]:
        seat = state.seats[player]
        out: list[Action] = []
        if state.played < state.allowed:
            for card in seat.hand:
                out.extend(self._card_plays(state, player, card))
        for house in range(len(seat.houses)):
            out.extend(self._activations(state, player, house))
        if state.played >= 1:
            out.append(EndTurn())
        return out

    def _card_plays(self, state: State, player: int, card: int) -> list[PlayCard]:
        seat = state.seats[player]
        colour = self.colour[card]
        c = COLOUR_INDEX[colour]
        out = [PlayCard(card, "workers"), PlayCard(card, "guilders")]
        if seat.threats[c]:
            out.append(PlayCard(card, "threat"))
        for section in (0, 1):
            if (
                self.canal_space(state, player, section) == colour
                and self.canal_cost(seat, section) <= seat.guilders
            ):
                out.append(PlayCard(card, "canal", section))
        if seat.workers[c]:
            out.append(PlayCard(card, "house"))
        price = self.price(state, player, card)
        if price <= seat.guilders:
            out.extend(
                PlayCard(card, "recruit", h) for h, house in enumerate(seat.houses) if house.person < 0
            )
        return out

    def _activations(self, state: State, player: int, house: int) -> list[Activate]:
        seat = state.seats[player]
        person = seat.houses[house].person
        if person < 0 or seat.houses[house].used:
            return []
        card = self.persons[person]
        if card.icon == WORKER:
            if not seat.workers[COLOUR_INDEX[card.worker]]:
                return []
        elif card.icon != ONCE_PER_ROUND:
            return []
        return [Activate(house, t) for t in effects.targets(self, state, player, card)]

    def _task_options(self, state: State, player: int) -> list[Action]:
        first = self._first_task(state, player)
        if first.kind in CALAMITY_TASKS:
            kinds = {t.kind for t in state.tasks if t.seat == player and t.kind in CALAMITY_TASKS}
            return [a for kind in CALAMITY_TASKS if kind in kinds for a in self._options(state, player, kind)]
        return self._options(state, player, first.kind)

    def _options(self, state: State, player: int, kind: str) -> list[Action]:
        seat = state.seats[player]
        if kind == T_DRAW:
            return [DrawCard(p) for p in (0, 1) if state.piles[p]]
        if kind == T_DISCARD:
            return [DiscardCard(c) for c in sorted(seat.hand)]
        if kind == T_THREAT:
            return [ReturnThreat(c) for c in COLOURS if seat.threats[COLOUR_INDEX[c]]]
        if kind == T_GIVE:
            return [GiveWorker(c) for c in COLOURS if seat.workers[COLOUR_INDEX[c]]]
        if kind == T_CANAL:
            return [RemoveCanal(s) for s in (0, 1) if seat.canals[s]]
        if kind == T_PLAGUE:
            return [SufferCalamity("brown", house=h) for h, x in enumerate(seat.houses) if x.person >= 0]
        # Fire: one house (its person back to hand) or the outermost token of a section [FS §5]
        return [
            *(SufferCalamity("red", house=h) for h in range(len(seat.houses))),
            *(SufferCalamity("red", section=s) for s in (0, 1) if seat.canals[s]),
        ]

    def probe_actions(self, state: State, player: int) -> list[Action]:
        """Plausible actions beyond the legal ones, so conformance proves they are rejected."""
        seat = state.seats[player]
        cards = sorted({*seat.hand, *(state.discard[-2:]), *(state.piles[0][:1])})
        out: list[Action] = [DrawCard(0), DrawCard(1), DrawCard(2), StopDrawing(), EndTurn()]
        out += [BuyReputation(True), BuyReputation(False)]
        for card in cards:
            out += [PlayCard(card, a, t) for a in CARD_ACTIONS for t in (-1, 0, 1, 2)]
            out.append(DiscardCard(card))
        out += [Activate(h, t) for h in range(len(seat.houses) + 1) for t in (-1, 0, 1)]
        out += [ReturnThreat(c) for c in COLOURS] + [GiveWorker(c) for c in COLOURS]
        out += [RemoveCanal(s) for s in (0, 1, 2)]
        out += [SufferCalamity(c, house=h) for c in ("brown", "red", "blue") for h in (-1, 0, 1, 5)]
        out += [SufferCalamity("red", section=s) for s in (0, 1, 2)]
        out.append(PlayCard(card=10_000, action="workers"))
        out.append(PlayCard(card=seat.hand[0] if seat.hand else 0, action="dance"))
        return out

    # -- validate ---------------------------------------------------------------------------

    def validate(self, state: State, player: int, action: Action) -> list[Event] | Rejection:
        """The events `player`'s action causes, up to the next decision anybody owes; or why not."""
        decision = self._decision(state, player)
        assert decision is not None, "GameSpec.decide only asks active seats"
        if not isinstance(action, _ACCEPTS[decision]):
            return illegal(f"Not now: you must {_PROMPTS[decision]}.")
        log = EventLog(self.apply, state)
        rejection = self._handlers[type(action)](log, player, action)
        if rejection is not None:
            return rejection
        self._advance(log)
        return log.events

    def _task_rejection(self, state: State, player: int, action: Action) -> Rejection | None:
        if action not in self._task_options(state, player):
            return illegal(f"You cannot do that: {_PROMPTS[self._first_task(state, player).kind]}.")
        return None

    def _on_draw(self, log: Log, player: int, action: DrawCard) -> Rejection | None:
        state = log.state
        if action.pile not in (0, 1):
            return illegal("There are two draw piles: 0 and 1.")
        if not state.piles[action.pile]:
            return illegal(f"Draw pile {action.pile} is empty.")
        task = T_DRAW if state.tasks else ""
        self._draw(log, player, action.pile, seen=bool(task), task=task)
        return None

    def _draw(self, log: Log, player: int, pile: int, *, seen: bool, task: str) -> None:
        """Take the top card; an emptied pile is replaced by the extra pile, or, once that is in
        play, the other pile is split in two [SEED phase 1]."""
        state = log.state
        card = state.piles[pile][0]
        log.emit(CardDrawn(player, pile, self.colour[card], card, seen, task))
        state = log.state
        if state.piles[pile]:
            return
        if state.extra:
            log.emit(PileReplaced(pile, False, (len(state.extra), len(state.piles[1 - pile]))))
            if not log.state.last_round:
                # Drawn in phase 3 (a person's effect), the extra pile makes the NEXT round last.
                last = state.round + (1 if state.phase == PLAY else 0)
                log.emit(LastRoundSet(last))
        elif len(state.piles[1 - pile]) >= 2:
            other = len(state.piles[1 - pile])
            log.emit(PileReplaced(pile, True, (other // 2, other - other // 2)))

    def _on_stop(self, log: Log, player: int, action: StopDrawing) -> Rejection | None:
        seat = log.state.seats[player]
        if len(seat.hand) < HAND_SIZE:
            return illegal("Draw up to five cards first.")
        log.emit(HandLooked(player, seat.hand))
        return None

    def _on_reputation(self, log: Log, player: int, action: BuyReputation) -> Rejection | None:
        state = log.state
        log.emit(ReputationBought(player, state.reputation_cost if action.advance else 0, action.advance))
        if action.advance:
            self.reputation_trigger(log, player)
        return None

    def _on_play(self, log: Log, player: int, action: PlayCard) -> Rejection | None:
        state = log.state
        seat = state.seats[player]
        if state.played >= state.allowed:
            return illegal("You have played your card this turn.")
        if action.card not in seat.hand:
            return illegal("That card is not in your hand.")
        if action.action not in CARD_ACTIONS:
            return illegal(f"Unknown action {action.action!r}: one of {', '.join(CARD_ACTIONS)}.")
        if action not in self._card_plays(state, player, action.card):
            return illegal(self._why_not(state, player, action))
        colour = self.colour[action.card]
        c = COLOUR_INDEX[colour]
        extra = state.played >= 1
        kind = action.action
        if kind == "workers":
            log.emit(CardPlayed(player, action.card, colour, kind, extra=extra))
            log.emit(Gained(player, kind, workers=workers_of(colour, 2 + self.bonus(seat, kind))))
        elif kind == "guilders":
            log.emit(CardPlayed(player, action.card, colour, kind, extra=extra))
            log.emit(Gained(player, kind, guilders=state.dice[c] + self.bonus(seat, kind)))
        elif kind == "threat":
            log.emit(CardPlayed(player, action.card, colour, kind, extra=extra))
            log.emit(ThreatReturned(player, colour))
            if self.bonus(seat, kind):
                log.emit(Gained(player, kind, points=self.bonus(seat, kind)))
        elif kind == "canal":
            log.emit(CardPlayed(player, action.card, colour, kind, action.target, extra=extra))
            self.build_canal(log, player, action.target, self.canal_cost(seat, action.target))
        elif kind == "house":
            log.emit(CardPlayed(player, action.card, colour, kind, worker=colour, extra=extra))
        else:
            price = self.price(state, player, action.card)
            log.emit(CardPlayed(player, action.card, colour, kind, action.target, cost=price, extra=extra))
            person = self.persons[action.card]
            if person.icon == "arrow":
                effects.resolve(self, log, player, person, -1)
        return None

    def _why_not(self, state: State, player: int, action: PlayCard) -> str:
        seat = state.seats[player]
        colour = self.colour[action.card]
        if action.action in ("workers", "guilders", "threat", "house") and action.target != -1:
            return f"The {action.action} action takes no target."
        if action.action == "threat":
            return f"You have no {colour} threat marker to give back."
        if action.action == "house":
            return f"A {colour} house costs a {colour} worker; you have none."
        if action.action == "canal":
            if action.target not in (0, 1):
                return "Name canal section 0 or 1."
            space = self.canal_space(state, player, action.target)
            if not space:
                return "That canal section is complete."
            if space != colour:
                return f"The next space of that section is {space}: play a {space} card."
            return f"That canal space costs {self.canal_cost(seat, action.target)} guilders."
        if not 0 <= action.target < len(seat.houses):
            return "Recruit onto one of your houses (target = its index)."
        if seat.houses[action.target].person >= 0:
            return "That house already holds a person."
        return f"{self.persons[action.card].name} costs {self.price(state, player, action.card)} guilders."

    def _on_activate(self, log: Log, player: int, action: Activate) -> Rejection | None:
        state = log.state
        seat = state.seats[player]
        if not 0 <= action.house < len(seat.houses) or seat.houses[action.house].person < 0:
            return illegal("There is no person on that house of yours.")
        house = seat.houses[action.house]
        person = self.persons[house.person]
        if person.icon not in (WORKER, ONCE_PER_ROUND):
            return illegal(f"{person.name} is not activated in your turn ({person.icon}).")
        if house.used:
            return illegal(f"{person.name} has been used this round.")
        if person.icon == WORKER and not seat.workers[COLOUR_INDEX[person.worker]]:
            return illegal(f"Using {person.name} costs a {person.worker} worker; you have none.")
        if action not in self._activations(state, player, action.house):
            return illegal(effects.why_not(self, state, player, person, action.target))
        log.emit(PersonActivated(player, action.house, house.person, person.worker))
        effects.resolve(self, log, player, person, action.target)
        return None

    def _on_end_turn(self, log: Log, player: int, action: EndTurn) -> Rejection | None:
        if log.state.played < 1:
            return illegal("Play a card before you end your turn.")
        log.emit(TurnEnded(player))
        return None

    def _on_discard(self, log: Log, player: int, action: DiscardCard) -> Rejection | None:
        if action.card not in log.state.seats[player].hand:
            return illegal("That card is not in your hand.")
        log.emit(CardDiscarded(player, action.card, T_DISCARD))
        return None

    def _on_return_threat(self, log: Log, player: int, action: ReturnThreat) -> Rejection | None:
        rejection = self._task_rejection(log.state, player, action)
        if rejection is None:
            log.emit(ThreatReturned(player, action.colour, T_THREAT))
        return rejection

    def _on_give_worker(self, log: Log, player: int, action: GiveWorker) -> Rejection | None:
        rejection = self._task_rejection(log.state, player, action)
        if rejection is None:
            task = self._first_task(log.state, player)
            log.emit(WorkerGiven(player, task.other, action.colour, T_GIVE))
        return rejection

    def _on_remove_canal(self, log: Log, player: int, action: RemoveCanal) -> Rejection | None:
        rejection = self._task_rejection(log.state, player, action)
        if rejection is None:
            log.emit(CanalRemoved(player, action.section, T_CANAL))
        return rejection

    def _on_calamity(self, log: Log, player: int, action: SufferCalamity) -> Rejection | None:
        state = log.state
        if action not in self._task_options(state, player):
            return illegal(
                "Choose a person (brown), or a house or canal section (red), of a pending calamity."
            )
        self._suffer(log, player, action)
        return None

    def _suffer(self, log: Log, player: int, action: SufferCalamity) -> None:
        seat = log.state.seats[player]
        if action.colour == "brown":
            log.emit(PersonLost(player, action.house, seat.houses[action.house].person, T_PLAGUE))
        elif action.house >= 0:
            house = seat.houses[action.house]
            log.emit(HouseLost(player, action.house, house.card, house.person, T_FIRE))
        else:
            log.emit(CanalRemoved(player, action.section, T_FIRE))

    # -- the automatic flow --------------------------------------------------------------------

    def _advance(self, log: Log) -> None:
        """Emit what happens by itself until somebody owes a decision (or the game is over)."""
        while True:
            state = log.state
            if state.phase == OVER:
                return
            if state.tasks:
                if self._settle_task(log):
                    continue
                return
            if state.phase == DRAW:
                if not state.queue:
                    self._roll(log)
                    continue
                player = state.queue[0]
                seat = state.seats[player]
                if len(seat.hand) >= self.hand_limit(seat) or not (state.piles[0] or state.piles[1]):
                    log.emit(HandLooked(player, seat.hand))
                    continue
                if len(seat.hand) < HAND_SIZE and not (state.piles[0] and state.piles[1]):
                    self._draw(log, player, 0 if state.piles[0] else 1, seen=False, task="")
                    continue
                return
            if state.phase == CALAMITY:
                self._start_reputation(log)
                continue
            if state.phase == REPUTATION:
                if state.queue:
                    return
                log.emit(PhaseStarted(PLAY))
                continue
            # PLAY
            if state.in_turn:
                if self._turn_owes(state):
                    return
                log.emit(TurnEnded(state.current))
                continue
            nxt = self._next_turn(state)
            if nxt >= 0:
                log.emit(TurnStarted(nxt))
                continue
            self._end_round(log)

    def _turn_owes(self, state: State) -> bool:
        player = state.current
        seat = state.seats[player]
        if state.played < 1 or (state.played < state.allowed and seat.hand):
            return bool(seat.hand)
        return any(self._activations(state, player, h) for h in range(len(seat.houses)))

    def _next_turn(self, state: State) -> int:
        n = state.players
        for k in range(1, n + 1):
            seat_no = (state.current + k) % n
            seat = state.seats[seat_no]
            if seat.plays_left > 0 and seat.hand:
                return seat_no
        return -1

    def _settle_task(self, log: Log) -> bool:
        """Resolve a task that leaves no choice (one option) or drop one that cannot be done."""
        state = log.state
        for player in sorted({t.seat for t in state.tasks}):
            first = self._first_task(state, player)
            options = self._task_options(state, player)
            if not options:
                log.emit(TaskDropped(player, first.kind))
                return True
            if len(options) == 1:
                self._carry_out(log, player, options[0])
                return True
        return False

    def _carry_out(self, log: Log, player: int, action: Action) -> None:
        if isinstance(action, DrawCard):
            self._draw(log, player, action.pile, seen=True, task=T_DRAW)
        elif isinstance(action, DiscardCard):
            log.emit(CardDiscarded(player, action.card, T_DISCARD))
        elif isinstance(action, ReturnThreat):
            log.emit(ThreatReturned(player, action.colour, T_THREAT))
        elif isinstance(action, GiveWorker):
            log.emit(WorkerGiven(player, self._first_task(log.state, player).other, action.colour, T_GIVE))
        elif isinstance(action, RemoveCanal):
            log.emit(CanalRemoved(player, action.section, T_CANAL))
        else:
            assert isinstance(action, SufferCalamity)
            self._suffer(log, player, action)

    def _roll(self, log: Log) -> None:
        """Phase 2: roll; every 5 or 6 gives each seat a marker of its colour, handed out in turn
        order with calamities struck at once [SEED phase 2, FS §5]."""
        cursor = log.cursor
        dice = tuple(cursor.die() for _ in COLOURS)
        log.emit(DiceRolled(dice, cursor.rng.counter))
        self.hand_out_threats(log)

    def hand_out_threats(self, log: Log) -> None:
        """Every seat a marker per die showing 5 or 6; a third marker strikes at once."""
        order = seats_from(log.state.start, log.state.players)
        for colour, value in zip(COLOURS, log.state.dice, strict=True):
            if value < 5:
                continue
            c = COLOUR_INDEX[colour]
            for player in order:
                log.emit(ThreatTaken(player, colour))
                if log.state.seats[player].threats[c] >= THREAT_LIMIT:
                    log.emit(CalamityStruck(player, colour))

    def _start_reputation(self, log: Log) -> None:
        """The price is the sum of the dice showing 1 or 2; no such die, no step this round."""
        state = log.state
        cost = sum(v for v in state.dice if v <= 2)
        queue: tuple[int, ...] = ()
        if cost:
            queue = tuple(
                p
                for p in seats_from(state.start, state.players)
                if state.seats[p].guilders >= cost and state.seats[p].reputation < REPUTATION_STEPS
            )
        log.emit(PhaseStarted(REPUTATION, queue, cost))

    def _end_round(self, log: Log) -> None:
        """Phase 4: majorities in order, then the start player passes clockwise."""
        state = log.state
        figures = (
            [s.reputation for s in state.seats],
            [sum(1 for h in s.houses if h.person >= 0) for s in state.seats],
            [sum(s.canals) for s in state.seats],
        )
        log.emit(MajoritiesChecked(tuple(_sole_leader(values) for values in figures)))
        log.emit(RoundEnded(state.round, (state.start + 1) % state.players))
        if state.round == state.last_round:
            log.emit(GameEnded(state.round))
        else:
            log.emit(RoundStarted(state.round + 1, (state.start + 1) % state.players))

    # -- apply ---------------------------------------------------------------------------------

    def apply(self, state: State, event: Event) -> State:
        """Fold one event into the state (total: it never rejects an event validate produced)."""
        return self._appliers[type(event)](state, event)


def _sole_leader(values: list[int]) -> int:
    """The seat strictly ahead of every other (-1 on a tie for the lead) [FS §2 phase 4]."""
    best = max(values)
    if best <= 0 or values.count(best) > 1:
        return -1
    return values.index(best)


def _consume(state: State, seat: int, kind: str) -> State:
    """One unit of the seat's first task of `kind` is done."""
    if not kind:
        return state
    tasks = list(state.tasks)
    for i, task in enumerate(tasks):
        if task.seat == seat and task.kind == kind:
            if task.count > 1:
                tasks[i] = msgspec.structs.replace(task, count=task.count - 1)
            else:
                del tasks[i]
            break
    return _replace(state, tasks=tuple(tasks))


def _apply_round_started(state: State, e: RoundStarted) -> State:
    n = state.players
    return _replace(
        state,
        round=e.round,
        start=e.start,
        phase=DRAW,
        queue=seats_from(e.start, n),
        current=-1,
        in_turn=False,
        played=0,
        allowed=1,
        reputation_cost=0,
    )


def _apply_card_drawn(state: State, e: CardDrawn) -> State:
    piles = list(state.piles)
    piles[e.pile] = piles[e.pile][1:]
    seat = state.seats[e.player]
    seat = msgspec.structs.replace(
        seat, hand=(*seat.hand, state.piles[e.pile][0]), unseen=seat.unseen + (0 if e.seen else 1)
    )
    state = _set_seat(_replace(state, piles=(piles[0], piles[1])), e.player, seat)
    return _consume(state, e.player, e.task)


def _apply_pile_replaced(state: State, e: PileReplaced) -> State:
    piles = list(state.piles)
    if not e.split:
        piles[e.pile] = state.extra
        return _replace(state, piles=(piles[0], piles[1]), extra=(), extra_in=True)
    other = state.piles[1 - e.pile]
    keep = len(other) // 2
    piles[1 - e.pile] = other[:keep]
    piles[e.pile] = other[keep:]
    return _replace(state, piles=(piles[0], piles[1]))


def _apply_last_round_set(state: State, e: LastRoundSet) -> State:
    return _replace(state, last_round=e.round)


def _apply_hand_looked(state: State, e: HandLooked) -> State:
    seat = msgspec.structs.replace(state.seats[e.player], unseen=0)
    return _set_seat(_replace(state, queue=state.queue[1:]), e.player, seat)


def _apply_dice_rolled(state: State, e: DiceRolled) -> State:
    return _replace(state, dice=e.dice, rng=state.rng.at(e.rng_counter), phase=CALAMITY)


def _apply_threat_taken(state: State, e: ThreatTaken) -> State:
    seat = state.seats[e.player]
    threats = shift(seat.threats, COLOUR_INDEX[e.colour], 1)
    return _set_seat(state, e.player, msgspec.structs.replace(seat, threats=threats))


def _apply_calamity_struck(state: State, e: CalamityStruck) -> State:
    seat = state.seats[e.player]
    c = COLOUR_INDEX[e.colour]
    seat = msgspec.structs.replace(seat, threats=shift(seat.threats, c, -seat.threats[c]))
    tasks = state.tasks
    if e.colour == "blue":  # Flood
        seat = msgspec.structs.replace(seat, workers=NO_WORKERS)
    elif e.colour == "yellow":  # Raid
        seat = msgspec.structs.replace(seat, guilders=0)
    elif e.colour == "purple":  # Intrigue
        seat = msgspec.structs.replace(seat, score=max(0, seat.score - INTRIGUE_LOSS))
    else:
        tasks = (*tasks, Task(e.player, T_PLAGUE if e.colour == "brown" else T_FIRE))
    return _set_seat(_replace(state, tasks=tasks), e.player, seat)


def _apply_reputation_bought(state: State, e: ReputationBought) -> State:
    seat = state.seats[e.player]
    if e.advanced:
        seat = msgspec.structs.replace(seat, guilders=seat.guilders - e.cost, reputation=seat.reputation + 1)
    return _set_seat(_replace(state, queue=state.queue[1:]), e.player, seat)


def _apply_phase_started(state: State, e: PhaseStarted) -> State:
    if e.phase == REPUTATION:
        return _replace(state, phase=REPUTATION, queue=e.queue, reputation_cost=e.cost)
    seats = tuple(msgspec.structs.replace(s, plays_left=PLAYS_PER_ROUND) for s in state.seats)
    return _replace(
        state, phase=PLAY, queue=(), seats=seats, current=(state.start - 1) % state.players, in_turn=False
    )


def _apply_turn_started(state: State, e: TurnStarted) -> State:
    return _replace(state, current=e.player, in_turn=True, played=0, allowed=1)


def _apply_card_played(state: State, e: CardPlayed) -> State:
    seat = state.seats[e.player]
    hand = list(seat.hand)
    hand.remove(e.card)
    changes: dict[str, Any] = {"hand": tuple(hand), "guilders": seat.guilders - e.cost}
    if e.card in seat.known:
        changes["known"] = tuple(c for c in seat.known if c != e.card)
    if not e.extra:
        changes["plays_left"] = seat.plays_left - 1
    discard = state.discard
    if e.action == "house":
        changes["houses"] = (*seat.houses, House(e.card))
        changes["workers"] = shift(seat.workers, COLOUR_INDEX[e.worker], -1)
    elif e.action == "recruit":
        houses = list(seat.houses)
        houses[e.target] = msgspec.structs.replace(houses[e.target], person=e.card)
        changes["houses"] = tuple(houses)
    else:
        discard = (*discard, e.card)
    seat = msgspec.structs.replace(seat, **changes)
    return _set_seat(_replace(state, discard=discard, played=state.played + 1), e.player, seat)


def _apply_gained(state: State, e: Gained) -> State:
    seat = state.seats[e.player]
    seat = msgspec.structs.replace(
        seat,
        guilders=seat.guilders + e.guilders,
        workers=tuple(a + b for a, b in zip(seat.workers, e.workers, strict=True)),
        score=max(0, seat.score + e.points),
        reputation=seat.reputation + e.reputation,
    )
    return _set_seat(state, e.player, seat)


def _apply_threat_returned(state: State, e: ThreatReturned) -> State:
    seat = state.seats[e.player]
    seat = msgspec.structs.replace(
        seat, threats=shift(seat.threats, COLOUR_INDEX[e.colour], -1), score=seat.score + 1
    )
    return _consume(_set_seat(state, e.player, seat), e.player, e.task)


def _apply_canal_built(state: State, e: CanalBuilt) -> State:
    seat = state.seats[e.player]
    canals = list(seat.canals)
    canals[e.section] += 1
    seat = msgspec.structs.replace(seat, canals=(canals[0], canals[1]), guilders=seat.guilders - e.cost)
    return _set_seat(state, e.player, seat)


def _apply_statue_taken(state: State, e: StatueTaken) -> State:
    seat = state.seats[e.player]
    flags = list(seat.statue_sections)
    flags[e.section] = True
    seat = msgspec.structs.replace(
        seat, statues=(*seat.statues, e.value), statue_sections=(flags[0], flags[1])
    )
    return _set_seat(_replace(state, statues=state.statues[1:]), e.player, seat)


def _apply_canal_removed(state: State, e: CanalRemoved) -> State:
    seat = state.seats[e.player]
    canals = list(seat.canals)
    canals[e.section] -= 1
    seat = msgspec.structs.replace(seat, canals=(canals[0], canals[1]))
    return _consume(_set_seat(state, e.player, seat), e.player, e.task)


def _apply_person_activated(state: State, e: PersonActivated) -> State:
    seat = state.seats[e.player]
    houses = list(seat.houses)
    houses[e.house] = msgspec.structs.replace(houses[e.house], used=True)
    workers = shift(seat.workers, COLOUR_INDEX[e.worker], -1) if e.worker else seat.workers
    return _set_seat(state, e.player, msgspec.structs.replace(seat, houses=tuple(houses), workers=workers))


def _apply_extra_play_granted(state: State, e: ExtraPlayGranted) -> State:
    return _replace(state, allowed=state.allowed + 1)


def _apply_tasks_added(state: State, e: TasksAdded) -> State:
    return _replace(state, tasks=(*state.tasks, *e.tasks))


def _apply_task_dropped(state: State, e: TaskDropped) -> State:
    tasks = list(state.tasks)
    for i, task in enumerate(tasks):
        if task.seat == e.seat and task.kind == e.kind:
            del tasks[i]
            break
    return _replace(state, tasks=tuple(tasks))


def _apply_card_discarded(state: State, e: CardDiscarded) -> State:
    seat = state.seats[e.player]
    hand = list(seat.hand)
    hand.remove(e.card)
    # A card the table knew was in this hand is no longer there once discarded.
    known = tuple(c for c in seat.known if c != e.card)
    state = _set_seat(
        _replace(state, discard=(*state.discard, e.card)),
        e.player,
        msgspec.structs.replace(seat, hand=tuple(hand), known=known),
    )
    return _consume(state, e.player, e.task)


def _apply_worker_given(state: State, e: WorkerGiven) -> State:
    c = COLOUR_INDEX[e.colour]
    giver = state.seats[e.player]
    state = _set_seat(state, e.player, msgspec.structs.replace(giver, workers=shift(giver.workers, c, -1)))
    taker = state.seats[e.to]
    state = _set_seat(state, e.to, msgspec.structs.replace(taker, workers=shift(taker.workers, c, 1)))
    return _consume(state, e.player, e.task)


def _apply_person_lost(state: State, e: PersonLost) -> State:
    seat = state.seats[e.player]
    houses = list(seat.houses)
    houses[e.house] = House(houses[e.house].card)
    seat = msgspec.structs.replace(seat, houses=tuple(houses))
    state = _set_seat(_replace(state, discard=(*state.discard, e.person)), e.player, seat)
    return _consume(state, e.player, e.task)


def _apply_house_lost(state: State, e: HouseLost) -> State:
    seat = state.seats[e.player]
    houses = list(seat.houses)
    del houses[e.house]
    hand = (*seat.hand, e.person) if e.person >= 0 else seat.hand
    known = (*seat.known, e.person) if e.person >= 0 else seat.known
    seat = msgspec.structs.replace(seat, houses=tuple(houses), hand=hand, known=known)
    state = _set_seat(_replace(state, discard=(*state.discard, e.card)), e.player, seat)
    return _consume(state, e.player, e.task)


def _apply_turn_ended(state: State, e: TurnEnded) -> State:
    return _replace(state, in_turn=False, played=0, allowed=1)


def _apply_majorities_checked(state: State, e: MajoritiesChecked) -> State:
    seats = list(state.seats)
    for k, winner in enumerate(e.winners):
        if winner >= 0:
            flags = list(seats[winner].majorities)
            flags[k] = True
            seats[winner] = msgspec.structs.replace(seats[winner], majorities=(flags[0], flags[1], flags[2]))
    return _replace(state, seats=tuple(seats))


def _apply_round_ended(state: State, e: RoundEnded) -> State:
    seats = tuple(
        msgspec.structs.replace(
            s, houses=tuple(msgspec.structs.replace(h, used=False) if h.used else h for h in s.houses)
        )
        for s in state.seats
    )
    return _replace(state, seats=seats, start=e.next_start, current=-1)


def _apply_game_ended(state: State, e: GameEnded) -> State:
    return _replace(state, phase=OVER, queue=(), tasks=())


def make_game(catalog: Catalog) -> GameSpec[State]:
    """Bruges played with this data file; its rules version digests the code and this data."""
    return _make_game(Rules(catalog))


def _make_game(rules: Rules) -> GameSpec[State]:
    catalog = rules.catalog

    def view(state: State, viewer: int | None) -> View:
        return views.view(
            rules, state, viewer, rules.active_players(state), scoring.table_scores(rules, state)
        )

    def outcome(state: State) -> Any:
        return scoring.outcome(rules, state)

    def resample(state: State, viewer: int, rng: Rng) -> State:
        return views.resample_hidden(rules, state, viewer, rng)

    return GameSpec(
        game_id="bruges",
        title="Bruges",
        rules_version=rules_version("1.0", catalog, package=__package__),
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
        outcome=outcome,
        redact_event=views.redact_event,
        probe_actions=rules.probe_actions,
        resample_hidden=resample,
        variants={},
        check_state=lambda state: views.check_state(rules, state),
        data=catalog,
        presentation=make_presentation(catalog),
        undoable=UNDO,
    )


RULES = Rules(default_catalog())
GAME = _make_game(RULES)
