"""The 12 random events [FS 4]. The twelve-sided die is drawn from the match generator; each
piece an event hits gets its owner's window first (Small Gods, and for a minion's removal
Susan, Fresh Start Club and Igor)."""

from __future__ import annotations

from typing import Any

import msgspec

from services.ankh_morpork import scoring
from services.ankh_morpork.board import Tables, buildings_of, owners_in, trouble_count
from services.ankh_morpork.engine import (
    SMALL_GODS,
    SMALL_GODS_FEE,
    Ctx,
    automatic,
    decision,
    end_game,
    interrupt_frame,
    move_minion,
    place_minion,
    push_removal,
    small_gods_usable,
)
from services.ankh_morpork.model import (
    BANK,
    DEMON,
    TROLL,
    Action,
    BuildingRemoved,
    ChooseArea,
    ChooseOption,
    CityCardLost,
    DeckDiscarded,
    EventDrawn,
    Frame,
    Interrupted,
    MinionPlaced,
    MoveMinion,
    Paid,
    State,
    TroubleRemoved,
    UseAbility,
)
from services.kernel import seats_from

RIOT_TROUBLE = 8  # [FS 4 Riots]
SUBSIDENCE_FEE = 2  # per building [FS 4]


def random_event(ctx: Ctx, player: int) -> None:
    """Draw the top random event and resolve it; each happens once a game [SEED]."""
    if not ctx.state.events_deck:
        return  # only 9 cards carry the symbol, so this never happens with 12 events
    event_id = ctx.state.events_deck[0]
    ctx.emit(EventDrawn(player, event_id))
    info = ctx.t.events[event_id]
    EFFECTS[info.effect](ctx, player, info.amount)


def _building_at_risk(ctx: Ctx, area: int, actor: int) -> None:
    """Remove the building in `area` after its owner's Small Gods window."""
    owner = ctx.state.buildings[area - 1]
    if owner < 0:
        return
    ctx.push(
        Frame(kind="remove_building", player=owner, area=area, owner=owner),
        interrupt_frame(owner, actor, "building", "event", area, owner),
    )


@automatic("remove_building")
def _run_remove_building(ctx: Ctx, frame: Frame) -> None:
    ctx.pop()
    if ctx.state.buildings[frame.area - 1] == frame.owner:
        ctx.emit(BuildingRemoved(frame.area, frame.owner))


def _dragon(ctx: Ctx, player: int, amount: int) -> None:
    """Everything in the rolled area goes: minions, trolls, demons, building, trouble."""
    area = ctx.roll(player, "the_dragon")
    ctx.push(Frame(kind="clear_trouble", area=area))
    _building_at_risk(ctx, area, player)
    state = ctx.state
    for owner in reversed(owners_in(state, area)):
        for _ in range(_count(state, area, owner)):
            push_removal(ctx, owner, area, player, "event")


def _count(state: State, area: int, owner: int) -> int:
    i = area - 1
    return (
        state.trolls[i] if owner == TROLL else state.demons[i] if owner == DEMON else state.minions[i][owner]
    )


@automatic("clear_trouble")
def _run_clear_trouble(ctx: Ctx, frame: Frame) -> None:
    ctx.pop()
    if ctx.state.trouble[frame.area - 1]:
        ctx.emit(TroubleRemoved(frame.area))


def _flood(ctx: Ctx, player: int, amount: int) -> None:
    """Each rolled area by the river floods: every player moves each of their minions there to
    an adjacent area that was not rolled (players in turn order from the drawer)."""
    rolled = tuple(ctx.roll(player, "flood") for _ in range(amount))
    frames: list[Frame] = []
    for area in dict.fromkeys(rolled):
        if not ctx.t.areas[area - 1].river:
            continue
        for seat in seats_from(player, ctx.state.players):
            count = ctx.state.minions[area - 1][seat]
            if count:
                frames.append(
                    Frame(kind="flood", player=seat, actor=player, area=area, areas=rolled, count=count)
                )
    ctx.push(*reversed(frames))


def _flood_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    if state.minions[frame.area - 1][frame.player] == 0:
        return []
    out: list[Action] = [MoveMinion(frame.area, a) for a in sorted(t.adj(frame.area)) if a not in frame.areas]
    if out and small_gods_usable(t, state, frame.player):
        out.append(UseAbility(SMALL_GODS))
    return out


@decision("flood", _flood_options)
def _on_flood(ctx: Ctx, frame: Frame, action: Any) -> None:
    if frame.count <= 1:
        ctx.pop()
    else:
        ctx.replace_top(msgspec.structs.replace(frame, count=frame.count - 1))
    if isinstance(action, UseAbility):  # this minion stays put
        ctx.emit(Paid(frame.player, BANK, SMALL_GODS_FEE))
        ctx.emit(Interrupted(frame.player, "small_gods", "flood"))
    else:
        move_minion(ctx, frame.player, action.from_area, action.area)


def _fire(ctx: Ctx, player: int, amount: int) -> None:
    ctx.push(Frame(kind="fire", actor=player))


@automatic("fire")
def _run_fire(ctx: Ctx, frame: Frame) -> None:
    """Fire: a building in the rolled area burns; keep rolling while the roll is next to the
    last burned area and holds a building [FS 4]."""
    ctx.pop()
    area = ctx.roll(frame.actor, "fire")
    first = frame.area == 0
    if ctx.state.buildings[area - 1] >= 0 and (first or area in ctx.t.adj(frame.area)):
        ctx.push(Frame(kind="fire", actor=frame.actor, area=area))
        _building_at_risk(ctx, area, frame.actor)


