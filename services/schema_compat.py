"""The game JSON's compatibility check, as `buf breaking` is the protos' (issue 40).

Each game's published JSON Schemas (schemas/<game>/: actions, events, views, decisions,
descriptions, options, outcome, rejections, game data) are compared with the ones of the last
release, kept in schemas/baseline.json with the edition each game had then and the kinds of entry
its game data held. `make schema-baseline` writes that file, for a release only.

The rule is that of a reader of stored data: every document valid under the released schema must
stay valid under today's (a stored event must decode years later; an action an old client sends
must still be read). So a removed property, a narrowed type (a type or an enum value no longer
accepted, a bound tightened, a pattern or format added), a newly required property, a closed
object and a removed or renamed union tag are breaking; a new optional property, a new action or
event type and a widened type are not. A removed game-data entry kind is breaking too (clients
switch on kinds). Each breaking change is named by a JSON pointer into the released schema.

Views, decisions, descriptions, game data, outcomes and rejections are only written by the server
and read by clients: there a property that becomes required is not breaking (every document now
carries it; a client built against the release ignores what it does not know). Actions and
options (sent by clients) and events (stored, decoded again at every replay) keep the reader's
rule.

A game may break only with a new major edition (`rules_version("2.0", ...)` in its rules.py:
the part of the rules version before `+`) whose entry in docs/rules/<game>-changelog.md is
marked breaking; every edition has an entry there. `python -m services.schema_compat` checks it
(`make lint`; tests/test_contract.py in `make test`) and exits 1 with each problem.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "schemas" / "baseline.json"
CHANGELOGS = ROOT / "docs" / "rules"
TAG = "type"  # the tag of a union with no `discriminator` to name it (msgspec's default tag_field)
_ENTRY = re.compile(r"^## (\d+(?:\.\d+)*) \((compatible|breaking)\)\s*$", re.M)
_NUMERIC = ("integer", "number")


@dataclass(frozen=True)
class Change:
    """One breaking change: where it is in the released schema, and what changed."""

    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


# -- schemas -----------------------------------------------------------------------------------


def _pointer(path: str, *keys: str | int) -> str:
    escaped = (str(k).replace("~", "~0").replace("/", "~1") for k in keys)
    return "/".join((path, *escaped))


# The schemas of documents only the server writes and only clients read (see the module's doc).
SERVER_WRITTEN = frozenset({"view", "decision", "description", "game_data", "outcome", "rejection"})


@dataclass
class _Comparison:
    """Compares one released schema document with today's."""

    name: str  # "ys/action"
    old_doc: Mapping[str, Any]
    new_doc: Mapping[str, Any]
    changes: list[Change] = field(default_factory=list)
    _seen: set[tuple[str, str]] = field(default_factory=set)

    @property
    def server_written(self) -> bool:
        """Only the server writes these documents (nothing stored reads them back)."""
        return self.name.rpartition("/")[2] in SERVER_WRITTEN

    def report(self, path: str, what: str) -> None:
        self.changes.append(Change(f"{self.name}.schema.json{path}", what))

    def node(self, old: Any, old_path: str, new: Any, new_path: str) -> None:
        old, old_path = _resolve(self.old_doc, old, old_path)
        new, new_path = _resolve(self.new_doc, new, new_path)
        if (old_path, new_path) in self._seen:  # a recursive definition, already compared
            return
        self._seen.add((old_path, new_path))
        new_branches = list(_branches(self.new_doc, new, new_path))
        gone: list[str] = []
        for kind, old_branch, branch_path in _branches(self.old_doc, old, old_path):
            if kind == "enum":
                missing = [v for v in _enum(old_branch) if not _accepts(v, new_branches)]
                if missing:
                    values = ", ".join(json.dumps(v) for v in missing)
                    self.report(branch_path, f"enum values no longer accepted: {values}")
                continue
            match = _accepting(kind, new_branches)
            if match is None:
                if kind.startswith("tag:"):
                    self.report(branch_path, f"the tag {kind[4:]!r} is gone (removed or renamed)")
                else:
                    gone.append(kind)
                continue
            new_kind, new_branch, new_branch_path = match
            self.branch(kind, old_branch, branch_path, new_kind, new_branch, new_branch_path)
        if gone:
            now = sorted({k.split(":")[0] for k, _, _ in new_branches}) or ["nothing"]
            self.report(
                old_path, f"type narrowed: {', '.join(gone)} no longer accepted (now {', '.join(now)})"
            )

    def branch(self, kind: str, old: Any, old_path: str, new_kind: str, new: Any, new_path: str) -> None:
        if new_kind == "any":
            return
        self.bounds(old, old_path, new)
        if kind == "array":
            self.array(old, old_path, new, new_path)
        elif kind == "object" or kind.startswith("tag:"):
            self.object(old, old_path, new, new_path)

    def bounds(self, old: Mapping[str, Any], path: str, new: Mapping[str, Any]) -> None:
        for key, lower in (
            ("minimum", True),
            ("exclusiveMinimum", True),
            ("minLength", True),
            ("minItems", True),
            ("minProperties", True),
            ("maximum", False),
            ("exclusiveMaximum", False),
            ("maxLength", False),
            ("maxItems", False),
            ("maxProperties", False),
        ):
            if key not in new:
                continue
            if key not in old:
                self.report(path, f"{key} {new[key]} added")
            elif (new[key] > old[key]) if lower else (new[key] < old[key]):
                self.report(path, f"{key} tightened from {old[key]} to {new[key]}")
        for key in ("pattern", "format", "multipleOf"):
            if key in new and new.get(key) != old.get(key):
                was = f" (was {old[key]!r})" if key in old else ""
                self.report(path, f"{key} {new[key]!r} added{was}")
        if new.get("uniqueItems") and not old.get("uniqueItems"):
            self.report(path, "uniqueItems added")

    def array(self, old: Mapping[str, Any], old_path: str, new: Mapping[str, Any], new_path: str) -> None:
        old_prefix, new_prefix = old.get("prefixItems", []), new.get("prefixItems", [])
        for i, item in enumerate(old_prefix):
            if i < len(new_prefix):
                self.node(
                    item,
                    _pointer(old_path, "prefixItems", i),
                    new_prefix[i],
                    _pointer(new_path, "prefixItems", i),
                )
            elif "items" in new:
                self.node(
                    item, _pointer(old_path, "prefixItems", i), new["items"], _pointer(new_path, "items")
                )
        # A tuple (prefixItems) bounded by maxItems says nothing of further items: nothing to compare.
        if "items" in new and new["items"] is not True and ("items" in old or not old_prefix):
            self.node(
                old.get("items", {}), _pointer(old_path, "items"), new["items"], _pointer(new_path, "items")
            )

    def object(self, old: Mapping[str, Any], old_path: str, new: Mapping[str, Any], new_path: str) -> None:
        old_props, new_props = old.get("properties", {}), new.get("properties", {})
        for name, schema in old_props.items():
            at = _pointer(old_path, "properties", name)
            if name in new_props:
                self.node(schema, at, new_props[name], _pointer(new_path, "properties", name))
            else:
                self.report(at, f"property {name!r} removed")
        newly_required = [n for n in new.get("required", []) if n not in old.get("required", [])]
        for name in [] if self.server_written else newly_required:
            what = (
                f"property {name!r} is now required"
                if name in old_props
                else f"new property {name!r} is required"
            )
            self.report(old_path, what)
        old_extra, new_extra = old.get("additionalProperties", {}), new.get("additionalProperties", {})
        if new_extra is False and old_extra is not False:
            self.report(old_path, "closed: properties it did not name are no longer accepted")
        elif isinstance(new_extra, dict) and new_extra and old_extra is not False:
            extra = {} if old_extra is True else old_extra
            self.node(
                extra,
                _pointer(old_path, "additionalProperties"),
                new_extra,
                _pointer(new_path, "additionalProperties"),
            )


