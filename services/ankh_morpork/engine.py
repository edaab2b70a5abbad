"""The core of the Ankh-Morpork rules: applying events, the pending-step stack, interrupt
windows, City Area abilities and the turn flow. It reads the board facts of `board.py` and the
personality goals and points of `scoring.py` (the win checks at the start of a turn and when
the game ends early), neither of which imports it.

`validate` hands a decision to the handler of the top frame; handlers and automatic steps
emit events through a `Ctx` (each event is applied at once, so later logic sees its effect)
and push or pop frames on the context's working stack, written back as one `StackSet` event.
Card scroll effects live in `cards.py`, random events in `events.py`; both register their
frame kinds here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from services.ankh_morpork import scoring
from services.ankh_morpork.board import (
    Tables,
    buildings_of,
    count_of,
    pieces_in,
    placements,
)
from services.ankh_morpork.model import (
    AREAS,
    BANK,
    DEMON,
    HAND,
    TROLL,
    AbilityUsed,
    Action,
    BuildingPlaced,
    BuildingRemoved,
    CardDiscarded,
    CardFinished,
    CardPlayed,
    CardsDrawn,
    CardsGiven,
    CardsTaken,
    CityCardLost,
    DeckDiscarded,
    DieRolled,
    DiscardDrawn,
    EndTurn,
    Event,
    EventDrawn,
    Frame,
    GameEnded,
    HandShown,
    HandsSwapped,
    Interrupted,
    MinionMoved,
    MinionPlaced,
    MinionRemoved,
    Paid,
    PersonalitiesSeen,
    PersonalitySwapped,
    PlaceMinion,
    PlayCard,
    PlayInterrupt,
    RngAdvanced,
    Skip,
    StackSet,
    State,
    SymbolDone,
    TroublePlaced,
    TroubleRemoved,
    TurnStarted,
    UseAbility,
)
from services.kernel import EventLog, put, shift, without

SMALL_GODS = 4
SMALL_GODS_FEE = 3  # [SEED Pequeños dioses]


# -- apply ---------------------------------------------------------------------------------------


def _minion_delta(state: State, owner: int, area: int, delta: int) -> dict[str, Any]:
    i = area - 1
    if owner == TROLL:
        return {"trolls": shift(state.trolls, i, delta)}
    if owner == DEMON:
        return {"demons": shift(state.demons, i, delta)}
    return {"minions": put(state.minions, i, shift(state.minions[i], owner, delta))}


def _replace(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


def _apply_minion_placed(state: State, e: MinionPlaced) -> State:
    if e.from_area:
        state = _replace(state, **_minion_delta(state, e.owner, e.from_area, -1))
        state = _replace(state, trouble=put(state.trouble, e.from_area - 1, False))
    changes = _minion_delta(state, e.owner, e.area, 1)
    if e.trouble:
        changes["trouble"] = put(state.trouble, e.area - 1, True)
    return _replace(state, **changes)


def _apply_minion_removed(state: State, e: MinionRemoved) -> State:
    changes = _minion_delta(state, e.owner, e.area, -1)
    changes["trouble"] = put(state.trouble, e.area - 1, False)
    return _replace(state, **changes)


def _apply_minion_moved(state: State, e: MinionMoved) -> State:
    state = _replace(state, **_minion_delta(state, e.owner, e.from_area, -1))
    changes = _minion_delta(state, e.owner, e.area, 1)
    trouble = put(state.trouble, e.from_area - 1, False)
    if e.trouble:
        trouble = put(trouble, e.area - 1, True)
    changes["trouble"] = trouble
    return _replace(state, **changes)


def _pay(state: State, payer: int, payee: int, amount: int) -> tuple[int, ...]:
    money = state.money
    if payer != BANK:
        money = shift(money, payer, -amount)
    if payee != BANK:
        money = shift(money, payee, amount)
    return money


def _apply_building_placed(state: State, e: BuildingPlaced) -> State:
    buildings = state.buildings
    if e.from_area:  # a card set aside by Bloody Stupid Johnson stays aside for good
        buildings = put(buildings, e.from_area - 1, -1)
    buildings = put(buildings, e.area - 1, e.player)
    gained = state.gained if e.area in state.gained else (*state.gained, e.area)
    return _replace(
        state,
        buildings=buildings,
        money=_pay(state, e.player, e.paid_to, e.cost),
        gained=gained if e.player == state.current else state.gained,
    )


def _apply_building_removed(state: State, e: BuildingRemoved) -> State:
    # The card goes back to the display, unless Bloody Stupid Johnson set it aside for good.
    return _replace(state, buildings=put(state.buildings, e.area - 1, -1))


def _hand_change(state: State, seat: int, add: tuple[str, ...] = (), remove: tuple[str, ...] = ()) -> State:
    hand = without(state.hands[seat], *remove) + add
    return _replace(state, hands=put(state.hands, seat, hand))


def _apply_card_played(state: State, e: CardPlayed) -> State:
    state = _hand_change(state, e.player, remove=(e.card,))
    if e.interrupt:
        return _replace(state, discard=(*state.discard, e.card))
    return _replace(state, played=(*state.played, e.card))


def _apply_card_finished(state: State, e: CardFinished) -> State:
    if e.to == "loan":
        return _replace(state, loans=put(state.loans, e.holder, (*state.loans[e.holder], e.card)))
    if e.to == "penalty":
        return _replace(state, penalties=put(state.penalties, e.holder, (*state.penalties[e.holder], e.card)))
    if e.to == "hand":
        return _hand_change(state, e.player, add=(e.card,))
    return _replace(state, discard=(*state.discard, e.card))


def _apply_cards_drawn(state: State, e: CardsDrawn) -> State:
    drawn = state.deck[: e.count]
    state = _hand_change(state, e.player, add=drawn)
    return _replace(state, deck=state.deck[e.count :])


def _apply_discard_drawn(state: State, e: DiscardDrawn) -> State:
    state = _hand_change(state, e.player, add=e.cards)
    return _replace(state, discard=without(state.discard, *e.cards))


def _apply_card_discarded(state: State, e: CardDiscarded) -> State:
    state = _hand_change(state, e.player, remove=(e.card,))
    return _replace(state, discard=(*state.discard, e.card))


def _apply_cards_given(state: State, e: CardsGiven) -> State:
    state = _hand_change(state, e.giver, remove=e.cards)
    return _hand_change(state, e.receiver, add=e.cards)


def _apply_hands_swapped(state: State, e: HandsSwapped) -> State:
    hands = put(state.hands, e.first, state.hands[e.second])
    return _replace(state, hands=put(hands, e.second, state.hands[e.first]))


def _apply_deck_discarded(state: State, e: DeckDiscarded) -> State:
    return _replace(state, deck=state.deck[len(e.cards) :], discard=(*state.discard, *e.cards))


def _apply_event_drawn(state: State, e: EventDrawn) -> State:
    return _replace(state, events_deck=state.events_deck[1:], events_done=(*state.events_done, e.event))


def _apply_turn_started(state: State, e: TurnStarted) -> State:
    return _replace(state, current=e.player, turn=e.turn, used_abilities=(), gained=(), played=())


def _apply_personality_swapped(state: State, e: PersonalitySwapped) -> State:
    unused = tuple(sorted((*without(state.unused_personalities, e.new), e.old)))
    return _replace(
        state, personalities=put(state.personalities, e.player, e.new), unused_personalities=unused
    )


def _apply_game_ended(state: State, e: GameEnded) -> State:
    return _replace(state, over=True, end_reason=e.reason, winners=e.winners, stack=())


APPLIERS: dict[type, Callable[[State, Any], State]] = {
    TurnStarted: _apply_turn_started,
    CardPlayed: _apply_card_played,
    CardFinished: _apply_card_finished,
    SymbolDone: lambda s, e: s,
    StackSet: lambda s, e: _replace(s, stack=e.stack),
    MinionPlaced: _apply_minion_placed,
    MinionRemoved: _apply_minion_removed,
    MinionMoved: _apply_minion_moved,
    TroublePlaced: lambda s, e: _replace(s, trouble=put(s.trouble, e.area - 1, True)),
    TroubleRemoved: lambda s, e: _replace(s, trouble=put(s.trouble, e.area - 1, False)),
    BuildingPlaced: _apply_building_placed,
    BuildingRemoved: _apply_building_removed,
    Paid: lambda s, e: _replace(s, money=_pay(s, e.payer, e.payee, e.amount)),
    CardsDrawn: _apply_cards_drawn,
    DiscardDrawn: _apply_discard_drawn,
    CardDiscarded: _apply_card_discarded,
    CardsGiven: _apply_cards_given,
    CardsTaken: lambda s, e: s,  # the two cards stay in the hand until one is kept
    HandsSwapped: _apply_hands_swapped,
    HandShown: lambda s, e: s,
    DeckDiscarded: _apply_deck_discarded,
    EventDrawn: _apply_event_drawn,
    DieRolled: lambda s, e: s,
    CityCardLost: lambda s, e: _replace(s, lost_cards=put(s.lost_cards, e.area - 1, True)),
    AbilityUsed: lambda s, e: _replace(s, used_abilities=(*s.used_abilities, e.area)),
    PersonalitySwapped: _apply_personality_swapped,
    PersonalitiesSeen: lambda s, e: s,
    Interrupted: lambda s, e: s,
    RngAdvanced: lambda s, e: _replace(s, rng=s.rng.at(e.counter)),
    GameEnded: _apply_game_ended,
}


def apply(state: State, event: Event) -> State:
    return APPLIERS[type(event)](state, event)


# -- the validate context -------------------------------------------------------------------------


class Ctx(EventLog[State, Event]):
    """The kernel's validate-call log (events so far, the state they lead to, the generator
    cursor) plus this game's working stack (top last)."""

    __slots__ = ("t", "stack", "_stack_changed")

    def __init__(self, t: Tables, state: State) -> None:
        super().__init__(apply, state)
        self.t = t
        self.stack: list[Frame] = list(state.stack)
        self._stack_changed = False

    def push(self, *frames: Frame) -> None:
        """Push frames; the last one given ends on top (is asked first)."""
        self.stack.extend(frames)
        self._stack_changed = True

    def pop(self) -> Frame:
        self._stack_changed = True
        return self.stack.pop()

    def replace_top(self, frame: Frame) -> None:
        self.stack[-1] = frame
        self._stack_changed = True

    @property
    def top(self) -> Frame | None:
        return self.stack[-1] if self.stack else None

    def roll(self, player: int, reason: str) -> int:
        value = self.cursor.die(12)
        self.emit(DieRolled(player, value, reason))
        return value

    def shuffled(self, items: tuple[str, ...]) -> tuple[str, ...]:
        return self.cursor.shuffle(items)

    def finish(self) -> list[Event]:
        if self.drew:  # draws are not recorded one by one here: one event moves the Rng on
            self.emit(RngAdvanced(self.cursor.rng.counter))
        if self._stack_changed and not self.state.over:
            self.emit(StackSet(tuple(self.stack)))
        return self.events


