"""The 32-match Play-stream A/B of docs/performance.md (issue 31): one 32-match Play-stream load
(bench_play.play_load, 2 s warm-up) on a fresh stack of whichever tree is first on sys.path;
prints the tree, actions/s, p50, p99 and the CPU per action of each process as JSON.

    python benchmarks/play32.py [seconds [game [matches]]]                     # this tree
    cd OLD && PYTHONPATH=OLD:OLD/gen python /this/tree/benchmarks/play32.py    # another checkout

The game is Rattus Cartus (2 players) unless named: `ys` weighs the decisions' cost most (a
placement decision lists up to 190 options).
"""

from __future__ import annotations

import asyncio
import json
import sys

from benchmarks import bench_play
from benchmarks.report import percentiles
from devstack.redis import redis_server_process
from services.observability import configure_logging
from services.runtime import tune_gc

PLAYERS, MATCHES = 2, 32


def main() -> None:
    configure_logging("bench", "warning")
    tune_gc()
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    game = sys.argv[2] if len(sys.argv) > 2 else "rattus_cartus"
    matches = int(sys.argv[3]) if len(sys.argv) > 3 else MATCHES
    with redis_server_process(appendonly=True) as url, bench_play.stack_for(url, game, None) as stack:
        cpu = bench_play._cpu_of(stack, game, url)
        targets, key = stack.gateway_targets, stack.api_key
        asyncio.run(bench_play.play_load(targets, key, game, PLAYERS, matches, 2.0, cpu))  # warm-up
        rate, latencies, per_action, errors = asyncio.run(
            bench_play.play_load(targets, key, game, PLAYERS, matches, seconds, cpu)
        )
    p50, p99 = percentiles(latencies)
    result = {
        "tree": bench_play.__file__,
        "game": game,
        "matches": matches,
        "rate": rate,
        "p50_ms": p50 * 1000,
        "p99_ms": p99 * 1000,
    }
    print(json.dumps(result | {"cpu_per_action": per_action, "errors": errors}))


if __name__ == "__main__":
    main()
