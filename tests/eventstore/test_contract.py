"""The event-store contract, run against the Redis store and its in-memory twin alike."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
import redis

from gateway.eventstore.base import (
    GENESIS,
    AppendResult,
    CommandIdInUse,
    CommandIdReused,
    EventStore,
    MatchKey,
    NewEvent,
    StoredEvent,
    VersionConflict,
    action_digest,
    chain_hash,
)
from gateway.eventstore.entries import decode_entries, fields_of
from gateway.eventstore.memory import InMemoryEventStore
from gateway.eventstore.redis_store import RedisEventStore, match_keys

MATCH = MatchKey("acme", "match-1")
OTHER_MATCH = MatchKey("acme", "match-2")
START_MS = 1_700_000_000_000

Tamper = Callable[[MatchKey, int, bytes], None]


class StepClock:
    """A clock that ticks one millisecond per reading, so stamps are predictable."""

    def __init__(self) -> None:
        self._ticks = itertools.count(START_MS)

    def __call__(self) -> int:
        return next(self._ticks)


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def store_and_tamper(request: pytest.FixtureRequest) -> tuple[EventStore, Tamper]:
    """A fresh, empty store, plus a way to edit one stored payload behind the store's back."""
    if request.param == "memory":
        memory = InMemoryEventStore(clock=StepClock())
        return memory, memory.tamper_for_tests

    # The same store on one Redis and on a Redis Cluster: every key of a match shares a slot.
    fixture = "redis_cluster_client" if request.param == "redis-cluster" else "redis_client"
    client: redis.Redis = request.getfixturevalue(fixture)

    def rewrite_payload_in_redis(key: MatchKey, version: int, payload: bytes) -> None:
        # Stream entries cannot be edited in place, so an attacker rewrites the whole stream.
        # The entry keeps its format (2: one msgpack field) and its stored hash.
        events_key = match_keys(key).events
        entries: Any = client.xrange(events_key)
        client.delete(events_key)
        for event in decode_entries(entries):
            if event.version == version:
                event = msgspec.structs.replace(event, payload=payload)
            client.xadd(events_key, fields_of(event), id=f"{event.version}-0")

    return RedisEventStore(client, clock=StepClock()), rewrite_payload_in_redis


@pytest.fixture
def store(store_and_tamper: tuple[EventStore, Tamper]) -> EventStore:
    return store_and_tamper[0]


def event(n: int) -> NewEvent:
    return NewEvent(type="card_played", payload=b'{"card":%d}' % n)


def append(
    store: EventStore, expected_version: int, *events: NewEvent, command_id: str, key: MatchKey = MATCH
) -> AppendResult:
    return store.append(
        key, expected_version, list(events), actor="alice", command_id=command_id, rules_version="rc-1.0"
    )


def fill(store: EventStore, count: int, key: MatchKey = MATCH) -> None:
    for n in range(count):
        append(store, n, event(n), command_id=f"fill-{n}", key=key)


# Append, read, version


def test_a_match_without_events_is_at_version_zero(store: EventStore) -> None:
    assert store.version(MATCH) == 0
    assert store.read(MATCH) == []
    assert store.load_snapshot(MATCH) is None
    assert store.meta(MATCH) == {}


def test_appended_events_are_numbered_from_one_and_read_back_in_order(store: EventStore) -> None:
    result = append(store, 0, event(1), event(2), command_id="c1")

    assert result == AppendResult(first_version=1, last_version=2, duplicate=False)
    assert store.version(MATCH) == 2
    first, second = store.read(MATCH)
    assert (first.version, first.payload, second.version, second.payload) == (
        1,
        b'{"card":1}',
        2,
        b'{"card":2}',
    )
    assert {(e.type, e.actor, e.command_id, e.rules_version) for e in (first, second)} == {
        ("card_played", "alice", "c1", "rc-1.0")
    }