def _resolve(doc: Mapping[str, Any], node: Any, path: str) -> tuple[Any, str]:
    """Follow local `$ref`s ("#/$defs/Name") to the definition, with its pointer."""
    for _ in range(64):
        if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
            return node, path
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"{path}: only local references are compared, not {ref}")
        target: Any = doc
        for part in ref[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node, path = target, ref
    raise ValueError(f"{path}: a $ref chain that does not end")


def _enum(node: Mapping[str, Any]) -> list[Any]:
    return list(node["enum"]) if "enum" in node else [node["const"]]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _types(node: Mapping[str, Any]) -> set[str]:
    declared = node.get("type")
    types = set(declared) if isinstance(declared, list) else {declared} if declared else set()
    return types | ({"integer"} if "number" in types else set())


def _branches(doc: Mapping[str, Any], node: Any, path: str, tag: str = TAG) -> Iterator[tuple[str, Any, str]]:
    """The alternatives a schema accepts, each with its kind: a JSON type, `tag:<value>` for an
    object of a tagged union, `enum` for a list of values, `any` for no constraint on type."""
    node, path = _resolve(doc, node, path)
    if node is True or node == {}:
        yield "any", {}, path
        return
    if not isinstance(node, dict):
        yield "none", {}, path  # `false`: accepts nothing
        return
    union = node.get("anyOf") or node.get("oneOf")
    if union:
        key = "anyOf" if "anyOf" in node else "oneOf"
        for i, alternative in enumerate(union):
            yield from _branches(
                doc,
                alternative,
                _pointer(path, key, i),
                node.get("discriminator", {}).get("propertyName", tag),
            )
        return
    if "enum" in node or "const" in node:
        yield "enum", node, path
        return
    declared = node.get("type")
    if declared is None:
        yield "any", node, path
        return
    for kind in declared if isinstance(declared, list) else [declared]:
        value = node.get("properties", {}).get(tag, {}).get("enum") if kind == "object" else None
        yield (f"tag:{value[0]}" if value and len(value) == 1 else kind), node, path


def _accepting(kind: str, branches: list[tuple[str, Any, str]]) -> tuple[str, Any, str] | None:
    """The branch of today's schema that takes what the released branch of `kind` took."""
    for candidate in branches:
        if candidate[0] == kind:
            return candidate
    for candidate in branches:
        if candidate[0] == "any" or (kind == "integer" and candidate[0] == "number"):
            return candidate
    return None


def _accepts(value: Any, branches: list[tuple[str, Any, str]]) -> bool:
    """Whether some branch of today's schema takes this enum value of the released one."""
    for kind, branch, _ in branches:
        if kind == "any" or (kind == "enum" and value in _enum(branch)):
            return True
        if kind not in ("enum", "none") and _json_type(value) in _types(branch):
            return True
    return False


def compare_schema(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """The breaking changes from the released schema document `old` to `new` (name: "ys/action")."""
    comparison = _Comparison(name, old, new)
    comparison.node(old, "#", new, "#")
    return comparison.changes


# -- games -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameContract:
    """What a game publishes that clients build against: its edition, its schemas by name and
    the kinds of entry in its game data (kind -> what it is)."""

    edition: str
    schemas: Mapping[str, Mapping[str, Any]]
    kinds: Mapping[str, str]


def compare_game(game: str, old: GameContract, new: GameContract) -> list[Change]:
    """Every breaking change of one game's contract since the release."""
    changes: list[Change] = []
    for name, schema in old.schemas.items():
        if name not in new.schemas:
            changes.append(Change(f"{game}/{name}.schema.json", "the schema is no longer published"))
            continue
        changes += compare_schema(f"{game}/{name}", schema, new.schemas[name])
    for kind in old.kinds:
        if kind not in new.kinds:
            changes.append(
                Change(f"{game}/game_data kinds", f"entry kind {kind!r} is gone (removed or renamed)")
            )
    return changes


def edition(rules_version: str) -> str:
    """The human edition of a rules version: the part before `+` ("1.0+<digest>" -> "1.0")."""
    return rules_version.split("+", 1)[0]


def _major(edition: str) -> int:
    return int(edition.split(".", 1)[0])


def changelog_path(game: str) -> Path:
    return CHANGELOGS / f"{game}-changelog.md"


def changelog_entries(text: str) -> dict[str, str]:
    """A changelog's editions, newest first, and how each is marked: "compatible" or "breaking"."""
    return {m.group(1): m.group(2) for m in _ENTRY.finditer(text)}


def _changelog_problems(game: str, entries: Mapping[str, str]) -> Iterator[str]:
    """A breaking edition is a new major: its major is above the next older entry's."""
    editions = list(entries)
    for newer, older in zip(editions, editions[1:], strict=False):
        if entries[newer] == "breaking" and _major(newer) <= _major(older):
            log = _relative(changelog_path(game))
            yield f"{game}: edition {newer} is marked breaking in {log}, but it is no new major after {older}"


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def problems(
    released: Mapping[str, GameContract],
    current: Mapping[str, GameContract],
    changelogs: Mapping[str, str],
) -> list[str]:
    """What keeps today's contracts from shipping, game by game: each must have a changelog entry
    for its edition, and a breaking change against the release needs a new major edition marked
    breaking there."""
    found: list[str] = []
    for game in sorted(released.keys() - current.keys()):
        found.append(f"{game}: a released game is no longer published (breaking for every client of it)")
    for game, now in sorted(current.items()):
        log = _relative(changelog_path(game))
        entries = changelog_entries(changelogs.get(game, ""))
        mark = entries.get(now.edition)
        if mark is None:
            found.append(
                f"{game}: {log} has no entry '## {now.edition} (compatible|breaking)' "
                f"for edition {now.edition}"
            )
        found += _changelog_problems(game, entries)
        if game not in released:
            continue
        was = released[game].edition
        changes = compare_game(game, released[game], now)
        if changes and not (_major(now.edition) > _major(was) and mark == "breaking"):
            listed = "".join(f"\n  {change}" for change in changes)
            found.append(
                f"{game}: {len(changes)} breaking change(s) against the released schemas of edition {was}:"
                f"{listed}\n  make them compatible, or release a new major edition "
                f'(rules_version("{_major(was) + 1}.0", ...) in services/{game}/rules.py) '
                f"with an entry marked breaking in {log}"
            )
    return found


def current_contracts() -> dict[str, GameContract]:
    """Every registered game's contract as the code publishes it today."""
    from services.export_schemas import rendered
    from services.gamedata import game_data
    from services.registry import GAMES

    files = rendered()
    contracts = {}
    for game_id, spec in GAMES.items():
        schemas = {
            path.name.removesuffix(".schema.json"): json.loads(text)
            for path, text in files.items()
            if path.parent.name == game_id
        }
        kinds = dict(game_data(spec).kinds) if spec.data is not None and spec.presentation is not None else {}
        contracts[game_id] = GameContract(edition(spec.rules_version), schemas, kinds)
    return contracts


def read_baseline(path: Path = BASELINE) -> dict[str, GameContract]:
    document = json.loads(path.read_text())
    return {
        game: GameContract(body["edition"], body["schemas"], body["kinds"])
        for game, body in document["games"].items()
    }


def write_baseline(contracts: Mapping[str, GameContract], path: Path = BASELINE) -> None:
    document = {
        "about": "Each game's published JSON Schemas at the last release, the baseline of the game "
        "JSON's compatibility check (services/schema_compat.py). Written by `make schema-baseline`, "
        "for a release only.",
        "games": {
            game: {"edition": c.edition, "kinds": dict(c.kinds), "schemas": dict(c.schemas)}
            for game, c in sorted(contracts.items())
        },
    }
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")


def read_changelogs(games: Mapping[str, object]) -> dict[str, str]:
    return {g: changelog_path(g).read_text() for g in games if changelog_path(g).is_file()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m services.schema_compat", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--write-baseline", action="store_true", help="record today's schemas as released")
    parser.add_argument(
        "--baseline", type=Path, default=BASELINE, help="the released schemas (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    current = current_contracts()
    if args.write_baseline:
        write_baseline(current, args.baseline)
        print(f"wrote {args.baseline}", file=sys.stderr)
        return 0
    found = problems(read_baseline(args.baseline), current, read_changelogs(current))
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
