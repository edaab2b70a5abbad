"""The event-store contract: value types, errors, the hash chain and the `EventStore` protocol.

Pure on purpose (stdlib + msgspec): the use cases, the in-memory twin and the Redis adapter all
depend on this module, and none of them should drag Redis in just to name a type.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from collections.abc import Mapping, Sequence
from typing import Protocol

import msgspec

# prev_hash of a stream's first entry.
GENESIS = "0" * 64

# Tenant and match ids end up inside Redis keys and a Redis Cluster hash tag, so they must
# never contain `{`, `}` or `:`; a small safe alphabet keeps keys readable in redis-cli.
_ID_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")

# Meta fields the store maintains itself; callers may not overwrite them.
RESERVED_META_FIELDS = frozenset({"version", "head_hash"})


# The structs here that the gateway's caches hold by the thousand are not tracked by the garbage
# collector (`gc=False`): made of strings, bytes and numbers, they cannot be part of a cycle, and a
# tuple of them (a cache key) is untracked too (docs/performance.md, "Round 7: the collector").
class MatchKey(msgspec.Struct, frozen=True, gc=False):
    """Identifies one match of one tenant; each part is 1-64 of `A-Z a-z 0-9 . _ -`."""

    tenant: str
    match_id: str

    def __post_init__(self) -> None:
        for name, value in (("tenant", self.tenant), ("match_id", self.match_id)):
            if not isinstance(value, str) or not _ID_PATTERN.fullmatch(value):
                raise ValueError(f"{name} must match [A-Za-z0-9._-]{{1,64}}, got {value!r}")


class NewEvent(msgspec.Struct, frozen=True, gc=False):
    """An event produced by the rules, not yet stored; `payload` is the event's JSON."""

    type: str
    payload: bytes


class StoredEvent(msgspec.Struct, frozen=True, gc=False):
    """An event as stored: numbered, stamped and chained to the entry before it."""

    version: int
    type: str
    actor: str
    command_id: str
    payload: bytes
    rules_version: str
    time_ms: int
    prev_hash: str
    hash: str
    # Beside the chain, not inside it (a signature cannot cover its own entry's hash, and an
    # action is checked by re-executing it): the action JSON on the first entry of a seat's
    # append, and the gateway's signed receipt on the last entry of every gateway append.
    action: bytes = b""
    receipt: bytes = b""


class Snapshot(msgspec.Struct, frozen=True, gc=False):
    """A cache of the match state after event `version`; events stay the truth."""

    version: int
    rules_version: str
    state: bytes


class AppendResult(msgspec.Struct, frozen=True, gc=False):
    """Versions given to the appended events; `duplicate` when the command id was already used."""

    first_version: int
    last_version: int
    duplicate: bool = False


class Latest(msgspec.Struct, frozen=True):
    """What it takes to rebuild a match's current state, read together in one go.

    `meta` is empty for an unknown match; `newer` holds the events after the snapshot (every
    event when there is no snapshot); `command` is the first result of the command id asked
    about, if that command was already applied.
    """

    meta: dict[str, str]
    snapshot: Snapshot | None
    newer: list[StoredEvent]
    command: AppendResult | None = None

    @property
    def version(self) -> int:
        return int(self.meta.get("version", 0))


class AuditReport(msgspec.Struct, frozen=True):
    """Outcome of re-computing a match's hash chain.

    `events` counts the entries read; `head_hash` is the chain head re-computed over the entries
    that verified. On failure, `first_bad_version` is the first entry that does not match and
    `problem` says why.
    """

    ok: bool
    events: int
    head_hash: str
    first_bad_version: int | None = None
    problem: str = ""


