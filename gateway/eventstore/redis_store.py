"""The event store on Redis Streams: one stream per match, appended by one atomic Lua script.

Keys of a match (one hash tag, so the script also runs on Redis Cluster):

    gh:{<tenant>:<match>}:events     stream; entry id `<version>-0`; fields below
    gh:{<tenant>:<match>}:meta       hash: version, head_hash, plus caller fields (game, players, ...)
    gh:{<tenant>:<match>}:snapshot   hash: version, rules_version, state (the gateway adds
                                     head_hash, key_id, mac: see gateway.eventstore.async_redis)
    gh:{<tenant>:<match>}:commands   hash: command_id -> "<first_version>:<last_version>:<actor>"

Stream entries hold plain fields (version, type, actor, command_id, payload, rules_version,
time_ms, prev_hash, hash) so an auditor can read a match with nothing but redis-cli; the
gateway adds `action` (first entry of a seat's append) and `receipt` (last entry of an append)
beside the chain. Every append publishes "<tenant>\x1f<match>\x1f<version>" on `gh:notify`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, cast

import redis
import redis.exceptions

from gateway.eventstore.base import (
    GENESIS,
    AppendResult,
    AuditReport,
    CommandIdInUse,
    EventStoreUnavailable,
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

# Field order of a stream entry; also the order the Lua script receives them in.
ENTRY_FIELDS = (
    "version",
    "type",
    "actor",
    "command_id",
    "payload",
    "rules_version",
    "time_ms",
    "prev_hash",
    "hash",
)

# A stream reply as redis-py parses it: [(entry_id, {field: value})].
Entries = list[tuple[bytes, dict[bytes, bytes]]]

# How many entries `audit` pulls per XRANGE.
_AUDIT_PAGE = 1000

# Python computes the hashes (Redis Lua has no SHA-256) from the head it knows (cached, or read
# from meta); the script re-checks that head under its atomicity, so a chain can only grow from
# the true head. All checks run before the first write, and XADDs with increasing ids cannot fail one by one,
# so an append is all-or-nothing. One script serves the blocking and the asyncio store.
APPEND_SCRIPT = """
-- KEYS: events, meta, snapshot, commands
-- ARGV: expected_version, expected_head, new_head, command_id, actor, notify,
--       snapshot_pair_count, meta_pair_count, event_count,
--       then meta field/value pairs,
--       then per event: its extra field count, the values of ENTRY_FIELDS in order, then the
--       extra field/value pairs (action, receipt),
--       then snapshot field/value pairs (last: the state is the largest argument, and
--       redis-py copies what precedes each argument while packing a command)
local FIELDS = {'version', 'type', 'actor', 'command_id', 'payload', 'rules_version', 'time_ms',
                'prev_hash', 'hash'}
local expected_version = tonumber(ARGV[1])
local expected_head = ARGV[2]
local new_head = ARGV[3]
local command_id = ARGV[4]
local actor = ARGV[5]
local notify = ARGV[6]
local snapshot_pair_count = tonumber(ARGV[7])
local meta_pair_count = tonumber(ARGV[8])
local event_count = tonumber(ARGV[9])
local meta_start = 10
local events_start = meta_start + 2 * meta_pair_count
local snapshot_start = #ARGV - 2 * snapshot_pair_count + 1

-- A command id seen before answers with its first result, whatever the version is now, but
-- only to the actor that used it: command ids are scoped to match and actor.
local seen = redis.call('HGET', KEYS[4], command_id)
if seen then
  local a = string.find(seen, ':', 1, true)
  local b = string.find(seen, ':', a + 1, true)
  local first = tonumber(string.sub(seen, 1, a - 1))
  if b == nil then  -- written before commands were scoped: "first:last"
    return {'duplicate', first, tonumber(string.sub(seen, a + 1))}
  end
  local last = tonumber(string.sub(seen, a + 1, b - 1))
  if string.sub(seen, b + 1) ~= actor then
    return {'taken', first, last}
  end
  return {'duplicate', first, last}
end

local stored = redis.call('HMGET', KEYS[2], 'version', 'head_hash')
local version = tonumber(stored[1]) or 0
local head_hash = stored[2] or string.rep('0', 64)  -- GENESIS before the first append
if version ~= expected_version or head_hash ~= expected_head then
  return {'conflict', version, 0}
end