def test_the_next_append_continues_the_numbering(store: EventStore) -> None:
    append(store, 0, event(1), command_id="c1")
    result = append(store, 1, event(2), event(3), command_id="c2")

    assert (result.first_version, result.last_version) == (2, 3)
    assert [e.version for e in store.read(MATCH)] == [1, 2, 3]


def test_reading_after_a_version_returns_only_later_events(store: EventStore) -> None:
    fill(store, 5)

    assert [e.version for e in store.read(MATCH, after_version=3)] == [4, 5]
    assert store.read(MATCH, after_version=5) == []
    assert store.read(MATCH, after_version=50) == []


def test_a_limit_caps_how_many_events_are_read(store: EventStore) -> None:
    fill(store, 5)

    assert [e.version for e in store.read(MATCH, after_version=1, limit=2)] == [2, 3]
    assert [e.version for e in store.read(MATCH, limit=10)] == [1, 2, 3, 4, 5]
    assert store.read(MATCH, limit=0) == []


def test_matches_do_not_see_each_others_events(store: EventStore) -> None:
    fill(store, 2)
    append(store, 0, event(9), command_id="fill-0", key=OTHER_MATCH)  # same command id, other match

    assert store.version(MATCH) == 2
    assert [e.payload for e in store.read(OTHER_MATCH)] == [b'{"card":9}']


def test_the_store_stamps_the_time_from_its_clock(store: EventStore) -> None:
    append(store, 0, event(1), event(2), command_id="c1")
    append(store, 2, event(3), command_id="c2")

    stamps = [e.time_ms for e in store.read(MATCH)]
    assert stamps[0] == stamps[1] >= START_MS  # one append, one instant
    assert stamps[2] > stamps[1]


def test_each_entry_is_chained_to_the_one_before(store: EventStore) -> None:
    fill(store, 3)

    previous_hash = GENESIS
    for stored in store.read(MATCH):
        assert stored.prev_hash == previous_hash
        assert stored.hash == chain_hash(
            stored.prev_hash,
            stored.version,
            stored.type,
            stored.actor,
            stored.command_id,
            stored.rules_version,
            stored.time_ms,
            stored.payload,
        )
        previous_hash = stored.hash
    assert store.meta(MATCH)["head_hash"] == previous_hash


# Expected-version conflicts


def test_appending_at_a_stale_version_conflicts_and_writes_nothing(store: EventStore) -> None:
    append(store, 0, event(1), event(2), command_id="c1")

    with pytest.raises(VersionConflict) as conflict:
        store.append(
            MATCH, 1, [event(3)], actor="bob", command_id="c2", rules_version="rc-1.0",
            snapshot=b"state", meta={"winner": "bob"},
        )  # fmt: skip

    assert (conflict.value.expected, conflict.value.actual) == (1, 2)
    assert store.version(MATCH) == 2
    assert len(store.read(MATCH)) == 2
    assert store.load_snapshot(MATCH) is None
    assert "winner" not in store.meta(MATCH)


def test_appending_ahead_of_the_stream_conflicts(store: EventStore) -> None:
    with pytest.raises(VersionConflict) as conflict:
        append(store, 3, event(1), command_id="c1")

    assert (conflict.value.expected, conflict.value.actual) == (3, 0)
    assert store.version(MATCH) == 0


def test_a_conflicting_command_id_can_be_retried_at_the_right_version(store: EventStore) -> None:
    append(store, 0, event(1), command_id="c1")
    with pytest.raises(VersionConflict):
        append(store, 0, event(2), command_id="c2")

    assert append(store, 1, event(2), command_id="c2") == AppendResult(2, 2)


# Idempotent command ids


def test_a_repeated_command_id_returns_the_first_result_and_appends_nothing(store: EventStore) -> None:
    first = append(store, 0, event(1), event(2), command_id="c1")
    again = append(store, 0, event(1), event(2), command_id="c1")

    assert again == AppendResult(first_version=1, last_version=2, duplicate=True)
    assert first.duplicate is False
    assert store.version(MATCH) == 2


