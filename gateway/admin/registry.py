"""Tenants at runtime: their records in Redis, every replica's in-memory copy, and propagation.

Decisions (question -> decision):
- Where does a tenant live? In `gh:{admin}:tenants`, one JSON record per tenant holding the
  tenants file's own body for it (keys as sha256, quotas, turn_timer, webhooks, bots), so one
  parser (gateway.auth.parse_tenants) judges the file and the API alike, plus `suspended`,
  times, and (issue 39) its `generation`: a random id of this incarnation of the tenant id,
  which every token minted for it carries. The hot path never reads Redis for a tenant: the
  Authenticator holds them in memory.
- Who writes a record? Only the admin log (gateway/admin/log.py): every change, seeding
  included, is a log entry that writes the record in the same script run and names its
  sha256. A replica applies only records the log explains (issue 39): a record written
  directly to Redis, or changed after its entry, is not served (a replica keeps the version it
  had, a replica starting then does not serve the tenant), and an error names it;
  `guildhall admin log verify` lists them. A log that has never explained a record (written
  before issue 39) adopts the records Redis holds, once, in a signed `adopt_records` entry.
- Deleting: the record becomes a tombstone `{"deleted": true, "generation": ...}` (a log entry
  too), so the id is never created again: the archive keeps the old tenant's matches under it
  (ids deleted before tombstones are in the legacy set `gh:{admin}:deleted`).
- TENANTS_FILE and Redis, who wins? The file SEEDS: at start, a tenant of the file that Redis
  does not hold (and that was never deleted) is written in, by a `seed_tenant` log entry. From
  then on Redis wins: later edits of that tenant in the file are ignored (a warning names
  them). Operators' keys (the file's "operators" section) stay in the file: they are platform
  credentials, not tenant state, and a Secret is the right home for them.
- A Redis whose admin log is empty (new, or flushed) is seeded from the file again; the seeded
  tenants are new incarnations (new generations): no token of before is accepted.
- How does a change reach every replica within 2 s? Every entry publishes the log's version on
  `gh:admin:changed`. Each replica listens (plain Redis) and also polls the log's head every
  POLL_S as the safety net (a lost message, a reconnect, a Redis Cluster where the listener is
  not used). On a new head it reads the records and the log's head in one transaction, then
  the log's new entries, and swaps its tenants in.
- What ends at once? A suspension: every call of the tenant (keys and tokens) is refused
  PERMISSION_DENIED "tenant suspended"; its Play/Watch/WatchTicket streams open on the replica
  are cancelled and end with that status (`OpenStreams`); its turn timers stop (gateway/timers.py)
  and restart with their full time on resume. A revoked key: the key, every token it minted
  (issue 39) and the streams opened with either.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import structlog

from gateway import metrics
from gateway.admin.keys import ADMIN_KEYS_RECORD, parse_admin_keys
from gateway.admin.log import (
    CHANNEL,
    LOG_KEYS,
    TENANTS_KEY,
    AdminLog,
    AdminLogFollower,
    LogConflict,
    now_ms,
    redact,
)
from gateway.auth import ApiKey, Tenant, TenantsError, parse_tenants
from gateway.eventstore.base import GENESIS
from gateway.scripts import ColdClusterGuard, guarded_script

_log = structlog.get_logger("admin")

DELETED_KEY = "gh:{admin}:deleted"  # ids deleted before tombstones (issue 34's set), still honoured
POLL_S = 0.5  # the safety net's period; a change is applied within POLL_S + one reload
_CHANGE_ATTEMPTS = 20
SEED_OPERATOR = "TENANTS_FILE"  # the actor of seed entries
ADOPT_OPERATOR = "gateway"  # the actor of the one adopt entry


class Unexplained(Exception):
    """A tenant record the admin log does not explain (written or changed outside it)."""

    def __init__(self, tenant_id: str, why: str = "") -> None:
        super().__init__(
            why
            or f"tenant {tenant_id!r}: Redis does not hold the record the admin log wrote last "
            f"(guildhall admin log verify shows what differs; guildhall admin restore-tenant {tenant_id} "
            "puts the log's record back)"
        )
        self.tenant_id = tenant_id


def new_record(body: Mapping[str, Any], *, created_ms: int | None = None) -> dict[str, Any]:
    """A tenant's record: the tenants-file body, not suspended, a new generation, its times."""
    stamp = now_ms() if created_ms is None else created_ms
    return {
        "body": dict(body),
        "suspended": False,
        "generation": secrets.token_hex(16),
        "created_ms": stamp,
        "updated_ms": stamp,
        "key_created": {},
    }