# -- registry of frame kinds ------------------------------------------------------------------------

BEFORE: dict[str, Callable[[Ctx, Frame], bool]] = {}  # a decision kind's automatic part

OptionsFn = Callable[[Tables, State, Frame], list[Action]]
HandleFn = Callable[[Ctx, Frame, Any], None]
RunFn = Callable[[Ctx, Frame], None]

DECISIONS: dict[str, tuple[OptionsFn, HandleFn]] = {}
AUTOMATIC: dict[str, RunFn] = {}


def decision(kind: str, options: OptionsFn) -> Callable[[HandleFn], HandleFn]:
    def register(handle: HandleFn) -> HandleFn:
        DECISIONS[kind] = (options, handle)
        return handle

    return register


def automatic(kind: str) -> Callable[[RunFn], RunFn]:
    def register(run: RunFn) -> RunFn:
        AUTOMATIC[kind] = run
        return run

    return register


def options_for(t: Tables, state: State, frame: Frame) -> list[Action]:
    return DECISIONS[frame.kind][0](t, state, frame)


# -- primitive operations shared by cards, events and abilities -----------------------------------


def draw(ctx: Ctx, seat: int, count: int) -> None:
    """Draw up to `count` cards from the draw pile (fewer if it runs out)."""
    count = min(count, len(ctx.state.deck))
    if count > 0:
        ctx.emit(CardsDrawn(seat, count, ctx.state.deck[:count]))


