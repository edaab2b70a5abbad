"""`make demo`: every registered game played to the end through the gateway, over gRPC.

It starts Redis, one rules service per game and a gateway (gateway/stack.py). For each game,
one bot client per seat queues through matchmaking (CreateTicket, WatchTicket until matched,
which hands it its seat token), then plays over its own Watch stream: whenever its view says
it owes a decision, it submits one of the legal actions the view lists, picked at random. A
spectator watches each match with a spectator token. At the end each match is audited by the
gateway (re-executed against the rules service: chain, receipts, seed, snapshots); the demo
itself checks the revealed seed against the commitment published at creation and the last
receipt's signature against the published keys, and prints a summary.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import msgspec
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from gateway.stack import Stack
from services.kernel import Outcome
from services.observability import configure_logging

MATCH_TIMEOUT_S = 600.0
SEED_DOMAIN = b"guildhall-seed-v1"
RECEIPT_DOMAIN = b"guildhall-receipt-v1"


@dataclass
class MatchReport:
    game: str
    players: int
    match_id: str = ""
    actions: int = 0
    events: int = 0
    spectator_events: int = 0
    outcome: Outcome | None = None
    audit_ok: bool = False
    audit_reason: str = ""
    seed_ok: bool = False
    receipt_ok: bool = False
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.audit_ok
            and self.seed_ok
            and self.receipt_ok
            and not self.errors
            and self.spectator_events == self.events
        )


def bearer(credential: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {credential}")]


async def _matched(stub: Any, api_key: str, ticket_id: str) -> pb.Ticket:
    """Follow a ticket until it is matched (the update carries the seat token)."""
    async for ticket in stub.WatchTicket(
        pb.WatchTicketRequest(ticket_id=ticket_id), metadata=bearer(api_key)
    ):
        if ticket.state == pb.Ticket.MATCHED:
            matched: pb.Ticket = ticket
            return matched
        if ticket.state in (pb.Ticket.CANCELLED, pb.Ticket.EXPIRED):
            raise RuntimeError(f"ticket {ticket_id} ended {pb.Ticket.State.Name(ticket.state)}")
    raise RuntimeError(f"the ticket stream of {ticket_id} ended before a match")


async def _bot(stub: Any, match_id: str, token: str, rng: random.Random, report: MatchReport) -> None:
    """One seat's client: act whenever its own view says it owes a decision."""
    stream = stub.Watch(pb.WatchRequest(match_id=match_id), metadata=bearer(token))
    try:
        async for update in stream:
            if not update.HasField("view"):
                continue  # a catch-up batch: the view comes with the last one
            view = update.view
            if view.finished:
                return
            if view.seat not in view.active_seats or not view.legal_actions:
                continue
            action = rng.choice(list(view.legal_actions))
            answer = await stub.SubmitAction(
                pb.SubmitActionRequest(
                    match_id=match_id,
                    action=action,
                    command_id=uuid.uuid4().hex,
                    expected_version=view.version,
                ),
                metadata=bearer(token),
            )
            if answer.HasField("accepted"):
                report.actions += 1
            elif answer.rejection.code != "stale_version":
                # Another seat acting at the same moment makes our view stale; anything else
                # means a listed legal action was refused: a bug somewhere.
                report.errors.append(f"seat {view.seat}: {answer.rejection.code}: {answer.rejection.message}")
                return
    finally:
        stream.cancel()


async def _spectate(stub: Any, match_id: str, token: str) -> list[pb.MatchEvent]:
    """The public stream from the start until the match's last event."""
    events: list[pb.MatchEvent] = []
    stream = stub.Watch(pb.WatchRequest(match_id=match_id), metadata=bearer(token))
    try:
        async for update in stream:
            events.extend(update.events)
            if any(e.type == "match_ended" for e in update.events):
                return events
    finally:
        stream.cancel()
    return events


def _check_seed(events: Sequence[pb.MatchEvent]) -> bool:
    """The seed revealed at the end hashes to the commitment published at creation."""
    created = next((json.loads(e.json) for e in events if e.type == "match_created"), None)
    ended = next((json.loads(e.json) for e in events if e.type == "match_ended"), None)
    if created is None or ended is None:
        return False
    seed = bytes.fromhex(ended["seed"])
    return bool(hashlib.sha256(SEED_DOMAIN + seed).hexdigest() == created["seed_commitment"])


