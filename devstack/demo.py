"""`make demo`: every registered game played to the end through the gateway, with the client library.

It starts Redis, one rules service per game and a gateway (devstack/stack.py). For each game, one
bot per seat queues through matchmaking with `guildhall_client` (`enqueue_and_wait` hands it its
seat token) and plays its seat with one of the library's bots, greedy and random seats
alternating: whenever its own view says it owes a decision, it submits the legal action its bot
picks. A spectator follows each match with the library's resuming Watch. At the end each match
is audited by the gateway (re-executed against the rules service: chain, receipts, seed,
snapshots) and the demo checks locally, with `guildhall_client.verify`, every receipt the
spectator saw against the published keys and the revealed seed against the commitment published
at creation, and prints a summary.

The end-to-end tests play their matches with `queue_bots` and `play_match` from here, so the
client library is exercised on every run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from devstack.stack import Stack
from guildhall_client import AsyncClient, Seat, errors
from guildhall_client.bots import Bot, make_bot
from guildhall_client.bots.runner import play_seat
from guildhall_client.types import AuditReport, Event, MatchView, Ticket
from guildhall_client.verify import Verification, verify_events
from services.kernel import Outcome
from services.observability import configure_logging

MATCH_TIMEOUT_S = 600.0
# Seat 0 greedy, seat 1 random, seat 2 greedy...: both kinds of bot play every game. The greedy
# bots look one ply ahead from the seat's view, cheap enough for the demo and the tests.
KINDS = ("greedy", "random")


@dataclass
class MatchReport:
    game: str
    players: int
    match_id: str = ""
    tickets: list[Ticket] = field(default_factory=list)  # in seat order
    kinds: dict[int, str] = field(default_factory=dict)  # seat -> bot kind
    actions: int = 0
    spectated: list[Event] = field(default_factory=list)  # what the spectator's Watch delivered
    final: MatchView | None = None  # the public view at the end
    audits: list[AuditReport] = field(default_factory=list)
    verification: Verification | None = None  # receipts and seed, checked locally
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def events(self) -> int:
        return self.final.version if self.final is not None else 0

    @property
    def outcome(self) -> Outcome | None:
        if self.final is None or self.final.outcome is None:
            return None
        return msgspec.convert(self.final.outcome, Outcome)

    @property
    def spectator_saw_all(self) -> bool:
        """Every version once, in order, from match_created to the end: no gap, no duplicate."""
        return self.events > 0 and [e.version for e in self.spectated] == list(range(1, self.events + 1))

    @property
    def audit_ok(self) -> bool:
        return bool(self.audits) and all(a.ok and a.checked_versions == self.events for a in self.audits)

    @property
    def seed_ok(self) -> bool:
        return self.verification is not None and self.verification.seed_ok is True

    @property
    def receipts_ok(self) -> bool:
        v = self.verification
        return v is not None and v.receipts_checked > 0 and not v.bad_receipts

    @property
    def ok(self) -> bool:
        return (
            self.final is not None
            and self.final.finished
            and self.audit_ok
            and self.seed_ok
            and self.receipts_ok
            and self.spectator_saw_all
            and not self.errors
        )


async def queue_bots(
    clients: Sequence[AsyncClient],
    game: str,
    players: int,
    *,
    options: Any = None,
    timeout_s: float = MATCH_TIMEOUT_S,
) -> list[Seat]:
    """One bot per seat queues for `game` through matchmaking, ticket n through clients[n % len]
    (one client per gateway replica spreads the seats over them): their seats, in seat order."""
    seats = await asyncio.gather(
        *(
            clients[n % len(clients)].enqueue_and_wait(
                game,
                seats=players,
                player_id=f"bot-{game}-{n}-{uuid.uuid4().hex[:6]}",
                options=options,
                timeout_s=timeout_s,
            )
            for n in range(players)
        )
    )
    match_ids = {seat.match_id for seat in seats}
    if len(match_ids) != 1:
        raise RuntimeError(f"{game}: the bots were put in {len(match_ids)} matches")
    return sorted(seats, key=lambda seat: seat.ticket.seat if seat.ticket is not None else -1)


async def play_match(
    clients: Sequence[AsyncClient],
    seats: Sequence[Seat],
    *,
    seed: int,
    auditors: Sequence[AsyncClient] = (),
) -> MatchReport:
    """Play the queued `seats` to the end with the library's bots while a spectator (on the last
    client's gateway) watches; then audit it (by each of `auditors`, else the first client) and
    check locally every receipt the spectator saw and the revealed seed."""
    tickets = [seat.ticket for seat in seats if seat.ticket is not None]
    game, match_id = tickets[0].game, seats[0].match_id
    report = MatchReport(game, len(seats), match_id, tickets)
    token, _ = await clients[0].issue_token(match_id)
    watching = asyncio.create_task(_spectate(clients[-1].for_token(token), match_id))
    try:
        try:
            async with asyncio.TaskGroup() as group:
                for number, seat in enumerate(seats):
                    kind = report.kinds[number] = KINDS[number % len(KINDS)]
                    bot = make_bot(kind, game, random.Random(f"{seed}/{game}/{number}").getrandbits(64))
                    group.create_task(_play(seat, number, bot, report))
        except* errors.Rejected:
            pass  # recorded in report.errors; the other seats were stopped
        if not report.errors:  # else the match will not end
            report.spectated = await asyncio.wait_for(asyncio.shield(watching), 60)
    finally:
        watching.cancel()
    report.actions = sum(seat.actions for seat in seats)
    report.final = await clients[0].get_view(match_id)
    for auditor in auditors or clients[:1]:
        report.audits.append(await auditor.audit(match_id))
    report.verification = verify_events(report.spectated, await clients[0].public_keys(), match_id=match_id)
    return report


async def _play(seat: Seat, number: int, bot: Bot, report: MatchReport) -> None:
    try:
        await play_seat(seat, bot)
    except errors.Rejected as rejection:
        # Another seat acting first (not_your_turn, stale_version) is retried by the library;
        # anything else means a listed legal action was refused: a bug somewhere.
        report.errors.append(f"seat {number}: {rejection}")
        raise


async def _spectate(spectator: AsyncClient, match_id: str) -> list[Event]:
    """The public stream from the start until the match is over (resumed should it break)."""
    events: list[Event] = []
    async for update in spectator.watch(match_id):
        events.extend(update.events)
    return events


async def play_game(target: str, api_key: str, game: str, players: int, seed: int) -> MatchReport:
    """Queue `players` bots for `game`, play the match to its end, watch it, audit it, verify it."""
    started = time.monotonic()
    async with AsyncClient(target, api_key=api_key) as client:
        seats = await queue_bots([client], game, players)
        report = await play_match([client], seats, seed=seed)
    report.seconds = time.monotonic() - started
    return report


async def play_all(target: str, api_key: str, games: dict[str, int], seed: int) -> list[MatchReport]:
    """Every game's match at once: the gateway serves them side by side."""
    plays = [
        asyncio.wait_for(play_game(target, api_key, game, players, seed), MATCH_TIMEOUT_S)
        for game, players in games.items()
    ]
    return list(await asyncio.gather(*plays))


