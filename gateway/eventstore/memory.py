"""In-memory twin of the Redis event store: same contract, for unit tests and single-process runs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import msgspec

from gateway.eventstore.base import (
    GENESIS,
    AppendResult,
    AuditReport,
    CommandIdInUse,
    CommandIdReused,
    Latest,
    MatchKey,
    NewEvent,
    Snapshot,
    StoredEvent,
    VersionConflict,
    audit_events,
    chain_hash,
    check_append_arguments,
    wall_clock_ms,
)


@dataclass
class _Match:
    events: list[StoredEvent] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    snapshot: Snapshot | None = None
    # command id -> (actor, action digest, first result)
    results_by_command: dict[str, tuple[str, str, AppendResult]] = field(default_factory=dict)

    @property
    def head_hash(self) -> str:
        return self.events[-1].hash if self.events else GENESIS


class InMemoryEventStore:
    """Thread-safe: one lock guards every match; a condition wakes `tail` watchers on append."""

    def __init__(self, clock: Callable[[], int] = wall_clock_ms) -> None:
        self._clock = clock
        self._matches: dict[MatchKey, _Match] = {}
        self._lock = threading.Lock()
        self._appended = threading.Condition(self._lock)

    def append(
        self,
        key: MatchKey,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        actor: str,
        command_id: str,
        rules_version: str,
        snapshot: bytes | None = None,
        meta: Mapping[str, str] | None = None,
        command_digest: str = "",
    ) -> AppendResult:
        check_append_arguments(expected_version, events, command_id, meta)
        with self._lock:
            match = self._matches.get(key) or _Match()
            # The command id is checked before the version: a retry of an applied command must
            # get its first answer back, even though its expected version is stale by now.
            first = match.results_by_command.get(command_id)
            if first is not None:
                used_by, used_for, result = first
                if used_by != actor:
                    raise CommandIdInUse(command_id, used_by)
                if used_for and command_digest and used_for != command_digest:
                    raise CommandIdReused(command_id, result)
                return msgspec.structs.replace(result, duplicate=True)
            if len(match.events) != expected_version:
                raise VersionConflict(expected_version, len(match.events))

            time_ms = self._clock()
            head = match.head_hash
            for version, event in enumerate(events, start=expected_version + 1):
                entry_hash = chain_hash(
                    head, version, event.type, actor, command_id, rules_version, time_ms, event.payload
                )
                match.events.append(
                    StoredEvent(
                        version=version,
                        type=event.type,
                        actor=actor,
                        command_id=command_id,
                        payload=event.payload,
                        rules_version=rules_version,
                        time_ms=time_ms,
                        prev_hash=head,
                        hash=entry_hash,
                    )
                )
                head = entry_hash

            result = AppendResult(first_version=expected_version + 1, last_version=len(match.events))
            match.results_by_command[command_id] = (actor, command_digest, result)
            if meta:
                match.meta.update(meta)
            if snapshot is not None:
                match.snapshot = Snapshot(result.last_version, rules_version, snapshot)
            self._matches[key] = match
            self._appended.notify_all()
            return result

    def read(self, key: MatchKey, after_version: int = 0, limit: int | None = None) -> list[StoredEvent]:
        with self._lock:
            return self._read_locked(key, after_version, limit)

    def latest(self, key: MatchKey, command_id: str | None = None) -> Latest:
        with self._lock:
            match = self._matches.get(key)
            if match is None:
                return Latest({}, None, [])
            snapshot = match.snapshot
            newer = self._read_locked(key, snapshot.version if snapshot else 0, None)
            first = match.results_by_command.get(command_id) if command_id else None
            meta = {**match.meta, "version": str(len(match.events)), "head_hash": match.head_hash}
        command = None if first is None else msgspec.structs.replace(first[2], duplicate=True)
        return Latest(meta, snapshot, newer, command)

    def version(self, key: MatchKey) -> int:
        with self._lock:
            match = self._matches.get(key)
            return len(match.events) if match else 0

    def load_snapshot(self, key: MatchKey) -> Snapshot | None:
        with self._lock:
            match = self._matches.get(key)
            return match.snapshot if match else None

    def meta(self, key: MatchKey) -> dict[str, str]:
        with self._lock:
            match = self._matches.get(key)
            if match is None:
                return {}
            return {**match.meta, "version": str(len(match.events)), "head_hash": match.head_hash}

    def tail(self, key: MatchKey, after_version: int, timeout_ms: int) -> list[StoredEvent]:
        deadline = time.monotonic() + max(timeout_ms, 0) / 1000
        with self._lock:
            while True:
                events = self._read_locked(key, after_version, None)
                remaining = deadline - time.monotonic()
                if events or remaining <= 0:
                    return events
                self._appended.wait(remaining)

    def audit(self, key: MatchKey) -> AuditReport:
        with self._lock:
            match = self._matches.get(key) or _Match()
            events = list(match.events)
            # The twin keeps no separate head record, so the last entry's hash stands in for it.
            return audit_events(events, len(events), events[-1].hash if events else GENESIS)

    def tamper_for_tests(self, key: MatchKey, version: int, payload: bytes) -> None:
        """Test hook: overwrite one stored payload in place, as an attacker editing storage would."""
        with self._lock:
            events = self._matches[key].events
            events[version - 1] = msgspec.structs.replace(events[version - 1], payload=payload)

    def _read_locked(self, key: MatchKey, after_version: int, limit: int | None) -> list[StoredEvent]:
        match = self._matches.get(key)
        if match is None:
            return []
        start = max(after_version, 0)
        stop = None if limit is None else start + max(limit, 0)
        return match.events[start:stop]
