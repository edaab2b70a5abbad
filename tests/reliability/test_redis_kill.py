"""Redis SIGKILLed under AOF `appendfsync always`: nothing acknowledged is lost, in-doubt appends
retried with their command ids land exactly once, and meanwhile callers get
EventStoreUnavailable, never a wrong answer (an empty match, a conflict, a stale version)."""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from devstack.processes import RedisProcess
from gateway.eventstore.base import EventStoreUnavailable, MatchKey, NewEvent, StoredEvent, VersionConflict
from gateway.eventstore.redis_store import RedisEventStore
from tests.reliability.proxy import LossyProxy

RULES_VERSION = "reliability-1"
WRITERS = 4


def events_for(match: str, number: int) -> list[NewEvent]:
    """One to three events per command, so appends of several entries are killed mid-way too."""
    return [
        NewEvent("step", json.dumps({"match": match, "command": number, "part": part}).encode())
        for part in range(1 + number % 3)
    ]


def wait_for(condition: object, timeout_s: float = 60.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.01)


@dataclass
class Writer:
    """One client appending to its own match as fast as it can, keeping a ledger of what was
    acknowledged; an append that fails as unavailable is in doubt and is retried with the
    same command id until Redis answers."""

    store: RedisEventStore
    key: MatchKey
    stop: threading.Event
    acked: dict[str, tuple[int, int, list[bytes]]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    unavailable: int = 0
    in_doubt_applied_before: int = 0  # retries answered "duplicate": the lost append had landed
    in_doubt_applied_on_retry: int = 0
    wrong_answers: list[str] = field(default_factory=list)

    def run(self) -> None:
        version, number = 0, 0
        while not self.stop.is_set():
            command_id = f"{self.key.match_id}-c{number}"
            events = events_for(self.key.match_id, number)
            in_doubt = False
            while True:
                try:
                    result = self.store.append(
                        self.key,
                        version,
                        events,
                        actor="seat:0",
                        command_id=command_id,
                        rules_version=RULES_VERSION,
                        snapshot=f"after {command_id}".encode(),
                    )
                    break
                except EventStoreUnavailable:
                    self.unavailable += 1
                    in_doubt = True
                    time.sleep(0.01)
                except VersionConflict as conflict:  # one writer per match: a conflict is a lie
                    self.wrong_answers.append(f"{command_id}: {conflict}")
                    return
            expected = (version + 1, version + len(events))
            if (result.first_version, result.last_version) != expected:
                self.wrong_answers.append(f"{command_id}: versions {result} where {expected} were due")
                return
            if result.duplicate and not in_doubt:
                self.wrong_answers.append(f"{command_id}: a fresh command answered as a repeat")
                return
            if in_doubt:
                if result.duplicate:
                    self.in_doubt_applied_before += 1
                else:
                    self.in_doubt_applied_on_retry += 1
            self.acked[command_id] = (*expected, [e.payload for e in events])
            self.order.append(command_id)
            version, number = result.last_version, number + 1


def check_stream_against_ledger(stream: list[StoredEvent], writer: Writer) -> None:
    """Every acknowledged command is in the stream once, at its versions, with its payloads;
    nothing else is."""
    by_command: dict[str, list[StoredEvent]] = defaultdict(list)
    for event in stream:
        by_command[event.command_id].append(event)
    assert set(by_command) == set(writer.acked), "the stream and the acknowledgements differ"
    for command_id, (first, last, payloads) in writer.acked.items():
        stored = by_command[command_id]
        assert [e.version for e in stored] == list(range(first, last + 1)), command_id
        assert [e.payload for e in stored] == payloads, command_id
    assert [e.version for e in stream] == list(range(1, len(stream) + 1))


def test_acknowledged_appends_survive_sigkill_and_in_doubt_ones_apply_once(aof_redis: RedisProcess) -> None:
    stop = threading.Event()
    client = aof_redis.client()
    store = RedisEventStore(client)
    writers = [Writer(store, MatchKey("acme", f"kill-{n}"), stop) for n in range(WRITERS)]
    threads = [threading.Thread(target=w.run, daemon=True) for w in writers]
    for thread in threads:
        thread.start()
    try:
        wait_for(lambda: all(len(w.acked) >= 10 for w in writers), what="appends before the kill")
        aof_redis.kill()
        # While Redis is down every writer's append fails as unavailable (the ledger checks
        # below prove none of those failures was a wrong answer).
        wait_for(lambda: all(w.unavailable > 0 for w in writers), what="writers noticing the outage")

        probe = RedisEventStore(aof_redis.client())
        key = writers[0].key
        for call in (
            lambda: probe.read(key),
            lambda: probe.latest(key, "some-command"),
            lambda: probe.version(key),
            lambda: probe.meta(key),
            lambda: probe.audit(key),
            lambda: probe.append(key, 0, events_for("x", 0), actor="a", command_id="x", rules_version="r"),
        ):
            with pytest.raises(EventStoreUnavailable):
                call()

        aof_redis.start()
        after_restart = {id(w): len(w.acked) for w in writers}
        wait_for(
            lambda: all(len(w.acked) >= after_restart[id(w)] + 10 for w in writers),
            what="appends after the restart",
        )
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)

    for writer in writers:
        assert writer.wrong_answers == []
    # Restart once more: what the second run acknowledged is on disk too.
    aof_redis.restart()
    verifier = RedisEventStore(aof_redis.client())
    for writer in writers:
        stream = verifier.read(writer.key)
        check_stream_against_ledger(stream, writer)
        assert verifier.audit(writer.key).ok
        assert verifier.version(writer.key) == len(stream)


