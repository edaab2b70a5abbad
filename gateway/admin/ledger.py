"""Billing as a ledger (issue 43): usage per tenant and game, every tenant's at once, and the
check to run before invoicing: the usage counters against the event store.

Decisions (question -> decision):
- What can the event store vouch for? What its entries record: a match created (an append at
  version 1), finished (an append holding match_ended), an action accepted (an append by a
  seat, or by the gateway for a seat: a timer), events and their payload bytes. Webhook
  deliveries, stream seconds and bot seat seconds leave no entry: they are not reconciled.
- Which hour does a count belong to? The one its append's entries carry (gateway/admin/usage.py
  counts them there), so an hour of counters equals that hour of the event store exactly, by
  tenant and by game. Run it on closed hours, USAGE_FLUSH_SECONDS after their end: the current
  hour's counts are still being flushed.
- Which matches? Every match of the tenant, live (Redis) and archived (the archive's blobs,
  through their tombstones), each read once: a match archived while the check runs is read
  from the archive.
- What is a difference? For each tenant, hour, game ("" for all games together) and counter,
  the counter's value and the event store's, when they are not equal: a lost flush (a replica
  killed between two flushes), a counter edited in Redis, an append acknowledged only on a retry
  after a replication timeout (counted by no replica) all show here, named.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc

from gateway.admin.offboard import match_ids
from gateway.admin.usage import DAY, HOUR, UsageMeter, UsageRow, is_action, parse_period, period_name
from gateway.admin.usecases import AdminError, invalid
from gateway.archive import ArchivedMatch, ArchiveStore, archive_name, decode, read_live
from gateway.domain.match import MATCH_CREATED, MATCH_ENDED
from gateway.eventstore.base import MatchKey, StoredEvent

# The counters the event store can vouch for, in the order a report lists them.
RECONCILED = ("matches_created", "matches_finished", "actions_accepted", "events_stored", "bytes_stored")
MAX_ROWS = 200_000  # an all-tenants export answers at most this many rows: narrow the period
MAX_HOURS = 93 * 24  # a reconciliation covers at most a quarter: it reads every event of it

Counts = dict[tuple[str, int], Counter[str]]  # (game, hour since 1970) -> counter -> value


@dataclass(frozen=True)
class Difference:
    tenant: str
    game: str  # "": every game of the tenant together
    period: str  # the hour, YYYY-MM-DDTHH
    counter: str
    usage: int
    event_store: int


@dataclass
class Reconciliation:
    first: str
    last: str
    differences: list[Difference] = field(default_factory=list)
    tenants: int = 0
    matches: int = 0
    events: int = 0

    @property
    def ok(self) -> bool:
        return not self.differences


def appends(events: Sequence[StoredEvent]) -> Iterator[list[StoredEvent]]:
    """A stream's appends in order: the runs of entries that share a command id."""
    run: list[StoredEvent] = []
    for event in events:
        if run and event.command_id != run[0].command_id:
            yield run
            run = []
        run.append(event)
    if run:
        yield run


