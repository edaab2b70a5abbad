"""Discworld: Ankh-Morpork's components for its game data (GetGameData): every card, building and place by
kind and id with a name a person reads (services/kernel/gamedata.py has the shapes)."""

from __future__ import annotations

from typing import Any

from services.kernel.gamedata import Built, Component, Deck, DeckPart, title_words
from services.kernel.present import ScoreSheet

# What a symbol at the top of a card does, as a short phrase ("$n" takes money).
SYMBOLS = {
    "M": "place a minion",
    "B": "place a building",
    "A": "assassinate a minion in an area with trouble",
    "T": "remove a trouble marker",
    "S": "the scroll text",
    "E": "draw a random event (not optional)",
    "P": "play another card",
    "I": "interrupt",
}

# What a scroll effect primitive does, in words: "{amount}", "{count}", "{area}" from the card.
SCROLL_TEXT = {
    "loan": "take a ${amount} loan from the bank (repay $12 at the end or lose 15 points)",
    "receive_cards": "a player of your choice gives you {count} cards of their choice",
    "tribute": "every other player gives you ${amount} or a card of their choice",
    "trade_card": "give one of your cards to a player of your choice; they give you ${amount}",
    "steal_each": "take ${amount} from every other player",
    "penalty": "a player of your choice pays you ${amount} or takes this card in front of them for good",
    "swap_personality": "swap your personality for a random unused one",
    "flee_trouble": "move one of your minions out of an area with trouble to an adjacent area",
    "gain_per_trouble": "take ${amount} per trouble marker on the board",
    "discard_for_money": "discard any number of cards; take ${amount} for each",
    "discard_one": "discard a card",
    "take_from_player": "take ${amount} from a player of your choice",
    "gain_per_minion_in_area": "take ${amount} per minion in {area}",
    "gamble": "roll the die: 7 or more, {win}; 1, {lose}",
    "draw": "draw {count} cards",
    "draw_from_discard": "draw {count} cards at random from the discard pile",
    "move_other": "move another player's minion to an adjacent area",
    "fire_brigade": "a player of your choice pays you ${amount} or you remove one of their buildings",
    "peek_personalities": "look at all but one of the unused personalities",
    "play_two": "play up to {count} more cards",
    "take_over_calm": (
        "replace another player's building in an area without trouble by yours, paying them its cost"
    ),
    "take_over_troubled": (
        "replace another player's building in an area with trouble by yours, paying them its cost"
    ),
    "build_half": "place a building for half its cost",
    "place_at_building": "place a minion in an area with one of your buildings",
    "place_near": "place {count} minion(s) in {area} or an adjacent area",
    "place_quiet": "place a minion in any area without adding a trouble marker",
    "gain_per_minion_in_trouble": "choose an area with trouble; take ${amount} per minion there",
    "place_in_trouble": "place a minion in an area with trouble",
    "snatch_cards": "take {count} cards at random from a player; keep one, give the other back",
    "gain_per_building": "take ${amount} per building on the board",
    "spread_trouble": "place a trouble marker in an area with a minion next to an area with trouble",
    "draw_per_building": "draw a card per building of yours on the board",
    "place_trouble": "place a trouble marker in an area with a minion",
    "pay_then_move": "pay ${amount} to a player, then move one of your minions to any area",
    "make_pay": "a player of your choice pays ${amount} to another player of your choice",
    "move_own_anywhere": "move one of your minions to any other area",
    "bribe": "pay ${amount} to a player; they remove a minion (not yours) from an area with trouble",
    "remove_in_area": "remove a minion from {area}",
    "swap_minions": "two minions in different areas swap places",
    "inspect_hand": "look at a player's hand and discard one of their cards",
    "random_removals": "roll the die {count} times; each time remove a minion of your choice from that area",
    "swap_hands": "swap hands with a player of your choice",
    "discard_and_refill": "discard up to {count} cards, then refill your hand to five",
    "others_remove_own": "every other player removes one of their own minions",
    "pay_then_assassinate": "pay ${amount} to a player, then assassinate a minion in an area with trouble",
}
GAMBLE_TEXT = {
    "take_from_player": "take ${amount} from a player of your choice",
    "bank": "take ${amount} from the bank",
    "assassinate_trouble": "remove a minion from an area with trouble",
    "remove_own": "remove one of your own minions",
    "pay_or_remove": "pay ${penalty} or remove one of your own minions",
}
INTERRUPT_TEXT = {
    "sonky": "cancel the scroll text of another player's card aimed at you",
    "gaspode": "stop another player's card moving or removing one of your minions",
    "relocate": "when one of your minions is removed, place it again in another area",
    "shield": "stop one of your minions being removed",
    "mossy": "during your turn, end it at once and take the card you were playing back into your hand",
}
ABILITY_TEXT = {
    "place_minion_paid": "pay ${amount}: place a minion here or in an adjacent area",
    "draw_then_discard": "draw a card, then discard a card",
    "income": "take ${amount} from the bank",
    "small_gods": (
        "when a random event hits one of your pieces, pay ${amount} to ignore it (even off your turn)"
    ),
    "discard_for_money": "discard a card: take ${amount}",
    "place_trouble": "place a trouble marker here or in an adjacent area that holds a minion",
    "remove_trouble_paid": "pay ${amount}: remove a trouble marker anywhere",
}
EVENT_TEXT = {
    "dragon": "roll the die: everything in that area is removed",
    "flood": "roll {amount} times: minions in each rolled river area move to an adjacent area",
    "fire": "roll: the building there burns; keep rolling while the roll is next door and holds a building",
    "fog": "the top {amount} cards of the draw pile are discarded",
    "riots": "with {amount} or more trouble markers on the board the game ends on points",
    "explosion": "roll {amount} time(s): the building there is removed",
    "murders": "each player rolls and removes a minion of their choice from that area",
    "demons": "roll {amount} times: a demon (and a trouble marker) arrives in each rolled area",
    "subsidence": "each player pays ${amount} per building or gives up buildings",
    "bsj": "roll: the City Area card there is set aside for good; its owner removes a minion there",
    "trolls": "roll {amount} times: a troll arrives in each rolled area",
    "earthquake": "roll {amount} times: the building in each rolled area is removed",
}
# Whose minion: a seat (0-3), a troll or a demon (model.TROLL, model.DEMON).
OWNER_NAMES = {-2: "a demon", -1: "a troll", 0: "Player 1", 1: "Player 2", 2: "Player 3", 3: "Player 4"}
# What stopped a step (Interrupted.card): an interrupt card or the Small Gods City Area card.
SMALL_GODS_ID = "small_gods"