class VersionConflict(Exception):
    """The match moved on since the caller loaded it: reload and decide again."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"expected version {expected}, but the match is at version {actual}")
        self.expected = expected
        self.actual = actual


class CommandIdInUse(Exception):
    """The command id was already used on this match by another actor (command ids are
    scoped to match and seat): nothing was written, and the first result is not theirs."""

    def __init__(self, command_id: str, actor: str) -> None:
        super().__init__(f"command id {command_id!r} was already used on this match by another actor")
        self.command_id = command_id
        self.actor = actor


class CommandIdReused(Exception):
    """The command id was already used on this match by the same actor for another action (its
    digest differs): nothing was written. A retry sends the same action; a new action needs a
    new command id."""

    def __init__(self, command_id: str, first: AppendResult) -> None:
        super().__init__(
            f"command id {command_id!r} was already used in this match for another action "
            f"(versions {first.first_version}-{first.last_version}): a new action needs a new "
            "command id; the same action sent again answers its first result"
        )
        self.command_id = command_id
        self.first = first


# Between the actor and the action's digest in a command record (actors never hold it).
DIGEST_SEPARATOR = "\x1f"


def action_digest(kind: str, action: bytes = b"") -> str:
    """What identifies the action a command id was used for: a digest of its kind ("action",
    "resign") and its JSON in a canonical form (keys sorted, no spaces), so the same action
    serialized another way is the same action. 128 bits: it tells a mistaken reuse apart, and
    only a command id's own actor can reuse it."""
    body = action  # not JSON (never from the gateway): the bytes themselves
    fast = _msgspec_canonical(action)
    if fast is not None:
        body = fast
    else:
        with contextlib.suppress(ValueError, RecursionError):
            value = json.loads(action)
            body = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return hashlib.blake2b(kind.encode() + b"\0" + body, digest_size=16).hexdigest()


def _no_floats(_text: str) -> float:
    raise ValueError("a float: left to json, whose spelling of floats msgspec does not share")


# Issue 45: the json round trip above was 2-3% of the gateway's event loop on the Play path.
# msgspec gives the same canonical form in a tenth of the time for what it can read: its strings
# are escaped exactly as json.dumps escapes them with ensure_ascii=False (checked for every code
# point), its keys sorted in the same code point order (a repeated key: the last one, as json),
# its integers spelled alike. Left to json, as before: floats (spelt differently: 1e+16 against
# 1e16) and whatever msgspec refuses (a lone surrogate, NaN, invalid UTF-8, another encoding).
# Nesting is where they would part: json fails short of the recursion limit (1,000 frames, the
# caller's included), msgspec reads to 1,000 levels; under FAST_DIGEST_MAX_BYTES an action nests
# at most 512 deep, which json reads too. tests/eventstore/test_digest.py checks all of this.
FAST_DIGEST_MAX_BYTES = 1024
_CANONICAL_DECODER = msgspec.json.Decoder(float_hook=_no_floats)
_CANONICAL_ENCODER = msgspec.json.Encoder(order="sorted")


def _msgspec_canonical(action: bytes) -> bytes | None:
    if len(action) > FAST_DIGEST_MAX_BYTES:
        return None
    try:
        return _CANONICAL_ENCODER.encode(_CANONICAL_DECODER.decode(action))
    except (msgspec.MsgspecError, ValueError, RecursionError):
        return None


class EventStoreUnavailable(Exception):
    """The backing store could not be reached or timed out.

    After a failed `append` the events may or may not have been written: retry with the same
    command id, which makes the retry safe.
    """


def wall_clock_ms() -> int:
    """Milliseconds since the Unix epoch: the default clock that stamps `time_ms`."""
    return time.time_ns() // 1_000_000


def chain_hash(
    prev_hash: str,
    version: int,
    type: str,
    actor: str,
    command_id: str,
    rules_version: str,
    time_ms: int,
    payload: bytes,
) -> str:
    """SHA-256 (hex) of one entry chained to the previous entry's hash.

    Every field is length-prefixed, so no two different entries share an encoding
    (no separator inside a field can shift bytes from one field to the next).
    """
    digest = hashlib.sha256(b"guildhall-event-v1")
    fields: tuple[bytes, ...] = (
        prev_hash.encode(),
        str(version).encode(),
        type.encode(),
        actor.encode(),
        command_id.encode(),
        rules_version.encode(),
        str(time_ms).encode(),
        payload,
    )
    for field in fields:
        digest.update(len(field).to_bytes(8, "big"))
        digest.update(field)
    return digest.hexdigest()


