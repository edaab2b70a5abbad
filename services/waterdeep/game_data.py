"""Lords of Waterdeep's components for its game data (GetGameData): every card, building and place by
kind and id with a name a person reads (services/kernel/gamedata.py has the shapes)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from services.kernel.gamedata import Built, Component, Deck, DeckPart, title_words
from services.kernel.present import ScoreSheet

_RESOURCES = (("c", "cleric"), ("f", "fighter"), ("r", "rogue"), ("w", "wizard"))
# A resource as the game's texts write it: cubes by their adventurer, gold, victory points.
_UNITS = {
    "c": ("Cleric", "Clerics"),
    "f": ("Fighter", "Fighters"),
    "r": ("Rogue", "Rogues"),
    "w": ("Wizard", "Wizards"),
    "gold": ("Gold", "Gold"),
    "vp": ("VP", "VP"),
    "intrigue": ("Intrigue card", "Intrigue cards"),
}
_CUBE_KEYS = {name: key for key, name in _RESOURCES}


def _amount(n: int, key: str) -> str:
    one, many = _UNITS[key]
    return f"{n} {one if n == 1 else many}"


def _listed(parts: list[str], last: str = "and") -> str:
    """`a`, `a and b`, `a, b and c`."""
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} {last} {parts[-1]}"


def _resources(r: Any) -> str:
    """The cubes, Gold, VP and Intrigue cards `r` names, as a list (`2 Fighters, 4 Gold and 5 VP`)."""
    keys = ("c", "f", "r", "w", "gold", "vp", "intrigue")
    parts = [_amount(getattr(r, key), key) for key in keys if getattr(r, key, 0)]
    return _listed(parts) if parts else ""


def _gain(r: Any) -> str:
    """What taking `r` does: cubes and Gold are taken, Intrigue cards drawn, VP scored."""
    taken = [_amount(getattr(r, k), k) for k in ("c", "f", "r", "w", "gold") if getattr(r, k, 0)]
    parts = [f"take {_listed(taken)}"] if taken else []
    if getattr(r, "intrigue", 0):
        parts.append(f"draw {_amount(r.intrigue, 'intrigue')}")
    if getattr(r, "vp", 0):
        parts.append(f"score {r.vp} VP")
    return _listed(parts)


def _cubes(types: Iterable[str], n: int) -> str:
    """`2 Adventurers of any type`, `1 Fighter or 1 Wizard`, `2 Adventurers, each a Cleric or a Wizard`."""
    kinds = [_CUBE_KEYS[t] for t in types]
    if not kinds or len(kinds) == len(_RESOURCES):
        return f"{n} Adventurer{'s' if n != 1 else ''} of any type"
    if n == 1:
        return _listed([_amount(1, k) for k in kinds], "or")
    return f"{n} Adventurers, each {_listed(['a ' + _UNITS[k][0] for k in kinds], 'or')}"


def _one_cube(types: Iterable[str]) -> str:
    """`1 Wizard`, `1 Fighter or Rogue`."""
    return "1 " + _listed([_UNITS[_CUBE_KEYS[t]][0] for t in types], "or")


def _offered(e: Any) -> str:
    """What an opponent may hand over for VP: Gold, or one cube of the card's type."""
    return f"pay you {_amount(e.gold, 'gold')}" if e.gold else f"give you {_one_cube(e.types)}"


def _favor(choices: Iterable[str]) -> str:
    """`gold=4`, `f=2` ... as `4 Gold, 2 Fighters ...`."""
    return _listed([_amount(int(n), key) for key, _, n in (c.partition("=") for c in choices)], "or")


