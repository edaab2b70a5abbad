"""Player cards: the symbols of a card resolved left to right, and the scroll effects.

A card's scroll names one effect primitive in the data file (`effect`, with `amount`, `count`,
`area`, `win`, `lose`); `SCROLLS` maps each primitive to when it can do something and how it
starts. Choices go through a few shared frame kinds (`choose_player`, `choose_card`,
`choose_area`, `choose_minion`, `place`) whose `mode` says which effect continues.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from services.ankh_morpork import events
from services.ankh_morpork.board import (
    Tables,
    buildings_of,
    count_of,
    owners_in,
    pieces_in,
    placements,
    trouble_count,
)
from services.ankh_morpork.engine import (
    BEFORE,
    Ctx,
    ability_options,
    automatic,
    bank_pays,
    decision,
    draw,
    end_turn,
    finish_card,
    interrupt_frame,
    mark_card,
    move_minion,
    place_minion,
    playable,
    push_move,
    push_removal,
    push_targeted,
    refill_count,
    remove_building,
    shades_targets,
    start_card,
    take_money,
    use_ability,
)
from services.ankh_morpork.model import (
    AREAS,
    BANK,
    BUILDINGS,
    Action,
    Assassinate,
    Build,
    BuildingPlaced,
    BuildingRemoved,
    CardDiscarded,
    CardFinished,
    CardPlayed,
    CardsGiven,
    CardsTaken,
    ChooseArea,
    ChooseCard,
    ChooseMinion,
    ChooseOption,
    ChoosePlayer,
    DiscardDrawn,
    Frame,
    HandShown,
    HandsSwapped,
    Interrupted,
    Paid,
    PersonalitiesSeen,
    PersonalitySwapped,
    PlaceMinion,
    PlayCard,
    PlayInterrupt,
    RemoveTrouble,
    Scroll,
    Skip,
    State,
    SymbolDone,
    TakeMoney,
    TroublePlaced,
    TroubleRemoved,
    UseAbility,
)
from services.kernel import seats_from

ALL_AREAS = tuple(range(1, AREAS + 1))


def _others(state: State, seat: int) -> tuple[int, ...]:
    return tuple(s for s in seats_from(seat, state.players) if s != seat)


def _distinct(cards: tuple[str, ...]) -> list[str]:
    return list(dict.fromkeys(cards))


# -- symbols ---------------------------------------------------------------------------------------


def build_options(t: Tables, state: State, seat: int, divisor: int = 1) -> list[Action]:
    """Build where you have a minion and there is no building and no trouble, paying the area
    cost; with all 6 buildings out, move one of yours [SEED Un lugar un edificio]."""
    out: list[Action] = []
    mine = buildings_of(state, seat)
    for a in ALL_AREAS:
        i = a - 1
        if state.minions[i][seat] == 0 or state.buildings[i] >= 0 or state.trouble[i]:
            continue
        if state.money[seat] < t.cost[i] // divisor:
            continue
        if len(mine) < BUILDINGS:
            out.append(Build(a))
        else:
            out.extend(Build(a, f) for f in mine)
    return out


def assassination_options(state: State, seat: int) -> list[Action]:
    """Any minion but your own, or a troll or demon, in an area with trouble [SEED Asesinato]."""
    return [
        Assassinate(a, o) for a in ALL_AREAS if state.trouble[a - 1] for o in owners_in(state, a) if o != seat
    ]


def _symbol_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    card = t.cards[frame.card]
    if frame.step >= len(card.symbols):
        return []  # the card is done: only Doctor Mossy Lawn or an ability may still come
    symbol = card.symbols[frame.step]
    seat = frame.player
    if symbol == "M":
        return placements(t, state, seat, ALL_AREAS, True)
    if symbol == "B":
        return build_options(t, state, seat)
    if symbol == "A":
        return assassination_options(state, seat)
    if symbol == "T":
        return [RemoveTrouble(a) for a in ALL_AREAS if state.trouble[a - 1]]
    if symbol.startswith("$"):
        return [TakeMoney()]
    if symbol == "S":
        return [Scroll()] if SCROLLS[card.effect][0](t, state, seat, card.id) else []
    if symbol == "P":
        return playable(t, state, seat)
    return []


def mossy_options(t: Tables, state: State, seat: int) -> list[Action]:
    return [PlayInterrupt(c) for c in _distinct(state.hands[seat]) if t.cards[c].interrupt == "mossy"]


def _card_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    out = _symbol_options(t, state, frame)
    out += ability_options(t, state, frame.player)
    out += mossy_options(t, state, frame.player)
    out.append(Skip())
    return out


def _card_before(ctx: Ctx, frame: Frame) -> bool:
    """A finished card leaves the table; a random event symbol is mandatory [SEED]."""
    card = ctx.t.cards[frame.card]
    if frame.step >= len(card.symbols):
        if mossy_options(ctx.t, ctx.state, frame.player):
            return False  # Doctor Mossy Lawn may still keep this card in hand
        ctx.pop()
        finish_card(ctx, frame)
        return True
    if card.symbols[frame.step] == "E":
        ctx.replace_top(msgspec.structs.replace(frame, step=frame.step + 1))
        events.random_event(ctx, frame.player)
        return True
    return False


BEFORE["card"] = _card_before


@decision("card", _card_options)
def _on_card(ctx: Ctx, frame: Frame, action: Any) -> None:
    seat = frame.player
    card = ctx.t.cards[frame.card]
    if isinstance(action, UseAbility):
        use_ability(ctx, seat, action.area)
        return
    if isinstance(action, PlayInterrupt):
        _mossy_lawn(ctx, seat, action.card)
        return
    if isinstance(action, PlayCard):  # 'play another card' is always the last symbol
        ctx.pop()
        finish_card(ctx, frame)
        start_card(ctx, seat, action.card)
        return
    if frame.step >= len(card.symbols):  # Skip after the last symbol: the card is done
        ctx.pop()
        finish_card(ctx, frame)
        return
    ctx.replace_top(msgspec.structs.replace(frame, step=frame.step + 1))
    if isinstance(action, Skip):
        ctx.emit(SymbolDone(seat, card.id, card.symbols[frame.step], skipped=True))
    elif isinstance(action, PlaceMinion):
        place_minion(ctx, seat, action.area, action.from_area)
    elif isinstance(action, Build):
        build(ctx, seat, action, ctx.t.cost[action.area - 1])
    elif isinstance(action, Assassinate):
        push_removal(ctx, action.owner, action.area, seat, "symbol")
    elif isinstance(action, RemoveTrouble):
        ctx.emit(TroubleRemoved(action.area))
    elif isinstance(action, TakeMoney):
        bank_pays(ctx, seat, int(card.symbols[frame.step][1:]))
    elif isinstance(action, Scroll):
        SCROLLS[card.effect][1](ctx, seat, card.id)


def build(ctx: Ctx, seat: int, action: Build, cost: int) -> None:
    if action.from_area:  # its City Area card goes back to the display
        ctx.emit(BuildingRemoved(action.from_area, seat))
    ctx.emit(BuildingPlaced(seat, action.area, cost))


def _mossy_lawn(ctx: Ctx, seat: int, card: str) -> None:
    """Doctor Mossy Lawn, on your own turn while a card of yours is being resolved: your turn
    ends at once and that card goes back to your hand instead of the discard pile [FS B23]."""
    ctx.emit(CardPlayed(seat, card, interrupt=True))
    ctx.emit(Interrupted(seat, card, "turn"))
    first = True
    while ctx.stack and ctx.stack[-1].kind != "turn":
        frame = ctx.pop()
        if frame.kind == "card":
            if first and not frame.mode:
                ctx.emit(CardFinished(seat, frame.card, "hand"))
            else:
                finish_card(ctx, frame)
            first = False
    if ctx.stack:
        ctx.pop()
    end_turn(ctx)


# -- shared choice frames ---------------------------------------------------------------------------


def _player_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    return [ChoosePlayer(s) for s in frame.seats]


@decision("choose_player", _player_options)
def _on_choose_player(ctx: Ctx, frame: Frame, action: Any) -> None:
    ctx.pop()
    PLAYER_CHOSEN[frame.mode](ctx, frame, action.player)


def _card_choices(t: Tables, state: State, frame: Frame) -> list[Action]:
    if frame.mode == "keep":
        pool = frame.cards
    elif frame.mode == "inspect":
        pool = state.hands[frame.target]
    else:
        pool = state.hands[frame.player]
    out: list[Action] = [ChooseCard(c) for c in _distinct(pool)]
    if frame.flag and out:
        out.append(Skip())
    return out


@decision("choose_card", _card_choices)
def _on_choose_card(ctx: Ctx, frame: Frame, action: Any) -> None:
    seat, mode = frame.player, frame.mode
    if isinstance(action, Skip):
        ctx.pop()
        return
    card = action.card
    repeat = mode == "sell" or (mode == "alchemy" and frame.count > 1)
    if repeat:
        ctx.replace_top(msgspec.structs.replace(frame, count=frame.count - 1))
    else:
        ctx.pop()
    if mode == "trade":  # give the chosen player a card; they give you $2
        ctx.emit(CardsGiven(seat, frame.target, 1, (card,)))
        take_money(ctx, seat, frame.target, frame.area)
    elif mode == "inspect":
        ctx.emit(CardDiscarded(frame.target, card))
    elif mode == "keep":
        ctx.emit(CardsGiven(frame.target, seat, 1, (card,)))
    else:
        ctx.emit(CardDiscarded(seat, card))
        if mode in ("sell", "scours"):
            bank_pays(ctx, seat, frame.area)


def _area_choices(t: Tables, state: State, frame: Frame) -> list[Action]:
    return [ChooseArea(a) for a in area_targets(t, state, frame)]


def area_targets(t: Tables, state: State, frame: Frame) -> tuple[int, ...]:
    mode = frame.mode
    trouble = state.trouble
    if mode == "move_to":
        return frame.areas
    if mode == "shades":
        return shades_targets(t, state, frame.area)
    if mode in ("remove_trouble", "slant"):
        return tuple(a for a in ALL_AREAS if trouble[a - 1])
    if mode == "burn":
        return buildings_of(state, frame.target)
    if mode == "take_over":
        return take_over_targets(t, state, frame.player, frame.flag)
    if mode == "mob":
        return mob_targets(t, state)
    if mode == "hix":
        return tuple(a for a in ALL_AREAS if pieces_in(state, a) > 0 and not trouble[a - 1])
    return ()


@decision("choose_area", _area_choices)
def _on_choose_area(ctx: Ctx, frame: Frame, action: Any) -> None:
    ctx.pop()
    area, mode, seat = action.area, frame.mode, frame.player
    if mode == "move_to":
        push_move(ctx, frame.owner, frame.area, area, frame.actor, "scroll")
    elif mode in ("shades", "mob", "hix"):
        ctx.emit(TroublePlaced(area))
    elif mode == "remove_trouble":
        ctx.emit(TroubleRemoved(area))
    elif mode == "slant":
        bank_pays(ctx, seat, frame.count * pieces_in(ctx.state, area))
    elif mode == "burn":
        remove_building(ctx, area)
    elif mode == "take_over":
        owner = ctx.state.buildings[area - 1]
        push_targeted(ctx, Frame(kind="take_over", player=owner, actor=seat, area=area), owner, seat)


def _minion_choices(t: Tables, state: State, frame: Frame) -> list[Action]:
    return [ChooseMinion(a, o) for a, o in minion_targets(state, frame)]


def minion_targets(state: State, frame: Frame) -> list[tuple[int, int]]:
    mode, seat = frame.mode, frame.player
    if mode in ("flee", "own_anywhere", "remove_own", "own_remove"):
        areas = ALL_AREAS
        if mode == "flee":
            areas = tuple(a for a in ALL_AREAS if state.trouble[a - 1])
        return [(a, seat) for a in areas if state.minions[a - 1][seat]]
    if mode == "move_other":
        return [
            (a, o) for a in ALL_AREAS for o in range(state.players) if o != seat and state.minions[a - 1][o]
        ]
    if mode in ("errol", "bribe"):
        banned = seat if mode == "errol" else frame.actor
        return [(a, o) for a in ALL_AREAS if state.trouble[a - 1] for o in owners_in(state, a) if o != banned]
    if mode in ("in_area", "carcer", "murder"):
        return [(frame.area, o) for o in owners_in(state, frame.area)]
    if mode == "swap1":
        occupied = [a for a in ALL_AREAS if owners_in(state, a)]
        if len(occupied) < 2:
            return []
        return [(a, o) for a in occupied for o in owners_in(state, a)]
    if mode == "swap2":
        return [(a, o) for a in ALL_AREAS if a != frame.area for o in owners_in(state, a)]
    return []


def _minion_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    out = _minion_choices(t, state, frame)
    if frame.flag and out:
        out.append(Skip())
    return out


@decision("choose_minion", _minion_options)
def _on_choose_minion(ctx: Ctx, frame: Frame, action: Any) -> None:
    ctx.pop()
    if isinstance(action, Skip):
        return
    area, owner, mode, seat = action.area, action.owner, frame.mode, frame.player
    if mode in ("flee", "own_anywhere", "move_other"):
        if mode == "flee":
            dest = tuple(sorted(ctx.t.adj(area)))
        elif mode == "own_anywhere":
            dest = tuple(a for a in ALL_AREAS if a != area)
        else:
            dest = tuple(sorted(ctx.t.adj(area)))
        actor = frame.actor if frame.actor >= 0 else seat
        ctx.push(
            Frame(
                kind="choose_area",
                player=seat,
                actor=actor,
                mode="move_to",
                area=area,
                owner=owner,
                areas=dest,
            )
        )
    elif mode == "swap1":
        ctx.push(Frame(kind="choose_minion", player=seat, mode="swap2", area=area, owner=owner))
    elif mode == "swap2":
        op = Frame(
            kind="swap",
            player=seat,
            actor=seat,
            area=frame.area,
            owner=frame.owner,
            to_area=area,
            target=owner,
        )
        ctx.push(op)
        victims = dict.fromkeys(o for o in (owner, frame.owner) if o >= 0 and o != seat)
        for victim in reversed(list(victims)):
            ctx.push(interrupt_frame(victim, seat, "move", "scroll", area, victim))
    else:
        source = "event" if mode == "murder" else "scroll"
        actor = frame.actor if mode == "own_remove" else seat
        push_removal(ctx, owner, area, actor, source)


@automatic("swap")
def _run_swap(ctx: Ctx, frame: Frame) -> None:
    """The Bursar: two minions trade places (each move follows the trouble rules) [FS B43]."""
    ctx.pop()
    state = ctx.state
    if count_of(state, frame.area, frame.owner) and count_of(state, frame.to_area, frame.target):
        move_minion(ctx, frame.owner, frame.area, frame.to_area)
        move_minion(ctx, frame.target, frame.to_area, frame.area)


def _assassinate_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    return assassination_options(state, frame.player)


@decision("assassinate", _assassinate_options)
def _on_assassinate(ctx: Ctx, frame: Frame, action: Any) -> None:
    ctx.pop()
    push_removal(ctx, action.owner, action.area, frame.player, "scroll")


def _build_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    return build_options(t, state, frame.player, frame.count or 1)


@decision("build", _build_options)
def _on_build(ctx: Ctx, frame: Frame, action: Any) -> None:
    ctx.pop()
    build(ctx, frame.player, action, ctx.t.cost[action.area - 1] // (frame.count or 1))


def _play_two_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    out = playable(t, state, frame.player)
    if not out:
        return []
    return [*out, *ability_options(t, state, frame.player), Skip()]


@decision("play_two", _play_two_options)
def _on_play_two(ctx: Ctx, frame: Frame, action: Any) -> None:
    """Drumknott, Ponder Stibbons: up to two more cards, each resolved in full [FS 6 FAQ]."""
    if isinstance(action, UseAbility):  # between the two cards is still your turn
        use_ability(ctx, frame.player, action.area)
        return
    if isinstance(action, Skip) or frame.count <= 1:
        ctx.pop()
    else:
        ctx.replace_top(msgspec.structs.replace(frame, count=frame.count - 1))
    if isinstance(action, PlayCard):
        start_card(ctx, frame.player, action.card)


def _give_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    return [ChooseCard(c) for c in _distinct(state.hands[frame.player])]


@decision("give_cards", _give_options)
def _on_give(ctx: Ctx, frame: Frame, action: Any) -> None:
    """The chosen player gives you cards of their choice, one at a time."""
    if frame.count <= 1:
        ctx.pop()
    else:
        ctx.replace_top(msgspec.structs.replace(frame, count=frame.count - 1))
    ctx.emit(CardsGiven(frame.player, frame.target, 1, (action.card,)))


def _tribute_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    out: list[Action] = [ChooseOption("money")] if state.money[frame.player] >= 1 else []
    return out + [ChooseCard(c) for c in _distinct(state.hands[frame.player])]


@decision("tribute", _tribute_options)
def _on_tribute(ctx: Ctx, frame: Frame, action: Any) -> None:
    """Sunshine Dragon Sanctuary: $1 or one card, the giver's choice."""
    ctx.pop()
    if isinstance(action, ChooseOption):
        ctx.emit(Paid(frame.player, frame.target, 1))
    else:
        ctx.emit(CardsGiven(frame.player, frame.target, 1, (action.card,)))


