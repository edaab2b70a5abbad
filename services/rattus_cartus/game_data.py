"""Rattus Cartus's components for its game data (GetGameData): every card, building and place by
kind and id with a name a person reads (services/kernel/gamedata.py has the shapes).

The name tables here are static (the 12 buildings, 6 classes and the card kinds are fixed by the
rules, model.py), so `present.py` labels decisions and events from them without a catalog.
"""

from __future__ import annotations

from typing import Any

from services.kernel.gamedata import Built, Component, Deck, DeckPart, count_text, title_words
from services.kernel.present import ScoreSheet
from services.rattus_cartus.model import BUILDING_CLASS, CLASSES, SUPPLY_KINDS

# -- name tables (English names: docs/rules/rattus_cartus.md "Names used by clients") ----------

CLASS_NAMES: dict[str, str] = {klass: title_words(klass) for klass in CLASSES}

BUILDING_NAMES: dict[str, str] = {
    "farm": "Farm",
    "brewery": "Brewery",
    "marketplace": "Marketplace",
    "office": "Office",
    "monastery": "Monastery",
    "hospital": "Hospital",
    "castle": "Castle",
    "guard_tower": "Guard Tower",
    "fortune_tellers_tent": "Fortune-teller's Tent",
    "pipers_hut": "Piper's Hut",
    "palace": "Palace",
    "treasury": "Treasury",
}

# building -> (premium action, standard action) [FS §3].
BUILDING_ACTIONS: dict[str, tuple[str, str]] = {
    "farm": ("draw 4 population cards", "draw 2 population cards"),
    "brewery": (
        "draw 1 population card per influence scored here this round",
        "draw 1 population card per 2 influence scored here this round",
    ),
    "marketplace": ("take 2 Jokers", "take 1 Joker"),
    "office": ("take 2 Passes", "take 1 Pass"),
    "monastery": ("discard 2 rats", "discard 1 rat"),
    "hospital": (
        "discard 1 rat, then up to 3 cards from your hand for 1 rat each",
        "discard up to 2 cards from your hand for 1 rat each",
    ),
    "castle": ("take 2 Swords", "take 1 Sword"),
    "guard_tower": (
        "every player outside a Guard Tower with at least as many cards in hand gives you 3 cards",
        "no action, but protection from every Guard Tower's premium action this round",
    ),
    "fortune_tellers_tent": ("look at 2 Nun-row cards", "look at 1 Nun-row card"),
    "pipers_hut": ("take 2 Flutes", "take 1 Flute"),
    "palace": ("take 2 victory-point tokens", "take 1 victory-point token"),
    "treasury": ("take 2 Gold cards", "take 1 Gold card"),
}
FINAL_ROUND_BONUS = "final_round_bonus"
FINAL_ROUND_BONUS_NAME = "Final-round bonus"
FINAL_ROUND_BONUS_TEXT = (
    "last round: no actions; the premium holder gains 1 influence in the building's class"
)

# special card / supply item -> (name, plural)
SPECIAL_NAMES: dict[str, tuple[str, str]] = {
    "joker": ("Joker", "Jokers"),
    "sword": ("Sword", "Swords"),
    "flute": ("Flute", "Flutes"),
    "pass": ("Pass", "Passes"),
    "gold": ("Gold", "Gold cards"),
    "vp_token": ("Victory-point token", "victory-point tokens"),
}
# The cards among the supply items (a victory-point token is not a card).
SPECIAL_CARDS: tuple[str, ...] = tuple(k for k in SUPPLY_KINDS if k != "vp_token")

PHASE_NAMES: dict[str, tuple[str, str]] = {
    "draw": ("A. Draw buildings", "this round's building cards are turned up"),
    "supplies": ("B. Supplies", "everyone carries out the supply action of one revealed building card"),
    "enter": (
        "C. Enter buildings",
        "in turn each player puts a disc on a building and plays cards face down",
    ),
    "resolve": (
        "D. Resolve buildings",
        "the buildings resolve in row order: influence, rats, duels, actions",
    ),
    "over": ("Game over", "the last round is played; the game is scored"),
}

