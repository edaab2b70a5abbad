"""Private tables' RPCs: CreateTable, ClaimSeat (issues 32, 39) and ResumeSeat (issue 39).

Each handler is a method body `(servicer, request, context, principal)`; gateway/api/server.py
attaches them to GatewayServicer under its `unary` wrapper (authentication against THE scope
table, log line, status mapping), so they read like the servicer's own.

A table opened with a publishable key is a web table (docs/gateway.md, "Web tables"): its own
buckets of tables per minute (per key and per client address), its own cap apart from
`active_matches`, the tenant's `tables` defaults (turn timer, unclaimed deadline), and tokens
that say they came from the publishable key.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from guildhall.common.v1 import common_pb2
from guildhall.gateway.v1 import gateway_pb2

from gateway.api import integrations, wire
from gateway.api.jsonfields import json_bytes
from gateway.api.peers import client_address
from gateway.api.wire import BadRequest
from gateway.auth import BY_PUBLISHABLE, Principal
from gateway.eventstore.base import MatchKey
from gateway.tables import BadInvite, TableError


async def create_table(self: Any, request: Any, context: Any, principal: Principal) -> Any:
    if self.ports.tables is None:
        raise BadRequest("private tables are not enabled on this gateway")
    game = self._game(request.game_id)
    seats = int(request.seats)
    if seats not in game.player_counts:
        counts = ", ".join(str(c) for c in game.player_counts)
        raise BadRequest(f"{game.game_id} is played by {counts} players, not {seats}")
    options = wire.options(json_bytes(request, "options", "options_value"))
    timer = self._timer(principal, request)
    tenant = self.ports.auth.tenant(principal.tenant)
    web = principal.publishable  # a browser's key (issues 32, 39): a web table
    if web:
        address = client_address(context.peer(), context.invocation_metadata(), self.ports.trusted_proxies)
        quotas = tenant.quotas
        await self.ports.quotas.take_table(
            principal.tenant, principal.key_id, quotas.tables_per_minute, address,
            quotas.tables_per_minute_per_address,
        )  # fmt: skip
    match_id = uuid.uuid4().hex
    limit = tenant.quotas.web_tables if web else tenant.quotas.active_matches
    await self.ports.quotas.admit_match(principal.tenant, match_id, limit, web=web)
    # Seats are named after the invite's claim order; the match exists from the start so
    # spectators can watch it fill, and nobody acts until its seats are claimed (issue 39).
    players, bots = integrations.seat_bots([], request.bots, seats)
    try:
        await integrations.enlist(self.ports, principal.tenant, match_id, game.game_id, bots)
        await self.ports.matches.create(
            principal.tenant,
            game.game_id,
            players,
            options,
            match_id=match_id,
            turn_timer=timer,
            created_by=principal.key_id,
            bots=bots,
            awaiting=[seat for seat in range(seats) if seat not in bots],
        )
        code = await self.ports.tables.open(principal.tenant, match_id, players)
        await integrations.claim_table_seats(self.ports, principal.tenant, code, bots)
        # Unclaimed too long, it closes: soon for a web table, with the invite for the others.
        wait_s = tenant.tables.unclaimed_seconds if web else self.ports.tables.ttl_s - 60
        await self.ports.tables.set_deadline(principal.tenant, match_id, int((time.time() + wait_s) * 1000))
    except BaseException:
        await self.ports.quotas.release_match(principal.tenant, match_id)
        raise
    spectator, _ = self.ports.auth.issue(principal, match_id, None, origin=_origin(principal))
    return gateway_pb2.CreateTableResponse(match_id=match_id, invite_code=code, spectator_token=spectator)


async def claim_seat(self: Any, request: Any, context: Any, principal: Principal) -> Any:
    if self.ports.tables is None:
        raise BadRequest("private tables are not enabled on this gateway")
    player = wire.player_id(request.player_id)
    # Issue 32: the name every viewer sees; without one, the player id is the name.
    try:
        name, name_key = wire.display_name(request.display_name or player[:40])
    except BadRequest as error:
        hint = "" if request.display_name else " (without a display_name, the player_id is the name)"
        raise BadRequest(f"{error}{hint}") from None
    if not request.invite_code or len(request.invite_code) > 128:
        return _refused(BadInvite("no table has this invite code"))
    try:
        claimed = await self.ports.tables.claim(
            principal.tenant, request.invite_code, player, claim_id=request.claim_id, name_key=name_key
        )
    except TableError as refusal:
        return _refused(refusal)
    except ValueError as error:  # the name another seat has, a malformed claim id
        raise BadRequest(str(error)) from None
    match_id, seat = claimed.match_id, claimed.seat
    key = MatchKey(principal.tenant, match_id)
    if self.ports.names is not None and not claimed.again:  # a repeated claim keeps its name
        await self.ports.tables.name_seat(principal.tenant, match_id, seat, name)
        self.ports.names.forget(key)
    await self.ports.matches.claim_seat(key, seat)  # the stream learns of it: play may start
    return await _seat_answer(self, principal, match_id, seat, player)


async def resume_seat(self: Any, request: Any, context: Any, principal: Principal) -> Any:
    """Issue 39: a claimed seat on another device, with the secret only its holder has."""
    if self.ports.tables is None:
        raise BadRequest("private tables are not enabled on this gateway")
    try:
        match_id, seat, secret = await self.ports.tables.resume(principal.tenant, request.resume_secret)
    except TableError as refusal:
        return _refused(refusal)
    return await _seat_answer(self, principal, match_id, seat, "", secret)


async def _seat_answer(
    self: Any, principal: Principal, match_id: str, seat: int, player: str, secret: str = ""
) -> Any:
    """A claimed seat's token and resume secret (a fresh one unless given)."""
    if not secret:
        secret = await self.ports.tables.new_resume_secret(principal.tenant, match_id, seat)
    token, _ = self.ports.auth.issue(principal, match_id, seat, origin=_origin(principal))
    return gateway_pb2.ClaimSeatResponse(
        seat=gateway_pb2.SeatToken(seat=seat, player_id=player, token=token),
        match_id=match_id,
        resume_secret=secret,
    )


def _origin(principal: Principal) -> str:
    """What a token minted for this caller says of where it came from (gateway/auth.py)."""
    return BY_PUBLISHABLE if principal.publishable else ""


def _refused(refusal: TableError) -> gateway_pb2.ClaimSeatResponse:
    """A claim or resume refused: a rejection (bad_invite, seat_taken) in the answer."""
    rejection = common_pb2.Rejection(code=refusal.code, message=str(refusal))
    return gateway_pb2.ClaimSeatResponse(rejection=rejection, match_id=getattr(refusal, "match_id", ""))


HANDLERS = {"CreateTable": create_table, "ClaimSeat": claim_seat, "ResumeSeat": resume_seat}
