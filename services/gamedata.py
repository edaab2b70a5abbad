"""Each game's static data for clients (`GetGameData`): its data file turned into named components,
decks and board facts (services/kernel/gamedata.py has the shapes).

The rules service builds this once at start from the data file it plays with and publishes it in
`Describe` (`game_data`, with the JSON Schema `game_data`); the gateway serves it. Texts are made
from the data's fields, so a replacement data file gets matching texts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from services.kernel.data import data_digest
from services.kernel.gamedata import Component, Deck, DeckPart, GameData, title_words, words
from services.kernel.schema import closed
from services.kernel.spec import GameSpec

Built = tuple[dict[str, str], list[Component], list[Deck], dict[str, Any]]

_RESOURCES = (("c", "cleric"), ("f", "fighter"), ("r", "rogue"), ("w", "wizard"))


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


# -- Rattus Cartus --------------------------------------------------------------------------------


def _supply_text(copy: Any) -> str:
    parts = []
    if copy.draw:
        parts.append(f"draw {copy.draw}")
    if copy.discard_rats:
        parts.append(f"discard {_count(copy.discard_rats, 'rat')}")
    if copy.look:
        parts.append(f"look at {_count(copy.look, 'Nun-row card')}")
    return ", ".join(parts) or "nothing"


def _rattus(catalog: Any) -> Built:
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
                    f"{title_words(klass)} ({_count(n, 'nun')})",
                    text=f"a {klass} population card showing {_count(n, 'nun')}",
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


# -- Ys -------------------------------------------------------------------------------------------


def _ys(catalog: Any) -> Built:
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


# -- Bruges ---------------------------------------------------------------------------------------


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


def _bruges(catalog: Any) -> Built:
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


# -- Discworld: Ankh-Morpork ----------------------------------------------------------------------

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


def _ankh_morpork(catalog: Any) -> Built:
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


# -- Lords of Waterdeep ---------------------------------------------------------------------------


def _resources(r: Any) -> str:
    parts = [_count(getattr(r, key), name) for key, name in _RESOURCES if getattr(r, key, 0)]
    for key, label in (("gold", "gold"), ("vp", "VP"), ("intrigue", "intrigue card")):
        n = getattr(r, key, 0)
        if n:
            parts.append(f"{n} {label}" if key != "intrigue" else _count(n, label))
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


def _waterdeep(catalog: Any) -> Built:
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


BUILDERS: Mapping[str, Callable[[Any], Built]] = {
    "rattus_cartus": _rattus,
    "ys": _ys,
    "bruges": _bruges,
    "ankh_morpork": _ankh_morpork,
    "waterdeep": _waterdeep,
}


def game_data(spec: GameSpec[Any]) -> GameData[Any]:
    """The game's static data document; LookupError for a game with no data (or no builder)."""
    builder = BUILDERS.get(spec.game_id)
    if builder is None or spec.data is None:
        raise LookupError(f"{spec.game_id} publishes no game data")
    kinds, components, decks, boards = builder(spec.data)
    return GameData(
        game_id=spec.game_id,
        title=spec.title,
        version=spec.rules_version,
        data_digest=data_digest(spec.data),
        stand_in=bool(spec.data.stand_in),
        notice=str(spec.data.notice),
        kinds=kinds,
        components=tuple(components),
        decks=tuple(decks),
        boards=boards,
        catalog=spec.data,
    )


def game_data_json(spec: GameSpec[Any]) -> bytes:
    return msgspec.json.encode(game_data(spec))


def game_data_schema(spec: GameSpec[Any]) -> dict[str, Any]:
    """The JSON Schema of the game's document: the shared shape with the game's own catalog
    (closed like every published schema: the document has exactly these fields)."""
    catalog_type = type(spec.data) if spec.data is not None else Any
    schema: dict[str, Any] = closed(msgspec.json.schema(GameData[catalog_type]))  # type: ignore[valid-type]
    return schema
