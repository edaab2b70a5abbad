"""The Play stream and the fan-out (issue 25): section "play" of `make bench`.

- Play stream, always-busy matches: every seat of every match holds one Play stream (as the
  library's bots do) and acts whenever the update it received says it may; a finished match is
  replaced by a new one. Accepted actions/s, the p50/p99 from sending an action to its answer,
  and the CPU one accepted action costs in each process, beside the unary path (SubmitAction
  with return_view, bench_path's driver) at the same size in the same run.
- Watched against busy, at 32 matches: the unary path alone (nobody watches), the same with every
  seat holding a Watch stream (each action is delivered to two watchers), and the Play stream
  (each seat's stream is its watcher). A watched action's CPU over a busy one's is the figure
  item 2 moves: with the fan-out one rules call serves every watcher.
- The same at 32 matches on a stack as before issue 25's levers: the fan-out off
  (GUILDHALL_FAN_OUT=0: watchers' views and events asked of the rules service per seat, the
  stream read per watcher) and no batches on the rules Session (GUILDHALL_RULES_BATCH=0).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from benchmarks.bench_path import (
    P99_LIMIT_S,
    PACE_S,
    WATCH_P99_TARGET_S,
    _bearer,
    _Cpu,
    _Driver,
    _echo,
    _redis_pid,
    _submit_load,
    environment,
    measure_drivers,
)
from benchmarks.report import Figure, Report, percentiles
from devstack.stack import Stack
from services import runtime

PLAY = "play stream"
SIZES = (1, 8, 32, 128)
QUICK_SIZES = (1, 32)
WATCHED_AT = 32
PACED = (250, 500, 1000, 1500, 2000)  # the paced Play ladder (matches)
QUICK_PACED = (100,)
# The stack as before issue 25's levers: no fan-out (watchers' views and events asked of the
# rules service per seat, a stream read per watcher) and no batches on the rules Session.
BEFORE = {"GUILDHALL_FAN_OUT": "0", "GUILDHALL_RULES_BATCH": "0"}


class PlayMatches:
    """Keeps one match busy over Play streams, one per seat; counts accepted actions."""

    def __init__(
        self, stub: Any, api_key: str, game: str, players: int, seed: int, *, pace_s: float = 0.0
    ) -> None:
        """`pace_s` > 0: one action per match every `pace_s` (the first after a random part of
        it, so paced matches do not act in step); else as fast as the answers come."""
        self.stub, self.api_key, self.game, self.players = stub, api_key, game, players
        self.rng = random.Random(seed)
        self.pace_s = pace_s
        self.next_at = time.perf_counter() + self.rng.uniform(0, pace_s)
        self.accepted = 0
        self.errors = 0
        self.latencies: list[float] = []
        # From an action's send to its first event reaching each other seat's stream.
        self.deliveries: list[float] = []
        self._sent: dict[int, tuple[float, int]] = {}  # expected version -> (sent at, seat)
        self.ready = asyncio.Event()  # every seat's stream of the first match has answered
        self._open_seats: set[int] = set()

    def reset(self) -> None:
        self.accepted, self.errors, self.latencies, self.deliveries = 0, 0, [], []

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                created = await self.stub.CreateMatch(
                    pb.CreateMatchRequest(game_id=self.game, players=[f"p{n}" for n in range(self.players)]),
                    metadata=_bearer(self.api_key),
                )
                await self._play(created, stop)
            except grpc.aio.AioRpcError:
                self.errors += 1
                await asyncio.sleep(0.05)

    async def _play(self, created: Any, stop: asyncio.Event) -> None:
        over = asyncio.Event()
        seats = [asyncio.create_task(self._seat(created, s, over, stop)) for s in created.seats]
        waiting = [asyncio.create_task(over.wait()), asyncio.create_task(stop.wait())]
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (*seats, *waiting):
                task.cancel()
            await asyncio.gather(*seats, *waiting, return_exceptions=True)

    async def _seat(self, created: Any, seat: Any, over: asyncio.Event, stop: asyncio.Event) -> None:
        outgoing: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        outgoing.put_nowait(pb.PlayRequest(open=pb.PlayOpen(match_id=created.match_id)))

        async def requests() -> Any:
            while (request := await outgoing.get()) is not None:
                yield request

        call = self.stub.Play(requests(), metadata=_bearer(seat.token))
        pending, acted, sent = False, -1, 0.0
        view: Any = None
        try:
            async for message in call:
                if not self.ready.is_set():
                    self._open_seats.add(seat.seat)
                    if len(self._open_seats) == self.players:
                        self.ready.set()
                if message.events:
                    self._delivered(seat.seat, message.events[0].version)
                if message.HasField("answer"):
                    pending = False
                    self.latencies.append(time.perf_counter() - sent)
                    result = message.answer.WhichOneof("result")
                    if result == "accepted":
                        self.accepted += 1
                    elif result == "fault":
                        self.errors += 1
                if message.HasField("view"):
                    view = message.view
                    if view.finished:
                        over.set()
                        return
                if not pending and view is not None and view.legal_actions and view.version != acted:
                    if self.pace_s:
                        await asyncio.sleep(max(0.0, self.next_at - time.perf_counter()))
                        self.next_at = max(self.next_at + self.pace_s, time.perf_counter())
                    if stop.is_set():
                        return
                    action = pb.PlayAction(
                        command_id=uuid.uuid4().hex,
                        expected_version=view.version,
                        action=self.rng.choice(list(view.legal_actions)),
                    )
                    pending, acted, sent = True, view.version, time.perf_counter()
                    self._sent[view.version] = (sent, seat.seat)
                    outgoing.put_nowait(pb.PlayRequest(action=action))
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                self.errors += 1
        finally:
            outgoing.put_nowait(None)
            call.cancel()

    def _delivered(self, seat: int, first_version: int) -> None:
        sent = self._sent.get(first_version - 1)
        if sent is not None and sent[1] != seat:
            self.deliveries.append(time.perf_counter() - sent[0])


class WatchedDriver(_Driver):
    """bench_path's unary driver, with every seat of its current match holding a Watch stream."""

    watchers: list[asyncio.Task[None]]

    async def new_match(self) -> Any:
        for task in getattr(self, "watchers", []):
            task.cancel()
        created = await super().new_match()
        self.watchers = [asyncio.create_task(self._watch(seat.token)) for seat in created.seats]
        return created

    async def _watch(self, token: str) -> None:
        stream = self.stub.Watch(pb.WatchRequest(match_id=self.match_id), metadata=_bearer(token))
        try:
            async for _ in stream:
                pass
        except grpc.aio.AioRpcError:
            pass
        finally:
            stream.cancel()

    async def run(self, stop: asyncio.Event) -> None:
        try:
            await super().run(stop)
        finally:
            for task in getattr(self, "watchers", []):
                task.cancel()