NUN_ROW_SIZE = 5
ORDINALS = ("1st", "2nd", "3rd", "4th", "5th")
# This round's building cards lie in a row of 2 (2-3 players) or 3 (4-5 players).
ROW_SLOTS = 3


# What the score means (docs/rules/rattus_cartus.md, "Score") [FS §7].
SCORE = ScoreSheet(
    during_play=(
        "Points so far from what everyone can see: the influence awards as the tracks stand "
        "(10, 5 and 2 a class) and the victory-point tokens. At the end the hand, Sword, Flute and "
        "Pass majorities and Gold are added, then the plague check."
    ),
    breakdown={
        **{f"influence_{k}": f"Influence: {name}" for k, name in CLASS_NAMES.items()},
        "hand_majority": "Most cards in hand",
        "sword_majority": "Most Swords",
        "flute_majority": "Most Flutes",
        "pass_majority": "Most Passes",
        "gold": "Gold",
        "vp_tokens": "Victory-point tokens",
    },
    facts={"rats": "rats", "nuns": "nuns in the Nun-row"},
)


def card_name(card: str) -> str:
    """`church:3` -> `Church (3 nuns)`; `joker` -> `Joker`."""
    klass, colon, nuns = card.partition(":")
    if colon:
        return f"{CLASS_NAMES.get(klass, title_words(klass))} ({count_text(int(nuns), 'nun')})"
    return SPECIAL_NAMES.get(card, (title_words(card), ""))[0]


def nun_position_name(position: int) -> str:
    return f"Nun-row card {position + 1}"


def slot_name(slot: int) -> str:
    return f"{ORDINALS[slot]} building" if 0 <= slot < len(ORDINALS) else f"building {slot + 1}"


def _supply_text(copy: Any) -> str:
    parts = []
    if copy.draw:
        parts.append(f"draw {count_text(copy.draw, 'population card')}")
    if copy.discard_rats:
        parts.append(f"discard {count_text(copy.discard_rats, 'rat')}")
    if copy.look:
        parts.append(f"look at {count_text(copy.look, 'Nun-row card')}")
    return " and ".join(parts) or "nothing"


def supply_text(copy: Any) -> str:
    """A building card's printed supply action in words (`draw 2 population cards and ...`)."""
    return _supply_text(copy)


def population_text(klass: str, nuns: int) -> str:
    """A population card [SEED phase D, "fila de Religiosas"]."""
    name = CLASS_NAMES.get(klass, title_words(klass))
    return (
        f"Play into a building: +1 influence in its class, and 1 rat unless it is a {name} "
        f"building. Shows {count_text(nuns, 'nun')}."
    )


def building_text(b: Any) -> str:
    """A building: its class, its two actions [FS §3] and the supply actions of its cards [FS §4]
    (stand-ins where the printed ones are not public)."""
    premium, standard = BUILDING_ACTIONS[b.id]
    supplies = "; ".join(_supply_text(c) for c in b.copies)
    invented = any("INVENTED" in c.source for c in b.copies)
    label = " (stand-ins: the printed ones are not public)" if invented else ""
    return (
        f"{CLASS_NAMES.get(b.klass, title_words(b.klass))} building. Premium action: {premium}. "
        f"Standard action: {standard}. Supply actions of its cards{label}: {supplies}."
    )


