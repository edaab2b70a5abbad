"""Bruges's components for its game data (GetGameData): every card, building and place by
kind and id with a name a person reads (services/kernel/gamedata.py has the shapes)."""

from __future__ import annotations

from typing import Any

from services.kernel.gamedata import Built, Component, Deck, DeckPart, title_words, words


def _person_text(p: Any) -> str:
    effect = words(p.effect)
    params = [
        str(v)
        for v in (
            p.amount or "",
            p.param_colour,
            p.param_group,
            words(p.param_action),
            p.threshold or "",
        )
        if v not in ("", 0)
    ]
    when = {
        "arrow": "once, when recruited",
        "laurel": "at the end of the game",
        "once_per_round": "once per round",
        "permanent": "always",
        "trigger": "when it happens",
        "worker": f"each use costs a {p.worker} worker",
    }.get(p.icon, words(p.icon))
    return f"{effect}{(' ' + ' '.join(params)) if params else ''} ({when})"


def components(catalog: Any) -> Built:
    kinds = {"person": "person card", "colour": "colour"}
    components = [
        Component(
            "person",
            str(p.id),
            p.name,
            text=_person_text(p),
            values={
                "colour": p.colour,
                "price": p.price,
                "points": p.points,
                "group": p.group,
                "icon": p.icon,
            },
            stand_in=p.stand_in or len(p.verified) < 4,
            source=p.source,
        )
        for p in catalog.persons
    ]
    colours = sorted({p.colour for p in catalog.persons})
    components += [Component("colour", c, title_words(c)) for c in colours]
    persons = tuple(DeckPart("person", str(p.id), 1) for p in catalog.persons)
    decks = [Deck("persons", "Person cards", persons)]
    board = catalog.board
    boards = {
        "reputation_points": list(board.reputation_points),
        "canal_costs": list(board.canal_costs),
        "statues": list(board.statues),
        "guard_houses": [{"left": list(g.left), "right": list(g.right)} for g in board.guard_houses],
        "stand_in": board.stand_in,
        "source": board.source,
    }
    return kinds, components, decks, boards
