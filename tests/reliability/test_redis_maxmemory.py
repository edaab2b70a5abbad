"""Redis full (`maxmemory` reached, `noeviction`): appends are refused whole with Redis's OOM
error, nothing of them is written, no key is evicted, and reads and audits keep working."""

from __future__ import annotations

import pytest
import redis

from devstack.processes import RedisProcess
from gateway.eventstore.base import MatchKey, NewEvent
from gateway.eventstore.redis_store import RedisEventStore, match_keys

BIG = 16 * 1024  # bytes per event payload: a few appends fill the headroom left below
OOM = "OOM command not allowed when used memory > 'maxmemory'"


def append(store: RedisEventStore, key: MatchKey, version: int, command_id: str, size: int = BIG) -> int:
    events = [NewEvent("filler", b"x" * size), NewEvent("filler", b"y" * size)]
    result = store.append(
        key,
        version,
        events,
        actor="seat:0",
        command_id=command_id,
        rules_version="reliability-1",
        snapshot=b"s" * 512,
        meta={"game": "filler"},
    )
    return result.last_version


def everything_stored(client: redis.Redis, key: MatchKey) -> dict[str, object]:
    keys = match_keys(key)
    return {
        "events": client.xrange(keys.events),
        "meta": client.hgetall(keys.meta),
        "snapshot": client.hgetall(keys.snapshot),
        "commands": client.hgetall(keys.commands),
    }


def test_a_full_redis_refuses_appends_whole_and_keeps_serving_reads(aof_redis: RedisProcess) -> None:
    client = aof_redis.client()
    store = RedisEventStore(client)
    earlier = [MatchKey("acme", f"earlier-{n}") for n in range(20)]
    for key in earlier:
        append(store, key, 0, "c-0", size=256)
    key = MatchKey("acme", "filling")
    version = append(store, key, 0, "c-0")

    used = int(client.info("memory")["used_memory"])
    client.config_set("maxmemory", used + 256 * 1024)
    assert client.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"

    refused: redis.exceptions.ResponseError | None = None
    for number in range(1, 200):
        before = everything_stored(client, key)
        try:
            version = append(store, key, version, f"c-{number}")
        except redis.exceptions.ResponseError as error:
            refused = error
            break
    assert refused is not None, "Redis never reached maxmemory"
    assert OOM in str(refused)

    # Nothing of the refused append was written: no entry, no version bump, no command id, no snapshot.
    assert everything_stored(client, key) == before
    # No earlier match lost a key to eviction, and each still audits.
    for earlier_key in earlier:
        assert store.version(earlier_key) == 2
        assert store.audit(earlier_key).ok
    # Reads and audits of the full match work.
    assert [e.version for e in store.read(key)] == list(range(1, version + 1))
    assert store.latest(key).version == version
    assert store.audit(key).ok
    # Every further write is refused the same way while full, a new match's included.
    with pytest.raises(redis.exceptions.ResponseError, match="OOM"):
        append(store, MatchKey("acme", "new-match"), 0, "c-0")
    assert store.version(MatchKey("acme", "new-match")) == 0

    # Given room again, the refused command goes through once, under the same command id.
    client.config_set("maxmemory", 0)
    assert append(store, key, version, f"c-{number}") == version + 2
    assert store.audit(key).ok
    assert len({e.command_id for e in store.read(key)}) == number + 1
