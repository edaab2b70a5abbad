"""JSON Schemas that third-party clients build against, one set per game.

Every object schema is closed (`additionalProperties: false`): the server refuses fields it
does not know, so the published schema does too. Rejection codes are an enum of the real list.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from services.kernel.present import VIEW_SECTIONS, Decision, Description
from services.kernel.rejection import CODES, Rejection
from services.kernel.spec import GameSpec, Outcome


def closed(schema: Any) -> Any:
    """The schema with every object that lists its properties closed to other properties."""
    if isinstance(schema, dict):
        out = {key: closed(value) for key, value in schema.items()}
        if out.get("type") == "object" and "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [closed(item) for item in schema]
    return schema


def rejection_schema() -> dict[str, Any]:
    schema: dict[str, Any] = closed(msgspec.json.schema(Rejection))
    definition = schema["$defs"]["Rejection"]
    definition["properties"]["code"] = {"enum": list(CODES), "description": "stable; clients switch on it"}
    return schema


def view_schema(spec: GameSpec[Any]) -> dict[str, Any]:
    """The view's schema, each top-level field marked with its section (`x-section`: board,
    players, self, turn or engine; services/kernel/present.py VIEW_SECTIONS says what each is)."""
    schema: dict[str, Any] = closed(msgspec.json.schema(spec.view_type))
    sections = spec.presentation.view_sections if spec.presentation else {}
    ref = schema.get("$ref", "")
    root = schema["$defs"][ref.rsplit("/", 1)[-1]] if ref else schema
    for name, field in root.get("properties", {}).items():
        if name in sections:
            field["x-section"] = sections[name]
    root["x-sections"] = VIEW_SECTIONS
    return schema


def json_schemas(spec: GameSpec[Any]) -> dict[str, dict[str, Any]]:
    """The schemas of a game's options, actions, events, views, outcome and rejections, and of
    the decisions and event descriptions every game gives (the same shape for every game)."""
    return {
        "options": closed(msgspec.json.schema(spec.options_type)),
        "action": closed(msgspec.json.schema(spec.action_type)),
        "event": closed(msgspec.json.schema(spec.event_type)),
        "view": view_schema(spec),
        "outcome": closed(msgspec.json.schema(Outcome)),
        "rejection": rejection_schema(),
        "decision": closed(msgspec.json.schema(Decision)),
        "description": closed(msgspec.json.schema(Description)),
    }


# -- published files (schemas/) ----------------------------------------------------------------

# Where the published schemas live: schemas/<game>/ from the rules side
# (services/export_schemas.py), schemas/stream/ and schemas/export/ from the gateway's
# (gateway/schemas.py); `make schemas` writes both, a test each keeps them current.
SCHEMAS_DIR = Path(__file__).resolve().parents[2] / "schemas"


def schema_id(folder: str, name: str) -> str:
    """A stable identifier per published schema (a name, not a location to fetch)."""
    return f"urn:guildhall:schema:{folder}:{name}"


def schema_document(folder: str, name: str, title: str, schema: dict[str, Any]) -> str:
    """A published schema file's text: the schema with its draft, id and title."""
    document: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id(folder, name),
        "title": title,
        **schema,
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def write_schemas(files: Mapping[Path, str]) -> None:
    """Write rendered schema files (paths relative to SCHEMAS_DIR)."""
    for relative, text in files.items():
        path = SCHEMAS_DIR / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path.relative_to(SCHEMAS_DIR.parent)}", file=sys.stderr)