# What each effect primitive does, in words (catalog.OPS lists them all; a test checks each has one).
OP_TEXT: dict[str, Callable[[Any], str]] = {
    # actions of spaces and buildings
    "gain": _gain,
    "choose_cubes": lambda e: f"take {_cubes(e.types, e.n)}",
    "pay": lambda e: f"pay {_amount(e.gold, 'gold')}",
    "return_cubes": lambda e: f"return {e.n} of your Adventurers to the supply",
    "take_stock": lambda e: "take everything piled on this building",
    "inn_quest": lambda e: "take a face-up quest from Cliffwatch Inn",
    "reset_inn": lambda e: "discard the quests at Cliffwatch Inn and deal 4 new ones",
    "first_player": lambda e: "take the First Player marker",
    "buy_building": lambda e: "buy a Building from Builder's Hall (pay its cost, take its VP tokens)",
    "play_intrigue": lambda e: "play an Intrigue card",
    "ambassador": lambda e: "take the Ambassador: you assign it before anyone else next round",
    "copy_space": lambda e: "use the action of a space that holds an opponent's agent",
    "gold_per_building": lambda e: "take 1 Gold per Building tile in play",
    "heroes_garden": lambda e: (
        f"take a face-up quest from Cliffwatch Inn; complete it at once to score {e.vp} VP more"
    ),
    # intrigue cards
    "attack": lambda e: (
        f"each opponent returns {_one_cube(e.types)} to the supply; for each who cannot, you {_gain(e)}"
    ),
    "opponent_gain": lambda e: f"one opponent of your choice takes {_resources(e)}",
    "each_opponent_chooses": lambda e: f"each opponent takes {_cubes(e.types, e.n)} of their choice",
    "offer": lambda e: f"each opponent may {_offered(e)} to score {e.vp} VP",
    "favor": lambda e: f"take one of: {_favor(e.choices)}",
    "steal": lambda e: "take 1 Adventurer of your choice from an opponent's Tavern",
    "bribe": lambda e: (
        f"pay {_amount(e.gold, 'gold')}, then use the action of a space that holds an opponent's agent"
    ),
    "accelerate": lambda e: (
        "take one of your agents back from Waterdeep Harbor, then assign two agents, one after the other"
    ),
    "bidding_war": lambda e: (
        "draw one quest per player; keep one and pass the rest on, each player keeping one in turn"
    ),
    "change_of_plans": lambda e: (
        f"discard one of your unfinished quests to score {e.vp} VP; "
        f"each opponent may discard one of theirs to score {e.n} VP"
    ),
    "real_estate": lambda e: (
        "discard one of your Buildings with no agent on it, then put a face-up Builder's Hall tile "
        "into play for free"
    ),
    "recall": lambda e: "return one of your assigned agents to your pool",
    "sample_wares": lambda e: (
        "assign an agent from your pool to a face-up Building in Builder's Hall and use its action"
    ),
    "special_assignment": lambda e: (
        "name a quest type; reveal quests until one of that type turns up, keep it and discard the rest"
    ),
    "mandatory": lambda e: "Mandatory Quest: an opponent must complete it before any other quest",
    # a quest's extra reward, once
    "recall_agent": lambda e: "return one of your assigned agents to your pool",
    "draw_quest": lambda e: "draw the top quest of the Quest deck",
    "free_hall_building": lambda e: "put a face-up Builder's Hall tile into play for free",
    "free_stack_building": lambda e: "put the top Building of the stack into play for free",
    "vp_per_building": lambda e: f"score {e.vp} VP per Building tile you control",
    # a plot quest's lasting effect
    "on_gain": lambda e: f"each time an action gives you any {_UNITS[e.when][1]}, also {_gain(e)}",
    "orb": lambda e: (
        "once per round you may assign an agent to a space that already holds an opponent's agent"
    ),
    "type_bonus": lambda e: (
        f"score {e.vp} VP more each time you complete a "
        f"{_listed([QUEST_TYPE_NAMES[t] for t in e.types], 'or')} quest after this one"
    ),
    "buy_vp": lambda e: f"score {e.vp} VP each time you buy a Building",
    "round_cube": lambda e: "at the start of each round take 1 Adventurer of your choice",
    "miracle": lambda e: (
        "once per round, when an action gives you any Clerics, you may swap 1 Fighter, Rogue or "
        "Wizard of yours for 1 Cleric"
    ),
    "intrigue_vp": lambda e: f"score {e.vp} VP each time you play an Intrigue card",
    "lieutenant": lambda e: "the Lieutenant joins your agents",
}


def _sentence(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:] + ("" if phrase.endswith(".") else ".")


def effects_text(effects: Iterable[Any]) -> str:
    """A list of effect primitives as one phrase (`take 2 Fighters; play an Intrigue card`)."""
    return "; ".join(OP_TEXT[e.op](e) for e in effects)


def _stock_text(t: Any) -> str:
    piled = _resources(t.stock)
    verb = "is" if piled.startswith("1 ") and " and " not in piled else "are"
    return f" ({piled} {verb} piled on it when bought and at the start of each round)"


