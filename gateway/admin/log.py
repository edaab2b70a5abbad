"""The admin log: every admin action, append-only, hash-chained and signed, in `gh:{admin}:log`.

It is appended by the event store's own append script (gateway.eventstore.redis_store
APPEND_SCRIPT) with its entry format and chain hash, and audited by the same
`audit_events`: one chain to trust, one verifier. An entry's event type is the action
(`create_tenant`, `revoke_key`, ...), its actor the operator key's id, its payload JSON
`{"action", "tenant", "before", "after", "records", ...}` with secrets redacted (key hashes,
never keys; webhook secrets replaced by "<redacted>").

Decisions (question -> decision):
- Two admins at once: the script refuses an append from a stale head (conflict). A change that
  writes a tenant record appends with the head it read the record under (`expected`), so a
  conflict means the record may have changed: the caller reads again and recomputes. Entries
  that write nothing (a failure, a note) re-read the head and append again.
- Issue 39: the log explains every tenant record. The entry and the records it writes go in ONE
  run of the append script: the tenants hash is the script's third key (where a match keeps its
  snapshot) and the records ride as its field/value pairs, so no crash can leave a record
  without its entry or an entry without its record. The entry names each record it wrote by
  its sha256 (`records`), the exact bytes, secrets included, which the entry never holds.
- Issue 39: a hash chain proves nothing against whoever can write Redis (a consistent rewrite
  re-computes every hash), so every entry carries a receipt: the gateway's Ed25519 signature
  over (LOG_TENANT, LOG_NAME, version, head hash), the format match receipts use. Each entry
  must carry its own: one appended without the signing key explains nothing, even when signed
  entries follow it (the next admin action would otherwise bless it). Entries written before
  receipts existed (issue 34) wrote no record digests: they explain nothing either.
- Cutting the tail (removing entries and setting the head back) leaves a log that verifies on
  its own: only something kept outside Redis can tell. That is the checkpoint: the signed
  (length, head hash) an operator exports (`guildhall admin log checkpoint > file`) and keeps;
  `verify` against it finds a log shorter than the checkpoint or one whose entry at its length
  has another hash. Every replica also remembers the log it has followed and says so loudly
  when the log goes back under it (AdminLogFollower).
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import structlog

from gateway.domain.receipts import Receipt, decode_receipt, encode_receipt, receipt_message
from gateway.eventstore.base import (
    GENESIS,
    AuditReport,
    MatchKey,
    NewEvent,
    StoredEvent,
    audit_events,
    chain_hash,
)
from gateway.eventstore.entries import EntryDecoder, decode_after, decode_entries, read_start
from gateway.eventstore.redis_store import APPEND_SCRIPT, append_args
from gateway.scripts import ColdClusterGuard, guarded_script

_log = structlog.get_logger("admin")

LOG_KEYS = ("gh:{admin}:log", "gh:{admin}:log:meta", "gh:{admin}:log:snapshot", "gh:{admin}:log:commands")
TENANTS_KEY = "gh:{admin}:tenants"  # tenant id -> its record (gateway/admin/registry.py)
CHANNEL = "gh:admin:changed"  # "<log version>" after every entry: replicas reload at once
RULES_VERSION = "admin-log-v1"
# What receipts and checkpoints of the admin log name in place of a tenant and a match: braces
# are in no tenant id, so no match receipt can ever pass for the admin log's, nor the reverse.
LOG_TENANT, LOG_NAME = "{admin}", "log"
_ANY_KEY = MatchKey("admin", "log")  # append_args wants one for the notification: none is sent
_ATTEMPTS = 20
REDACTED = "<redacted>"
_PAGE = 1000

Sign = Callable[[bytes], tuple[str, bytes]]  # the KeyRing's
Verify = Callable[[str, bytes, bytes], bool]


def now_ms() -> int:
    return int(time.time() * 1000)


def record_digest(raw: bytes) -> str:
    """How an entry names a record it wrote: the sha256 of its exact bytes."""
    return hashlib.sha256(raw).hexdigest()


def redact(record: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A record fit for the log and for answers: key hashes stay, webhook secrets do not."""
    if record is None:
        return None
    out = copy.deepcopy(dict(record))
    hooks = out.get("body", {}).get("webhooks")
    if isinstance(hooks, dict) and "secrets" in hooks:
        hooks["secrets"] = [REDACTED for _ in hooks.get("secrets") or ()]
    return out


