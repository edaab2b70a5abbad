"""Rules figures per game, in process and over gRPC, each beside a baseline of the same run.

For each registered game:
  - validate+apply per action, p50 and p99, replaying the decisions of recorded playouts, and
    beside it the undo decision Validate adds for the same actions (GameSpec.may_take_back);
  - random-playout actions per second (legal_actions + validate + apply), per core;
  - the encoded state's size at the end of a game with the most players;
  - a full-match replay (fold every event from the opening), in process;
  - a Validate round trip over gRPC on loopback beside a bare Describe call on the same server;
  - the rules hop as the gateway makes it (one game): CPU per Validate in the rules process and
    in the caller, with 8 calls in flight, for the thread-pool server with unary calls (the
    baseline), the asyncio server with unary calls, and the asyncio server's Session stream;
and the cost of one draw of the kernel's generator (keyed BLAKE2b in counter mode) beside the
stdlib's Mersenne Twister (`random.getrandbits(64)`).

Usage: python -m benchmarks.bench_rules [--games G ...] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import time
from typing import Any

from guildhall.rules.v1 import rules_pb2

from benchmarks.report import Figure, Report, cpu_of, own_cpu, percentiles
from devstack.processes import free_port, wait_serving
from gateway.rules_client import AsyncRulesClient, RulesClient
from services.kernel import GameSpec, Rng
from services.kernel.testing import random_playout
from services.observability import configure_logging
from services.registry import GAMES
from services.server import build_server

SECTION = "rules"


def bench_generator(report: Report, draws: int) -> None:
    cursor = Rng.from_seed(2**255 + 1).cursor()
    t0 = time.perf_counter()
    for _ in range(draws):
        cursor.next_u64()
    t1 = time.perf_counter()
    baseline = random.Random(1)
    for _ in range(draws):
        baseline.getrandbits(64)
    t2 = time.perf_counter()
    report.add(
        Figure(SECTION, "generator: one 64-bit draw", (t1 - t0) / draws * 1e9, "ns",
               "random.getrandbits(64)", (t2 - t1) / draws * 1e9, "keyed BLAKE2b, counter mode")
    )  # fmt: skip


def bench_game(report: Report, spec: GameSpec[Any], playouts: int) -> None:
    game = spec.game_id
    players = max(spec.player_counts)
    actions = 0
    started = time.perf_counter()
    for seed in range(playouts):
        for count in spec.player_counts:
            actions += len(random_playout(spec, count, seed).steps)
    rate = actions / (time.perf_counter() - started)
    report.add(
        Figure(SECTION, f"{game}: random playouts", rate, "actions/s", note="every player count, one core")
    )

    samples: list[float] = []
    undo: list[float] = []  # Validate's undo decision (Accepted.undoable) for the same actions
    final = None
    for seed in range(10_000, 10_000 + max(1, playouts // 2)):
        playout = random_playout(spec, players, seed)
        state = spec.start(playout.config)
        for step in playout.steps:
            t0 = time.perf_counter()
            after = spec.evolve(state, spec.decide(state, step.player, step.action))  # type: ignore[arg-type]
            t1 = time.perf_counter()
            spec.may_take_back(state, step.player, step.action, step.events, after)
            undo.append(time.perf_counter() - t1)
            samples.append(t1 - t0)
            state = spec.evolve(state, step.events)
        final = playout
    p50, p99 = percentiles(samples)
    report.add(Figure(SECTION, f"{game}: validate+apply p50", p50 * 1e6, "µs", note=f"{players} players"))
    report.add(Figure(SECTION, f"{game}: validate+apply p99", p99 * 1e6, "µs", note=f"{players} players"))
    report.add(
        Figure(SECTION, f"{game}: may this be undone? p50", percentiles(undo)[0] * 1e6, "µs",
               "validate+apply p50", p50 * 1e6, "kernel + the game's UndoRule, once per accepted action")
    )  # fmt: skip
    assert final is not None
    events = [e for step in final.steps for e in step.events]
    report.add(
        Figure(
            SECTION, f"{game}: encoded state at the end", len(spec.codec.encode_state(final.final)), "bytes"
        )
    )
    t0 = time.perf_counter()
    spec.evolve(spec.start(final.config), events)
    report.add(
        Figure(SECTION, f"{game}: full-match replay", (time.perf_counter() - t0) * 1e3, "ms",
               note=f"{len(events)} events, in process")
    )  # fmt: skip


def bench_grpc(report: Report, spec: GameSpec[Any], calls: int) -> None:
    players = max(spec.player_counts)
    playout = random_playout(spec, players, 20_000)
    packed = []
    state = spec.start(playout.config)
    for step in playout.steps:
        wire = rules_pb2.GameState(
            game_id=spec.game_id, rules_version=spec.rules_version, state=spec.codec.encode_state(state)
        )
        packed.append((wire, step.player, spec.codec.encode_json(step.action)))
        state = spec.evolve(state, step.events)
    server, port, _ = build_server(spec)
    server.start()
    client = RulesClient(spec.game_id, f"127.0.0.1:{port}")
    try:
        for _ in range(50):  # warm the channel
            client.describe()
        validate, bare = [], []
        for i in range(calls):
            wire, player, action = packed[i % len(packed)]
            t0 = time.perf_counter()
            client.describe()
            t1 = time.perf_counter()
            client.validate(wire, player, action)
            validate.append(time.perf_counter() - t1)
            bare.append(t1 - t0)
    finally:
        client.close()
        server.stop(None)
    report.add(
        Figure(SECTION, f"{spec.game_id}: Validate over gRPC p50", percentiles(validate)[0] * 1e6, "µs",
               "bare Describe call", percentiles(bare)[0] * 1e6, "loopback, with state")
    )  # fmt: skip


HOP_GAME = "rattus_cartus"


async def _hop_load(
    target: str, sessions: int, packed: list[Any], seconds: float, pid: int, in_flight: int = 8
) -> tuple[float, float, float]:
    """(calls/s, rules-process CPU µs per call, caller CPU µs per call)."""
    client = AsyncRulesClient(HOP_GAME, target, sessions=sessions)
    calls = 0

    async def caller(start: int, until: float) -> None:
        nonlocal calls
        index = start
        while time.perf_counter() < until:
            wire, player, action = packed[index % len(packed)]
            index += in_flight
            await client.validate(wire, player, action, return_views=True)
            calls += 1

    try:
        warm = time.perf_counter() + min(1.0, seconds / 2)
        await asyncio.gather(*(caller(n, warm) for n in range(in_flight)))
        calls, server0, caller0, started = 0, cpu_of(pid), own_cpu(), time.perf_counter()
        await asyncio.gather(*(caller(n, started + seconds) for n in range(in_flight)))
        elapsed = time.perf_counter() - started
        server_us = (cpu_of(pid) - server0) / max(calls, 1) * 1e6
        caller_us = (own_cpu() - caller0) / max(calls, 1) * 1e6
    finally:
        await client.close()
    return calls / elapsed, server_us, caller_us


def bench_hop(report: Report, seconds: float) -> None:
    """The rules hop's CPU per call: threads + unary (baseline) against asyncio unary and Session."""
    spec = GAMES[HOP_GAME]
    playout = random_playout(spec, 2, 3)
    packed, state = [], spec.start(playout.config)
    for step in playout.steps[:300]:
        wire = rules_pb2.GameState(
            game_id=spec.game_id, rules_version=spec.rules_version, state=spec.codec.encode_state(state)
        )
        packed.append((wire, step.player, spec.codec.encode_json(step.action)))
        state = spec.evolve(state, step.events)
    results: dict[str, tuple[float, float, float]] = {}
    for server, sessions in (("threads", 0), ("asyncio", 0), ("asyncio", 2)):
        port = free_port()
        command = [sys.executable, "-m", f"services.{HOP_GAME}", "--port", str(port), "--server", server]
        env = {**os.environ, "LOG_LEVEL": "info"}  # as deployed: one line per call
        process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
        try:
            wait_serving(f"127.0.0.1:{port}", 30, process)
            name = f"{server}, {'Session stream' if sessions else 'unary calls'}"
            results[name] = asyncio.run(
                _hop_load(f"127.0.0.1:{port}", sessions, packed, seconds, process.pid)
            )
        finally:
            process.terminate()
            process.wait(30)
    base_name = "threads, unary calls"
    _, base_server, base_caller = results[base_name]
    for name, (rate, server_us, caller_us) in results.items():
        report.add(
            Figure(SECTION, f"rules hop, {name}: rules-process CPU per Validate", server_us, "µs",
                   f"{base_name}", base_server if name != base_name else None,
                   f"{HOP_GAME}, 8 in flight, {rate:,.0f} calls/s")
        )  # fmt: skip
        report.add(
            Figure(SECTION, f"rules hop, {name}: caller CPU per Validate", caller_us, "µs",
                   f"{base_name}", base_caller if name != base_name else None)
        )  # fmt: skip


def run(report: Report, games: list[str], quick: bool) -> None:
    bench_generator(report, 20_000 if quick else 200_000)
    for game in games:
        bench_game(report, GAMES[game], 2 if quick else 6)
        bench_grpc(report, GAMES[game], 300 if quick else 2000)
    bench_hop(report, 0.5 if quick else 5.0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    configure_logging("bench", "warning")  # one log line per RPC would be measured too
    run(Report(quick=args.quick), args.games, args.quick)


if __name__ == "__main__":
    main()