def components(catalog: Any) -> Built:
    kinds = {
        "class": "class of society",
        "building": "building",
        "building_action": "building action",
        "card": "card",
        "special": "supply item",
        "nun_position": "Nun-row position",
        "phase": "phase of a round",
    }
    components: list[Component] = []
    decks: list[Deck] = []
    for klass, nuns in catalog.population.nuns.items():
        components.append(Component("class", klass, CLASS_NAMES.get(klass, title_words(klass))))
        counts: dict[int, int] = {}
        for n in nuns:
            counts[n] = counts.get(n, 0) + 1
        for n, copies in sorted(counts.items()):
            components.append(
                Component(
                    "card",
                    f"{klass}:{n}",
                    card_name(f"{klass}:{n}"),
                    text=population_text(klass, n),
                    values={"class": klass, "nuns": n},
                    count=copies,
                    source=catalog.population.source,
                )
            )
    specials = catalog.specials
    counts_by_kind = {
        "joker": specials.jokers,
        "sword": specials.swords,
        "flute": specials.flutes,
        "pass": specials.passes,
        "gold": specials.gold,
        "vp_token": specials.vp_tokens,
    }
    texts = {
        "joker": (
            "Counts as a population card of the building's class when played into a building; "
            "never gives a rat."
        ),
        "sword": "Played into a building: whoever played the most Swords there takes half the hand "
        "of whoever played the fewest.",
        "flute": "Played into a building: whoever played the most Flutes there passes one of their "
        "rats to whoever played the fewest.",
        "pass": "At the start of your turn in phase C: play it to enter a building later instead of now.",
        "gold": "Never played. Scores at the end for the most and second most Gold, if the Treasury "
        "was in the game.",
        "vp_token": "Worth victory points at the end of the game.",
    }
    for kind in SUPPLY_KINDS:
        components.append(
            Component(
                "special",
                kind,
                SPECIAL_NAMES[kind][0],
                text=texts[kind],
                count=counts_by_kind[kind],
                source=specials.source,
            )
        )
    # The special cards as cards in a hand (kind "card", like the population cards).
    for kind in SPECIAL_CARDS:
        components.append(
            Component(
                "card",
                kind,
                SPECIAL_NAMES[kind][0],
                text=texts[kind],
                values={"special": kind},
                count=counts_by_kind[kind],
                source=specials.source,
            )
        )
    for b in catalog.buildings:
        components.append(
            Component(
                "building",
                b.id,
                b.name or BUILDING_NAMES.get(b.id, title_words(b.id)),
                text=building_text(b),
                values={"class": b.klass, "copies": len(b.copies), "name_es": b.name_es},
                count=len(b.copies),
                stand_in=any("INVENTED" in c.source for c in b.copies),
                source=b.source,
            )
        )
    for building, (premium, standard) in BUILDING_ACTIONS.items():
        components.append(
            Component(
                "building_action",
                building,
                f"{BUILDING_NAMES[building]} action",
                text=f"Premium: {premium}. Standard: {standard}.",
                values={
                    "building": building,
                    "class": BUILDING_CLASS[building],
                    "premium": premium,
                    "standard": standard,
                },
                source="FS §3 (EN p.4, SEED)",
            )
        )
    components.append(
        Component(
            "building_action",
            FINAL_ROUND_BONUS,
            FINAL_ROUND_BONUS_NAME,
            text=FINAL_ROUND_BONUS_TEXT,
            source="SEED phase D, FS §5",
        )
    )
    for position in range(NUN_ROW_SIZE):
        components.append(
            Component(
                "nun_position",
                str(position),
                nun_position_name(position),
                text=(
                    f"the {ORDINALS[position]} face-down card of the Nun-row, from the left "
                    "(the order never changes)"
                ),
                values={"position": position},
            )
        )
    for phase, (name, text) in PHASE_NAMES.items():
        components.append(Component("phase", phase, name, text=text))
    decks.append(
        Deck(
            "population",
            "Population deck",
            tuple(DeckPart("card", c.id, c.count) for c in components if c.kind == "card" and ":" in c.id),
        )
    )
    decks.append(
        Deck(
            "buildings",
            "Building cards",
            tuple(DeckPart("building", b.id, len(b.copies)) for b in catalog.buildings),
        )
    )
    decks.append(
        Deck(
            "supply",
            "General supply",
            tuple(DeckPart("special", kind, counts_by_kind[kind]) for kind in SUPPLY_KINDS),
            text=(
                "Jokers and victory-point tokens always; a special card only if a chosen building "
                "hands it out"
            ),
        )
    )
    return kinds, components, decks, {}
