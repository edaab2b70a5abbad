"""The event store on Redis Streams: one stream per match, appended by one atomic Lua script.

Keys of a match (one hash tag, so the script also runs on Redis Cluster):

    gh:{<tenant>:<match>}:events     stream; entry id `<version>-0`; one field `e` per entry
                                     (format 2: gateway.eventstore.entries)
    gh:{<tenant>:<match>}:meta       hash: version, head_hash, plus caller fields (game, players, ...)
    gh:{<tenant>:<match>}:snapshot   hash: version, rules_version, state (the gateway adds
                                     head_hash, key_id, mac: see gateway.eventstore.async_redis)
    gh:{<tenant>:<match>}:commands   hash: command_id -> "<first_version>:<last_version>:<actor>"
                                     + "\x1f<digest of the action>" (since issue 39; base.action_digest)

Every append publishes "<tenant>\x1f<match>\x1f<version>" on `gh:notify`.

Decisions (question -> decision):
- What does the script do itself? Only what must happen under Redis's atomicity: check the
  expected version and head, claim the command id, write. Python computes everything else (the
  entries' values, the command record, the notification, the snapshot's fields), so the script
  reads nothing it was given and makes at most five calls on the way of an accepted append:
  HMGET meta, HSETNX commands, XADD per event, one HSET of meta (version, head and caller
  fields together), PUBLISH; plus the snapshot's HSET when the caller passes one (the gateway:
  every SNAPSHOT_EVERY versions, gateway/usecases/store.py).
- Exactly-once: HSETNX claims the command id in the `commands` hash, which keeps every command
  of the match (no ring that could forget one a late retry still names). A claimed id answers
  its first result (`duplicate`) to its actor and `taken` to another; a wrong version checks the
  table first, so a retry of an applied command still gets its first answer.
- Same id, another action (issue 39 item 11): the record keeps a digest of the action the id was
  first used for, and the script compares it with the caller's: `reused` when both have one and
  they differ (a record written before has none: it answers as before). A digest in the record,
  not the action itself: a fixed 32 characters per command, compared without reading a stream.
- All or nothing: every check runs before the first write. HSETNX is that first write (refused
  whole when Redis is out of memory); if the first XADD then fails (a stream ahead of its meta),
  the claim is removed again before the error is returned.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, cast

import redis
import redis.exceptions

from gateway.eventstore.base import (
    DIGEST_SEPARATOR,
    GENESIS,
    AppendResult,
    AuditReport,
    CommandIdInUse,
    CommandIdReused,
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
from gateway.eventstore.entries import (
    ENTRY_FIELD,
    ENTRY_FIELDS,
    READ_BACK,
    EntryDecoder,
    MalformedEntry,
    NeedsContext,
    decode_after,
    decode_entries,
    encode_entry,
    entry_version,
    read_count,
    read_start,
)

# A stream reply as redis-py parses it: [(entry_id, {field: value})].
Entries = list[tuple[bytes, dict[bytes, bytes]]]

# How many entries `audit` pulls per XRANGE.
_AUDIT_PAGE = 1000

# Python computes the hashes (Redis Lua has no SHA-256) from the head it knows (cached, or read
# from meta); the script re-checks that head under its atomicity, so a chain can only grow from
# the true head. One script serves the blocking and the asyncio store.
APPEND_SCRIPT = """
-- KEYS: events, meta, snapshot, commands
-- ARGV: expected_version, expected_head, new_head, command_id, actor, command_record,
--       notification ('' = none), meta_pair_count, event_count, action_digest ('' = none),
--       then meta field/value pairs, then one entry value (field `e`) per event,
--       then snapshot field/value pairs, if any (last: the state is the largest argument, and
--       redis-py copies what precedes each argument while packing a command)
local function answer(seen)
  -- A command id seen before answers with its first result, whatever the version is now, but
  -- only to the actor that used it (command ids are scoped to match and actor), and only for
  -- the action it was used for.
  local a = string.find(seen, ':', 1, true)
  local b = string.find(seen, ':', a + 1, true)
  local first = tonumber(string.sub(seen, 1, a - 1))
  if b == nil then  -- written before commands were scoped: "first:last"
    return {'duplicate', first, tonumber(string.sub(seen, a + 1))}
  end
  local last = tonumber(string.sub(seen, a + 1, b - 1))
  local used_by, used_for = string.sub(seen, b + 1), ''
  local separator = string.find(used_by, '\\31', 1, true)
  if separator then  -- "<actor>\\31<digest>": written since issue 39
    used_for = string.sub(used_by, separator + 1)
    used_by = string.sub(used_by, 1, separator - 1)
  end
  if used_by ~= ARGV[5] then
    return {'taken', first, last}
  end
  if used_for ~= '' and ARGV[10] ~= '' and used_for ~= ARGV[10] then
    return {'reused', first, last}
  end
  return {'duplicate', first, last}
end

local expected_version = tonumber(ARGV[1])
local stored = redis.call('HMGET', KEYS[2], 'version', 'head_hash')
local version = tonumber(stored[1]) or 0
if version ~= expected_version or (stored[2] or string.rep('0', 64)) ~= ARGV[2] then
  local seen = redis.call('HGET', KEYS[4], ARGV[4])
  if seen then
    return answer(seen)
  end
  return {'conflict', version, 0}
end
if redis.call('HSETNX', KEYS[4], ARGV[4], ARGV[6]) == 0 then
  return answer(redis.call('HGET', KEYS[4], ARGV[4]))
end

