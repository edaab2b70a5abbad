"""Tenants at runtime: their records in Redis, every replica's in-memory copy, and propagation.

Decisions (question -> decision):
- Where does a tenant live? In `gh:{admin}:tenants`, one JSON record per tenant holding the
  tenants file's own body for it (keys as sha256, quotas, turn_timer, webhooks, bots), so one
  parser (gateway.auth.parse_tenants) judges the file and the API alike, plus `suspended` and
  times. The hot path never reads Redis for a tenant: the Authenticator holds them in memory.
- TENANTS_FILE and Redis, who wins? The file SEEDS: at start, a tenant of the file that Redis
  does not hold (and that was never deleted through the API) is copied in. From then on Redis
  wins: later edits of that tenant in the file are ignored (a warning names them). Operators'
  keys (the file's "operators" section) stay in the file: they are platform credentials, not
  tenant state, and a Secret is the right home for them.
- A Redis without the version counter (new, or flushed) is seeded from the file again.
- How does a change reach every replica within 2 s? Every write bumps `gh:{admin}:version` and
  publishes it on `gh:admin:changed` in the same script. Each replica listens (plain Redis) and
  also polls the counter every POLL_S as the safety net (a lost message, a reconnect, a Redis
  Cluster where the listener is not used): a GET of one small key per replica per POLL_S. On a
  new version it reloads every record (HGETALL; changes are rare) and swaps its tenants in.
- What ends at once on a suspension? Every call of the tenant (keys and tokens) is refused
  PERMISSION_DENIED "tenant suspended"; its Play/Watch/WatchTicket streams open on the replica
  are cancelled and end with that status (`OpenStreams`). Revoking a key refuses the key; seat
  tokens it already minted stay valid until they expire (suspend the tenant to stop them too).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import structlog

from gateway import metrics
from gateway.auth import Tenant, TenantsError, parse_tenants

_log = structlog.get_logger("admin")

TENANTS_KEY = "gh:{admin}:tenants"
VERSION_KEY = "gh:{admin}:version"
DELETED_KEY = "gh:{admin}:deleted"
CHANNEL = "gh:admin:changed"
POLL_S = 0.5  # the safety net's period; a change is applied within POLL_S + one reload

# One change, its version bump and its notification, atomically (all keys in the {admin} slot).
_WRITE_SCRIPT = """
-- KEYS: tenants, version, deleted   ARGV: tenant id, record ('' = delete), channel
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('SADD', KEYS[3], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('SREM', KEYS[3], ARGV[1])
end
local version = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[3], version)
return version
"""

# The file seeds the tenants Redis does not hold and that were never deleted through the API.
_SEED_SCRIPT = """
-- KEYS: tenants, version, deleted   ARGV: channel, then tenant id / record pairs
local seeded = {}
for i = 2, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 and redis.call('SISMEMBER', KEYS[3], ARGV[i]) == 0 then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    table.insert(seeded, ARGV[i])
  end
end
if #seeded > 0 then
  redis.call('PUBLISH', ARGV[1], redis.call('INCR', KEYS[2]))
end
return seeded
"""


def now_ms() -> int:
    return int(time.time() * 1000)


def new_record(body: Mapping[str, Any], *, created_ms: int | None = None) -> dict[str, Any]:
    """A tenant's record: the tenants-file body, not suspended, with its times."""
    stamp = now_ms() if created_ms is None else created_ms
    return {
        "body": dict(body),
        "suspended": False,
        "created_ms": stamp,
        "updated_ms": stamp,
        "key_created": {},
    }


def tenant_of(tenant_id: str, record: Mapping[str, Any]) -> Tenant:
    """The Tenant a record stands for; TenantsError names the fault."""
    tenant = parse_tenants({"tenants": {tenant_id: record.get("body", {})}})[tenant_id]
    return replace(tenant, suspended=bool(record.get("suspended")))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class TenantRecords:
    """Reads and writes tenant records in Redis (the admin use cases and the registry)."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._write = redis.register_script(_WRITE_SCRIPT)
        self._seed = redis.register_script(_SEED_SCRIPT)

    async def all(self) -> dict[str, dict[str, Any]]:
        raw = await self.redis.hgetall(TENANTS_KEY)
        return {_text(k): json.loads(v) for k, v in raw.items()}

    async def get(self, tenant_id: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(TENANTS_KEY, tenant_id)
        return json.loads(raw) if raw is not None else None

    async def put(self, tenant_id: str, record: Mapping[str, Any] | None) -> int:
        """Write (None: delete) one record; returns the new registry version."""
        body = "" if record is None else json.dumps(record, separators=(",", ":"), sort_keys=True)
        return int(
            await self._write(keys=[TENANTS_KEY, VERSION_KEY, DELETED_KEY], args=[tenant_id, body, CHANNEL])
        )

    async def seed(self, document: Mapping[str, Any]) -> list[str]:
        """The tenants file's tenants Redis does not hold yet (nor deleted through the API)."""
        args: list[str] = [CHANNEL]
        for tenant_id, body in (document.get("tenants") or {}).items():
            args += [tenant_id, json.dumps(new_record(body), separators=(",", ":"), sort_keys=True)]
        if len(args) == 1:
            return []
        seeded = await self._seed(keys=[TENANTS_KEY, VERSION_KEY, DELETED_KEY], args=args)
        return [_text(s) for s in seeded]

    async def version(self) -> int:
        return int(await self.redis.get(VERSION_KEY) or 0)