def building_text(t: Any) -> str:
    """A Building tile: cost, what a visitor does, what its owner gets."""
    action = effects_text(t.action) + (_stock_text(t) if any(e.op == "take_stock" for e in t.action) else "")
    return (
        f"Costs {_amount(t.cost, 'gold')}. Visitor: {action}. "
        f"Owner, when another player visits: {effects_text(t.owner)}."
    )


def quest_text(q: Any) -> str:
    """A quest: what it needs, its reward, and any extra reward or lasting (plot) effect."""
    needs = _resources(q.requires)
    reward = _resources(q.reward)
    text = f"Needs {needs}. Reward: {reward or 'nothing at once'}."
    if q.extra:
        text += f" Also: {effects_text(q.extra)}."
    if q.plot:
        text += f" Plot quest, for the rest of the game: {effects_text(q.plot)}."
    if q.type == "mandatory":
        text = "Mandatory Quest, played on you by an opponent: complete it before any other quest. " + text
    return text


def intrigue_text(i: Any, quests: dict[str, Any]) -> str:
    """An Intrigue card; a Mandatory Quest card names the quest it forces."""
    if i.type == "mandatory" and i.id in quests:
        q = quests[i.id]
        return (
            "Mandatory Quest: play it on an opponent, who must complete it before any other quest "
            f"(needs {_resources(q.requires)}; reward {_resources(q.reward)})."
        )
    return f"{title_words(i.type)}. {_sentence(effects_text(i.effect))}"


def lord_text(lord: Any) -> str:
    if lord.quest_types:
        types = _listed([QUEST_TYPE_NAMES[t] for t in lord.quest_types], "or")
        return f"Secret goal: at the end, {lord.vp_per_quest} VP per {types} quest you completed."
    return f"Secret goal: at the end, {lord.vp_per_building} VP per Building you control."


# What the score means (docs/rules/waterdeep.md, "Score") [FACTS 8].
SCORE = ScoreSheet(
    during_play=(
        "Victory points on the scoring track so far. At the end each player adds 1 VP per adventurer, "
        "1 VP per 2 Gold and their Lord's bonus; the Lords stay secret until then."
    ),
    breakdown={
        "quests": "Quests completed",
        "other_play": "Other VP during play",
        "adventurers": "Adventurers left (1 VP each)",
        "gold": "Gold (1 VP per 2)",
        "lord": "Lord's bonus",
    },
    facts={
        "gold": "Gold (breaks ties)",
        "buildings": "Buildings owned",
        "completed_quests": "Quests completed",
    },
)


def components(catalog: Any) -> Built:
    kinds = {
        "space": "action space",
        "building": "building",
        "quest": "quest",
        "intrigue": "intrigue card",
        "lord": "lord",
        "resource": "resource",
        "intrigue_copy": "intrigue card",
        "quest_type": "quest type",
        "deck": "deck",
        "figure": "piece",
        "hall_position": "Builder's Hall position",
        "inn_position": "Cliffwatch Inn position",
    }
    quests = {q.id: q for q in catalog.quests}
    components = [
        Component("resource", name, title_words(name), text=RESOURCE_TEXTS[name], source="FACTS 1")
        for _, name in _RESOURCES
    ]
    components += [
        Component("space", s.id, s.name, text=_sentence(effects_text(s.action)), source=s.source)
        for s in catalog.spaces
    ]
    components += [
        Component(
            "building",
            t.id,
            t.name,
            text=building_text(t),
            values={"cost": t.cost},
            source=t.source,
        )
        for t in catalog.buildings
    ]
    for q in catalog.quests:
        components.append(
            Component(
                "quest",
                q.id,
                q.name,
                text=quest_text(q),
                values={"type": q.type, "vp": q.reward.vp, "plot": bool(q.plot)},
                source=q.source,
            )
        )
    components += [
        Component(
            "intrigue",
            i.id,
            i.name,
            text=intrigue_text(i, quests),
            values={"type": i.type},
            count=i.copies,
            source=i.source,
        )
        for i in catalog.intrigues
    ]
    components += [
        Component("lord", lord.id, lord.name, text=lord_text(lord), source=lord.source)
        for lord in catalog.lords
    ]
    components += _engine_ids(catalog, quests)
    decks = [
        Deck("quests", "Quest deck", tuple(DeckPart("quest", q.id, 1) for q in catalog.quests)),
        Deck(
            "intrigue",
            "Intrigue deck",
            tuple(DeckPart("intrigue", i.id, i.copies) for i in catalog.intrigues),
        ),
        Deck("buildings", "Building stack", tuple(DeckPart("building", t.id, 1) for t in catalog.buildings)),
        Deck("lords", "Lords of Waterdeep", tuple(DeckPart("lord", lord.id, 1) for lord in catalog.lords)),
    ]
    return kinds, components, decks, {}