def tombstone(record: Mapping[str, Any]) -> dict[str, Any]:
    """What stays of a deleted tenant: its id is taken for good."""
    return {"deleted": True, "generation": record.get("generation", ""), "deleted_ms": now_ms()}


def encode_record(record: Mapping[str, Any]) -> bytes:
    return json.dumps(record, separators=(",", ":"), sort_keys=True).encode()


def tenant_of(tenant_id: str, record: Mapping[str, Any]) -> Tenant:
    """The Tenant a record stands for; TenantsError names the fault."""
    tenant = parse_tenants({"tenants": {tenant_id: record.get("body", {})}})[tenant_id]
    return replace(
        tenant,
        suspended=bool(record.get("suspended")),
        generation=str(record.get("generation", "")),
        offboarding=bool(record.get("offboarding")),
    )


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


# The log's head and one record (ARGV[1]), or every record: in one script, so atomically.
# KEYS: log meta, tenants
_READ = """
local head = redis.call('HMGET', KEYS[1], 'version', 'head_hash')
local version, hash = head[1] or '', head[2] or ''
if #ARGV > 0 then
  return {version, hash, redis.call('HGET', KEYS[2], ARGV[1]) or ''}
end
return {version, hash, redis.call('HGETALL', KEYS[2])}
"""

Change = Callable[[dict[str, Any] | None], dict[str, Any] | None]  # record (or None) -> new, or None
# (tenant, the record's raw bytes or None, the log's version it was read at): raises to refuse
Guard = Callable[[str, bytes | None, int], Awaitable[None]]


