"""Writes guildhall_client/games/<game>.py: each game's TypedDicts from its published JSON Schemas.

    python -m guildhall_client.games.generate           write the modules
    python -m guildhall_client.games.generate --check   exit 1 when a module differs

The schemas in schemas/<game>/ (`make schemas`, kept current by a test) are the one source; the
modules are checked in (the client installs from the repository or a wheel, with no build step
that could generate them), and tests/test_client_games.py fails when one differs from this
generator's output. clients/web/scripts/games.mjs merges the same files the same way for the
TypeScript package, so the type names agree across the two clients.

One module per game: the roots `Action` and `Event` (unions discriminated by `type`), `View`,
`Options`, `Outcome`, `GameData`, `Rejection`, and the shared `Decision` and `Description`, with
every definition they use. A definition whose name is taken by a root or by a different definition
of another schema is prefixed with its schema's root name (Waterdeep's pending `Decision` on the
stack becomes `EventDecision`, the shared one keeps `Decision`). The definitions every game has
alike (`Decision`, `Rejection`, `ScoreSheet`, ...) are written once, in `_shared.py`, and each game
module imports them under the same names: `ys.Decision` is `bruges.Decision`.
"""

from __future__ import annotations

import json
import keyword
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[4]  # the repository: clients/python/guildhall_client/games/
SCHEMAS = ROOT / "schemas"
OUT = Path(__file__).resolve().parent

# The schema files of a game and the name each one's root gets, in the order names are claimed.
KINDS: tuple[tuple[str, str], ...] = (
    ("action", "Action"),
    ("event", "Event"),
    ("view", "View"),
    ("options", "Options"),
    ("outcome", "Outcome"),
    ("game_data", "GameData"),
    ("rejection", "Rejection"),
    ("decision", "Decision"),
    ("description", "Description"),
)


