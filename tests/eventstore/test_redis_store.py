"""What only the Redis store promises: its key layout, plain entries, and how it fails."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from redis.backoff import NoBackoff
from redis.crc import key_slot
from redis.retry import Retry

from devstack.processes import free_port
from gateway.eventstore.base import EventStoreUnavailable, MatchKey, NewEvent, VersionConflict
from gateway.eventstore.entries import ENTRY_FIELD, decode_entries
from gateway.eventstore.redis_store import RedisEventStore, match_keys

MATCH = MatchKey("acme", "match-1")


def append_one(store: RedisEventStore, expected_version: int, command_id: str) -> None:
    store.append(
        MATCH,
        expected_version,
        [NewEvent("card_played", b'{"card":1}')],
        actor="alice",
        command_id=command_id,
        rules_version="rc-1.0",
        snapshot=b"state",
    )


def test_all_keys_of_a_match_hash_to_one_cluster_slot() -> None:
    slots = {key_slot(key.encode()) for key in match_keys(MatchKey("tenant.A", "m_42-x"))}
    assert len(slots) == 1
    assert match_keys(MATCH).events == "gh:{acme:match-1}:events"


def test_entries_are_one_compact_field_each(redis_client: redis.Redis) -> None:
    """Format 2: one field `e` per entry; the version is the id, the prev_hash the entry before."""
    store = RedisEventStore(redis_client)
    append_one(store, 0, "c1")
    append_one(store, 1, "c2")

    entries: Any = redis_client.xrange("gh:{acme:match-1}:events")

    assert [entry_id for entry_id, _ in entries] == [b"1-0", b"2-0"]
    assert [list(fields) for _, fields in entries] == [[ENTRY_FIELD.encode()]] * 2
    first, second = decode_entries(entries)
    assert (second.version, second.payload, second.command_id) == (2, b'{"card":1}', "c2")
    assert second.prev_hash == first.hash and len(second.hash) == 64
    assert len(entries[1][1][b"e"]) < 100  # hashes as 32 raw bytes, no field names, no version
    assert redis_client.hget("gh:{acme:match-1}:commands", "c2") == b"2:2:alice"  # scoped to its actor
    assert redis_client.hget("gh:{acme:match-1}:snapshot", "version") == b"2"


def test_audit_notices_a_deleted_entry(redis_client: redis.Redis) -> None:
    store = RedisEventStore(redis_client)
    for version in range(3):
        append_one(store, version, f"c{version}")

    redis_client.xdel(match_keys(MATCH).events, "2-0")

    report = store.audit(MATCH)
    assert (report.ok, report.first_bad_version) == (False, 2)
    assert "3-0" in report.problem


def test_audit_notices_an_entry_with_a_missing_field(redis_client: redis.Redis) -> None:
    store = RedisEventStore(redis_client)
    append_one(store, 0, "c1")
    redis_client.xadd(match_keys(MATCH).events, {"version": "2", "type": "forged"}, id="2-0")

    report = store.audit(MATCH)
    assert (report.ok, report.first_bad_version) == (False, 2)


def test_audit_notices_a_stream_shorter_than_the_recorded_version(redis_client: redis.Redis) -> None:
    store = RedisEventStore(redis_client)
    for version in range(3):
        append_one(store, version, f"c{version}")

    redis_client.xtrim(match_keys(MATCH).events, maxlen=2, approximate=False)  # drops 1-0
    assert store.audit(MATCH).first_bad_version == 1
    redis_client.delete(match_keys(MATCH).events)
    report = store.audit(MATCH)
    assert (report.ok, report.events, report.first_bad_version) == (False, 0, 1)


def test_an_append_from_a_rewritten_head_conflicts_even_at_the_right_version(
    redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The script re-checks the head hash Python chained from, not just the version."""
    store = RedisEventStore(redis_client)
    append_one(store, 0, "c1")
    # Python reads a head that differs from the stored one (as if the stream were rewritten
    # between its read and the script): the script must refuse to chain from it.
    real_hget = redis_client.hget

    def forged_hget(name: str, key: str) -> Any:
        return b"f" * 64 if key == "head_hash" else real_hget(name, key)

    monkeypatch.setattr(redis_client, "hget", forged_hget)
    with pytest.raises(VersionConflict):
        append_one(RedisEventStore(redis_client), 1, "c2")  # a fresh store: no cached head
    monkeypatch.undo()

    assert store.version(MATCH) == 1
    assert store.audit(MATCH).ok


def test_an_unreachable_redis_is_reported_as_unavailable() -> None:
    nobody_listens = free_port()
    client = redis.Redis(port=nobody_listens, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))
    store = RedisEventStore(client)

    with pytest.raises(EventStoreUnavailable):
        store.version(MATCH)
    with pytest.raises(EventStoreUnavailable):
        append_one(store, 0, "c1")


def test_a_client_that_decodes_responses_is_refused(redis_url: str) -> None:
    with pytest.raises(ValueError, match="decode_responses"):
        RedisEventStore(redis.Redis.from_url(redis_url, decode_responses=True))


def test_the_store_works_over_resp3(redis_url: str, redis_client: redis.Redis) -> None:
    store = RedisEventStore(redis.Redis.from_url(redis_url, protocol=3))
    append_one(store, 0, "c1")

    assert [e.version for e in store.tail(MATCH, after_version=0, timeout_ms=100)] == [1]
    assert store.load_snapshot(MATCH) is not None
    assert store.audit(MATCH).ok


def test_replicas_appending_in_turn_to_one_match_keep_one_chain(redis_client: redis.Redis) -> None:
    replicas = [RedisEventStore(redis_client), RedisEventStore(redis_client)]
    for version in range(6):
        append_one(replicas[version % 2], version, f"c{version}")

    assert replicas[0].version(MATCH) == 6
    assert replicas[1].audit(MATCH).ok


def test_a_match_recreated_behind_the_stores_back_is_appended_from_its_new_head(
    redis_client: redis.Redis,
) -> None:
    """The head this store cached belongs to the old stream; the append must still chain correctly."""
    store = RedisEventStore(redis_client)
    append_one(store, 0, "c1")
    append_one(store, 1, "c2")

    redis_client.delete(*match_keys(MATCH))
    other_replica = RedisEventStore(redis_client)
    append_one(other_replica, 0, "d1")
    append_one(other_replica, 1, "d2")

    append_one(store, 2, "c3")
    assert [e.command_id for e in store.read(MATCH)] == ["d1", "d2", "c3"]
    assert store.audit(MATCH).ok