def test_a_repeated_command_id_is_recognised_even_at_a_stale_version(store: EventStore) -> None:
    append(store, 0, event(1), command_id="c1")
    append(store, 1, event(2), event(3), command_id="c2")

    assert append(store, 1, event(2), command_id="c2") == AppendResult(2, 3, duplicate=True)
    assert append(store, 0, event(1), command_id="c1") == AppendResult(1, 1, duplicate=True)
    assert store.version(MATCH) == 3


def test_a_command_id_used_by_another_actor_is_refused_and_writes_nothing(store: EventStore) -> None:
    append(store, 0, event(1), command_id="c1")  # by alice

    with pytest.raises(CommandIdInUse):
        store.append(MATCH, 1, [event(2)], actor="bob", command_id="c1", rules_version="rc-1.0")
    assert store.version(MATCH) == 1
    assert append(store, 1, event(2), command_id="c1") == AppendResult(1, 1, duplicate=True)


def _digested(
    store: EventStore, version: int, *events: NewEvent, command_id: str, digest: str
) -> AppendResult:
    return store.append(
        MATCH, version, list(events), actor="alice", command_id=command_id, rules_version="rc-1.0",
        command_digest=digest,
    )  # fmt: skip


def test_a_command_id_reused_for_another_action_is_refused_and_writes_nothing(store: EventStore) -> None:
    """Issue 39 item 11: a command id names one action; sent again with another, it is refused,
    at the right version or a stale one, and the same action still answers its first result."""
    play_card = action_digest("action", b'{"type": "play", "card": 3}')
    first = _digested(store, 0, event(1), command_id="c1", digest=play_card)

    passing = action_digest("action", b'{"type":"pass"}')
    for version in (1, 0):
        with pytest.raises(CommandIdReused) as refused:
            _digested(store, version, event(2), command_id="c1", digest=passing)
        assert refused.value.first == AppendResult(1, 1)
        assert "another action" in str(refused.value)
    with pytest.raises(CommandIdReused):
        _digested(store, 1, event(2), command_id="c1", digest=action_digest("resign"))
    assert store.version(MATCH) == 1

    # The same action, however its JSON is spelt, is a repeat.
    respelt = action_digest("action", b'{"card":3,"type":"play"}')
    again = _digested(store, 1, event(2), command_id="c1", digest=respelt)
    assert again == AppendResult(1, 1, duplicate=True)
    assert first == AppendResult(1, 1)


def test_a_command_id_first_used_without_a_digest_answers_its_first_result(store: EventStore) -> None:
    """Records written before digests were kept hold none: a repeat then answers as before."""
    append(store, 0, event(1), command_id="c1")
    again = _digested(store, 1, event(2), command_id="c1", digest=action_digest("action", b"{}"))
    assert again == AppendResult(1, 1, duplicate=True)


# The one read before a decision


def test_latest_of_an_unknown_match_is_empty(store: EventStore) -> None:
    latest = store.latest(MATCH, "c1")
    assert latest.meta == {} and latest.snapshot is None and latest.newer == [] and latest.command is None
    assert latest.version == 0


def test_latest_reads_meta_snapshot_and_only_the_events_after_the_snapshot(store: EventStore) -> None:
    store.append(
        MATCH,
        0,
        [event(1)],
        actor="a",
        command_id="c1",
        rules_version="r",
        snapshot=b"s1",
        meta={"game": "rattus_cartus"},
    )
    append(store, 1, event(2), event(3), command_id="c2")  # no snapshot: the cache lags behind
    latest = store.latest(MATCH)
    assert latest.version == 3 and latest.meta["game"] == "rattus_cartus"
    assert latest.snapshot is not None and (latest.snapshot.version, latest.snapshot.state) == (1, b"s1")
    assert [e.version for e in latest.newer] == [2, 3]
    store.append(MATCH, 3, [event(4)], actor="a", command_id="c3", rules_version="r", snapshot=b"s4")
    current = store.latest(MATCH)
    assert current.snapshot is not None and current.snapshot.version == 4 and current.newer == []


