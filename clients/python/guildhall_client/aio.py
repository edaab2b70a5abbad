"""The asyncio client: every gateway call, typed results, typed errors, safe retries.

    async with AsyncClient("localhost:50051", api_key="ghk_...") as gh:
        seat = await gh.enqueue_and_wait("rattus_cartus", seats=2, player_id="alice")
        async with seat:
            view = await seat.view()
            await seat.submit(view.legal_actions[0])

Credentials: a tenant API key (`ghk_...`) or a seat/spectator token (`ght1....`), sent as
`authorization: Bearer <credential>`. `client.for_token(token)` shares the channel under another
credential (a seat's token after matchmaking), so one connection serves a tenant and its seats.

Streams (Watch, WatchTicket) reconnect after a drop or a draining replica closing them, up to
`reconnects` times in a row, resuming from the last version delivered.

Retries: a call that failed in transit (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED) is sent again
with backoff. For SubmitAction and Resign that is safe because every submission carries a
command id (generated when the caller gives none) and the gateway answers a repeated id from the
same seat with the first result: a reply lost on the way back never becomes a double move.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import grpc
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc as pb_grpc

from guildhall_client import errors
from guildhall_client.stale import MAX_RESUBMITS, resubmit_id, still_decided
from guildhall_client.stream import PlayStream
from guildhall_client.types import (
    Accepted,
    AuditFinding,
    AuditReport,
    BotAssignment,
    CreatedMatch,
    DeadLetter,
    Event,
    ExportedMatch,
    GameData,
    GameInfo,
    Leaderboard,
    MatchPage,
    MatchSummary,
    MatchView,
    Rating,
    Receipt,
    SeatToken,
    StoredEvent,
    Table,
    Ticket,
    WatchUpdate,
    encode_json,
)
from guildhall_client.verify import Verification, verify_events, verify_receipt

T = TypeVar("T")

DEFAULT_TARGET = "localhost:50051"
# Clients follow the server's max connection age and reconnect on their own; keepalive pings
# notice a dead connection under a long Watch.
_CHANNEL_OPTIONS = (
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),
)


_encode_json = encode_json


class AsyncClient:
    """One gateway connection under one credential. Cheap to derive others with `for_token`."""

    def __init__(
        self,
        target: str = DEFAULT_TARGET,
        *,
        api_key: str | None = None,
        token: str | None = None,
        channel: grpc.aio.Channel | None = None,
        secure: bool = False,
        root_certificates: bytes | None = None,
        timeout_s: float = 15.0,
        retries: int = 6,
        reconnects: int = 30,
        interceptors: Sequence[grpc.aio.ClientInterceptor] | None = None,
        verify_receipts: bool = True,
    ) -> None:
        if api_key and token:
            raise ValueError("give an API key or a token, not both")
        self.target = target
        self.credential = api_key or token or ""
        self.timeout_s = timeout_s
        self.retries = retries
        self.reconnects = reconnects
        self.resumed = 0  # Watch streams resumed after a drop (for logs and tests)
        self.verify_receipts = verify_receipts
        self._owns_channel = channel is None
        if channel is None:
            if secure:
                creds = grpc.ssl_channel_credentials(root_certificates)
                channel = grpc.aio.secure_channel(target, creds, _CHANNEL_OPTIONS, interceptors=interceptors)
            else:
                channel = grpc.aio.insecure_channel(target, _CHANNEL_OPTIONS, interceptors=interceptors)
        self.channel = channel
        self._stub = pb_grpc.GatewayServiceStub(channel)
        self._keys: dict[str, bytes] = {}
        self._game_data: dict[str, GameData] = {}  # by game: one fetch per game and version
        self._keys_shared: dict[str, bytes] | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    async def close(self) -> None:
        if self._owns_channel:
            await self.channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def for_token(self, token: str) -> AsyncClient:
        """The same connection acting with another credential (a seat or spectator token)."""
        other = AsyncClient(
            self.target,
            token=token,
            channel=self.channel,
            timeout_s=self.timeout_s,
            retries=self.retries,
            reconnects=self.reconnects,
            verify_receipts=self.verify_receipts,
        )
        other._keys = self._keys  # one cache of the published keys per connection
        other._game_data = self._game_data  # and of the games' data
        return other

    def seat(self, match_id: str, token: str) -> Seat:
        """A handle on one seat of a match (its token), sharing this connection."""
        return Seat(self.for_token(token), match_id)

    # -- plumbing ------------------------------------------------------------------------------

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.credential}"),) if self.credential else ()

    async def _call(self, method: Callable[..., Awaitable[T]], request: Any, *, retry: bool = True) -> T:
        """One unary call with the credential, typed errors and backoff on transient failures."""
        attempt = 0
        while True:
            try:
                return await method(request, metadata=self._metadata(), timeout=self.timeout_s)
            except grpc.aio.AioRpcError as error:
                attempt += 1
                status = error.code()
                hint = errors._retry_after(error) if status == grpc.StatusCode.RESOURCE_EXHAUSTED else None
                transient = status in errors.TRANSIENT or hint is not None
                if not retry or not transient or attempt > self.retries:
                    raise errors.from_rpc_error(error) from None
                await asyncio.sleep(hint if hint is not None else _backoff(attempt))

    # -- games and keys ------------------------------------------------------------------------

    async def list_games(self) -> list[GameInfo]:
        response = await self._call(self._stub.ListGames, pb.ListGamesRequest())
        return [
            GameInfo(
                g.game_id,
                g.title,
                g.rules_version,
                tuple(g.player_counts),
                dict(g.json_schemas),
                bytes(g.default_options),
            )
            for g in response.games
        ]

    async def public_keys(self, *, refresh: bool = False) -> dict[str, bytes]:
        """The gateway's receipt keys by id (cached; refreshed when a receipt names a new key)."""
        if refresh or not self._keys:
            response = await self._call(self._stub.GetPublicKeys, pb.GetPublicKeysRequest())
            self._keys.clear()
            self._keys.update({k.key_id: bytes(k.ed25519) for k in response.keys})
        return dict(self._keys)

    async def game_data(self, game: str, *, refresh: bool = False) -> GameData:
        """The game's static data (cards, persons, buildings, places... with their names), fetched
        once per connection and kept under its version; `refresh` asks again, sending the version
        held, and keeps the copy when the gateway answers `not_modified`."""
        held = self._game_data.get(game)
        if held is not None and not refresh:
            return held
        request = pb.GetGameDataRequest(game_id=game, known_version=held.version if held else "")
        r = await self._call(self._stub.GetGameData, request)
        if r.not_modified and held is not None:
            return held
        raw = bytes(r.data)
        fresh = GameData(r.game_id or game, r.version, json.loads(raw) if raw else None, raw, r.json_schema)
        self._game_data[game] = fresh
        return fresh

    async def check_receipt(self, receipt: Receipt) -> bool:
        """Verify a receipt locally with the published keys (fetched again once on an unknown id)."""
        keys = await self.public_keys()
        if receipt.key_id not in keys:
            keys = await self.public_keys(refresh=True)
        return verify_receipt(receipt, keys)

    # -- matchmaking ---------------------------------------------------------------------------

    async def create_ticket(
        self,
        game: str,
        *,
        seats: int | tuple[int, int],
        player_id: str,
        options: Any = None,
        rating: float | None = None,
        bot_fill: str = "",
        bot_fill_after_s: int = 0,
    ) -> Ticket:
        """Queue a player. `bot_fill` ("random" or "greedy"): if still queued after
        `bot_fill_after_s` (0: the tenant's default wait), seat it with platform bots."""
        low, high = (seats, 0) if isinstance(seats, int) else seats
        request = pb.CreateTicketRequest(
            game_id=game,
            options=_encode_json(options) if options is not None else b"",
            min_seats=low,
            max_seats=high,
            player_id=player_id,
            bot_fill=bot_fill,
            bot_fill_after_seconds=bot_fill_after_s,
        )
        if rating is not None:
            request.rating = rating
        # Not retried: a lost reply would queue the player twice (tickets carry no client id).
        return Ticket.from_pb(await self._call(self._stub.CreateTicket, request, retry=False))

    async def get_ticket(self, ticket_id: str) -> Ticket:
        return Ticket.from_pb(
            await self._call(self._stub.GetTicket, pb.GetTicketRequest(ticket_id=ticket_id))
        )

    async def cancel_ticket(self, ticket_id: str) -> Ticket:
        return Ticket.from_pb(
            await self._call(self._stub.CancelTicket, pb.CancelTicketRequest(ticket_id=ticket_id))
        )

    async def watch_ticket(self, ticket_id: str) -> AsyncIterator[Ticket]:
        """The ticket's status now and at every change, until matched, cancelled or expired;
        reconnects after a dropped stream (the first message of a stream is the status now)."""
        attempt = 0
        while True:
            call = self._stub.WatchTicket(
                pb.WatchTicketRequest(ticket_id=ticket_id), metadata=self._metadata()
            )
            try:
                async for message in call:
                    attempt = 0
                    ticket = Ticket.from_pb(message)
                    yield ticket
                    if ticket.state != "queued":
                        return
                attempt += 1  # ended while still queued (a draining replica): watch again
                if attempt > self.reconnects:
                    raise errors.Unavailable(grpc.StatusCode.UNAVAILABLE, "the ticket stream kept ending")
            except grpc.aio.AioRpcError as error:
                attempt += 1
                if not errors.stream_broken(error) or attempt > self.reconnects:
                    raise errors.from_rpc_error(error) from None
            finally:
                call.cancel()
            await asyncio.sleep(_backoff(attempt))

    async def enqueue_and_wait(
        self,
        game: str,
        *,
        seats: int | tuple[int, int],
        player_id: str,
        options: Any = None,
        rating: float | None = None,
        timeout_s: float | None = None,
        bot_fill: str = "",
        bot_fill_after_s: int = 0,
    ) -> Seat:
        """Queue a player and wait until matched: the seat, with its token. On timeout or
        cancellation the ticket is withdrawn (a cancelled ticket is never matched)."""
        ticket = await self.create_ticket(
            game,
            seats=seats,
            player_id=player_id,
            options=options,
            rating=rating,
            bot_fill=bot_fill,
            bot_fill_after_s=bot_fill_after_s,
        )

        async def matched() -> Ticket:
            async for status in self.watch_ticket(ticket.ticket_id):
                if status.state != "queued":
                    return status
            return await self.get_ticket(ticket.ticket_id)

        try:
            final = await asyncio.wait_for(matched(), timeout_s)
        except (TimeoutError, asyncio.CancelledError):
            await asyncio.shield(self._cancel_quietly(ticket.ticket_id))
            raise
        if final.state != "matched":
            raise errors.NotFound(grpc.StatusCode.NOT_FOUND, f"ticket {ticket.ticket_id} ended {final.state}")
        seat = self.seat(final.match_id, final.seat_token)
        seat.ticket = final
        return seat

    async def _cancel_quietly(self, ticket_id: str) -> None:
        with contextlib.suppress(errors.GuildhallError):
            await self.cancel_ticket(ticket_id)

    # -- matches -------------------------------------------------------------------------------

    async def create_match(
        self,
        game: str,
        players: Sequence[str],
        *,
        options: Any = None,
        match_id: str = "",
        turn_timer: tuple[int, str] | None = None,
        bots: dict[int, str] | None = None,
    ) -> CreatedMatch:
        """Start a match with these players (seat order); idempotent when you name the match id.
        `bots` {seat: "random" | "greedy"}: seats the platform's bots play; the players take
        the others, in order (no token comes back for a bot seat)."""
        request = pb.CreateMatchRequest(
            game_id=game,
            players=list(players),
            options=_encode_json(options) if options is not None else b"",
            match_id=match_id,
            bots=[pb.BotSeat(seat=s, kind=k) for s, k in sorted((bots or {}).items())],
        )
        if turn_timer is not None:
            request.turn_timer.CopyFrom(pb.TurnTimer(seconds=turn_timer[0], policy=turn_timer[1]))
        # Retried only when the caller named the match: then a repeat returns the same match.
        r = await self._call(self._stub.CreateMatch, request, retry=bool(match_id))
        return CreatedMatch(
            r.match_id,
            r.game_id,
            r.version,
            [SeatToken(s.seat, s.player_id, s.token) for s in r.seats],
            r.seed_commitment,
            r.spectator_token,
        )

    async def create_table(
        self,
        game: str,
        seats: int,
        *,
        options: Any = None,
        turn_timer: tuple[int, str] | None = None,
        bots: dict[int, str] | None = None,
    ) -> Table:
        """A private table: give `invite_code` to the players; each claims a seat with it.
        `bots` {seat: kind}: seats taken by the platform's bots at once."""
        request = pb.CreateTableRequest(
            game_id=game,
            seats=seats,
            options=_encode_json(options) if options is not None else b"",
            bots=[pb.BotSeat(seat=s, kind=k) for s, k in sorted((bots or {}).items())],
        )
        if turn_timer is not None:
            request.turn_timer.CopyFrom(pb.TurnTimer(seconds=turn_timer[0], policy=turn_timer[1]))
        r = await self._call(self._stub.CreateTable, request, retry=False)
        return Table(r.match_id, r.invite_code, r.spectator_token)

    async def claim_seat(
        self, invite_code: str, player_id: str, display_name: str = "", *, claim_id: str | None = None
    ) -> Seat:
        """Claim a seat at a private table (bad_invite / seat_taken are raised as rejections).

        A seat is claimed once: this claim carries a random `claim_id` (made up when not given),
        so sending it again after a lost reply answers the same seat, and nothing else does.
        The seat's `resume_secret` moves it to another device (`resume_seat`): keep it private."""
        request = pb.ClaimSeatRequest(
            invite_code=invite_code,
            player_id=player_id,
            display_name=display_name,
            claim_id=claim_id or uuid.uuid4().hex,
        )
        return self._claimed(await self._call(self._stub.ClaimSeat, request))

    async def resume_seat(self, resume_secret: str) -> Seat:
        """Take a claimed seat on this device with its resume secret: a fresh token, and a new
        secret in `Seat.resume_secret` (the one given stops working). Not retried: a secret
        works once, and a lost reply's new secret is lost with it."""
        request = pb.ResumeSeatRequest(resume_secret=resume_secret)
        return self._claimed(await self._call(self._stub.ResumeSeat, request, retry=False))

    def _claimed(self, r: pb.ClaimSeatResponse) -> Seat:
        if r.HasField("rejection"):
            raise errors.rejection(r.rejection.code, r.rejection.message)
        seat = self.seat(r.match_id, r.seat.token)
        seat.number = r.seat.seat
        seat.resume_secret = r.resume_secret
        return seat

    async def issue_token(self, match_id: str, seat: int | None = None) -> tuple[str, int]:
        """(a fresh seat token, or a spectator token for seat None; its expiry in Unix ms)."""
        request = pb.IssueTokenRequest(match_id=match_id)
        if seat is not None:
            request.seat = seat
        r = await self._call(self._stub.IssueToken, request)
        return r.token, r.expires_at_ms

    async def list_matches(
        self,
        *,
        game: str = "",
        finished: bool | None = None,
        created_after_ms: int = 0,
        created_before_ms: int = 0,
        limit: int = 50,
        cursor: str = "",
    ) -> MatchPage:
        request = pb.ListMatchesRequest(
            game_id=game,
            created_after_ms=created_after_ms,
            created_before_ms=created_before_ms,
            limit=limit,
            cursor=cursor,
        )
        if finished is not None:
            request.finished = finished
        r = await self._call(self._stub.ListMatches, request)
        return MatchPage(
            [
                MatchSummary(m.match_id, m.game_id, tuple(m.players), m.version, m.finished, m.created_ms)
                for m in r.matches
            ],
            r.next_cursor,
        )

    async def iter_matches(self, **filters: Any) -> AsyncIterator[MatchSummary]:
        """Every match matching the filters, page after page."""
        cursor = ""
        while True:
            page = await self.list_matches(cursor=cursor, **filters)
            for match in page.matches:
                yield match
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    # -- play ----------------------------------------------------------------------------------

    async def get_view(self, match_id: str) -> MatchView:
        return MatchView.from_pb(await self._call(self._stub.GetView, pb.GetViewRequest(match_id=match_id)))

    async def submit(
        self,
        match_id: str,
        action: Any,
        *,
        command_id: str | None = None,
        expected_version: int | None = None,
        return_view: bool = False,
        resubmit_when_stale: bool = True,
    ) -> Accepted:
        """Act for this token's seat. Raises a `Rejected` subclass when the rules say no.

        The command id (generated if not given) makes the retries safe: after a lost reply the
        same command is sent again and the gateway returns its first result (`repeated`).
        With `return_view` the answer carries this seat's next view (`Accepted.view`, with its
        legal actions), so acting again needs no GetView.

        With `expected_version`, another seat acting in between (a simultaneous decision: Ys
        bids, Rattus Cartus supplies) answers stale_version. Then, when only other seats acted in
        between and the action is still among this seat's legal actions at the new version, it is
        sent again for that version (a new command id derived from this one), up to 3 times;
        otherwise StaleVersion is raised. This seat's own action in between (another of its
        submits won the race) always raises: that decision was made. `resubmit_when_stale=False`
        never resubmits."""
        command_id = command_id or uuid.uuid4().hex
        sent_id = command_id
        for resubmits in range(MAX_RESUBMITS + 1):
            request = pb.SubmitActionRequest(
                match_id=match_id, action=_encode_json(action), command_id=sent_id, return_view=return_view
            )
            if expected_version is not None:
                request.expected_version = expected_version
            response = await self._call(self._stub.SubmitAction, request)
            try:
                return await self._accepted(match_id, sent_id, response)
            except errors.StaleVersion:
                if not resubmit_when_stale or resubmits == MAX_RESUBMITS:
                    raise
                # The rule (guildhall_client/stale.py), shared with the Play stream.
                version = await still_decided(self, match_id, action, expected_version)
                if version is None:
                    raise
                expected_version = version  # still legal after the other seats' moves
                sent_id = resubmit_id(command_id, resubmits + 1)
        raise AssertionError("unreachable")

    async def resign(self, match_id: str, *, command_id: str | None = None) -> Accepted:
        """Leave the match for good (safe to retry, like submit)."""
        command_id = command_id or uuid.uuid4().hex
        response = await self._call(
            self._stub.Resign, pb.ResignRequest(match_id=match_id, command_id=command_id)
        )
        return await self._accepted(match_id, command_id, response)

    async def undo(
        self, match_id: str, *, command_id: str | None = None, expected_version: int | None = None
    ) -> Accepted:
        """Take back your last move (MatchView.undo_available says when you may); CannotUndo says
        why not. Safe to retry with the same command id, like submit."""
        command_id = command_id or uuid.uuid4().hex
        request = pb.UndoRequest(match_id=match_id, command_id=command_id)
        if expected_version is not None:
            request.expected_version = expected_version
        return await self._accepted(match_id, command_id, await self._call(self._stub.Undo, request))

    async def return_to_seat(self, match_id: str, *, command_id: str | None = None) -> Accepted:
        """ "I'm back": take this away seat back from the platform's bot (safe to retry)."""
        command_id = command_id or uuid.uuid4().hex
        response = await self._call(
            self._stub.ReturnToSeat, pb.ReturnToSeatRequest(match_id=match_id, command_id=command_id)
        )
        return await self._accepted(match_id, command_id, response)

    async def _accepted(self, match_id: str, command_id: str, response: pb.SubmitActionResponse) -> Accepted:
        if response.HasField("rejection"):
            raise errors.rejection(response.rejection.code, response.rejection.message)
        a = response.accepted
        receipt = Receipt.from_pb(a.receipt) if a.HasField("receipt") else None
        if (
            self.verify_receipts
            and receipt is not None
            and (
                receipt.match_id != match_id
                or receipt.version != a.version
                or not await self.check_receipt(receipt)
            )
        ):
            raise errors.ReceiptInvalid(f"the receipt for version {a.version} of {match_id} does not verify")
        view = MatchView.from_pb(a.view) if a.HasField("view") else None
        return Accepted(
            match_id, a.version, [Event.from_pb(e) for e in a.events], receipt, a.repeated, command_id, view
        )

    def play(self, match_id: str, from_version: int = 0, *, reconnect: bool = True) -> PlayStream:
        """This seat token's Play stream on the match (guildhall_client/stream.py): actions up,
        updates and answers down, resumed after a break. Use it as an async context manager."""
        return PlayStream(self, match_id, from_version, reconnect=reconnect)

    async def watch(
        self, match_id: str, from_version: int = 0, *, reconnect: bool = True, until_finished: bool = True
    ) -> AsyncIterator[WatchUpdate]:
        """New events and the new view, from `from_version` on; after a dropped stream it
        reconnects from the last version it delivered (no gap, no duplicate). Ends after the
        update that shows the match finished (unless `until_finished` is False)."""
        last = from_version
        attempt = 0
        finished = False
        while True:
            call = self._stub.Watch(
                pb.WatchRequest(match_id=match_id, from_version=last), metadata=self._metadata()
            )
            try:
                async for message in call:
                    attempt = 0
                    # A gateway must never resend what we have; drop it if one ever does.
                    events = [Event.from_pb(e) for e in message.events if e.version > last]
                    view = MatchView.from_pb(message.view)
                    last = max([last, view.version, *(e.version for e in events)])
                    yield WatchUpdate(events, view)
                    finished = finished or view.finished
                    if until_finished and finished:
                        return
                # The gateway ends the stream after the update that ends the match: nothing follows.
                # Else a draining replica closed its streams so clients move to another one:
                # resume from where we are.
                if finished or not reconnect:
                    return
                attempt += 1
                if attempt > self.reconnects:
                    raise errors.Unavailable(grpc.StatusCode.UNAVAILABLE, "the watch stream kept ending")
            except grpc.aio.AioRpcError as error:
                attempt += 1
                if not reconnect or not errors.stream_broken(error) or attempt > self.reconnects:
                    raise errors.from_rpc_error(error) from None
            finally:
                call.cancel()
            self.resumed += 1
            await asyncio.sleep(_backoff(attempt))

    # -- audit ---------------------------------------------------------------------------------

    async def replay(self, match_id: str, version: int) -> MatchView:
        return MatchView.from_pb(
            await self._call(self._stub.Replay, pb.ReplayRequest(match_id=match_id, version=version))
        )

    async def audit(self, match_id: str, *, receipts: Sequence[Receipt] = ()) -> AuditReport:
        """The gateway's audit; `receipts` you hold (from answers and Watch updates) are compared
        with the stream, so a match that forked since you were given them is named."""
        request = pb.AuditRequest(
            match_id=match_id,
            receipts=[
                pb.Receipt(
                    key_id=r.key_id,
                    version=r.version,
                    head_hash=r.head_hash,
                    signature=r.signature,
                    tenant=r.tenant,
                    match_id=r.match_id,
                )
                for r in receipts
            ],
        )
        r = await self._call(self._stub.Audit, request)
        findings = tuple(AuditFinding(f.version, f.through_version, f.evidence, f.reason) for f in r.findings)
        return AuditReport(
            r.ok,
            r.checked_versions,
            r.first_bad_version,
            r.reason,
            r.evidence,
            findings,
            r.receipts_compared,
            r.receipts_refused,
        )

    async def export_match(self, match_id: str, up_to_version: int | None = None) -> ExportedMatch:
        """The match as a .ghx file (auditor scope): `guildhall_client.ghx.verify_export` checks it
        offline. `up_to_version` must end an append; None exports the whole match."""
        request = pb.ExportMatchRequest(match_id=match_id)
        if up_to_version is not None:
            request.up_to_version = up_to_version
        r = await self._call(self._stub.ExportMatch, request)
        return ExportedMatch(bytes(r.data), r.version, r.finished)

    async def rules_bundle(self, game: str, rules_version: str) -> tuple[str, bytes]:
        """A rules version's bundle (file name, zip) for verifying its matches offline (issue 40:
        `verify_export(..., bundles=[...])` checks it before it runs anything of it)."""
        request = pb.GetRulesBundleRequest(game_id=game, rules_version=rules_version)
        r = await self._call(self._stub.GetRulesBundle, request)
        return r.file_name, bytes(r.bundle)

    async def read_events(
        self, match_id: str, after_version: int = 0, limit: int = 1000
    ) -> list[StoredEvent]:
        """The stored stream, unredacted (auditor scope)."""
        r = await self._call(
            self._stub.ReadEvents,
            pb.ReadEventsRequest(match_id=match_id, after_version=after_version, limit=limit),
        )
        return [
            StoredEvent(
                e.version,
                e.type,
                e.actor,
                e.command_id,
                bytes(e.payload),
                e.rules_version,
                e.time_ms,
                e.prev_hash,
                e.hash,
                Receipt.from_pb(e.receipt) if e.HasField("receipt") else None,
            )
            for e in r.events
        ]

    async def events(self, match_id: str, from_version: int = 0) -> list[Event]:
        """Every event after `from_version` up to now, as this caller may see them."""
        target = (await self.get_view(match_id)).version
        collected: list[Event] = []
        if target <= from_version:
            return collected
        async for update in self.watch(match_id, from_version, until_finished=False):
            collected.extend(update.events)
            if update.view.version >= target:
                break
        return collected

    async def verify_match(self, match_id: str) -> Verification:
        """Check locally every receipt this caller can see and, once revealed, the seed commitment."""
        events = await self.events(match_id)
        keys = await self.public_keys()
        if any(e.receipt is not None and e.receipt.key_id not in keys for e in events):
            keys = await self.public_keys(refresh=True)
        return verify_events(events, keys, match_id=match_id)

    # -- ratings, webhook dead letters, bot seats (issue 23) ----------------------------------

    async def ratings(self, game: str, player_ids: Sequence[str]) -> list[Rating]:
        """The players' ratings in `game` (the unrated are left out)."""
        r = await self._call(
            self._stub.GetRatings, pb.GetRatingsRequest(game_id=game, player_ids=list(player_ids))
        )
        return [Rating.from_pb(x) for x in r.ratings]

    async def leaderboard(self, game: str, *, limit: int = 50, cursor: str = "") -> Leaderboard:
        """A page of the tenant's leaderboard for `game`, best first."""
        r = await self._call(
            self._stub.ListLeaderboard, pb.ListLeaderboardRequest(game_id=game, limit=limit, cursor=cursor)
        )
        return Leaderboard([Rating.from_pb(x) for x in r.ratings], r.next_cursor)

    async def dead_letters(
        self, tenant: str, *, limit: int = 50, cursor: str = ""
    ) -> tuple[list[DeadLetter], str]:
        """A tenant's webhook dead letters, newest first, and the next cursor (operator scope)."""
        r = await self._call(
            self._stub.ListDeadLetters, pb.ListDeadLettersRequest(tenant=tenant, limit=limit, cursor=cursor)
        )
        letters = [
            DeadLetter(
                d.delivery_id, d.event_id, d.event_type, d.endpoint_id, d.attempts, d.last_error, d.failed_ms,
                bytes(d.body),
            )
            for d in r.dead_letters
        ]  # fmt: skip
        return letters, r.next_cursor

    async def replay_dead_letters(self, tenant: str, delivery_ids: Sequence[str] = ()) -> int:
        """Send dead letters again (all of the tenant's when none is named); how many (operator)."""
        request = pb.ReplayDeadLettersRequest(
            tenant=tenant, delivery_ids=list(delivery_ids), all=not delivery_ids
        )
        return int((await self._call(self._stub.ReplayDeadLetters, request)).replayed)

    async def claim_bot_seats(self, worker: str, max_seats: int) -> list[BotAssignment]:
        """Lease bot seats to play (botworker scope)."""
        r = await self._call(
            self._stub.ClaimBotSeats, pb.ClaimBotSeatsRequest(worker=worker, max_seats=max_seats)
        )
        return [
            BotAssignment(
                a.lease_id, a.tenant, a.match_id, a.game_id, a.seat, a.kind, a.seat_token, a.lease_until_ms
            )
            for a in r.seats
        ]

    async def renew_bot_seats(self, lease_ids: Sequence[str]) -> set[str]:
        """Extend leases; the ones still held (botworker scope)."""
        r = await self._call(self._stub.RenewBotSeats, pb.RenewBotSeatsRequest(lease_ids=list(lease_ids)))
        return set(r.renewed)

    async def release_bot_seats(self, lease_ids: Sequence[str], *, done: bool) -> None:
        """Give leases back: done (the match ended) or for another worker (botworker scope)."""
        await self._call(
            self._stub.ReleaseBotSeats, pb.ReleaseBotSeatsRequest(lease_ids=list(lease_ids), done=done)
        )


