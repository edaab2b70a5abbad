"""Rattus Cartus's components for its game data (GetGameData): every card, building and place by
kind and id with a name a person reads (services/kernel/gamedata.py has the shapes)."""

from __future__ import annotations

from typing import Any

from services.kernel.gamedata import Built, Component, Deck, DeckPart, count_text, title_words


def _supply_text(copy: Any) -> str:
    parts = []
    if copy.draw:
        parts.append(f"draw {copy.draw}")
    if copy.discard_rats:
        parts.append(f"discard {count_text(copy.discard_rats, 'rat')}")
    if copy.look:
        parts.append(f"look at {count_text(copy.look, 'Nun-row card')}")
    return ", ".join(parts) or "nothing"


def components(catalog: Any) -> Built:
    kinds = {
        "class": "class of society",
        "building": "building",
        "card": "population card",
        "special": "special card",
    }
    components: list[Component] = []
    decks: list[Deck] = []
    for klass, nuns in catalog.population.nuns.items():
        components.append(Component("class", klass, title_words(klass)))
        counts: dict[int, int] = {}
        for n in nuns:
            counts[n] = counts.get(n, 0) + 1
        for n, copies in sorted(counts.items()):
            components.append(
                Component(
                    "card",
                    f"{klass}:{n}",
                    f"{title_words(klass)} ({count_text(n, 'nun')})",
                    text=f"a {klass} population card showing {count_text(n, 'nun')}",
                    values={"class": klass, "nuns": n},
                    count=copies,
                    source=catalog.population.source,
                )
            )
    specials = catalog.specials
    for kind, count, text in (
        ("joker", specials.jokers, "counts as a population card of any class when entering a building"),
        ("sword", specials.swords, "played when entering: a duel for the building's action"),
        ("flute", specials.flutes, "played when entering: lure a rat away"),
        ("pass", specials.passes, "enter a building without playing cards"),
        ("gold", specials.gold, "a gold coin"),
        ("vp_token", specials.vp_tokens, "one victory point"),
    ):
        components.append(
            Component(
                "special",
                kind,
                title_words(kind),
                text=text,
                count=count,
                stand_in=False,
                source=specials.source,
            )
        )
    for b in catalog.buildings:
        supplies = [
            f"copy {n}: {_supply_text(c)}" + (" (stand-in)" if "INVENTED" in c.source else "")
            for n, c in enumerate(b.copies, start=1)
        ]
        components.append(
            Component(
                "building",
                b.id,
                b.name or title_words(b.id),
                text=f"{title_words(b.klass)} building; supply actions: " + "; ".join(supplies),
                values={"class": b.klass, "copies": len(b.copies)},
                count=len(b.copies),
                stand_in=any("INVENTED" in c.source for c in b.copies),
                source=b.source,
            )
        )
    decks.append(
        Deck(
            "population",
            "Population deck",
            tuple(DeckPart("card", c.id, c.count) for c in components if c.kind == "card")
            + tuple(DeckPart("special", "joker", specials.jokers) for _ in (0,) if specials.jokers),
        )
    )
    decks.append(
        Deck(
            "buildings",
            "Building cards",
            tuple(DeckPart("building", b.id, len(b.copies)) for b in catalog.buildings),
        )
    )
    return kinds, components, decks, {}
