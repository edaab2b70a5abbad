"""One rung of the paced Play ladder (issue 45's third target): N matches acting once every 2 s,
every seat on its own Play stream, all created and open before the clock starts, on one Redis
(AOF always) or on the production configuration (`--cluster`: a local Redis Cluster of 3
primaries with a replica each, AOF always on every node, the gateway waiting for one replica per
append). Prints what the ladder of `make bench` decides a rung by: p99 from an action's send to
its answer (target ≤ 50 ms), p99 from its send to the other seat's stream (≤ 100 ms), errors
(none), with the rate and the server CPU per action.

    python -m benchmarks.paced                       # 1,000 matches, one Redis, 10 s
    python -m benchmarks.paced --cluster             # the same on the cluster with the wait
    python -m benchmarks.paced --matches 500 --seconds 20 --game ys
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

from benchmarks.bench_path import P99_LIMIT_S, WATCH_P99_TARGET_S
from benchmarks.bench_play import _cpu_of, _split, paced_play_load, server_cpu, stack_for
from benchmarks.report import percentiles
from devstack.redis import redis_server_process
from services.observability import configure_logging
from services.runtime import tune_gc

PLAYERS = 2


@contextlib.contextmanager
def _stack(game: str, cluster: bool) -> Iterator[tuple[Any, Any]]:
    if cluster:
        from benchmarks.bench_cluster import cluster_stack

        with cluster_stack(game) as (stack, cpu):
            yield stack, cpu
        return
    with redis_server_process(appendonly=True) as url, stack_for(url, game) as stack:
        yield stack, _cpu_of(stack, game, url)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window (after a warm period)")
    parser.add_argument("--cluster", action="store_true", help="a local Redis Cluster, REDIS_WAIT_REPLICAS=1")
    parser.add_argument("--game", default="rattus_cartus")
    args = parser.parse_args()
    configure_logging("bench", "warning")
    tune_gc()
    where = "cluster 3x(1+1), WAIT 1" if args.cluster else "one Redis"
    with _stack(args.game, args.cluster) as (stack, cpu):
        rate, latencies, deliveries, per_action, errors = asyncio.run(
            paced_play_load(
                stack.gateway_targets[0], stack.api_key, args.game, PLAYERS, args.matches, args.seconds, cpu
            )
        )
    p50, p99 = percentiles(latencies) if latencies else (float("inf"), float("inf"))
    d50, d99 = percentiles(deliveries) if deliveries else (float("inf"), float("inf"))
    held = errors == 0 and p99 <= P99_LIMIT_S and d99 <= WATCH_P99_TARGET_S
    print(
        f"{args.matches} paced Play matches, {args.game}, {where}: {rate:,.0f} actions/s; send to answer "
        f"p50 {p50 * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms (target ≤ {P99_LIMIT_S * 1e3:.0f}); delivery to "
        f"the other seat p50 {d50 * 1e3:.1f} ms, p99 {d99 * 1e3:.1f} ms (≤ {WATCH_P99_TARGET_S * 1e3:.0f}); "
        f"{errors} errors; server CPU {server_cpu(per_action) * 1e3:.2f} ms per action "
        f"({_split(per_action)} µs); {'held' if held else 'missed'}"
    )


if __name__ == "__main__":
    main()