def check_append_arguments(
    expected_version: int,
    events: Sequence[NewEvent],
    command_id: str,
    meta: Mapping[str, str] | None,
) -> None:
    """Argument checks shared by every implementation, so they fail identically."""
    if expected_version < 0:
        raise ValueError(f"expected_version must be >= 0, got {expected_version}")
    if not events:
        raise ValueError("an append needs at least one event")
    if not command_id:
        raise ValueError("command_id must not be empty")
    for event in events:
        if not event.type:
            raise ValueError("an event type must not be empty")
    if meta:
        reserved = RESERVED_META_FIELDS.intersection(meta)
        if reserved:
            raise ValueError(f"meta fields {sorted(reserved)} are maintained by the store")


def audit_events(events: Sequence[StoredEvent], recorded_version: int, recorded_head: str) -> AuditReport:
    """Re-compute the chain over `events` (version order) and compare with the recorded head.

    Shared by both stores so they judge a stream by exactly the same rules.
    """
    head = GENESIS
    for expected_version, event in enumerate(events, start=1):
        problem = ""
        if event.version != expected_version:
            problem = f"entry carries version {event.version}, expected {expected_version}"
        elif event.prev_hash != head:
            problem = "prev_hash does not match the previous entry's hash"
        elif event.hash != chain_hash(
            event.prev_hash,
            event.version,
            event.type,
            event.actor,
            event.command_id,
            event.rules_version,
            event.time_ms,
            event.payload,
        ):
            problem = "stored hash does not match the entry's contents"
        if problem:
            return AuditReport(
                ok=False,
                events=len(events),
                head_hash=head,
                first_bad_version=expected_version,
                problem=problem,
            )
        head = event.hash
    if len(events) != recorded_version:
        return AuditReport(
            ok=False,
            events=len(events),
            head_hash=head,
            first_bad_version=min(len(events), recorded_version) + 1,
            problem=f"stream holds {len(events)} entries but the match is at version {recorded_version}",
        )
    if head != recorded_head:
        return AuditReport(
            ok=False,
            events=len(events),
            head_hash=head,
            first_bad_version=len(events) or None,
            problem="re-computed head hash differs from the recorded head hash",
        )
    return AuditReport(ok=True, events=len(events), head_hash=head)


class EventStore(Protocol):
    """Where matches live: one append-only, hash-chained stream of events per match."""

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
        """Append `events` atomically if the match is at `expected_version`.

        The version is the number of events in the stream (0 = no stream yet). A different
        version raises VersionConflict and writes nothing. A command id already used on this
        match by the same actor returns its first result with duplicate=True and writes nothing,
        even if `expected_version` is stale by now; by another actor it raises CommandIdInUse;
        by the same actor for another action (both uses gave a `command_digest`, see
        `action_digest`, and they differ) it raises CommandIdReused.
        `snapshot` is stored as the state at the new version; `meta` fields are merged into
        the match's meta. No events is a ValueError.
        """
        ...

    def read(self, key: MatchKey, after_version: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with version > after_version, in order, at most `limit` of them."""
        ...

    def latest(self, key: MatchKey, command_id: str | None = None) -> Latest:
        """Meta, snapshot, the events after it, and what `command_id` already did: the hot
        path's one read before deciding (one round trip when the snapshot is current)."""
        ...

    def version(self, key: MatchKey) -> int:
        """Number of events of the match (0 when it has none)."""
        ...

    def load_snapshot(self, key: MatchKey) -> Snapshot | None:
        """The latest snapshot, or None."""
        ...

    def meta(self, key: MatchKey) -> dict[str, str]:
        """The match's meta: caller fields plus `version` and `head_hash` kept by the store."""
        ...

    def tail(self, key: MatchKey, after_version: int, timeout_ms: int) -> list[StoredEvent]:
        """Events after `after_version`, waiting up to `timeout_ms` for some to exist; [] on timeout."""
        ...

    def audit(self, key: MatchKey) -> AuditReport:
        """Re-read the whole stream, re-compute the chain, report the first entry that does not match."""
        ...
