"""Discworld: Ankh-Morpork's components for its game data (GetGameData): every card, building and place by
kind and id with a name a person reads (services/kernel/gamedata.py has the shapes)."""

from __future__ import annotations

from typing import Any

from services.kernel.gamedata import Built, Component, Deck, DeckPart, title_words, words

_AM_SYMBOLS = {
    "M": "place a minion",
    "B": "build a building",
    "A": "assassinate",
    "R": "remove a trouble marker",
    "$": "take money",
    "S": "scroll (the card's text)",
    "E": "random event",
    "P": "play another card",
    "I": "interrupt",
}


def _am_card_text(c: Any) -> str:
    steps = []
    for s in c.symbols:
        text = _AM_SYMBOLS.get(s, s)
        if s == "$" and c.amount:
            text = f"take ${c.amount}"
        if s == "S" and c.effect:
            text = words(c.effect) + (f" ({c.amount})" if c.amount else "")
        steps.append(text)
    if c.interrupt:
        steps.append(f"interrupt: {words(c.interrupt)}")
    return "; ".join(steps)


def components(catalog: Any) -> Built:
    kinds = {"area": "area", "card": "card", "event": "random event", "personality": "personality"}
    components = [
        Component(
            "area",
            str(a.number),
            a.name,
            text=f"building costs ${a.cost}; ability: {words(a.ability)}"
            + (f" ({a.amount})" if a.amount else ""),
            values={"cost": a.cost, "adjacent": list(a.adjacent), "river": a.river},
            source=a.source,
        )
        for a in catalog.areas
    ]
    components += [
        Component(
            "card",
            c.id,
            c.name,
            text=_am_card_text(c),
            values={"deck": c.deck, "symbols": list(c.symbols), "two_player": c.two_player},
            count=c.count or 1,
            stand_in=c.stand_in,
            source=c.source,
        )
        for c in catalog.cards
    ]
    components += [
        Component(
            "event",
            e.id,
            e.name,
            text=words(e.effect) + (f" ({e.amount})" if e.amount else ""),
            stand_in=e.stand_in,
            source=e.source,
        )
        for e in catalog.events
    ]
    components += [
        Component(
            "personality",
            p.id,
            p.name,
            text=f"{words(p.goal)}: {p.thresholds[0]}/{p.thresholds[1]}/{p.thresholds[2]} (2/3/4 players)",
            values={"goal": p.goal, "thresholds": list(p.thresholds)},
            stand_in=p.stand_in,
            source=p.source,
        )
        for p in catalog.personalities
    ]
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
