"""How a client presents Ankh-Morpork to a person: decisions, event descriptions, board places, the
kinds of ids in its JSON and the sections of its view (services/kernel/present.py).

Every decision belongs to one seat: the game never asks two seats at once. An interrupt window
(Susan, Gaspode, Wallace Sonky, Fresh Start Club, Igor, Small Gods) is a per-seat decision of
the piece's owner; when a step hits several seats their windows come one after another in turn
order, so no decision is `simultaneous`.

Label tables are built once per data file (`make_presentation`); a decision reads the top
pending step of the state and the given legal actions, nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.ankh_morpork import game_data
from services.ankh_morpork.catalog import Catalog, default_catalog
from services.ankh_morpork.game_data import area_text, scroll_text, symbol_text
from services.ankh_morpork.model import (
    DEMON,
    TROLL,
    Assassinate,
    Build,
    ChooseArea,
    ChooseCard,
    ChooseMinion,
    ChooseOption,
    ChoosePlayer,
    EndTurn,
    Frame,
    MoveMinion,
    PlaceMinion,
    PlayCard,
    PlayInterrupt,
    RemoveTrouble,
    Scroll,
    Skip,
    State,
    TakeMoney,
    UseAbility,
)
from services.ankh_morpork.present_events import Names, make_describe
from services.kernel.present import (
    PLACE,
    SEAT,
    Choice,
    Decision,
    Named,
    Option,
    Place,
    Presentation,
    Text,
    ask,
    choice,
    named,
    player_choice,
    seat_arg,
)

WHAT = "What do you do?"
SUPPLY = "0"  # the place id of `from_area` 0: a piece comes from its owner's supply


# -- decisions --------------------------------------------------------------------------------------


class _Asked:
    """One decision being built: the tables, the state, the top pending step and the seat."""

    __slots__ = ("n", "state", "frame", "seat")

    def __init__(self, n: Names, state: State, frame: Frame, seat: int) -> None:
        self.n, self.state, self.frame, self.seat = n, state, frame, seat

    # choices naming things
    def area(self, step: Text, area: int, label: str = "") -> Choice:
        return choice(step, label or self.n.area[area], "area", str(area))

    def card(self, step: Text, card: str) -> Choice:
        return choice(step, self.n.card_name(card), "card", card)

    def owner(self, step: Text, owner: int) -> Choice:
        if owner >= 0:
            return player_choice(step, owner)
        return choice(step, "a troll" if owner == TROLL else "a demon", "owner", str(owner))

    def what(self, label: Text, kind: str = "", id: str = "") -> Choice:
        return choice(WHAT, label, kind, id)

    @property
    def symbol(self) -> str:
        """The symbol of the card being resolved that is offered now ("" once it is done)."""
        symbols = self.n.cards[self.frame.card].symbols if self.frame.card in self.n.cards else ()
        return symbols[self.frame.step] if self.frame.step < len(symbols) else ""


def _target(a: _Asked) -> Text:
    """The player the pending step names ("the other player" when none)."""
    return _seat(a.frame.target, "target") if a.frame.target >= 0 else "the other player"


def _seat(seat: int, slot: str) -> Named:
    return named("{" + slot + "}", seat_arg(slot, seat))


def _owner(owner: int) -> Text:
    """Whose minion: a seat (a template), a troll or a demon."""
    return _seat(owner, "owner") if owner >= 0 else ("a troll" if owner == TROLL else "a demon")


# The question of a choose_player step, by mode ({card} the card's name, {amount} its amount).
_PLAYER_STEP = {
    "receive_cards": "Who gives you cards?",
    "trade": "Give a card to whom (they pay you ${amount})?",
    "penalty": "Who pays you ${amount} or takes {card}?",
    "take": "Take ${amount} from whom?",
    "fire_brigade": "Who pays you ${amount} or loses a building?",
    "snatch": "Take two cards at random from whom?",
    "hobson": "Pay ${amount} to whom?",
    "hubert_payer": "Who pays ${amount}?",
    "hubert_payee": "Who receives the ${amount}?",
    "bribe": "Pay ${amount} to whom (they remove a minion)?",
    "inspect": "Look at whose hand?",
    "swap_hands": "Swap hands with whom?",
    "burleigh": "Pay ${amount} to whom (then assassinate)?",
}


def _player_step(a: _Asked) -> str:
    card = a.n.cards.get(a.frame.card)
    text = _PLAYER_STEP.get(a.frame.mode, "Which player?")
    return text.replace("{amount}", str(card.amount if card else 0)).replace(
        "{card}", a.n.card_name(a.frame.card)
    )


def _card_step(a: _Asked) -> Text:
    f = a.frame
    if f.mode == "trade":
        return "Give which card to " + _target(a) + "?"
    if f.mode == "inspect":
        return "Discard which of " + _target(a) + "'s cards?"
    if f.mode == "keep":
        return "Keep which card (the other goes back to " + _target(a) + ")?"
    return {
        "sell": f"Discard which card for ${f.area}?",
        "scours": f"Discard which card for ${f.area} (The Scours)?",
        "alchemy": f"Discard which card (up to {f.count} more)?",
    }.get(f.mode, "Discard which card?")


def _area_step(a: _Asked) -> Text:
    f = a.frame
    if f.mode == "move_to":
        return "Move " + _owner(f.owner) + f"'s minion from {a.n.area.get(f.area, '?')} to where?"
    if f.mode == "burn":
        return "Remove " + _target(a) + "'s building from which area?"
    return {
        "shades": "Place a trouble marker where?",
        "mob": "Place a trouble marker where?",
        "hix": "Place a trouble marker where?",
        "remove_trouble": "Remove the trouble marker from which area?",
        "slant": f"Take ${f.count} per minion in which area?",
        "take_over": "Take over the building in which area?",
    }.get(f.mode, "Which area?")


_OWN_MINION = {
    "flee": "Move which of your minions out of trouble?",
    "own_anywhere": "Move which of your minions?",
    "remove_own": "Remove which of your minions?",
    "own_remove": "Remove which of your minions?",
}
_AREA_FIXED = ("in_area", "carcer", "murder")


def _minion_path(a: _Asked, area: int, owner: int) -> list[Choice]:
    mode = a.frame.mode
    if a.frame.kind == "pay_or_remove":
        return [a.what("Remove one of your minions"), a.area("From which area?", area)]
    if mode in _OWN_MINION:
        return [a.area(_OWN_MINION[mode], area)]
    if mode in _AREA_FIXED:
        return [a.owner(f"Remove whose minion from {a.n.area[area]}?", owner)]
    first = {"swap1": "First minion: in which area?", "swap2": "Second minion: in which area?"}
    whose = {"move_other": "Move whose minion?", "swap1": "Whose minion?", "swap2": "Whose minion?"}
    return [
        a.area(first.get(mode, "In which area?"), area),
        a.owner(whose.get(mode, "Remove whose minion?"), owner),
    ]


# Declining a symbol, said as what the player does instead of "Skip: <the symbol>" (which read
# like the symbol itself beside "Take $3 from the bank").
_SKIP_SYMBOL = {
    "$": "Take no money",
    "M": "Place no minion",
    "B": "Place no building",
    "A": "Assassinate nobody",
    "T": "Remove no trouble marker",
}


def _skip_label(a: _Asked) -> str:
    f = a.frame
    if f.kind == "card":
        symbol = a.symbol
        name = a.n.card_name(f.card)
        if not symbol:
            return f"Finish {name}"
        if symbol == "S":
            return f"Skip the scroll of {name}"
        if symbol == "P":
            return "Play no other card"
        return _SKIP_SYMBOL.get(symbol[:1], "Skip this symbol")
    return {
        "interrupt": "Let it happen (no interrupt)",
        "place": "Place no more minions",
        "play_two": "Play no more cards",
        "choose_minion": "Remove no minion",
        "choose_card": {"sell": "Stop discarding", "alchemy": "Stop discarding and refill"}.get(
            f.mode, "Discard nothing"
        ),
    }.get(f.kind, "Skip")


def _option_label(a: _Asked, option: str) -> Text:
    f = a.frame
    if f.kind == "tribute":
        return "Give $1 to " + _target(a)
    if f.kind == "subsidence":
        owned = sum(owner == a.seat for owner in a.state.buildings)
        return f"Pay ${f.count * owned} (${f.count} per building)"
    if f.kind == "pay_or_remove":
        return f"Pay ${f.count} to the bank"
    if option == "pay":
        return f"Pay ${f.count} to " + _target(a)
    if f.kind == "penalty":
        return f"Refuse: {a.n.card_name(f.card)} stays in front of you"
    if f.kind == "fire_brigade":
        return "Refuse: " + _target(a) + " removes one of your buildings"
    return option.replace("_", " ").capitalize()


def _path(a: _Asked, action: Any) -> list[Choice]:  # noqa: C901 - one branch per action type
    f, n = a.frame, a.n
    if isinstance(action, PlayCard):
        return [
            a.what("Play another card" if f.kind == "card" else "Play a card"),
            a.card("Which card?", action.card),
        ]
    if isinstance(action, PlayInterrupt):
        return [a.what("Play an interrupt card"), a.card("Which interrupt card?", action.card)]
    if isinstance(action, UseAbility):
        if f.kind in ("interrupt", "flood"):
            name = n.area[action.area]
            what = "this minion stays" if f.kind == "flood" else "ignore the event for this piece"
            return [a.what(f"Pay $3 ({name}): {what}", "area", str(action.area))]
        return [
            a.what("Use a City Area card"),
            a.area("Which City Area card?", action.area, f"{n.area[action.area]}: {n.ability[action.area]}"),
        ]
    if isinstance(action, EndTurn):
        return [a.what("End your turn (refill your hand to five cards)")]
    if isinstance(action, Skip):
        return [a.what(_skip_label(a))]
    if isinstance(action, PlaceMinion):
        out = [a.what("Place a minion"), a.area("Where?", action.area)]
        if action.from_area:
            out.append(a.area("All your minions are out: take one off which area?", action.from_area))
        return out
    if isinstance(action, MoveMinion):
        return [
            a.what("Move the minion"),
            a.area(f"Move it from {n.area[action.from_area]} to where?", action.area),
        ]
    if isinstance(action, Build):
        cost = n.cost[action.area] // (f.count or 1) if f.kind == "build" else n.cost[action.area]
        out = [a.what("Place a building"), a.area("Where?", action.area, f"{n.area[action.area]} (${cost})")]
        if action.from_area:
            out.append(a.area("All your buildings are out: move which one?", action.from_area))
        return out
    if isinstance(action, Assassinate):
        return [
            a.what("Assassinate"),
            a.area("In which area?", action.area),
            a.owner("Whose minion?", action.owner),
        ]
    if isinstance(action, RemoveTrouble):
        return [a.what("Remove a trouble marker"), a.area("From which area?", action.area)]
    if isinstance(action, TakeMoney):
        return [a.what(f"Take {a.symbol or '$'} from the bank")]
    if isinstance(action, Scroll):
        card = n.cards[f.card]
        return [a.what(f"Do the scroll of {card.name}: {n.scroll[card.id]}", "card", card.id)]
    if isinstance(action, ChoosePlayer):
        return [a.owner(_player_step(a), action.player)]
    if isinstance(action, ChooseCard):
        if f.kind == "tribute":
            return [a.what("Give a card"), a.card("Which card?", action.card)]
        if f.kind == "give_cards":
            return [a.card("Give which card to " + _target(a) + "?", action.card)]
        return [a.card(_card_step(a), action.card)]
    if isinstance(action, ChooseArea):
        if f.kind == "subsidence":
            return [a.what("Give up a building"), a.area("Which building?", action.area)]
        label = ""
        if f.mode == "take_over":
            label = f"{n.area[action.area]} (${n.cost[action.area]})"
        return [a.area(_area_step(a), action.area, label)]
    if isinstance(action, ChooseMinion):
        return _minion_path(a, action.area, action.owner)
    if isinstance(action, ChooseOption):
        return [a.what(_option_label(a, action.option))]
    return [a.what(type(action).__name__)]


def _interrupt_prompt(a: _Asked, actions: Sequence[Any]) -> Text:
    f, n = a.frame, a.n
    where = n.area.get(f.area, "")
    who: Text = (
        "A random event"
        if f.source == "event"
        else ("Your own card" if f.actor == a.seat else _seat(f.actor, "actor") + "'s card")
    )
    arrival = "a troll or a demon"
    for below in reversed(a.state.stack):
        if below.kind == "arrival":
            arrival = "a demon" if below.owner == DEMON else "a troll"
            break
    at_stake = who + {
        "remove": f" removes your minion from {where}",
        "move": f" moves your minion out of {where}",
        "scroll": " aims its scroll text at you",
        "building": f" removes your building in {where}",
        "arrival": f" brings {arrival} into {where}",
        "card": f" sets aside your City Area card of {where} for good",
    }.get(f.card, " affects you")
    answers = "an interrupt card"
    if any(isinstance(x, UseAbility) for x in actions):
        answers = (
            "Small Gods"
            if not any(isinstance(x, PlayInterrupt) for x in actions)
            else answers + " or Small Gods"
        )
    return at_stake + f": answer with {answers}, or let it happen?"


def _prompt(a: _Asked, actions: Sequence[Any]) -> Text:  # noqa: C901 - one prompt per step kind
    f, n = a.frame, a.n
    kind = f.kind
    if kind == "turn":
        if any(isinstance(x, PlayCard) for x in actions):
            return "Your turn: play a card from your hand (or use a City Area card)"
        return "Your turn: use a City Area card or end your turn"
    if kind == "card":
        name = n.card_name(f.card)
        symbol = a.symbol
        if not symbol:
            return f"{name} is done: finish it (or play Doctor Mossy Lawn, use a City Area card)"
        if symbol == "S":
            return f"{name}: do its scroll ({n.scroll[f.card]}) or skip it"
        return f"{name}: {symbol_text(symbol)}, or skip it"
    if kind == "interrupt":
        return _interrupt_prompt(a, actions)
    if kind == "place":
        more = f" ({f.count} to place)" if f.count > 1 else ""
        return {
            "relocate": "Your minion was removed: place it again in another area",
            "ability": "Place a minion (City Area card)",
            "quiet": "Place a minion in any area (no trouble marker)",
            "at_building": "Place a minion in an area with one of your buildings",
            "in_trouble": "Place a minion in an area with trouble",
        }.get(f.mode, "Place a minion") + more
    if kind == "choose_player":
        return f"{n.card_name(f.card)}: choose a player. {_player_step(a)}"
    if kind == "choose_card":
        return _card_step(a)
    if kind == "choose_area":
        return _area_step(a)
    if kind == "choose_minion":
        return {
            "flee": "Move one of your minions out of an area with trouble",
            "own_anywhere": "Move one of your minions to any other area",
            "remove_own": "Remove one of your minions",
            "own_remove": "Remove one of your minions",
            "move_other": "Move another player's minion to an adjacent area",
            "errol": "Remove a minion from an area with trouble",
            "bribe": "You were paid: remove a minion (not "
            + _owner_of_actor(a)
            + ") from an area with trouble",
            "in_area": f"Remove a minion from {n.area.get(f.area, '?')}",
            "carcer": f"Carcer: remove a minion from {n.area.get(f.area, '?')}, or none",
            "murder": f"Mysterious Murders: remove a minion from {n.area.get(f.area, '?')}",
            "swap1": "The Bursar: choose the first of two minions to swap",
            "swap2": "The Bursar: choose the second minion to swap",
        }.get(f.mode, "Choose a minion")
    if kind == "assassinate":
        return "Assassinate a minion in an area with trouble"
    if kind == "build":
        return "Place a building for half its cost"
    if kind == "play_two":
        return f"Play up to {f.count} more cards"
    if kind == "give_cards":
        return "Give " + _target(a) + f" a card of your choice ({f.count} to give)"
    if kind == "tribute":
        return "Give " + _target(a) + " $1 or a card"
    if kind == "penalty":
        return "Pay " + _target(a) + f" ${f.count} or take {n.card_name(f.card)} in front of you for good"
    if kind == "fire_brigade":
        return "Pay " + _target(a) + f" ${f.count} or they remove one of your buildings"
    if kind == "pay_or_remove":
        return f"Pay ${f.count} to the bank or remove one of your minions"
    if kind == "flood":
        left = f" ({f.count} to move)" if f.count > 1 else ""
        return f"Flood in {n.area.get(f.area, '?')}: move your minion to an adjacent area not flooded{left}"
    if kind == "subsidence":
        return f"Subsidence: pay ${f.count} per building or give up buildings"
    return "Choose an action"


def _owner_of_actor(a: _Asked) -> Text:
    return _seat(a.frame.actor, "actor") + "'s" if a.frame.actor >= 0 else "theirs"


def _collapse(paths: list[list[Choice]]) -> list[list[Choice]]:
    """Drop a first step every option shares when it decides nothing (one kind of move)."""
    if paths and all(len(p) > 1 for p in paths) and len({p[0] for p in paths}) == 1:
        return [p[1:] for p in paths]
    return paths


def _key(frame: Frame) -> str:
    return f"{frame.kind}.{frame.mode}" if frame.mode and ":" not in frame.mode else frame.kind


def make_decision(n: Names) -> Any:
    def decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
        frame = state.stack[-1] if state.stack else Frame(kind="", player=seat)
        asked = _Asked(n, state, frame, seat)
        paths = _collapse([_path(asked, action) for action in actions])
        options = tuple(Option(tuple(p), i) for i, p in enumerate(paths))
        return ask(seat, _prompt(asked, actions), options, _key(frame))

    return decision


# -- the board --------------------------------------------------------------------------------------

# A schematic of the city (unit square, 0,0 top left) following its adjacency: the outer ring
# 1-3-4-6-7-8-9-11-12 around Unreal Estate (2), Isle of Gods (10) and The Scours (5).
_AREA_XY = {
    1: (0.08, 0.35),
    2: (0.32, 0.38),
    3: (0.25, 0.08),
    4: (0.55, 0.08),
    5: (0.72, 0.40),
    6: (0.88, 0.10),
    7: (0.92, 0.45),
    8: (0.86, 0.75),
    9: (0.56, 0.78),
    10: (0.52, 0.45),
    11: (0.30, 0.76),
    12: (0.08, 0.62),
}
# Off the board: the supplies and piles a piece or card comes from or goes to.
_OFF_BOARD = (
    (SUPPLY, "Supply", "supply", "Pieces not on the board: a minion or building placed from here"),
    ("draw_pile", "Draw pile", "pile", "Green-bordered cards on top of the brown-bordered ones, face down"),
    ("discard_pile", "Discard pile", "pile", "Played and discarded cards, face up"),
    ("random_events", "Random events", "pile", "The twelve random event cards, face down; each happens once"),
    ("bank", "Bank", "bank", "The money not in front of a player"),
)


def make_places(n: Names) -> Any:
    def places(catalog: Any) -> Sequence[Place]:
        areas = catalog.areas
        out = []
        for k, a in enumerate(areas):
            x, y = _AREA_XY.get(a.number, (0.5 + 0.4 * ((k % 4) / 4), 0.1 + 0.2 * (k // 4)))
            out.append(
                Place(
                    id=str(a.number),
                    name=a.name,
                    kind="area",
                    x=x,
                    y=y,
                    neighbours=tuple(str(b) for b in a.adjacent),
                    group="river" if a.river else "dry",
                    text=area_text(a),
                    values={"number": a.number, "cost": a.cost, "river": a.river, "ability": a.ability},
                    source=a.source,
                )
            )
        for k, (pid, name, kind, text) in enumerate(_OFF_BOARD):
            out.append(
                Place(
                    id=pid,
                    name=name,
                    kind=kind,
                    x=0.1 + 0.2 * k,
                    y=0.95,
                    group="off_board",
                    text=text,
                    source="SEED Componentes, Preparar",
                )
            )
        return tuple(out)

    return places


# -- ids in the JSON and the view's sections --------------------------------------------------------

REFS = {
    # seats
    "player": SEAT,
    "actor": SEAT,
    "seats": SEAT,
    "current": SEAT,
    "active": SEAT,
    "viewer": SEAT,
    "winners": SEAT,
    "giver": SEAT,
    "receiver": SEAT,
    "taker": SEAT,
    "victim": SEAT,
    "first": SEAT,
    "second": SEAT,
    "by": SEAT,
    "payer": SEAT,
    "payee": SEAT,
    "paid_to": SEAT,
    "holder": SEAT,
    "building": SEAT,
    "controller": SEAT,
    "hand_shown.owner": SEAT,
    # whose minion: a seat, a troll (-1) or a demon (-2)
    "owner": "owner",
    "target": "owner",
    # a pending step's `player` is the piece's owner for a removal (a troll or demon too)
    ".player": "owner",
    "stack_set.player": "owner",
    # areas; `from_area` 0 is the supply
    "area": "area",
    "areas": "area",
    "to_area": "area",
    "used_abilities": "area",
    "gained": "area",
    "from_area": PLACE,
    # cards
    "card": "card",
    "cards": "card",
    "hand": "card",
    "discard": "card",
    "played": "card",
    "shown_hand": "card",
    "loans": "card",
    "penalties": "card",
    "interrupted.card": "reaction",
    # a pending step's `card` also names the step an interrupt window answers ("remove")
    ".card": "",
    "stack_set.card": "",
    # events and personalities
    "event": "event",
    "events_done": "event",
    "personality": "personality",
    "personalities": "personality",
    "personalities_seen.cards": "personality",
}

VIEW_SECTIONS = {
    "players": "players",
    "viewer": "self",
    "turn": "turn",
    "current": "turn",
    "active": "turn",
    "areas": "board",
    "seats": "players",
    "deck_size": "board",
    "discard": "board",
    "events_left": "board",
    "events_done": "board",
    "unused_personalities": "board",
    "used_abilities": "turn",
    "gained": "turn",
    "played": "turn",
    "pending": "engine",
    "shown_hand": "self",
    "over": "turn",
    "end_reason": "turn",
    "winners": "turn",
}


def make_presentation(catalog: Catalog) -> Presentation:
    """The presentation of the game played with this data file (labels built once)."""
    names = Names(catalog)
    return Presentation(
        decision=make_decision(names),
        describe=make_describe(names),
        components=game_data.components,
        places=make_places(names),
        refs=REFS,
        view_sections=VIEW_SECTIONS,
        score=game_data.SCORE,
    )


PRESENTATION = make_presentation(default_catalog())
__all__ = ["PRESENTATION", "REFS", "VIEW_SECTIONS", "make_presentation", "scroll_text"]
