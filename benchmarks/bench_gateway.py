"""The gateway end to end: client → gateway → rules service → Redis (AOF, appendfsync always).

- SubmitAction at 1 and 32 concurrent matches: accepted actions per second and the call's
  p50/p99, beside a bare gRPC call to the same gateway process (a health Check) made by as
  many concurrent callers in the same run. Each driver keeps one match going with random legal
  actions; it asks GetView (with the acting seat's token) for the legal actions before each
  action, as a real client does, so the rate counts one GetView per action too.
- Watch: how many streams one gateway process holds open, and the p99 from sending an action
  to each watcher receiving its event, with that many streams open.

Everything runs on this machine, so the client's own CPU is part of the figures.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from benchmarks.report import Figure, Report, percentiles
from gateway.stack import Stack

SECTION = "gateway"


def _bearer(credential: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {credential}")]


class _Driver:
    """Keeps one match going: the acting seat's view, then one of its legal actions."""

    def __init__(self, stub: Any, api_key: str, game: str, players: int, rng: random.Random) -> None:
        self.stub, self.api_key, self.game, self.players, self.rng = stub, api_key, game, players, rng
        self.accepted = 0
        self.latencies: list[float] = []

    async def _new_match(self) -> None:
        created = await self.stub.CreateMatch(
            pb.CreateMatchRequest(game_id=self.game, players=[f"p{n}" for n in range(self.players)]),
            metadata=_bearer(self.api_key),
        )
        self.match_id = created.match_id
        self.tokens = {s.seat: _bearer(s.token) for s in created.seats}
        self.seat = 0

    async def run(self, stop: asyncio.Event) -> None:
        await self._new_match()
        while not stop.is_set():
            view = await self.stub.GetView(
                pb.GetViewRequest(match_id=self.match_id), metadata=self.tokens[self.seat]
            )
            if view.finished:
                await self._new_match()
                continue
            if not view.legal_actions:
                self.seat = self.rng.choice(list(view.active_seats))
                continue
            request = pb.SubmitActionRequest(
                match_id=self.match_id,
                action=self.rng.choice(list(view.legal_actions)),
                command_id=uuid.uuid4().hex,
                expected_version=view.version,
            )
            started = time.perf_counter()
            answer = await self.stub.SubmitAction(request, metadata=self.tokens[self.seat])
            self.latencies.append(time.perf_counter() - started)
            if answer.HasField("accepted"):
                self.accepted += 1


async def _submit_rate(
    target: str, api_key: str, game: str, players: int, matches: int, seconds: float
) -> tuple[float, list[float]]:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        drivers = [_Driver(stub, api_key, game, players, random.Random(n)) for n in range(matches)]
        stop = asyncio.Event()
        tasks = [asyncio.create_task(d.run(stop)) for d in drivers]
        await asyncio.sleep(min(2.0, seconds / 2))  # warm: caches, connections
        for d in drivers:
            d.accepted, d.latencies = 0, []
        started = time.perf_counter()
        await asyncio.sleep(seconds)
        elapsed = time.perf_counter() - started
        accepted = sum(d.accepted for d in drivers)
        latencies = [x for d in drivers for x in d.latencies]
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    return accepted / elapsed, latencies


