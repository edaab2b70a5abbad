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