def refill_count(state: State, seat: int) -> int:
    """Cards to draw to refill to five; penalty cards in front of a seat count [FS 6]."""
    return max(0, HAND - len(state.hands[seat]) - len(state.penalties[seat]))


def place_minion(ctx: Ctx, owner: int, area: int, from_area: int = 0, quiet: bool = False) -> None:
    """A minion (troll, demon) enters an area: trouble if the area already held one [SEED]."""
    state = ctx.state
    occupied = pieces_in(state, area) - (1 if from_area == area else 0) > 0
    trouble = occupied and not quiet and not state.trouble[area - 1]
    ctx.emit(MinionPlaced(owner, area, from_area, quiet, trouble))


def move_minion(ctx: Ctx, owner: int, from_area: int, area: int) -> None:
    state = ctx.state
    trouble = pieces_in(state, area) > 0 and not state.trouble[area - 1]
    ctx.emit(MinionMoved(owner, from_area, area, trouble))


def take_money(ctx: Ctx, taker: int, victim: int, amount: int) -> None:
    """Take up to `amount` from a player (as much as they have) [FS 5 notes]."""
    amount = min(amount, ctx.state.money[victim])
    if amount > 0:
        ctx.emit(Paid(victim, taker, amount))


def bank_pays(ctx: Ctx, seat: int, amount: int) -> None:
    if amount > 0:
        ctx.emit(Paid(BANK, seat, amount))


