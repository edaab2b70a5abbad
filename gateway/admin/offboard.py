"""Offboarding a tenant: a job that archives every match, verifies the archive, then removes
every Redis key of the tenant, and finishes whatever the caller's deadline (issue 39).

The job (`OffboardJobs`) is a hash in Redis, `gh:{admin}:offboarding:<tenant>`, that says how far
it got; the replica running it holds a lease on it (renewed at every step) and any replica takes
over a job whose lease ran out (a killed or restarted gateway): every replica looks for
unfinished jobs (the set `gh:{admin}:offboarding`) every SCAN_S. DeleteTenant starts or
continues the job and answers with its progress after at most the caller's deadline; calling
it again (`guildhall admin delete-tenant --wait`) follows it. Its phases, in order:

0. suspending: the tenant record marked suspended and offboarding (a `delete_tenant` entry of
   the admin log): every key and token refused, streams ended, turn timers parked.
   settling: SETTLE_S for every replica to apply it (they then stop flushing the tenant's usage
   counts: usage keys written back after the removal were issue 39's "usage comes back").
1. archiving: every `gh:{<tenant>:<match>}:meta` (SCAN); unfinished ones refuse the job unless
   forced; each live match archived (gateway.archive.archive_match: copy, verify, remove,
   tombstone), a match that moves meanwhile tried again.
2. verifying: every match of the tenant in the archive (the new and those retention archived
   before) read back, decoded and its chain re-computed. Any failure stops the job here
   (state `failed`, nothing else removed, the match named); DeleteTenant again retries.
3. removing: every key of the tenant (SCAN of every primary on a Redis Cluster) by its patterns
   (`tenant_patterns`), and the tenant's members of shared structures (turn timers, bot seats,
   matchmaking pools, the webhook shards' queues).
4. finishing: the record becomes a tombstone in a `tenant_deleted` entry holding the report (the
   completion entry); the job is `done` and stays readable.

Every step is idempotent, so a job taken over repeats at most the step it was in. Work runs in
a worker thread with a blocking Redis client, like retention (the archive stores are blocking:
files, S3). Usage counters are keys of the tenant too: read `guildhall admin usage` before.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any

import structlog

from gateway.admin.registry import tombstone
from gateway.archive import ArchiveError, ArchiveStore, archive_match, archive_name, decode
from gateway.eventstore.base import MatchKey
from gateway.scripts import ColdClusterGuard, guarded_script

_log = structlog.get_logger("admin")

_MOVED_RETRIES = 5
JOBS_KEY = "gh:{admin}:offboarding"  # set: tenants whose offboarding is under way
LEASE_S = 30.0  # a job whose runner is silent this long is taken over (OFFBOARD_LEASE_SECONDS)
SCAN_S = 5.0  # how often every replica looks for jobs to take over (at most: half a lease)
SETTLE_S = 2.0  # every replica applies a suspension within this (the registry's bound)
PHASES = ("suspending", "settling", "archiving", "verifying", "removing", "finishing", "done")


def tenant_patterns(tenant: str) -> list[str]:
    """SCAN patterns of every key that belongs to the tenant alone (tenant ids hold no glob
    characters: A-Z a-z 0-9 . _ -)."""
    return [
        f"gh:{{{tenant}:*",  # matches: events, meta, snapshot, commands, archived, webhooks cursor, ...
        f"gh:tenant:{{{tenant}}}:*",  # match indexes (all, active, finished)
        f"gh:tbl:{{{tenant}:*",  # private tables
        f"gh:mm:{{{tenant}:*",  # matchmaking pools, tickets, bot-fill
        f"gh:rt:{{{tenant}:*",  # ratings
        f"gh:wh:{{t:{tenant}}}:*",  # webhook dead letters
        f"gh:{{quota:{tenant}}}:*",  # quotas
        f"gh:usage:{{{tenant}}}:*",  # usage counters
    ]


def job_key(tenant: str) -> str:
    return f"gh:{{admin}}:offboarding:{tenant}"


@dataclass
class OffboardReport:
    """An offboarding job: where it is and what it did (the job hash's fields)."""

    tenant: str
    matches_archived: int = 0
    running_matches_archived: int = 0
    events_archived: int = 0
    archive_verified: bool = False
    keys_deleted: int = 0
    shared_entries_removed: int = 0
    verified: list[str] = field(default_factory=list)
    state: str = "running"  # running | done | failed
    phase: str = PHASES[0]
    matches_total: int = 0
    error: str = ""
    operator: str = ""
    force: bool = False
    started_ms: int = 0
    finished_ms: int = 0
    settle_until_ms: int = 0

    def passed(self, phase: str) -> bool:
        """Whether the job is past `phase` (a job taken over skips what is done)."""
        return PHASES.index(self.phase) > PHASES.index(phase)

    def saved(self) -> dict[str, str]:
        """The job hash's fields (the matches verified are counted, not listed)."""
        return {
            item.name: _field_text(getattr(self, item.name))
            for item in fields(self)
            if item.name not in ("tenant", "verified")
        }

    @classmethod
    def loaded(cls, tenant: str, raw: dict[Any, Any]) -> OffboardReport:
        text = {_text(k): _text(v) for k, v in raw.items()}
        job = cls(tenant)
        for item in fields(cls):
            value = text.get(item.name)
            if value is None or item.name in ("tenant", "verified"):
                continue
            kind = type(getattr(job, item.name))
            parsed: object = value if kind is str else int(value or 0)
            setattr(job, item.name, bool(parsed) if kind is bool else parsed)
        return job

    def summary(self) -> dict[str, Any]:
        """What the completion entry of the admin log records."""
        return {
            k: v for k, v in self.saved().items() if k not in ("settle_until_ms", "error", "state", "phase")
        }


class StillRunning(Exception):
    """Matches of the tenant have not finished (offboarding without force refuses)."""

    def __init__(self, match_ids: list[str]) -> None:
        super().__init__(
            f"{len(match_ids)} match(es) still running ({', '.join(match_ids[:5])}"
            f"{', ...' if len(match_ids) > 5 else ''}); end them or use --force"
        )
        self.match_ids = match_ids


def _scan(client: Any, pattern: str) -> Iterator[str]:
    """Every key matching `pattern`; a cluster client's scan_iter walks every primary."""
    for raw in client.scan_iter(match=pattern, count=1000):
        yield raw.decode() if isinstance(raw, bytes) else raw


def match_ids(client: Any, tenant: str, suffix: str) -> list[str]:
    """The ids of the tenant's matches with a key `gh:{<tenant>:<id>}:<suffix>` (`meta`: live,
    `archived`: archived), by SCAN of every primary."""
    prefix = f"gh:{{{tenant}:"
    found = set()
    for key in _scan(client, f"{prefix}*}}:{suffix}"):
        found.add(key[len(prefix) : -len(f"}}:{suffix}")])
    return sorted(found)


def running_matches(client: Any, tenant: str) -> list[str]:
    running = []
    for match_id in match_ids(client, tenant, "meta"):
        if client.hget(f"gh:{{{tenant}:{match_id}}}:meta", "finished") != b"1":
            running.append(match_id)
    return running


def offboard(
    client: Any,
    archive: ArchiveStore,
    report: OffboardReport,
    save: Callable[[OffboardReport], None] = lambda _report: None,
) -> OffboardReport:
    """Phases archiving, verifying and removing of the module's docstring, from the one
    `report` is in, calling `save` after every match and batch (it raises to stop the work: a
    lost lease); StillRunning or ArchiveError stop before any removal."""
    tenant = report.tenant
    if not report.passed("archiving"):
        report.phase = "archiving"
        running = running_matches(client, tenant)
        if running and not report.force:
            raise StillRunning(running)
        live = match_ids(client, tenant, "meta")
        report.matches_total = report.matches_archived + len(live)
        save(report)
        for match_id in live:
            key = MatchKey(tenant, match_id)
            for attempt in range(_MOVED_RETRIES):
                try:
                    archived = archive_match(client, archive, key)
                    break
                except ArchiveError as error:
                    if "moved" not in str(error) or attempt == _MOVED_RETRIES - 1:
                        raise
                    time.sleep(0.2)
            report.matches_archived += 1
            report.running_matches_archived += match_id in running
            report.events_archived += archived.events
            save(report)
    if not report.passed("verifying"):
        report.phase = "verifying"
        for match_id in match_ids(client, tenant, "archived"):
            blob = archive.get(archive_name(MatchKey(tenant, match_id)))
            if blob is None:
                raise ArchiveError(f"{tenant}/{match_id}: the archive has no blob; nothing was removed")
            check = decode(blob).audit()
            if not check.ok:
                raise ArchiveError(
                    f"{tenant}/{match_id}: the archived chain fails at {check.first_bad_version}"
                )
            report.verified.append(match_id)
            save(report)
        report.archive_verified = True
    report.phase = "removing"
    save(report)
    for pattern in tenant_patterns(tenant):
        keys = list(_scan(client, pattern))
        for start in range(0, len(keys), 500):
            pipe = client.pipeline(transaction=False)
            for name in keys[start : start + 500]:
                pipe.unlink(name)  # one key per command: every key may sit in another slot
            report.keys_deleted += sum(int(n) for n in pipe.execute())
            save(report)
    report.shared_entries_removed += _remove_shared(client, tenant)
    report.phase = "finishing"
    save(report)
    return report


def _remove_shared(client: Any, tenant: str) -> int:
    """The tenant's members of structures every tenant shares (their keys stay)."""
    removed = 0
    colon, unit = f"{tenant}:", f"{tenant}\x1f"
    for key in _scan(client, "gh:{timers.*}:*"):  # members "<tenant>:<match>:<seat>" / "<tenant>:<match>"
        removed += _remove_members(client, key, lambda m, _v: m.startswith(colon))
    for key in ("gh:{bots}:due", "gh:{bots}:info"):
        removed += _remove_members(client, key, lambda m, _v: m.startswith(unit))
    removed += _remove_members(client, "gh:{bots}:leases", lambda _m, v: v.startswith(unit))
    for key in ("gh:mm:pools", "gh:bots:pools"):
        removed += _remove_members(client, key, lambda m, _v: m.startswith(colon) or m.startswith(unit))
    for key in _scan(client, "gh:wh:{s*}:intents"):
        removed += _remove_members(client, key, lambda m, _v: m.startswith(unit))
    for items in _scan(client, "gh:wh:{s*}:items"):
        shard = items[: -len(":items")]
        ids = []
        for delivery_id, body in client.hscan_iter(items):
            try:
                owner = json.loads(body).get("tenant")
            except ValueError:
                continue
            if owner == tenant:
                ids.append(delivery_id)
        if ids:
            pipe = client.pipeline(transaction=True)  # one shard, one slot
            pipe.hdel(items, *ids)
            pipe.zrem(f"{shard}:due", *ids)
            pipe.zrem(f"{shard}:sent", *ids)
            removed += int(pipe.execute()[0])
    return removed


def _field_text(value: object) -> str:
    return str(int(value)) if isinstance(value, bool) else str(value)


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _remove_members(client: Any, key: str, mine: Any) -> int:
    kind = client.type(key)
    kind = kind.decode() if isinstance(kind, bytes) else kind
    if kind == "zset":
        members = [m for m, _s in client.zscan_iter(key) if mine(_text(m), "")]
        return int(client.zrem(key, *members)) if members else 0
    if kind == "set":
        members = [m for m in client.sscan_iter(key) if mine(_text(m), "")]
        return int(client.srem(key, *members)) if members else 0
    if kind == "hash":
        members = [f for f, v in client.hscan_iter(key) if mine(_text(f), _text(v))]
        return int(client.hdel(key, *members)) if members else 0
    return 0


# -- the job -----------------------------------------------------------------------------------

# Starts a job, or starts a failed one again (`force` only ever added); a running or finished
# job is left as it is.   KEYS: job, jobs   ARGV: tenant, operator, force, now_ms
_START = """
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'running' or state == 'done' then return state end
if not state then
  redis.call('HSET', KEYS[1], 'phase', 'suspending', 'operator', ARGV[2], 'started_ms', ARGV[4],
             'force', ARGV[3])
elseif ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 'force', '1')
end
redis.call('HSET', KEYS[1], 'state', 'running', 'error', '', 'updated_ms', ARGV[4])
redis.call('SADD', KEYS[2], ARGV[1])
return 'started'
"""

# The lease of a running job: taken when free or run out, renewed by its owner.
# KEYS: job   ARGV: owner, now_ms, lease_until_ms
_CLAIM = """
if redis.call('HGET', KEYS[1], 'state') ~= 'running' then return 0 end
local owner = redis.call('HGET', KEYS[1], 'owner')
local lease = tonumber(redis.call('HGET', KEYS[1], 'lease_until_ms') or '0') or 0
if owner and owner ~= '' and owner ~= ARGV[1] and lease > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'lease_until_ms', ARGV[3])
return 1
"""

# Progress, by the lease's owner only (0: the lease was lost; the work stops), renewing it; a
# final save ('done' or 'failed') ends the lease and takes the job off the set to resume.
# KEYS: job, jobs   ARGV: owner, lease_until_ms, final, tenant, field/value pairs...
_SAVE = """
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'lease_until_ms', ARGV[2], unpack(ARGV, 5))
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'state', ARGV[3], 'owner', '')
  redis.call('SREM', KEYS[2], ARGV[4])
end
return 1
"""


class LeaseLost(Exception):
    """Another replica took the job over (this one was silent past its lease): stop."""


def _now_ms() -> int:
    return int(time.time() * 1000)


class OffboardJobs:
    """Starts, runs, takes over and reports offboarding jobs (the module's docstring).

    `records` and `log` are the admin's (gateway/admin/registry.py TenantRecords, log.py
    AdminLog); `applied` re-reads this replica's tenants after a record change."""

    def __init__(
        self,
        redis: Any,
        records: Any,
        log: Any,
        archive: ArchiveStore,
        blocking_client: Callable[[], Any],
        applied: Callable[[], Awaitable[Any]],
        *,
        settle_s: float = SETTLE_S,
        lease_s: float = LEASE_S,
    ) -> None:
        self.redis = redis
        self.records = records
        self.log = log
        self.archive = archive
        self.blocking_client = blocking_client
        self.applied = applied
        self.settle_s = settle_s
        self.lease_ms = int(lease_s * 1000)
        self.owner = uuid.uuid4().hex  # this replica, as a lease holder
        guard = ColdClusterGuard(redis)
        self._start = guarded_script(redis, guard, _START)
        self._claim = guarded_script(redis, guard, _CLAIM)
        self._save = guarded_script(redis, guard, _SAVE)
        self._running: dict[str, asyncio.Task[None]] = {}

    async def get(self, tenant: str) -> OffboardReport | None:
        raw = await self.redis.hgetall(job_key(tenant))
        return OffboardReport.loaded(tenant, raw) if raw else None

    async def start(self, operator: str, tenant: str, force: bool) -> None:
        """A new job (or a failed one again); then `resume` runs it here."""
        await self._start(
            keys=[job_key(tenant), JOBS_KEY], args=[tenant, operator, "1" if force else "0", str(_now_ms())]
        )
        await self.resume(tenant)

    async def resume(self, tenant: str) -> None:
        """Run the job here unless a live replica holds it (or it is not running)."""
        task = self._running.get(tenant)
        if task is not None and not task.done():
            return
        now = _now_ms()
        if not await self._claim(
            keys=[job_key(tenant)], args=[self.owner, str(now), str(now + self.lease_ms)]
        ):
            return
        self._running[tenant] = asyncio.create_task(self._run(tenant), name=f"offboard {tenant}")

    async def forget(self, tenant: str) -> None:
        """Drop a failed job (its tenant was resumed instead)."""
        await self.redis.srem(JOBS_KEY, tenant)
        await self.redis.delete(job_key(tenant))

    async def wait(self, tenant: str, seconds: float) -> OffboardReport | None:
        """The job once it ended, or as it is after `seconds`."""
        deadline = time.monotonic() + max(seconds, 0.0)
        while True:
            job = await self.get(tenant)
            if job is None or job.state != "running" or time.monotonic() >= deadline:
                return job
            await asyncio.sleep(min(0.1, max(deadline - time.monotonic(), 0.0)))

    async def run(self, stopping: asyncio.Event) -> None:
        """Take over every job whose runner went silent, now and every SCAN_S."""
        while not stopping.is_set():
            try:
                for raw in await self.redis.smembers(JOBS_KEY):
                    await self.resume(_text(raw))
            except Exception as error:  # Redis away: look again later
                _log.warning("looking for offboarding jobs failed", error=str(error))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), min(SCAN_S, self.lease_ms / 2000))
        for task in list(self._running.values()):
            task.cancel()

    def _save_args(self, job: OffboardReport, final: str) -> dict[str, list[str]]:
        """The SAVE script's keys and arguments: the job's fields, the lease renewed."""
        pairs = [item for name_value in job.saved().items() for item in name_value]
        lease_until = str(_now_ms() + self.lease_ms)
        return {
            "keys": [job_key(job.tenant), JOBS_KEY],
            "args": [self.owner, lease_until, final, job.tenant, *pairs],
        }

    async def _persist(self, job: OffboardReport, final: str = "") -> None:
        if not await self._save(**self._save_args(job, final)):
            raise LeaseLost(job.tenant)

    async def _run(self, tenant: str) -> None:
        job = await self.get(tenant)
        if job is None:
            return
        _log.info("offboarding", tenant=tenant, phase=job.phase, owner=self.owner)
        try:
            if not job.passed("suspending"):
                await self._suspend(job)
            while not job.passed("settling"):
                await self._persist(job)  # the lease renewed while every replica applies it
                if _now_ms() >= job.settle_until_ms:
                    job.phase = "archiving"
                    break
                await asyncio.sleep(min(1.0, max(job.settle_until_ms - _now_ms(), 0) / 1000))
            if not job.passed("removing"):
                await asyncio.to_thread(self._offboard, job)
            await self._finish(job)
        except LeaseLost:
            _log.info("offboarding taken over by another replica", tenant=tenant)
        except asyncio.CancelledError:
            raise  # stopping: the lease runs out and a replica takes the job over
        except Exception as error:
            await self._fail(job, error)
        finally:
            self._running.pop(tenant, None)

    async def _suspend(self, job: OffboardReport) -> None:
        """Phase 0: the record suspended and marked, then the settle time starts."""

        def mark(before: dict[str, Any] | None) -> dict[str, Any] | None:
            if before is None or before.get("deleted") or before.get("offboarding"):
                return None
            return {**before, "suspended": True, "offboarding": {"started_ms": job.started_ms}}

        await self.records.change(job.operator, "delete_tenant", job.tenant, mark, force=job.force)
        await self.applied()
        job.phase, job.settle_until_ms = "settling", _now_ms() + int(self.settle_s * 1000)
        await self._persist(job)

    def _offboard(self, job: OffboardReport) -> None:
        """Phases archiving to removing, in a worker thread with a blocking client of its own."""
        client = self.blocking_client()
        try:
            save_script = client.register_script(_SAVE)

            def save(report: OffboardReport) -> None:
                if not save_script(**self._save_args(report, "")):
                    raise LeaseLost(report.tenant)

            offboard(client, self.archive, job, save)
        finally:
            client.close()

    async def _finish(self, job: OffboardReport) -> None:
        """Phase 4: the tombstone and the completion entry, then the job is done."""

        def bury(before: dict[str, Any] | None) -> dict[str, Any] | None:
            return None if before is None or before.get("deleted") else tombstone(before)

        job.state, job.phase, job.finished_ms = "done", "done", _now_ms()
        await self.records.change(job.operator, "tenant_deleted", job.tenant, bury, report=job.summary())
        await self.applied()
        await self._persist(job, "done")
        _log.info("offboarded", tenant=job.tenant, **job.summary())

    async def _fail(self, job: OffboardReport, error: Exception) -> None:
        why = str(error)[:500] or type(error).__name__
        _log.error("offboarding stopped; DeleteTenant again retries", tenant=job.tenant, error=why)
        job.state, job.error = "failed", why
        with contextlib.suppress(LeaseLost):
            await self._persist(job, "failed")
            await self.log.append(job.operator, "delete_tenant_failed", job.tenant, None, None, error=why)
