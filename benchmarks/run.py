"""`make bench`: every benchmark section, each figure beside its baseline; writes
bench/results.json and bench/results.md. `make bench-quick` (or --quick) runs in under a minute.

Sections: rules (per game, in process and over gRPC), eventstore (append beside bare XADD,
reads), path (SubmitAction through the gateway at 1, 8, 32 and 128 always-busy matches beside a
bare gRPC call, CPU per action split by process), capacity (paced matches with every seat
watching; then 10,000 spectator Watch streams on one gateway, 1,000 with --quick), webhooks
(delivery latency p50/p99; the action path with webhooks on beside off), verify (an exported
1,000-event match verified offline beside the bare re-execution of its actions), play (the Play
stream beside the unary path; a watched action beside a busy one, the fan-out on and off), cluster
(the Play stream and the paced ladder on a local Redis Cluster whose gateway waits for a replica,
REDIS_WAIT_REPLICAS=1, as production runs, beside one Redis in the same run), peers
(boardgame.io in memory and on files beside Guildhall's Play stream and unary path, `make
bench-peers`; skipped, saying so, where node is not installed), memory (the gateway's RSS and
Redis's bytes per live match at 1,000 and 10,000 live matches, 200 and 1,000 with --quick, and
the gateway's cached bytes per cached match), backup (a snapshot taken and restored, beside DUMP and
RESTORE of the same keys by Redis alone).

Usage: python -m benchmarks.run [--quick] [--sections rules eventstore ...]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from benchmarks import (
    bench_backup,
    bench_cluster,
    bench_eventstore,
    bench_memory,
    bench_path,
    bench_peers,
    bench_play,
    bench_rules,
    bench_verify,
    bench_webhooks,
)
from benchmarks.report import RESULTS_DIR, Report
from devstack.redis import redis_server_process
from services.observability import configure_logging
from services.registry import GAMES
from services.runtime import tune_gc

SECTIONS = (
    "rules", "eventstore", "path", "capacity", "webhooks", "verify", "play", "cluster", "peers", "memory",
    "backup",
)  # fmt: skip
# The whole path is measured with this game: the figures were taken with it.
PATH_GAME, PATH_PLAYERS = "rattus_cartus", 2
# The whole path again at 32 matches in other set-ups, beside the default stack's figures:
# (label, bench_path.run settings, full run only). Two of them undo one of issue 14's levers.
VARIANTS: tuple[tuple[str, dict[str, Any], bool], ...] = (
    ("threaded rules server, unary calls", {"env": bench_path.LEVERS_OFF}, False),
    ("asyncio loop, stock GC", {"env": bench_path.RUNTIME_OFF}, True),
    ("", {"gateways": 2}, True),  # does a second gateway process pay? (labelled by its count)
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer samples: under a minute")
    parser.add_argument("--sections", nargs="*", default=list(SECTIONS), choices=SECTIONS)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="where results.{json,md} go")
    args = parser.parse_args()
    configure_logging("bench", "warning")
    # The load generator's collector is tuned like the servers' (services/runtime.py): its own
    # pauses would otherwise enter the latencies it measures.
    tune_gc()
    report = Report(quick=args.quick)
    for number, section in enumerate(args.sections, start=1):
        started = time.perf_counter()
        print(f"[{number}/{len(args.sections)}] {section}", flush=True)
        if section == "rules":
            bench_rules.run(report, list(GAMES), args.quick)
        elif section == "verify":
            bench_verify.run(report, args.quick)
        elif section == "backup":  # its own Redis servers (a source, two fresh targets)
            bench_backup.run(report, args.quick)
        elif section == "eventstore":
            with redis_server_process(appendonly=True) as url:
                bench_eventstore.run(report, url, 0.5 if args.quick else 3.0)
            bench_eventstore.run_cluster_wait(report, 0.5 if args.quick else 3.0)
        elif section == "webhooks":
            with redis_server_process(appendonly=True) as url:
                bench_webhooks.run(report, url, args.quick)
        elif section == "play":
            with redis_server_process(appendonly=True) as url:
                sizes = bench_play.QUICK_SIZES if args.quick else bench_play.SIZES
                bench_play.run(report, url, PATH_GAME, PATH_PLAYERS, args.quick, sizes=sizes)
        elif section == "cluster":  # the production configuration beside one Redis, same run
            with redis_server_process(appendonly=True) as url:
                bench_cluster.run(
                    report, url, PATH_GAME, PATH_PLAYERS, args.quick,
                    sizes=bench_cluster.QUICK_SIZES if args.quick else bench_cluster.SIZES,
                )  # fmt: skip
        elif section == "memory":
            with redis_server_process(appendonly=False) as url:  # bytes, not fsyncs: no AOF
                bench_memory.run(report, url, PATH_GAME, PATH_PLAYERS, args.quick)
        elif section == "peers":
            with redis_server_process(appendonly=True) as url:
                bench_peers.run(report, url, PATH_GAME, PATH_PLAYERS, args.quick)
        elif section == "capacity" and "path" in args.sections:
            print("      measured on the path section's stack", flush=True)
        elif section in ("path", "capacity"):
            with redis_server_process(appendonly=True) as url:
                # One stack for both sections when both run: starting one costs seconds.
                bench_path.run(
                    report,
                    url,
                    PATH_GAME,
                    PATH_PLAYERS,
                    args.quick,
                    sizes=(bench_path.QUICK_SIZES if args.quick else bench_path.SIZES)
                    if section == "path"
                    else (),
                    capacity="capacity" in args.sections,
                    # the bot's flow before return_view (a GetView before every action), same stack
                    getview_each_at=(32,) if section == "path" else (),
                )
                if section == "path":  # the same load at 32 matches, other set-ups, same run
                    for label, settings, full_only in VARIANTS:
                        if args.quick and full_only:
                            continue
                        bench_path.run(
                            report, url, PATH_GAME, PATH_PLAYERS, args.quick,
                            sizes=(32,), capacity=False, label=label, **settings,
                        )  # fmt: skip
        print(f"      ({time.perf_counter() - started:.0f} s)", flush=True)
    json_path, md_path = report.write(args.out)
    print(f"wrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