class LogConflict(Exception):
    """The log moved since the caller read it: read again, decide again."""


@dataclass(frozen=True)
class LogEntry:
    version: int
    time_ms: int
    operator: str
    action: str
    tenant: str
    before: Any
    after: Any
    hash: str


def _entry(event: StoredEvent) -> LogEntry:
    body = json.loads(event.payload)
    return LogEntry(
        event.version, event.time_ms, event.actor, event.type, body.get("tenant", ""),
        body.get("before"), body.get("after"), event.hash,
    )  # fmt: skip


# -- checkpoints -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Checkpoint:
    """The gateway's signed word that the admin log had `length` entries ending in `head_hash`."""

    length: int
    head_hash: str
    key_id: str
    signature: bytes
    time_ms: int = 0  # when it was taken (not signed: a label for the operator)

    def message(self) -> bytes:
        return receipt_message(LOG_TENANT, LOG_NAME, self.length, self.head_hash)


# -- what the log explains ---------------------------------------------------------------------


def receipt_vouches(event: StoredEvent, verify: Verify | None) -> bool:
    """Whether the entry's receipt is the gateway's signature of exactly this entry (always,
    when `verify` is None: a gateway without SIGNING_KEYS_DIR signs with a throwaway key)."""
    if verify is None:
        return True
    if not event.receipt:
        return False
    try:
        receipt = decode_receipt(event.receipt)
    except (msgspec.DecodeError, ValueError):
        return False
    return (
        receipt.version == event.version
        and receipt.head_hash == event.hash
        and verify(
            receipt.key_id,
            receipt_message(LOG_TENANT, LOG_NAME, event.version, event.hash),
            receipt.signature,
        )
    )


@dataclass
class AdminLogFollower:
    """The admin log as this replica has read it, fed in order: its chain re-computed entry by
    entry, every receipt checked, and what each tenant's latest signed record-writing entry
    wrote (`explained`: the record's digest, "" for "no record"; `logged`: its `after`).

    Each entry must carry its own valid receipt: a later signed entry does not vouch for an
    earlier unsigned one (else the next admin action would bless an entry someone appended).
    Entries before the first signed one were written before receipts existed (issue 34) and
    wrote no record digests. A chain fault stops the fold there: nothing after it counts."""

    verify: Verify | None = None
    length: int = 0
    head: str = GENESIS
    problem: str = ""
    first_bad_version: int | None = None
    first_signed: int | None = None
    unsigned: list[int] = field(default_factory=list)  # versions after first_signed, unsigned
    explained: dict[str, str] = field(default_factory=dict)
    logged: dict[str, Any] = field(default_factory=dict)
    unvouched: dict[str, str] = field(default_factory=dict)  # written by unsigned entries

    def feed(self, events: Sequence[StoredEvent]) -> None:
        for event in events:
            if self.problem:
                return
            expected = self.length + 1
            if event.version != expected:
                self._broken(expected, f"entry carries version {event.version}, expected {expected}")
            elif event.hash != chain_hash(
                self.head, event.version, event.type, event.actor, event.command_id,
                event.rules_version, event.time_ms, event.payload,
            ):  # fmt: skip
                self._broken(expected, "stored hash does not match the entry's contents")
            if self.problem:
                return
            self.length, self.head = event.version, event.hash
            try:
                body = json.loads(event.payload)
                records = body.get("records") or {}
            except (ValueError, AttributeError):
                body, records = {}, {}
            if not isinstance(records, dict):
                records = {}
            if not receipt_vouches(event, self.verify):
                if self.first_signed is not None:
                    self.unsigned.append(event.version)
                self.unvouched.update({str(t): str(d) for t, d in records.items()})
                continue
            self.first_signed = self.first_signed or event.version
            for tenant_id, digest in records.items():
                self.explained[str(tenant_id)] = str(digest)
                self.unvouched.pop(str(tenant_id), None)
                after = body.get("after")
                if body.get("tenant") == "" and isinstance(after, dict):  # adopt_records: one per tenant
                    after = after.get(tenant_id)
                self.logged[str(tenant_id)] = after

    def _broken(self, version: int, problem: str) -> None:
        self.problem, self.first_bad_version = problem, version

    def explains(self, tenant_id: str, raw: bytes | None) -> bool:
        """Whether the log's latest word on the tenant is this record (None: no record)."""
        expected = self.explained.get(tenant_id)
        if raw is None:
            return not expected
        return expected == record_digest(raw)

    def unexplained(self, records: Mapping[str, bytes]) -> list[tuple[str, str]]:
        """(tenant, why) for every record the log does not explain, and every tenant the log
        says exists that Redis no longer holds."""
        found = []
        for tenant_id, raw in sorted(records.items()):
            if self.explains(tenant_id, raw):
                continue
            if self.unvouched.get(tenant_id) == record_digest(raw):
                found.append((tenant_id, "the log entry that wrote this record carries no valid receipt"))
            elif self.explained.get(tenant_id):
                why = "the record is not the one its latest log entry wrote"
                found.append((tenant_id, f"{why} ({_differences(self.logged.get(tenant_id), raw)})"))
            else:
                found.append((tenant_id, "no admin log entry wrote this record"))
        for tenant_id in sorted(t for t, digest in self.explained.items() if digest and t not in records):
            found.append((tenant_id, "the log wrote this record but Redis no longer holds it"))
        return found