def _fog(ctx: Ctx, player: int, amount: int) -> None:
    cards = ctx.state.deck[:amount]
    if cards:
        ctx.emit(DeckDiscarded(cards))


def _riots(ctx: Ctx, player: int, amount: int) -> None:
    if trouble_count(ctx.state) >= amount:
        end_game(ctx, "riots", scoring.points_winners(ctx.t, ctx.state))


def _explosion(ctx: Ctx, player: int, amount: int) -> None:
    for _ in range(amount):
        _building_at_risk(ctx, ctx.roll(player, "explosion"), player)


def _murders(ctx: Ctx, player: int, amount: int) -> None:
    """Each player in turn rolls and removes a minion of their choice from that area."""
    for seat in reversed(seats_from(player, ctx.state.players)):
        ctx.push(Frame(kind="murder", player=seat, actor=player))


@automatic("murder")
def _run_murder(ctx: Ctx, frame: Frame) -> None:
    ctx.pop()
    area = ctx.roll(frame.player, "mysterious_murders")
    if owners_in(ctx.state, area):
        ctx.push(Frame(kind="choose_minion", player=frame.player, mode="murder", area=area))


def _arrivals(ctx: Ctx, player: int, amount: int, owner: int, reason: str) -> None:
    rolled = [ctx.roll(player, reason) for _ in range(amount)]
    for area in reversed(rolled):
        ctx.push(Frame(kind="arrival", owner=owner, area=area, actor=player))
        state = ctx.state
        at_stake = [
            s
            for s in seats_from(player, state.players)
            if state.minions[area - 1][s] or state.buildings[area - 1] == s
        ]
        for seat in reversed(at_stake):
            ctx.push(interrupt_frame(seat, player, "arrival", "event", area, seat))


def _demons(ctx: Ctx, player: int, amount: int) -> None:
    _arrivals(ctx, player, amount, DEMON, "demons")


def _trolls(ctx: Ctx, player: int, amount: int) -> None:
    _arrivals(ctx, player, amount, TROLL, "trolls")


@automatic("arrival")
def _run_arrival(ctx: Ctx, frame: Frame) -> None:
    """A troll or demon arrives (trouble if the area was occupied); a demon always brings a
    trouble marker [FS 4]."""
    ctx.pop()
    if frame.owner == DEMON:
        ctx.emit(MinionPlaced(DEMON, frame.area, trouble=not ctx.state.trouble[frame.area - 1]))
    else:
        place_minion(ctx, TROLL, frame.area)


def _subsidence(ctx: Ctx, player: int, amount: int) -> None:
    for seat in reversed(seats_from(player, ctx.state.players)):
        if buildings_of(ctx.state, seat):
            ctx.push(Frame(kind="subsidence", player=seat, count=amount))


def _subsidence_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    owned = buildings_of(state, frame.player)
    if not owned:
        return []
    out: list[Action] = []
    if state.money[frame.player] >= frame.count * len(owned):
        out.append(ChooseOption("pay"))
    return out + [ChooseArea(a) for a in owned]


@decision("subsidence", _subsidence_options)
def _on_subsidence(ctx: Ctx, frame: Frame, action: Any) -> None:
    """Pay $2 a building, or give up buildings until you pay for the rest (or have none)."""
    if isinstance(action, ChooseOption):
        ctx.pop()
        ctx.emit(Paid(frame.player, BANK, frame.count * len(buildings_of(ctx.state, frame.player))))
    else:
        ctx.emit(BuildingRemoved(action.area, frame.player))


def _bsj(ctx: Ctx, player: int, amount: int) -> None:
    """Bloody Stupid Johnson: the rolled area's City Area card is set aside for good (the
    building stays and scores); its owner removes one of their minions there."""
    area = ctx.roll(player, "bloody_stupid_johnson")
    owner = ctx.state.buildings[area - 1]
    if owner < 0 or ctx.state.lost_cards[area - 1]:
        return
    if ctx.state.minions[area - 1][owner]:
        push_removal(ctx, owner, area, owner, "event")
    ctx.push(
        Frame(kind="lose_card", player=owner, area=area, owner=owner),
        interrupt_frame(owner, player, "card", "event", area, owner),
    )


@automatic("lose_card")
def _run_lose_card(ctx: Ctx, frame: Frame) -> None:
    ctx.pop()
    if ctx.state.buildings[frame.area - 1] == frame.owner and not ctx.state.lost_cards[frame.area - 1]:
        ctx.emit(CityCardLost(frame.area))


def _earthquake(ctx: Ctx, player: int, amount: int) -> None:
    rolled = [ctx.roll(player, "earthquake") for _ in range(amount)]
    for area in reversed(rolled):
        _building_at_risk(ctx, area, player)


EFFECTS = {
    "dragon": _dragon,
    "flood": _flood,
    "fire": _fire,
    "fog": _fog,
    "riots": _riots,
    "explosion": _explosion,
    "murders": _murders,
    "demons": _demons,
    "subsidence": _subsidence,
    "bsj": _bsj,
    "trolls": _trolls,
    "earthquake": _earthquake,
}
