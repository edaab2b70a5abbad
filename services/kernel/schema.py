"""JSON Schemas that third-party clients build against, one set per game.

Every object schema is closed (`additionalProperties: false`): the server refuses fields it
does not know, so the published schema does too. Rejection codes are an enum of the real list.
"""

from __future__ import annotations

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
