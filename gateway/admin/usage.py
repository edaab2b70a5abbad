"""Usage per tenant, per hour and per day, for billing: counted in memory, flushed in batches.

Counters (`COUNTERS`): matches created and finished, actions accepted, events and bytes stored
(the event store's appends), webhook deliveries (2xx answers), Play/Watch/WatchTicket stream
seconds, and bot seat seconds (a platform bot seat's time from its enlistment to its release as
done, charged once by gateway/botseats.py).

Decisions (question -> decision):
- The hot path makes no Redis call for usage: `count` adds to a dict in this replica's memory.
  Every USAGE_FLUSH_SECONDS (default 5) and at shutdown, `flush` sends everything counted since
  in ONE pipelined batch of HINCRBY (and EXPIRE) commands. A replica that crashes loses at most
  the one interval not yet flushed (with the default, 5 seconds of its counts); a flush that
  fails keeps its counts for the next.
- Keys `gh:usage:{<tenant>}:h:<YYYYMMDDHH>` and `:d:<YYYYMMDD>` (UTC), hashes counter -> value,
  in the tenant's own hash tag (offboarding's SCAN finds them), each expiring
  USAGE_RETENTION_DAYS (default 400) after its period.
- Stream time is charged to the hour it passes in: each flush charges every open stream the
  time since the previous flush, so a day-long Watch is billed over the day, not when it ends.
- Issue 43, a ledger: a count belongs to the hour it happened in, not the hour it was flushed
  in (an append's counts to its entries' own time), so the counters of an hour equal what the
  event store holds for that hour (gateway/admin/ledger.py reconciles them). The counts of one
  match's appends are also kept per game, in the same hashes: field `<game>:<counter>` beside
  the all-games `<counter>` (matches created and finished, actions, events, bytes, bot seat
  seconds); webhook deliveries and stream seconds are counted for the tenant only.
- Seconds, not minutes, are stored (integers, exact); `guildhall admin usage` shows both.
- Issue 39: counts of a tenant being deleted, or deleted, are dropped at the flush (`counts_for`,
  the registry's view): a replica's last flush would otherwise write the usage keys back
  seconds after offboarding removed them (offboarding waits for every replica to apply the
  deletion's first step before it removes anything).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog

from gateway import metrics

_log = structlog.get_logger("usage")

COUNTERS = (
    "matches_created",
    "matches_finished",
    "actions_accepted",
    "events_stored",
    "bytes_stored",
    "webhook_deliveries",
    "stream_seconds",
    "bot_seat_seconds",
)
DEFAULT_RETENTION_DAYS = 400
DEFAULT_FLUSH_S = 5.0
HOUR, DAY = "hour", "day"
MAX_ROWS = 24 * 400  # a GetUsage answers at most this many periods


def usage_key(tenant: str, granularity: str, period: datetime) -> str:
    if granularity == HOUR:
        return f"gh:usage:{{{tenant}}}:h:{period:%Y%m%d%H}"
    return f"gh:usage:{{{tenant}}}:d:{period:%Y%m%d}"


def period_name(granularity: str, period: datetime) -> str:
    return f"{period:%Y-%m-%dT%H}" if granularity == HOUR else f"{period:%Y-%m-%d}"


def parse_period(text: str, *, end: bool = False) -> datetime:
    """`YYYY-MM-DD` or `YYYY-MM-DDTHH` (UTC); ValueError otherwise."""
    for form in ("%Y-%m-%dT%H", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, form).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"a period is YYYY-MM-DD or YYYY-MM-DDTHH (UTC), got {text!r}")


def periods(granularity: str, start: datetime, end: datetime) -> list[datetime]:
    step = timedelta(hours=1) if granularity == HOUR else timedelta(days=1)
    if granularity == DAY:
        start = start.replace(hour=0)
        end = end.replace(hour=0, minute=0, second=0, microsecond=0)
    else:
        end = end.replace(minute=0, second=0, microsecond=0)
    out = []
    at = start
    while at <= end:
        out.append(at)
        if len(out) > MAX_ROWS:
            raise ValueError(f"at most {MAX_ROWS} periods per request: narrow --from/--to")
        at += step
    return out


class UsageMeter:
    """This replica's counts since the last flush, and the flush."""

    def __init__(
        self,
        redis: Any,
        *,
        retention_days: int = DEFAULT_RETENTION_DAYS,
        flush_s: float = DEFAULT_FLUSH_S,
        clock: Callable[[], float] = time.time,
        counts_for: Callable[[str], bool] = lambda _tenant: True,
    ) -> None:
        self.redis = redis
        self.counts_for = counts_for  # tenant -> still billed (bootstrap: configured, not offboarding)
        self.retention_s = int(retention_days * 86400)
        self.flush_s = flush_s
        self.clock = clock
        # (tenant, game ("" all games), counter, hour since 1970) -> count not yet flushed
        self._pending: defaultdict[tuple[str, str, str, int], int] = defaultdict(int)
        self._streams: dict[object, tuple[str, float]] = {}  # open stream -> (tenant, charged up to)
        self.flushes = 0

    # -- the hot path: memory only -----------------------------------------------------------------

    def count(
        self, tenant: str, counter: str, n: int = 1, *, game: str = "", at: float | None = None
    ) -> None:
        """`n` more of `counter` for the tenant (and its `game`, when given), in the hour of `at`
        (seconds since 1970; now when None)."""
        if tenant and n:
            hour = int((self.clock() if at is None else at) // 3600)
            self._pending[(tenant, "", counter, hour)] += n
            if game:
                self._pending[(tenant, game, counter, hour)] += n

    def count_append(
        self, tenant: str, game: str, expected_version: int, events: Sequence[Any], actor: str, time_ms: int
    ) -> None:
        """An append's usage (issue 34), at its entries' time (issue 43): events and bytes stored,
        a match created or finished, and an accepted action (an append by a seat, or by the
        gateway on a seat's behalf: a timer). gateway/admin/ledger.py counts the same from the
        stored entries: the two must stay one definition."""
        at = time_ms / 1000
        self.count(tenant, "events_stored", len(events), game=game, at=at)
        self.count(tenant, "bytes_stored", sum(len(e.payload) for e in events), game=game, at=at)
        if expected_version == 0:
            self.count(tenant, "matches_created", game=game, at=at)
        if any(e.type == "match_ended" for e in events):
            self.count(tenant, "matches_finished", game=game, at=at)
        if is_action(actor):
            self.count(tenant, "actions_accepted", game=game, at=at)

    def stream_opened(self, tenant: str, stream: object) -> None:
        self._streams[stream] = (tenant, self.clock())

    def stream_closed(self, stream: object) -> None:
        opened = self._streams.pop(stream, None)
        if opened is not None:
            self.count(opened[0], "stream_seconds", round(self.clock() - opened[1]))

    # -- the flush ---------------------------------------------------------------------------------

    def _charge_open_streams(self) -> None:
        now = self.clock()
        for stream, (tenant, since) in list(self._streams.items()):
            whole = int(now - since)
            if whole > 0:
                self.count(tenant, "stream_seconds", whole)
                self._streams[stream] = (tenant, since + whole)

    async def flush(self) -> int:
        """Send what was counted in one pipelined batch; returns how many counters went."""
        self._charge_open_streams()
        if not self._pending:
            return 0
        pending, self._pending = self._pending, defaultdict(int)
        for item in [item for item in pending if not self.counts_for(item[0])]:
            del pending[item]
        if not pending:
            return 0
        expiries: dict[str, int] = {}
        pipe = self.redis.pipeline(transaction=False)
        for (tenant, game, counter, hours), n in pending.items():
            hour = datetime.fromtimestamp(hours * 3600, UTC)
            for granularity, period, length in ((HOUR, hour, 3600), (DAY, hour.replace(hour=0), 86400)):
                key = usage_key(tenant, granularity, period)
                pipe.hincrby(key, counter_field(game, counter), n)
                expiries[key] = int(period.timestamp()) + length + self.retention_s
        for key, when in expiries.items():
            pipe.expireat(key, when)
        try:
            await pipe.execute()
        except BaseException:
            for item, n in pending.items():  # kept for the next flush
                self._pending[item] += n
            raise
        self.flushes += 1
        return len(pending)

    async def run(self, stopping: asyncio.Event) -> None:
        """Flush every `flush_s`, and once more when stopping."""
        while not stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), self.flush_s)
            try:
                await self.flush()
            except Exception as error:
                metrics.USAGE_FLUSHES.labels("failed").inc()
                _log.warning("usage flush failed; kept for the next", error=str(error))
            else:
                metrics.USAGE_FLUSHES.labels("ok").inc()

    # -- reading -----------------------------------------------------------------------------------

    async def read(
        self, tenant: str, granularity: str, start: datetime, end: datetime, *, by_game: bool = False
    ) -> list[UsageRow]:
        """A row for each period from start to end with any usage (all games), and with
        `by_game` one per game after it."""
        wanted = periods(granularity, start, end)
        pipe = self.redis.pipeline(transaction=False)
        for period in wanted:
            pipe.hgetall(usage_key(tenant, granularity, period))
        rows = []
        for period, raw in zip(wanted, await pipe.execute(), strict=True):
            if not raw:
                continue
            games = split_fields(raw)
            name = period_name(granularity, period)
            rows.append(UsageRow(tenant, name, "", games.pop("", {})))
            if by_game:
                rows += [UsageRow(tenant, name, game, counters) for game, counters in sorted(games.items())]
        return rows


@dataclass(frozen=True)
class UsageRow:
    tenant: str
    period: str
    game: str  # "": every game together, and the counters kept for the tenant only
    counters: dict[str, int]


def counter_field(game: str, counter: str) -> str:
    """A usage hash's field: `<counter>` for every game together, `<game>:<counter>` for one."""
    return f"{game}:{counter}" if game else counter


def split_fields(raw: Mapping[Any, Any]) -> dict[str, dict[str, int]]:
    """A usage hash as game ("" for every game together) -> counter -> value."""
    out: dict[str, dict[str, int]] = {}
    for field, value in raw.items():
        text = field.decode() if isinstance(field, bytes) else str(field)
        game, _, counter = text.rpartition(":")
        out.setdefault(game, {})[counter] = int(value)
    return out


def is_action(actor: str) -> bool:
    """Whether an append by `actor` is an accepted action: a seat's, or the gateway's on a seat's
    behalf (a timer)."""
    return actor.startswith("seat:") or actor.startswith("gateway:seat:")