def _pay_or_refuse(t: Tables, state: State, frame: Frame) -> list[Action]:
    out: list[Action] = [ChooseOption("pay")] if state.money[frame.player] >= frame.count else []
    return [*out, ChooseOption("refuse")]


@decision("penalty", _pay_or_refuse)
def _on_penalty(ctx: Ctx, frame: Frame, action: Any) -> None:
    """Dr Whiteface / Fools' Guild: pay $5 or the card goes in front of you for good."""
    ctx.pop()
    if action.option == "pay":
        ctx.emit(Paid(frame.player, frame.target, frame.count))
    else:
        mark_card(ctx, frame.card, "penalty", frame.player)


@decision("fire_brigade", _pay_or_refuse)
def _on_fire_brigade(ctx: Ctx, frame: Frame, action: Any) -> None:
    """The Fire Brigade: pay $5, or the card's player removes one of your buildings."""
    ctx.pop()
    if action.option == "pay":
        ctx.emit(Paid(frame.player, frame.target, frame.count))
    else:
        ctx.push(Frame(kind="choose_area", player=frame.target, mode="burn", target=frame.player))


def _cmot_options(t: Tables, state: State, frame: Frame) -> list[Action]:
    out: list[Action] = [ChooseOption("pay")] if state.money[frame.player] >= frame.count else []
    seat = frame.player
    return out + [ChooseMinion(a, seat) for a in ALL_AREAS if state.minions[a - 1][seat]]


