"""The same-run A/B of issue 45's CPU targets: this tree against another commit (main by default),
the busy Play load at 32 matches (`benchmarks/play32.py`: a fresh stack, 2 s warm-up; `--matches`
for another size) run in one tree then the other, pair after pair, so both sides see the same
machine.

    python -m benchmarks.ab_play                        # against main: 3 pairs, 8 s, Rattus Cartus and Ys
    python -m benchmarks.ab_play --base 62a7b77 --pairs 5 --seconds 10 --games ys

The base commit is exported once (`git archive`) into var/ab/<commit>/ with its gRPC code
generated there (the Makefile's protoc commands, with this venv's grpc_tools). Each run is a
process of its own with its tree first on the path, so the stack it starts (rules service,
gateway) runs that tree's code. Printed per game: each run's accepted actions/s, p50, p99 and
CPU per accepted action of the gateway, the rules service and Redis (ms, from /proc over the
measured window), the medians of each side, and this tree's ratio to the base in each pair. The CPU per
action is the figure to read on a shared machine: it moves far less with the load of other work
than the rate or the latencies do (docs/performance.md, round 7).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROCESSES = ("gateway-0", "rules service", "redis")


def export(base: str) -> Path:
    """The base commit's tree with its generated code, under var/ab/ (made once per commit)."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{base}^{{commit}}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    tree = ROOT / "var" / "ab" / commit[:12]
    if (tree / "gen" / ".stamp").is_file():
        return tree
    tree.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=ROOT, check=True, capture_output=True
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tree, filter="data")
    protos = sorted(str(p.relative_to(tree)) for p in (tree / "protos").rglob("*.proto"))
    gen = tree / "gen"
    gen.mkdir(exist_ok=True)
    protoc = [sys.executable, "-m", "grpc_tools.protoc", "-Iprotos"]
    plugin = Path(sys.executable).parent / "protoc-gen-connect-python"
    connect = [p for p in protos if p.endswith(("gateway/v1/gateway.proto", "admin/v1/admin.proto"))]
    for command in (
        [*protoc, "--python_out=gen", "--pyi_out=gen", "--grpc_python_out=gen", *protos],
        [*protoc, "--include_imports", "--include_source_info",
         "--descriptor_set_out=gen/guildhall/descriptors.binpb", *protos],
        [*protoc, f"--plugin=protoc-gen-connect-python={plugin}", "--connect-python_out=gen", *connect],
    ):  # fmt: skip
        subprocess.run(command, cwd=tree, check=True)
    (gen / ".stamp").touch()
    return tree


def run_once(tree: Path, game: str, seconds: float, matches: int) -> dict[str, Any]:
    """One busy Play load on a fresh stack of `tree` (play32.py's JSON line)."""
    env = os.environ | {"PYTHONPATH": f"{tree}{os.pathsep}{tree / 'gen'}"}
    done = subprocess.run(
        # This tree's script in both: it imports the load (benchmarks.bench_play) from the tree
        # first on the path, so each side drives its own stack its own way.
        [sys.executable, str(ROOT / "benchmarks" / "play32.py"), str(seconds), game, str(matches)],
        cwd=tree, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"the run in {tree} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _ms(result: dict[str, Any], process: str) -> float:
    return float(result["cpu_per_action"].get(process, 0.0)) * 1e3


def report(game: str, matches: int, runs: list[dict[str, dict[str, Any]]]) -> None:
    """Every run, each side's medians, and this tree's ratio to the base in each pair."""
    print(f"\n{game}, {matches} busy matches, Play stream: CPU per accepted action (ms)")
    head = f"{'pair':>4} {'side':>5} {'actions/s':>9} {'p50 ms':>7} {'p99 ms':>7} "
    print(head + " ".join(f"{p:>13}" for p in PROCESSES))
    for number, pair in enumerate(runs, 1):
        for side in ("base", "this"):
            r = pair[side]
            cpu = " ".join(f"{_ms(r, p):13.3f}" for p in PROCESSES)
            print(f"{number:>4} {side:>5} {r['rate']:9.0f} {r['p50_ms']:7.1f} {r['p99_ms']:7.1f} {cpu}")
    for side in ("base", "this"):
        medians = ", ".join(
            f"{p} {statistics.median(_ms(pair[side], p) for pair in runs):.3f}" for p in PROCESSES
        )
        rate = statistics.median(pair[side]["rate"] for pair in runs)
        print(f"median, {side}: {medians} ms; {rate:,.0f} actions/s")
    measures = (("actions/s", lambda r: r["rate"]), ("p50", lambda r: r["p50_ms"]))
    for name, of in (*measures, *((p, lambda r, p=p: _ms(r, p)) for p in PROCESSES)):
        ratios = [of(pair["this"]) / of(pair["base"]) for pair in runs if of(pair["base"])]
        shown = ", ".join(f"{x:.2f}" for x in ratios)
        print(f"this / base, {name}: {shown} (median {statistics.median(ratios):.2f}, {len(ratios)} pairs)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", default="main", help="the commit to compare with (default: main)")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0, help="measured window of each run")
    parser.add_argument("--games", nargs="*", default=["rattus_cartus", "ys"])
    parser.add_argument("--matches", type=int, default=32, help="busy matches (32: the targets')")
    args = parser.parse_args()
    base = export(args.base)
    for game in args.games:
        runs = []
        for number in range(args.pairs):
            # Alternate which side goes first: a load that rises or falls over a pair then favours
            # neither side.
            order = ("base", "this") if number % 2 == 0 else ("this", "base")
            pair = {
                side: run_once(base if side == "base" else ROOT, game, args.seconds, args.matches)
                for side in order
            }
            runs.append(pair)
            print(f"{game} pair {number + 1}: " + ", ".join(
                f"{side} {pair[side]['rate']:,.0f}/s gateway {_ms(pair[side], 'gateway-0'):.3f} ms "
                f"rules {_ms(pair[side], 'rules service'):.3f} ms" for side in ("base", "this")
            ), flush=True)  # fmt: skip
        report(game, args.matches, runs)


if __name__ == "__main__":
    main()
