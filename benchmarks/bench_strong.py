"""Strong against greedy (and greedy against random for scale), resumable: `make bench-bots`.

    .venv/bin/python -m benchmarks.bench_strong [--games ys bruges] [--heads-up 100] [--four 50]
        [--budget 0.2] [--pairings strong-greedy-2 ...] [--workers 2] [--hours 3] [--summary-only]

Every match is identified by (game, pairing, seed) and appended to bench/bots/results.jsonl the
moment it ends, so a run can be stopped at any time and the next one carries on where the sample
stops; bench/bots/summary.md is regenerated from the whole file. Pairings:

- `strong-greedy-2`: heads-up, the strong seat alternates with the seed;
- `strong-greedy-4`: one strong seat (rotating) against three greedy ones;
- `greedy-random-2`, `greedy-random-4`: the same with greedy against random, for scale.

The strong bot's budget is CPU time of its own thread (time.thread_time), so two workers on a
machine other people share measure the same bot whatever the load; production uses wall time.
Rules run in process, and each bot sees only its seat's JSON view and the JSON legal actions.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.bench_bots import play
from guildhall_client.bots import Bot, make_bot
from guildhall_client.bots.strong import STRONG_GAMES, StrongBot, strong_version
from services.registry import GAMES

TARGET_BUDGET = 0.2  # seconds per decision the targets are measured at (issue 44)
RESULTS = Path("bench/bots/results.jsonl")
SUMMARY = Path("bench/bots/summary.md")
PAIRINGS = {
    "strong-greedy-2": ("strong", "greedy", 2),
    "strong-greedy-4": ("strong", "greedy", 4),
    "greedy-random-2": ("greedy", "random", 2),
    "greedy-random-4": ("greedy", "random", 4),
}


def play_match(game: str, pairing: str, seed: int, budget: float) -> dict[str, Any]:
    """One seeded match to the end: the focus bot (strong or greedy) in seat `seed % players`."""
    focus, rest, players = PAIRINGS[pairing]
    focus_seat = seed % players
    bots: list[Bot] = []
    for seat in range(players):
        kind = focus if seat == focus_seat else rest
        bot_seed = seed * 10 + seat
        if kind == "strong":
            bots.append(StrongBot(game, bot_seed, budget_s=budget, clock=time.thread_time))
        else:
            bots.append(make_bot(kind, game, bot_seed))
    started = time.perf_counter()
    outcome, decisions = play(GAMES[game], players, seed, bots, order_seed=seed)
    record: dict[str, Any] = {
        "game": game,
        "pairing": pairing,
        "players": players,
        "seed": seed,
        "seats": [focus if s == focus_seat else rest for s in range(players)],
        "focus_seat": focus_seat,
        "winners": list(outcome.winners),
        "scores": [r.score for r in outcome.results],
        "decisions": decisions,
        "budget_s": budget,
        "version": strong_version(game),
        "wall_s": round(time.perf_counter() - started, 2),
    }
    strong = bots[focus_seat]
    if isinstance(strong, StrongBot) and strong.decisions:
        times = sorted(d.seconds for d in strong.decisions)
        record["searched"] = len(times)
        record["search_p50_s"] = round(times[len(times) // 2], 4)
        record["search_p95_s"] = round(times[min(len(times) - 1, int(len(times) * 0.95))], 4)
        record["rounds_p50"] = sorted(d.rounds for d in strong.decisions)[len(times) // 2]
        record["rollouts_p50"] = sorted(d.rollouts for d in strong.decisions)[len(times) // 2]
    return record


def _run(job: tuple[str, str, int, float]) -> dict[str, Any]:
    return play_match(*job)


def load() -> list[dict[str, Any]]:
    if not RESULTS.exists():
        return []
    return [json.loads(line) for line in RESULTS.read_text().splitlines() if line.strip()]


def todo(
    games: list[str], wanted: dict[str, int], done: set[tuple[str, str, int]], budget: float
) -> Iterator[tuple[str, str, int, float]]:
    """Missing matches, interleaved across games and pairings so every figure grows together."""
    queues = []
    for game in games:
        for pairing, count in wanted.items():
            if PAIRINGS[pairing][2] not in GAMES[game].player_counts:
                continue
            queues.append(
                [(game, pairing, s, budget) for s in range(count) if (game, pairing, s) not in done]
            )
    while any(queues):
        for q in queues:
            if q:
                yield q.pop(0)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denominator = 1 + z * z / n
    return (centre - margin) / denominator, (centre + margin) / denominator


def _current(record: dict[str, Any], budget: float) -> bool:
    """A result of this budget and of the bot as it plays now (greedy-random rows always count)."""
    if record.get("budget_s") != budget:
        return False
    return record["pairing"].startswith("greedy") or record.get("version") == strong_version(record["game"])


def focus_share(record: dict[str, Any]) -> float:
    """The focus seat's share of the win: 1 alone, 1/k on a k-way shared win, 0 otherwise."""
    winners = record["winners"]
    return 1.0 / len(winners) if record["focus_seat"] in winners else 0.0


