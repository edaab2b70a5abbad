"""The production configuration (issue 35): section "cluster" of `make bench`.

Production runs a Redis Cluster and acknowledges an append only once a replica holds it
(`REDIS_WAIT_REPLICAS=1`). Here two stacks run side by side in the same run: the bench's usual one
(one Redis, AOF always) and one on a local cluster (`devstack.cluster`: 3 primaries, 1 replica
each, AOF always on every node) whose gateway waits for a replica; each with the Rattus Cartus
rules service and one gateway. The busy Play load (bench_play) at 1, 8, 32 and 128 matches runs on
one then the other, size by size, so each cluster figure sits beside the single-node figure taken
just before it; at 1 and 32 matches also the same cluster with appends as before issue 35 (each
alone with its own WAIT: GUILDHALL_APPEND_PIPELINE=0); then the paced Play ladder on each. The CPU
per action counts every cluster node (primaries and replicas: a replica's work is part of an
acknowledged append's cost). Quick (`make bench-quick`): 32 matches for a second each, no ladder.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.bench_path import _Cpu, _redis_pid
from benchmarks.bench_play import PACED, PLAY, paced_capacity, play_load, server_cpu, stack_for
from benchmarks.report import Figure, Report, cpu_of, own_cpu, percentiles
from devstack.cluster import LocalCluster, redis_cluster
from devstack.stack import Stack

SECTION = "cluster"
SIZES = (1, 8, 32, 128)
QUICK_SIZES = (32,)
# The gateway's settings on the production configuration (the prod overlay's).
CLUSTER_ENV = {"REDIS_CLUSTER": "1", "REDIS_WAIT_REPLICAS": "1"}
LABEL = "cluster 3x(1+1), WAIT 1"
# Before issue 35 each replicated append went alone with its own WAIT (and redis-py's SCRIPT EXISTS
# before it): GUILDHALL_APPEND_PIPELINE=0 restores that path, measured at these sizes (full run).
BEFORE = {"GUILDHALL_APPEND_PIPELINE": "0"}
BEFORE_LABEL = "each append alone with its WAIT (before issue 35)"
BEFORE_AT = (1, 32)


@dataclass
class _CpuGroups(_Cpu):
    """CPU seconds per group of processes (e.g. every cluster primary) over a window."""

    groups: dict[str, list[int]] = field(default_factory=dict)

    def begin(self) -> None:
        super().begin()
        for name, pids in self.groups.items():
            self.start[name] = sum(cpu_of(pid) for pid in pids)

    def end(self) -> dict[str, float]:
        used = {name: cpu_of(pid) - self.start[name] for name, pid in self.pids.items()}
        for name, pids in self.groups.items():
            used[name] = sum(cpu_of(pid) for pid in pids) - self.start[name]
        used["load generator"] = own_cpu() - self.start["load generator"]
        return used


def cluster_cpu(stack: Stack, game: str, cluster: LocalCluster) -> _CpuGroups:
    pids = {f"gateway-{n}": int(gateway.pid or 0) for n, gateway in enumerate(stack.gateways)}
    pids["rules service"] = int(stack.rules[game].pid or 0)
    groups = {
        "redis primaries": [int(n.server.pid or 0) for n in cluster.nodes if n.primary],
        "redis replicas": [int(n.server.pid or 0) for n in cluster.nodes if not n.primary],
    }
    return _CpuGroups(pids, groups=groups)


@contextlib.contextmanager
def cluster_stack(game: str) -> Iterator[tuple[Stack, _CpuGroups]]:
    """A stack as production runs it: a local cluster (AOF always on every node), a gateway that
    waits for one replica per append, the game's rules service."""
    with (
        redis_cluster(3, replicas_per_primary=1, appendonly=True) as cluster,
        stack_on(cluster, game) as (stack, cpu),
    ):
        yield stack, cpu


@contextlib.contextmanager
def stack_on(
    cluster: LocalCluster, game: str, env: dict[str, str] | None = None
) -> Iterator[tuple[Stack, _CpuGroups]]:
    """A gateway and rules service on `cluster`, with CLUSTER_ENV and `env`."""
    with stack_for(cluster.url, game, CLUSTER_ENV | (env or {})) as stack:
        yield stack, cluster_cpu(stack, game, cluster)


def _split(per_action: dict[str, float]) -> str:
    return ", ".join(f"{name} {value * 1e6:,.0f}" for name, value in per_action.items())