def _differences(logged: Any, raw: bytes) -> str:
    """What differs between the record the log wrote (redacted) and `raw`, in words."""
    try:
        held = redact(json.loads(raw)) or {}
    except (ValueError, AttributeError):
        return "it is not JSON"
    logged = logged if isinstance(logged, dict) else {}
    found = []
    keys_logged = {str(k.get("sha256", ""))[:12]: k.get("id") for k in logged.get("body", {}).get("keys", [])}
    keys_held = {str(k.get("sha256", ""))[:12]: k.get("id") for k in held.get("body", {}).get("keys", [])}
    if set(keys_held) - set(keys_logged):
        found.append(
            f"keys not in the log: {sorted(str(keys_held[k]) for k in set(keys_held) - set(keys_logged))}"
        )
    if set(keys_logged) - set(keys_held):
        found.append(
            f"keys missing: {sorted(str(keys_logged[k]) for k in set(keys_logged) - set(keys_held))}"
        )
    parts = {**logged.get("body", {}), **held.get("body", {})}
    changed = [
        p
        for p in sorted(parts)
        if p != "keys" and logged.get("body", {}).get(p) != held.get("body", {}).get(p)
    ]
    changed += [f for f in sorted({*logged, *held} - {"body", "updated_ms"}) if logged.get(f) != held.get(f)]
    if changed:
        found.append(f"changed: {', '.join(changed)}")
    return "; ".join(found) or "webhook secrets differ"


@dataclass
class LogReport:
    """`guildhall admin log verify`: the chain, its receipts, a checkpoint, the records."""

    length: int
    head_hash: str
    unsigned: list[int] = field(default_factory=list)
    chain_problem: str = ""
    first_bad_version: int | None = None
    checkpoint_problem: str = ""
    unexplained: list[tuple[str, str]] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        found = []
        if self.chain_problem:
            found.append(f"the chain breaks at version {self.first_bad_version}: {self.chain_problem}")
        if self.unsigned:
            shown = ", ".join(str(v) for v in self.unsigned[:10]) + (
                ", ..." if len(self.unsigned) > 10 else ""
            )
            found.append(
                f"entries {shown} carry no valid receipt (appended without the gateway's signing key)"
            )
        if self.checkpoint_problem:
            found.append(self.checkpoint_problem)
        found += [f"tenant {tenant!r}: {why}" for tenant, why in self.unexplained]
        return found

    @property
    def ok(self) -> bool:
        return not self.problems


def check_checkpoint(checkpoint: Checkpoint, events: Sequence[StoredEvent], verify: Verify | None) -> str:
    """Why the log `events` is not a continuation of what `checkpoint` saw, or ''."""
    if verify is not None and not verify(checkpoint.key_id, checkpoint.message(), checkpoint.signature):
        return "the checkpoint's signature does not verify with the gateway's keys (not ours, or edited)"
    if len(events) < checkpoint.length:
        return f"the log was cut: the checkpoint saw {checkpoint.length} entries, the log holds {len(events)}"
    if checkpoint.length and events[checkpoint.length - 1].hash != checkpoint.head_hash:
        return (
            f"the log was rewritten: its entry {checkpoint.length} is not the one the checkpoint saw "
            f"(hash {events[checkpoint.length - 1].hash[:16]}..., checkpoint {checkpoint.head_hash[:16]}...)"
        )
    return ""


