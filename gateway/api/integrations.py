"""The RPCs of tenant integrations (issue 23): ratings and leaderboards, webhook dead letters,
the bot worker's leases; and the bot-seat checks CreateMatch, CreateTable and CreateTicket share.

Each handler is a method body `(servicer, request, context, principal)`; gateway/api/server.py
attaches them to GatewayServicer under its `unary` wrapper (authentication against THE scope
table, log line, status mapping), so they read like the servicer's own.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import structlog
from guildhall.gateway.v1 import gateway_pb2 as pb

from gateway.api import wire
from gateway.api.wire import BadRequest
from gateway.auth import BY_BOTWORKER, Principal
from gateway.botseats import NOT_THERE_YET_S, BotLease, BotSeatError, bot_player_id, check_kind
from gateway.domain.timers import AWAY_BOT_KIND
from gateway.eventstore.base import MatchKey

_log = structlog.get_logger("rpc")

BOT_LEASE_S = 30.0  # a worker renews every third of this; a dead worker's seats wait this long
_MAX_PAGE = 200


def _need(port: Any, what: str) -> Any:
    if port is None:
        raise BadRequest(f"{what} are not enabled on this gateway")
    return port


def _limit(value: int) -> int:
    if value > _MAX_PAGE:
        raise BadRequest(f"limit is at most {_MAX_PAGE}")
    return value or 50


# -- bot seats in CreateMatch, CreateTable, CreateTicket ----------------------------------------


def seat_bots(
    players: Sequence[str], bots: Sequence[Any], seats: int | None = None
) -> tuple[list[str], dict[int, str]]:
    """The match's players seat by seat, bots included (`bot-<kind>-<seat>`), and the bot seats.

    CreateMatch: `seats` None, the players take the seats the bots leave, in order. CreateTable:
    `seats` given, the other seats stay the table's placeholders."""
    total = len(players) + len(bots) if seats is None else seats
    chosen: dict[int, str] = {}
    for bot in bots:
        seat = int(bot.seat)
        if not 0 <= seat < total or seat in chosen:
            raise BadRequest(f"bot seats must be distinct seats from 0 to {total - 1}")
        try:
            chosen[seat] = check_kind(bot.kind)
        except BotSeatError as error:
            raise BadRequest(str(error)) from None
    humans = iter(players)
    out = [
        bot_player_id(chosen[seat], seat) if seat in chosen else next(humans, f"seat-{seat}")
        for seat in range(total)
    ]
    return out, chosen


async def enlist(ports: Any, tenant: str, match_id: str, game: str, bots: dict[int, str]) -> None:
    """Tell the bot worker about the seats, before the match exists (docs: gateway/botseats.py)."""
    if bots:
        await _need(ports.bots, "platform bots").enlist(tenant, match_id, game, bots)


async def claim_table_seats(ports: Any, tenant: str, code: str, bots: dict[int, str]) -> None:
    """A table's bot seats, claimed at once (no name to check, no resume secret: nobody moves a
    bot's seat, and nobody can claim it: issue 39)."""
    for seat, kind in sorted(bots.items()):
        await ports.tables.claim(tenant, code, bot_player_id(kind, seat), seat=seat)


async def ticket_rating(ports: Any, tenant: str, game: str, player: str, given: float | None) -> float | None:
    """A ticket's rating: the one it carries, else the player's own (matchmaking's scale)."""
    if given is not None or ports.ratings is None:
        return given
    rating: float | None = await ports.ratings.for_matchmaking(tenant, game, player)
    return rating


def check_bot_fill(request: Any) -> str:
    if not request.bot_fill:
        return ""
    try:
        return check_kind(request.bot_fill)
    except BotSeatError as error:
        raise BadRequest(str(error)) from None


async def request_bot_fill(
    ports: Any, principal: Principal, ticket_id: str, game: str, kind: str, seats: int, after_s: int
) -> None:
    wait = float(after_s) if after_s else ports.auth.tenant(principal.tenant).bot_wait_s
    await _need(ports.bots, "platform bots").request_fill(
        principal.tenant, game, ticket_id, kind, seats, wait
    )


# -- ratings -------------------------------------------------------------------------------------


def _rating_pb(rating: Any) -> pb.Rating:
    return pb.Rating(
        player_id=rating.player_id,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        matches=rating.matches,
        rank=rating.rank,
    )


async def get_ratings(self: Any, request: Any, context: Any, principal: Principal) -> Any:
    ratings = _need(self.ports.ratings, "ratings")
    game = self._game(request.game_id)
    if len(request.player_ids) > _MAX_PAGE:
        raise BadRequest(f"at most {_MAX_PAGE} player_ids")
    players = [wire.player_id(p, "player_ids") for p in request.player_ids]
    await self._take_read(principal)
    found = await ratings.get(principal.tenant, game.game_id, players)
    return pb.GetRatingsResponse(ratings=[_rating_pb(r) for r in found])


async def list_leaderboard(self: Any, request: Any, context: Any, principal: Principal) -> Any:
    ratings = _need(self.ports.ratings, "ratings")
    game = self._game(request.game_id)
    start = wire.offset_cursor(request.cursor)
    await self._take_read(principal)
    page, cursor = await ratings.leaderboard(
        principal.tenant, game.game_id, _limit(request.limit), str(start)
    )
    return pb.ListLeaderboardResponse(ratings=[_rating_pb(r) for r in page], next_cursor=cursor)


# -- webhook dead letters (operator) ------------------------------------------------------------