class Seat:
    """One seat of one match, acting with its token: view, submit, undo, watch, resign."""

    def __init__(self, client: AsyncClient, match_id: str) -> None:
        self.client = client
        self.match_id = match_id
        self.ticket: Ticket | None = None
        self.number: int | None = None
        self.resume_secret = ""  # a claimed seat's (issue 39): moves it to another device
        self._accepted: set[str] = set()  # command ids of the submissions accepted through this handle

    @property
    def token(self) -> str:
        return self.client.credential

    async def __aenter__(self) -> Seat:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.close()

    async def view(self) -> MatchView:
        view = await self.client.get_view(self.match_id)
        self.number = view.seat
        return view

    @property
    def actions(self) -> int:
        """Actions accepted through this handle: each command once, however often it was sent."""
        return len(self._accepted)

    async def submit(self, action: Any, **kwargs: Any) -> Accepted:
        accepted = await self.client.submit(self.match_id, action, **kwargs)
        self._accepted.add(accepted.command_id)
        return accepted

    async def resign(self, **kwargs: Any) -> Accepted:
        return await self.client.resign(self.match_id, **kwargs)

    async def undo(self, **kwargs: Any) -> Accepted:
        return await self.client.undo(self.match_id, **kwargs)

    async def return_to_seat(self, **kwargs: Any) -> Accepted:
        return await self.client.return_to_seat(self.match_id, **kwargs)

    def watch(self, from_version: int = 0, **kwargs: Any) -> AsyncIterator[WatchUpdate]:
        return self.client.watch(self.match_id, from_version, **kwargs)

    def stream(self, from_version: int = 0) -> PlayStream:
        """This seat's Play stream (see `AsyncClient.play`)."""
        return self.client.play(self.match_id, from_version)

    async def play(
        self, choose: Callable[[MatchView], Any], *, on_update: Callable[[WatchUpdate], None] | None = None
    ) -> MatchView:
        """Play to the end: whenever this seat may act, submit `choose(view)`; returns the final view.

        `choose` gets the seat's view and returns an action (or an index into
        view.legal_actions). It plays over one Play stream: each action goes up it, and its
        answer comes down on the update that carries its events and this seat's next view, so
        acting again needs no further call. Another seat acting first is normal: a rejection for
        not_your_turn or stale_version just means wait for the next update."""
        current = await self.view()
        if current.finished:
            return current
        async with self.stream(current.version) as stream:
            pending: asyncio.Future[Accepted] | None = None
            acted_at = -1  # the version the last action was decided on: once per version
            async for message in stream.messages():
                update = message.update
                if update is not None:
                    if on_update is not None:
                        on_update(update)
                    if update.view.version >= current.version:  # else a catch-up batch's
                        current = update.view
                if pending is not None and pending.done():
                    error = pending.exception()
                    pending = None
                    if error is not None and not isinstance(error, errors.NotYourTurn | errors.StaleVersion):
                        raise error
                if current.finished:
                    return current
                if pending is None and current.my_turn and acted_at != current.version:
                    picked = choose(current)
                    action = current.legal_actions[picked] if isinstance(picked, int) else picked
                    acted_at = current.version
                    pending = stream.send(action, expected_version=current.version)
                    pending.add_done_callback(self._count)
        return await self.view()

    def _count(self, done: asyncio.Future[Accepted]) -> None:
        if not done.cancelled() and done.exception() is None:
            self._accepted.add(done.result().command_id)


def _backoff(attempt: int) -> float:
    """Exponential backoff with full jitter, capped: 50 ms, 100 ms, ... 2 s."""
    return random.uniform(0, min(2.0, 0.05 * 2 ** (attempt - 1)))
