"""Memory (issue 25): the gateway's RSS and Redis's bytes per live match, and the caches' cost.

Section `memory` of `make bench`:
- Live matches created through one gateway process's gRPC API (CreateMatch, then a few
  SubmitActions with return_view in each, as a bot plays), up to 1,000 then 10,000 live matches
  (200 then 1,000 with --quick). At each size: the gateway's RSS (/proc/<pid>/status) beside its
  RSS before the first match, Redis's `used_memory` over the matches, and the gateway's cached
  bytes per cached match and cached bytes (its metrics, gateway/usecases/cache.py).
- `--calibrate`: the fixed overhead per cache entry that gateway/usecases/cache.py adds to the
  serialized lengths, measured with tracemalloc on matches played in process (every seat and a
  spectator watching, so views and redacted event lists fill as they do in production).

Usage: python -m benchmarks.bench_memory [--quick] [--calibrate] [--games rattus_cartus waterdeep]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import time
import tracemalloc
import urllib.request
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import redis
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from benchmarks.bench_path import environment
from benchmarks.report import Figure, Report
from devstack.processes import free_port
from devstack.stack import Stack, TenantSpec

MEMORY = "memory"
TENANT = "bench-memory"
SIZES = (1_000, 10_000)
QUICK_SIZES = (200, 1_000)
ACTIONS_PER_MATCH = 3
IN_FLIGHT = 64  # matches being created and played at a time


def rss_bytes(pid: int) -> int:
    """A process's resident set size, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def _metrics(url: str) -> dict[tuple[str, str], float]:
    """The gateway's cache gauges: (name, cache label) -> value."""
    from prometheus_client.parser import text_string_to_metric_families

    text = urllib.request.urlopen(url, timeout=10).read().decode()
    values: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(text):
        if family.name.startswith("guildhall_gateway_cache"):
            for sample in family.samples:
                values[(sample.name, sample.labels.get("cache", ""))] = sample.value
    return values