def test_latest_answers_whether_a_command_was_already_applied(store: EventStore) -> None:
    append(store, 0, event(1), event(2), command_id="c1")
    assert store.latest(MATCH, "c1").command == AppendResult(1, 2, duplicate=True)
    assert store.latest(MATCH, "c2").command is None
    assert store.latest(MATCH).command is None
    assert store.latest(OTHER_MATCH, "c1").command is None


# Snapshots and meta


def test_a_snapshot_is_stored_at_the_version_it_was_appended_with(store: EventStore) -> None:
    append(store, 0, event(1), command_id="c1")
    store.append(
        MATCH,
        1,
        [event(2), event(3)],
        actor="alice",
        command_id="c2",
        rules_version="rc-1.1",
        snapshot=b"\x00s3",
    )
    append(store, 3, event(4), command_id="c3")  # no snapshot: the last one stays

    snapshot = store.load_snapshot(MATCH)
    assert snapshot is not None
    assert (snapshot.version, snapshot.rules_version, snapshot.state) == (3, "rc-1.1", b"\x00s3")


def test_meta_fields_are_merged_across_appends(store: EventStore) -> None:
    store.append(
        MATCH, 0, [event(1)], actor="alice", command_id="c1", rules_version="rc-1.0",
        meta={"game": "rattus_cartus", "players": "alice,bob", "created_at": "1700000000000"},
    )  # fmt: skip
    store.append(
        MATCH,
        1,
        [event(2)],
        actor="alice",
        command_id="c2",
        rules_version="rc-1.0",
        meta={"status": "finished"},
    )

    meta = store.meta(MATCH)
    assert {k: meta[k] for k in ("game", "players", "created_at", "status")} == {
        "game": "rattus_cartus",
        "players": "alice,bob",
        "created_at": "1700000000000",
        "status": "finished",
    }
    assert meta["version"] == "2"
    assert meta["head_hash"] == store.read(MATCH)[-1].hash


def test_meta_may_not_overwrite_the_fields_the_store_keeps(store: EventStore) -> None:
    with pytest.raises(ValueError, match="maintained by the store"):
        store.append(
            MATCH, 0, [event(1)], actor="a", command_id="c1", rules_version="r", meta={"version": "9"}
        )
    assert store.version(MATCH) == 0


# Argument checks


def test_an_append_without_events_is_rejected(store: EventStore) -> None:
    with pytest.raises(ValueError):
        store.append(MATCH, 0, [], actor="alice", command_id="c1", rules_version="rc-1.0")


@pytest.mark.parametrize(("expected_version", "command_id"), [(-1, "c1"), (0, "")])
def test_an_append_with_a_negative_version_or_no_command_id_is_rejected(
    store: EventStore, expected_version: int, command_id: str
) -> None:
    with pytest.raises(ValueError):
        append(store, expected_version, event(1), command_id=command_id)


# Tail


def test_tail_returns_events_that_already_exist_at_once(store: EventStore) -> None:
    fill(store, 3)

    started = time.monotonic()
    assert [e.version for e in store.tail(MATCH, after_version=1, timeout_ms=5000)] == [2, 3]
    assert time.monotonic() - started < 1


def test_tail_times_out_with_no_events(store: EventStore) -> None:
    fill(store, 1)

    started = time.monotonic()
    assert store.tail(MATCH, after_version=1, timeout_ms=150) == []
    assert time.monotonic() - started >= 0.1
    assert store.tail(MATCH, after_version=1, timeout_ms=0) == []