def run(
    report: Report,
    redis_url: str,
    game: str,
    players: int,
    quick: bool,
    *,
    sizes: Sequence[int] = SIZES,
    paced: bool = True,
) -> None:
    seconds = 1.0 if quick else 8.0
    with (
        stack_for(redis_url, game) as single,
        redis_cluster(3, replicas_per_primary=1, appendonly=True) as cluster,
        stack_on(cluster, game) as (clustered, clustered_cpu),
    ):
        single_cpu = _Cpu(
            {
                "gateway-0": int(single.gateways[0].pid or 0),
                "rules service": int(single.rules[game].pid or 0),
                "redis": _redis_pid(redis_url),
            }
        )
        for matches in sizes:
            measured: dict[str, Any] = {}
            for name, stack, cpu in (("one Redis", single, single_cpu), (LABEL, clustered, clustered_cpu)):
                measured[name] = asyncio.run(
                    play_load(stack.gateway_targets, stack.api_key, game, players, matches, seconds, cpu)
                )
            _report(report, game, players, matches, measured)
            if matches in BEFORE_AT and not quick:  # the same cluster, appends as before issue 35
                with stack_on(cluster, game, BEFORE) as (before, before_cpu):
                    measured[LABEL] = asyncio.run(
                        play_load(
                            before.gateway_targets,
                            before.api_key,
                            game,
                            players,
                            matches,
                            seconds,
                            before_cpu,
                        )
                    )
                _report(report, game, players, matches, measured, label=f"{LABEL}, {BEFORE_LABEL}")
        if paced and not quick:
            held: dict[str, int] = {}
            for name, stack, cpu in (("one Redis", single, single_cpu), (LABEL, clustered, clustered_cpu)):
                print(f"    paced ladder, {name}", flush=True)
                held[name] = paced_capacity(
                    report, stack.gateway_targets[0], stack.api_key, game, players, quick, cpu,
                    section=SECTION, label=name,
                )  # fmt: skip
            report.add(
                Figure(
                    SECTION,
                    f"paced Play matches held, {LABEL}",
                    held[LABEL],
                    "matches",
                    "one Redis, same run",
                    held["one Redis"],
                    f"ladder {', '.join(map(str, PACED))}; 1 action / match / 2 s, every seat on a Play "
                    "stream; held: zero errors, p99 submit ≤ 50 ms, delivery p99 ≤ 100 ms",
                )
            )


def _report(
    report: Report, game: str, players: int, matches: int, measured: dict[str, Any], label: str = LABEL
) -> None:
    size = f"{matches} match{'es' * (matches > 1)}"
    base_rate, base_latencies, base_cpu, _ = measured["one Redis"]
    rate, latencies, per_action, errors = measured[LABEL]
    b50, b99 = percentiles(base_latencies) if base_latencies else (float("nan"), float("nan"))
    p50, p99 = percentiles(latencies) if latencies else (float("nan"), float("nan"))
    print(
        f"    {size}: one Redis {base_rate:,.0f}/s p50 {b50 * 1e3:.1f} ms; {label} {rate:,.0f}/s "
        f"p50 {p50 * 1e3:.1f} ms ({rate / max(base_rate, 1e-9):.2f}x); {errors} errors",
        flush=True,
    )
    note = f"{game} {players}p, AOF always on every node; {errors} errors"
    report.add(
        Figure(SECTION, f"accepted actions/s, {size}, Play stream, {label}", rate, "actions/s",
               "one Redis, same run", base_rate, note)
    )  # fmt: skip
    for name, value, base in (("p50", p50, b50), ("p99", p99, b99)):
        report.add(
            Figure(SECTION, f"{name} send to answer, {size}, Play stream, {label}", value * 1e3, "ms",
                   "one Redis, same run", base * 1e3, note)
        )  # fmt: skip
    report.add(
        Figure(
            SECTION,
            f"server CPU per accepted action, {size}, Play stream, {label}",
            server_cpu(per_action) * 1e6,
            "µs",
            "one Redis, same run",
            server_cpu(base_cpu) * 1e6,
            f"µs per action: {_split(per_action)}; one Redis: {_split(base_cpu)}",
        )
    )


__all__ = ["CLUSTER_ENV", "LABEL", "PLAY", "cluster_stack", "run"]