async def play_load(
    targets: Sequence[str], api_key: str, game: str, players: int, matches: int, seconds: float, cpu: _Cpu
) -> tuple[float, list[float], dict[str, float], int]:
    """`matches` always-busy matches over Play streams: (accepted/s, latencies, CPU/action, errors)."""
    count = max(len(targets), min(4, matches // 8))
    channels = [grpc.aio.insecure_channel(targets[n % len(targets)]) for n in range(count)]
    try:
        stubs = [gateway_pb2_grpc.GatewayServiceStub(c) for c in channels]
        drivers = [PlayMatches(stubs[n % len(stubs)], api_key, game, players, n) for n in range(matches)]
        return await measure_drivers(drivers, seconds, cpu)
    finally:
        for channel in channels:
            await channel.close()


async def watched_load(
    targets: Sequence[str], api_key: str, game: str, players: int, matches: int, seconds: float, cpu: _Cpu
) -> tuple[float, list[float], dict[str, float], int]:
    """bench_path's unary load with every seat watching its match (a Watch stream per seat)."""
    return await _submit_load(targets, api_key, game, players, matches, seconds, cpu, driver=WatchedDriver)


async def paced_play_load(
    target: str, api_key: str, game: str, players: int, matches: int, seconds: float, cpu: _Cpu
) -> tuple[float, list[float], list[float], dict[str, float], int]:
    """`matches` paced matches (one action per match every PACE_S), every seat on its own Play
    stream: (accepted/s, send-to-answer latencies, send-to-other-seats delivery delays, CPU per
    action, errors). A few hundred streams share a connection, as many clients would."""
    channels = [grpc.aio.insecure_channel(target) for _ in range(max(1, matches // 250))]
    try:
        stubs = [gateway_pb2_grpc.GatewayServiceStub(c) for c in channels]
        drivers = [
            PlayMatches(stubs[n % len(stubs)], api_key, game, players, n, pace_s=PACE_S)
            for n in range(matches)
        ]
        # Every match created and its streams open, then a whole period warm. The load
        # generator collects as the servers do: its own collector's pauses (2,000 streams here
        # too) would count as theirs.
        async with runtime.collections_on_schedule(runtime.DEFAULT_OLD_EVERY_S):
            rate, latencies, per_action, errors = await measure_drivers(
                drivers, seconds, cpu, warm_s=PACE_S, ready=True
            )
        return rate, latencies, [x for d in drivers for x in d.deliveries], per_action, errors
    finally:
        for channel in channels:
            await channel.close()


def paced_capacity(
    report: Report,
    target: str,
    key: str,
    game: str,
    players: int,
    quick: bool,
    cpu: _Cpu,
    *,
    section: str = PLAY,
    label: str = "",
) -> int:
    """The paced ladder over Play streams: the most matches held with zero errors, p99 from an
    action's send to its answer ≤ 50 ms and from its send to the other seats' streams ≤ 100 ms
    (returned; reported under `section`, the figures' names ending with `label` if given)."""
    suffix = f", {label}" if label else ""
    ladder = QUICK_PACED if quick else PACED
    seconds = 4.0 if quick else 10.0
    held_at = 0
    for matches in ladder:
        rate, latencies, deliveries, per_action, errors = asyncio.run(
            paced_play_load(target, key, game, players, matches, seconds, cpu)
        )
        p50, p99 = percentiles(latencies) if latencies else (float("inf"), float("inf"))
        d50, d99 = percentiles(deliveries) if deliveries else (float("inf"), float("inf"))
        held = errors == 0 and p99 <= P99_LIMIT_S and d99 <= WATCH_P99_TARGET_S
        print(
            f"    {matches} paced Play matches{suffix}: {rate:,.0f} actions/s, p99 {p99 * 1e3:.1f} ms, "
            f"delivery p99 {d99 * 1e3:.1f} ms, {errors} errors: {'held' if held else 'missed'}",
            flush=True,
        )
        report.add(
            Figure(
                section,
                f"paced Play matches, {matches} ({matches * players} Play streams){suffix}",
                p99 * 1e3,
                "ms p99 send to answer",
                note=f"{rate:,.0f} actions/s; p50 {p50 * 1e3:.1f} ms; delivery to the other seats p50 "
                f"{d50 * 1e3:.1f} ms, p99 {d99 * 1e3:.1f} ms ({len(deliveries):,}); {errors} errors; "
                f"server CPU {server_cpu(per_action) * 1e6:,.0f} µs per action "
                f"({_split(per_action)}); {'held' if held else 'missed'}",
            )
        )
        if not held:
            break
        held_at = matches
    if section != PLAY:
        return held_at  # the caller reports it beside its baseline
    report.add(
        Figure(
            PLAY,
            "paced matches held, every seat on a Play stream (1 action / match / 2 s)",
            held_at,
            "matches",
            note=f"ladder {', '.join(map(str, ladder))}; held: zero errors, p99 submit ≤ "
            f"{P99_LIMIT_S * 1e3:.0f} ms, delivery p99 ≤ {WATCH_P99_TARGET_S * 1e3:.0f} ms",
        )
    )
    return held_at


def server_cpu(per_action: dict[str, float]) -> float:
    return sum(v for name, v in per_action.items() if name != "load generator")


def _split(per_action: dict[str, float]) -> str:
    return ", ".join(f"{name} {value * 1e6:,.0f}" for name, value in per_action.items())


@contextlib.contextmanager
def stack_for(
    redis_url: str, game: str, env: dict[str, str] | None = None, *, gateways: int = 1
) -> Iterator[Stack]:
    """The bench stack: Redis (AOF always) at `redis_url`, the game's rules service, `gateways`
    gateway processes logging one line per RPC at INFO as deployed; `env` given to every process.

    Every bench stack shares one work directory, so one local tenant key: tenants live in Redis
    once a gateway has seeded them (issue 34), and a second stack on the same Redis with a key of
    its own would be refused."""
    with (
        environment({"REDIS_URL": redis_url, **(env or {})}),
        Stack(
            [game],
            gateways=gateways,
            log_dir=Path("var/bench-logs"),
            work_dir=Path("var/bench-stack"),
            gateway_env={"LOG_LEVEL": "info"},
        ) as stack,
    ):
        yield stack


def _cpu_of(stack: Stack, game: str, redis_url: str) -> _Cpu:
    pids = {f"gateway-{n}": int(gateway.pid or 0) for n, gateway in enumerate(stack.gateways)}
    return _Cpu(pids | {"rules service": stack.rules[game].pid, "redis": _redis_pid(redis_url)})


def two_gateways(
    report: Report, redis_url: str, game: str, players: int, seconds: float, one_gateway: float
) -> None:
    """The busy Play load at WATCHED_AT matches over two gateway processes (one Redis, one rules
    service), against one gateway's rate in the same run: how far a second process carries."""
    with stack_for(redis_url, game, gateways=2) as stack:
        cpu = _cpu_of(stack, game, redis_url)
        rate, latencies, per_action, errors = asyncio.run(
            play_load(stack.gateway_targets, stack.api_key, game, players, WATCHED_AT, seconds, cpu)
        )
    p50, p99 = percentiles(latencies) if latencies else (float("nan"), float("nan"))
    report.add(
        Figure(
            PLAY,
            f"accepted actions/s, {WATCHED_AT} matches, Play stream, two gateway processes",
            rate,
            "actions/s",
            "one gateway process, same run",
            one_gateway,
            f"p50 {p50 * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms; {errors} errors; server CPU "
            f"{server_cpu(per_action) * 1e6:,.0f} µs per action ({_split(per_action)})",
        )
    )


def run(
    report: Report,
    redis_url: str,
    game: str,
    players: int,
    quick: bool,
    *,
    sizes: Sequence[int] = SIZES,
) -> None:
    seconds = 1.0 if quick else 10.0
    one_gateway = None
    for env, label in ((None, ""), (BEFORE, "as before issue 25 (no fan-out, no batches)")):
        with stack_for(redis_url, game, env) as stack:
            targets, key = stack.gateway_targets, stack.api_key
            cpu = _cpu_of(stack, game, redis_url)
            for matches in sizes if env is None else (WATCHED_AT,):
                rate = _measure(report, targets, key, game, players, matches, seconds, cpu, label)
                if env is None and matches == WATCHED_AT:
                    one_gateway = rate
            if env is None:
                paced_capacity(report, targets[0], key, game, players, quick, cpu)
    if one_gateway is not None:
        two_gateways(report, redis_url, game, players, seconds, one_gateway)


def _measure(
    report: Report,
    targets: Sequence[str],
    key: str,
    game: str,
    players: int,
    matches: int,
    seconds: float,
    cpu: _Cpu,
    label: str,
) -> float:
    """The loads at `matches`, each reported beside the unary one: the Play stream's rate."""
    size = f"{matches} match{'es' * (matches > 1)}" + (f", {label}" if label else "")
    loads: dict[str, Any] = {"unary, nobody watching": _submit_load}
    if matches == WATCHED_AT:
        loads["unary, every seat watching"] = watched_load
    loads["Play stream"] = play_load
    results = {}
    for name, load in loads.items():
        rate, latencies, per_action, errors = asyncio.run(
            load(targets, key, game, players, matches, seconds, cpu)
        )
        results[name] = (rate, latencies, per_action, errors)
    echo, _ = asyncio.run(_echo(targets[0], matches, seconds / 2))
    unary_rate, _, unary_cpu, _ = results["unary, nobody watching"]
    for name, (rate, latencies, per_action, errors) in results.items():
        p50, p99 = percentiles(latencies) if latencies else (float("nan"), float("nan"))
        report.add(
            Figure(
                PLAY,
                f"accepted actions/s, {size}, {name}",
                rate,
                "actions/s",
                "unary, nobody watching, same stack"
                if name != "unary, nobody watching"
                else "bare gRPC call",
                unary_rate if name != "unary, nobody watching" else echo,
                f"{game} {players}p, AOF always; p50 {p50 * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms "
                f"(send to answer); {errors} errors",
            )
        )
        report.add(
            Figure(
                PLAY,
                f"server CPU per accepted action, {size}, {name}",
                server_cpu(per_action) * 1e6,
                "µs",
                "unary, nobody watching" if name != "unary, nobody watching" else "",
                server_cpu(unary_cpu) * 1e6 if name != "unary, nobody watching" else None,
                f"µs per action: {_split(per_action)}",
            )
        )
    return float(results["Play stream"][0])
