"""Ys's components for its game data (GetGameData): every card, building and place by
kind and id with a name a person reads (services/kernel/gamedata.py has the shapes)."""

from __future__ import annotations

from typing import Any

from services.kernel.gamedata import Built, Component, Deck, DeckPart, words


def components(catalog: Any) -> Built:
    kinds = {"ship": "ship card", "character": "character card"}
    components = [
        Component(
            "ship",
            s.id,
            f"Ship {s.id[1:] if s.id[:1] == 's' else s.id}",
            text=f"large {s.large} gem; small gems: {', '.join(s.small) or 'none'}",
            values={"large": s.large, "small": list(s.small)},
            stand_in=s.stand_in,
            source=s.source,
        )
        for s in catalog.ships
    ]
    for c in catalog.characters:
        effect = words(c.effect) + (f" ({c.amount})" if c.amount else "")
        components.append(
            Component(
                "character",
                c.id,
                c.name,
                text=f"{effect}; played {words(c.window)}",
                values={"edge": c.edge, "window": c.window, "effect": c.effect, "amount": c.amount},
                stand_in=c.stand_in,
                source=c.source,
            )
        )
    decks = [
        Deck("ships", "Ship cards", tuple(DeckPart("ship", s.id, 1) for s in catalog.ships)),
        Deck(
            "characters",
            "Character cards",
            tuple(DeckPart("character", c.id, 1) for c in catalog.characters),
        ),
    ]
    return kinds, components, decks, {}