def match_counts(match: ArchivedMatch, start_ms: int, end_ms: int, counts: Counts) -> int:
    """Add what the match's appends in [start_ms, end_ms) record to `counts`, by its game and
    hour (gateway/admin/usage.py UsageMeter.count_append counts the same); returns its events in
    that time."""
    events = match.events()
    game = match.meta.get("game", "")
    seen = 0
    for run in appends(events):
        first = run[0]
        if not start_ms <= first.time_ms < end_ms:
            continue
        tally = counts.setdefault((game, first.time_ms // 3_600_000), Counter())
        tally["events_stored"] += len(run)
        tally["bytes_stored"] += sum(len(e.payload) for e in run)
        tally["matches_created"] += first.version == 1 and first.type == MATCH_CREATED
        tally["matches_finished"] += any(e.type == MATCH_ENDED for e in run)
        tally["actions_accepted"] += is_action(first.actor)
        seen += len(run)
    return seen


def event_store_counts(
    client: Any, archive: ArchiveStore | None, tenant: str, start_ms: int, end_ms: int
) -> tuple[Counts, int, int]:
    """Every match of the tenant, live and archived, counted (blocking: run it in a thread);
    returns the counts, the matches read and the events in the period."""
    counts: Counts = {}
    matches = events = 0
    for match_id in sorted({*match_ids(client, tenant, "meta"), *match_ids(client, tenant, "archived")}):
        key = MatchKey(tenant, match_id)
        match = read_live(client, key)
        if not match.entries:  # archived (now, or before the check began)
            if archive is None:
                raise AdminError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"{tenant}/{match_id} is archived and this gateway has no archive configured",
                )
            blob = archive.get(archive_name(key))
            if blob is None:
                raise AdminError(
                    grpc.StatusCode.DATA_LOSS, f"{tenant}/{match_id} was archived; its blob is missing"
                )
            match = decode(blob)
        matches += 1
        events += match_counts(match, start_ms, end_ms, counts)
    together: Counts = {}  # every game together, as usage keeps it too
    for (_game, hour), tally in counts.items():
        together.setdefault(("", hour), Counter()).update(tally)
    return {**counts, **together}, matches, events


def compare(tenant: str, usage: Counts, store: Counts) -> list[Difference]:
    found = []
    for game, hour in sorted(set(usage) | set(store), key=lambda k: (k[1], k[0])):
        kept, recorded = usage.get((game, hour), Counter()), store.get((game, hour), Counter())
        period = period_name(HOUR, datetime.fromtimestamp(hour * 3600, UTC))
        for counter in RECONCILED:
            if kept[counter] != recorded[counter]:
                found.append(Difference(tenant, game, period, counter, kept[counter], recorded[counter]))
    return found


def _hours(start: str, end: str) -> tuple[datetime, datetime]:
    """The first and last hour of the period; INVALID_ARGUMENT for one that is not."""
    if not start:
        raise invalid("reconcile needs --from: a closed period, YYYY-MM-DD or YYYY-MM-DDTHH (UTC)")
    try:
        first = parse_period(start)
        last = parse_period(end or start)
    except ValueError as error:
        raise invalid(str(error)) from None
    if len(end or start) == len("YYYY-MM-DD"):
        last = last.replace(hour=23)
    if last < first:
        raise invalid("the end comes before the start")
    if last - first > timedelta(hours=MAX_HOURS):
        raise invalid(f"reconcile at most {MAX_HOURS // 24} days at a time: narrow --from/--to")
    return first, last


@dataclass
class Ledger:
    """What the admin API answers about usage (GetUsage, ReconcileUsage)."""

    usage: UsageMeter
    tenants: Callable[[], Any]  # -> awaitable of the live tenants' ids
    blocking_client: Callable[[], Any]  # a blocking Redis client (plain or cluster), closed after
    archive: ArchiveStore | None = None

    async def rows(
        self, tenants: Sequence[str], start: str, end: str, granularity: str, by_game: bool
    ) -> list[UsageRow]:
        """Each tenant's usage rows over the period (start: today; end: now)."""
        granularity = granularity or DAY
        if granularity not in (HOUR, DAY):
            raise invalid("granularity is hour or day")
        try:
            first = (
                parse_period(start)
                if start
                else datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
            )
            last = parse_period(end) if end else datetime.now(UTC)
            if last < first:
                raise ValueError("the end comes before the start")
            rows: list[UsageRow] = []
            for tenant in tenants:
                rows += await self.usage.read(tenant, granularity, first, last, by_game=by_game)
                if len(rows) > MAX_ROWS:
                    raise ValueError(f"more than {MAX_ROWS} rows: narrow --from/--to")
        except ValueError as error:
            raise invalid(str(error)) from None
        return rows

    async def reconcile(self, tenants: Sequence[str], start: str, end: str) -> Reconciliation:
        """Every tenant's usage counters, hour by hour and game by game, against its matches."""
        first, last = _hours(start, end)
        start_ms = int(first.timestamp() * 1000)
        end_ms = int((last + timedelta(hours=1)).timestamp() * 1000)
        report = Reconciliation(period_name(HOUR, first), period_name(HOUR, last))
        client = await asyncio.to_thread(self.blocking_client)
        try:
            for tenant in tenants:
                store, matches, events = await asyncio.to_thread(
                    event_store_counts, client, self.archive, tenant, start_ms, end_ms
                )
                kept: Counts = {}
                for row in await self.usage.read(tenant, HOUR, first, last, by_game=True):
                    hour = int(parse_period(row.period).timestamp()) // 3600
                    kept[(row.game, hour)] = Counter(row.counters)
                report.differences += compare(tenant, kept, store)
                report.tenants += 1
                report.matches += matches
                report.events += events
        finally:
            await asyncio.to_thread(client.close)
        return report
