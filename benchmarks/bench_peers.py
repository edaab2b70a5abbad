"""A peer in the benchmark (issue 25): boardgame.io beside Guildhall, same machine, same run.

`make bench-peers` (and section "peers" of `make bench`). boardgame.io is installed with npm into
benchmarks/peers/boardgameio/ (its version pinned by the committed package-lock.json; `npm ci`
runs when node_modules is missing). There, written here against its public API: a counter game
two players take turns to increase (each move decided by the server only: one round trip per
move), its own Server in memory or on files (FlatFile, node-persist's write queue off, so each
move is written before the next is taken), and a driver of its public Client over its SocketIO
transport, one client per seat, keeping 1, 8, 32 and 128 matches always busy. At each size, right
after the peer, Guildhall on a stack of its own (Redis with AOF `appendfsync always`, the Rattus
Cartus rules service, one gateway): the Play stream (a stream per seat) and the unary path
(SubmitAction with return_view). Then, every size again, the Play stream on the production
configuration (issue 35: a local Redis Cluster, 3 primaries with a replica each, AOF always, the
gateway waiting for a replica per append).
Reported: each figure with its ratio to boardgame.io on files (the durable peer),
the p50/p99 from a move to its answer, and the server CPU per accepted action or move (for
Guildhall: gateway + rules service + Redis; for boardgame.io: its one process).

A machine without node (or npm) says so and skips the boardgame.io half only: Guildhall's
figures are still measured, without a peer to compare to.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from benchmarks.bench_cluster import LABEL, cluster_stack
from benchmarks.bench_path import _submit_load
from benchmarks.bench_play import _cpu_of, play_load, server_cpu, stack_for
from benchmarks.report import Figure, Report, cpu_of, percentiles
from devstack.processes import free_port

PEERS = "peers"
PEER_DIR = Path(__file__).resolve().parent / "peers" / "boardgameio"
SIZES = (1, 8, 32, 128)
CLUSTER_PLAY = f"Play stream, {LABEL}"  # the production configuration's row
QUICK_SIZES = (1, 32)
STORAGES = ("memory", "file")
CPU_AT = 32


def node_missing() -> str | None:
    """Why the peer cannot run here, or None."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


def install() -> None:
    """boardgame.io as the lockfile pins it (npm ci), once."""
    if (PEER_DIR / "node_modules" / "boardgame.io").is_dir():
        return
    subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=PEER_DIR, check=True, timeout=600
    )


