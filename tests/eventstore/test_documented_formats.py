"""docs/eventstore.md documents the entry formats and the hash chain so an auditor can recompute
it with their own code: run the page's own block against streams the store wrote (format 2) and
streams as they were written before (format 1), so the document cannot drift."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import redis

from gateway.eventstore.base import MatchKey, NewEvent
from gateway.eventstore.entries import decode_entries, fields_of
from gateway.eventstore.redis_store import RedisEventStore, match_keys

PAGE = Path(__file__).resolve().parents[2] / "docs" / "eventstore.md"


def documented_block() -> dict[str, Any]:
    text = PAGE.read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "def entry_hash" in b)
    namespace: dict[str, Any] = {}
    exec(block, namespace)
    return namespace


@pytest.mark.parametrize("entry_format", [2, 1])
def test_the_documented_block_recomputes_every_hash_of_a_stored_stream(
    redis_client: redis.Redis, entry_format: int
) -> None:
    store = RedisEventStore(redis_client)
    key = MatchKey("acme", "chain-doc")
    version = 0
    for append in range(3):
        version = store.append(
            key,
            version,
            [NewEvent("card_played", b'{"card": %d, "note": "\\u00e9"}' % append)] * (1 + append % 2),
            actor=str(append % 2),
            command_id=f"c{append}",
            rules_version="rc-1.0",
        ).last_version
    events_key = match_keys(key).events
    if entry_format == 1:  # the same stream as the store wrote it before format 2
        events = decode_entries(redis_client.xrange(events_key))  # type: ignore[arg-type]
        redis_client.delete(events_key)
        for event in events:
            redis_client.xadd(events_key, fields_of(event, format=1), id=f"{event.version}-0")  # type: ignore[arg-type]
    stored: Any = redis_client.xrange(events_key)
    assert len(stored) == 4
    assert all((b"e" in fields) == (entry_format == 2) for _, fields in stored)
    block = documented_block()
    entries = list(block["entries"](stored))
    assert [int(entry["version"]) for entry in entries] == [1, 2, 3, 4]
    for entry in entries:
        assert block["entry_hash"](entry) == entry["hash"]
    assert entries[-1]["hash"] == store.audit(key).head_hash
    # and the block notices an edit
    edited = dict(entries[2], payload=b'{"card": 9}')
    assert block["entry_hash"](edited) != edited["hash"]
