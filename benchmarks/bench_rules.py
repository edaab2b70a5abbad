"""Rules benchmark: how fast each game decides and applies actions, in process and over gRPC.

For each registered game and player count it reports
  - random-playout actions per second (legal_actions + validate + apply, in process),
  - validate+apply time per action (p50 and p99), replaying the recorded decisions,
and for each game, over gRPC on loopback,
  - mean Validate(return_state) round trip, against a bare baseline call (Describe,
    which returns a prebuilt message) on the same server, as a ratio: the machines are
    noisy, the ratio much less so.

and the cost of one draw of the kernel's generator (keyed BLAKE2b in counter mode) next to
the stdlib's Mersenne Twister (`random.getrandbits(64)`) in the same run.

Usage: python benchmarks/bench_rules.py [--games G ...] [--playouts N] [--calls N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from guildhall.rules.v1 import rules_pb2

from gateway.rules_client import RulesClient
from services.kernel import GameSpec, Rng, SetupConfig
from services.kernel.testing import random_playout
from services.observability import configure_logging
from services.registry import GAMES
from services.server import build_server


def bench_in_process(spec: GameSpec[Any], players: int, playouts: int) -> tuple[float, float, float, int]:
    """(actions/s of random playouts, p50 and p99 µs of validate+apply, actions per game)."""
    decisions: list[tuple[Any, int, Any]] = []
    actions = 0
    started = time.perf_counter()
    for seed in range(playouts):
        playout = random_playout(spec, players, seed)
        actions += len(playout.steps)
    playout_s = time.perf_counter() - started

    playout = random_playout(spec, players, 10_000)
    state = spec.start(playout.config)
    for step in playout.steps:
        decisions.append((state, step.player, step.action))
        state = spec.evolve(state, step.events)
    samples = []
    for state, player, action in decisions:
        t0 = time.perf_counter()
        spec.evolve(state, spec.decide(state, player, action))  # type: ignore[arg-type]
        samples.append(time.perf_counter() - t0)
    p50, p99 = _percentiles(samples)
    return actions / playout_s, p50 * 1e6, p99 * 1e6, actions // playouts


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def bench_rng(draws: int = 200_000) -> tuple[float, float, float]:
    """(ns per 64-bit draw, ns per unbiased randbelow(52), ns per random.getrandbits(64) baseline)."""
    cursor = Rng.from_seed(2**255 + 1).cursor()
    t0 = time.perf_counter()
    for _ in range(draws):
        cursor.next_u64()
    t1 = time.perf_counter()
    for _ in range(draws):
        cursor.randbelow(52)
    t2 = time.perf_counter()
    baseline = random.Random(1)
    for _ in range(draws):
        baseline.getrandbits(64)
    t3 = time.perf_counter()
    return (t1 - t0) / draws * 1e9, (t2 - t1) / draws * 1e9, (t3 - t2) / draws * 1e9


def bench_grpc(spec: GameSpec[Any], calls: int) -> tuple[float, float]:
    """(mean µs of a Validate round trip, mean µs of the bare Describe baseline)."""
    players = max(spec.player_counts)
    playout = random_playout(spec, players, 20_000)
    packed = []
    state = spec.start(SetupConfig(players, 20_000, playout.config.options))
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
        samples_validate, samples_base = [], []
        for i in range(calls):
            wire, player, action = packed[i % len(packed)]
            t0 = time.perf_counter()
            client.describe()
            t1 = time.perf_counter()
            client.validate(wire, player, action)
            t2 = time.perf_counter()
            samples_base.append(t1 - t0)
            samples_validate.append(t2 - t1)
    finally:
        client.close()
        server.stop(None)
    return statistics.mean(samples_validate) * 1e6, statistics.mean(samples_base) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--playouts", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    configure_logging("bench", "WARNING")  # one log line per RPC would be measured too
    draw_ns, below_ns, base_ns = bench_rng()
    print(f"generator: {draw_ns:.0f} ns per 64-bit draw, {below_ns:.0f} ns per randbelow(52); ", end="")
    print(f"random.getrandbits(64) in the same run: {base_ns:.0f} ns ({draw_ns / base_ns:.1f}x)")
    print()
    header = f"{'game':<16}{'players':>8}{'actions/game':>14}{'playout actions/s':>20}"
    print(f"{header}{'validate+apply p50 µs':>23}{'p99 µs':>9}")
    for game in args.games:
        spec = GAMES[game]
        for players in spec.player_counts:
            rate, p50, p99, per_game = bench_in_process(spec, players, args.playouts)
            print(f"{game:<16}{players:>8}{per_game:>14}{rate:>20,.0f}{p50:>23.1f}{p99:>9.1f}")
    print()
    print(f"{'game':<16}{'Validate RPC µs':>16}{'bare RPC µs':>14}{'ratio':>8}")
    for game in args.games:
        validate_us, base_us = bench_grpc(GAMES[game], args.calls)
        print(f"{game:<16}{validate_us:>16.1f}{base_us:>14.1f}{validate_us / base_us:>8.2f}x")


if __name__ == "__main__":
    main()
