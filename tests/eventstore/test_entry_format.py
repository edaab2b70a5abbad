"""Entry format 2 (gateway/eventstore/entries.py): what it leaves out comes back exactly; format-1
entries still read, alone and mixed with format 2; bad input writes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
import redis
import redis.asyncio

from gateway.domain.receipts import Receipt, encode_receipt
from gateway.eventstore.async_redis import AsyncRedisEventStore
from gateway.eventstore.base import GENESIS, MatchKey, NewEvent, StoredEvent, chain_hash
from gateway.eventstore.entries import (
    ENTRY_FIELD,
    EntryDecoder,
    MalformedEntry,
    NeedsContext,
    decode_entries,
    encode_entry,
    fields_of,
)
from gateway.eventstore.redis_store import RedisEventStore, match_keys

KEY = MatchKey("acme", "fmt")


def _stored(version: int, prev: str, type: str, payload: bytes, **beside: bytes) -> StoredEvent:
    entry_hash = chain_hash(prev, version, type, "seat:1", "cmd-7", "rc-2.0", 1_700_000_000_123, payload)
    return StoredEvent(
        version, type, "seat:1", "cmd-7", payload, "rc-2.0", 1_700_000_000_123, prev, entry_hash, **beside
    )


def _value(event: StoredEvent, *, continues: bool) -> bytes:
    extra = {name: blob for name, blob in (("action", event.action), ("receipt", event.receipt)) if blob}
    return encode_entry(
        event.version, event.type, event.actor, event.command_id, event.rules_version, event.time_ms,
        event.payload, event.hash, extra, continues=continues,
    )  # fmt: skip


def test_an_append_round_trips_through_format_2_with_nothing_lost() -> None:
    first = _stored(5, "ab" * 32, "card_played", b'{"type":"card_played","card":3}', action=b'{"take":1}')
    second = _stored(6, first.hash, 'card "dealt"', b'{"card":4}')  # its payload does not begin with it
    third = _stored(7, second.hash, "turn_passed", b'{"type":"turn_passed"}')
    receipt = encode_receipt(Receipt("key-1", 7, third.hash, b"\x01" * 64))
    third = msgspec.structs.replace(third, receipt=receipt)
    values = [_value(first, continues=False), _value(second, continues=True), _value(third, continues=True)]

    decoder = EntryDecoder(first.prev_hash)
    decoded = [
        decoder.decode(f"{v}-0".encode(), {b"e": value}) for v, value in zip((5, 6, 7), values, strict=True)
    ]

    assert decoded == [first, second, third]
    # what the values left out: the version, prev_hash, the append's values after its first, the
    # type the payload begins with, the receipt's version and head; the hash is 32 raw bytes
    assert len(values[2]) < 3 + len(third.payload) + 34 + 2 + 8 + 66 + 3
    assert msgspec.msgpack.decode(values[2])[0] == ""
    assert msgspec.msgpack.decode(values[1])[0] == second.type
    assert msgspec.msgpack.decode(values[2])[4] == ["key-1", b"\x01" * 64]


def test_a_receipt_of_another_version_or_head_is_kept_as_given() -> None:
    event = _stored(3, GENESIS, "x", b"{}")
    foreign = encode_receipt(Receipt("key-1", 2, event.hash, b"\x02" * 64))
    event = msgspec.structs.replace(event, receipt=foreign)
    value = _value(event, continues=False)
    assert msgspec.msgpack.decode(value)[4] == foreign
    assert EntryDecoder(GENESIS).decode(b"3-0", {b"e": value}).receipt == foreign


def test_bad_entries_are_named_not_guessed() -> None:
    event = _stored(2, GENESIS, "x", b"{}")
    continuation = _value(event, continues=True)
    with pytest.raises(NeedsContext):  # the append's first entry was not read
        EntryDecoder(None).decode(b"2-0", {b"e": continuation})
    with pytest.raises(MalformedEntry):  # a continuation cannot begin a stream
        EntryDecoder().decode(b"1-0", {b"e": continuation})
    with pytest.raises(MalformedEntry):
        EntryDecoder().decode(b"2-0", {b"e": b"\x93\x01\x02"})
    with pytest.raises(MalformedEntry):
        EntryDecoder().decode(b"2-1", {b"e": _value(event, continues=False)})
    with pytest.raises(ValueError, match="64 hex"):
        encode_entry(1, "x", "a", "c", "r", 0, b"{}", "ab" * 31)
    with pytest.raises(ValueError, match="only action, receipt"):
        encode_entry(1, "x", "a", "c", "r", 0, b"{}", "ab" * 32, {"note": b"1"})


def test_an_unknown_field_beside_the_chain_writes_nothing(redis_url: str, redis_client: redis.Redis) -> None:
    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        store = AsyncRedisEventStore(client)
        try:
            with pytest.raises(ValueError, match="only action, receipt"):
                await store.append(
                    KEY, 0, GENESIS, [NewEvent("x", b"{}")], actor="a", command_id="c", rules_version="r",
                    time_ms=0, extra=[{"note": b"1"}],
                )  # fmt: skip
        finally:
            await store.aclose()
            await client.aclose()

    asyncio.run(scenario())
    assert not any(redis_client.exists(name) for name in match_keys(KEY))


def _append(store: RedisEventStore, version: int, count: int, command_id: str) -> int:
    events = [NewEvent("card_played", b'{"type":"card_played","n":%d}' % (version + i)) for i in range(count)]
    appended = store.append(KEY, version, events, actor="seat:0", command_id=command_id, rules_version="rc")
    return appended.last_version


def test_format_1_entries_still_read_and_audit_beside_format_2(redis_client: redis.Redis) -> None:
    """A match stored before format 2 and appended to now: its stream mixes both."""
    store = RedisEventStore(redis_client)
    version = 0
    for n, count in enumerate((1, 3, 2)):
        version = _append(store, version, count, f"old{n}")
    events_key = match_keys(KEY).events
    old = decode_entries(redis_client.xrange(events_key))  # type: ignore[arg-type]
    redis_client.delete(events_key)
    for event in old:  # as format 1 wrote them
        redis_client.xadd(events_key, fields_of(event, format=1), id=f"{event.version}-0")  # type: ignore[arg-type]
    fresh = RedisEventStore(redis_client)  # no cached head
    for n, count in enumerate((2, 3)):
        version = _append(fresh, version, count, f"new{n}")

    raw: Any = redis_client.xrange(events_key)
    assert [ENTRY_FIELD.encode() in fields for _, fields in raw] == [False] * 6 + [True] * 5
    everything = fresh.read(KEY)
    assert everything[:6] == old and [e.version for e in everything] == list(range(1, 12))
    assert all(e.prev_hash == before.hash for before, e in zip(everything, everything[1:], strict=False))
    assert fresh.audit(KEY).ok
    # reads from any version, at an append's end or inside an append, of either format
    for after in range(12):
        assert fresh.read(KEY, after_version=after) == everything[after:]
        assert fresh.read(KEY, after_version=after, limit=2) == everything[after : after + 2]


def test_a_read_from_inside_a_long_append_finds_its_first_entry(
    redis_url: str, redis_client: redis.Redis
) -> None:
    store = RedisEventStore(redis_client)
    version = _append(store, _append(store, 0, 1, "a"), 40, "long")  # versions 2..41: one append
    everything = store.read(KEY)
    assert version == 41 and {e.command_id for e in everything[1:]} == {"long"}

    async def reads() -> list[list[StoredEvent]]:
        client = redis.asyncio.Redis.from_url(redis_url)
        store = AsyncRedisEventStore(client)
        try:
            return [await store.read(KEY, after_version=after, limit=3) for after in (1, 2, 20, 39)]
        finally:
            await store.aclose()
            await client.aclose()

    assert asyncio.run(reads()) == [everything[a : a + 3] for a in (1, 2, 20, 39)]
    assert store.read(KEY, after_version=30) == everything[30:]