@decision("pay_or_remove", _cmot_options)
def _on_pay_or_remove(ctx: Ctx, frame: Frame, action: Any) -> None:
    ctx.pop()
    if isinstance(action, ChooseOption):
        ctx.emit(Paid(frame.player, BANK, frame.count))
    else:
        push_removal(ctx, frame.player, action.area, frame.player, "scroll")


# -- automatic steps of scroll effects ---------------------------------------------------------------


@automatic("steal")
def _run_steal(ctx: Ctx, frame: Frame) -> None:
    ctx.pop()
    taker = frame.target if frame.target >= 0 else frame.actor
    take_money(ctx, taker, frame.player, frame.count)


@automatic("take_over")
def _run_take_over(ctx: Ctx, frame: Frame) -> None:
    """Sybil Vimes, Reacher Gilt: your building replaces theirs; you pay them its cost."""
    ctx.pop()
    state, area, seat = ctx.state, frame.area, frame.actor
    cost = ctx.t.cost[area - 1]
    if state.buildings[area - 1] != frame.player or state.money[seat] < cost:
        return
    ctx.emit(BuildingRemoved(area, frame.player))
    ctx.emit(BuildingPlaced(seat, area, cost, paid_to=frame.player))


@automatic("snatch")
def _run_snatch(ctx: Ctx, frame: Frame) -> None:
    """Stanley: two cards at random from the victim's hand; keep one, give the other back."""
    ctx.pop()
    hand = ctx.state.hands[frame.player]
    if not hand:
        return
    taken = ctx.shuffled(hand)[:2]
    ctx.emit(CardsTaken(frame.actor, frame.player, len(taken), taken))
    ctx.push(Frame(kind="choose_card", player=frame.actor, target=frame.player, mode="keep", cards=taken))


