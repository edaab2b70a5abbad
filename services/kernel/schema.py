"""JSON Schemas that third-party clients build against, one set per game."""

from __future__ import annotations

from typing import Any

import msgspec

from services.kernel.rejection import Rejection
from services.kernel.spec import GameSpec, Outcome


def json_schemas(spec: GameSpec[Any]) -> dict[str, dict[str, Any]]:
    """The schemas of a game's options, actions, events, views, outcome and rejections."""
    return {
        "options": msgspec.json.schema(spec.options_type),
        "action": msgspec.json.schema(spec.action_type),
        "event": msgspec.json.schema(spec.event_type),
        "view": msgspec.json.schema(spec.view_type),
        "outcome": msgspec.json.schema(Outcome),
        "rejection": msgspec.json.schema(Rejection),
    }
