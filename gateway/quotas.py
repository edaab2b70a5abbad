"""Per-tenant quotas: actions per second (a token bucket in Redis), active matches, open tickets.

The bucket lives in Redis so every replica draws from the same one. Asking Redis for every
action would add a round trip to the hot path, so a replica leases a small batch of tokens at
once (a twentieth of a second's worth) and spends it locally; unspent leases lapse after a
quarter second, so the tenant's rate over all replicas never exceeds the configured one by more
than one batch per replica. Each key is alone in its own hash tag: Redis Cluster is fine.

A tenant's buckets sit on one shard; that shard failing over must not stall every match of the
tenant on every other shard (issue 24). So when a refill fails with a store fault, or takes longer
than REFILL_TIMEOUT_S, the replica fails open for a bounded time: it meters the tenant locally at
the configured rate (each replica alone, so the tenant may get up to one rate per replica) and
asks Redis again after RECHECK_S; after FAIL_OPEN_MAX_S without the shard it answers UNAVAILABLE.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis.exceptions
import structlog

from gateway import metrics
from gateway.eventstore.async_redis import is_store_fault
from gateway.eventstore.base import EventStoreUnavailable

_log = structlog.get_logger("quotas")

# KEYS[1] bucket hash {tokens, ts_us}; ARGV rate/s, capacity, wanted.
# Returns {granted, retry_after_ms}. Redis's own clock: replicas' clocks need not agree.
_BUCKET = """
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil then tokens = capacity; ts = now end
tokens = math.min(capacity, tokens + (now - ts) * rate / 1000000)
local granted = math.min(wanted, math.floor(tokens))
tokens = tokens - granted
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000) + 1000)
local retry = 0
if granted == 0 then retry = math.ceil((1 - tokens) * 1000 / rate) end
return {granted, retry}
"""

# KEYS[1] set of the tenant's active match ids; ARGV match id, limit. 1 = admitted (or already in).
_ADMIT = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""

REFILL_TIMEOUT_S = 1.0  # a refill slower than this meters locally (a stalled shard)
RECHECK_S = 1.0  # while failing open, ask the shard again this often
FAIL_OPEN_MAX_S = 60.0  # then stop failing open: UNAVAILABLE until the shard answers
LEASE_SECONDS = 0.05  # tokens leased per trip to Redis: this many seconds of the tenant's rate
LEASE_TTL_S = 0.25  # an unspent lease lapses after this long


class QuotaExceeded(Exception):
    """Over a tenant quota: RESOURCE_EXHAUSTED with a retry hint."""

    def __init__(self, quota: str, message: str, retry_after_ms: int) -> None:
        super().__init__(message)
        self.quota = quota
        self.message = message
        self.retry_after_ms = retry_after_ms


# The rate quotas, each a token bucket of its own per tenant: accepted-or-not actions, and reads
# (views, replays, listings, audits, raw events, Watch openings), so a tenant flooding reads
# cannot take the machine from the others either (issue 15's flood finding).
ACTIONS = "actions_per_second"
READS = "reads_per_second"
_BUCKET_NAMES = {ACTIONS: "actions", READS: "reads"}


def bucket_key(tenant: str, quota: str = ACTIONS) -> str:
    return f"gh:{{quota:{tenant}}}:{_BUCKET_NAMES[quota]}"


def active_key(tenant: str) -> str:
    return f"gh:{{quota:{tenant}}}:active"


def web_key(tenant: str) -> str:
    """Issue 39: the tenant's web tables in play (opened with a publishable key)."""
    return f"gh:{{quota:{tenant}}}:web"


@dataclass
class _Lease:
    tokens: int
    expires: float


@dataclass
class _FailingOpen:
    """A bucket whose shard did not answer: metered here until `recheck`, since `since`."""

    since: float
    recheck: float
    tokens: float
    updated: float
    probe: asyncio.Task[None] | None = None  # the background refill asking the shard again


