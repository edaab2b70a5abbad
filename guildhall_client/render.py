"""Views and actions as a person reads them in a terminal (rich), per game, with a generic
fallback (the view's JSON) for games that have no renderer yet."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

Renderer = Callable[[Mapping[str, Any], int | None], RenderableType]


def describe_action(action: Mapping[str, Any]) -> str:
    """One line: the action type in words, then its fields (`enter building  building=1`)."""
    kind = str(action.get("type", "?"))
    fields = "  ".join(
        f"{k}={json.dumps(v, separators=(',', ':')) if not isinstance(v, str) else v}"
        for k, v in action.items()
        if k != "type" and v not in ("", [], None, False) and not (k == "from_front" and v is False)
    )
    return f"{kind.replace('_', ' ')}  {fields}".rstrip()


def describe_event(event_type: str, data: Any, actor: int) -> str:
    who = "gateway" if actor < 0 else f"seat {actor}"
    fields = ""
    if isinstance(data, Mapping):
        fields = "  ".join(
            f"{k}={json.dumps(v, separators=(',', ':'))}"
            for k, v in data.items()
            if k != "type" and v not in ("", [], None, {})
        )
    if len(fields) > 160:
        fields = fields[:157] + "..."
    return f"[{who}] {event_type.replace('_', ' ')}  {fields}".rstrip()


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _generic(view: Mapping[str, Any], seat: int | None) -> RenderableType:
    """Any game: its scalar fields on a line, its per-seat list as a table, the rest compact."""
    if not isinstance(view, Mapping):
        return Panel(_short(view, 4000), title="view (JSON)")
    scalars = "  ".join(f"{k}: {_short(v)}" for k, v in view.items() if not isinstance(v, dict | list))
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
            table.add_row(label, *(_short(s.get(c), 40) for c in columns))
        parts.append(table)
        for s in seats:
            if s.get("player") == seat:  # your own hand, quests, cards... in full
                for key, value in s.items():
                    if isinstance(value, dict | list) and value:
                        parts.append(Text(f"your {key}: {_short(value, 400)}", style="cyan"))
    for key, value in view.items():
        if key != "seats" and isinstance(value, dict | list) and value:
            parts.append(Text(f"{key}: {_short(value, 300)}"))
    return Group(*parts)


def _rattus(view: Mapping[str, Any], seat: int | None) -> RenderableType:
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
            card["building"],
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
        tracks.add_row(t["track"], *map(str, t["influence"]))
    nuns = " ".join(c if c is not None else "?" for c in view["nun_row"])
    parts: list[RenderableType] = [head, row, seats, tracks, Text(f"Nun-row: {nuns}")]
    if view.get("hand") is not None:
        parts.append(Text(f"Your hand: {', '.join(view['hand']) or '(empty)'}", style="cyan"))
        if view.get("my_played"):
            parts.append(Text(f"Played face down: {', '.join(view['my_played'])}", style="cyan"))
    return Group(*parts)


def _ys(view: Mapping[str, Any], seat: int | None) -> RenderableType:
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
            "/".join(str(g.get(k, 0)) for k in ("blue", "green", "yellow", "red", "black")),
            str(s["order_card"]),
            screen,
            ",".join(map(str, s["front"])),
            ",".join(s["hand"]),
        )
    board = Table(title="Board")
    board.add_column("place")
    board.add_column("brokers (owner:value, ? face down)")
    places: dict[str, list[str]] = {}
    for b in view["board"]:
        value = "?" if b["value"] is None else str(b["value"])
        mark = "" if b["face_up"] else "*"
        places.setdefault(b["place"], []).append(f"{b['owner']}:{value}{mark}")
    for place in sorted(places):
        board.add_row(place, "  ".join(places[place]))
    extra = Text(
        f"Ports: {', '.join(view['ports'])}   market gems: {', '.join(g or '-' for g in view['market_gems'])}"
        f"   characters offered: {', '.join(c or '-' for c in view['offered'])}"
    )
    parts: list[RenderableType] = [head, prices, seats, board, extra]
    if view.get("neutral"):
        parts.append(Text(f"Neutral party: {view['neutral']}"))
    return Group(*parts)


RENDERERS: dict[str, Renderer] = {"rattus_cartus": _rattus, "ys": _ys}


def render_view(game: str, view: Mapping[str, Any] | None, seat: int | None) -> RenderableType:
    """A game's view for a terminal; a game without a renderer shows its JSON."""
    if view is None:
        return Text("(no view)")
    try:
        return RENDERERS.get(game, _generic)(view, seat)
    except (KeyError, TypeError, ValueError, IndexError):
        # A view from a newer rules version than this renderer knows: show it raw, never crash.
        return _generic(view, seat)


def render_outcome(outcome: Any) -> RenderableType:
    if not isinstance(outcome, Mapping):
        return Text("(no outcome)")
    winners = outcome.get("winners", [])
    table = Table(title=f"Winner(s): {', '.join(map(str, winners)) or 'nobody'}")
    for col in ("seat", "score", "note", "facts"):
        table.add_column(col)
    for r in outcome.get("results", []):
        facts = ", ".join(f"{k} {v}" for k, v in (r.get("facts") or {}).items())
        table.add_row(str(r.get("player")), str(r.get("score")), r.get("note", ""), facts)
    return table