async def _echo_rate(target: str, callers: int, seconds: float) -> tuple[float, list[float]]:
    async with grpc.aio.insecure_channel(target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        latencies: list[float] = []
        stop = time.perf_counter() + seconds

        async def caller() -> None:
            while time.perf_counter() < stop:
                started = time.perf_counter()
                await health.Check(health_pb2.HealthCheckRequest())
                latencies.append(time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(caller() for _ in range(callers)))
        return len(latencies) / (time.perf_counter() - started), latencies


async def _watch_load(
    target: str, api_key: str, game: str, players: int, streams: int
) -> tuple[int, list[float]]:
    """Open `streams` Watch streams (spectators over several matches), then act in each match
    and time each watcher's receipt of the new event."""
    per_match = 100
    # Many clients hold these streams in life; a few hundred per connection here.
    channels = [grpc.aio.insecure_channel(target) for _ in range(max(1, streams // 500))]
    stubs = [gateway_pb2_grpc.GatewayServiceStub(c) for c in channels]
    try:
        matches = []
        for _ in range(max(1, streams // per_match)):
            created = await stubs[0].CreateMatch(
                pb.CreateMatchRequest(game_id=game, players=[f"p{k}" for k in range(players)]),
                metadata=_bearer(api_key),
            )
            matches.append(created)
        sent: dict[tuple[str, int], float] = {}
        delays: list[float] = []
        opened = 0
        ready = asyncio.Event()

        failures: list[BaseException] = []

        async def watcher(stub: Any, created: Any) -> None:
            try:
                await watch(stub, created)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # counted, so the wait below does not hang on it
                failures.append(exc)
                ready.set()

        async def watch(stub: Any, created: Any) -> None:
            nonlocal opened
            stream = stub.Watch(
                pb.WatchRequest(match_id=created.match_id), metadata=_bearer(created.spectator_token)
            )
            first = True
            async for update in stream:
                if first:
                    first = False
                    opened += 1
                    if opened == streams:
                        ready.set()
                    continue
                now = time.perf_counter()
                for event in update.events:
                    at = sent.get((created.match_id, event.version))
                    if at is not None:
                        delays.append(now - at)

        tasks = [
            asyncio.create_task(watcher(stubs[n % len(stubs)], matches[n % len(matches)]))
            for n in range(streams)
        ]
        await asyncio.wait_for(ready.wait(), 600)
        if failures:
            raise RuntimeError(f"{len(failures)} Watch streams failed to open: {failures[0]!r}")
        rng = random.Random(1)
        for _round in range(3):
            for created in matches:
                view = None
                for seat in range(players):
                    view = await stubs[0].GetView(
                        pb.GetViewRequest(match_id=created.match_id),
                        metadata=_bearer(created.seats[seat].token),
                    )
                    if view.legal_actions:
                        break
                if view is None or not view.legal_actions:
                    continue
                sent[(created.match_id, view.version + 1)] = time.perf_counter()
                await stubs[0].SubmitAction(
                    pb.SubmitActionRequest(
                        match_id=created.match_id,
                        action=rng.choice(list(view.legal_actions)),
                        command_id=uuid.uuid4().hex,
                    ),
                    metadata=_bearer(created.seats[view.seat].token),
                )
            await asyncio.sleep(1.0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return opened, delays
    finally:
        for channel in channels:
            await channel.close()


def run(report: Report, redis_url: str, game: str, players: int, quick: bool) -> None:
    seconds = 3.0 if quick else 10.0
    previous = os.environ.get("REDIS_URL")
    os.environ["REDIS_URL"] = redis_url
    try:
        with Stack(
            [game], gateways=1, log_dir=Path("var/bench-logs"), gateway_env={"LOG_LEVEL": "warning"}
        ) as stack:
            target, key = stack.gateway_targets[0], stack.api_key
            for matches in (1, 32):
                rate, latencies = asyncio.run(_submit_rate(target, key, game, players, matches, seconds))
                echo, echo_latencies = asyncio.run(_echo_rate(target, matches, seconds / 2))
                p50, p99 = percentiles(latencies)
                e50, e99 = percentiles(echo_latencies)
                label = f"{matches} match{'es' * (matches > 1)}"
                note = f"{game} {players}p, AOF always; p50 {p50 * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms"
                report.add(
                    Figure(
                        SECTION,
                        f"accepted actions/s, {label}",
                        rate,
                        "actions/s",
                        f"bare gRPC call, {matches} callers",
                        echo,
                        note,
                    )
                )
                report.add(
                    Figure(
                        SECTION,
                        f"SubmitAction p50, {label}",
                        p50 * 1e3,
                        "ms",
                        "bare gRPC call p50",
                        e50 * 1e3,
                        f"p99 {p99 * 1e3:.2f} ms vs bare {e99 * 1e3:.2f} ms",
                    )
                )
            streams = 1000 if quick else 10_000
            opened, delays = asyncio.run(_watch_load(target, key, game, players, streams))
            report.add(
                Figure(
                    SECTION,
                    "Watch streams held open by one gateway",
                    opened,
                    "streams",
                    note=f"asked for {streams}",
                )
            )
            if delays:
                p50, p99 = percentiles(delays)
                report.add(
                    Figure(
                        SECTION,
                        f"append to delivery p99, {opened} streams",
                        p99 * 1e3,
                        "ms",
                        note=f"p50 {p50 * 1e3:.1f} ms; {len(delays)} deliveries",
                    )
                )
    finally:
        if previous is None:
            os.environ.pop("REDIS_URL", None)
        else:
            os.environ["REDIS_URL"] = previous