class _PeerServer:
    """boardgame.io's server in a node process on a free port."""

    def __init__(self, storage: str, directory: Path) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            ["node", "server.js", "--port", str(self.port), "--storage", storage, "--dir", str(directory)],
            cwd=PEER_DIR,
            env={**os.environ, "NODE_ENV": "production"},  # as deployed: no per-action debug log
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._wait_for("READY", 30)

    def _wait_for(self, word: str, timeout_s: float) -> None:
        out: IO[str] | None = self.process.stdout
        assert out is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            line = out.readline()
            if not line:
                raise RuntimeError(f"boardgame.io's server exited ({self.process.poll()})")
            if word in line:
                return
        raise RuntimeError(f"boardgame.io's server did not say {word} in {timeout_s} s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


def _drive(server: _PeerServer, matches: int, seconds: float) -> tuple[dict[str, Any], float]:
    """One load against the peer: the driver's figures and the server's CPU seconds per move."""
    warmup = min(2.0, seconds / 2)
    driver = subprocess.Popen(
        [
            "node", "driver.js", "--port", str(server.port), "--matches", str(matches),
            "--seconds", str(seconds), "--warmup", str(warmup),
        ],
        cwd=PEER_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert driver.stdout is not None
    started = None
    result: dict[str, Any] = {}
    for line in driver.stdout:
        if line.startswith("MEASURING"):
            started = cpu_of(server.process.pid)
        elif line.startswith("{"):
            spent = cpu_of(server.process.pid) - (started or 0.0)
            result = json.loads(line)
            break
    driver.wait(60)
    if not result:
        raise RuntimeError(f"the peer's driver failed: {driver.stderr.read() if driver.stderr else ''}")
    return result, spent / max(result["moves"], 1)


def run(
    report: Report, redis_url: str, game: str, players: int, quick: bool, sizes: Sequence[int] = ()
) -> None:
    sizes = tuple(sizes) or (QUICK_SIZES if quick else SIZES)
    seconds = 2.0 if quick else 10.0
    peer: dict[tuple[str, int], tuple[dict[str, Any], float]] = {}
    ours: dict[tuple[str, int], tuple[float, list[float], dict[str, float], int]] = {}
    missing = node_missing()
    if missing:
        print(f"      boardgame.io skipped: {missing}", flush=True)
        report.add(Figure(PEERS, "boardgame.io (the peer)", 0, "", note=f"skipped: {missing}"))
    else:
        install()
    saved = os.environ.get("REDIS_URL")
    try:
        # Size by size, the peer and then Guildhall's one-Redis stack, each fresh: the ratio at a
        # size compares two loads a minute apart, not four minutes (this host's speed moves by a
        # quarter within an hour; issue 45).
        for matches in sizes:
            if not missing:
                for storage in STORAGES:
                    peer[storage, matches] = _peer_load(storage, matches, seconds)
            ours |= _guildhall(redis_url, game, players, matches, seconds)
        # The production configuration (issue 35): a Redis Cluster, each append held by a
        # replica; one cluster for every size (starting one takes a while).
        with cluster_stack(game) as (stack, cpu):
            for matches in sizes:
                ours[CLUSTER_PLAY, matches] = asyncio.run(
                    play_load(stack.gateway_targets, stack.api_key, game, players, matches, seconds, cpu)
                )
    finally:
        if saved is None:
            os.environ.pop("REDIS_URL", None)
        else:
            os.environ["REDIS_URL"] = saved
    _report(report, game, players, sizes, peer, ours)


def _peer_load(storage: str, matches: int, seconds: float) -> tuple[dict[str, Any], float]:
    # A fresh server each time: one that served a load before (its clients gone at once) ran
    # the next one at a fraction of the rate.
    with tempfile.TemporaryDirectory(prefix="bgio-") as directory:
        server = _PeerServer(storage, Path(directory))
        try:
            return _drive(server, matches, seconds)
        finally:
            server.stop()


def _guildhall(
    redis_url: str, game: str, players: int, matches: int, seconds: float
) -> dict[tuple[str, int], tuple[float, list[float], dict[str, float], int]]:
    """The Play stream and the unary path at one size, on a stack of their own (as the peer's
    server is its own at each size)."""
    results = {}
    with stack_for(redis_url, game) as stack:
        targets, key = stack.gateway_targets, stack.api_key
        cpu = _cpu_of(stack, game, redis_url)
        for name, load in (("Play stream", play_load), ("unary", _submit_load)):
            results[name, matches] = asyncio.run(load(targets, key, game, players, matches, seconds, cpu))
    return results


def _report(
    report: Report,
    game: str,
    players: int,
    sizes: Sequence[int],
    peer: dict[tuple[str, int], tuple[dict[str, Any], float]],
    ours: dict[tuple[str, int], tuple[float, list[float], dict[str, float], int]],
) -> None:
    for matches in sizes:
        size = f"{matches} match{'es' * (matches > 1)}"
        on_files = peer.get(("file", matches))
        baseline = on_files[0]["moves_per_s"] if on_files else None
        for storage in STORAGES:
            if (storage, matches) not in peer:
                continue
            figures, per_move = peer[storage, matches]
            report.add(
                Figure(
                    PEERS,
                    f"boardgame.io, {'in memory' if storage == 'memory' else 'file storage'}, {size}",
                    figures["moves_per_s"],
                    "moves/s",
                    "boardgame.io file storage" if storage == "memory" else "",
                    baseline if storage == "memory" else None,
                    f"counter game, 2 seats, socket.io; p50 {figures['p50_ms'] or 0:.1f} ms, "
                    f"p99 {figures['p99_ms'] or 0:.1f} ms; server CPU {per_move * 1e6:,.0f} µs per move",
                )
            )
        for name in ("Play stream", "unary", CLUSTER_PLAY):
            if (name, matches) not in ours:
                continue
            rate, latencies, per_action, errors = ours[name, matches]
            p50, p99 = percentiles(latencies) if latencies else (float("nan"), float("nan"))
            report.add(
                Figure(
                    PEERS,
                    f"Guildhall, {name}, {size}",
                    rate,
                    "actions/s",
                    "boardgame.io file storage" if baseline else "",
                    baseline,
                    f"{game} {players}p through the gateway, AOF always"
                    f"{' on every node' if name == CLUSTER_PLAY else ''}; p50 {p50 * 1e3:.1f} ms, "
                    f"p99 {p99 * 1e3:.1f} ms; server CPU {server_cpu(per_action) * 1e6:,.0f} µs per action; "
                    f"{errors} errors",
                )
            )
    if CPU_AT not in sizes:
        return
    on_files = peer.get(("file", CPU_AT))
    for name in ("Play stream", "unary", CLUSTER_PLAY):
        if (name, CPU_AT) not in ours:
            continue
        _, _, per_action, _ = ours[name, CPU_AT]
        split = ", ".join(f"{k} {v * 1e6:,.0f}" for k, v in per_action.items())
        report.add(
            Figure(
                PEERS,
                f"server CPU per accepted action, Guildhall {name}, {CPU_AT} matches",
                server_cpu(per_action) * 1e6,
                "µs",
                "boardgame.io file storage, its server per move" if on_files else "",
                on_files[1] * 1e6 if on_files else None,
                f"gateway + rules service + Redis; µs per action: {split}; target 1,600 µs (issue 45)",
            )
        )
