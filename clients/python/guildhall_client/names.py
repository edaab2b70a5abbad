"""Component names from a game's published data (`GetGameData`; services/gamedata.py builds it):
every card, building, place and person as (`kind`, `id`, `name`), the same shape for every game,
so one lookup turns ids into the names a person reads.

- a field named after a kind (`quest`, `area`, `cards`, `from_area`; or the last word of the
  kind's label: `card` for "ship card") names that kind's component, numbers included;
- any string that is exactly one component's id names it, wherever it stands (and `id.2`, the
  second copy of a card, names the card);
- a few view fields hold a kind's ids under another name (Bruges' `hand` holds person card
  numbers): `FIELD_ALIASES`, per game.

A game without data gives an empty lookup: ids stay ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_PREFIXES = ("from_", "to_", "new_", "old_", "next_", "known_", "my_")

# Per game: view fields holding a kind's ids under a name that is not the kind's.
FIELD_ALIASES: dict[str, dict[str, str]] = {
    "bruges": {"hand": "person", "discard": "person"},
}


_WORD = re.compile(r"[A-Za-z][\w.:-]*[\w]|[A-Za-z]")


class Names:
    """One game's component names, found by field and value."""

    def __init__(self, document: Mapping[str, Any] | None = None) -> None:
        self.game = ""
        self.kinds: dict[str, dict[str, str]] = {}
        self.by_id: dict[str, str] = {}
        self.field_kinds: dict[str, str] = {}
        self.seats: dict[tuple[str, str], tuple[int, str]] = {}
        if not document:
            return
        self.game = str(document.get("game_id", ""))
        for component in document.get("components", ()):
            kind, id_ = str(component["kind"]), str(component["id"])
            self.kinds.setdefault(kind, {})[id_] = str(component["name"])
            values = component.get("values") or {}
            seat = values.get("seat")
            if isinstance(seat, int) and not isinstance(seat, bool):
                self.seats[(kind, id_)] = (seat, str(values.get("seatless", component["name"])))
        for place in document.get("places", ()):  # the board's places: by their kind and as "place"
            id_, name = str(place["id"]), str(place["name"])
            for kind in {str(place["kind"]), "place"}:
                self.kinds.setdefault(kind, {})[id_] = name
        # An id is named wherever it stands when it names one thing, or when every kind that has
        # it gives it the same name (Ankh-Morpork's Gaspode is a card and the reaction it plays).
        called: dict[str, set[str]] = {}
        for kind_names in self.kinds.values():
            for id_, name in kind_names.items():
                called.setdefault(id_, set()).add(name)
        self.by_id = {
            id_: next(iter(names))
            for id_, names in called.items()
            if len(names) == 1 and not id_.lstrip("-").isdigit()
        }
        for kind, label in (document.get("kinds") or {}).items():
            for word in {kind, str(label).split()[-1]}:
                # A word two kinds answer to ("card" in a game with ship cards and character
                # cards) is ambiguous: left to the value's own id.
                self.field_kinds[word] = kind if word not in self.field_kinds else ""
        for field, kind in FIELD_ALIASES.get(self.game, {}).items():
            self.field_kinds[field] = kind

    @classmethod
    def from_json(cls, data: bytes | str) -> Names:
        try:
            return cls(json.loads(data))
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls()

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def stands_for(self, kind: str, id_: str) -> tuple[int, str] | None:
        """The seat a component stands for (`values.seat`: Ys's parties) and what it is called
        when the match has no such seat (`values.seatless`), or None."""
        return self.seats.get((kind, id_))

    def name(self, field: str, value: Any) -> str | None:
        """The name `value` stands for in a field called `field`, or None."""
        if isinstance(value, bool) or not isinstance(value, int | str):
            return None
        text = str(value)
        candidates = [field]
        word = field
        for prefix in _PREFIXES:
            word = word.removeprefix(prefix)
        candidates += [word, word.removesuffix("s")]
        for candidate in candidates:
            kind = self.field_kinds.get(candidate)
            if kind:
                names = self.kinds.get(kind, {})
                found = names.get(text) or names.get(_base(text))
                if found:
                    return found
        if isinstance(value, str):
            return self.by_id.get(text) or self.by_id.get(_base(text))
        return None

    def text(self, text: str) -> str:
        """Free text with each word that is one component's id replaced by its name: for words a
        game has not named yet (its plain fallback labels actions and events by their fields)."""
        if not self.by_id:
            return text
        return _WORD.sub(
            lambda m: self.by_id.get(m.group()) or self.by_id.get(_base(m.group())) or m.group(), text
        )

    def of(self, value: Any, field: str = "") -> str:
        """One value as text: its name when it has one, else itself."""
        named = self.name(field, value)
        if named is not None:
            return named
        return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))

    def value(self, value: Any, field: str = "") -> str:
        """Any JSON value with every id in it named (lists and objects compact, one line)."""
        if isinstance(value, Mapping):
            # Keys are named only when every key is a component (`{"joker": 15, "sword": 12}`),
            # never in a record whose field happens to share a card's id (`trolls`).
            named = bool(value) and all(str(k) in self.by_id for k in value)
            return (
                "{"
                + ", ".join(
                    f"{self.by_id[str(k)] if named else k}: {self.value(v, str(k))}" for k, v in value.items()
                )
                + "}"
            )
        if isinstance(value, list | tuple):
            return "[" + ", ".join(self.value(item, field) for item in value) + "]"
        return self.of(value, field)

    def key(self, key: Any) -> str:
        """A key known to hold a component id (`{"joker": 15}`): its name."""
        return self.by_id.get(str(key), str(key))

    def fields(
        self, data: Mapping[str, Any], *, skip: tuple[str, ...] = ("type",), drop_false: bool = True
    ) -> str:
        """`field=value` pairs, ids named, empty fields (and false flags) left out."""
        return "  ".join(
            f"{key}={self.value(item, key)}"
            for key, item in data.items()
            if key not in skip and not _empty(item) and not (drop_false and item is False)
        )


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str | list | tuple | dict) and not value)


def _base(text: str) -> str:
    """`sample_wares.2` (the second copy of a card) -> `sample_wares`."""
    head, dot, tail = text.rpartition(".")
    return head if dot and tail.isdigit() else text
