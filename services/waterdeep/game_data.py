"""Lords of Waterdeep's components for its game data (GetGameData): every card, building and place by
kind and id with a name a person reads (services/kernel/gamedata.py has the shapes)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from services.kernel.gamedata import Built, Component, Deck, DeckPart, count_text, title_words, words

_RESOURCES = (("c", "cleric"), ("f", "fighter"), ("r", "rogue"), ("w", "wizard"))


def _resources(r: Any) -> str:
    parts = [count_text(getattr(r, key), name) for key, name in _RESOURCES if getattr(r, key, 0)]
    for key, label in (("gold", "gold"), ("vp", "VP"), ("intrigue", "intrigue card")):
        n = getattr(r, key, 0)
        if n:
            parts.append(f"{n} {label}" if key != "intrigue" else count_text(n, label))
    return ", ".join(parts)


_OP_TEXT = {
    "reset_inn": "discard the quests at Cliffwatch Inn and deal 4 new ones",
    "first_player": "take the First Player marker",
    "buy_building": "buy a building from Builder's Hall",
    "ambassador": "take the Ambassador",
    "copy_space": "use the action of a space holding an opponent's agent",
    "gold_per_building": "take 1 gold per building in play",
}


def _effect_text(e: Any) -> str:
    amounts = _resources(e)
    if e.op == "gain":
        return f"take {amounts}"
    if e.op == "choose_cubes":
        return f"take {e.n} of {', '.join(e.types) or 'any adventurers'}"
    if e.op == "take_stock":
        return "take what lies on this building"
    if e.op == "inn_quest":
        return "take a quest from Cliffwatch Inn"
    if e.op == "play_intrigue":
        return "play an intrigue card"
    if e.op == "draw_quest":
        return "draw a quest"
    if e.op in _OP_TEXT:
        return _OP_TEXT[e.op]
    extra = f" ({amounts})" if amounts else (f" ({e.n})" if e.n else "")
    return words(e.op) + extra


def _effects(effects: Iterable[Any]) -> str:
    return "; ".join(_effect_text(e) for e in effects)


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
    components = [Component("resource", name, title_words(name)) for _, name in _RESOURCES]
    components += [
        Component("space", s.id, s.name, text=_effects(s.action), source=s.source) for s in catalog.spaces
    ]
    components += [
        Component(
            "building",
            t.id,
            t.name,
            text=f"costs {t.cost} gold; visitor: {_effects(t.action)}; owner: {_effects(t.owner)}",
            values={"cost": t.cost},
            source=t.source,
        )
        for t in catalog.buildings
    ]
    for q in catalog.quests:
        text = f"needs {_resources(q.requires)}; reward {_resources(q.reward)}"
        if q.plot:
            text += f"; plot: {_effects(q.plot)}"
        if q.extra:
            text += f"; also: {_effects(q.extra)}"
        components.append(
            Component(
                "quest",
                q.id,
                q.name,
                text=text,
                values={"type": q.type, "vp": q.reward.vp, "plot": bool(q.plot)},
                source=q.source,
            )
        )
    components += [
        Component(
            "intrigue",
            i.id,
            i.name,
            text=f"{words(i.type)}: {_effects(i.effect)}",
            values={"type": i.type},
            count=i.copies,
            source=i.source,
        )
        for i in catalog.intrigues
    ]
    for lord in catalog.lords:
        if lord.quest_types:
            text = f"{lord.vp_per_quest} VP per {' and '.join(lord.quest_types)} quest completed"
        else:
            text = f"{lord.vp_per_building} VP per building owned"
        components.append(Component("lord", lord.id, lord.name, text=text, source=lord.source))
    components += _engine_ids(catalog)
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


QUEST_TYPE_NAMES = {
    "arcana": "Arcana",
    "commerce": "Commerce",
    "piety": "Piety",
    "skullduggery": "Skullduggery",
    "warfare": "Warfare",
}
# "" in an id field means "none" (an empty slot, a card the viewer cannot see): the kernel and
# clients read it as nothing there (services/kernel/present.py; docs/rules/waterdeep.md).


def _engine_ids(catalog: Any) -> list[Component]:
    """Components for every id the engine uses beyond the data file's entries: the copies of
    intrigue cards ("ambush.2", also as quests for the Mandatory Quests), each tile's action
    space, quest types, decks, the neutral pieces, the Hall and Inn positions and the empty id."""
    out: list[Component] = []
    mandatory = {q.id for q in catalog.quests if q.type == "mandatory"}
    for i in catalog.intrigues:
        for k in range(1, i.copies + 1):
            copy = f"{i.id}.{k}"
            values = {"card": i.id, "copy": k}
            out.append(
                Component("intrigue_copy", copy, i.name, text=f"copy {k} of {i.copies}", values=values)
            )
            if i.id in mandatory:
                out.append(
                    Component("quest", copy, i.name, text="Mandatory Quest (intrigue card)", values=values)
                )
    out += [
        Component("space", t.id, t.name, text=f"the action space of the Building tile {t.name}")
        for t in catalog.buildings
    ]
    out += [Component("quest_type", t, name) for t, name in QUEST_TYPE_NAMES.items()]
    out.append(Component("quest_type", "mandatory", "Mandatory Quest", text="no quest type"))
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