def _bearer(credential: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {credential}")]


async def _live_matches(target: str, api_key: str, game: str, players: int, count: int, seed: int) -> int:
    """`count` matches created and played ACTIONS_PER_MATCH actions in (left live); the actions accepted."""
    channels = [grpc.aio.insecure_channel(target) for _ in range(4)]
    stubs = [gateway_pb2_grpc.GatewayServiceStub(c) for c in channels]
    semaphore = asyncio.Semaphore(IN_FLIGHT)
    accepted = 0

    async def one(n: int) -> None:
        nonlocal accepted
        rng = random.Random(seed * 1_000_003 + n)
        stub = stubs[n % len(stubs)]
        async with semaphore:
            created = await stub.CreateMatch(
                pb.CreateMatchRequest(game_id=game, players=[f"p{i}" for i in range(players)]),
                metadata=_bearer(api_key),
            )
            tokens = {s.seat: _bearer(s.token) for s in created.seats}
            seat = 0
            view = await stub.GetView(pb.GetViewRequest(match_id=created.match_id), metadata=tokens[seat])
            done = 0
            while done < ACTIONS_PER_MATCH and not view.finished:
                if not view.legal_actions:
                    seat = view.active_seats[0]
                    view = await stub.GetView(
                        pb.GetViewRequest(match_id=created.match_id), metadata=tokens[seat]
                    )
                    continue
                answer = await stub.SubmitAction(
                    pb.SubmitActionRequest(
                        match_id=created.match_id,
                        action=rng.choice(list(view.legal_actions)),
                        command_id=uuid.uuid4().hex,
                        expected_version=view.version,
                        return_view=True,
                    ),
                    metadata=tokens[seat],
                )
                if not answer.HasField("accepted"):
                    view = await stub.GetView(
                        pb.GetViewRequest(match_id=created.match_id), metadata=tokens[seat]
                    )
                    continue
                done += 1
                view = answer.accepted.view
                if not view.legal_actions and view.active_seats:
                    seat = view.active_seats[0]
                    view = await stub.GetView(
                        pb.GetViewRequest(match_id=created.match_id), metadata=tokens[seat]
                    )
            accepted += done

    try:
        await asyncio.gather(*(one(n) for n in range(count)))
    finally:
        for channel in channels:
            await channel.close()
    return accepted


def _split(values: dict[tuple[str, str], float]) -> str:
    """Bytes per cached match, by cache."""
    states = max(values.get(("guildhall_gateway_cache_entries", "states"), 1.0), 1.0)
    return ", ".join(
        f"{cache} {value / states:,.0f}"
        for (name, cache), value in values.items()
        if name == "guildhall_gateway_cache_bytes"
    )


@dataclass
class _Point:
    matches: int
    rss: int
    redis_bytes: int
    cached_bytes: float
    cached_states: float
    per_cached_match: float
    seconds: float
    split: str  # bytes per cached match by cache


def run(
    report: Report, redis_url: str, game: str, players: int, quick: bool, sizes: Sequence[int] = ()
) -> None:
    """The memory section on its own stack (one gateway, `game`'s rules service, this Redis)."""
    sizes = tuple(sizes) or (QUICK_SIZES if quick else SIZES)
    metrics_port = free_port()
    client = redis.Redis.from_url(redis_url)
    with (
        environment({"REDIS_URL": redis_url}),
        Stack(
            [game],
            gateways=1,
            log_dir=Path("var/bench-logs"),
            gateway_env={"LOG_LEVEL": "warning", "METRICS_PORT": str(metrics_port)},
            tenants=[TenantSpec(TENANT, active_matches=10 * max(sizes))],
        ) as stack,
    ):
        target, key = stack.gateway_targets[0], stack.api_keys[TENANT]
        pid = stack.gateways[0].pid
        assert pid is not None
        metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
        # Warm: connections, the rules client's session, the first match's code paths.
        asyncio.run(_live_matches(target, key, game, players, 8, seed=0))
        gc_redis = int(client.info("memory")["used_memory"])
        base_rss = rss_bytes(pid)
        budget = sum(v for (name, _), v in _metrics(metrics_url).items() if name.endswith("budget_bytes"))
        points: list[_Point] = []
        made = 0
        started = time.perf_counter()
        for size in sizes:
            asyncio.run(_live_matches(target, key, game, players, size - made, seed=size))
            made = size
            time.sleep(0.5)
            values = _metrics(metrics_url)
            cached = sum(v for (name, _), v in values.items() if name == "guildhall_gateway_cache_bytes")
            points.append(
                _Point(
                    size,
                    rss_bytes(pid),
                    int(client.info("memory")["used_memory"]) - gc_redis,
                    cached,
                    values.get(("guildhall_gateway_cache_entries", "states"), 0.0),
                    values.get(("guildhall_gateway_cache_bytes_per_match", ""), 0.0),
                    time.perf_counter() - started,
                    _split(values),
                )
            )
    client.close()
    setup = f"{game} {players}p, {ACTIONS_PER_MATCH} actions each, CACHE_MB budget {budget / 2**20:.0f} MiB"
    for point in points:
        report.add(
            Figure(
                MEMORY,
                f"gateway RSS, {point.matches:,} live matches",
                point.rss / 2**20,
                "MiB",
                "gateway RSS before the first match",
                base_rss / 2**20,
                f"{(point.rss - base_rss) / point.matches:,.0f} B per match over the baseline; {setup}; "
                f"{point.seconds:.0f} s to create and play them",
            )
        )
        report.add(
            Figure(
                MEMORY,
                f"Redis bytes per live match, {point.matches:,} live matches",
                point.redis_bytes / point.matches,
                "B",
                note=f"used_memory grew {point.redis_bytes / 2**20:.1f} MiB",
            )
        )
        report.add(
            Figure(
                MEMORY,
                f"gateway cached bytes per cached match, {point.matches:,} live matches",
                point.per_cached_match,
                "B",
                note=f"{point.cached_bytes / 2**20:.1f} MiB cached over {point.cached_states:,.0f} "
                f"cached states (estimate, gateway/usecases/cache.py): {point.split}",
            )
        )


# -- calibration: the fixed overhead per cache entry ----------------------------------------------------


async def _fill(redis_url: str, target: str, game: str, players: int, matches: int, actions: int) -> Any:
    """GameMatches in this process, every match watched by every seat and a spectator."""
    from gateway.bootstrap import redis_clients
    from gateway.rules_client import AsyncRulesClient
    from gateway.signing import KeyRing
    from gateway.usecases import GameMatches

    client, _ = redis_clients(redis_url, cluster=False)
    rules = AsyncRulesClient(game, target)
    use_cases = GameMatches(client, {game: rules}, KeyRing.generate("calibrate"), cache_mb=4096)
    # Half the matches watched: the fan-out fills views and redacted lists; the other half's
    # viewers read the stream (shared reads) and have it redacted (View), as without watchers.
    every = frozenset([*range(players), None])
    use_cases.viewers = lambda key: every if int(key.match_id.encode().hex(), 16) % 2 == 0 else frozenset()
    rng = random.Random(7)

    async def play(n: int) -> None:
        created = await use_cases.create("calibrate", game, [f"p{i}" for i in range(players)])
        key = created.key
        for _ in range(actions):
            spectator = await use_cases.get_view(key, None)
            if spectator.finished:
                return
            seat = spectator.active_seats[0]
            view = await use_cases.get_view(key, seat)
            outcome = await use_cases.submit(
                key,
                seat,
                rng.choice(view.legal_actions),
                command_id=uuid.uuid4().hex,
                expected_version=view.version,
            )
            for viewer in [*range(players), None]:
                await use_cases.events_since(key, viewer, outcome.version - len(outcome.events))
                await use_cases.get_view(key, viewer)

    try:
        for start in range(0, matches, 32):
            await asyncio.gather(*(play(n) for n in range(start, min(start + 32, matches))))
    finally:
        await rules.close()
        await client.aclose()
    return use_cases


def calibrate(
    redis_url: str, target: str, game: str, players: int, matches: int = 200, actions: int = 6
) -> None:
    """Per cache: the bytes tracemalloc sees freed when it is cleared, beside the estimate."""
    from gateway.usecases import cache as costs

    tracemalloc.start()
    use_cases = asyncio.run(_fill(redis_url, target, game, players, matches, actions))
    overheads = {
        "states": costs.STATE_OVERHEAD,
        "views": costs.VIEW_OVERHEAD,
        "redacted": costs.EVENTS_OVERHEAD,
        "appended": costs.APPENDED_COST,
        "reads": costs.READ_OVERHEAD,
    }
    for cache in use_cases.caches.all():
        entries, estimate = len(cache), cache.bytes
        if not entries:
            print(f"{game} {cache.name}: empty")
            continue
        values = [cache.get(k) for k in cache]
        if cache.name == "redacted":
            events = sum(len(v) for v in values)
            receipts = sum(e.receipt is not None for v in values for e in v)
            print(
                f"{game} redacted: {events / entries:.2f} events, {receipts / entries:.2f} receipts per entry"
            )
        del values
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        cache.clear()
        gc.collect()
        freed = before - tracemalloc.get_traced_memory()[0]
        lengths = estimate - entries * overheads[cache.name]
        print(
            f"{game} {cache.name}: {entries} entries, freed {freed / entries:,.0f} B per entry, "
            f"estimate {estimate / entries:,.0f} (serialized lengths and per-item overheads "
            f"{lengths / entries:,.0f}): entry overhead measured {(freed - lengths) / entries:,.0f}, "
            f"estimate/actual {estimate / max(freed, 1):.2f}"
        )
    tracemalloc.stop()


def main() -> None:
    from devstack.redis import redis_server_process

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--calibrate", action="store_true", help="measure the caches' entry overheads")
    parser.add_argument("--games", nargs="*", default=["rattus_cartus"])
    args = parser.parse_args()
    with redis_server_process(appendonly=False) as url:
        if args.calibrate:
            with environment({"REDIS_URL": url}), Stack(args.games) as stack:
                for game in args.games:
                    calibrate(url, stack.targets[game], game, 4 if game != "rattus_cartus" else 2)
            return
        report = Report(quick=args.quick)
        run(report, url, args.games[0], 2, args.quick)


if __name__ == "__main__":
    main()
