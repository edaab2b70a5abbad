"""Write schemas/<game>/ids.json: the ids of each game's shipped data by kind, and the fields of its
action, event and view schemas that hold them, for the clients' generated types.

The published schemas type an id as a string (`PlaceBroker.place`): a schema constrains what
any valid document may hold, and a game played with a replacement data file has other ids. The
clients' types are stricter, for a program written against this release: each id field becomes
the union of the ids the game's data names (Ys's `place`: "n1.port", "n1.commercial", ...) or ""
(which the games write for "none"), so a type checker rejects `place: "harbour"`. The fields come
from the game's presentation `refs` (services/kernel/present.py: which field holds an id of which
kind), the ids from its game data (`GetGameData`); only string fields are typed (seat numbers and
numbered cards stay numbers), and a field whose kind depends on where it stands (a
`tag.field?other=value` ref, or a `tag.field` ref seen from an untagged definition) is left a
string rather than typed wrongly.

    {"game": ..., "data_digest": ..., "ids": {"PlaceId": {"kind": "place", "enum": [...]}, ...},
     "fields": {"action": {"/$defs/PlaceBroker/properties/place":
                           {"anyOf": [{"$ref": "#/$defs/PlaceId"}, {"const": ""}]}}, ...}}

Both generators (guildhall_client/games/generate.py, clients/web/scripts/games.mjs) put each
field's schema at its JSON pointer and add the `ids` definitions before they generate, so the two
clients type the same fields alike. `make schemas` writes the files; tests/services/test_ids.py
keeps them current and checks, over random playouts, that every action, event and view the
rules produce is valid with the ids typed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from services.gamedata import game_data
from services.kernel.present import PLACE, SEAT
from services.kernel.schema import SCHEMAS_DIR, write_schemas
from services.kernel.spec import GameSpec
from services.registry import GAMES

# The schemas whose fields are typed: what a client sends and reads during play.
TYPED = ("action", "event", "view")


def type_name(kind: str) -> str:
    """`intrigue_copy` -> `IntrigueCopyId`."""
    return "".join(part.capitalize() for part in kind.split("_")) + "Id"


def ids_by_kind(spec: GameSpec[Any]) -> dict[str, list[str]]:
    """Every kind of the game's data with its ids (a place under its own kind and under PLACE)."""
    document = game_data(spec)
    kinds: dict[str, set[str]] = {}
    for component in document.components:
        kinds.setdefault(component.kind, set()).add(component.id)
    for place in document.places:
        for kind in (place.kind, PLACE):
            kinds.setdefault(kind, set()).add(place.id)
    return {kind: sorted(ids) for kind, ids in sorted(kinds.items())}


def _tag(schema: Mapping[str, Any]) -> str:
    """The `type` an object schema fixes (an action's or event's tag), else ""."""
    kind = schema.get("properties", {}).get("type", {})
    values = kind.get("enum", [kind["const"]] if "const" in kind else [])
    return values[0] if len(values) == 1 and isinstance(values[0], str) else ""


def _ref_kind(refs: Mapping[str, str], tag: str, key: str) -> str:
    """The kind of id `key` holds inside an object tagged `tag`, or "" when none or unsure."""
    fields = [ref.split("?")[0] for ref in refs]
    if any("?" in ref and field.rpartition(".")[2] == key for ref, field in zip(refs, fields, strict=True)):
        return ""  # it depends on another field of the object: leave it a string
    if tag:
        return refs.get(f"{tag}.{key}", refs.get(key, ""))
    if any(field.endswith(f".{key}") for field in fields):
        return ""  # an untagged definition may stand in an object whose tag overrides the field
    return refs.get(key, "")


def _string_leaves(schema: Any, pointer: str) -> Iterator[str]:
    """Pointers to the string schemas a property holds: itself, its items (lists of lists
    too), a nullable string's string."""
    if not isinstance(schema, dict) or "enum" in schema or "const" in schema:
        return
    kind = schema.get("type")
    if kind == "string":
        yield pointer
    elif kind == "array" and isinstance(schema.get("items"), dict):
        yield from _string_leaves(schema["items"], f"{pointer}/items")
    for i, member in enumerate(schema.get("anyOf", ())):
        yield from _string_leaves(member, f"{pointer}/anyOf/{i}")


def _objects(schema: Any, pointer: str, tag: str) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(pointer, object schema, tag) for every object schema written inline under `schema`;
    an inline object inherits the tag of the object it stands in."""
    if not isinstance(schema, dict):
        return
    if "properties" in schema:
        tag = _tag(schema) or tag
        yield pointer, schema, tag
        for key, prop in schema["properties"].items():
            yield from _objects(prop, f"{pointer}/properties/{key}", tag)
    if isinstance(schema.get("items"), dict):
        yield from _objects(schema["items"], f"{pointer}/items", tag)
    for i, member in enumerate(schema.get("anyOf", ())):
        yield from _objects(member, f"{pointer}/anyOf/{i}", tag)


def id_fields(
    document: Mapping[str, Any], refs: Mapping[str, str], kinds: Mapping[str, list[str]]
) -> dict[str, str]:
    """JSON pointer of each string id in a schema document -> the kind of id it holds."""
    roots = [("", document)] + [(f"/$defs/{name}", d) for name, d in document.get("$defs", {}).items()]
    found: dict[str, str] = {}
    for root_pointer, root in roots:
        for pointer, schema, tag in _objects(root, root_pointer, ""):
            for key, prop in schema["properties"].items():
                kind = _ref_kind(refs, tag, key)
                if kind and kind != SEAT and kind in kinds:
                    for leaf in _string_leaves(prop, f"{pointer}/properties/{key}"):
                        found[leaf] = kind
    return found


def _typed(kind: str) -> dict[str, Any]:
    """An id field's type: an id of its kind, or "" (the games' JSON writes "" for "none" in id
    fields: Waterdeep's `shares`, Ys's empty market slots)."""
    return {"anyOf": [{"$ref": f"#/$defs/{type_name(kind)}"}, {"const": ""}]}


def game_ids(spec: GameSpec[Any], schemas: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The ids.json document of one game, from its schemas (by name: "action", "event", "view")."""
    assert spec.presentation is not None
    kinds = ids_by_kind(spec)
    fields: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    for name in TYPED:
        found = id_fields(schemas[name], spec.presentation.refs, kinds)
        fields[name] = {pointer: _typed(kind) for pointer, kind in sorted(found.items())}
        used |= set(found.values())
    return {
        "about": f"{spec.title}: the ids of its shipped game data by kind, and the fields of its "
        "schemas that hold them, for the clients' generated types (services/export_ids.py)",
        "game": spec.game_id,
        "data_digest": game_data(spec).data_digest,
        "ids": {
            type_name(kind): {
                "kind": kind,
                "description": f"An id of a {kind.replace('_', ' ')} of {spec.title}'s game data.",
                "enum": kinds[kind],
            }
            for kind in sorted(used)
        },
        "fields": fields,
    }


def rendered() -> dict[Path, str]:
    """Each game's ids.json (relative to schemas/), from the schemas as published there."""
    files: dict[Path, str] = {}
    for game_id, spec in GAMES.items():
        if spec.presentation is None or spec.data is None:
            continue
        schemas = {
            name: json.loads((SCHEMAS_DIR / game_id / f"{name}.schema.json").read_text()) for name in TYPED
        }
        files[Path(game_id) / "ids.json"] = json.dumps(game_ids(spec, schemas), indent=2) + "\n"
    return files


def main() -> None:
    write_schemas(rendered())


if __name__ == "__main__":
    main()
