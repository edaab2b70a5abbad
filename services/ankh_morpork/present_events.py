"""Ankh-Morpork events as log lines (services/kernel/present.py `describe`), and the name tables
the presentation builds once per data file.

Events are described as the viewer received them: a card list blanked by `redact_event` gives
only a count ("Player 2 draws 2 cards"), a blanked personality gives no name. Engine bookkeeping
(the pending-step stack, the generator's counter, a card going to the discard pile after it was
resolved) is `internal`.
"""

from __future__ import annotations

from typing import Any

from services.ankh_morpork.catalog import Catalog
from services.ankh_morpork.game_data import OWNER_NAMES, SMALL_GODS_ID, ability_text, scroll_text, symbol_text
from services.ankh_morpork.model import (
    BANK,
    AbilityUsed,
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
    EventDrawn,
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
    RngAdvanced,
    StackSet,
    SymbolDone,
    TroublePlaced,
    TroubleRemoved,
    TurnStarted,
)
from services.kernel.present import Arg, Description, arg, describe, seat_arg


class Names:
    """Names and texts of the data file, looked up by the ids the engine uses."""

    def __init__(self, catalog: Catalog) -> None:
        self.area = {a.number: a.name for a in catalog.areas}
        self.cost = {a.number: a.cost for a in catalog.areas}
        self.ability = {a.number: ability_text(a) for a in catalog.areas}
        self.cards = {c.id: c for c in catalog.cards}
        self.scroll = {c.id: scroll_text(c, self.area) for c in catalog.cards}
        self.events = {e.id: e for e in catalog.events}
        self.event_by_effect = {e.effect: e for e in catalog.events}
        self.personality = {p.id: p.name for p in catalog.personalities}
        small_gods = next((a for a in catalog.areas if a.ability == "small_gods"), None)
        self.small_gods = small_gods.name if small_gods else "Small Gods"

    def card_name(self, card: str) -> str:
        info = self.cards.get(card)
        return info.name if info else card.replace("_", " ")

    def owner_name(self, owner: int) -> str:
        return OWNER_NAMES.get(owner, f"Player {owner + 1}")


# -- argument builders ------------------------------------------------------------------------------


def _owner_arg(name: str, owner: int, start: bool = False) -> Arg:
    """A seat, or "a troll" / "a demon" ("A troll" at the start of a sentence)."""
    if owner >= 0:
        return seat_arg(name, owner)
    text = "a troll" if owner == -1 else "a demon"
    return arg(name, text.capitalize() if start else text, "owner", owner)


def _cards_args(n: Names, cards: tuple[str, ...], kind: str = "card") -> tuple[str, list[Arg]]:
    """`{card1}, {card2}` and their arguments."""
    args = []
    for k, card in enumerate(cards, 1):
        text = n.personality.get(card, card) if kind == "personality" else n.card_name(card)
        args.append(arg(f"card{k}", text, kind, card))
    return ", ".join("{" + a.name + "}" for a in args), args


def _seats(name: str, seats: tuple[int, ...]) -> tuple[str, list[Arg]]:
    args = [seat_arg(f"{name}{k}", s) for k, s in enumerate(seats, 1)]
    slots = ["{" + a.name + "}" for a in args]
    text = slots[0] if len(slots) == 1 else ", ".join(slots[:-1]) + " and " + slots[-1] if slots else "nobody"
    return text, args


_WHAT_STOPPED = {
    "remove": "the removal of a minion",
    "move": "the move of a minion",
    "scroll": "the scroll text aimed at them",
    "building": "the loss of a building",
    "arrival": "the arrival of a troll or demon",
    "card": "the loss of a City Area card",
    "flood": "the flood moving their minion",
    "turn": "their turn",
}
_END_REASON = {
    "personality": "a personality's goal is met",
    "riots": "Riots with 8 trouble markers on the board",
    "deck_out": "the draw pile is empty",
}