def render(reports: Sequence[MatchReport]) -> str:
    lines = [
        "",
        "Guildhall demo: one match per game through the gateway with guildhall_client",
        "(queue, seat tokens, greedy and random bots, a spectator's watch, audit, local checks)",
        "",
    ]
    for r in reports:
        lines.append(f"{r.game}: {r.players} players, match {r.match_id}")
        outcome = r.outcome
        if outcome is not None:
            winners = ", ".join(f"seat {w} ({r.kinds.get(w, '?')})" for w in outcome.winners)
            lines.append(f"  winner: {winners or 'nobody (all lost)'}")
            for result in sorted(outcome.results, key=lambda x: -x.score):
                fate = "  (eliminated)" if result.eliminated else ""
                parts = ", ".join(f"{k} {v}" for k, v in result.breakdown.items() if v)
                facts = "".join(f", {k} {v}" for k, v in result.facts.items())
                kind = r.kinds.get(result.player, "?")
                lines.append(
                    f"    seat {result.player} ({kind}): {result.score:>3} points{fate}  [{parts}]{facts}"
                )
        lines.append(f"  {r.actions} actions, {r.events} events in the stream, {r.seconds:.1f}s")
        lines.append(
            f"  spectator: {'saw every event' if r.spectator_saw_all else 'MISSED EVENTS'}"
            f" ({len(r.spectated)} of {r.events})"
        )
        failed = next((a for a in r.audits if not a.ok), None)
        lines.append(
            f"  audit (re-executed; chain, receipts, seed, snapshots): {'OK' if r.audit_ok else 'FAILED'}"
            + (f": {failed.reason}" if failed is not None else "")
        )
        lines.append(f"  seed revealed matches its commitment: {'OK' if r.seed_ok else 'FAILED'}")
        checked = r.verification.receipts_checked if r.verification is not None else 0
        bad = r.verification.bad_receipts if r.verification is not None else []
        lines.append(
            f"  receipts verify with the published keys: {'OK' if r.receipts_ok else 'FAILED'}"
            f" ({checked} checked locally" + (f", bad at versions {bad[:5]})" if bad else ")")
        )
        lines.extend(f"  error: {error}" for error in r.errors)
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from services.registry import GAMES

    parser = argparse.ArgumentParser(prog="python -m devstack.demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--players", type=int, help="seats per match (default: each game's largest count)")
    parser.add_argument("--seed", type=int, help="seeds the bots' choices (match seeds are the gateway's)")
    parser.add_argument(
        "--log-dir", type=Path, default=Path("var/demo-logs"), help="services' and gateway's logs"
    )
    args = parser.parse_args(argv)
    configure_logging("demo", os.environ.get("LOG_LEVEL", "WARNING"))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    games = {game: args.players or max(GAMES[game].player_counts) for game in args.games}
    print(f"Starting Redis, {len(games)} rules service(s) and a gateway...", flush=True)
    with Stack(args.games, log_dir=args.log_dir, gateways=1) as stack:
        print(f"  gateway at {stack.gateway_targets[0]}; bots' seed {seed}", flush=True)
        reports = asyncio.run(play_all(stack.gateway_targets[0], stack.api_key, games, seed))
    print(render(reports))
    ok = all(r.ok for r in reports)
    print("All matches played, watched and audited." if ok else "SOME CHECKS FAILED.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