# -- the log in Redis --------------------------------------------------------------------------


class AdminLog:
    def __init__(self, redis: Any, *, sign: Sign | None = None, verify: Verify | None = None) -> None:
        """`sign`/`verify`: the gateway's KeyRing's. `verify` None (a gateway without
        SIGNING_KEYS_DIR, development only): any entry is taken as signed. `sign` None: entries
        carry no receipt (tests writing what a gateway would not)."""
        self.redis = redis
        self.sign = sign
        self.verify_receipt = verify
        self._append = guarded_script(redis, ColdClusterGuard(redis), APPEND_SCRIPT)

    async def append(
        self,
        operator: str,
        action: str,
        tenant: str,
        before: Any,
        after: Any,
        *,
        writes: Mapping[str, bytes] | None = None,
        removes: Sequence[str] = (),
        expected: tuple[int, str] | None = None,
        **more: Any,
    ) -> int:
        """Record one action, and write the tenant records `writes` with it; returns its version.
        `removes`: records the entry says must not exist (the caller removes them after: the
        append script only writes). With `expected` (the head the caller read under),
        LogConflict when the log moved."""
        records = {tenant_id: record_digest(raw) for tenant_id, raw in (writes or {}).items()}
        records.update({tenant_id: "" for tenant_id in removes})
        body = {"action": action, "tenant": tenant, "before": before, "after": after, **more}
        if records:
            body["records"] = records
        payload = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
        command_id = uuid.uuid4().hex
        actor = operator or "-"
        for _ in range(_ATTEMPTS):
            version, head = expected if expected is not None else await self.head()
            time_ms = now_ms()
            entry_hash = chain_hash(
                head, version + 1, action, actor, command_id, RULES_VERSION, time_ms, payload
            )
            extra = [{"receipt": self._receipt(version + 1, entry_hash)}] if self.sign is not None else []
            args, _hashes = append_args(
                _ANY_KEY, version, head, [NewEvent(action, payload)], actor, command_id,
                RULES_VERSION, time_ms, None, None, extra=extra, hashes=[entry_hash],
            )  # fmt: skip
            args[6] = ""  # no notification on the matches' channel: CHANNEL below
            for tenant_id, raw in (writes or {}).items():  # the script's "snapshot" pairs
                args += [tenant_id, raw]
            status, first, _last = await self._append(
                keys=[LOG_KEYS[0], LOG_KEYS[1], TENANTS_KEY, LOG_KEYS[3]], args=args
            )
            if status in (b"ok", b"duplicate"):
                try:
                    await self.redis.publish(CHANNEL, str(first))
                except Exception as error:  # the replicas' poll is the safety net
                    _log.info("admin change notification lost", error=str(error))
                return int(first)
            if expected is not None:
                raise LogConflict(f"the admin log moved past version {version}")
        raise RuntimeError("the admin log stayed busy; the action was not recorded")

    def _receipt(self, version: int, entry_hash: str) -> bytes:
        assert self.sign is not None
        key_id, signature = self.sign(receipt_message(LOG_TENANT, LOG_NAME, version, entry_hash))
        return encode_receipt(Receipt(key_id, version, entry_hash, signature))

    async def head(self) -> tuple[int, str]:
        version, head = await self.redis.hmget(LOG_KEYS[1], ["version", "head_hash"])
        return (int(version), head.decode()) if version is not None else (0, GENESIS)

    async def entries(self, after_version: int = 0, limit: int = 100) -> list[LogEntry]:
        start = max(after_version, 0)
        raw = await self.redis.xrange(LOG_KEYS[0], min=read_start(start), max="+", count=limit + 1)
        return [_entry(e) for e in decode_after(raw, after_version, start)][:limit]

    async def events(self, after_version: int = 0, prev_hash: str = GENESIS) -> list[StoredEvent]:
        """Every entry after `after_version` (whose hash is `prev_hash`), read in pages."""
        decoder = EntryDecoder(prev_hash)
        found: list[StoredEvent] = []
        start = f"{after_version + 1}-0"
        while True:
            page = await self.redis.xrange(LOG_KEYS[0], min=start, max="+", count=_PAGE)
            found += [decoder.decode(entry_id, fields) for entry_id, fields in page]
            if len(page) < _PAGE:
                return found
            start = "(" + page[-1][0].decode()

    async def follow(self, follower: AdminLogFollower, up_to: int) -> AdminLogFollower:
        """`follower` brought up to version `up_to`, or a fresh one read from the start when the
        log no longer continues what it had seen (loudly: the log was cut or rewritten)."""
        if follower.length and not follower.problem and not await self._continues(follower, up_to):
            _log.error(
                "the admin log went back or was rewritten under this replica: it had followed it "
                "to version %d, the log now ends at %d with another history (cut or restored?); "
                "`guildhall admin log verify --checkpoint` against a kept checkpoint",
                follower.length, up_to,
            )  # fmt: skip
            follower = AdminLogFollower(follower.verify)
        if follower.problem:
            follower = AdminLogFollower(follower.verify)
        if follower.length == up_to:
            return follower
        try:
            fresh = [e for e in await self.events(follower.length, follower.head) if e.version <= up_to]
        except Exception as error:  # an entry that does not decode is a fault in the chain too
            follower._broken(follower.length + 1, f"an entry does not decode: {error}")
            return follower
        follower.feed(fresh)
        return follower

    async def _continues(self, follower: AdminLogFollower, up_to: int) -> bool:
        """Whether the log still holds, at the follower's length, the entry it last read."""
        if follower.length > up_to:
            return False
        at = f"{follower.length}-0"
        raw = await self.redis.xrange(LOG_KEYS[0], min=at, max=at)
        try:
            return bool(raw) and EntryDecoder(None).decode(*raw[0]).hash == follower.head
        except Exception:  # an entry that does not decode is not the one read before
            return False

    async def chain(self) -> AuditReport:
        """The whole chain re-computed and compared with the recorded head."""
        version, head = await self.head()
        raw = await self.redis.xrange(LOG_KEYS[0])
        try:
            events = decode_entries(raw)
        except Exception as error:  # an entry that does not even decode is tampering too
            return AuditReport(
                ok=False, events=len(raw), head_hash="", first_bad_version=None, problem=str(error)
            )
        return audit_events(events, version, head)

    async def checkpoint(self) -> Checkpoint:
        """The log's head now, signed; ValueError when the log does not verify (a checkpoint
        must never vouch for a broken or unsigned tail)."""
        if self.sign is None:
            raise ValueError("no SIGNING_KEYS_DIR: a throwaway key's checkpoint proves nothing later")
        events = await self.events()
        follower = AdminLogFollower(self.verify_receipt)
        follower.feed(events)
        if follower.problem:
            raise ValueError(
                f"the admin log breaks at version {follower.first_bad_version}: {follower.problem}"
            )
        if follower.unsigned:
            raise ValueError(f"the admin log's entries {follower.unsigned[:10]} carry no valid receipt")
        key_id, signature = self.sign(receipt_message(LOG_TENANT, LOG_NAME, follower.length, follower.head))
        return Checkpoint(follower.length, follower.head, key_id, signature, now_ms())

    async def verify(self, checkpoint: Checkpoint | None, records: Mapping[str, bytes]) -> LogReport:
        """The chain, every receipt, `checkpoint` if given, and `records` (the tenants hash as
        Redis holds it) against what the log explains."""
        try:
            events = await self.events()
        except Exception as error:
            return LogReport(0, "", chain_problem=f"an entry does not decode: {error}", first_bad_version=1)
        version, head = await self.head()
        follower = AdminLogFollower(self.verify_receipt)
        follower.feed(events)
        report = LogReport(
            follower.length,
            follower.head,
            follower.unsigned,
            follower.problem,
            follower.first_bad_version,
        )
        if not follower.problem and (version, head) != (follower.length, follower.head):
            report.chain_problem = f"the log's recorded head (version {version}) is not its last entry"
            report.first_bad_version = min(version, follower.length) + 1
        if checkpoint is not None:
            report.checkpoint_problem = check_checkpoint(checkpoint, events, self.verify_receipt)
        report.unexplained = follower.unexplained(records)
        return report
