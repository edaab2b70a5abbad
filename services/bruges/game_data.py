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

from collections.abc import Callable
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
from services.kernel.gamedata import Built, Component, Deck, DeckPart, count_text, title_words
from services.kernel.present import ScoreSheet

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


def house_text(index: int) -> str:
    ordinal = {0: "first", 1: "second", 2: "third"}.get(index, f"number {index + 1}")
    return f"The {ordinal} house you built: a person may live in it, one to a house."


def _houses(colour: str) -> str:
    """`yellow house` / `house` for a colour parameter ("" = any colour)."""
    return f"{colour} house" if colour else "house"


# When a person's ability works, by its icon [FS §7, SEED "Personas"].
WHEN_TEXT: dict[str, str] = {
    "arrow": "Once, when recruited",
    "once_per_round": "Once per round, in your turn",
    "permanent": "Always",
    "laurel": "At the end of the game",
}
# What each effect primitive does (effects.py, primitives.py, scoring.py carry them out).
EFFECT_TEXT: dict[str, Callable[[Any], str]] = {
    "gain_guilders": lambda p: f"take {count_text(p.amount, 'guilder')}",
    "gain_points": lambda p: f"score {count_text(p.amount, 'point')}",
    "gain_workers": lambda p: f"take {count_text(p.amount, p.param_colour + ' worker')}",
    "guilders_per_house": lambda p: (
        f"take {count_text(p.amount, 'guilder')} per {_houses(p.param_colour)} you own"
    ),
    "points_per_house": lambda p: (
        f"score {count_text(p.amount, 'point')} per {_houses(p.param_colour)} you own"
    ),
    "gain_reputation": lambda p: f"move up {count_text(p.amount, 'step')} on the reputation track, for free",
    "draw_cards": lambda p: f"draw {count_text(p.amount, 'card')}",
    "draw_and_discard": lambda p: (
        f"draw {count_text(p.amount, 'card')}, then discard {count_text(p.threshold, 'card')}"
    ),
    "return_threats": lambda p: (
        f"give back {count_text(p.amount, 'threat marker')} of your choice, scoring 1 point "
        + ("for each" if p.amount > 1 else "for it")
    ),
    "opponents_lose_canal": lambda p: (
        f"every other player gives back {count_text(p.amount, 'canal token')} (the outermost)"
    ),
    "opponents_give_workers": lambda p: (
        f"every other player gives you {count_text(p.amount, 'worker')} of their choice "
        "(fewer if they have fewer)"
    ),
    "die_reward": lambda p: (
        f"if the {p.param_colour} die shows {p.threshold} or more, take {count_text(p.amount, 'guilder')}"
    ),
    "extra_play": lambda p: "play one more card this turn",
    "canal_without_card": lambda p: (
        f"build a canal token without a card, paying {p.amount} times the space's cost"
        if p.amount != 1
        else "build a canal token without a card, paying the space's cost"
    ),
    "action_bonus": lambda p: {
        "workers": f"your card action 'Take 2 workers' takes {count_text(p.amount, 'more worker')}",
        "guilders": f"your card action 'Take guilders' takes {count_text(p.amount, 'more guilder')}",
        "threat": f"your card action 'Discard 1 threat marker' also scores {count_text(p.amount, 'point')}",
    }[p.param_action],
    "recruit_discount": lambda p: f"every person you recruit costs {count_text(p.amount, 'guilder')} less",
    "hand_size": lambda p: f"whenever you draw in phase 1, fill your hand up to {p.amount} cards",
    "reputation_points": lambda p: (
        f"whenever you move up on the reputation track, score {count_text(p.amount, 'point')}"
    ),
    "score_points": lambda p: f"score {count_text(p.amount, 'point')}",
    "score_per_workers": lambda p: (
        f"score {count_text(p.amount, 'point')} per {p.threshold} workers you hold"
    ),
    "score_per_group": lambda p: (
        f"score {count_text(p.amount, 'point')} per {title_words(p.param_group)} person in your houses "
        "(this one included)"
    ),
    "score_per_distinct_group": lambda p: (
        f"score {count_text(p.amount, 'point')} per different person group in your houses"
    ),
    "score_per_house": lambda p: (
        f"score {count_text(p.amount, 'point')} per {_houses(p.param_colour)} you own"
    ),
}


def ability_text(p: Any) -> str:
    """What a person does, from its effect primitive and icon: "Pay 1 red worker, in your turn:
    draw 1 card." Triggers ("whenever ...") name their moment themselves."""
    what = EFFECT_TEXT[p.effect](p)
    if p.icon == "trigger":
        return what[:1].upper() + what[1:] + "."
    when = f"Pay 1 {p.worker} worker, in your turn" if p.icon == "worker" else WHEN_TEXT[p.icon]
    return f"{when}: {what}."


def person_text(p: Any) -> str:
    """The person's ability, then a label where it is a stand-in: an invented person's whole card,
    or a real person whose printed text is not public (its effect is not among the verified
    fields). The ability comes first: a card shows the start of its text."""
    ability = ability_text(p)
    if p.stand_in:
        return f"{ability} (Stand-in person: the real card list is not public.)"
    if "effect" not in p.verified:
        return f"{ability} (Stand-in ability: this person's printed text is not public.)"
    if "amount" not in p.verified and p.effect != "extra_play":
        return f"{ability} (The number is a stand-in: the printed one is not public.)"
    return ability


# What the score means (docs/rules/bruges.md, "Score") [FS §8].
SCORE = ScoreSheet(
    during_play=(
        "Points on the scoring track so far (every player starts on 5). At the end each player adds "
        "their persons, houses, laurel persons, majority markers, canals, statues and reputation."
    ),
    breakdown={
        "running": "Scoring track",
        "persons": "Persons' points",
        "houses": "Houses (1 each)",
        "laurels": "Laurel persons",
        "majorities": "Majority markers",
        "canals": "Canal sections reaching space 3 (3 each)",
        "statues": "Statues",
        "reputation": "Reputation step",
    },
    facts={"guilders": "guilders (break ties)"},
)


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
            text=person_text(p),
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
        Component(
            "colour",
            c,
            title_words(c),
            text=(
                f"{title_words(c)} cards, workers, threat markers and die; a third {c} threat marker "
                f"strikes {CALAMITY_NAMES[c]}: {CALAMITY_TEXTS[c]}"
            ),
            values={"calamity": CALAMITY_NAMES[c]},
            source=RULEBOOK,
        )
        for c in COLOURS
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
    components += [
        Component("house_slot", str(i), house_name(i), text=house_text(i), source=ENGINE)
        for i in range(HOUSE_SLOTS)
    ]
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