def _fill(template: str, amount: int = 0, count: int = 0, area: str = "", penalty: int = 0) -> str:
    return (
        template.replace("{amount}", str(amount))
        .replace("{count}", str(count))
        .replace("{area}", area)
        .replace("{penalty}", str(penalty))
    )


def scroll_text(c: Any, area_names: dict[int, str]) -> str:
    """A card's scroll text in words (empty for a card without one)."""
    if not c.effect:
        return ""
    area = area_names.get(c.area, "")
    if c.effect == "gamble":
        win = _fill(GAMBLE_TEXT[c.win], c.amount, c.count, area, c.penalty)
        lose = _fill(GAMBLE_TEXT[c.lose], c.amount, c.count, area, c.penalty)
        return f"roll the die: 7 or more, {win}; 1, {lose}; otherwise nothing"
    return _fill(SCROLL_TEXT[c.effect], c.amount, c.count, area, c.penalty)


def symbol_text(symbol: str) -> str:
    """A symbol as a phrase: "$3" -> "take $3"."""
    if symbol.startswith("$"):
        return f"take {symbol}"
    return SYMBOLS.get(symbol, symbol)


def ability_text(a: Any) -> str:
    return _fill(ABILITY_TEXT[a.ability], a.amount)


def area_text(a: Any) -> str:
    """An area: its number (the die roll that hits it), a building's cost, its City Area card."""
    return f"Area {a.number}. A building here costs ${a.cost}. Its City Area card: {ability_text(a)}."


def event_text(e: Any) -> str:
    return _fill(EVENT_TEXT[e.effect], e.amount)


def _sentence(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:] + "."


def _am_card_text(c: Any, area_names: dict[int, str]) -> str:
    """A player card: its symbols left to right, each a sentence (each optional but the random
    event) [FS 2, "Turn"]; an interrupt card says when it may be played instead."""
    steps = []
    for s in c.symbols:
        if s == "S" and c.effect:
            steps.append("Scroll: " + scroll_text(c, area_names) + ".")
        elif s == "I" and c.interrupt:
            steps.append("Interrupt: " + INTERRUPT_TEXT[c.interrupt] + ".")
        else:
            steps.append(_sentence(symbol_text(s)))
    return " ".join(steps) if steps else "No effect."


# A personality's secret goal, checked at the start of its owner's turn [FS 3.1], as the
# condition after "Win at the start of your turn if"; "{n}" is the threshold.
GOAL_TEXT = {
    "spread": "your minions are in {n} different areas without a demon",
    "control": "you control {n} areas",
    "trouble": "{n} or more trouble markers are on the board",
    "wealth": "your money and your buildings' costs, less $12 per loan, come to ${n} or more",
    "deck_out": "the game ends because the draw pile runs out",
}
# Commander Vimes wins when the game ends, not at the start of a turn [FS 3.1].
DECK_OUT = "deck_out"