class OpenStreams:
    """The Play/Watch/WatchTicket streams open on this replica, by tenant: a suspension ends them
    (the servicer's streaming wrapper holds each stream here and turns a cut into its status)."""

    def __init__(self, on_open: Callable[[str, object], None] | None = None,
                 on_close: Callable[[object], None] | None = None) -> None:  # fmt: skip
        self._by_tenant: dict[str, set[asyncio.Task[Any]]] = {}
        self._cut: dict[asyncio.Task[Any], str] = {}
        self._on_open = on_open
        self._on_close = on_close

    @contextlib.contextmanager
    def hold(self, tenant: str) -> Iterator[None]:
        task = asyncio.current_task()
        if task is None or not tenant:
            yield
            return
        self._by_tenant.setdefault(tenant, set()).add(task)
        if self._on_open is not None:
            self._on_open(tenant, task)
        try:
            yield
        finally:
            tasks = self._by_tenant.get(tenant)
            if tasks is not None:
                tasks.discard(task)
                if not tasks:
                    del self._by_tenant[tenant]
            if self._on_close is not None:
                self._on_close(task)

    def cut(self, tenant: str, why: str) -> int:
        """End every open stream of `tenant`; returns how many."""
        tasks = self._by_tenant.get(tenant, set())
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
    """This replica's tenants, kept equal to Redis's: `apply` is called with every new set."""

    def __init__(
        self,
        redis: Any,
        apply: Callable[[dict[str, Tenant]], None],
        *,
        streams: OpenStreams | None = None,
        poll_s: float = POLL_S,
        listen: bool = True,
    ) -> None:
        self.records = TenantRecords(redis)
        self.redis = redis
        self._apply = apply
        self.streams = streams or OpenStreams()
        self.poll_s = poll_s
        self.listen = listen
        self.version = -1
        self.tenants: dict[str, Tenant] = {}
        self.applied_at = 0.0  # monotonic time of the last applied change (logs, tests)
        self._seed: Mapping[str, Any] | None = None

    async def refresh(self, *, force: bool = False) -> bool:
        """Reload if the version moved (or `force`); True when a new set was applied."""
        version = await self.records.version()
        if version == 0 and self._seed:  # a Redis that is new, or lost everything: seeded again
            await self.records.seed(self._seed)
            version, force = await self.records.version(), True
        if version == self.version and not force:
            return False
        records = await self.records.all()
        tenants: dict[str, Tenant] = {}
        for tenant_id, record in records.items():
            try:
                tenants[tenant_id] = tenant_of(tenant_id, record)
            except (TenantsError, AttributeError, TypeError) as error:  # keep the rest serving
                _log.error("tenant record refused", tenant=tenant_id, error=str(error))
                previous = self.tenants.get(tenant_id)
                if previous is not None:
                    tenants[tenant_id] = previous
        gone = {t for t in self.tenants if t not in tenants}
        suspended = {
            t
            for t, v in tenants.items()
            if v.suspended and not (t in self.tenants and self.tenants[t].suspended)
        }
        self._apply(tenants)
        self.tenants = tenants
        self.version = version
        self.applied_at = time.monotonic()
        for tenant_id in suspended:
            self.streams.cut(tenant_id, f"tenant suspended: {tenant_id!r} is suspended by the operator")
        for tenant_id in gone:
            self.streams.cut(tenant_id, f"tenant {tenant_id!r} no longer exists")
        _log.info("tenants applied", version=version, tenants=len(tenants))
        return True

    async def start(self, seed: Mapping[str, Any] | None) -> dict[str, Tenant]:
        """Seed from the tenants file, then load: the tenants this replica starts with."""
        self._seed = seed
        if seed:
            seeded = await self.records.seed(seed)
            if seeded:
                _log.info("tenants seeded from TENANTS_FILE", tenants=sorted(seeded))
        await self.refresh(force=True)
        if seed:
            self._warn_ignored(seed)
        return self.tenants

    def _warn_ignored(self, seed: Mapping[str, Any]) -> None:
        ignored = []
        for tenant_id, body in (seed.get("tenants") or {}).items():
            if tenant_id not in self.tenants:
                continue
            try:
                from_file = tenant_of(tenant_id, {"body": body})
            except TenantsError:
                continue
            if replace(from_file, suspended=self.tenants[tenant_id].suspended) != self.tenants[tenant_id]:
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