local arg = events_start
for i = 1, event_count do
  local extra_count = tonumber(ARGV[arg])
  local entry = {}
  for f = 1, #FIELDS do
    entry[2 * f - 1] = FIELDS[f]
    entry[2 * f] = ARGV[arg + f]
  end
  arg = arg + 1 + #FIELDS
  for e = 1, 2 * extra_count do
    entry[2 * #FIELDS + e] = ARGV[arg + e - 1]
  end
  arg = arg + 2 * extra_count
  redis.call('XADD', KEYS[1], (expected_version + i) .. '-0', unpack(entry))
end

local first_version = expected_version + 1
local last_version = expected_version + event_count
if meta_pair_count > 0 then
  redis.call('HSET', KEYS[2], unpack(ARGV, meta_start, events_start - 1))
end
redis.call('HSET', KEYS[2], 'version', last_version, 'head_hash', new_head)
redis.call('HSET', KEYS[4], command_id, first_version .. ':' .. last_version .. ':' .. actor)
if snapshot_pair_count > 0 then
  redis.call('HSET', KEYS[3], 'version', last_version, unpack(ARGV, snapshot_start, #ARGV))
end
if notify ~= '' then
  -- Watchers on every replica learn of the append from one channel, atomically with it.
  redis.call('PUBLISH', 'gh:notify', notify .. string.char(31) .. last_version)
end
return {'ok', first_version, last_version}
"""

# The channel every append publishes to: "<tenant>\x1f<match_id>\x1f<version>".
NOTIFY_CHANNEL = "gh:notify"


def notify_prefix(key: MatchKey) -> str:
    return f"{key.tenant}\x1f{key.match_id}"


class MatchKeys(NamedTuple):
    """The Redis keys of one match."""

    events: str
    meta: str
    snapshot: str
    commands: str


def _prefix(key: MatchKey) -> str:
    return f"gh:{{{key.tenant}:{key.match_id}}}"


def match_keys(key: MatchKey) -> MatchKeys:
    """All keys of a match share the hash tag `{tenant:match}`, hence one Redis Cluster slot."""
    prefix = _prefix(key)
    return MatchKeys(f"{prefix}:events", f"{prefix}:meta", f"{prefix}:snapshot", f"{prefix}:commands")


def fence_key(key: MatchKey) -> str:
    """A short-lived key in the match's slot: written, then WAITed on, to prove replication of
    everything before it (gateway.eventstore.async_redis)."""
    return f"{_prefix(key)}:fence"


class MalformedEntry(Exception):
    """A stream entry unlike what the store writes: wrong id, missing or undecodable field."""


@contextmanager
def _unavailable_on_connection_errors() -> Iterator[None]:
    try:
        yield
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
        raise EventStoreUnavailable(f"Redis is unavailable: {error}") from error


class _HeadCache:
    """The chain head this process last saw per match (version, hash), bounded, thread-safe.

    Lets an append skip reading the head from Redis. A wrong entry costs nothing but a retry:
    the append script checks the head it is given against the stored one.
    """

    def __init__(self, capacity: int = 10_000) -> None:
        self._capacity = capacity
        self._heads: dict[MatchKey, tuple[int, str]] = {}
        self._lock = threading.Lock()

    def get(self, key: MatchKey, version: int) -> str | None:
        with self._lock:
            known = self._heads.get(key)
        return known[1] if known and known[0] == version else None

    def remember(self, key: MatchKey, version: int, head_hash: str) -> None:
        with self._lock:
            self._heads.pop(key, None)  # re-insert at the end: dicts keep insertion order
            self._heads[key] = (version, head_hash)
            if len(self._heads) > self._capacity:
                del self._heads[next(iter(self._heads))]  # the least recently remembered

    def forget(self, key: MatchKey) -> None:
        with self._lock:
            self._heads.pop(key, None)


class RedisEventStore:
    """The event store on a Redis (or Redis Cluster) client created with decode_responses=False."""

    def __init__(self, client: redis.Redis, clock: Callable[[], int] = wall_clock_ms) -> None:
        connection_kwargs: Mapping[str, Any] = getattr(client, "get_connection_kwargs", dict)()
        if connection_kwargs.get("decode_responses"):
            # Payloads and snapshots are bytes; a decoding client would hand back str.
            raise ValueError("RedisEventStore needs a client with decode_responses=False")
        self._client = client
        self._clock = clock
        self._append_script = client.register_script(APPEND_SCRIPT)
        self._heads = _HeadCache()

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
    ) -> AppendResult:
        check_append_arguments(expected_version, events, command_id, meta)
        keys = match_keys(key)
        time_ms = self._clock()

        def run_script(chain_from: str) -> tuple[bytes, int, int, str]:
            args, new_head = append_args(
                key,
                expected_version,
                chain_from,
                events,
                actor,
                command_id,
                rules_version,
                time_ms,
                {"rules_version": rules_version, "state": snapshot} if snapshot is not None else None,
                meta,
            )
            with _unavailable_on_connection_errors():
                status, first, last = self._append_script(keys=list(keys), args=args)
            return status, int(first), int(last), new_head[-1]

        # The head to chain from, without a round trip when we already know it: every stream
        # starts at GENESIS, and the head cache knows the matches this process just touched.
        known_head = GENESIS if expected_version == 0 else self._heads.get(key, expected_version)
        status, first, last, new_head = run_script(known_head or self._stored_head(keys))
        if status == b"conflict" and first == expected_version and known_head is not None:
            # Right version, other head: the stream was rewritten since we cached its head.
            self._heads.forget(key)
            status, first, last, new_head = run_script(self._stored_head(keys))

        if status == b"conflict":
            self._heads.forget(key)
            raise VersionConflict(expected_version, first)
        if status == b"duplicate":
            return AppendResult(first_version=first, last_version=last, duplicate=True)
        if status == b"taken":
            raise CommandIdInUse(command_id, "")
        self._heads.remember(key, last, new_head)
        return AppendResult(first_version=first, last_version=last)

    def read(self, key: MatchKey, after_version: int = 0, limit: int | None = None) -> list[StoredEvent]:
        if limit is not None and limit <= 0:
            return []
        with _unavailable_on_connection_errors():
            entries = self._client.xrange(
                match_keys(key).events, min=f"{max(after_version, 0) + 1}-0", max="+", count=limit
            )
        return self._remember_head(key, [decode_entry(fields) for _, fields in cast(Entries, entries)])

    def latest(self, key: MatchKey, command_id: str | None = None) -> Latest:
        keys = match_keys(key)
        # One round trip for what a decision needs; the snapshot is written with every append
        # through the gateway, so the events after it are almost always none and need no read.
        with _unavailable_on_connection_errors():
            pipe = self._client.pipeline(transaction=False)
            pipe.hgetall(keys.meta)
            pipe.hgetall(keys.snapshot)
            if command_id:
                pipe.hget(keys.commands, command_id)
            replies = pipe.execute()
        meta = {name.decode(): value.decode() for name, value in replies[0].items()}
        if not meta:
            return Latest({}, None, [])
        snapshot = decode_snapshot(replies[1])
        seen = decode_command(replies[2]) if command_id else None
        version = int(meta["version"])
        self._heads.remember(key, version, meta["head_hash"])
        after = snapshot.version if snapshot else 0
        newer = self.read(key, after_version=after) if version > after else []
        return Latest(meta, snapshot, newer, seen)

    def version(self, key: MatchKey) -> int:
        with _unavailable_on_connection_errors():
            stored = self._client.hget(match_keys(key).meta, "version")
        return int(cast(bytes, stored)) if stored else 0

    def load_snapshot(self, key: MatchKey) -> Snapshot | None:
        with _unavailable_on_connection_errors():
            fields = self._client.hgetall(match_keys(key).snapshot)
        return decode_snapshot(fields)

    def meta(self, key: MatchKey) -> dict[str, str]:
        with _unavailable_on_connection_errors():
            fields = cast(dict[bytes, bytes], self._client.hgetall(match_keys(key).meta))
        return {name.decode(): value.decode() for name, value in fields.items()}

    def tail(self, key: MatchKey, after_version: int, timeout_ms: int) -> list[StoredEvent]:
        # The client's socket_timeout (if any) must exceed timeout_ms, or the wait ends as
        # EventStoreUnavailable; watchers want a client without one.
        if timeout_ms <= 0:
            # XREAD BLOCK 0 would wait forever; no time to wait means just look.
            return self.read(key, after_version)
        events_key = match_keys(key).events
        with _unavailable_on_connection_errors():
            # Returns at once if entries after the id exist; also waits for the stream to be created.
            reply: Any = self._client.xread({events_key: f"{max(after_version, 0)}-0"}, block=timeout_ms)
        if not reply:
            return []
        # One stream was asked for: RESP2 replies [[stream, entries]], RESP3 {stream: [entries]}.
        if isinstance(reply, dict):
            [[entries]] = reply.values()
        else:
            [[_, entries]] = reply
        return self._remember_head(key, [decode_entry(fields) for _, fields in entries])

    def audit(self, key: MatchKey) -> AuditReport:
        keys = match_keys(key)
        events: list[StoredEvent] = []
        with _unavailable_on_connection_errors():
            for position, (entry_id, fields) in enumerate(self._all_entries(keys.events), start=1):
                try:
                    if entry_id != f"{position}-0".encode():
                        raise MalformedEntry(f"entry id {entry_id.decode()} where {position}-0 was expected")
                    events.append(decode_entry(fields))
                except MalformedEntry as error:
                    return AuditReport(
                        ok=False,
                        events=position,
                        head_hash=events[-1].hash if events else GENESIS,
                        first_bad_version=position,
                        problem=str(error),
                    )
            recorded_version, recorded_head = cast(
                list[bytes | None], self._client.hmget(keys.meta, ["version", "head_hash"])
            )
        return audit_events(
            events,
            int(recorded_version) if recorded_version else 0,
            recorded_head.decode() if recorded_head else GENESIS,
        )

    def _remember_head(self, key: MatchKey, events: list[StoredEvent]) -> list[StoredEvent]:
        # Whoever reads a match usually appends to it next (load, decide, append): keep its head.
        if events:
            self._heads.remember(key, events[-1].version, events[-1].hash)
        return events

    def _stored_head(self, keys: MatchKeys) -> str:
        with _unavailable_on_connection_errors():
            stored = cast(bytes | None, self._client.hget(keys.meta, "head_hash"))
        return stored.decode() if stored else GENESIS

    def _all_entries(self, events_key: str) -> Iterator[tuple[bytes, dict[bytes, bytes]]]:
        """Every entry of a stream, fetched in pages so a long match never arrives as one huge reply."""
        start = "-"
        while True:
            page = cast(
                Entries,
                self._client.xrange(events_key, min=start, max="+", count=_AUDIT_PAGE),
            )
            yield from page
            if len(page) < _AUDIT_PAGE:
                return
            start = "(" + page[-1][0].decode()  # exclusive: continue after the last entry seen


def append_args(
    key: MatchKey,
    expected_version: int,
    chain_from: str,
    events: Sequence[NewEvent],
    actor: str,
    command_id: str,
    rules_version: str,
    time_ms: int,
    snapshot: Mapping[str, str | bytes] | None,
    meta: Mapping[str, str] | None,
    *,
    extra: Sequence[Mapping[str, bytes]] = (),
    hashes: Sequence[str] | None = None,
) -> tuple[list[str | bytes | int], list[str]]:
    """ARGV of the append script (layout documented in it), and each new entry's hash.

    `snapshot` holds the snapshot hash's fields besides `version` (the script sets that);
    `extra[i]` holds fields stored beside the chain on entry i (action, receipt); `hashes`, when
    the caller already chained the entries (to sign the head), saves computing them again.
    """
    entry_args: list[str | bytes | int] = []
    computed: list[str] = []
    head = chain_from
    for index, (version, event) in enumerate(enumerate(events, start=expected_version + 1)):
        entry_hash = (
            hashes[index]
            if hashes is not None
            else chain_hash(
                head, version, event.type, actor, command_id, rules_version, time_ms, event.payload
            )
        )
        values: tuple[str | bytes | int, ...] = (
            version,
            event.type,
            actor,
            command_id,
            event.payload,
            rules_version,
            time_ms,
            head,
            entry_hash,
        )
        more = extra[index] if index < len(extra) else {}
        entry_args.append(len(more))
        entry_args += values  # in ENTRY_FIELDS order: the script adds the names
        for name, blob in more.items():
            entry_args += (name, blob)
        computed.append(entry_hash)
        head = entry_hash

    snapshot_args: list[str | bytes] = []
    for name, field in (snapshot or {}).items():
        snapshot_args += (name, field)
    meta_args: list[str] = []
    for name, value in (meta or {}).items():
        meta_args += (name, value)

    args: list[str | bytes | int] = [
        expected_version,
        chain_from,
        head,
        command_id,
        actor,
        notify_prefix(key),
        len(snapshot_args) // 2,
        len(meta_args) // 2,
        len(events),
        *meta_args,
        *entry_args,
        *snapshot_args,
    ]
    return args, computed


def decode_snapshot(fields: Any) -> Snapshot | None:
    """A snapshot hash as HGETALL returns it (empty: no snapshot)."""
    if not fields:
        return None
    return Snapshot(
        version=int(fields[b"version"]),
        rules_version=fields[b"rules_version"].decode(),
        state=fields[b"state"],
    )


def decode_command(seen: Any) -> AppendResult | None:
    """A command table value `first:last:actor`, as the first result of a repeated command."""
    if seen is None:
        return None
    first, last = cast(bytes, seen).split(b":", 2)[:2]
    return AppendResult(first_version=int(first), last_version=int(last), duplicate=True)


def decode_entry(fields: Mapping[bytes, bytes]) -> StoredEvent:
    try:
        return StoredEvent(
            version=int(fields[b"version"]),
            type=fields[b"type"].decode(),
            actor=fields[b"actor"].decode(),
            command_id=fields[b"command_id"].decode(),
            payload=fields[b"payload"],
            rules_version=fields[b"rules_version"].decode(),
            time_ms=int(fields[b"time_ms"]),
            prev_hash=fields[b"prev_hash"].decode(),
            hash=fields[b"hash"].decode(),
            action=fields.get(b"action", b""),
            receipt=fields.get(b"receipt", b""),
        )
    except KeyError as missing:
        raise MalformedEntry(f"entry lacks the field {missing.args[0]!r}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise MalformedEntry(f"entry does not decode: {error}") from None