def _tenant(self: Any, tenant: str) -> str:
    if tenant not in self.ports.auth.tenants:
        raise BadRequest(f"no tenant {tenant[:64]!r} is configured")
    return tenant


async def list_dead_letters(self: Any, request: Any, context: Any, principal: Principal) -> Any:
    webhooks = _need(self.ports.webhooks, "webhooks")
    tenant = _tenant(self, request.tenant)
    start = wire.offset_cursor(request.cursor)
    letters, cursor = await webhooks.outbox.dead_letters(tenant, _limit(request.limit), str(start))
    return pb.ListDeadLettersResponse(
        dead_letters=[
            pb.DeadLetter(
                delivery_id=d.delivery_id,
                event_id=d.event_id,
                event_type=d.event_type,
                endpoint_id=d.endpoint_id,
                attempts=d.attempts,
                last_error=d.last_error,
                failed_ms=d.failed_ms,
                body=d.body.encode(),
            )
            for d in letters
        ],
        next_cursor=cursor,
    )


async def replay_dead_letters(self: Any, request: Any, context: Any, principal: Principal) -> Any:
    webhooks = _need(self.ports.webhooks, "webhooks")
    tenant = _tenant(self, request.tenant)
    if request.all == bool(request.delivery_ids):
        raise BadRequest("name delivery_ids, or set all (not both)")
    if len(request.delivery_ids) > 1000:
        raise BadRequest("at most 1000 delivery_ids at a time")
    replayed = await webhooks.outbox.replay(tenant, None if request.all else list(request.delivery_ids))
    _log.info("dead letters replayed", tenant=tenant, count=replayed, operator=principal.key_id)
    return pb.ReplayDeadLettersResponse(replayed=replayed)


# -- the bot worker's leases --------------------------------------------------------------------


async def _still_a_bot_seat(self: Any, lease: BotLease) -> str:
    """'play', 'later' (the match is not there yet) or 'drop' (ended, gone, or not a bot seat)."""
    try:
        key = MatchKey(lease.tenant, lease.match_id)
    except ValueError:
        return "drop"
    meta = await self.ports.matches.store.meta(key)
    if not meta:
        young = time.time() * 1000 - lease.since_ms < NOT_THERE_YET_S * 1000
        return "later" if young else "drop"
    bots = wire_bots(meta.get("bots", ""))
    away = lease.kind == AWAY_BOT_KIND and lease.seat in _seats(meta.get("away", ""))  # issue 41
    if meta.get("finished") == "1" or (bots.get(lease.seat) != lease.kind and not away):
        return "drop"
    return "play"


def _seats(text: str) -> set[int]:
    import json

    try:
        return {int(seat) for seat in json.loads(text or "[]")}
    except (ValueError, TypeError):
        return set()


def wire_bots(text: str) -> dict[int, str]:
    import json

    try:
        return {int(seat): str(kind) for seat, kind in json.loads(text or "{}").items()}
    except (ValueError, AttributeError):
        return {}


async def claim_bot_seats(self: Any, request: Any, context: Any, principal: Principal) -> Any:
    bots = _need(self.ports.bots, "platform bots")
    if not 1 <= request.max_seats <= 100:
        raise BadRequest("max_seats is 1 to 100")
    leases = await bots.claim(request.worker or principal.key_id, request.max_seats, BOT_LEASE_S)
    out = []
    until = await bots.lease_until_ms(BOT_LEASE_S)
    for lease in leases:
        verdict = await _still_a_bot_seat(self, lease)
        if verdict != "play":
            await bots.release([lease.lease_id], done=verdict == "drop", retry_in_s=2.0)
            continue
        # Marked as the bot worker's: it may act only while the seat is a bot's or away (issue 41).
        token, _ = self.ports.auth.issue(
            principal, lease.match_id, lease.seat, tenant=lease.tenant, origin=BY_BOTWORKER
        )
        out.append(
            pb.BotAssignment(
                lease_id=lease.lease_id,
                tenant=lease.tenant,
                match_id=lease.match_id,
                game_id=lease.game,
                seat=lease.seat,
                kind=lease.kind,
                seat_token=token,
                lease_until_ms=until,
            )
        )
    return pb.ClaimBotSeatsResponse(seats=out)


async def renew_bot_seats(self: Any, request: Any, context: Any, principal: Principal) -> Any:
    bots = _need(self.ports.bots, "platform bots")
    if len(request.lease_ids) > 1000:
        raise BadRequest("at most 1000 lease_ids at a time")
    renewed = await bots.renew(list(request.lease_ids), BOT_LEASE_S)
    return pb.RenewBotSeatsResponse(renewed=renewed, lease_until_ms=await bots.lease_until_ms(BOT_LEASE_S))


async def release_bot_seats(self: Any, request: Any, context: Any, principal: Principal) -> Any:
    bots = _need(self.ports.bots, "platform bots")
    if len(request.lease_ids) > 1000:
        raise BadRequest("at most 1000 lease_ids at a time")
    await bots.release(list(request.lease_ids), done=request.done)
    return pb.ReleaseBotSeatsResponse()


Handler = Callable[[Any, Any, Any, Principal], Awaitable[Any]]
HANDLERS: dict[str, Handler] = {
    "GetRatings": get_ratings,
    "ListLeaderboard": list_leaderboard,
    "ListDeadLetters": list_dead_letters,
    "ReplayDeadLetters": replay_dead_letters,
    "ClaimBotSeats": claim_bot_seats,
    "RenewBotSeats": renew_bot_seats,
    "ReleaseBotSeats": release_bot_seats,
}