local meta_start = 11
local entries_start = meta_start + 2 * tonumber(ARGV[8])
local event_count = tonumber(ARGV[9])
for i = 1, event_count do
  local added = redis.pcall('XADD', KEYS[1], (expected_version + i) .. '-0', 'e', ARGV[entries_start + i - 1])
  if type(added) == 'table' and added.err then  -- only the first can fail: ids only grow
    redis.call('HDEL', KEYS[4], ARGV[4])
    return added
  end
end
local last_version = expected_version + event_count
redis.call('HSET', KEYS[2], 'version', last_version, 'head_hash', ARGV[3],
           unpack(ARGV, meta_start, entries_start - 1))
local snapshot_start = entries_start + event_count
if snapshot_start <= #ARGV then
  redis.call('HSET', KEYS[3], unpack(ARGV, snapshot_start, #ARGV))
end
if ARGV[7] ~= '' then
  -- Watchers on every replica learn of the append from one channel, atomically with it.
  redis.call('PUBLISH', 'gh:notify', ARGV[7])
end
return {'ok', expected_version + 1, last_version}
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
        command_digest: str = "",
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
                command_digest=command_digest,
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
        if status == b"reused":
            raise CommandIdReused(command_id, AppendResult(first_version=first, last_version=last))
        self._heads.remember(key, last, new_head)
        return AppendResult(first_version=first, last_version=last)

    def read(self, key: MatchKey, after_version: int = 0, limit: int | None = None) -> list[StoredEvent]:
        if limit is not None and limit <= 0:
            return []
        back = 0
        while True:  # from the entry at after_version (its hash), or further back (its append's first)
            start = max(after_version - back, 0)
            with _unavailable_on_connection_errors():
                entries = self._client.xrange(
                    match_keys(key).events,
                    min=read_start(start),
                    max="+",
                    count=read_count(after_version, limit, start),
                )
            try:
                events = decode_after(cast(Entries, entries), after_version, start)
            except NeedsContext:
                if start <= 1:
                    raise
                back = max(READ_BACK, 2 * back)
                continue
            return self._remember_head(key, events)

    def latest(self, key: MatchKey, command_id: str | None = None) -> Latest:
        keys = match_keys(key)
        # One round trip for what a decision needs, and a read of the events after the
        # snapshot when there are any (the gateway writes one every SNAPSHOT_EVERY versions).
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
        # Entries exist now: read them with the one before (a format-2 entry's prev_hash is its hash).
        return self.read(key, after_version)

    def audit(self, key: MatchKey) -> AuditReport:
        keys = match_keys(key)
        events: list[StoredEvent] = []
        decoder = EntryDecoder()
        with _unavailable_on_connection_errors():
            for position, (entry_id, fields) in enumerate(self._all_entries(keys.events), start=1):
                try:
                    if entry_id != f"{position}-0".encode():
                        raise MalformedEntry(f"entry id {entry_id.decode()} where {position}-0 was expected")
                    events.append(decoder.decode(entry_id, fields))
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
    command_digest: str = "",
) -> tuple[list[str | bytes | int], list[str]]:
    """ARGV of the append script (layout documented in it), and each new entry's hash.

    `snapshot` holds the snapshot hash's fields besides `version` (added here: the new last
    version); `extra[i]` holds fields stored beside the chain on entry i (action, receipt);
    `hashes`, when the caller already chained the entries (to sign the head), saves computing
    them again; `command_digest` identifies the action the command id is used for
    (base.action_digest; "" = not checked). ValueError (nothing is sent) for an extra field the
    entry format has no room for, or a digest that could not be told from the actor.
    """
    if DIGEST_SEPARATOR in actor or DIGEST_SEPARATOR in command_digest:
        raise ValueError("an actor or action digest may not hold \\x1f (the command record's separator)")
    entry_values: list[str | bytes | int] = []
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
        entry_values.append(
            encode_entry(
                version, event.type, actor, command_id, rules_version, time_ms, event.payload, entry_hash,
                extra[index] if index < len(extra) else None, continues=index > 0,
            )
        )  # fmt: skip
        computed.append(entry_hash)
        head = entry_hash

    last_version = expected_version + len(events)
    snapshot_args: list[str | bytes | int] = []
    if snapshot is not None:
        snapshot_args += ("version", last_version)
        for name, field in snapshot.items():
            snapshot_args += (name, field)
    meta_args: list[str] = []
    for name, value in (meta or {}).items():
        meta_args += (name, value)

    record = f"{expected_version + 1}:{last_version}:{actor}"
    if command_digest:
        record += DIGEST_SEPARATOR + command_digest
    args: list[str | bytes | int] = [
        expected_version,
        chain_from,
        head,
        command_id,
        actor,
        record,
        f"{notify_prefix(key)}\x1f{last_version}",
        len(meta_args) // 2,
        len(events),
        command_digest,
        *meta_args,
        *entry_values,
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


def decode_entry(fields: Mapping[bytes, bytes], entry_id: bytes | None = None) -> StoredEvent:
    """One entry read alone: format 1 as it is; format 2 needs its id, and its prev_hash is
    unknown (read entries in order with gateway.eventstore.entries.EntryDecoder instead)."""
    if entry_id is None and ENTRY_FIELD.encode() in fields:
        raise MalformedEntry("a format-2 entry decodes only with its entry id")
    return EntryDecoder(None).decode(entry_id or b"", fields)


__all__ = [
    "APPEND_SCRIPT",
    "ENTRY_FIELD",
    "ENTRY_FIELDS",
    "MalformedEntry",
    "RedisEventStore",
    "append_args",
    "decode_after",
    "decode_command",
    "decode_entries",
    "decode_entry",
    "decode_snapshot",
    "entry_version",
    "fence_key",
    "match_keys",
    "notify_prefix",
]