@automatic("inspect")
def _run_inspect(ctx: Ctx, frame: Frame) -> None:
    ctx.pop()
    if ctx.state.hands[frame.player]:
        ctx.emit(HandShown(frame.actor, frame.player, ctx.state.hands[frame.player]))
        ctx.push(Frame(kind="choose_card", player=frame.actor, target=frame.player, mode="inspect"))


@automatic("swap_hands")
def _run_swap_hands(ctx: Ctx, frame: Frame) -> None:
    ctx.pop()
    ctx.emit(HandsSwapped(frame.actor, frame.player))


@automatic("bribe")
def _run_bribe(ctx: Ctx, frame: Frame) -> None:
    """Cosmo Lavish: you pay them $2; they remove a minion (not yours) from a troubled area."""
    ctx.pop()
    ctx.emit(Paid(frame.actor, frame.player, frame.count))
    ctx.push(Frame(kind="choose_minion", player=frame.player, actor=frame.actor, mode="bribe"))


@automatic("refill")
def _run_refill(ctx: Ctx, frame: Frame) -> None:
    ctx.pop()
    draw(ctx, frame.player, refill_count(ctx.state, frame.player))


# -- scroll effects: (can it do something?, start it) -----------------------------------------------

Possible = Callable[[Tables, State, int, str], bool]
Start = Callable[[Ctx, int, str], None]
SCROLLS: dict[str, tuple[Possible, Start]] = {}
PLAYER_CHOSEN: dict[str, Callable[[Ctx, Frame, int], None]] = {}