def goal_text(p: Any, threshold: int | None = None) -> str:
    """The goal's condition: with `threshold` for one table, else for 2 / 3 / 4 players."""
    if threshold is not None or len(set(p.thresholds)) == 1:
        return GOAL_TEXT[p.goal].replace("{n}", str(p.thresholds[0] if threshold is None else threshold))
    figures = " / ".join(str(t) for t in p.thresholds)
    return GOAL_TEXT[p.goal].replace("{n}", figures) + " (with 2 / 3 / 4 players)"


def personality_text(p: Any, threshold: int | None = None) -> str:
    """The personality card's goal, for 2 / 3 / 4 players or with the `threshold` of one table."""
    if p.goal == DECK_OUT:
        return f"Win if {goal_text(p)}."
    return f"Win at the start of your turn if {goal_text(p, threshold)}."


# What the score means (docs/rules/ankh_morpork.md, "Score") [FS 3.3].
SCORE = ScoreSheet(
    during_play=(
        "Points if the game ended on points now: 5 per minion on the board, each building's cost, "
        "$1 per dollar, less each loan. Each personality's goal is secret: a player may win by it "
        "before the points count."
    ),
    breakdown={
        "minions": "Minions on the board (5 each)",
        "buildings": "Buildings (their area's cost)",
        "money": "Money",
        "loans": "Loans (repaid $12, or -15 points)",
    },
    facts={
        "best_city_card": "best City Area card (breaks ties)",
        "goal_progress": "progress toward the goal",
    },
)


def components(catalog: Any) -> Built:
    kinds = {
        "area": "city area (with its City Area card)",
        "card": "player card",
        "event": "random event",
        "personality": "personality",
        "owner": "minion owner (a player, a troll or a demon)",
        "reaction": "what stops a step (an interrupt card or Small Gods)",
    }
    area_names = {a.number: a.name for a in catalog.areas}
    components = [
        Component(
            "area",
            str(a.number),
            a.name,
            text=area_text(a),
            values={
                "cost": a.cost,
                "adjacent": list(a.adjacent),
                "river": a.river,
                "ability": a.ability,
                "amount": a.amount,
            },
            source=a.source,
        )
        for a in catalog.areas
    ]
    components += [
        Component(
            "card",
            c.id,
            c.name,
            text=_am_card_text(c, area_names),
            values={
                "deck": c.deck,
                "symbols": list(c.symbols),
                "two_player": c.two_player,
                "scroll": scroll_text(c, area_names),
            },
            count=c.count or 1,
            stand_in=c.stand_in,
            source=c.source,
        )
        for c in catalog.cards
    ]
    components += [
        Component("event", e.id, e.name, text=event_text(e), stand_in=e.stand_in, source=e.source)
        for e in catalog.events
    ]
    components += [
        Component(
            "personality",
            p.id,
            p.name,
            text=personality_text(p),
            values={"goal": p.goal, "thresholds": list(p.thresholds)},
            stand_in=p.stand_in,
            source=p.source,
        )
        for p in catalog.personalities
    ]
    components += [
        Component(
            "owner",
            str(owner),
            {-2: "Demon", -1: "Troll"}.get(owner, name),
            text="a neutral piece" if owner < 0 else "the minions of this seat",
            source="SEED Componentes; model.TROLL/DEMON",
        )
        for owner, name in OWNER_NAMES.items()
    ]
    components += [
        Component(
            "reaction",
            c.id,
            c.name,
            text=INTERRUPT_TEXT[c.interrupt],
            source=c.source,
        )
        for c in catalog.cards
        if c.interrupt
    ]
    small_gods = next((a for a in catalog.areas if a.ability == "small_gods"), None)
    if small_gods is not None:
        components.append(
            Component(
                "reaction",
                SMALL_GODS_ID,
                f"{small_gods.name} (City Area card)",
                text=ability_text(small_gods),
                source=small_gods.source,
            )
        )
    decks = [
        Deck(
            deck,
            f"{title_words(deck)}-bordered cards",
            tuple(DeckPart("card", c.id, c.count or 1) for c in catalog.cards if c.deck == deck),
        )
        for deck in ("green", "brown")
    ]
    decks.append(Deck("events", "Random events", tuple(DeckPart("event", e.id, 1) for e in catalog.events)))
    return kinds, components, decks, {"areas": [a.number for a in catalog.areas]}
