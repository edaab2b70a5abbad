"""The published JSON Schemas in schemas/ are exactly what the code serves through Describe."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from services.export_schemas import ROOT, rendered
from services.kernel import CODES
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


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for item in node:
            yield from _objects(item)


def test_every_published_object_is_closed_like_the_server_and_has_an_id() -> None:
    ids = set()
    for path in ROOT.rglob("*.schema.json"):
        document = json.loads(path.read_text())
        ids.add(document["$id"])
        for obj in _objects(document):
            if "properties" in obj:
                assert obj["additionalProperties"] is False, f"{path}: {obj.get('title')} is open"
    assert len(ids) == len(list(ROOT.rglob("*.schema.json"))), "schema ids must be unique"
    assert (ROOT / "stream" / "match_created.schema.json").is_file()


def test_rejection_codes_are_one_list_in_code_schema_proto_and_docs() -> None:
    for game in GAMES:
        document = json.loads((ROOT / game / "rejection.schema.json").read_text())
        assert document["$defs"]["Rejection"]["properties"]["code"]["enum"] == list(CODES)
    proto = (ROOT.parent / "protos" / "guildhall" / "common" / "v1" / "common.proto").read_text()
    contract = (ROOT.parent / "docs" / "rules-contract.md").read_text()
    for code in CODES:
        assert code in proto and f"`{code}`" in contract, code
    for stale in ("wrong_tenant", "bad_payload"):
        assert stale not in proto and f"`{stale}`" not in contract