def appended(store: RedisEventStore, key: MatchKey, version: int, command_id: str) -> tuple[int, int, bool]:
    result = store.append(
        key,
        version,
        events_for(key.match_id, version),
        actor="seat:1",
        command_id=command_id,
        rules_version=RULES_VERSION,
        snapshot=b"s",
    )
    return result.first_version, result.last_version, result.duplicate


def test_an_append_whose_reply_was_lost_in_a_crash_lands_once_when_retried(aof_redis: RedisProcess) -> None:
    key = MatchKey("acme", "lost-reply")
    with LossyProxy(aof_redis.port) as proxy:
        client = redis.Redis(port=proxy.port, retry=Retry(NoBackoff(), 0), socket_timeout=5)
        store = RedisEventStore(client)
        assert appended(store, key, 0, "c-0") == (1, 1, False)  # also loads the script

        proxy.lose_next_reply()
        with pytest.raises(EventStoreUnavailable):
            appended(store, key, 1, "c-1")  # executed by Redis, the answer cut off
        assert proxy.replies_lost == 1
        aof_redis.kill()
        aof_redis.start()

        # In doubt, the client retries with the same command id: the first result, not a 2nd copy.
        assert appended(store, key, 1, "c-1") == (2, 3, True)
        assert appended(store, key, 3, "c-2") == (4, 4, False)

    stream = RedisEventStore(aof_redis.client()).read(key)
    assert [e.command_id for e in stream] == ["c-0", "c-1", "c-1", "c-2"]
    assert RedisEventStore(aof_redis.client()).audit(key).ok


def test_an_append_refused_by_a_dead_redis_lands_once_when_retried(aof_redis: RedisProcess) -> None:
    key = MatchKey("acme", "refused")
    store = RedisEventStore(aof_redis.client())
    assert appended(store, key, 0, "c-0") == (1, 1, False)
    aof_redis.kill()
    with pytest.raises(EventStoreUnavailable):
        appended(store, key, 1, "c-1")
    aof_redis.start()

    assert appended(store, key, 1, "c-1") == (2, 3, False)  # it had not landed: it lands now
    assert appended(store, key, 1, "c-1") == (2, 3, True)  # and a further retry is the same answer
    assert [e.command_id for e in store.read(key)] == ["c-0", "c-1", "c-1"]
    assert store.audit(key).ok