def remove_building(ctx: Ctx, area: int) -> None:
    owner = ctx.state.buildings[area - 1]
    if owner >= 0:
        ctx.emit(BuildingRemoved(area, owner))


def interrupt_frame(victim: int, actor: int, what: str, source: str, area: int = 0, owner: int = 0) -> Frame:
    """The window in which `victim` may answer a step with an interrupt (or Small Gods)."""
    return Frame(
        kind="interrupt", player=victim, actor=actor, card=what, source=source, area=area, owner=owner
    )


def push_removal(ctx: Ctx, owner: int, area: int, actor: int, source: str) -> None:
    """Remove a minion, after its owner's interrupt window (Susan, Gaspode, Fresh Start Club,
    Igor, Wallace Sonky for scroll text, Small Gods for events) [FS 6]."""
    op = Frame(kind="remove", player=owner, actor=actor, area=area, owner=owner, source=source)
    if owner >= 0:
        ctx.push(op, interrupt_frame(owner, actor, "remove", source, area, owner))
    else:
        ctx.push(op)


def push_move(ctx: Ctx, owner: int, from_area: int, area: int, actor: int, source: str) -> None:
    op = Frame(
        kind="move", player=owner, actor=actor, area=from_area, to_area=area, owner=owner, source=source
    )
    if owner >= 0 and owner != actor:
        ctx.push(op, interrupt_frame(owner, actor, "move", source, from_area, owner))
    else:
        ctx.push(op)