class Quotas:
    """Quota checks against one Redis (a redis.asyncio client or cluster client)."""

    def __init__(self, redis: Any, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._redis = redis
        self._bucket = redis.register_script(_BUCKET)
        self._admit = redis.register_script(_ADMIT)
        self._clock = clock
        self._leases: dict[str, _Lease] = {}
        self._open: dict[str, _FailingOpen] = {}
        self._refills: dict[str, asyncio.Lock] = {}

    async def take_action(self, tenant: str, per_second: float) -> None:
        """One action's token from the tenant's action bucket (burst: one second's worth)."""
        await self._take(tenant, ACTIONS, per_second)

    async def take_read(self, tenant: str, per_second: float) -> None:
        """One read's token from the tenant's read bucket (burst: one second's worth)."""
        try:
            await self._take(tenant, READS, per_second)
        except redis.exceptions.ResponseError as exc:
            if "OOM" not in str(exc):
                raise
            # A full Redis refuses the bucket's own write. Reads write nothing else and must keep
            # working when Redis is full (operators read, audit and archive then), so they pass
            # unmetered until there is room again.

    async def _take(self, tenant: str, quota: str, per_second: float) -> None:
        bucket = bucket_key(tenant, quota)
        if self._spend_lease(bucket):
            return
        # One refill per bucket at a time: a burst of concurrent calls would otherwise each
        # lease a whole batch and drain the bucket (issue 15: 24 racing submits were refused at
        # a quota of 100000/s). Waiters spend the lease the first one brought back.
        lock = self._refills.setdefault(bucket, asyncio.Lock())
        async with lock:
            if self._spend_lease(bucket):
                return
            failing = self._open.get(bucket)
            if failing is not None:  # never wait on the shard again: ask it in the background
                if failing.recheck <= self._clock() and failing.probe is None:
                    failing.probe = asyncio.create_task(self._probe(bucket, quota, per_second, failing))
                self._take_locally(failing, quota, per_second)
                return
            try:
                await asyncio.wait_for(self._refill(bucket, quota, per_second), REFILL_TIMEOUT_S)
            except QuotaExceeded:
                raise
            except Exception as error:
                if not (isinstance(error, TimeoutError) or is_store_fault(error)):
                    raise
                now = self._clock()
                _log.warning("quota bucket unreachable; metering locally", bucket=bucket, error=str(error))
                metrics.QUOTA_FAIL_OPEN.inc()
                failing = self._open[bucket] = _FailingOpen(now, now + RECHECK_S, tokens=-1.0, updated=now)
                self._take_locally(failing, quota, per_second)

    async def _probe(self, bucket: str, quota: str, per_second: float, failing: _FailingOpen) -> None:
        """Ask the failing shard again; back to metering in Redis once it answers."""
        try:
            await asyncio.wait_for(self._refill(bucket, quota, per_second), REFILL_TIMEOUT_S)
        except QuotaExceeded:
            self._open.pop(bucket, None)  # it answers (the tenant is at its quota there too)
        except Exception as error:  # noqa: BLE001 - still away, whatever the fault: keep metering here
            _log.debug("quota bucket still unreachable", bucket=bucket, error=str(error))
            failing.recheck = self._clock() + RECHECK_S
        else:
            self._open.pop(bucket, None)
            _log.info("quota bucket reachable again; metering in Redis", bucket=bucket)
        finally:
            failing.probe = None

    def _take_locally(self, failing: _FailingOpen, quota: str, per_second: float) -> None:
        """This replica's own token bucket at the tenant's rate while its shard is away, for at
        most FAIL_OPEN_MAX_S."""
        now = self._clock()
        if now - failing.since > FAIL_OPEN_MAX_S:
            raise EventStoreUnavailable(f"the quota store has been unreachable for {FAIL_OPEN_MAX_S:g} s")
        capacity = max(1.0, per_second)
        if failing.tokens < 0:  # first use: a full bucket, as Redis would start one
            failing.tokens = capacity
        failing.tokens = min(capacity, failing.tokens + (now - failing.updated) * per_second)
        failing.updated = now
        if failing.tokens < 1:
            raise QuotaExceeded(
                quota,
                f"over the tenant's quota of {per_second:g} {_BUCKET_NAMES[quota]} per second",
                max(1, math.ceil((1 - failing.tokens) * 1000 / per_second)),
            )
        failing.tokens -= 1

    def _spend_lease(self, bucket: str) -> bool:
        lease = self._leases.get(bucket)
        if lease is not None and lease.tokens > 0 and lease.expires > self._clock():
            lease.tokens -= 1
            return True
        return False

    async def _refill(self, bucket: str, quota: str, per_second: float) -> None:
        now = self._clock()
        wanted = max(1, math.ceil(per_second * LEASE_SECONDS))
        capacity = max(1.0, per_second)
        granted, retry_ms = await self._bucket(keys=[bucket], args=[per_second, capacity, wanted])
        granted = int(granted)
        if granted <= 0:
            raise QuotaExceeded(
                quota,
                f"over the tenant's quota of {per_second:g} {_BUCKET_NAMES[quota]} per second",
                max(1, int(retry_ms)),
            )
        self._leases[bucket] = _Lease(granted - 1, now + LEASE_TTL_S)

    async def take_table(
        self, tenant: str, key_id: str, per_minute: float, address: str, per_address: float
    ) -> None:
        """Issue 32/39: one private table from a publishable key's buckets: the key's own (all its
        visitors together) and the client address's (`address`: gateway/api/peers.py), each a
        burst of a minute's worth. Tables are rare, so no lease: one trip to Redis per bucket.
        The address's bucket is taken first: a visitor over it spends nothing of the key's."""
        prefix = f"gh:{{quota:{tenant}}}"
        for bucket, rate, quota, whose in (
            (
                f"{prefix}:tables-from:{address}",
                per_address,
                "tables_per_minute_per_address",
                "from this address",
            ),
            (f"{prefix}:tables:{key_id}", per_minute, "tables_per_minute", "for this publishable key"),
        ):
            granted, retry_ms = await self._bucket(keys=[bucket], args=[rate / 60.0, max(1.0, rate), 1])
            if int(granted) <= 0:
                raise QuotaExceeded(
                    quota, f"over the quota of {rate:g} tables per minute {whose}", max(1, int(retry_ms))
                )

    async def admit_match(self, tenant: str, match_id: str, limit: int, *, web: bool = False) -> None:
        """Count a new match against the tenant's active matches (idempotent per match id); a web
        table (issue 39: opened with a publishable key) against its web tables instead."""
        key = web_key(tenant) if web else active_key(tenant)
        if int(await self._admit(keys=[key], args=[match_id, limit])) != 1:
            if web:
                raise QuotaExceeded(
                    "web_tables",
                    f"the tenant already has {limit} web tables in play; wait for one to end",
                    5000,
                )
            raise QuotaExceeded(
                "active_matches",
                f"the tenant already has {limit} active matches; finish or resign some first",
                5000,
            )

    async def release_match(self, tenant: str, match_id: str) -> None:
        """A match ended (or its creation failed): it no longer counts, whichever it counted in."""
        pipe = self._redis.pipeline(transaction=False)  # one slot: {quota:<tenant>}
        pipe.srem(active_key(tenant), match_id)
        pipe.srem(web_key(tenant), match_id)
        await pipe.execute()

    async def active_matches(self, tenant: str) -> int:
        return int(await self._redis.scard(active_key(tenant)))

    @staticmethod
    def check_open_tickets(open_now: int, limit: int) -> None:
        if open_now >= limit:
            raise QuotaExceeded(
                "open_tickets",
                f"the tenant already has {limit} open tickets; wait for matches or cancel some",
                1000,
            )
