"""Retention by default: finished matches leave Redis through the archive once they are older
than `ARCHIVE_RETENTION_SECONDS` (issue 25: Redis held 352 KB per finished match forever).

Every gateway replica runs one `Sweeper`. The ending append is followed by `index_finished`,
which puts the match in its tenant's sorted set of finished matches by end time
(`gateway.archive.finished_key`), so a sweep reads only the matches that are due: a range of
one sorted set per tenant, never a scan of the keyspace. Each due match goes through
`gateway.archive.archive_match` (copy, verify, then remove from Redis by a script that removes
it only if it has not moved), in a worker thread with a blocking Redis client: the archive stores
are blocking (files, S3) and an archive is rare next to an action.

Decisions (question -> decision):
- Several replicas sweep at once -> a short lease per match (`SET NX PX`) keeps them from doing
  the same work twice; without it, or when a lease expires mid-way, the second archiving finds
  the match archived at the same version and does nothing more (gateway/archive.py).
- An unfinished match is never archived: only the ending append indexes a match, and
  `archive_match(finished_only=True)` checks the meta's `finished` again before copying.
- A match that fails (its chain does not verify, the archive returned something else) stays in
  Redis and in the index, logged and counted; the sweep goes on past it.
- Matches that finished before this index existed are archived with the CLI once
  (`python -m gateway.archive --tenant T`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import structlog

from gateway import metrics
from gateway.archive import (
    ArchiveError,
    ArchiveReport,
    ArchiveStore,
    NotArchivable,
    archive_match,
    describe,
    finished_key,
)
from gateway.eventstore.async_redis import is_store_fault, unavailable_on_store_faults
from gateway.eventstore.base import MatchKey

_log = structlog.get_logger("retention")

DEFAULT_RETENTION_S = 3600.0
DEFAULT_ARCHIVE_DIR = "var/archive"  # under the working directory, when no archive is named
BATCH = 100  # due matches read per tenant and round trip
LEASE_MS = 120_000  # one replica archives a match at a time (a lease outlives any one archiving)


def lease_key(key: MatchKey) -> str:
    return f"gh:{{{key.tenant}:{key.match_id}}}:archiving"


def sweep_interval_s(retention_s: float) -> float:
    """How often a replica sweeps: a quarter of the retention, between 1 s and a minute."""
    return min(60.0, max(1.0, retention_s / 4))


async def index_finished(client: Any, key: MatchKey, ended_ms: int) -> None:
    """Put a match that just ended in its tenant's finished index (idempotent: the first end
    time stays, so a repeated call does not postpone its archiving)."""
    with unavailable_on_store_faults():
        await client.zadd(finished_key(key.tenant), {key.match_id: ended_ms}, nx=True)


@dataclass
class SweepReport:
    archived: list[ArchiveReport] = field(default_factory=list)
    already: int = 0  # archived by another replica meanwhile
    failed: list[tuple[MatchKey, str]] = field(default_factory=list)
    leased_elsewhere: int = 0


class Sweeper:
    """Archives every finished match older than `retention_s` of the tenants named by
    `tenants()`. `client` is a blocking redis.Redis (or RedisCluster) on the gateway's Redis."""

    def __init__(
        self,
        client: Any,
        archive: ArchiveStore,
        tenants: Callable[[], Iterable[str]],
        retention_s: float,
        *,
        clock: Callable[[], float] = time.time,
        owner: str = "",
    ) -> None:
        if retention_s <= 0:
            raise ValueError("a sweeper needs a retention > 0 s (0 turns retention off)")
        self.client = client
        self.archive = archive
        self.tenants = tenants
        self.retention_s = retention_s
        self.clock = clock
        self.owner = owner or f"sweeper-{id(self):x}"

    async def run(self, stopping: asyncio.Event) -> None:
        """Sweep every `sweep_interval_s` until `stopping` is set; a fault waits for the next."""
        interval = sweep_interval_s(self.retention_s)
        while not stopping.is_set():
            try:
                await self.sweep(stopping)
            except Exception as error:
                if is_store_fault(error):
                    _log.warning("archive sweep interrupted: Redis unavailable", error=str(error))
                else:
                    _log.exception("archive sweep failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), interval)

    async def sweep(self, stopping: asyncio.Event | None = None) -> SweepReport:
        """One pass: archive every due match of every tenant."""
        report = SweepReport()
        cutoff_ms = int((self.clock() - self.retention_s) * 1000)
        for tenant in list(self.tenants()):
            skip = 0  # failed ones stay in the index: page past them
            while stopping is None or not stopping.is_set():
                due = await asyncio.to_thread(self._due, tenant, cutoff_ms, skip)
                for match_id in due:
                    if not await asyncio.to_thread(self._archive_one, MatchKey(tenant, match_id), report):
                        skip += 1
                if len(due) < BATCH:
                    break
        return report

    def _due(self, tenant: str, cutoff_ms: int, skip: int) -> list[str]:
        rows = self.client.zrangebyscore(finished_key(tenant), "-inf", cutoff_ms, start=skip, num=BATCH)
        return [row.decode() if isinstance(row, bytes) else row for row in rows]

    def _archive_one(self, key: MatchKey, report: SweepReport) -> bool:
        """Archive one due match (in a worker thread); False when it stays in the finished index."""
        lease, name = lease_key(key), f"{key.tenant}/{key.match_id}"
        if not self.client.set(lease, self.owner, nx=True, px=LEASE_MS):
            report.leased_elsewhere += 1
            return False
        try:
            done = archive_match(self.client, self.archive, key, finished_only=True)
        except NotArchivable as error:
            # Gone from Redis without an archive, or never finished: nothing for retention here.
            self.client.zrem(finished_key(key.tenant), key.match_id)
            _log.warning("not archived, dropped from the finished index", match=name, reason=str(error))
            metrics.ARCHIVED_MATCHES.labels("dropped").inc()
            report.failed.append((key, str(error)))
            return True
        except ArchiveError as error:
            _log.error("not archived; it stays in Redis", match=name, reason=str(error))
            metrics.ARCHIVED_MATCHES.labels("failed").inc()
            report.failed.append((key, str(error)))
            return False
        finally:
            self.client.delete(lease)
        if done.already:
            report.already += 1
            metrics.ARCHIVED_MATCHES.labels("already").inc()
        else:
            report.archived.append(done)
            metrics.ARCHIVED_MATCHES.labels("archived").inc()
        _log.info("archived", match=name, detail=describe(done))
        return True