def scroll(effect: str, possible: Possible | None = None) -> Callable[[Start], Start]:
    def register(start: Start) -> Start:
        SCROLLS[effect] = (possible or (lambda t, s, p, c: True), start)
        return start

    return register


def _choose(ctx: Ctx, seat: int, card: str, mode: str, seats: tuple[int, ...]) -> None:
    ctx.push(Frame(kind="choose_player", player=seat, card=card, mode=mode, seats=seats))


def _others_with_cards(state: State, seat: int) -> tuple[int, ...]:
    return tuple(s for s in _others(state, seat) if state.hands[s])


@scroll("loan")
def _loan(ctx: Ctx, seat: int, card: str) -> None:
    """Mr Bent, the Bank: $10 now; the card stays in front of you as a loan [FS G1]."""
    bank_pays(ctx, seat, ctx.t.cards[card].amount)
    mark_card(ctx, card, "loan", seat)


@scroll("receive_cards", lambda t, s, p, c: bool(_others_with_cards(s, p)))
def _receive_cards(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "receive_cards", _others_with_cards(ctx.state, seat))


def _chosen_receive(ctx: Ctx, frame: Frame, target: int) -> None:
    count = ctx.t.cards[frame.card].count
    push_targeted(
        ctx, Frame(kind="give_cards", player=target, target=frame.player, count=count), target, frame.player
    )


@scroll("tribute", lambda t, s, p, c: s.players > 1)
def _tribute(ctx: Ctx, seat: int, card: str) -> None:
    for other in reversed(_others(ctx.state, seat)):
        push_targeted(ctx, Frame(kind="tribute", player=other, target=seat), other, seat)


@scroll("trade_card", lambda t, s, p, c: bool(s.hands[p]))
def _trade(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "trade", _others(ctx.state, seat))


def _chosen_trade(ctx: Ctx, frame: Frame, target: int) -> None:
    amount = ctx.t.cards[frame.card].amount
    step = Frame(kind="choose_card", player=frame.player, target=target, mode="trade", area=amount)
    push_targeted(ctx, step, target, frame.player)


@scroll("steal_each")
def _steal_each(ctx: Ctx, seat: int, card: str) -> None:
    amount = ctx.t.cards[card].amount
    for other in reversed(_others(ctx.state, seat)):
        push_targeted(ctx, Frame(kind="steal", player=other, actor=seat, count=amount), other, seat)


