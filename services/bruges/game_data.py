"""Bruges's components for its game data (GetGameData): every card, building and place by
kind and id with a name a person reads (services/kernel/gamedata.py has the shapes).

Besides the 165 person cards and the five colours, the engine's small vocabularies are
components too, so every id a client receives has a name (docs/rules/bruges.md, "Names used by
clients"): the six card actions, the five calamities (by the colour that strikes them), the
phases, the tasks a seat may owe, the three majorities, the eleven person groups, the two draw
piles (0, 1), the two canal sections of a guard house (0 left, 1 right) and a seat's houses by
their position in the order built (0 = the first house).
"""

from __future__ import annotations

from typing import Any

from services.bruges.model import (
    CALAMITY,
    CARD_ACTIONS,
    COLOURS,
    DRAW,
    GROUPS,
    MAJORITIES,
    OVER,
    PLAY,
    REPUTATION,
    T_CANAL,
    T_DISCARD,
    T_DRAW,
    T_FIRE,
    T_GIVE,
    T_PLAGUE,
    T_THREAT,
)
from services.kernel.gamedata import Built, Component, Deck, DeckPart, title_words, words

RULEBOOK = "Z-Man English rulebook via shared/rules/bruges.md"
ENGINE = "ENGINE name (docs/rules/bruges.md, Names used by clients)"

# The six actions of a card's banner [FS §3, SEED "Fase 3"].
ACTION_NAMES: dict[str, str] = {
    "workers": "Take 2 workers",
    "guilders": "Take guilders",
    "threat": "Discard 1 threat marker",
    "canal": "Build 1 canal token",
    "house": "Build 1 house",
    "recruit": "Recruit 1 person",
}
ACTION_TEXTS: dict[str, str] = {
    "workers": "Discard the card: take 2 workers of its colour.",
    "guilders": "Discard the card: take as many guilders as the die of its colour shows.",
    "threat": "Discard the card: give back 1 threat marker of its colour and score 1 point.",
    "canal": "Discard a card of the space's colour and pay the guilders printed on the space.",
    "house": "Place the card face down as a house, paying 1 worker of its colour.",
    "recruit": "Place the card on an empty house, paying the person's price.",
}
# The calamity a third threat marker of a colour strikes [FS §5].
CALAMITY_NAMES: dict[str, str] = {
    "blue": "Flood",
    "brown": "Plague",
    "red": "Fire",
    "purple": "Intrigue",
    "yellow": "Raid",
}
CALAMITY_TEXTS: dict[str, str] = {
    "blue": "Give back all your workers.",
    "brown": "Discard one person of your choice from your houses; the house stays.",
    "red": "Discard one house (its person goes back to your hand) or the outermost token of a canal section.",
    "purple": "Lose 3 points (never below 0).",
    "yellow": "Give back all your guilders.",
}
PHASE_NAMES: dict[str, str] = {
    DRAW: "Phase 1: draw cards",
    CALAMITY: "Phase 2: calamities",
    REPUTATION: "Phase 2: reputation",
    PLAY: "Phase 3: play cards",
    OVER: "Game over",
}
TASK_NAMES: dict[str, str] = {
    T_DRAW: "Draw a card",
    T_DISCARD: "Discard a card",
    T_THREAT: "Give back a threat marker",
    T_GIVE: "Give a worker",
    T_CANAL: "Give back a canal token",
    T_PLAGUE: "Plague: lose a person",
    T_FIRE: "Fire: lose a house or a canal token",
}
MAJORITY_NAMES: dict[str, str] = {
    "reputation": "Reputation majority",
    "people": "People majority",
    "canals": "Canal majority",
}
PILE_NAMES = ("Draw pile 1", "Draw pile 2")
SECTION_NAMES = ("Left canal section", "Right canal section")
# A seat's houses are numbered in the order built; no seat can build more houses than cards.
HOUSE_SLOTS = 165


def house_name(index: int) -> str:
    return f"House {index + 1}"


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
    kinds = {
        "person": "person card",
        "colour": "colour",
        "card_action": "card action",
        "calamity": "calamity",
        "phase": "phase",
        "task": "pending decision",
        "majority": "majority marker",
        "group": "person group",
        "draw_pile": "draw pile",
        "canal_section": "canal section",
        "house_slot": "house (in the order built)",
    }
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
    components += [
        Component("colour", c, title_words(c), values={"calamity": CALAMITY_NAMES[c]}) for c in COLOURS
    ]
    components += [
        Component("card_action", a, ACTION_NAMES[a], text=ACTION_TEXTS[a], source=RULEBOOK)
        for a in CARD_ACTIONS
    ]
    components += [
        Component(
            "calamity", c, CALAMITY_NAMES[c], text=CALAMITY_TEXTS[c], values={"colour": c}, source=RULEBOOK
        )
        for c in COLOURS
    ]
    components += [Component("phase", k, v, source=RULEBOOK) for k, v in PHASE_NAMES.items()]
    components += [Component("task", k, v, source=ENGINE) for k, v in TASK_NAMES.items()]
    components += [
        Component("majority", k, MAJORITY_NAMES[k], values={"points": 4}, source=RULEBOOK) for k in MAJORITIES
    ]
    components += [Component("group", g, title_words(g), source=RULEBOOK) for g in GROUPS]
    components += [
        Component("draw_pile", str(i), name, values={"place": f"pile.{i}"}, source=ENGINE)
        for i, name in enumerate(PILE_NAMES)
    ]
    components += [
        Component("canal_section", str(i), name, values={"side": ("left", "right")[i]}, source=ENGINE)
        for i, name in enumerate(SECTION_NAMES)
    ]
    components += [Component("house_slot", str(i), house_name(i), source=ENGINE) for i in range(HOUSE_SLOTS)]
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