def make_describe(n: Names) -> Any:  # noqa: C901 - one branch per event type
    def area(name: str, number: int) -> Arg:
        return arg(name, n.area.get(number, f"area {number}"), "area", number)

    def card(name: str, card_id: str) -> Arg:
        return arg(name, n.card_name(card_id), "card", card_id)

    def description(event: Any, viewer: int | None) -> Description:  # noqa: C901
        e = event
        if isinstance(e, TurnStarted):
            return describe(
                "turn_started",
                "{player} starts turn {turn}",
                seat_arg("player", e.player),
                arg("turn", e.turn),
            )
        if isinstance(e, CardPlayed):
            if e.interrupt:
                return describe(
                    "interrupt_played",
                    "{player} plays the interrupt card {card}",
                    seat_arg("player", e.player),
                    card("card", e.card),
                )
            return describe(
                "card_played", "{player} plays {card}", seat_arg("player", e.player), card("card", e.card)
            )
        if isinstance(e, CardFinished):
            p, c = seat_arg("player", e.player), card("card", e.card)
            if e.to == "loan":
                return describe(
                    "loan_taken",
                    "{card} stays in front of {holder} as a loan",
                    c,
                    seat_arg("holder", e.holder),
                )
            if e.to == "penalty":
                return describe(
                    "penalty_card_kept",
                    "{card} stays in front of {holder} for good",
                    c,
                    seat_arg("holder", e.holder),
                )
            if e.to == "hand":
                return describe("card_back_to_hand", "{card} goes back to {player}'s hand", c, p)
            return describe("card_discarded_after_play", "{card} goes to the discard pile", c, internal=True)
        if isinstance(e, SymbolDone):
            what = "the scroll" if e.symbol == "S" else symbol_text(e.symbol)
            return describe(
                "symbol_skipped" if e.skipped else "symbol_done",
                "{player} skips {symbol} of {card}" if e.skipped else "{player} does {symbol} of {card}",
                seat_arg("player", e.player),
                arg("symbol", f"“{what}”"),
                card("card", e.card),
                internal=not e.skipped,
            )
        if isinstance(e, StackSet):
            return describe(
                "stack_set",
                "The pending steps change ({count} left)",
                arg("count", len(e.stack)),
                internal=True,
            )
        if isinstance(e, MinionPlaced):
            template = "{owner} places a minion in {area}" if e.owner >= 0 else "{owner} arrives in {area}"
            args = [_owner_arg("owner", e.owner, start=True), area("area", e.area)]
            if e.from_area:
                template += " (taken off {from_area})"
                args.append(area("from_area", e.from_area))
            if e.quiet:
                template += " without trouble"
            if e.trouble:
                template += "; trouble breaks out there"
            key = "minion_placed" if e.owner >= 0 else ("troll_arrived" if e.owner == -1 else "demon_arrived")
            return describe(key, template, *args)
        if isinstance(e, MinionRemoved):
            whose = "{owner}'s minion" if e.owner >= 0 else "{owner}"
            if e.by >= 0 and e.by != e.owner:
                return describe(
                    "minion_removed",
                    "{by} removes " + whose + " from {area}",
                    seat_arg("by", e.by),
                    _owner_arg("owner", e.owner),
                    area("area", e.area),
                )
            return describe(
                "minion_removed",
                whose + " is removed from {area}",
                _owner_arg("owner", e.owner, start=True),
                area("area", e.area),
            )
        if isinstance(e, MinionMoved):
            whose = "{owner}'s minion" if e.owner >= 0 else "{owner}"
            template = (
                whose
                + " moves from {from_area} to {area}"
                + ("; trouble breaks out there" if e.trouble else "")
            )
            return describe(
                "minion_moved",
                template,
                _owner_arg("owner", e.owner, start=True),
                area("from_area", e.from_area),
                area("area", e.area),
            )
        if isinstance(e, TroublePlaced):
            return describe("trouble_placed", "A trouble marker is placed in {area}", area("area", e.area))
        if isinstance(e, TroubleRemoved):
            return describe(
                "trouble_removed", "The trouble marker in {area} is removed", area("area", e.area)
            )
        if isinstance(e, BuildingPlaced):
            args = [seat_arg("player", e.player), area("area", e.area), arg("cost", f"${e.cost}")]
            if e.paid_to != BANK:
                args.append(seat_arg("paid_to", e.paid_to))
                return describe(
                    "building_taken_over",
                    "{player} takes over the building in {area}, paying {paid_to} {cost}",
                    *args,
                )
            template = "{player} places a building in {area} for {cost}"
            if e.from_area:
                template += " (moved from {from_area})"
                args.append(area("from_area", e.from_area))
            return describe("building_placed", template, *args)
        if isinstance(e, BuildingRemoved):
            return describe(
                "building_removed",
                "{owner}'s building in {area} is removed",
                seat_arg("owner", e.owner),
                area("area", e.area),
            )
        if isinstance(e, Paid):
            amount = arg("amount", f"${e.amount}")
            if e.payer == BANK:
                return describe(
                    "money_taken", "{payee} takes {amount} from the bank", seat_arg("payee", e.payee), amount
                )
            if e.payee == BANK:
                return describe(
                    "money_paid", "{payer} pays {amount} to the bank", seat_arg("payer", e.payer), amount
                )
            return describe(
                "money_given",
                "{payer} pays {amount} to {payee}",
                seat_arg("payer", e.payer),
                amount,
                seat_arg("payee", e.payee),
            )
        if isinstance(e, CardsDrawn):
            p = seat_arg("player", e.player)
            count = arg("count", e.count)
            noun = "card" if e.count == 1 else "cards"
            if e.cards:
                slots, args = _cards_args(n, e.cards)
                return describe(
                    "cards_drawn", "{player} draws {count} " + noun + ": " + slots, p, count, *args
                )
            return describe("cards_drawn", "{player} draws {count} " + noun, p, count)
        if isinstance(e, DiscardDrawn):
            slots, args = _cards_args(n, e.cards)
            return describe(
                "discard_drawn",
                "{player} draws from the discard pile: " + slots,
                seat_arg("player", e.player),
                *args,
            )
        if isinstance(e, CardDiscarded):
            return describe(
                "card_discarded",
                "{player} discards {card}",
                seat_arg("player", e.player),
                card("card", e.card),
            )
        if isinstance(e, CardsGiven):
            g, r = seat_arg("giver", e.giver), seat_arg("receiver", e.receiver)
            if e.cards:
                slots, args = _cards_args(n, e.cards)
                return describe("cards_given", "{giver} gives " + slots + " to {receiver}", g, r, *args)
            noun = "a card" if e.count == 1 else f"{e.count} cards"
            return describe("cards_given", "{giver} gives " + noun + " to {receiver}", g, r)
        if isinstance(e, CardsTaken):
            t, v, c = seat_arg("taker", e.taker), seat_arg("victim", e.victim), arg("count", e.count)
            template = "{taker} takes {count} cards at random from {victim}'s hand"
            if e.cards:
                slots, args = _cards_args(n, e.cards)
                return describe("cards_taken", template + ": " + slots, t, c, v, *args)
            return describe("cards_taken", template, t, c, v)
        if isinstance(e, HandsSwapped):
            return describe(
                "hands_swapped",
                "{first} and {second} swap hands",
                seat_arg("first", e.first),
                seat_arg("second", e.second),
            )
        if isinstance(e, HandShown):
            o, v = seat_arg("owner", e.owner), seat_arg("viewer", e.viewer)
            if e.cards:
                slots, args = _cards_args(n, e.cards)
                return describe("hand_shown", "{owner} shows their hand to {viewer}: " + slots, o, v, *args)
            return describe("hand_shown", "{owner} shows their hand to {viewer}", o, v)
        if isinstance(e, DeckDiscarded):
            slots, args = _cards_args(n, e.cards)
            return describe("deck_discarded", "The top cards of the draw pile are discarded: " + slots, *args)
        if isinstance(e, EventDrawn):
            info = n.events.get(e.event)
            return describe(
                "event_drawn",
                "{player} draws the random event {event}",
                seat_arg("player", e.player),
                arg("event", info.name if info else e.event, "event", e.event),
            )
        if isinstance(e, DieRolled):
            return _die(n, e, area)
        if isinstance(e, CityCardLost):
            return describe(
                "city_card_lost", "The City Area card of {area} is set aside for good", area("area", e.area)
            )
        if isinstance(e, AbilityUsed):
            return describe(
                "ability_used",
                "{player} uses the City Area card of {area}",
                seat_arg("player", e.player),
                area("area", e.area),
            )
        if isinstance(e, PersonalitySwapped):
            p = seat_arg("player", e.player)
            if e.old and e.new:
                return describe(
                    "personality_swapped",
                    "{player} swaps {old} for the unused personality {new}",
                    p,
                    arg("old", n.personality.get(e.old, e.old), "personality", e.old),
                    arg("new", n.personality.get(e.new, e.new), "personality", e.new),
                )
            return describe("personality_swapped", "{player} swaps their personality for an unused one", p)
        if isinstance(e, PersonalitiesSeen):
            p, c = seat_arg("player", e.player), arg("count", e.count)
            if e.cards:
                slots, args = _cards_args(n, e.cards, "personality")
                return describe(
                    "personalities_seen",
                    "{player} looks at {count} unused personalities: " + slots,
                    p,
                    c,
                    *args,
                )
            return describe("personalities_seen", "{player} looks at {count} unused personalities", p, c)
        if isinstance(e, Interrupted):
            p = seat_arg("player", e.player)
            stopped = arg("what", _WHAT_STOPPED.get(e.what, e.what.replace("_", " ")))
            if e.card == SMALL_GODS_ID:
                answer = arg("by", f"{n.small_gods} (City Area card)", "reaction", e.card)
                return describe(
                    "small_gods_used", "{player} pays $3 with {by} to ignore {what}", p, answer, stopped
                )
            answer = arg("by", n.card_name(e.card), "reaction", e.card)
            played = n.cards.get(e.card)
            if played is not None and played.interrupt == "relocate":
                template = "{player} answers {what} with {by}: the minion will be placed again"
                return describe("interrupted", template, p, stopped, answer)
            if played is not None and played.interrupt == "mossy":
                template = "{player} ends their turn with {by}, keeping the card played"
                return describe("interrupted", template, p, answer)
            return describe("interrupted", "{player} stops {what} with {by}", p, stopped, answer)
        if isinstance(e, RngAdvanced):
            return describe("rng_advanced", "The random generator moves on", internal=True)
        if isinstance(e, GameEnded):
            slots, args = _seats("winner", e.winners)
            reason = arg("reason", _END_REASON.get(e.reason, e.reason.replace("_", " ")))
            verb = " wins" if len(e.winners) == 1 else " win"
            return describe("game_ended", "The game ends ({reason}): " + slots + verb, reason, *args)
        return describe(str(type(e).__struct_config__.tag), type(e).__name__)

    return description


def _die(n: Names, e: DieRolled, area: Any) -> Description:
    p = seat_arg("player", e.player)
    value = arg("value", e.value)
    reason = e.reason
    if reason in n.cards and n.cards[reason].effect == "gamble":
        return describe(
            "die_rolled",
            "{player} rolls {value} for {card}",
            p,
            value,
            arg("card", n.card_name(reason), "card", reason),
        )
    info = n.events.get(reason) or n.event_by_effect.get(reason)
    if info is not None:
        source = arg("cause", info.name, "event", info.id)
    elif reason in n.cards:
        source = arg("cause", n.card_name(reason), "card", reason)
    else:
        source = arg("cause", reason.replace("_", " "))
    return describe(
        "die_rolled", "{player} rolls {value} ({area}) for {cause}", p, value, area("area", e.value), source
    )
