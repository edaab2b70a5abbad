"""One tenant floods the gateway; how much does another tenant's latency suffer?

The victim plays bot matches one action at a time and records each SubmitAction's latency,
first alone, then while the flooder (another process, so it does not share the victim's event
loop) hammers SubmitAction from many concurrent loops, ignoring its retry hints. The figure is
the ratio of the victim's p99 under flood to its p99 alone (issue 15 asks for at most 2x);
the flooder's accepted rate next to its quota shows the quota holding under load.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import statistics
import time
from dataclasses import dataclass
from typing import Any


@dataclass
class FloodFigures:
    victim_actions_alone: int
    victim_p50_ms_alone: float
    victim_p99_ms_alone: float
    victim_actions_flooded: int
    victim_p50_ms_flooded: float
    victim_p99_ms_flooded: float
    victim_refused: int  # RESOURCE_EXHAUSTED seen by the victim: must be 0
    flood_accepted: int
    flood_refused: int
    flood_seconds: float
    flood_quota_per_s: float

    @property
    def p99_ratio(self) -> float:
        return self.victim_p99_ms_flooded / self.victim_p99_ms_alone if self.victim_p99_ms_alone else 0.0

    @property
    def flood_accepted_per_s(self) -> float:
        return self.flood_accepted / self.flood_seconds if self.flood_seconds else 0.0


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _match_loop(
    client: Any,
    game: str,
    players: int,
    stop: asyncio.Event,
    latencies: list[float] | None,
    counts: dict[str, int],
    rng: random.Random,
) -> None:
    """Play matches of `game` back to back, one action at a time, until `stop`."""
    from guildhall_client.errors import Unavailable

    while not stop.is_set():
        try:
            await _one_match(client, game, players, stop, latencies, counts, rng)
        except Unavailable:  # e.g. a pooled Redis connection failing once after a restart
            counts["unavailable"] = counts.get("unavailable", 0) + 1
            await asyncio.sleep(0.05)


async def _one_match(
    client: Any,
    game: str,
    players: int,
    stop: asyncio.Event,
    latencies: list[float] | None,
    counts: dict[str, int],
    rng: random.Random,
) -> None:
    """One match, one action at a time, until it ends or `stop`."""
    from guildhall_client.errors import QuotaExceeded, Rejected

    created = await client.create_match(game, [f"p{n}" for n in range(players)])
    seats = {s.seat: client.for_token(s.token) for s in created.seats}
    while not stop.is_set():
        public = await client.get_view(created.match_id)
        if public.finished:
            break
        seat = rng.choice(list(public.active_seats))
        view = await seats[seat].get_view(created.match_id)
        if not view.raw_legal_actions:
            continue
        started = time.perf_counter()
        try:
            await seats[seat].submit(created.match_id, rng.choice(view.raw_legal_actions))
        except QuotaExceeded:
            counts["refused"] += 1
            continue
        except Rejected:
            counts["rejected"] += 1
            continue
        counts["accepted"] += 1
        if latencies is not None:
            latencies.append((time.perf_counter() - started) * 1000)


async def _victim(target: str, key: str, game: str, seconds: float) -> tuple[list[float], int]:
    from guildhall_client import AsyncClient

    latencies: list[float] = []
    counts = {"accepted": 0, "refused": 0, "rejected": 0}
    stop = asyncio.Event()
    async with AsyncClient(target, api_key=key, retries=0) as client:
        task = asyncio.create_task(_match_loop(client, game, 2, stop, latencies, counts, random.Random(1)))
        await asyncio.sleep(seconds)
        stop.set()
        await task
    return latencies, counts["refused"]


async def _flooder(target: str, key: str, game: str, seconds: float, loops: int) -> dict[str, int]:
    from guildhall_client import AsyncClient

    counts = {"accepted": 0, "refused": 0, "rejected": 0}
    stop = asyncio.Event()
    async with AsyncClient(target, api_key=key, retries=0) as client:
        tasks = [
            asyncio.create_task(_match_loop(client, game, 2, stop, None, counts, random.Random(n)))
            for n in range(loops)
        ]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    return counts


def _flood_process(target: str, key: str, game: str, seconds: float, loops: int, out: Any) -> None:
    out.put(asyncio.run(_flooder(target, key, game, seconds, loops)))


def measure_flood(
    victim_target: str,
    victim_key: str,
    flood_target: str,
    flood_key: str,
    *,
    quota_per_s: float,
    seconds: float = 10.0,
    loops: int = 32,
    game: str = "rattus_cartus",
) -> FloodFigures:
    """The victim alone for `seconds`, then the victim beside the flooder for `seconds`."""
    alone, refused_alone = asyncio.run(_victim(victim_target, victim_key, game, seconds))
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    flooder = context.Process(
        target=_flood_process, args=(flood_target, flood_key, game, seconds + 2.0, loops, results)
    )
    flooder.start()
    time.sleep(2.0)  # let the flooder's interpreter start and ramp up first
    flooded, refused_flooded = asyncio.run(_victim(victim_target, victim_key, game, seconds))
    counts = results.get(timeout=120)
    flooder.join(30)
    return FloodFigures(
        victim_actions_alone=len(alone),
        victim_p50_ms_alone=statistics.median(alone) if alone else 0.0,
        victim_p99_ms_alone=percentile(alone, 0.99),
        victim_actions_flooded=len(flooded),
        victim_p50_ms_flooded=statistics.median(flooded) if flooded else 0.0,
        victim_p99_ms_flooded=percentile(flooded, 0.99),
        victim_refused=refused_alone + refused_flooded,
        flood_accepted=counts["accepted"],
        flood_refused=counts["refused"],
        flood_seconds=seconds + 2.0,
        flood_quota_per_s=quota_per_s,
    )