class TenantRecords:
    """Tenant records in Redis (the admin use cases and the registry): read here, written only
    through the admin log (`change`)."""

    def __init__(self, redis: Any, log: AdminLog) -> None:
        self.redis = redis
        self.log = log
        self._read = guarded_script(redis, ColdClusterGuard(redis), _READ)

    async def change(
        self,
        operator: str,
        action: str,
        tenant_id: str,
        change: Change,
        *,
        guard: Guard | None = None,
        **more: Any,
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """Read the record (None: none; a tombstone is a record), let `guard` refuse it, let
        `change` make the new one (None: nothing to write; it raises to refuse), and write it
        with its log entry, unless another change landed since the read: then read and decide
        again. Returns (before, after)."""
        for _ in range(_CHANGE_ATTEMPTS):
            version, head, raw = await self.read(tenant_id)
            try:
                if guard is not None:
                    await guard(tenant_id, raw, version)
                before = json.loads(raw) if raw is not None else None
                after = change(copy.deepcopy(before))
                if after is None:
                    return before, before
                await self.log.append(
                    operator, action, tenant_id, redact(before), redact(after),
                    writes={tenant_id: encode_record(after)}, expected=(version, head), **more,
                )  # fmt: skip
            except LogConflict:
                continue
            return before, after
        raise RuntimeError(f"tenant {tenant_id!r} kept changing; {action} was not recorded")

    async def read(self, tenant_id: str) -> tuple[int, str, bytes | None]:
        """The log's head and the tenant's record, read atomically (one script)."""
        version, head, raw = await self._read(keys=[LOG_KEYS[1], TENANTS_KEY], args=[tenant_id])
        return (int(version), _text(head), raw or None) if version else (0, GENESIS, raw or None)

    async def snapshot(self) -> tuple[int, str, dict[str, bytes]]:
        """The log's head and every record (tombstones too, as raw bytes), read atomically (one
        script): no entry, and so no record it writes, lands between the two reads."""
        version, head, flat = await self._read(keys=[LOG_KEYS[1], TENANTS_KEY], args=[])
        records = {_text(flat[i]): bytes(flat[i + 1]) for i in range(0, len(flat), 2)}
        return (int(version), _text(head), records) if version else (0, GENESIS, records)

    async def all(self) -> dict[str, dict[str, Any]]:
        """Every live tenant's record (tombstones and the admin keys' record left out)."""
        raw = await self.redis.hgetall(TENANTS_KEY)
        records = {_text(k): json.loads(v) for k, v in raw.items() if _text(k) != ADMIN_KEYS_RECORD}
        return {k: v for k, v in records.items() if not v.get("deleted")}

    async def get(self, tenant_id: str) -> dict[str, Any] | None:
        record = await self.get_any(tenant_id)
        return None if record is None or record.get("deleted") else record

    async def get_any(self, tenant_id: str) -> dict[str, Any] | None:
        """The record, a tombstone included."""
        raw = await self.redis.hget(TENANTS_KEY, tenant_id)
        return json.loads(raw) if raw is not None else None

    async def remove(self, tenant_id: str) -> None:
        """Remove a record the log says must not exist (after the entry saying so: the append
        script only writes)."""
        await self.redis.hdel(TENANTS_KEY, tenant_id)

    async def deleted(self, tenant_id: str) -> bool:
        """Whether the id belonged to a tenant that was deleted (a tombstone, or the legacy set)."""
        record = await self.get_any(tenant_id)
        if record is not None:
            return bool(record.get("deleted"))
        return bool(await self.redis.sismember(DELETED_KEY, tenant_id))


class OpenStreams:
    """The Play/Watch/WatchTicket streams open on this replica, by tenant and by the API key
    behind their credential: a suspension, or the key's revocation, ends them (the servicer's
    streaming wrapper holds each stream here and turns a cut into its status)."""

    def __init__(self, on_open: Callable[[str, object], None] | None = None,
                 on_close: Callable[[object], None] | None = None) -> None:  # fmt: skip
        self._by_tenant: dict[str, set[asyncio.Task[Any]]] = {}
        self._by_key: dict[str, set[asyncio.Task[Any]]] = {}
        self._cut: dict[asyncio.Task[Any], str] = {}
        self._on_open = on_open
        self._on_close = on_close

    @contextlib.contextmanager
    def hold(self, tenant: str, key_print: str = "") -> Iterator[None]:
        """`key_print`: the API key the credential is or was minted by (Principal.key_print)."""
        task = asyncio.current_task()
        if task is None or not tenant:
            yield
            return
        indexes = [(self._by_tenant, tenant)] + ([(self._by_key, key_print)] if key_print else [])
        for index, name in indexes:
            index.setdefault(name, set()).add(task)
        if self._on_open is not None:
            self._on_open(tenant, task)
        try:
            yield
        finally:
            for index, name in indexes:
                tasks = index.get(name)
                if tasks is not None:
                    tasks.discard(task)
                    if not tasks:
                        del index[name]
            if self._on_close is not None:
                self._on_close(task)

    def cut(self, tenant: str, why: str) -> int:
        """End every open stream of `tenant`; returns how many."""
        return self._cut_all(self._by_tenant.get(tenant, set()), why)

    def cut_key(self, key_print: str, why: str) -> int:
        """End every open stream whose credential is, or was minted by, the key `key_print`."""
        return self._cut_all(self._by_key.get(key_print, set()), why)

    def _cut_all(self, tasks: set[asyncio.Task[Any]], why: str) -> int:
        for task in tasks:
            self._cut[task] = why
            task.cancel()
        return len(tasks)

    def why_cut(self, task: asyncio.Task[Any] | None) -> str | None:
        """The reason `task`'s stream was cut (once), or None if it was not."""
        return self._cut.pop(task, None) if task is not None else None

    def count(self, tenant: str) -> int:
        return len(self._by_tenant.get(tenant, ()))


class TenantRegistry:
    """This replica's tenants, kept equal to what Redis holds and the admin log explains:
    `apply` is called with every new set."""

    def __init__(
        self,
        redis: Any,
        apply: Callable[[dict[str, Tenant]], None],
        *,
        apply_admin_keys: Callable[[tuple[ApiKey, ...]], None] | None = None,
        log: AdminLog | None = None,
        streams: OpenStreams | None = None,
        on_resumed: Callable[[str], Awaitable[None]] | None = None,
        poll_s: float = POLL_S,
        listen: bool = True,
    ) -> None:
        self.log = log if log is not None else AdminLog(redis)
        self.records = TenantRecords(redis, self.log)
        self.redis = redis
        self._apply = apply
        self._apply_admin_keys = apply_admin_keys  # issue 43: the admin keys made at runtime
        self.admin_keys: tuple[ApiKey, ...] = ()
        self._keys_refused = ""  # why the admin keys' record was last refused, as said
        self.streams = streams or OpenStreams()
        self._on_resumed = on_resumed  # a suspended tenant resumed: restart its turn clocks
        self.poll_s = poll_s
        self.listen = listen
        self.head: tuple[int, str] = (-1, "")  # the log's version and head hash last applied
        self.tenants: dict[str, Tenant] = {}
        self.follower = AdminLogFollower(self.log.verify_receipt)
        self.applied_at = 0.0  # monotonic time of the last applied change (logs, tests)
        self._seed: Mapping[str, Any] | None = None
        self._refused: dict[str, str] = {}  # tenant -> why, as last said (said again on change)
        self._background: set[asyncio.Task[None]] = set()
        self._following = asyncio.Lock()  # one reader of the log at a time feeds the follower
        self._refreshing = asyncio.Lock()

    async def follow(self, version: int) -> AdminLogFollower:
        """The follower brought up to the log's `version`. One ahead of `version` because the
        caller read before a change that has landed since is left as it is (the caller reads
        again: its length is not `version`); one ahead of the log itself is read afresh."""
        async with self._following:
            ahead = self.follower.length > version
            if ahead and (await self.log.head())[0] >= self.follower.length:
                return self.follower
            self.follower = await self.log.follow(self.follower, version)
            return self.follower

    async def require_explained(self, tenant_id: str, raw: bytes | None, version: int) -> None:
        """Unexplained unless the log's latest word on the tenant, as of `version`, is this record
        (None: no record): an admin change never builds on, and so never blesses, a record
        written outside the log. LogConflict when the log moved since `version` was read."""
        follower = await self.follow(version)
        if follower.problem:
            raise Unexplained(
                tenant_id, f"the admin log breaks at version {follower.first_bad_version}: {follower.problem}"
            )
        if follower.length != version:
            raise LogConflict(f"the admin log moved past version {version}")
        if not follower.explains(tenant_id, raw):
            raise Unexplained(tenant_id)

    async def refresh(self, *, force: bool = False) -> bool:
        """Reload if the log moved (or `force`); True when a new set was applied. The log's
        head hash, not only its version, says so: a log wiped and seeded again to the same
        version is another log."""
        async with self._refreshing:  # one at a time: a slower one never applies an older set
            return await self._refresh(force)

    async def _refresh(self, force: bool) -> bool:
        head = await self.log.head()
        if head[0] == 0 and self._seed:  # a Redis that is new, or lost everything: seeded again
            await self.seed(self._seed)
            head, force = await self.log.head(), True
        if head == self.head and not force:
            return False
        for _ in range(_CHANGE_ATTEMPTS):  # the records judged by the log at their own version
            version, head_hash, raw = await self.records.snapshot()
            follower = await self.follow(version)
            if follower.length == version or follower.problem:
                break
        raw = dict(raw)
        admin_keys = self._explained_admin_keys(raw.pop(ADMIN_KEYS_RECORD, None))
        tenants = self._explained_tenants(raw)
        gone = {t for t in self.tenants if t not in tenants}
        suspended = {
            t
            for t, v in tenants.items()
            if v.suspended and not (t in self.tenants and self.tenants[t].suspended)
        }
        resumed = {
            t
            for t, v in tenants.items()
            if not v.suspended and t in self.tenants and self.tenants[t].suspended
        }
        revoked = _key_prints(self.tenants) - _key_prints(tenants)
        self._apply(tenants)
        self.tenants = tenants
        if admin_keys != self.admin_keys and self._apply_admin_keys is not None:
            self._apply_admin_keys(admin_keys)
        self.admin_keys = admin_keys
        self.head = (version, head_hash)
        self.applied_at = time.monotonic()
        for tenant_id in suspended:
            self.streams.cut(tenant_id, f"tenant suspended: {tenant_id!r} is suspended by the operator")
        for tenant_id in gone:
            self.streams.cut(tenant_id, f"tenant {tenant_id!r} no longer exists")
        for key_print in revoked:
            self.streams.cut_key(key_print, "the API key behind this credential was revoked")
        restart = self._on_resumed
        if restart is not None:
            for tenant_id in resumed:
                self._in_background(restart(tenant_id), f"restart the clocks of {tenant_id}")
        _log.info("tenants applied", log_version=version, tenants=len(tenants))
        return True

    def _explained_admin_keys(self, data: bytes | None) -> tuple[ApiKey, ...]:
        """The admin keys of the record if the log explains it; else the ones this replica had
        (explained when they were applied), and an error says why."""
        if not self.follower.explains(ADMIN_KEYS_RECORD, data):
            why = "the admin log does not explain the admin keys' record (guildhall admin log verify)"
        else:
            try:
                keys = parse_admin_keys(json.loads(data)) if data is not None else ()
                self._keys_refused = ""
                return keys
            except (TenantsError, ValueError, AttributeError, TypeError) as error:
                why = str(error)
        if self._keys_refused != why:
            _log.error("admin keys record refused", error=why, kept=len(self.admin_keys))
        self._keys_refused = why
        return self.admin_keys

    def _explained_tenants(self, raw: Mapping[str, bytes]) -> dict[str, Tenant]:
        """The tenants of these records that the log explains; for one it does not, the version
        this replica had (explained when it was applied), else none."""
        tenants: dict[str, Tenant] = {}
        refused: dict[str, str] = {}
        for tenant_id, data in raw.items():
            try:
                record = json.loads(data)
                if record.get("deleted"):
                    continue
                if not self.follower.explains(tenant_id, data):
                    raise TenantsError(
                        "the admin log does not explain this record (guildhall admin log verify)"
                    )
                tenants[tenant_id] = tenant_of(tenant_id, record)
            except (TenantsError, ValueError, AttributeError, TypeError) as error:  # keep the rest serving
                refused[tenant_id] = str(error)
                previous = self.tenants.get(tenant_id)
                if previous is not None:
                    tenants[tenant_id] = previous
        for tenant_id, why in refused.items():
            if self._refused.get(tenant_id) != why:
                _log.error("tenant record refused", tenant=tenant_id, error=why, kept=tenant_id in tenants)
        self._refused = refused
        return tenants

    def _in_background(self, work: Awaitable[None], what: str) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                _log.exception("%s failed", what)

        task = asyncio.create_task(run(), name=what)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def start(self, seed: Mapping[str, Any] | None) -> dict[str, Tenant]:
        """Adopt a log written before issue 39, seed from the tenants file, then load: the
        tenants this replica starts with."""
        self._seed = seed
        await self.adopt()
        if seed:
            seeded = await self.seed(seed)
            if seeded:
                _log.info("tenants seeded from TENANTS_FILE", tenants=sorted(seeded))
        await self.refresh(force=True)
        if seed:
            self._warn_ignored(seed)
        return self.tenants

    async def adopt(self) -> bool:
        """A log that has never explained a record (written before issue 39) takes the records
        Redis holds now as its own, in one signed entry: once, by whichever replica gets there."""
        for _ in range(_CHANGE_ATTEMPTS):
            version, head, raw = await self.records.snapshot()
            follower = await self.follow(version)
            if follower.length != version:
                continue  # the log moved since the read
            if follower.explained or follower.unvouched or follower.problem or not raw:
                return False
            shown = {t: _shown(data) for t, data in sorted(raw.items())}
            try:
                await self.log.append(
                    ADOPT_OPERATOR, "adopt_records", "", None, shown, writes=raw, expected=(version, head)
                )
            except LogConflict:
                continue
            _log.warning("the admin log adopted the tenant records Redis held", tenants=sorted(raw))
            return True
        return False

    async def seed(self, document: Mapping[str, Any]) -> list[str]:
        """The tenants file's tenants Redis does not hold yet (nor ever deleted), each written by
        a `seed_tenant` entry of the log."""
        seeded: list[str] = []
        for tenant_id, body in (document.get("tenants") or {}).items():
            if await self.redis.sismember(DELETED_KEY, tenant_id):
                continue

            def seed_one(held: dict[str, Any] | None, body: Any = body) -> dict[str, Any] | None:
                return None if held is not None else new_record(body)  # a tombstone is held too

            before, after = await self.records.change(SEED_OPERATOR, "seed_tenant", tenant_id, seed_one)
            if before is None and after is not None:
                seeded.append(tenant_id)
        return seeded

    def _warn_ignored(self, seed: Mapping[str, Any]) -> None:
        ignored = []
        for tenant_id, body in (seed.get("tenants") or {}).items():
            if tenant_id not in self.tenants:
                continue
            try:
                from_file = tenant_of(tenant_id, {"body": body})
            except TenantsError:
                continue
            current = self.tenants[tenant_id]
            if replace(from_file, suspended=current.suspended, generation=current.generation) != current:
                ignored.append(tenant_id)
        if ignored:
            _log.warning(
                "TENANTS_FILE differs from Redis for these tenants; Redis wins (guildhall admin)",
                tenants=sorted(ignored),
            )

    async def run(self, stopping: asyncio.Event) -> None:
        """Apply every change: on a notification at once, else at the next poll."""
        wake = asyncio.Event()
        listener = asyncio.create_task(self._listen(wake, stopping)) if self.listen else None
        try:
            while not stopping.is_set():
                wake.clear()
                try:
                    await self.refresh()
                except Exception as error:  # Redis away: keep the tenants we have, try again
                    metrics.TENANT_REFRESHES.labels("failed").inc()
                    _log.warning("tenants refresh failed", error=str(error))
                else:
                    metrics.TENANT_REFRESHES.labels("ok").inc()
                with contextlib.suppress(TimeoutError):
                    waiter = asyncio.ensure_future(wake.wait())
                    stop = asyncio.ensure_future(stopping.wait())
                    try:
                        await asyncio.wait(
                            {waiter, stop}, timeout=self.poll_s, return_when=asyncio.FIRST_COMPLETED
                        )
                    finally:
                        waiter.cancel()
                        stop.cancel()
        finally:
            if listener is not None:
                listener.cancel()
                with contextlib.suppress(BaseException):
                    await listener

    async def _listen(self, wake: asyncio.Event, stopping: asyncio.Event) -> None:
        if not hasattr(self.redis, "pubsub"):  # a cluster client: the poll alone
            return
        while not stopping.is_set():
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(CHANNEL)
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        wake.set()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                _log.info("admin notifications lost; polling meanwhile", error=str(error))
                await asyncio.sleep(1.0)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()


def _key_prints(tenants: Mapping[str, Tenant]) -> set[str]:
    return {key.key_print for tenant in tenants.values() for key in tenant.keys}


def _shown(data: bytes) -> Any:
    """A raw record as the log shows it (secrets redacted)."""
    try:
        return redact(json.loads(data))
    except (ValueError, AttributeError):
        return "<not JSON>"
