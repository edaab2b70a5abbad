"""Views, actions and events as a person reads them in a terminal (rich), per game, with a
generic layout for games without their own. Every id the game's published data names (cards,
persons, buildings, ships, areas, quests, ...) is shown by its name: pass the game's `Names`
(guildhall_client/names.py, built from `AsyncClient.game_data`); without one, ids stay ids."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from guildhall_client.names import Names

Renderer = Callable[[Mapping[str, Any], int | None, Names], RenderableType]

_NO_NAMES = Names()


def describe_action(action: Mapping[str, Any], names: Names | None = None) -> str:
    """One line: the action type in words, then its fields, ids named
    (`play card  card=Chivalry (3 nuns)`)."""
    names = names or _NO_NAMES
    if not isinstance(action, Mapping):
        return names.value(action)
    kind = str(action.get("type", "?"))
    return f"{kind.replace('_', ' ')}  {names.fields(action)}".rstrip()


def event_line(
    event: Any,
    names: Names | None = None,
    *,
    show_all: bool = False,
    seat_names: Mapping[int, str] | None = None,
) -> str | None:
    """An event as a log line: its description's text when the gateway sent one (None for engine
    bookkeeping unless `show_all`), players by the names chosen at the table (`seat_names`),
    else the event's type and fields with ids named."""
    description = getattr(event, "description", None)
    if description is not None and description.text:
        if description.internal and not show_all:
            return None
        if not plain_description(event.type, description):
            text: str = description.render(seat_names, names.stands_for if names else None)
            if names is not None and not any(a.kind for a in description.args):
                text = names.text(text)  # a description that names nothing: ids named from the data
            return text + ("  (bookkeeping)" if description.internal else "")
    return describe_event(event.type, event.data, event.actor, names)


def plain_description(event_type: str, description: Any) -> bool:
    """The kernel's plain fallback (services/kernel/present.py `plain_description`: the tag and
    fields as words), which a game gives until it describes its events: the event's fields
    named from the game data say more."""
    return (
        description.key == event_type
        and not description.args
        and description.text.startswith(event_type.replace("_", " "))
    )


def plain_decision(decision: Any) -> bool:
    """The kernel's plain fallback decision (`plain_decision`: one step "Action", each legal action
    labelled by its fields): the legal actions named from the game data say more."""
    return decision.prompt == "Choose an action" and all(
        len(o.choices) == 1 and o.choices[0].step == "Action" and not o.choices[0].kind
        for o in decision.options
    )


def describe_event(event_type: str, data: Any, actor: int, names: Names | None = None) -> str:
    names = names or _NO_NAMES
    who = "gateway" if actor < 0 else f"seat {actor}"
    fields = names.fields(data, drop_false=False) if isinstance(data, Mapping) else ""
    if len(fields) > 240:
        fields = fields[:237] + "..."
    return f"[{who}] {event_type.replace('_', ' ')}  {fields}".rstrip()


def _short(value: Any, limit: int = 60, names: Names = _NO_NAMES, field: str = "") -> str:
    text = names.value(value, field)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _generic(view: Mapping[str, Any], seat: int | None, names: Names = _NO_NAMES) -> RenderableType:
    """Any game: its scalar fields on a line, its per-seat list as a table, the rest compact,
    ids named."""
    if not isinstance(view, Mapping):
        return Panel(_short(view, 4000, names), title="view (JSON)")
    scalars = "  ".join(
        f"{k}: {_short(v, 60, names, k)}" for k, v in view.items() if not isinstance(v, dict | list)
    )
    parts: list[RenderableType] = [Text(scalars, style="bold")]
    seats = view.get("seats")
    if isinstance(seats, list) and seats and all(isinstance(s, Mapping) for s in seats):
        table = Table(title="Seats")
        columns = [k for k in seats[0] if k != "player"]
        table.add_column("seat")
        for column in columns:
            table.add_column(column)
        for i, s in enumerate(seats):
            number = s.get("player", i)
            label = f"{number} (you)" if number == seat else str(number)
            table.add_row(label, *(_short(s.get(c), 40, names, c) for c in columns))
        parts.append(table)
        for s in seats:
            if s.get("player") == seat:  # your own hand, quests, cards... in full
                for key, value in s.items():
                    if isinstance(value, dict | list) and value:
                        parts.append(Text(f"your {key}: {_short(value, 600, names, key)}", style="cyan"))
                    elif isinstance(value, str) and names.name(key, value):
                        parts.append(Text(f"your {key}: {names.of(value, key)}", style="cyan"))
    for key, value in view.items():
        if key != "seats" and isinstance(value, dict | list) and value:
            parts.append(Text(f"{key}: {_short(value, 400, names, key)}"))
    return Group(*parts)


