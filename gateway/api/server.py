"""guildhall.gateway.v1.GatewayService: the thin servicer over the match use cases.

Each RPC authenticates (gateway/auth.py: the scope table), checks the request's shape, calls
one use case and maps the answer to protobuf. Nothing here knows a game's rules; nothing here
builds clients (bootstrap.py does). Everything is asyncio: a Watch stream is a coroutine
parked on its match's signal (gateway/watch.py), never a thread.

Errors: use-case exceptions become status codes in one place (gateway/api/faults.py); request
checks and protobuf conversion are gateway/api/wire.py's; rejections are answers. One log line per
call with a request id, tenant, match and seat in context.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import structlog
from guildhall.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from gateway import metrics
from gateway.admin.registry import OpenStreams
from gateway.api import audit_wire, integrations, seatnames, tables_rpc, undo, wire
from gateway.api.faults import answer, fault
from gateway.api.jsonfields import json_bytes
from gateway.api.peers import Network
from gateway.api.play_stream import play
from gateway.api.streams import StreamLimits
from gateway.api.wire import MAX_ACTION_BYTES, BadRequest, TooLarge
from gateway.api.wire import seat_of as _seat
from gateway.auth import Authenticator, Principal, Tokens, denied
from gateway.domain.timers import MIN_WEB_TURN_SECONDS
from gateway.eventstore.base import MatchKey
from gateway.quotas import Quotas
from gateway.watch import WatchHub

_log = structlog.get_logger("rpc")

_TICKET_WAIT_S = 30.0  # a WatchTicket re-reads the status at least this often
_TICKET_STATES = {
    "queued": gateway_pb2.Ticket.QUEUED,
    "matched": gateway_pb2.Ticket.MATCHED,
    "cancelled": gateway_pb2.Ticket.CANCELLED,
    "expired": gateway_pb2.Ticket.EXPIRED,
}


@dataclass
class Ports:
    """What the servicer needs; bootstrap.py builds it."""

    matches: Any  # gateway.usecases.GameMatches
    auth: Authenticator
    tokens: Tokens
    quotas: Quotas
    hub: WatchHub
    games: Mapping[str, gateway_pb2.Game]  # served games, from each rules service's Describe
    matchmaker: Any = None  # gateway.matchmaking.Matchmaker
    tables: Any = None  # gateway.tables.Tables
    timer_policy: Callable[[int, str], Any] | None = None  # (seconds, policy) -> TimerPolicy
    # (game, seats, options): raises if the game refuses the options (a ticket is checked when
    # queued, not when its pairing fails to start a match minutes later).
    check_options: Callable[[str, int, bytes], Awaitable[None]] | None = None
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    # game id -> its static data as its rules service described it (GetGameData).
    game_data: Any = field(default_factory=dict)  # a Mapping; LiveGameData (of_version) when served
    # Issue 23: gateway.ratings.Ratings, gateway.webhooks.dispatch.Webhooks, gateway.botseats.BotSeats
    ratings: Any = None
    webhooks: Any = None
    bots: Any = None
    # Issue 30: caps on the Play and Watch streams open on this replica (gateway/api/streams.py).
    streams: StreamLimits = field(default_factory=StreamLimits)
    # Issue 34: the streams open here by tenant, which a suspension ends (gateway/admin/registry.py).
    open_streams: OpenStreams = field(default_factory=OpenStreams)
    # Issue 32: the names players chose at private tables, in every view (gateway/api/seatnames.py).
    names: Any = None
    # Issue 39: proxies whose X-Forwarded-For names the client (gateway/api/peers.py).
    trusted_proxies: Sequence[Network] = ()


# -- exception -> status, in one place -----------------------------------------------------------


def _rejection_of(response: Any) -> str | None:
    fields = getattr(getattr(response, "DESCRIPTOR", None), "fields_by_name", {})
    if "rejection" in fields and response.HasField("rejection"):
        return str(response.rejection.code)
    return None


Req = TypeVar("Req")
Resp = TypeVar("Resp")


def unary(rpc: str) -> Callable[[Any], Any]:
    """Authenticate, bind log context, map faults to statuses, count and time: for unary RPCs."""

    def wrap(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def handler(self: GatewayServicer, request: Any, context: grpc.aio.ServicerContext) -> Any:
            started = time.perf_counter()
            request_id = _request_id(context)
            structlog.contextvars.bind_contextvars(rpc=rpc, request_id=request_id)
            code = "OK"
            outcome = "ok"
            try:
                principal = self.ports.auth.authenticate(context.invocation_metadata(), rpc)
                _bind_principal(principal)
                response = await method(self, request, context, principal)
                rejected = _rejection_of(response)
                if rejected:
                    outcome = f"rejected:{rejected}"
                    metrics.REJECTIONS.labels(rejected).inc()
            except Exception as exc:
                status, message, retry_ms = answer(exc, rpc)
                code, outcome = status.name, "fault"
                # Recorded before the abort: grpc.aio sends the status from inside abort().
                _record(rpc, code, outcome, started, detail=message)
                await _abort(context, status, message, retry_ms)
                raise
            else:
                _record(rpc, code, outcome, started)
                return response
            finally:
                structlog.contextvars.clear_contextvars()

        handler.__name__ = method.__name__
        return handler

    return wrap


def streaming(rpc: str) -> Callable[[Any], Any]:
    """The same for server-streaming RPCs (the log line is written when the stream ends)."""

    def wrap(method: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
        async def handler(
            self: GatewayServicer, request: Any, context: grpc.aio.ServicerContext
        ) -> AsyncIterator[Any]:
            started = time.perf_counter()
            structlog.contextvars.bind_contextvars(rpc=rpc, request_id=_request_id(context))
            code = "OK"
            outcome = "ok"
            sent = 0
            try:
                principal = self.ports.auth.authenticate(context.invocation_metadata(), rpc)
                _bind_principal(principal)
                # Issue 34: a suspension ends it; issue 39: so does revoking the key behind it.
                with self.ports.open_streams.hold(principal.tenant, principal.key_print):
                    async for message in method(self, request, context, principal):
                        if sent == 0:
                            metrics.LATENCY.labels(rpc).observe(time.perf_counter() - started)
                        sent += 1
                        yield message
            except asyncio.CancelledError:
                why = self.ports.open_streams.why_cut(asyncio.current_task())
                if why is None:
                    code, outcome = "CANCELLED", "client gone"
                    raise
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
                code, outcome = "PERMISSION_DENIED", "cut"
                _record_stream(rpc, code, outcome, started, sent, why)
                await _abort(context, grpc.StatusCode.PERMISSION_DENIED, why, 0)
                raise
            except Exception as exc:
                status, message, retry_ms = answer(exc, rpc)
                code, outcome = status.name, "fault"
                _record_stream(rpc, code, outcome, started, sent, message)
                await _abort(context, status, message, retry_ms)
                raise
            else:
                _record_stream(rpc, code, outcome, started, sent)
            finally:
                if code == "CANCELLED":
                    _record_stream(rpc, code, outcome, started, sent)
                structlog.contextvars.clear_contextvars()

        handler.__name__ = method.__name__
        return handler

    return wrap


def _record(rpc: str, code: str, outcome: str, started: float, detail: str = "") -> None:
    elapsed = time.perf_counter() - started
    metrics.REQUESTS.labels(rpc, code).inc()
    metrics.LATENCY.labels(rpc).observe(elapsed)
    if detail:
        _log.info(
            "rpc", status=code, outcome=outcome, detail=detail[:200], duration_ms=round(elapsed * 1000, 3)
        )
    else:
        _log.info("rpc", status=code, outcome=outcome, duration_ms=round(elapsed * 1000, 3))


def _record_stream(rpc: str, code: str, outcome: str, started: float, sent: int, detail: str = "") -> None:
    metrics.REQUESTS.labels(rpc, code).inc()
    fields: dict[str, Any] = {"status": code, "outcome": outcome, "messages": sent}
    if detail:
        fields["detail"] = detail[:200]
    _log.info("rpc", duration_ms=round((time.perf_counter() - started) * 1000, 3), **fields)


async def _abort(
    context: grpc.aio.ServicerContext, status: grpc.StatusCode, message: str, retry_ms: int
) -> None:
    if retry_ms:
        context.set_trailing_metadata((("retry-after-ms", str(retry_ms)),))
    await context.abort(status, message)  # raises


def _request_id(context: grpc.aio.ServicerContext) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == "x-request-id" and isinstance(value, str) and 0 < len(value) <= 64:
            return value
    return uuid.uuid4().hex[:16]


def _bind_principal(principal: Principal) -> None:
    fields: dict[str, Any] = {"tenant": principal.tenant}
    if principal.key_id and not principal.is_token:  # issue 43: which API key made the call
        fields["key_id"] = principal.key_id
    if principal.match_id is not None:
        fields["match_id"] = principal.match_id
        fields["seat"] = principal.seat
    structlog.contextvars.bind_contextvars(**fields)


# -- the servicer --------------------------------------------------------------------------------


class GatewayServicer(gateway_pb2_grpc.GatewayServiceServicer):  # type: ignore[misc]
    def __init__(self, ports: Ports) -> None:
        self.ports = ports

    # -- games and keys ------------------------------------------------------------------------

    @unary("ListGames")
    async def ListGames(self, request: Any, context: Any, principal: Principal) -> Any:
        # Built per call: a game's current rules version changes at runtime (issue 40).
        games = self.ports.games
        return gateway_pb2.ListGamesResponse(games=[games[g] for g in sorted(games)])

    @unary("GetPublicKeys")
    async def GetPublicKeys(self, request: Any, context: Any, principal: Principal) -> Any:
        keys = self.ports.matches.public_keys()
        return gateway_pb2.GetPublicKeysResponse(
            keys=[gateway_pb2.PublicKey(key_id=k.key_id, ed25519=k.public_key) for k in keys]
        )

    def _game(self, game_id: str) -> gateway_pb2.Game:
        game = self.ports.games.get(game_id)
        if game is None:
            raise BadRequest(
                f"this gateway serves no game {game_id[:64]!r}; ListGames names the ones it does"
            )
        return game

    def _timer(self, principal: Principal, request: Any) -> Any:
        """The match's turn timer: the request's, else the tenant's default (a web table's: the
        tenant's `tables.turn_timer`, issue 41). A web table's is 0 or at least
        MIN_WEB_TURN_SECONDS (issue 39: a table cannot be made to play itself at speed)."""
        make = self.ports.timer_policy
        if make is None:
            return None
        tenant = self.ports.auth.tenant(principal.tenant)
        if request.HasField("turn_timer"):
            seconds = request.turn_timer.seconds
            if principal.publishable and 0 < seconds < MIN_WEB_TURN_SECONDS:
                raise BadRequest(
                    f"a web table's turn timer is 0 (none) or at least {MIN_WEB_TURN_SECONDS} seconds, "
                    f"not {seconds}"
                )
            try:
                return make(seconds, request.turn_timer.policy or "random_action")
            except ValueError as exc:
                raise BadRequest(str(exc)) from None
        default = tenant.tables.turn_timer if principal.publishable else tenant.turn_timer
        return make(default.seconds, default.policy)

    # -- matches -------------------------------------------------------------------------------

    async def _admit(self, principal: Principal, match_id: str) -> None:
        limit = self.ports.auth.tenant(principal.tenant).quotas.active_matches
        await self.ports.quotas.admit_match(principal.tenant, match_id, limit)

    @unary("CreateMatch")
    async def CreateMatch(self, request: Any, context: Any, principal: Principal) -> Any:
        game = self._game(request.game_id)
        players = [wire.player_id(p, "players") for p in request.players]
        players, bots = integrations.seat_bots(players, request.bots)
        if len(players) not in game.player_counts:
            counts = ", ".join(str(c) for c in game.player_counts)
            raise BadRequest(f"{game.game_id} is played by {counts} players, not {len(players)}")
        options = wire.options(json_bytes(request, "options", "options_value"))
        match_id = request.match_id or uuid.uuid4().hex
        wire.match_key(principal, match_id)  # checks the id's shape
        timer = self._timer(principal, request)
        await self._admit(principal, match_id)
        try:
            await integrations.enlist(self.ports, principal.tenant, match_id, game.game_id, bots)
            created = await self.ports.matches.create(
                principal.tenant,
                game.game_id,
                players,
                options,
                match_id=match_id,
                turn_timer=timer,
                created_by=principal.key_id,
                bots=bots,
            )
        except BaseException:
            await self.ports.quotas.release_match(principal.tenant, match_id)
            raise
        seats = []
        for seat, player in enumerate(players):
            if seat in bots:
                continue  # the platform's bot worker gets its own token
            token, _ = self.ports.auth.issue(principal, match_id, seat)
            seats.append(gateway_pb2.SeatToken(seat=seat, player_id=player, token=token))
        spectator, _ = self.ports.auth.issue(principal, match_id, None)
        return gateway_pb2.CreateMatchResponse(
            match_id=match_id,
            game_id=game.game_id,
            version=created.version,
            seats=seats,
            seed_commitment=created.seed_commitment,
            spectator_token=spectator,
        )

    @unary("IssueToken")
    async def IssueToken(self, request: Any, context: Any, principal: Principal) -> Any:
        key = wire.match_key(principal, request.match_id)
        await self._take_read(principal)  # issue 22: it reads the match, and was not metered
        view = await self.ports.matches.get_view(key, None)  # NOT_FOUND for another tenant's match
        seat = request.seat if request.HasField("seat") else None
        if seat is not None and not 0 <= seat < _seat_count(view):
            raise BadRequest(f"the match has no seat {seat}")
        token, expires = self.ports.auth.issue(principal, key.match_id, seat)
        return gateway_pb2.IssueTokenResponse(token=token, expires_at_ms=expires)

    @unary("ListMatches")
    async def ListMatches(self, request: Any, context: Any, principal: Principal) -> Any:
        await self._take_read(principal)
        limit = request.limit or 50
        if limit > 200:
            raise BadRequest("limit is at most 200")
        wire.match_cursor(request.cursor)  # INVALID_ARGUMENT unless issued by a gateway
        page = await self.ports.matches.list_matches(
            principal.tenant,
            game=request.game_id or None,
            finished=request.finished if request.HasField("finished") else None,
            created_after_ms=request.created_after_ms or None,
            created_before_ms=request.created_before_ms or None,
            limit=limit,
            cursor=request.cursor,
        )
        return gateway_pb2.ListMatchesResponse(
            matches=[
                gateway_pb2.MatchSummary(
                    match_id=m.match_id,
                    game_id=m.game,
                    players=list(m.players),
                    version=m.version,
                    finished=m.finished,
                    created_ms=m.created_ms,
                )
                for m in page.matches
            ],
            next_cursor=page.next_cursor or "",
        )

    async def _take_read(self, principal: Principal) -> None:
        """Reads spend the tenant's read quota, so a tenant flooding reads is held like one
        flooding actions (issue 15's flood finding)."""
        quota = self.ports.auth.tenant(principal.tenant).quotas.reads_per_second
        await self.ports.quotas.take_read(principal.tenant, quota)

    # -- play ----------------------------------------------------------------------------------

    @unary("GetView")
    async def GetView(self, request: Any, context: Any, principal: Principal) -> Any:
        key = wire.match_key(principal, request.match_id)
        await self._take_read(principal)
        view = await self.ports.matches.get_view(key, principal.seat)
        return await seatnames.view_pb(self.ports, view, key)

    @unary("SubmitAction")
    async def SubmitAction(self, request: Any, context: Any, principal: Principal) -> Any:
        key = wire.match_key(principal, request.match_id)
        seat = _seat(principal)
        action = json_bytes(request, "action", "action_value")
        if len(action) > MAX_ACTION_BYTES:
            raise TooLarge(f"an action is at most {MAX_ACTION_BYTES} bytes")
        if not action:
            raise BadRequest("action is required (action_value: the action's JSON; or action: its bytes)")
        command_id = wire.command_id(request.command_id)
        quota = self.ports.auth.tenant(principal.tenant).quotas.actions_per_second
        await self.ports.quotas.take_action(principal.tenant, quota)
        outcome = await self.ports.matches.submit(
            key,
            seat,
            action,
            command_id=command_id,
            expected_version=request.expected_version if request.HasField("expected_version") else None,
            by_bot=principal.by_bot,
        )
        response = await self._after_submit(key, outcome)
        if request.return_view and outcome.accepted:
            await self._attach_view(response, key, seat, outcome.version)
        return response

    @unary("Resign")
    async def Resign(self, request: Any, context: Any, principal: Principal) -> Any:
        key = wire.match_key(principal, request.match_id)
        seat = _seat(principal)
        command_id = wire.command_id(request.command_id)
        outcome = await self.ports.matches.resign(key, seat, command_id=command_id)
        return await self._after_submit(key, outcome)

    @unary("ReturnToSeat")
    async def ReturnToSeat(self, request: Any, context: Any, principal: Principal) -> Any:
        """Issue 41: "I'm back": the seat's player takes it back from the platform's bot."""
        key = wire.match_key(principal, request.match_id)
        seat = _seat(principal)
        if principal.by_bot:
            raise denied("ReturnToSeat is the player's: the platform's bot worker cannot call it")
        command_id = wire.command_id(request.command_id)
        return await self._after_submit(
            key, await self.ports.matches.return_to_seat(key, seat, command_id=command_id)
        )

    async def _attach_view(
        self, response: gateway_pb2.SubmitActionResponse, key: MatchKey, seat: int, version: int
    ) -> None:
        """The caller's view at `version` or later, in the accepted answer (return_view).

        It saves the bot a GetView per action: a whole client call, the gateway's largest cost per
        action. The state was just appended here and Validate brought the next seats' views, so
        this is usually the view memo, with no Redis read (min_version skips the freshness check)
        and no rules call. The action is stored whatever happens here: if the view cannot be had
        (a rules service unavailable) the answer goes without it and the client calls GetView."""
        try:
            view = await self.ports.matches.get_view(key, seat, min_version=version)
        except Exception as exc:  # the action stands; an error status would hide that it was stored
            if fault(exc) is None:
                raise  # a bug of ours: INTERNAL, logged, as everywhere else
            _log.warning("view not attached", reason=type(exc).__name__)
            return
        await seatnames.fill_view(self.ports, response.accepted.view, view, key)

    async def _after_submit(self, key: MatchKey, outcome: Any) -> gateway_pb2.SubmitActionResponse:
        response = wire.submitted_pb(outcome, key)
        if outcome.accepted and not outcome.repeated:
            metrics.ACCEPTED_ACTIONS.labels(getattr(outcome, "game", "") or "").inc()
        if wire.ended(outcome):
            await self.ports.quotas.release_match(key.tenant, key.match_id)
        return response

    @streaming("Watch")
    async def Watch(self, request: Any, context: Any, principal: Principal) -> AsyncIterator[Any]:
        key = wire.match_key(principal, request.match_id)
        with self.ports.streams.hold(principal, "Watch"):  # the caps on open streams, released at the end
            async for update in self._watch(key, request, principal):
                yield update

    async def _watch(self, key: MatchKey, request: Any, principal: Principal) -> AsyncIterator[Any]:
        await self._take_read(principal)  # opening a stream is one read; what it delivers is not
        seat = principal.seat
        hub = self.ports.hub
        known = int(request.from_version)
        metrics.WATCH_STREAMS.inc()
        try:
            async with hub.watching(key, seat) as feed:
                updates, known = await self._catch_up(key, seat, known, 0, first=True)
                for update in updates:
                    yield update
                while not self.ports.stopping.is_set() and not wire.finished(updates):
                    await hub.wait(feed, known)
                    announced = feed.version
                    # Every watcher of this match with the same seat and position needs the same
                    # updates: the first computes, the others share. Woken for a version, that is
                    # a read from it; woken by a safety poll or a resubscription, a check with
                    # Redis for anything missed (shared too: a poll wakes every watcher of the
                    # replica at once, and 10,000 separate checks delayed deliveries by a second).
                    share: tuple[Any, ...]
                    if announced > known:
                        share, min_version = (seat, known, announced), announced
                    else:
                        share, min_version = ("poll", feed.polls, seat, known), 0
                    shared = feed.shared.get(share)
                    if shared is None:
                        shared = asyncio.ensure_future(self._catch_up(key, seat, known, min_version))
                        feed.shared[share] = shared
                    updates, reached = await asyncio.shield(shared)
                    for update in updates:
                        yield update  # the loop ends after the update that ends the match
                    if reached == known and announced > known:
                        await hub.wait(feed, announced)  # announced but not readable yet: no spin
                    known = reached
        finally:
            metrics.WATCH_STREAMS.dec()

    async def _catch_up(
        self, key: MatchKey, seat: int | None, known: int, min_version: int, *, first: bool = False
    ) -> tuple[list[gateway_pb2.WatchUpdate], int]:
        """The updates that bring a watcher at `known` to the latest version, and that version.

        The view first, then the events up to its version: an update never holds events its view
        does not include, and the next read starts where this one ended (no gap, no duplicate).
        """
        matches = self.ports.matches
        view = await matches.get_view(key, seat, min_version=min_version)
        if first and known > view.version:
            raise BadRequest(f"from_version {known} is beyond the match's version {view.version}")
        updates = []
        while known < view.version:
            events = [e for e in await matches.events_since(key, seat, known) if e.version <= view.version]
            if not events:
                break
            known = events[-1].version
            update = gateway_pb2.WatchUpdate()
            wire.fill_events(update.events, events, key)
            if known >= view.version:
                await seatnames.fill_view(self.ports, update.view, view, key)
            updates.append(update)
        if first and not updates:  # nothing new: the current view, so the client can draw
            known = view.version
            update = gateway_pb2.WatchUpdate()
            await seatnames.fill_view(self.ports, update.view, view, key)
            updates.append(update)
        return updates, known

    # -- matchmaking ---------------------------------------------------------------------------

    def _ticket(self, principal: Principal, status: Any) -> gateway_pb2.Ticket:
        ticket = gateway_pb2.Ticket(
            ticket_id=status.ticket_id,
            state=_TICKET_STATES.get(status.state, gateway_pb2.Ticket.STATE_UNSPECIFIED),
            game_id=status.game,
            options=status.options_json,
            player_id=status.player_id,
        )
        if status.state == "matched" and status.match_id is not None and status.seat is not None:
            ticket.match_id = status.match_id
            ticket.seat = status.seat
            ticket.players.extend(status.players or ())
            ticket.seat_token, _ = self.ports.auth.issue(principal, status.match_id, status.seat)
        return ticket

    def _matchmaker(self) -> Any:
        if self.ports.matchmaker is None:
            raise BadRequest("matchmaking is not enabled on this gateway")
        return self.ports.matchmaker

    @unary("CreateTicket")
    async def CreateTicket(self, request: Any, context: Any, principal: Principal) -> Any:
        from gateway.matchmaking import TicketRequest

        matchmaker = self._matchmaker()
        game = self._game(request.game_id)
        player = wire.player_id(request.player_id)
        options = wire.options(json_bytes(request, "options", "options_value"))
        low = int(request.min_seats) or min(game.player_counts)
        high = int(request.max_seats) or low
        if not (low <= high and low in game.player_counts and high in game.player_counts):
            counts = ", ".join(str(c) for c in game.player_counts)
            raise BadRequest(f"{game.game_id} is played by {counts} players; asked for {low}..{high}")
        rating = request.rating if request.HasField("rating") else None
        rating = await integrations.ticket_rating(self.ports, principal.tenant, game.game_id, player, rating)
        bot_fill = integrations.check_bot_fill(request)
        limit = self.ports.auth.tenant(principal.tenant).quotas.open_tickets
        Quotas.check_open_tickets(await matchmaker.open_tickets(principal.tenant), limit)
        if self.ports.check_options is not None:
            await self.ports.check_options(game.game_id, low, options)
        status = await matchmaker.enqueue(
            TicketRequest(
                tenant=principal.tenant,
                game=game.game_id,
                options_json=options,
                min_seats=low,
                max_seats=high,
                rating=rating,
                player_id=player,
            )
        )
        if bot_fill:
            try:
                await integrations.request_bot_fill(
                    self.ports, principal, status.ticket_id, game.game_id, bot_fill, high,
                    request.bot_fill_after_seconds,
                )  # fmt: skip
            except BaseException:
                await matchmaker.cancel(principal.tenant, status.ticket_id)
                raise
        return self._ticket(principal, status)

    @staticmethod
    def _ticket_id(text: str) -> str:
        if not text or len(text) > 64:
            raise BadRequest("ticket_id is required")
        return text

    @unary("GetTicket")
    async def GetTicket(self, request: Any, context: Any, principal: Principal) -> Any:
        status = await self._matchmaker().status(principal.tenant, self._ticket_id(request.ticket_id))
        return self._ticket(principal, status)

    @unary("CancelTicket")
    async def CancelTicket(self, request: Any, context: Any, principal: Principal) -> Any:
        status = await self._matchmaker().cancel(principal.tenant, self._ticket_id(request.ticket_id))
        return self._ticket(principal, status)

    @streaming("WatchTicket")
    async def WatchTicket(self, request: Any, context: Any, principal: Principal) -> AsyncIterator[Any]:
        matchmaker = self._matchmaker()
        ticket_id = self._ticket_id(request.ticket_id)
        with self.ports.streams.hold(principal, "WatchTicket"):  # an open stream like Watch's
            async for ticket in self._watch_ticket(matchmaker, ticket_id, principal):
                yield ticket

    async def _watch_ticket(
        self, matchmaker: Any, ticket_id: str, principal: Principal
    ) -> AsyncIterator[Any]:
        status = await matchmaker.status(principal.tenant, ticket_id)
        metrics.TICKET_STREAMS.inc()
        try:
            yield self._ticket(principal, status)
            while status.state == "queued" and not self.ports.stopping.is_set():
                latest = await matchmaker.wait(principal.tenant, ticket_id, status.state, _TICKET_WAIT_S)
                if latest.state != status.state:
                    yield self._ticket(principal, latest)
                status = latest
        finally:
            metrics.TICKET_STREAMS.dec()

    # -- audit ---------------------------------------------------------------------------------

    @unary("Replay")
    async def Replay(self, request: Any, context: Any, principal: Principal) -> Any:
        key = wire.match_key(principal, request.match_id)
        await self._take_read(principal)
        view = await self.ports.matches.replay(key, int(request.version), principal.seat)
        return await seatnames.view_pb(self.ports, view, key)

    @unary("Audit")
    async def Audit(self, request: Any, context: Any, principal: Principal) -> Any:
        key = wire.match_key(principal, request.match_id)
        await self._take_read(principal)
        result = await self.ports.matches.audit(key, audit_wire.held_receipts(request))
        return audit_wire.audit_pb(result)

    @unary("ReadEvents")
    async def ReadEvents(self, request: Any, context: Any, principal: Principal) -> Any:
        key = wire.match_key(principal, request.match_id)
        await self._take_read(principal)
        limit = request.limit or 1000
        if limit > 1000:
            raise BadRequest("limit is at most 1000")
        events = await self.ports.matches.raw_events(key, int(request.after_version), limit)
        out = []
        for e in events:
            stored = gateway_pb2.StoredEvent(
                version=e.version,
                type=e.type,
                actor=e.actor,
                command_id=e.command_id,
                payload=e.payload,
                rules_version=e.rules_version,
                time_ms=e.time_ms,
                prev_hash=e.prev_hash,
                hash=e.hash,
            )
            receipt = getattr(e, "receipt", None)
            if receipt is not None:
                wire.fill_receipt(stored.receipt, receipt, key)
            out.append(stored)
        return gateway_pb2.ReadEventsResponse(events=out)

    # -- game data (issue 21) ------------------------------------------------------------------

    @unary("GetGameData")
    async def GetGameData(self, request: Any, context: Any, principal: Principal) -> Any:
        game = self._game(request.game_id)
        if request.rules_version and request.rules_version != game.rules_version:
            of_version = getattr(self.ports.game_data, "of_version", None)  # issue 40
            if of_version is None:
                raise BadRequest("this gateway serves one rules version per game: leave rules_version empty")
            data = of_version(game.game_id, request.rules_version)
        else:
            data = self.ports.game_data.get(game.game_id)
        if data is None:
            raise BadRequest(f"the rules service of {game.game_id} publishes no game data")
        if request.known_version and request.known_version == data.version:
            return gateway_pb2.GetGameDataResponse(
                game_id=data.game_id, version=data.version, not_modified=True
            )
        return data

    # -- play stream (issue 25) ----------------------------------------------------------------

    @streaming("Play")
    def Play(self, requests: Any, context: Any, principal: Principal) -> AsyncIterator[Any]:
        # The session's own iterator, not a generator around it: every update and every wake-up
        # of the session passes through each async generator between it and gRPC (issue 45).
        return play(self.ports, principal, requests)

    # -- export (issue 22) ---------------------------------------------------------------------

    @unary("ExportMatch")
    async def ExportMatch(self, request: Any, context: Any, principal: Principal) -> Any:
        key = wire.match_key(principal, request.match_id)
        await self._take_read(principal)
        exported = await self.ports.matches.export(key, audit_wire.up_to_version(request))
        return audit_wire.exported_pb(exported)

    # -- rules bundles (issue 40) ---------------------------------------------------------------

    @unary("GetRulesBundle")
    async def GetRulesBundle(self, request: Any, context: Any, principal: Principal) -> Any:
        await self._take_read(principal)
        bundle = await self.ports.matches.rules_bundle(request.game_id, request.rules_version)
        return gateway_pb2.GetRulesBundleResponse(file_name=bundle.name, bundle=bundle.raw)


# Issue 23's RPCs (ratings, webhook dead letters, the bot worker's leases): gateway/api/integrations.py;
# private tables' (CreateTable, ClaimSeat, ResumeSeat): gateway/api/tables_rpc.py; issue 41's Undo:
# gateway/api/undo.py.
for _rpc, _handler in {**integrations.HANDLERS, **tables_rpc.HANDLERS, **undo.HANDLERS}.items():
    setattr(GatewayServicer, _rpc, unary(_rpc)(_handler))


def _seat_count(view: Any) -> int:
    players = getattr(view, "players", None)
    if players is not None:
        return len(players)
    return int(view.seat_count)