RESOURCE_TEXTS = {
    name: f"An adventurer ({colour} cube): {kind} quests need the most; each left at the end scores 1 VP."
    for name, colour, kind in (
        ("cleric", "white", "Piety"),
        ("fighter", "orange", "Warfare"),
        ("rogue", "black", "Skullduggery"),
        ("wizard", "purple", "Arcana"),
    )
}
QUEST_TYPE_NAMES: dict[str, str] = {
    "arcana": "Arcana",
    "commerce": "Commerce",
    "piety": "Piety",
    "skullduggery": "Skullduggery",
    "warfare": "Warfare",
}
# What each type's quests mostly need [FACTS 6]; the type matters for Lords and plot quests.
QUEST_TYPE_TEXTS = {
    "arcana": "Arcana quests mostly need Wizards.",
    "commerce": "Commerce quests need Gold beside adventurers of any type.",
    "piety": "Piety quests mostly need Clerics.",
    "skullduggery": "Skullduggery quests mostly need Rogues.",
    "warfare": "Warfare quests mostly need Fighters.",
}
# "" in an id field means "none" (an empty slot, a card the viewer cannot see): the kernel and
# clients read it as nothing there (services/kernel/present.py; docs/rules/waterdeep.md).


def _engine_ids(catalog: Any, quests: dict[str, Any]) -> list[Component]:
    """Components for every id the engine uses beyond the data file's entries: the copies of
    intrigue cards ("ambush.2", also as quests for the Mandatory Quests), each tile's action
    space, quest types, decks, the neutral pieces, the Hall and Inn positions and the empty id."""
    out: list[Component] = []
    mandatory = {q.id for q in catalog.quests if q.type == "mandatory"}
    for i in catalog.intrigues:
        # A copy reads as its card: the copy number only tells the cards in a hand apart.
        text = intrigue_text(i, quests)
        for k in range(1, i.copies + 1):
            copy = f"{i.id}.{k}"
            values = {"card": i.id, "copy": k, "copies": i.copies}
            out.append(Component("intrigue_copy", copy, i.name, text=text, values=values))
            if i.id in mandatory:
                out.append(Component("quest", copy, i.name, text=quest_text(quests[i.id]), values=values))
    out += [
        Component("space", t.id, t.name, text=_sentence(effects_text(t.action))) for t in catalog.buildings
    ]
    out += [
        Component("quest_type", t, name, text=QUEST_TYPE_TEXTS[t], source="FACTS 6")
        for t, name in QUEST_TYPE_NAMES.items()
    ]
    out.append(
        Component(
            "quest_type",
            "mandatory",
            "Mandatory Quest",
            text="Played on you by an opponent's Intrigue card; it has no quest type of its own.",
            source="FACTS 6.1",
        )
    )
    out.append(Component("deck", "quest", "Quest deck", values={"place": "quest_deck"}))
    out.append(Component("deck", "intrigue", "Intrigue deck", values={"place": "intrigue_deck"}))
    out += [
        Component("figure", "ambassador", "Ambassador", text="neutral agent from The Palace of Waterdeep"),
        Component("figure", "lieutenant", "Lieutenant", text="neutral agent from Recruit Lieutenant"),
        Component("figure", "first_player", "First Player marker", text="taken at Castle Waterdeep"),
    ]
    out += [
        Component(
            "hall_position",
            str(k),
            f"Builder's Hall, tile {k + 1}",
            values={"place": f"builders_hall.{k + 1}"},
        )
        for k in range(3)
    ]
    out += [
        Component(
            "inn_position",
            str(k),
            f"Cliffwatch Inn, quest {k + 1}",
            values={"place": f"cliffwatch_inn.{k + 1}"},
        )
        for k in range(4)
    ]
    out.append(Component("inn_position", "-2", "the revealed quests", text="Bidding War"))
    return out