def _check_receipt(receipt: pb.Receipt, keys: dict[str, bytes]) -> bool:
    """The receipt verifies with the published key it names (Ed25519 over the framed fields)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    if receipt.key_id not in keys:
        return False
    message = RECEIPT_DOMAIN
    for part in (receipt.tenant, receipt.match_id, str(receipt.version), receipt.head_hash):
        data = part.encode()
        message += len(data).to_bytes(8, "big") + data
    try:
        Ed25519PublicKey.from_public_bytes(keys[receipt.key_id]).verify(receipt.signature, message)
    except InvalidSignature:
        return False
    return True


async def play_game(target: str, api_key: str, game: str, players: int, seed: int) -> MatchReport:
    """Queue `players` bots for `game`, play the match to its end, watch it, audit it."""
    report = MatchReport(game, players)
    started = time.monotonic()
    async with grpc.aio.insecure_channel(target) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        tickets = [
            await stub.CreateTicket(
                pb.CreateTicketRequest(
                    game_id=game, min_seats=players, max_seats=players, player_id=f"bot-{game}-{n}"
                ),
                metadata=bearer(api_key),
            )
            for n in range(players)
        ]
        matched = await asyncio.gather(*(_matched(stub, api_key, t.ticket_id) for t in tickets))
        match_ids = {t.match_id for t in matched}
        if len(match_ids) != 1:
            raise RuntimeError(f"{game}: the bots were put in {len(match_ids)} matches")
        report.match_id = match_id = matched[0].match_id
        spectator = await stub.IssueToken(pb.IssueTokenRequest(match_id=match_id), metadata=bearer(api_key))
        watching = asyncio.create_task(_spectate(stub, match_id, spectator.token))
        rngs = {t.seat: random.Random(f"{seed}/{game}/{t.seat}") for t in matched}
        await asyncio.gather(*(_bot(stub, match_id, t.seat_token, rngs[t.seat], report) for t in matched))
        events = await asyncio.wait_for(watching, 60)
        report.spectator_events = len(events)
        final = await stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=bearer(api_key))
        report.events = final.version
        if final.outcome:
            report.outcome = msgspec.json.decode(final.outcome, type=Outcome)
        audit = await stub.Audit(pb.AuditRequest(match_id=match_id), metadata=bearer(api_key))
        report.audit_ok, report.audit_reason = audit.ok, audit.reason
        report.seed_ok = _check_seed(events)
        keys = await stub.GetPublicKeys(pb.GetPublicKeysRequest())
        receipts = [e.receipt for e in events if e.HasField("receipt")]
        published = {k.key_id: k.ed25519 for k in keys.keys}
        report.receipt_ok = bool(receipts) and all(_check_receipt(r, published) for r in receipts[-3:])
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
        "Guildhall demo: one match per game through the gateway (queue, seat tokens, watch, audit)",
        "",
    ]
    for r in reports:
        lines.append(f"{r.game}: {r.players} players, match {r.match_id}")
        if r.outcome is not None:
            winners = ", ".join(f"seat {w}" for w in r.outcome.winners) or "nobody (all lost)"
            lines.append(f"  winner: {winners}")
            for result in sorted(r.outcome.results, key=lambda x: -x.score):
                fate = "  (eliminated)" if result.eliminated else ""
                parts = ", ".join(f"{k} {v}" for k, v in result.breakdown.items() if v)
                facts = "".join(f", {k} {v}" for k, v in result.facts.items())
                lines.append(f"    seat {result.player}: {result.score:>3} points{fate}  [{parts}]{facts}")
        lines.append(f"  {r.actions} actions, {r.events} events in the stream, {r.seconds:.1f}s")
        lines.append(
            f"  spectator: {'saw every event' if r.spectator_events == r.events else 'MISSED EVENTS'}"
            f" ({r.spectator_events} of {r.events})"
        )
        lines.append(
            f"  audit (re-executed; chain, receipts, seed, snapshots): {'OK' if r.audit_ok else 'FAILED'}"
            + ("" if r.audit_ok else f": {r.audit_reason}")
        )
        lines.append(f"  seed revealed matches its commitment: {'OK' if r.seed_ok else 'FAILED'}")
        lines.append(f"  receipts verify with the published keys: {'OK' if r.receipt_ok else 'FAILED'}")
        lines.extend(f"  error: {error}" for error in r.errors)
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from services.registry import GAMES

    parser = argparse.ArgumentParser(prog="python -m gateway.demo", description=__doc__.split("\n\n")[0])
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