def push_targeted(ctx: Ctx, frame: Frame, victim: int, actor: int) -> None:
    """A scroll effect aimed at `victim`: Wallace Sonky may cancel it first [FS G10]."""
    if victim != actor:
        ctx.push(frame, interrupt_frame(victim, actor, "scroll", "scroll"))
    else:
        ctx.push(frame)


@automatic("remove")
def _run_remove(ctx: Ctx, frame: Frame) -> None:
    ctx.pop()
    if count_of(ctx.state, frame.area, frame.owner) == 0:
        return  # already gone (e.g. an earlier step of the same event took it)
    ctx.emit(MinionRemoved(frame.owner, frame.area, frame.actor))
    if frame.flag:  # Fresh Start Club / Igor: placed again in a different area [FS G42]
        others = tuple(a for a in range(1, AREAS + 1) if a != frame.area)
        ctx.push(Frame(kind="place", player=frame.owner, areas=others, count=1, mode="relocate"))


@automatic("move")
def _run_move(ctx: Ctx, frame: Frame) -> None:
    ctx.pop()
    if count_of(ctx.state, frame.area, frame.owner) > 0:
        move_minion(ctx, frame.owner, frame.area, frame.to_area)


# -- interrupt windows ---------------------------------------------------------------------------


def small_gods_usable(t: Tables, state: State, seat: int) -> bool:
    """Small Gods: your building there, its card kept, no demon there, $3 to pay [SEED]."""
    i = SMALL_GODS - 1
    return (
        state.buildings[i] == seat
        and not state.lost_cards[i]
        and not state.demons[i]
        and state.money[seat] >= SMALL_GODS_FEE
    )


def fitting_interrupts(t: Tables, state: State, frame: Frame) -> list[str]:
    """Interrupt primitives that answer the step at stake (FS 6, decisions in docs)."""
    what, source, victim, actor = frame.card, frame.source, frame.player, frame.actor
    by_other = actor != victim
    fits: list[str] = []
    if what == "remove":
        fits += ["shield", "relocate"]
        if by_other and source != "event":
            fits.append("gaspode")
    elif what == "move" and by_other and source != "event":
        fits.append("gaspode")
    if source == "scroll" and by_other and what in ("scroll", "remove", "move"):
        fits.append("sonky")
    return fits


def _interrupt_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    fits = fitting_interrupts(t, state, frame)
    out: list[Action] = []
    seen: set[str] = set()
    for card in state.hands[frame.player]:
        if card not in seen and t.cards[card].interrupt in fits:
            seen.add(card)
            out.append(PlayInterrupt(card))
    if frame.source == "event" and small_gods_usable(t, state, frame.player):
        out.append(UseAbility(SMALL_GODS))
    if out:
        out.append(Skip())
    return out


def _cancel_step(ctx: Ctx) -> None:
    """Drop the interrupt windows on top and the step they guard."""
    while ctx.stack and ctx.stack[-1].kind == "interrupt":
        ctx.pop()
    if ctx.stack:
        ctx.pop()


@decision("interrupt", _interrupt_options)
def _on_interrupt(ctx: Ctx, frame: Frame, action: Any) -> None:
    if isinstance(action, Skip):
        ctx.pop()
        return
    if isinstance(action, UseAbility):  # Small Gods: pay $3 to ignore the event on this piece
        ctx.emit(Paid(frame.player, BANK, SMALL_GODS_FEE))
        ctx.emit(Interrupted(frame.player, "small_gods", frame.card))
        _cancel_step(ctx)
        return
    card = action.card
    ctx.emit(CardPlayed(frame.player, card, interrupt=True))
    ctx.emit(Interrupted(frame.player, card, frame.card))
    if ctx.t.cards[card].interrupt == "relocate":
        ctx.pop()
        while ctx.stack and ctx.stack[-1].kind == "interrupt":
            ctx.pop()
        op = ctx.stack[-1]
        ctx.replace_top(msgspec.structs.replace(op, flag=True))
    else:
        _cancel_step(ctx)


# -- City Area abilities -------------------------------------------------------------------------------


