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

PLAY = "play stream"
SIZES = (1, 8, 32, 128)
QUICK_SIZES = (1, 32)
WATCHED_AT = 32
# The stack as before issue 25's levers: no fan-out (watchers' views and events asked of the
# rules service per seat, a stream read per watcher) and no batches on the rules Session.
BEFORE = {"GUILDHALL_FAN_OUT": "0", "GUILDHALL_RULES_BATCH": "0"}


class PlayMatches:
    """Keeps one match busy over Play streams, one per seat; counts accepted actions."""

    def __init__(self, stub: Any, api_key: str, game: str, players: int, seed: int) -> None:
        self.stub, self.api_key, self.game, self.players = stub, api_key, game, players
        self.rng = random.Random(seed)
        self.accepted = 0
        self.errors = 0
        self.latencies: list[float] = []

    def reset(self) -> None:
        self.accepted, self.errors, self.latencies = 0, 0, []

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
                    if stop.is_set():
                        return
                    action = pb.PlayAction(
                        command_id=uuid.uuid4().hex,
                        expected_version=view.version,
                        action=self.rng.choice(list(view.legal_actions)),
                    )
                    pending, acted, sent = True, view.version, time.perf_counter()
                    outgoing.put_nowait(pb.PlayRequest(action=action))
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                self.errors += 1
        finally:
            outgoing.put_nowait(None)
            call.cancel()


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


def server_cpu(per_action: dict[str, float]) -> float:
    return sum(v for name, v in per_action.items() if name != "load generator")


def _split(per_action: dict[str, float]) -> str:
    return ", ".join(f"{name} {value * 1e6:,.0f}" for name, value in per_action.items())


@contextlib.contextmanager
def stack_for(redis_url: str, game: str, env: dict[str, str] | None = None) -> Iterator[Stack]:
    """The bench stack: Redis (AOF always) at `redis_url`, the game's rules service, one gateway
    logging one line per RPC at INFO as deployed; `env` given to every process."""
    with (
        environment({"REDIS_URL": redis_url, **(env or {})}),
        Stack([game], gateways=1, log_dir=Path("var/bench-logs"), gateway_env={"LOG_LEVEL": "info"}) as stack,
    ):
        yield stack


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
    for env, label in ((None, ""), (BEFORE, "as before issue 25 (no fan-out, no batches)")):
        with stack_for(redis_url, game, env) as stack:
            targets, key = stack.gateway_targets, stack.api_key
            pids = {"gateway-0": stack.gateways[0].pid, "rules service": stack.rules[game].pid}
            cpu = _Cpu(pids | {"redis": _redis_pid(redis_url)})
            for matches in sizes if env is None else (WATCHED_AT,):
                _measure(report, targets, key, game, players, matches, seconds, cpu, label)


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
) -> None:
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