@pytest.mark.parametrize("existing_events", [0, 2])
def test_tail_wakes_up_when_another_thread_appends(store: EventStore, existing_events: int) -> None:
    fill(store, existing_events)

    def append_a_little_later() -> None:
        time.sleep(0.2)
        append(store, existing_events, event(7), command_id="late")

    appender = threading.Thread(target=append_a_little_later)
    started = time.monotonic()
    appender.start()
    woken_with = store.tail(MATCH, after_version=existing_events, timeout_ms=10_000)
    appender.join()

    assert [e.payload for e in woken_with] == [b'{"card":7}']
    assert time.monotonic() - started < 5


# Audit


def test_audit_accepts_an_untouched_stream(store: EventStore) -> None:
    assert store.audit(MATCH).ok  # an empty match is trivially intact
    fill(store, 4)

    report = store.audit(MATCH)
    assert report.ok, report.problem
    assert (report.events, report.head_hash, report.first_bad_version) == (
        4,
        store.read(MATCH)[-1].hash,
        None,
    )


def test_audit_finds_the_first_edited_entry(store_and_tamper: tuple[EventStore, Tamper]) -> None:
    store, tamper = store_and_tamper
    fill(store, 4)

    tamper(MATCH, 2, b'{"card":"ace"}')

    report = store.audit(MATCH)
    assert not report.ok
    assert report.first_bad_version == 2
    assert "hash" in report.problem


# Concurrency


def test_of_appenders_racing_at_the_same_version_exactly_one_wins(store: EventStore) -> None:
    racers = 8
    fill(store, 1)
    start_together = threading.Barrier(racers)
    outcomes: list[AppendResult | VersionConflict] = []

    def race(n: int) -> None:
        start_together.wait()
        try:
            outcomes.append(append(store, 1, event(n), command_id=f"racer-{n}"))
        except VersionConflict as conflict:
            outcomes.append(conflict)

    threads = [threading.Thread(target=race, args=(n,)) for n in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    winners = [o for o in outcomes if isinstance(o, AppendResult)]
    assert len(winners) == 1 and winners[0] == AppendResult(2, 2)
    assert all(o.actual == 2 for o in outcomes if isinstance(o, VersionConflict))
    assert store.version(MATCH) == 2


def test_appenders_retrying_on_conflict_build_one_gap_free_chain(store: EventStore) -> None:
    writers, appends_each = 4, 15

    def keep_appending(writer: int) -> None:
        for n in range(appends_each):
            while True:
                try:
                    append(store, store.version(MATCH), event(n), command_id=f"w{writer}-{n}")
                    break
                except VersionConflict:
                    continue  # someone else got there first: reload the version and try again

    threads = [threading.Thread(target=keep_appending, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    stored: list[StoredEvent] = store.read(MATCH)
    assert [e.version for e in stored] == list(range(1, writers * appends_each + 1))
    assert len({e.command_id for e in stored}) == writers * appends_each
    assert store.audit(MATCH).ok


# Match keys


@pytest.mark.parametrize(
    ("tenant", "match_id"),
    [
        ("", "m1"),
        ("acme", ""),
        ("ac{me", "m1"),
        ("acme", "m}1"),
        ("acme", "m:1"),
        ("a cme", "m1"),
        ("a" * 65, "m"),
    ],
)
def test_a_match_key_with_unsafe_characters_is_rejected(tenant: str, match_id: str) -> None:
    with pytest.raises(ValueError):
        MatchKey(tenant, match_id)


def test_a_match_key_accepts_letters_digits_dots_underscores_and_dashes() -> None:
    assert MatchKey("Acme.Games_2", "a" * 64).tenant == "Acme.Games_2"


def test_the_chain_hash_cannot_be_fooled_by_moving_bytes_between_fields() -> None:
    base = chain_hash(GENESIS, 1, "ab", "c", "id", "r", 1, b"x")
    assert chain_hash(GENESIS, 1, "a", "bc", "id", "r", 1, b"x") != base
    assert chain_hash(GENESIS, 11, "b", "c", "id", "r", 1, b"x") != base