def _rattus(view: Mapping[str, Any], seat: int | None, names: Names = _NO_NAMES) -> RenderableType:
    head = Text(
        f"Round {view['round']}/{view['rounds']}  phase: {view['phase']}"
        f"  start player: {view['start_player']}"
        f"  active: {', '.join(map(str, view['active'])) or '-'}",
        style="bold",
    )
    row = Table(title="This round's buildings", show_lines=False)
    for col in ("#", "building", "supply action", "entrants (in order)", "premium"):
        row.add_column(col)
    for b, card in enumerate(view["row"]):
        supply = ", ".join(
            f"{label} {card[key]}"
            for key, label in (("draw", "draw"), ("discard_rats", "discard rats"), ("look", "look"))
            if card.get(key)
        )
        entrants = view["entries"][b] if b < len(view["entries"]) else []
        premium = view["premium"][b] if b < len(view["premium"]) else -1
        row.add_row(
            str(b),
            names.of(card["building"], "building"),
            supply,
            ", ".join(map(str, entrants)),
            "" if premium < 0 else str(premium),
        )
    seats = Table(title="Seats")
    for col in ("seat", "hand", "played", "rats", "VP tokens", "Nun-row looked at"):
        seats.add_column(col)
    for s in view["seats"]:
        me = " (you)" if s["player"] == seat else ""
        seats.add_row(
            f"{s['player']}{me}",
            str(s["hand_size"]),
            str(s["played"]),
            str(s["rats"]),
            str(s["vp_tokens"]),
            ",".join(map(str, s["nun_looked"])),
        )
    tracks = Table(title="Influence")
    tracks.add_column("class")
    for p in range(view["players"]):
        tracks.add_column(f"seat {p}")
    for t in view["tracks"]:
        tracks.add_row(names.of(t["track"], "class"), *map(str, t["influence"]))
    nuns = " | ".join(names.of(c, "card") if c is not None else "?" for c in view["nun_row"])
    parts: list[RenderableType] = [head, row, seats, tracks, Text(f"Nun-row: {nuns}")]
    if view.get("supply"):
        parts.append(Text("Supply: " + ", ".join(f"{names.key(k)} {v}" for k, v in view["supply"].items())))
    if view.get("hand") is not None:
        hand = ", ".join(names.of(c, "card") for c in view["hand"])
        parts.append(Text(f"Your hand: {hand or '(empty)'}", style="cyan"))
        if view.get("my_played"):
            played = ", ".join(names.of(c, "card") for c in view["my_played"])
            parts.append(Text(f"Played face down: {played}", style="cyan"))
    return Group(*parts)


_GEMS = ("blue", "green", "yellow", "red", "black")


def _ys(view: Mapping[str, Any], seat: int | None, names: Names = _NO_NAMES) -> RenderableType:
    window = f" ({view['window']})" if view.get("window") else ""
    head = Text(
        f"Turn {view['turn']}  phase: {view['phase']}{window}"
        f"  placement round {view['round']}/{view['rounds']}"
        f"  active: {', '.join(map(str, view['active'])) or '-'}",
        style="bold",
    )
    prices = Text("Quotations: " + "  ".join(f"{c} {v:+d}" for c, v in view["prices"].items()))
    seats = Table(title="Seats")
    for col in ("seat", "gold", "gems b/g/y/r/black", "order card", "screen", "front", "cards"):
        seats.add_column(col)
    for s in view["seats"]:
        g = s["gems"]
        screen = (
            ",".join(map(str, s["screen"])) if s.get("screen") is not None else f"{s['screen_size']} hidden"
        )
        seats.add_row(
            f"{s['player']}{' (you)' if s['player'] == seat else ''}",
            str(s["score"]),
            "/".join(str(g.get(k, 0)) for k in _GEMS),
            str(s["order_card"]),
            screen,
            ",".join(map(str, s["front"])),
            ", ".join(names.of(c, "character") for c in s["hand"]),
        )
    players = int(view.get("players", len(view["seats"])))
    board = Table(title="Board")
    board.add_column("place")
    board.add_column("brokers (owner:value, ? face down)")
    places: dict[str, list[str]] = {}
    for b in view["board"]:
        value = "?" if b["value"] is None else str(b["value"])
        mark = "" if b["face_up"] else "*"
        owner = "neutral" if b["owner"] >= players else str(b["owner"])
        places.setdefault(b["place"], []).append(f"{owner}:{value}{mark}")
    for place in sorted(places):
        board.add_row(place, "  ".join(places[place]))
    ships = ", ".join(names.of(s, "ship") for s in view["ports"]) or "-"
    offered = ", ".join(names.of(c, "character") if c else "-" for c in view["offered"])
    extra = Text(
        f"Ports: {ships}   market gems: {', '.join(g or '-' for g in view['market_gems'])}"
        f"   characters offered: {offered}"
    )
    parts: list[RenderableType] = [head, prices, seats, board, extra]
    mine = next((s for s in view["seats"] if s["player"] == seat), None)
    if mine is not None and mine.get("hand"):
        hand = ", ".join(names.of(c, "character") for c in mine["hand"])
        parts.append(Text(f"Your character cards: {hand}", style="cyan"))
    neutral = view.get("neutral")
    if isinstance(neutral, Mapping):
        gems = "/".join(str(neutral.get(k, 0)) for k in _GEMS)
        parts.append(Text(f"Neutral party: gold {neutral.get('score', 0)}, gems b/g/y/r/black {gems}"))
    return Group(*parts)


RENDERERS: dict[str, Renderer] = {"rattus_cartus": _rattus, "ys": _ys}


def render_view(
    game: str, view: Mapping[str, Any] | None, seat: int | None, names: Names | None = None
) -> RenderableType:
    """A game's view for a terminal, ids named from `names` (the game's data)."""
    names = names or _NO_NAMES
    if view is None:
        return Text("(no view)")
    try:
        return RENDERERS.get(game, _generic)(view, seat, names)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        # A view from a newer rules version than this renderer knows: the generic layout, never a crash.
        return _generic(view, seat, names)


def render_outcome(outcome: Any) -> RenderableType:
    if not isinstance(outcome, Mapping):
        return Text("(no outcome)")
    winners = outcome.get("winners", [])
    reason = outcome.get("reason") or ""
    table = Table(title=f"Winner(s): {', '.join(map(str, winners)) or 'nobody'}", caption=reason or None)
    for col in ("seat", "score", "note", "facts"):
        table.add_column(col)
    for r in outcome.get("results", []):
        facts = ", ".join(f"{k} {v}" for k, v in (r.get("facts") or {}).items())
        table.add_row(str(r.get("player")), str(r.get("score")), r.get("note", ""), facts)
    return table
