"""Apply: fold one event into the state. Bookkeeping only; every choice and every draw was
made by validate and written into the event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from services.kernel import without
from services.waterdeep.model import (
    CUBE_SUPPLY,
    HARBOR,
    OVER,
    ActionBegun,
    AgentPlaced,
    AgentRemoved,
    AmbassadorTaken,
    Building,
    BuildingBought,
    BuildingDiscarded,
    DecisionDone,
    DecisionsPushed,
    DeckShuffled,
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
    Placed,
    PlacementPassed,
    PlotFired,
    QuestCompleted,
    QuestCompletedThisTurn,
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
)

_replace = msgspec.structs.replace

PALACE = "the_palace_of_waterdeep"


def seat(state: State, p: int, **changes: Any) -> tuple[Seat, ...]:
    seats = list(state.seats)
    seats[p] = _replace(seats[p], **changes)
    return tuple(seats)


def _supply(s: State) -> list[int]:
    """Adventurers of each type left in the supply (25 of each in the box)."""
    return [
        CUBE_SUPPLY - sum(x.cubes[k] for x in s.seats) - sum(b.stock[k] for b in s.buildings)
        for k in range(4)
    ]


def _stocked(stock: tuple[int, ...], add: tuple[int, ...], supply: list[int]) -> tuple[int, ...]:
    """`stock` plus `add`, adventurers only as far as `supply` goes (which it spends)."""
    out = list(stock)
    for k, n in enumerate(add):
        if k < 4:
            n = max(0, min(n, supply[k]))
            supply[k] -= n
        out[k] += n
    return tuple(out)


def make_applier(
    stock_of: Callable[[str], tuple[int, ...]], is_mandatory: Callable[[str], bool]
) -> Callable[[State, Event], State]:
    """The apply function; `stock_of(tile)` is what a tile piles up each round (from the data)."""

    def round_started(s: State, e: RoundStarted) -> State:
        hall_vp = tuple(v + 1 if t else v for t, v in zip(s.hall, s.hall_vp, strict=True))
        supply = _supply(s)
        buildings = tuple(
            _replace(b, stock=_stocked(b.stock, stock_of(b.tile), supply)) if any(stock_of(b.tile)) else b
            for b in s.buildings
        )
        seats = s.seats
        if e.round == 5:  # the extra agent joins every pool [SEED Inicio de la ronda 5]
            seats = tuple(_replace(x, agents=x.agents + 1, pool=x.pool + 1) for x in seats)
        return _replace(
            s,
            round=e.round,
            hall_vp=hall_vp,
            buildings=buildings,
            seats=seats,
            ambassador_first=s.ambassador >= 0,
            next_seat=s.first,
        )

    def turn_started(s: State, e: TurnStarted) -> State:
        return _replace(
            s,
            current=e.player,
            completed_turn=False,
            ambassador_turn=e.ambassador,
            ambassador_first=False if e.ambassador else s.ambassador_first,
        )

    def turn_ended(s: State, e: TurnEnded) -> State:
        # The Ambassador's turn comes before the First Player's: it moves nobody's turn on.
        next_seat = s.next_seat if s.ambassador_turn or s.reassigning else (e.player + 1) % s.players
        return _replace(s, current=-1, completed_turn=False, ambassador_turn=False, next_seat=next_seat)

    def reassignment_started(s: State, e: ReassignmentStarted) -> State:
        return _replace(s, reassigning=True)

    def round_ended(s: State, e: RoundEnded) -> State:
        seats = tuple(_replace(x, pool=x.agents, orb_used=False, miracle_used=False) for x in s.seats)
        return _replace(s, seats=seats, placed=(), reassigning=False, current=-1)

    def game_ended(s: State, e: GameEnded) -> State:
        return _replace(s, phase=OVER, pending=(), current=-1)

    def pushed(s: State, e: DecisionsPushed) -> State:
        return _replace(s, pending=s.pending + e.decisions)

    def done(s: State, e: DecisionDone) -> State:
        return _replace(s, pending=s.pending[: e.index] + s.pending[e.index + 1 :])

    def placed(s: State, e: AgentPlaced) -> State:
        seats = s.seats
        if e.ambassador:
            ambassador = -1
        else:
            ambassador = s.ambassador
            if e.from_pool:
                seats = seat(s, e.player, pool=s.seats[e.player].pool - 1)
        if e.orb:
            seats = tuple(_replace(x, orb_used=True) if i == e.player else x for i, x in enumerate(seats))
        return _replace(
            s,
            seats=seats,
            ambassador=ambassador,
            placed=(*s.placed, Placed(e.player, e.space, e.ambassador, e.shares)),
            acts=s.acts + 1,
        )

    def removed(s: State, e: AgentRemoved) -> State:
        for i, x in enumerate(s.placed):
            if x.player == e.player and x.space == e.space and x.ambassador == e.ambassador:
                if e.shares and x.shares != e.shares:
                    continue
                placed_ = s.placed[:i] + s.placed[i + 1 :]
                seats = seat(s, e.player, pool=s.seats[e.player].pool + 1) if e.to_pool else s.seats
                return _replace(s, placed=placed_, seats=seats)
        return s

    def harbor_shared(s: State, e: HarborShared) -> State:
        for i in range(len(s.placed) - 1, -1, -1):
            x = s.placed[i]
            if x.player == e.player and not x.ambassador and not x.shares and x.space not in HARBOR:
                placed_ = list(s.placed)
                placed_[i] = _replace(x, shares=e.harbor)
                return _replace(s, placed=tuple(placed_))
        return s

    def passed(s: State, e: PlacementPassed) -> State:
        return _replace(s, seats=seat(s, e.player, pool=0))

    def begun(s: State, e: ActionBegun) -> State:
        return _replace(s, acts=s.acts + 1)

    def gained(s: State, e: Gained) -> State:
        x = s.seats[e.player]
        d = e.delta
        cubes = tuple(a + b for a, b in zip(x.cubes, d[:4], strict=True))
        return _replace(s, seats=seat(s, e.player, cubes=cubes, gold=x.gold + d[4], vp=x.vp + d[5]))

    def plot_fired(s: State, e: PlotFired) -> State:
        fired = s.fired if s.fired_act == e.act else ()
        return _replace(s, fired_act=e.act, fired=(*fired, f"{e.player}:{e.plot}"))

    def stock_taken(s: State, e: StockTaken) -> State:
        if e.tile in s.hall and all(b.tile != e.tile for b in s.buildings):
            # sampled while in Builder's Hall: its VP tokens (The Waymoot)
            k = s.hall.index(e.tile)
            return _replace(s, hall_vp=tuple(0 if i == k else v for i, v in enumerate(s.hall_vp)))
        buildings = tuple(_replace(b, stock=(0,) * 6) if b.tile == e.tile else b for b in s.buildings)
        return _replace(s, buildings=buildings)

    def shuffled(s: State, e: DeckShuffled) -> State:
        rng = s.rng.at(e.rng_counter)
        if e.deck == "quest":
            return _replace(s, quest_deck=e.order, quest_discard=(), rng=rng)
        return _replace(s, intrigue_deck=e.order, intrigue_discard=(), rng=rng)

    def intrigue_drawn(s: State, e: IntrigueDrawn) -> State:
        x = s.seats[e.player]
        return _replace(
            s, intrigue_deck=s.intrigue_deck[1:], seats=seat(s, e.player, intrigue=(*x.intrigue, e.card))
        )

    def intrigue_played(s: State, e: IntriguePlayed) -> State:
        x = s.seats[e.player]
        seats = seat(s, e.player, intrigue=without(x.intrigue, e.card))
        discard = s.intrigue_discard if is_mandatory(e.card) else (*s.intrigue_discard, e.card)
        return _replace(s, seats=seats, intrigue_discard=discard)

    def mandatory_given(s: State, e: MandatoryQuestGiven) -> State:
        x = s.seats[e.target]
        return _replace(s, seats=seat(s, e.target, quests=(*x.quests, e.card)))

    def quest_taken(s: State, e: QuestTaken) -> State:
        x = s.seats[e.player]
        seats = seat(s, e.player, quests=(*x.quests, e.quest))
        if e.slot >= 0:
            inn = tuple("" if i == e.slot else q for i, q in enumerate(s.inn))
            return _replace(s, seats=seats, inn=inn)
        if e.slot == -1:
            return _replace(s, seats=seats, quest_deck=s.quest_deck[1:])
        return _replace(s, seats=seats, revealed=without(s.revealed, e.quest))

    def inn_refilled(s: State, e: InnRefilled) -> State:
        inn = tuple(e.quest if i == e.slot else q for i, q in enumerate(s.inn))
        deck = s.quest_deck[1:] if e.quest else s.quest_deck
        return _replace(s, inn=inn, quest_deck=deck)

    def inn_cleared(s: State, e: InnCleared) -> State:
        return _replace(s, inn=("",) * len(s.inn), quest_discard=s.quest_discard + e.quests)

    def revealed(s: State, e: QuestsRevealed) -> State:
        deck = s.quest_deck[len(e.quests) :]
        if e.keep:
            return _replace(s, quest_deck=deck, revealed=s.revealed + e.quests)
        return _replace(s, quest_deck=deck, quest_discard=s.quest_discard + e.quests)

    def quest_discarded(s: State, e: QuestDiscarded) -> State:
        if e.player < 0:
            return _replace(
                s, revealed=without(s.revealed, e.quest), quest_discard=(*s.quest_discard, e.quest)
            )
        x = s.seats[e.player]
        seats = seat(s, e.player, quests=without(x.quests, e.quest))
        if is_mandatory(e.quest):  # a Mandatory Quest is an Intrigue card [FACTS 7]
            return _replace(s, seats=seats, intrigue_discard=(*s.intrigue_discard, e.quest))
        return _replace(s, seats=seats, quest_discard=(*s.quest_discard, e.quest))

    def quest_completed(s: State, e: QuestCompleted) -> State:
        x = s.seats[e.player]
        seats = seat(
            s,
            e.player,
            quests=without(x.quests, e.quest),
            # A Mandatory Quest goes back to the Intrigue discard, not to the completed quests.
            completed=x.completed if is_mandatory(e.quest) else (*x.completed, e.quest),
            plots=(*x.plots, e.quest) if e.plot else x.plots,
            vp=x.vp + e.vp,
            quest_vp=x.quest_vp + e.vp,
        )
        discard = (*s.intrigue_discard, e.quest) if is_mandatory(e.quest) else s.intrigue_discard
        return _replace(s, seats=seats, intrigue_discard=discard, completed_turn=True)

    def limit(s: State, e: QuestCompletedThisTurn) -> State:
        return _replace(s, completed_turn=True)

    def bought(s: State, e: BuildingBought) -> State:
        x = s.seats[e.player]
        seats = seat(s, e.player, gold=x.gold - e.cost, vp=x.vp + e.vp)
        # Its first stock when bought [FACTS 4], adventurers as far as the supply goes.
        building = Building(e.tile, e.player, _stocked((0,) * 6, stock_of(e.tile), _supply(s)))
        if e.slot >= 0:
            hall = tuple("" if i == e.slot else t for i, t in enumerate(s.hall))
            hall_vp = tuple(0 if i == e.slot else v for i, v in enumerate(s.hall_vp))
            return _replace(s, seats=seats, hall=hall, hall_vp=hall_vp, buildings=(*s.buildings, building))
        return _replace(s, seats=seats, stack=s.stack[1:], buildings=(*s.buildings, building))

    def hall_refilled(s: State, e: HallRefilled) -> State:
        hall = tuple(e.tile if i == e.slot else t for i, t in enumerate(s.hall))
        return _replace(s, hall=hall, stack=s.stack[1:] if e.tile else s.stack)

    def discarded(s: State, e: BuildingDiscarded) -> State:
        buildings = tuple(b for b in s.buildings if b.tile != e.tile)
        if e.tile != PALACE:
            return _replace(s, buildings=buildings)
        # The Ambassador leaves play with the Palace [FACTS 3.3].
        placed_ = tuple(x for x in s.placed if not x.ambassador)
        return _replace(s, buildings=buildings, placed=placed_, ambassador=-1, ambassador_first=False)

    def first_player(s: State, e: FirstPlayerTaken) -> State:
        return _replace(s, first=e.player)

    def ambassador_taken(s: State, e: AmbassadorTaken) -> State:
        placed_ = tuple(x for x in s.placed if not x.ambassador)
        return _replace(s, ambassador=e.player, placed=placed_)

    def lieutenant(s: State, e: LieutenantJoined) -> State:
        x = s.seats[e.player]
        return _replace(s, seats=seat(s, e.player, agents=x.agents + 1, pool=x.pool + 1, lieutenant=True))

    def flag(s: State, e: RoundFlagUsed) -> State:
        if e.flag == "orb":
            return _replace(s, seats=seat(s, e.player, orb_used=True))
        return _replace(s, seats=seat(s, e.player, miracle_used=True))

    appliers: dict[type, Callable[[State, Any], State]] = {
        RoundStarted: round_started,
        TurnStarted: turn_started,
        TurnEnded: turn_ended,
        ReassignmentStarted: reassignment_started,
        RoundEnded: round_ended,
        GameEnded: game_ended,
        DecisionsPushed: pushed,
        DecisionDone: done,
        AgentPlaced: placed,
        AgentRemoved: removed,
        HarborShared: harbor_shared,
        PlacementPassed: passed,
        ActionBegun: begun,
        Gained: gained,
        PlotFired: plot_fired,
        StockTaken: stock_taken,
        DeckShuffled: shuffled,
        IntrigueDrawn: intrigue_drawn,
        IntriguePlayed: intrigue_played,
        MandatoryQuestGiven: mandatory_given,
        QuestTaken: quest_taken,
        InnRefilled: inn_refilled,
        InnCleared: inn_cleared,
        QuestsRevealed: revealed,
        QuestDiscarded: quest_discarded,
        QuestCompleted: quest_completed,
        QuestCompletedThisTurn: limit,
        BuildingBought: bought,
        HallRefilled: hall_refilled,
        BuildingDiscarded: discarded,
        FirstPlayerTaken: first_player,
        AmbassadorTaken: ambassador_taken,
        LieutenantJoined: lieutenant,
        RoundFlagUsed: flag,
    }

    def apply(state: State, event: Event) -> State:
        return appliers[type(event)](state, event)

    return apply
