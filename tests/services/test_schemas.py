"""The published JSON Schemas in schemas/ are exactly what the code serves through Describe."""

from __future__ import annotations

import json

from services.export_schemas import ROOT, rendered
from services.registry import GAMES


def test_the_committed_schemas_match_the_code() -> None:
    stale = [
        str(path)
        for path, text in rendered().items()
        if not (ROOT / path).is_file() or (ROOT / path).read_text() != text
    ]
    assert not stale, f"schemas out of date, run `make schemas`: {stale}"


def test_every_game_publishes_its_action_event_view_and_options_schemas() -> None:
    for game in GAMES:
        for name in ("options", "action", "event", "view", "outcome", "rejection"):
            document = json.loads((ROOT / game / f"{name}.schema.json").read_text())
            assert document["$schema"].startswith("https://json-schema.org/")
            assert "$defs" in document or "properties" in document