@scroll("penalty")
def _penalty(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "penalty", _others(ctx.state, seat))


def _chosen_penalty(ctx: Ctx, frame: Frame, target: int) -> None:
    amount = ctx.t.cards[frame.card].amount
    step = Frame(kind="penalty", player=target, target=frame.player, card=frame.card, count=amount)
    push_targeted(ctx, step, target, frame.player)


@scroll("swap_personality", lambda t, s, p, c: bool(s.unused_personalities))
def _zorgo(ctx: Ctx, seat: int, card: str) -> None:
    new = ctx.shuffled(ctx.state.unused_personalities)[0]
    ctx.emit(PersonalitySwapped(seat, ctx.state.personalities[seat], new))


def _has_minion(state: State, seat: int, troubled: bool = False) -> bool:
    return any(state.minions[a][seat] and (state.trouble[a] or not troubled) for a in range(AREAS))


@scroll("flee_trouble", lambda t, s, p, c: _has_minion(s, p, troubled=True))
def _rincewind(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_minion", player=seat, mode="flee"))


@scroll("gain_per_trouble")
def _per_trouble(ctx: Ctx, seat: int, card: str) -> None:
    bank_pays(ctx, seat, ctx.t.cards[card].amount * trouble_count(ctx.state))


@scroll("discard_for_money", lambda t, s, p, c: bool(s.hands[p]))
def _sell(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_card", player=seat, mode="sell", area=ctx.t.cards[card].amount, flag=True))


@scroll("discard_one", lambda t, s, p, c: bool(s.hands[p]))
def _discard_one(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_card", player=seat, mode="discard", flag=True))


@scroll("take_from_player", lambda t, s, p, c: s.players > 1)
def _take(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "take", _others(ctx.state, seat))


def _chosen_take(ctx: Ctx, frame: Frame, target: int) -> None:
    amount = ctx.t.cards[frame.card].amount
    push_targeted(
        ctx, Frame(kind="steal", player=target, actor=frame.player, count=amount), target, frame.player
    )


@scroll("gain_per_minion_in_area")
def _per_minion_in_area(ctx: Ctx, seat: int, card: str) -> None:
    info = ctx.t.cards[card]
    bank_pays(ctx, seat, info.amount * pieces_in(ctx.state, info.area))


@scroll("gamble")
def _gamble(ctx: Ctx, seat: int, card: str) -> None:
    """Roll the die: 7 or more wins, 1 loses, 2-6 nothing (Here'n'Now, CMOT, Errol)."""
    info = ctx.t.cards[card]
    value = ctx.roll(seat, info.id)
    state = ctx.state
    if value >= 7:
        if info.win == "bank":
            bank_pays(ctx, seat, info.amount)
        elif info.win == "take_from_player":
            _choose(ctx, seat, card, "take", _others(state, seat))
        else:
            ctx.push(Frame(kind="choose_minion", player=seat, mode="errol"))
    elif value == 1:
        if info.lose == "pay_or_remove":
            ctx.push(Frame(kind="pay_or_remove", player=seat, count=info.penalty))
        else:
            ctx.push(Frame(kind="choose_minion", player=seat, mode="remove_own"))


@scroll("draw", lambda t, s, p, c: bool(s.deck))
def _draw(ctx: Ctx, seat: int, card: str) -> None:
    draw(ctx, seat, ctx.t.cards[card].count)


@scroll("draw_from_discard", lambda t, s, p, c: bool(s.discard))
def _history_monks(ctx: Ctx, seat: int, card: str) -> None:
    count = ctx.t.cards[card].count
    ctx.emit(DiscardDrawn(seat, ctx.shuffled(ctx.state.discard)[:count]))


@scroll("move_other", lambda t, s, p, c: any(s.minions[a][o] for a in range(AREAS) for o in _others(s, p)))
def _move_other(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_minion", player=seat, mode="move_other"))


def _others_with_buildings(state: State, seat: int) -> tuple[int, ...]:
    return tuple(s for s in _others(state, seat) if buildings_of(state, s))


@scroll("fire_brigade", lambda t, s, p, c: bool(_others_with_buildings(s, p)))
def _fire_brigade(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "fire_brigade", _others_with_buildings(ctx.state, seat))


def _chosen_fire_brigade(ctx: Ctx, frame: Frame, target: int) -> None:
    amount = ctx.t.cards[frame.card].amount
    step = Frame(kind="fire_brigade", player=target, target=frame.player, count=amount)
    push_targeted(ctx, step, target, frame.player)


@scroll("peek_personalities", lambda t, s, p, c: bool(s.unused_personalities))
def _mrs_cake(ctx: Ctx, seat: int, card: str) -> None:
    """Look at all but one of the unused personalities (the hidden one drawn at random)."""
    unused = ctx.state.unused_personalities
    shown = tuple(sorted(ctx.shuffled(unused)[: len(unused) - 1]))
    ctx.emit(PersonalitiesSeen(seat, len(shown), shown))


@scroll("play_two", lambda t, s, p, c: bool(playable(t, s, p)))
def _play_two(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="play_two", player=seat, count=ctx.t.cards[card].count))


def take_over_targets(t: Tables, state: State, seat: int, troubled: bool) -> tuple[int, ...]:
    """Another seat's building in an area with (Reacher Gilt) or without (Sybil Vimes) trouble,
    that you can pay for, with a building of yours still off the board."""
    if len(buildings_of(state, seat)) >= BUILDINGS:
        return ()
    return tuple(
        a
        for a in ALL_AREAS
        if state.buildings[a - 1] not in (-1, seat)
        and state.trouble[a - 1] == troubled
        and state.money[seat] >= t.cost[a - 1]
    )


@scroll("take_over_calm", lambda t, s, p, c: bool(take_over_targets(t, s, p, False)))
def _sybil(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_area", player=seat, mode="take_over", flag=False))


@scroll("take_over_troubled", lambda t, s, p, c: bool(take_over_targets(t, s, p, True)))
def _reacher_gilt(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_area", player=seat, mode="take_over", flag=True))


@scroll("build_half", lambda t, s, p, c: bool(build_options(t, s, p, 2)))
def _wee_mad_arthur(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="build", player=seat, count=2))


@scroll("place_at_building", lambda t, s, p, c: bool(placements(t, s, p, buildings_of(s, p), False)))
def _willikins(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="place", player=seat, mode="at_building", count=1))


@scroll("place_near", lambda t, s, p, c: bool(placements(t, s, p, t.near(t.cards[c].area), False)))
def _place_near(ctx: Ctx, seat: int, card: str) -> None:
    info = ctx.t.cards[card]
    ctx.push(Frame(kind="place", player=seat, areas=ctx.t.near(info.area), count=info.count, mode="near"))


@scroll("place_quiet", lambda t, s, p, c: bool(placements(t, s, p, ALL_AREAS, False)))
def _place_quiet(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="place", player=seat, areas=ALL_AREAS, count=1, mode="quiet"))


@scroll("gain_per_minion_in_trouble", lambda t, s, p, c: any(s.trouble))
def _slant(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_area", player=seat, mode="slant", count=ctx.t.cards[card].amount))


def _trouble_areas(state: State) -> tuple[int, ...]:
    return tuple(a for a in ALL_AREAS if state.trouble[a - 1])


@scroll("place_in_trouble", lambda t, s, p, c: bool(placements(t, s, p, _trouble_areas(s), False)))
def _smoking_gnu(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="place", player=seat, mode="in_trouble", count=1))


@scroll("snatch_cards", lambda t, s, p, c: bool(_others_with_cards(s, p)))
def _stanley(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "snatch", _others_with_cards(ctx.state, seat))


def _chosen_snatch(ctx: Ctx, frame: Frame, target: int) -> None:
    push_targeted(ctx, Frame(kind="snatch", player=target, actor=frame.player), target, frame.player)


@scroll("gain_per_building")
def _per_building(ctx: Ctx, seat: int, card: str) -> None:
    built = sum(owner >= 0 for owner in ctx.state.buildings)
    bank_pays(ctx, seat, ctx.t.cards[card].amount * built)


def mob_targets(t: Tables, state: State) -> tuple[int, ...]:
    """The Mob: next to an area with trouble, holding a minion, without trouble yet."""
    return tuple(
        a
        for a in ALL_AREAS
        if not state.trouble[a - 1]
        and pieces_in(state, a) > 0
        and any(state.trouble[b - 1] for b in t.adj(a))
    )


@scroll("spread_trouble", lambda t, s, p, c: bool(mob_targets(t, s)))
def _mob(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_area", player=seat, mode="mob"))


@scroll("draw_per_building", lambda t, s, p, c: bool(s.deck) and bool(buildings_of(s, p)))
def _gargoyles(ctx: Ctx, seat: int, card: str) -> None:
    draw(ctx, seat, len(buildings_of(ctx.state, seat)))


@scroll("place_trouble", lambda t, s, p, c: any(pieces_in(s, a) and not s.trouble[a - 1] for a in ALL_AREAS))
def _hix(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_area", player=seat, mode="hix"))


@scroll("pay_then_move", lambda t, s, p, c: s.money[p] >= t.cards[c].amount and _has_minion(s, p))
def _hobsons(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "hobson", _others(ctx.state, seat))


def _chosen_hobson(ctx: Ctx, frame: Frame, target: int) -> None:
    ctx.emit(Paid(frame.player, target, ctx.t.cards[frame.card].amount))
    ctx.push(Frame(kind="choose_minion", player=frame.player, mode="own_anywhere"))


@scroll("make_pay", lambda t, s, p, c: len(_others(s, p)) >= 2)
def _hubert(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "hubert_payer", _others(ctx.state, seat))


def _chosen_payer(ctx: Ctx, frame: Frame, target: int) -> None:
    payees = tuple(s for s in _others(ctx.state, frame.player) if s != target)
    ctx.push(
        Frame(
            kind="choose_player",
            player=frame.player,
            card=frame.card,
            mode="hubert_payee",
            seats=payees,
            target=target,
        )
    )


def _chosen_payee(ctx: Ctx, frame: Frame, payee: int) -> None:
    amount = ctx.t.cards[frame.card].amount
    step = Frame(kind="steal", player=frame.target, actor=frame.player, target=payee, count=amount)
    push_targeted(ctx, step, frame.target, frame.player)


@scroll("move_own_anywhere", lambda t, s, p, c: _has_minion(s, p))
def _dorfl(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_minion", player=seat, mode="own_anywhere"))


@scroll("bribe", lambda t, s, p, c: s.money[p] >= t.cards[c].amount and s.players > 1)
def _cosmo(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "bribe", _others(ctx.state, seat))


def _chosen_bribe(ctx: Ctx, frame: Frame, target: int) -> None:
    amount = ctx.t.cards[frame.card].amount
    push_targeted(
        ctx, Frame(kind="bribe", player=target, actor=frame.player, count=amount), target, frame.player
    )


@scroll("remove_in_area", lambda t, s, p, c: bool(owners_in(s, t.cards[c].area)))
def _dean(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_minion", player=seat, mode="in_area", area=ctx.t.cards[card].area))


@scroll("swap_minions", lambda t, s, p, c: sum(bool(owners_in(s, a)) for a in ALL_AREAS) >= 2)
def _bursar(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="choose_minion", player=seat, mode="swap1"))


@scroll("inspect_hand", lambda t, s, p, c: bool(_others_with_cards(s, p)))
def _cable_street(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "inspect", _others_with_cards(ctx.state, seat))


def _chosen_inspect(ctx: Ctx, frame: Frame, target: int) -> None:
    push_targeted(ctx, Frame(kind="inspect", player=target, actor=frame.player), target, frame.player)


@scroll("random_removals")
def _carcer(ctx: Ctx, seat: int, card: str) -> None:
    ctx.push(Frame(kind="carcer", player=seat, count=ctx.t.cards[card].count))


@automatic("carcer")
def _run_carcer(ctx: Ctx, frame: Frame) -> None:
    """Carcer: roll; remove a minion of your choice there, trouble or not [FS B46]."""
    ctx.pop()
    if frame.count > 1:
        ctx.push(msgspec.structs.replace(frame, count=frame.count - 1))
    area = ctx.roll(frame.player, "carcer")
    if owners_in(ctx.state, area):
        ctx.push(Frame(kind="choose_minion", player=frame.player, mode="carcer", area=area, flag=True))


@scroll("swap_hands", lambda t, s, p, c: s.players > 1)
def _chair(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "swap_hands", _others(ctx.state, seat))


def _chosen_swap_hands(ctx: Ctx, frame: Frame, target: int) -> None:
    push_targeted(ctx, Frame(kind="swap_hands", player=target, actor=frame.player), target, frame.player)


@scroll("discard_and_refill")
def _alchemists(ctx: Ctx, seat: int, card: str) -> None:
    count = ctx.t.cards[card].count
    ctx.push(
        Frame(kind="refill", player=seat),
        Frame(kind="choose_card", player=seat, mode="alchemy", count=count, flag=True),
    )


@scroll("others_remove_own", lambda t, s, p, c: any(_has_minion(s, o) for o in _others(s, p)))
def _auditors(ctx: Ctx, seat: int, card: str) -> None:
    for other in reversed(_others(ctx.state, seat)):
        if _has_minion(ctx.state, other):
            step = Frame(kind="choose_minion", player=other, actor=seat, mode="own_remove")
            push_targeted(ctx, step, other, seat)


@scroll(
    "pay_then_assassinate",
    lambda t, s, p, c: (
        s.money[p] >= t.cards[c].amount and s.players > 1 and bool(assassination_options(s, p))
    ),
)
def _burleigh(ctx: Ctx, seat: int, card: str) -> None:
    _choose(ctx, seat, card, "burleigh", _others(ctx.state, seat))


def _chosen_burleigh(ctx: Ctx, frame: Frame, target: int) -> None:
    ctx.emit(Paid(frame.player, target, ctx.t.cards[frame.card].amount))
    ctx.push(Frame(kind="assassinate", player=frame.player))


PLAYER_CHOSEN.update(
    {
        "receive_cards": _chosen_receive,
        "trade": _chosen_trade,
        "penalty": _chosen_penalty,
        "take": _chosen_take,
        "fire_brigade": _chosen_fire_brigade,
        "snatch": _chosen_snatch,
        "hobson": _chosen_hobson,
        "hubert_payer": _chosen_payer,
        "hubert_payee": _chosen_payee,
        "bribe": _chosen_bribe,
        "inspect": _chosen_inspect,
        "swap_hands": _chosen_swap_hands,
        "burleigh": _chosen_burleigh,
    }
)