def summarize(records: list[dict[str, Any]]) -> str:
    """One table per budget measured (the 0.2 s of the targets first), of the current bot."""
    measured = {
        r["budget_s"] for r in records if r["pairing"].startswith("strong") and _current(r, r["budget_s"])
    }
    budgets = sorted(measured | {TARGET_BUDGET}, key=lambda b: (b != TARGET_BUDGET, b))
    lines = [
        "# Strong bot against greedy (generated by `make bench-bots`; do not edit)",
        "",
        "Strong bot versions (search.game kit): "
        + ", ".join(f"{game} {strong_version(game)}" for game in STRONG_GAMES)
        + ".",
        "Budget: CPU time of the strong bot's thread per decision.",
        "A shared win counts as the seat's share (a two-way tie is half a win). Interval: Wilson 95%.",
        "Search p95 is the largest per-match p95 of the strong seat's decision times; rounds are",
        "determinizations every candidate was played out in, rollouts the playouts of a decision.",
    ]
    for budget in budgets:
        lines += [
            "",
            f"## {budget} s per decision" + ("" if budget == TARGET_BUDGET else " (a smaller sample)"),
            "",
            "| game | pairing | matches | focus seat wins | rate | 95% interval | fair share "
            "| search p50 / p95 s | rounds / rollouts p50 |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for game in STRONG_GAMES:
            for pairing in PAIRINGS:
                rows = [
                    r
                    for r in records
                    if r["game"] == game and r["pairing"] == pairing and _current(r, budget)
                ]
                if rows:
                    lines.append(_row(game, pairing, rows))
    return "\n".join(lines) + "\n"


def _row(game: str, pairing: str, rows: list[dict[str, Any]]) -> str:
    wins = sum(focus_share(r) for r in rows)
    low, high = wilson(wins, len(rows))
    timing = work = "-"
    searched = [r for r in rows if "search_p50_s" in r]
    if searched:
        p50 = statistics.median(r["search_p50_s"] for r in searched)
        p95 = max(r["search_p95_s"] for r in searched)
        timing = f"{p50:.3f} / {p95:.3f}"
        rounds = statistics.median(r["rounds_p50"] for r in searched)
        rollouts = statistics.median(r["rollouts_p50"] for r in searched)
        work = f"{rounds:g} / {rollouts:g}"
    players = PAIRINGS[pairing][2]
    return (
        f"| {game} | {pairing} | {len(rows)} | {wins:g} | {wins / len(rows):.0%} | "
        f"{low:.0%}-{high:.0%} | {1 / players:.0%} | {timing} | {work} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="*", default=list(STRONG_GAMES))
    parser.add_argument("--heads-up", type=int, default=100)
    parser.add_argument("--four", type=int, default=50)
    parser.add_argument("--budget", type=float, default=TARGET_BUDGET)
    parser.add_argument("--pairings", nargs="*", default=list(PAIRINGS), choices=list(PAIRINGS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hours", type=float, default=None, help="stop taking new matches after this")
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args(argv)
    records = load()
    if not args.summary_only:
        counts = {2: args.heads_up, 4: args.four}
        wanted = {pairing: counts[PAIRINGS[pairing][2]] for pairing in args.pairings}
        done = {(r["game"], r["pairing"], r["seed"]) for r in records if _current(r, args.budget)}
        jobs = list(todo(args.games, wanted, done, args.budget))
        deadline = time.monotonic() + args.hours * 3600 if args.hours else math.inf
        print(f"{len(jobs)} matches to play; appending to {RESULTS}", flush=True)
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        pool = multiprocessing.get_context("spawn").Pool(args.workers, maxtasksperchild=20)
        with pool, RESULTS.open("a") as out:
            for record in pool.imap_unordered(_run, jobs):
                out.write(json.dumps(record, separators=(",", ":")) + "\n")
                out.flush()
                records.append(record)
                print(
                    f"{record['game']} {record['pairing']} seed {record['seed']}: "
                    f"winners {record['winners']}",
                    flush=True,
                )
                SUMMARY.write_text(summarize(records))
                if time.monotonic() > deadline:
                    pool.terminate()
                    break
    SUMMARY.write_text(summarize(records))
    print(SUMMARY.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