def ability_ready(t: Tables, state: State, seat: int, area: int) -> bool:
    """Once a turn, not in the turn the card was gained, not with a demon in the area, not once
    Bloody Stupid Johnson set the card aside [SEED, FS 2]; and only if it can do something."""
    i = area - 1
    if state.buildings[i] != seat or state.lost_cards[i] or state.demons[i]:
        return False
    if area in state.used_abilities or area in state.gained:
        return False
    info = t.areas[i]
    kind = info.ability
    if kind == "income":
        return True
    if kind == "place_minion_paid":
        return state.money[seat] >= info.amount and bool(placements(t, state, seat, t.near(area), False))
    if kind == "discard_for_money":
        return bool(state.hands[seat])
    if kind == "draw_then_discard":
        return bool(state.deck)
    if kind == "place_trouble":
        return bool(shades_targets(t, state, area))
    if kind == "remove_trouble_paid":
        return state.money[seat] >= info.amount and any(state.trouble)
    return False  # Small Gods answers random events only


def shades_targets(t: Tables, state: State, area: int) -> tuple[int, ...]:
    return tuple(a for a in t.near(area) if pieces_in(state, a) > 0 and not state.trouble[a - 1])


def ability_options(t: Tables, state: State, seat: int) -> list[Action]:
    if seat != state.current or seat not in state.buildings:
        return []
    owned = [a + 1 for a, owner in enumerate(state.buildings) if owner == seat]
    return [UseAbility(a) for a in owned if ability_ready(t, state, seat, a)]


def use_ability(ctx: Ctx, seat: int, area: int) -> None:
    info = ctx.t.areas[area - 1]
    ctx.emit(AbilityUsed(seat, area))
    kind = info.ability
    if kind == "income":
        bank_pays(ctx, seat, info.amount)
    elif kind == "place_minion_paid":
        ctx.emit(Paid(seat, BANK, info.amount))
        ctx.push(Frame(kind="place", player=seat, areas=ctx.t.near(area), count=1, mode="ability"))
    elif kind == "discard_for_money":
        ctx.push(Frame(kind="choose_card", player=seat, mode="scours", count=1, area=info.amount))
    elif kind == "draw_then_discard":
        draw(ctx, seat, 1)
        ctx.push(Frame(kind="choose_card", player=seat, mode="discard", count=1))
    elif kind == "place_trouble":
        ctx.push(Frame(kind="choose_area", player=seat, mode="shades", area=area))
    elif kind == "remove_trouble_paid":
        ctx.emit(Paid(seat, BANK, info.amount))
        ctx.push(Frame(kind="choose_area", player=seat, mode="remove_trouble"))


# -- placing a minion (symbol, scroll, ability, Fresh Start Club) -------------------------------


def _place_areas(t: Tables, state: State, frame: Frame) -> tuple[int, ...]:
    if frame.mode == "in_trouble":  # The Smoking Gnu
        return tuple(a for a in range(1, AREAS + 1) if state.trouble[a - 1])
    if frame.mode == "at_building":  # Willikins
        return buildings_of(state, frame.player)
    return frame.areas


def _place_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    rule = frame.mode == "symbol"
    out = placements(t, state, frame.player, _place_areas(t, state, frame), rule)
    if frame.flag and out:
        out.append(Skip())
    return out


@decision("place", _place_options)
def _on_place(ctx: Ctx, frame: Frame, action: Any) -> None:
    if isinstance(action, Skip) or frame.count <= 1:
        ctx.pop()
    else:
        ctx.replace_top(msgspec.structs.replace(frame, count=frame.count - 1, flag=True))
    if isinstance(action, PlaceMinion):
        place_minion(ctx, frame.player, action.area, action.from_area, quiet=frame.mode == "quiet")


# -- the turn ---------------------------------------------------------------------------------------------


