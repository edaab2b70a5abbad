"""`make demo`: every registered game played to the end by random bots, over the real stack.

It starts Redis and one rules service process per game, plays one complete match
per game with bots that pick uniformly among the legal actions (asked of the rules
service over gRPC), stores every event in the match's Redis stream, then replays
each stream from scratch, checks the replayed state equals the live one byte for
byte, verifies the hash chain, and prints a summary.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec
import redis

from gateway.eventstore.base import MatchKey
from gateway.eventstore.redis_store import RedisEventStore
from gateway.handlers import Matches, Submitted
from gateway.rules_client import RulesClient
from gateway.stack import Stack
from services.kernel import Outcome
from services.observability import configure_logging

TENANT = "demo"


@dataclass
class MatchReport:
    game: str
    players: int
    seed: int
    actions: int
    events: int
    outcome: Outcome
    replay_equal: bool
    audit_ok: bool
    seconds: float


class Progress:
    """One status line per match, redrawn in place on a terminal, every few seconds otherwise."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.tty = sys.stdout.isatty()
        self._last = 0.0
        self._started = time.monotonic()

    def update(self, actions: int, events: int, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < (0.1 if self.tty else 5.0):
            return
        self._last = now
        rate = actions / max(now - self._started, 1e-9)
        line = f"  {self.label}: {actions} actions, {events} events ({rate:,.0f} actions/s)"
        print(f"\r{line}\033[K" if self.tty else line, end="" if self.tty else "\n", flush=True)

    def done(self, message: str) -> None:
        print(f"\r  {self.label}: {message}\033[K" if self.tty else f"  {self.label}: {message}", flush=True)


def play_match(matches: Matches, client: RulesClient, game: str, players: int, seed: int) -> MatchReport:
    """Random bots play one match through the gateway's use cases; then replay and audit it."""
    bots = random.Random(seed)
    key = MatchKey(TENANT, f"{game}-{uuid.uuid4().hex[:12]}")
    started = time.monotonic()
    match = matches.create(key, game, players, seed, command_id=uuid.uuid4().hex)
    progress = Progress(f"{game} ({players} players, seed {seed})")
    actions = 0
    while not match.status.finished:
        seat = bots.choice(match.status.active_players)
        action = bots.choice(client.legal_actions(match.state, seat))
        result = matches.submit(key, seat, action, command_id=uuid.uuid4().hex)
        if not isinstance(result, Submitted):
            raise RuntimeError(f"{game}: a listed legal action was rejected: {result}")
        match = result.match
        actions += 1
        progress.update(actions, match.version)
    progress.update(actions, match.version, force=True)
    replayed = matches.replay(key)
    audit = matches.audit(key)
    report = MatchReport(
        game=game,
        players=players,
        seed=seed,
        actions=actions,
        events=match.version,
        outcome=msgspec.json.decode(match.status.outcome, type=Outcome),
        replay_equal=replayed.state.state == match.state.state and replayed.version == match.version,
        audit_ok=audit.ok,
        seconds=time.monotonic() - started,
    )
    progress.done(f"finished in {report.seconds:.1f}s, {report.events} events")
    return report


def render(reports: Sequence[MatchReport]) -> str:
    lines = ["", "Guildhall demo: one match per game, replayed from Redis Streams", ""]
    for r in reports:
        winners = ", ".join(f"seat {w}" for w in r.outcome.winners) or "nobody (all lost)"
        lines.append(f"{r.game}: {r.players} players, seed {r.seed}")
        lines.append(f"  winner: {winners}")
        for result in sorted(r.outcome.results, key=lambda x: -x.score):
            fate = "  (eliminated)" if result.eliminated else ""
            parts = ", ".join(f"{k} {v}" for k, v in result.breakdown.items() if v)
            facts = "".join(f", {k} {v}" for k, v in result.facts.items())
            lines.append(f"    seat {result.player}: {result.score:>3} points{fate}  [{parts}]{facts}")
        lines.append(f"  {r.actions} actions, {r.events} events in the stream, {r.seconds:.1f}s")
        lines.append(
            f"  replay check: {'OK, replayed state equals the live state' if r.replay_equal else 'FAILED'}"
        )
        lines.append(f"  audit (hash chain): {'OK' if r.audit_ok else 'FAILED'}")
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from services.registry import GAMES

    parser = argparse.ArgumentParser(prog="python -m gateway.demo", description=__doc__)
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--players", type=int, help="seats per match (default: each game's largest count)")
    parser.add_argument("--seed", type=int, help="match seed (default: random)")
    parser.add_argument("--log-dir", type=Path, default=Path("var/demo-logs"), help="rules services' logs")
    args = parser.parse_args(argv)
    configure_logging("demo", os.environ.get("LOG_LEVEL", "WARNING"))

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"Starting Redis and {len(args.games)} rules service(s)...", flush=True)
    reports = []
    with Stack(args.games, log_dir=args.log_dir) as stack:
        services = ", ".join(f"{game}@{target}" for game, target in stack.targets.items())
        print(f"  Redis at {stack.redis_url}; rules services: {services}")
        clients = {game: RulesClient(game, target) for game, target in stack.targets.items()}
        store = RedisEventStore(redis.Redis.from_url(stack.redis_url))
        matches = Matches(store, clients)
        for game in args.games:
            players = args.players or max(GAMES[game].player_counts)
            reports.append(play_match(matches, clients[game], game, players, seed))
        for client in clients.values():
            client.close()
    print(render(reports))
    ok = all(r.replay_equal and r.audit_ok for r in reports)
    print("All replay checks passed." if ok else "SOME REPLAY CHECKS FAILED.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
