"""Rules figures per game, in process and over gRPC, each beside a baseline of the same run.

For each registered game:
  - validate+apply per action, p50 and p99, replaying the decisions of recorded playouts;
  - random-playout actions per second (legal_actions + validate + apply), per core;
  - the encoded state's size at the end of a game with the most players;
  - a full-match replay (fold every event from the opening), in process;
  - a Validate round trip over gRPC on loopback beside a bare Describe call on the same server;
and the cost of one draw of the kernel's generator (keyed BLAKE2b in counter mode) beside the
stdlib's Mersenne Twister (`random.getrandbits(64)`).

Usage: python -m benchmarks.bench_rules [--games G ...] [--quick]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from guildhall.rules.v1 import rules_pb2

from benchmarks.report import Figure, Report, percentiles
from gateway.rules_client import RulesClient
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
    final = None
    for seed in range(10_000, 10_000 + max(1, playouts // 2)):
        playout = random_playout(spec, players, seed)
        state = spec.start(playout.config)
        for step in playout.steps:
            t0 = time.perf_counter()
            spec.evolve(state, spec.decide(state, step.player, step.action))  # type: ignore[arg-type]
            samples.append(time.perf_counter() - t0)
            state = spec.evolve(state, step.events)
        final = playout
    p50, p99 = percentiles(samples)
    report.add(Figure(SECTION, f"{game}: validate+apply p50", p50 * 1e6, "µs", note=f"{players} players"))
    report.add(Figure(SECTION, f"{game}: validate+apply p99", p99 * 1e6, "µs", note=f"{players} players"))
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


def run(report: Report, games: list[str], quick: bool) -> None:
    bench_generator(report, 20_000 if quick else 200_000)
    for game in games:
        bench_game(report, GAMES[game], 2 if quick else 6)
        bench_grpc(report, GAMES[game], 300 if quick else 2000)


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