def playable(t: Tables, state: State, seat: int) -> list[Action]:
    """Cards that may be played as an action: every card but the interrupts [FS 1]."""
    seen: set[str] = set()
    out: list[Action] = []
    for card in state.hands[seat]:
        if card not in seen and card not in t.interrupt_cards:
            seen.add(card)
            out.append(PlayCard(card))
    return out


def _turn_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    out: list[Action] = playable(t, state, frame.player) if frame.step == 0 else []
    out += ability_options(t, state, frame.player)
    if not (frame.step == 0 and playable(t, state, frame.player)):
        out.append(EndTurn())
    return out


@decision("turn", _turn_options)
def _on_turn(ctx: Ctx, frame: Frame, action: Any) -> None:
    if isinstance(action, UseAbility):
        use_ability(ctx, frame.player, action.area)
    elif isinstance(action, PlayCard):
        ctx.replace_top(msgspec.structs.replace(frame, step=frame.step + 1))
        start_card(ctx, frame.player, action.card)
    else:
        ctx.pop()
        end_turn(ctx)


def start_card(ctx: Ctx, seat: int, card: str) -> None:
    ctx.emit(CardPlayed(seat, card))
    ctx.push(Frame(kind="card", player=seat, card=card))


def finish_card(ctx: Ctx, frame: Frame) -> None:
    """The card leaves the table: discarded, or kept in front of a seat (loan, penalty)."""
    to, _, holder = frame.mode.partition(":")
    ctx.emit(CardFinished(frame.player, frame.card, to or "discard", int(holder) if holder else -1))


def mark_card(ctx: Ctx, card: str, to: str, holder: int) -> None:
    """Decide where the card being resolved goes when it is finished."""
    for k in range(len(ctx.stack) - 1, -1, -1):
        f = ctx.stack[k]
        if f.kind == "card" and f.card == card:
            ctx.stack[k] = msgspec.structs.replace(f, mode=f"{to}:{holder}")
            ctx._stack_changed = True
            return


def end_turn(ctx: Ctx) -> None:
    """Refill to five [SEED]; then the next seat's turn, its win check first [FS 3.1]."""
    state = ctx.state
    seat = state.current
    draw(ctx, seat, refill_count(state, seat))
    if check_deck_out(ctx):
        return
    nxt = (seat + 1) % state.players
    ctx.emit(TurnStarted(nxt, state.turn + 1))
    if scoring.meets_goal(ctx.t, ctx.state, nxt):
        end_game(ctx, "personality", (nxt,))
        return
    ctx.push(Frame(kind="turn", player=nxt))


def check_deck_out(ctx: Ctx) -> bool:
    """The game ends as soon as the draw pile is empty (decision: whoever emptied it)."""
    if ctx.state.over:
        return True
    if ctx.state.deck:
        return False
    vimes = scoring.vimes_seat(ctx.t, ctx.state)
    end_game(ctx, "deck_out", (vimes,) if vimes >= 0 else scoring.points_winners(ctx.t, ctx.state))
    return True


def end_game(ctx: Ctx, reason: str, winners: tuple[int, ...]) -> None:
    ctx.stack.clear()
    ctx._stack_changed = True
    ctx.emit(GameEnded(reason, winners, ctx.state.personalities))


def advance(ctx: Ctx) -> None:
    """Run automatic steps until some seat owes a decision (or the game is over)."""
    while not ctx.state.over:
        if check_deck_out(ctx):
            return
        frame = ctx.top
        if frame is None:
            return
        before = BEFORE.get(frame.kind)
        if before is not None and before(ctx, frame):
            continue
        run = AUTOMATIC.get(frame.kind)
        if run is not None:
            run(ctx, frame)
            continue
        options = options_for(ctx.t, ctx.state, frame)
        if not options:
            ctx.pop()  # nothing can be done: the step lapses
            continue
        if len(options) == 1 and isinstance(options[0], (Skip, EndTurn)):
            DECISIONS[frame.kind][1](ctx, frame, options[0])  # nothing to decide
            continue
        return
