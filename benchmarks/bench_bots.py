"""Greedy against random: how often the greedy one-ply bot wins, per game and player count.

    .venv/bin/python -m benchmarks.bench_bots [--games rattus_cartus ys] [--matches 100] [--players 2 3 4]

Runs the rules in process for speed (no gateway, no Redis), but each bot sees exactly what a
client sees: the JSON view of its seat and the JSON legal actions, decoded. One seat is greedy,
the others random; the greedy seat rotates through every position. A match counts as a greedy
win when the greedy seat is among the winners (shared wins count for each winner; a Rattus
Cartus game where the plague takes everyone has no winner). The random baseline is what a random
seat would get in the same matches: 1/n of the decided ones, roughly.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

import msgspec

from guildhall_client.bots import GREEDY, Bot, has_greedy, make_bot
from services.kernel import GameSpec, SetupConfig
from services.registry import GAMES


@dataclass
class Figures:
    game: str
    players: int
    matches: int
    greedy_wins: int
    random_seat_wins: float  # mean wins of one random seat, for comparison
    no_winner: int
    actions: int
    seconds: float

    @property
    def greedy_rate(self) -> float:
        return self.greedy_wins / self.matches if self.matches else 0.0


def spec_for(game: str) -> GameSpec[Any]:
    """A registered game, or one whose rules package has landed but is not registered yet."""
    if game in GAMES:
        return GAMES[game]
    return importlib.import_module(f"services.{game}").GAME  # type: ignore[no-any-return]


def play(
    spec: GameSpec[Any], players: int, seed: int, bots: list[Bot], order_seed: int
) -> tuple[Any, list[int]]:
    """One match to the end, each bot seeing only its seat's JSON view and legal actions;
    returns (outcome, actions taken by each seat)."""
    state = spec.start(SetupConfig(players=players, seed=seed))
    codec = spec.codec
    order = random.Random(order_seed)
    actions = [0] * players
    while (outcome := spec.outcome(state)) is None:
        seat = order.choice(list(spec.active_players(state)))
        legal = spec.legal_actions(state, seat)
        view = msgspec.json.decode(codec.encode_json(spec.view(state, seat)))
        legal_json = [msgspec.json.decode(codec.encode_json(a)) for a in legal]
        choice = bots[seat].choose(view, legal_json, seat)
        events = spec.decide(state, seat, legal[choice])
        if not isinstance(events, list | tuple):
            raise AssertionError(f"a listed legal action was rejected: {events}")
        state = spec.evolve(state, events)
        actions[seat] += 1
    return outcome, actions


def measure(game: str, players: int, matches: int, base_seed: int = 1) -> Figures:
    spec = spec_for(game)
    wins = no_winner = actions = 0
    random_wins = 0.0
    started = time.perf_counter()
    for m in range(matches):
        greedy_seat = m % players
        kinds = ["greedy" if p == greedy_seat else "random" for p in range(players)]
        bots = [make_bot(kind, game, seed=base_seed * 1_000_003 + m * 17 + p) for p, kind in enumerate(kinds)]
        outcome, n = play(spec, players, base_seed * 7919 + m, bots, order_seed=m)
        actions += sum(n)
        winners = set(outcome.winners)
        wins += greedy_seat in winners
        no_winner += not winners
        random_wins += sum(1 for p in winners if p != greedy_seat) / (players - 1)
    seconds = time.perf_counter() - started
    return Figures(game, players, matches, wins, random_wins, no_winner, actions, seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", nargs="*", default=sorted(set(GAMES) | set(GREEDY)), help="games (default: all with a bot)"
    )
    parser.add_argument("--matches", type=int, default=100, help="matches per game and player count")
    parser.add_argument("--players", nargs="*", type=int, default=None, help="player counts (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    rows = []
    for game in args.games:
        spec = spec_for(game)
        if not has_greedy(game):
            print(f"{game}: no greedy bot yet (random fallback); skipped", file=sys.stderr)
            continue
        for players in args.players or spec.player_counts:
            if players not in spec.player_counts:
                continue
            figures = measure(game, players, args.matches, args.seed)
            rows.append(figures)
            if not args.json:
                random_rate = figures.random_seat_wins / figures.matches
                print(
                    f"{game:15} {players}p  greedy won {figures.greedy_wins:4}/{figures.matches}"
                    f" ({figures.greedy_rate:6.1%}); a random seat {random_rate:6.1%};"
                    f" no winner {figures.no_winner}; {figures.actions / figures.seconds:,.0f} actions/s",
                    flush=True,
                )
    if args.json:
        print(json.dumps([asdict(r) | {"greedy_rate": r.greedy_rate} for r in rows], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