def games() -> list[str]:
    """Every folder of schemas/ with a game's action schema (not stream/ or export/)."""
    return sorted(p.parent.name for p in SCHEMAS.glob("*/action.schema.json"))


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _rewrite(schema: Any, rename: dict[str, str]) -> Any:
    if isinstance(schema, dict):
        out = {k: _rewrite(v, rename) for k, v in schema.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            out["$ref"] = "#/$defs/" + rename[ref.removeprefix("#/$defs/")]
        return out
    if isinstance(schema, list):
        return [_rewrite(v, rename) for v in schema]
    return schema


def with_ids(document: dict[str, Any], ids: dict[str, Any], kind: str) -> dict[str, Any]:
    """The schema with each id field of the game's ids.json (services/export_ids.py) typed as the
    union of the ids its shipped data names (`PlaceBroker.place`: a `PlaceId`), the id types added
    to its definitions; the TypeScript generator does the same (clients/web/scripts/games.mjs)."""
    fields: dict[str, Any] = ids.get("fields", {}).get(kind, {})
    if not fields:
        return document
    typed: dict[str, Any] = json.loads(json.dumps(document))
    for pointer, ref in fields.items():
        *path, last = [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]
        parent = typed
        for part in path:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        parent[int(last) if isinstance(parent, list) else last] = ref
    refs = [member for typed_field in fields.values() for member in typed_field.get("anyOf", [typed_field])]
    used = {ref["$ref"].rsplit("/", 1)[-1] for ref in refs if "$ref" in ref}
    for name in sorted(used):
        entry = ids["ids"][name]
        typed.setdefault("$defs", {})[name] = {
            "type": "string",
            "enum": entry["enum"],
            "description": entry["description"],
        }
    return typed


def merged(game: str) -> tuple[str, dict[str, Any]]:
    """The game's title and every definition of its schemas under one namespace of names."""
    ids_file = SCHEMAS / game / "ids.json"
    ids = json.loads(ids_file.read_text()) if ids_file.is_file() else {}
    defs: dict[str, Any] = {}
    raw: dict[str, str] = {}  # a claimed name -> the original text of its definition
    claimed: dict[tuple[str, str], str] = {}  # (a name in its file, its text) -> the name taken
    roots = {name for _, name in KINDS}
    title = game
    for kind, root in KINDS:
        doc = with_ids(json.loads((SCHEMAS / game / f"{kind}.schema.json").read_text()), ids, kind)
        if kind == "action":
            title = doc["title"].removesuffix(" action")
        local: dict[str, Any] = doc.get("$defs", {})
        root_def = doc["$ref"].rsplit("/", 1)[-1] if "$ref" in doc else None
        rename: dict[str, str] = {}
        for name in sorted(local):
            if name == root_def:
                rename[name] = root
                continue
            text = _canon(local[name])
            target = claimed.get((name, text), name)
            if (name, text) not in claimed and (target in roots or (target in raw and raw[target] != text)):
                target = root + name
            rename[name] = claimed[name, text] = target
            raw.setdefault(target, text)
        for name, schema in local.items():
            target = rename[name]
            if target in defs and name != root_def:
                continue
            defs[target] = {**_rewrite(schema, rename), "title": target}
        if root_def is None:  # a union at the top (actions, events)
            top = {k: v for k, v in doc.items() if k not in ("$defs", "$id", "$schema", "title")}
            defs[root] = {**_rewrite(top, rename), "title": root, "description": doc["title"]}
    return title, defs


# -- Python --------------------------------------------------------------------------------------

_SCALARS = {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "null": "None"}


def _union(types: list[str]) -> str:
    seen: list[str] = []
    for t in types:
        if t not in seen:
            seen.append(t)
    return " | ".join(seen) if seen else "Any"


def annotation(schema: Any) -> str:
    if schema is True or schema == {}:
        return "Any"
    ref = schema.get("$ref")
    if ref:
        return str(ref).rsplit("/", 1)[-1]
    if "enum" in schema:
        return (
            "Literal["
            + ", ".join(json.dumps(v) if isinstance(v, str) else repr(v) for v in schema["enum"])
            + "]"
        )
    if "const" in schema:
        return f"Literal[{json.dumps(schema['const'])}]"
    if "anyOf" in schema:
        return _union([annotation(s) for s in schema["anyOf"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([annotation({**schema, "type": k}) for k in kind])
    if kind == "array":
        if "prefixItems" in schema:  # a tuple in JSON is a list when decoded
            return f"list[{_union([annotation(s) for s in schema['prefixItems']])}]"
        return f"list[{annotation(schema.get('items', {}))}]"
    if kind == "object":
        extra = schema.get("additionalProperties", {})
        return f"dict[str, {annotation(extra if isinstance(extra, dict) else {})}]"
    return _SCALARS.get(kind, "Any")


def _doc(text: str, indent: str) -> list[str]:
    lines = [line.strip() for line in text.strip().replace('"""', "'''").splitlines()]
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [
        f'{indent}"""{lines[0]}',
        *[f"{indent}{line}" if line else "" for line in lines[1:]],
        f'{indent}"""',
    ]


def _typed_dict(name: str, schema: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", []))
    fields = []
    for key, prop in schema.get("properties", {}).items():
        t = annotation(prop)
        fields.append((key, t if key in required else f"NotRequired[{t}]"))
    description = schema.get("description", "")
    if any(not k.isidentifier() or keyword.iskeyword(k) for k, _ in fields):
        body = ", ".join(f"{json.dumps(k)}: {json.dumps(t)}" for k, t in fields)
        return [f'{name} = TypedDict("{name}", {{{body}}})']
    lines = [f"class {name}(TypedDict):"]
    if description:
        lines += _doc(description, "    ")
    lines += [f"    {k}: {t}" for k, t in fields]
    if len(lines) == 1:
        lines.append("    pass")
    return lines


def _refs(schema: Any) -> set[str]:
    """The names of the definitions `schema` refers to."""
    if isinstance(schema, dict):
        found = {str(schema["$ref"]).rsplit("/", 1)[-1]} if "$ref" in schema else set()
        return found.union(*(_refs(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_refs(v) for v in schema))
    return set()


def shared(every: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The definitions alike in every game's merged namespace, and alike in all they refer to."""
    first, *others = every.values()
    alike = {n: d for n, d in first.items() if all(_canon(o.get(n)) == _canon(d) for o in others)}
    while unmet := [n for n, d in alike.items() if not _refs(d) <= alike.keys()]:
        for name in unmet:
            del alike[name]
    return alike


def _definitions(defs: dict[str, Any], order: list[str]) -> list[str]:
    """TypedDicts for the objects, then aliases for the rest (unions, enums, scalars)."""
    classes: list[str] = []
    aliases: list[str] = []
    for name in order:
        schema = defs[name]
        if schema.get("type") == "object" and "properties" in schema:
            classes += ["", "", *_typed_dict(name, schema)]
        else:
            aliases.append(f"{name}: TypeAlias = {annotation(schema)}")
            if schema.get("description"):
                aliases += _doc(schema["description"], "")
    return classes + (["", "", *aliases] if aliases else [])


# Every module starts with all of typing's names it could use; `formatted` drops the unused ones.
_IMPORTS = [
    "from __future__ import annotations",
    "",
    "from typing import Any, Literal, NotRequired, TypeAlias, TypedDict",
]


def python_module(game: str, title: str, defs: dict[str, Any], common: dict[str, Any]) -> str:
    roots = [name for _, name in KINDS]
    own = [n for n in [*roots, *sorted(n for n in defs if n not in roots)] if n not in common]
    imported = sorted(common)
    header = [
        f'"""{title}: the types of its actions, events, views, options, outcome and game data.',
        "",
        f"Generated from schemas/{game}/ by `python -m guildhall_client.games.generate`: do not edit.",
        "Views and events arrive as decoded JSON (dicts); these TypedDicts type them, e.g.",
        f"`view = cast({game}.View, match_view.view)`, and type-check actions before they are sent.",
        '"""',
        "",
        *_IMPORTS,
        "",
        f"from guildhall_client.games._shared import {', '.join(imported)}",
        "",
        # The shared names too: re-exported, so `ys.Decision` type-checks under --strict.
        "__all__ = [" + ", ".join(json.dumps(n) for n in dict.fromkeys([*roots, *imported])) + "]",
    ]
    return "\n".join(header + _definitions(defs, own)) + "\n"


def shared_module(common: dict[str, Any]) -> str:
    header = [
        '"""The types every game has alike: decisions, descriptions, rejections, outcomes, game data.',
        "",
        "Generated from schemas/ by `python -m guildhall_client.games.generate`: do not edit. Each",
        "game's module imports them under the same names (`guildhall_client.games.ys.Decision`).",
        '"""',
        "",
        *_IMPORTS,
    ]
    return "\n".join(header + _definitions(common, sorted(common))) + "\n"


def formatted(text: str, path: Path) -> str:
    """The module with its unused imports dropped and laid out by ruff (a dev dependency, pinned in
    constraints.txt), so the checked-in files pass `make lint` and the comparison with them is
    exact."""
    for command in (["check", "--fix-only", "--select", "F401,I001"], ["format"]):
        run = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--stdin-filename", str(path), "-"],
            input=text,
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        if run.returncode:
            raise SystemExit(f"ruff {command[0]} failed (pip install -e '.[dev]'): {run.stderr}")
        text = run.stdout
    return text


def render() -> dict[Path, str]:
    """Every module's text: one per game, and `_shared.py`."""
    every = {game: merged(game) for game in games()}
    common = shared({game: defs for game, (_, defs) in every.items()})
    texts = {
        OUT / f"{game}.py": python_module(game, title, defs, common) for game, (title, defs) in every.items()
    }
    texts[OUT / "_shared.py"] = shared_module(common)
    return {path: formatted(text, path) for path, text in texts.items()}


def main(argv: list[str]) -> int:
    files = render()
    if "--check" in argv:
        stale = [p for p, text in files.items() if not p.is_file() or p.read_text() != text]
        for path in stale:
            print(
                f"stale: {path.relative_to(ROOT)} (python -m guildhall_client.games.generate)",
                file=sys.stderr,
            )
        return 1 if stale else 0
    for path, text in files.items():
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
