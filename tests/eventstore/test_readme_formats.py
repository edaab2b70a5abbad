"""The README documents the hash chain so an auditor can recompute it with their own code: run
the README's own block against a stream the store wrote, so the document cannot drift."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import redis

from gateway.eventstore.base import MatchKey, NewEvent
from gateway.eventstore.redis_store import RedisEventStore

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_entry_hash() -> Any:
    text = README.read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "def entry_hash" in b)
    namespace: dict[str, Any] = {}
    exec(block, namespace)
    return namespace["entry_hash"]


def test_the_readme_recomputes_every_hash_of_a_stored_stream(redis_client: redis.Redis) -> None:
    store = RedisEventStore(redis_client)
    key = MatchKey("acme", "chain-doc")
    for version in range(3):
        store.append(
            key,
            version,
            [NewEvent("card_played", b'{"card": %d, "note": "\\u00e9"}' % version)],
            actor=str(version % 2),
            command_id=f"c{version}",
            rules_version="rc-1.0",
        )
    entry_hash = readme_entry_hash()
    prev = b"0" * 64
    entries: Any = redis_client.xrange("gh:{acme:chain-doc}:events")
    assert len(entries) == 3
    for _id, entry in entries:
        assert entry[b"prev_hash"] == prev
        assert entry_hash(prev, entry) == entry[b"hash"].decode()
        prev = entry[b"hash"]
