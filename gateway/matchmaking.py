"""Matchmaking on Redis: tickets queue per tenant and game; any replica pairs them atomically.

One pool per (tenant, game); all keys of a pool share the hash tag `{mm:<tenant>:<game>}`, so
its Lua scripts run on Redis Cluster (pools spread over the primaries):

    gh:mm:{t:g}:queue      sorted set: queued ticket id -> enqueued at (ms); oldest first
    gh:mm:{t:g}:tickets    hash: ticket id -> the ticket as JSON (state, seats, match, ...)
    gh:mm:{t:g}:done       sorted set: finished ticket id -> when; forgotten after `retention_s`
    gh:mm:{t:g}:pending    sorted set: pairing id -> lease end (ms): matches being created
    gh:mm:{t:g}:pairings   hash: pairing id -> the pairing as JSON
    gh:mm:pools            set of "<tenant>:<game>" with a pool (its own slot; only grows)

A ticket moves queued -> pairing -> matched, or queued -> cancelled | expired. Pairing runs in
three steps, each one atomic script: read the oldest queued tickets (sweeping expired ones),
choose tables with the pure policy (`gateway/domain/pairing.py`) in Python, then commit: the
commit script seats a table only if every one of its tickets is still queued, so two replicas
racing never put a ticket in two matches, and a cancel (which is atomic too) always either
wins before the commit or finds the ticket already being seated. The committing replica then
creates the match (idempotent on match id) and marks the pairing done, which makes the tickets
`matched`. A pairing is leased: if its replica dies or the creation fails, any replica claims it
again when the lease runs out; after `max_attempts` failed creations its tickets go back to the
queue (or expire). Clients see `pairing` as `queued`; a cancel then is too late (no change).

Every change publishes "<tenant>:<ticket id>" on `gh:mm:tickets`; an enqueue publishes the pool
on `gh:mm:wake`. Each replica holds one subscription for both (waiters and the pairing loop),
not one per waiter, plus a slow safety poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog

from gateway.domain.pairing import (
    PairingPolicy,
    QueuedTicket,
    canonical_options,
    check_rating,
    check_seats,
    form_tables,
)
from gateway.scripts import ColdClusterGuard, guarded_script
from gateway.subscription import live_messages, stop_listener

_log = structlog.get_logger("matchmaking")

TICKETS_CHANNEL = "gh:mm:tickets"
WAKE_CHANNEL = "gh:mm:wake"
POOLS_KEY = "gh:mm:pools"

QUEUED, MATCHED, CANCELLED, EXPIRED = "queued", "matched", "cancelled", "expired"
STATES = (QUEUED, MATCHED, CANCELLED, EXPIRED)
_PAIRING = "pairing"  # internal: seated, match being created; clients see QUEUED

# Tenant and game ids end up in keys and a hash tag: no `{`, `}` or `:` (as MatchKey).
_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_TICKET_ID = re.compile(r"t\.[0-9a-f]{24}")
MAX_PLAYER_ID = 128
_RELIST_POOLS_S = 60.0

# KEYS: queue, tickets.  ARGV: ticket id, ticket JSON, enqueued ms, wake channel, pool
_ENQUEUE = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
"""

# KEYS: queue, tickets, done.  ARGV: ticket id, now ms, tickets channel, tenant
_CANCEL = """
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return false end
local t = cjson.decode(raw)
if t.state ~= 'queued' then return raw end
local now = tonumber(ARGV[2])
if t.exp <= now then t.state = 'expired' else t.state = 'cancelled' end
t.ended = now
raw = cjson.encode(t)
redis.call('HSET', KEYS[2], ARGV[1], raw)
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[3], now, ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[4] .. ':' .. ARGV[1])
return raw
"""

# KEYS: queue, tickets, done.  ARGV: now ms, limit, retention ms, tickets channel, tenant
# Returns {queued count, ticket JSON...} for the oldest `limit` live queued tickets.
_READ = """
local now = tonumber(ARGV[1])
local old = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[3]), 'LIMIT', 0, 200)
for _, id in ipairs(old) do
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
local out = {0}
for _, id in ipairs(ids) do
  local raw = redis.call('HGET', KEYS[2], id)
  local t = raw and cjson.decode(raw)
  if not t or t.state ~= 'queued' then
    redis.call('ZREM', KEYS[1], id)
  elseif t.exp <= now then
    t.state = 'expired'
    t.ended = now
    redis.call('HSET', KEYS[2], id, cjson.encode(t))
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZADD', KEYS[3], now, id)
    redis.call('PUBLISH', ARGV[4], ARGV[5] .. ':' .. id)
  else
    out[#out + 1] = raw
  end
end
out[1] = redis.call('ZCARD', KEYS[1])
return out
"""

# KEYS: queue, tickets, pending, pairings.  ARGV: now ms, lease ms, then one pairing JSON each
# Seats a pairing only if all its tickets are still queued and alive; returns the seated ids.
_COMMIT = """
local now = tonumber(ARGV[1])
local seated = {}
for i = 3, #ARGV do
  local p = cjson.decode(ARGV[i])
  local tickets = {}
  for _, s in ipairs(p.seats) do
    local raw = redis.call('HGET', KEYS[2], s[1])
    local t = raw and cjson.decode(raw)
    if not t or t.state ~= 'queued' or t.exp <= now then
      tickets = nil
      break
    end
    tickets[#tickets + 1] = {s[1], t}
  end
  if tickets then
    for _, entry in ipairs(tickets) do
      entry[2].state = 'pairing'
      entry[2].pairing = p.pairing_id
      redis.call('HSET', KEYS[2], entry[1], cjson.encode(entry[2]))
      redis.call('ZREM', KEYS[1], entry[1])
    end
    redis.call('HSET', KEYS[4], p.pairing_id, ARGV[i])
    redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), p.pairing_id)
    seated[#seated + 1] = p.pairing_id
  end
end
return seated
"""

# KEYS: tickets, pending, pairings, done.  ARGV: pairing id, now ms, tickets channel, tenant
_COMPLETE = """
local raw = redis.call('HGET', KEYS[3], ARGV[1])
if not raw then return 0 end
local p = cjson.decode(raw)
local players = {}
for _, s in ipairs(p.seats) do players[s[2] + 1] = s[3] end
local now = tonumber(ARGV[2])
for _, s in ipairs(p.seats) do
  local traw = redis.call('HGET', KEYS[1], s[1])
  local t = traw and cjson.decode(traw)
  if t and t.state == 'pairing' and t.pairing == ARGV[1] then
    t.state = 'matched'
    t.match = p.match_id
    t.seat = s[2]
    t.players = players
    t.ended = now
    redis.call('HSET', KEYS[1], s[1], cjson.encode(t))
    redis.call('ZADD', KEYS[4], now, s[1])
    redis.call('PUBLISH', ARGV[3], ARGV[4] .. ':' .. s[1])
  end
end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""

# KEYS: pending, pairings.  ARGV: now ms, lease ms, limit
# Claims pairings whose lease ran out (their replica died or creation failed): {pairing JSON...}
_RECLAIM = """
local now = tonumber(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  local raw = redis.call('HGET', KEYS[2], id)
  if raw then
    local p = cjson.decode(raw)
    p.attempts = (p.attempts or 0) + 1
    raw = cjson.encode(p)
    redis.call('HSET', KEYS[2], id, raw)
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), id)
    out[#out + 1] = raw
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out
"""

# KEYS: queue, tickets, pending, pairings, done.  ARGV: pairing id, now ms, tickets channel, tenant
# Gives up on a pairing: its tickets go back to the queue at their old place, or expire.
_ABANDON = """
local raw = redis.call('HGET', KEYS[4], ARGV[1])
if not raw then return 0 end
local p = cjson.decode(raw)
local now = tonumber(ARGV[2])
for _, s in ipairs(p.seats) do
  local traw = redis.call('HGET', KEYS[2], s[1])
  local t = traw and cjson.decode(traw)
  if t and t.state == 'pairing' and t.pairing == ARGV[1] then
    t.pairing = nil
    if t.exp > now then
      t.state = 'queued'
      redis.call('ZADD', KEYS[1], t.enq, s[1])
    else
      t.state = 'expired'
      t.ended = now
      redis.call('ZADD', KEYS[5], now, s[1])
    end
    redis.call('HSET', KEYS[2], s[1], cjson.encode(t))
    redis.call('PUBLISH', ARGV[3], ARGV[4] .. ':' .. s[1])
  end
end
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"""


class TicketNotFound(LookupError):
    """No such ticket for this tenant (also for another tenant's ticket, and after retention)."""


class InvalidRequest(ValueError):
    """A ticket request the queue refuses (the message says which field)."""


@dataclass(frozen=True)
class TicketRequest:
    tenant: str
    game: str
    options_json: bytes
    min_seats: int
    max_seats: int
    rating: float | None
    player_id: str


@dataclass(frozen=True)
class TicketStatus:
    ticket_id: str
    state: str  # queued | matched | cancelled | expired
    match_id: str | None
    seat: int | None
    players: list[str] | None  # player ids in seat order, once matched
    game: str
    options_json: bytes
    player_id: str
    min_seats: int = 0
    max_seats: int = 0
    rating: float | None = None
    enqueued_ms: int = 0
    expires_ms: int = 0


@dataclass(frozen=True)
class Pairing:
    match_id: str
    tenant: str
    game: str
    options_json: bytes
    players: list[str]  # player ids in seat order
    seats: list[tuple[str, int, str]]  # (ticket id, seat, player id), in seat order
    attempts: int = 0


class _StoredTicket(msgspec.Struct, omit_defaults=True):
    """A ticket as kept in the pool's hash (short names: Lua reads and rewrites it)."""

    id: str
    player: str
    options: str
    min: int
    max: int
    rating: str  # exact decimal text ("" = unrated): Lua's JSON would round a float
    enq: int
    exp: int
    state: str
    match: str = ""
    seat: int = -1
    players: list[str] = []
    pairing: str = ""
    ended: int = 0


class _StoredPairing(msgspec.Struct):
    pairing_id: str
    match_id: str
    options: str
    seats: list[tuple[str, int, str]]
    attempts: int = 0


_TICKET = msgspec.json.Decoder(_StoredTicket)
_PAIRING_DECODER = msgspec.json.Decoder(_StoredPairing)
_JSON = msgspec.json.Encoder()


@dataclass(frozen=True)
class _Pool:
    tenant: str
    game: str

    @property
    def member(self) -> str:
        return f"{self.tenant}:{self.game}"

    def key(self, part: str) -> str:
        return f"gh:mm:{{{self.tenant}:{self.game}}}:{part}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _check_id(name: str, value: str) -> None:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise InvalidRequest(f"{name} must match [A-Za-z0-9._-]{{1,64}}")


def _pool_of(ticket_id: str) -> str:
    """The game named inside a ticket id ("<game>/t.<hex>"), or TicketNotFound."""
    game, slash, rest = ticket_id.rpartition("/") if isinstance(ticket_id, str) else ("", "", "")
    if not slash or not _ID.fullmatch(game) or not _TICKET_ID.fullmatch(rest):
        raise TicketNotFound(ticket_id)
    return game


class Matchmaker:
    """Ticket queues and pairing on a `redis.asyncio` client (plain or cluster).

    `subscriber`: the client for this replica's one pub/sub connection (defaults to `redis`).
    """

    def __init__(
        self,
        redis: Any,
        *,
        ticket_ttl_s: float = 600,
        clock: Callable[[], float] = time.time,
        policy: PairingPolicy | None = None,
        subscriber: Any = None,
        interval_s: float = 0.25,
        full_scan_s: float = 5.0,
        lease_s: float = 10.0,
        retention_s: float = 3600.0,
        batch: int = 256,
        max_attempts: int = 5,
        safety_poll_s: float = 15.0,
        concurrency: int = 32,
        recheck_s: float = 1.0,
    ) -> None:
        self._redis = redis
        self._subscriber = subscriber if subscriber is not None else redis
        self._ttl_ms = int(ticket_ttl_s * 1000)
        self._clock = clock
        self._policy = policy or PairingPolicy()
        self._interval_s = interval_s
        self._full_scan_s = full_scan_s
        self._lease_ms = int(lease_s * 1000)
        self._retention_ms = int(retention_s * 1000)
        self._batch = batch
        self._max_attempts = max_attempts
        self._safety_poll_s = safety_poll_s
        self._concurrency = concurrency
        self._recheck_s = recheck_s
        guard = ColdClusterGuard(redis)
        self._enqueue = guarded_script(redis, guard, _ENQUEUE)
        self._cancel = guarded_script(redis, guard, _CANCEL)
        self._read = guarded_script(redis, guard, _READ)
        self._commit = guarded_script(redis, guard, _COMMIT)
        self._complete = guarded_script(redis, guard, _COMPLETE)
        self._reclaim = guarded_script(redis, guard, _RECLAIM)
        self._abandon = guarded_script(redis, guard, _ABANDON)
        # Pools this replica listed in POOLS_KEY, and when (monotonic s): re-listed now and then
        # in case the set was lost (a restore from an old backup, a flushed test database).
        self._known_pools: dict[str, float] = {}
        self._woken: set[str] = set()  # pools an enqueue announced since the last pass
        self._wake = asyncio.Event()
        self._waiters: dict[tuple[str, str], set[asyncio.Event]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self._seats_rng = secrets.SystemRandom()

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    # -- tickets --------------------------------------------------------------------------

    async def enqueue(self, req: TicketRequest) -> TicketStatus:
        """Queue a player; the ticket id names its game, so status needs only tenant and id."""
        _check_id("tenant", req.tenant)
        _check_id("game", req.game)
        if not isinstance(req.player_id, str) or not 1 <= len(req.player_id) <= MAX_PLAYER_ID:
            raise InvalidRequest(f"player_id must be 1-{MAX_PLAYER_ID} characters")
        if not req.player_id.isprintable():
            raise InvalidRequest("player_id must be printable text")
        try:
            check_seats(req.min_seats, req.max_seats)
            check_rating(req.rating)
            options = canonical_options(req.options_json)
        except ValueError as error:
            raise InvalidRequest(str(error)) from None
        pool = _Pool(req.tenant, req.game)
        now = self._now_ms()
        ticket = _StoredTicket(
            id=f"{req.game}/t.{secrets.token_hex(12)}",
            player=req.player_id,
            options=options,
            min=req.min_seats,
            max=req.max_seats,
            rating="" if req.rating is None else repr(float(req.rating)),
            enq=now,
            exp=now + self._ttl_ms,
            state=QUEUED,
        )
        listed = self._known_pools.get(pool.member)
        if listed is None or time.monotonic() - listed > _RELIST_POOLS_S:
            # Before the ticket exists, so every queued ticket's pool is listed for the loops.
            await self._redis.sadd(POOLS_KEY, pool.member)
            self._known_pools[pool.member] = time.monotonic()
        await self._enqueue(
            keys=[pool.key("queue"), pool.key("tickets")],
            args=[ticket.id, _JSON.encode(ticket), now, WAKE_CHANNEL, pool.member],
        )
        return self._status(pool, ticket, now)

    async def cancel(self, tenant: str, ticket_id: str) -> TicketStatus:
        """Withdraw a queued ticket; a ticket already being seated or finished is returned as is."""
        pool = self._pool_for(tenant, ticket_id)
        now = self._now_ms()
        raw = await self._cancel(
            keys=[pool.key("queue"), pool.key("tickets"), pool.key("done")],
            args=[ticket_id, now, TICKETS_CHANNEL, tenant],
        )
        if raw is None:
            raise TicketNotFound(ticket_id)
        return self._status(pool, _TICKET.decode(raw), now)

    async def status(self, tenant: str, ticket_id: str) -> TicketStatus:
        """The ticket as its player should see it now."""
        pool = self._pool_for(tenant, ticket_id)
        raw = await self._redis.hget(pool.key("tickets"), ticket_id)
        if raw is None:
            raise TicketNotFound(ticket_id)
        return self._status(pool, _TICKET.decode(raw), self._now_ms())

    async def open_tickets(self, tenant: str) -> int:
        """The tenant's queued tickets over all its games (for the open-tickets quota)."""
        _check_id("tenant", tenant)
        members = {_text(m) for m in await self._redis.smembers(POOLS_KEY)}
        games = [m.split(":", 1)[1] for m in members if m.split(":", 1)[0] == tenant]
        alive_after = self._now_ms() - self._ttl_ms
        counts = await asyncio.gather(
            *(self._redis.zcount(_Pool(tenant, g).key("queue"), f"({alive_after}", "+inf") for g in games)
        )
        return int(sum(counts))

    async def queued_by_game(self) -> dict[str, int]:
        """Queued tickets per game over every tenant (the metrics gauge)."""
        pools = await self._pools()
        alive_after = self._now_ms() - self._ttl_ms
        counts = await asyncio.gather(
            *(self._redis.zcount(p.key("queue"), f"({alive_after}", "+inf") for p in pools)
        )
        by_game: dict[str, int] = {}
        for pool, count in zip(pools, counts, strict=True):
            by_game[pool.game] = by_game.get(pool.game, 0) + int(count)
        return by_game

    def _pool_for(self, tenant: str, ticket_id: str) -> _Pool:
        if not isinstance(tenant, str) or not _ID.fullmatch(tenant):
            raise TicketNotFound(ticket_id)
        return _Pool(tenant, _pool_of(ticket_id))

    def _status(self, pool: _Pool, ticket: _StoredTicket, now_ms: int) -> TicketStatus:
        state = ticket.state
        if state == _PAIRING:
            state = QUEUED  # being seated: the match does not exist yet
        elif state == QUEUED and ticket.exp <= now_ms:
            state = EXPIRED  # the pairing loop's sweep records it soon; the answer is the same
        matched = state == MATCHED
        return TicketStatus(
            ticket_id=ticket.id,
            state=state,
            match_id=ticket.match if matched else None,
            seat=ticket.seat if matched else None,
            players=list(ticket.players) if matched else None,
            game=pool.game,
            options_json=ticket.options.encode(),
            player_id=ticket.player,
            min_seats=ticket.min,
            max_seats=ticket.max,
            rating=float(ticket.rating) if ticket.rating else None,
            enqueued_ms=ticket.enq,
            expires_ms=ticket.exp,
        )

    # -- waiting --------------------------------------------------------------------------

    async def wait(
        self, tenant: str, ticket_id: str, after_state: str | None, timeout_s: float
    ) -> TicketStatus:
        """The ticket's status once it differs from `after_state`, or as it is at the timeout."""
        waiter = asyncio.Event()
        slot = (tenant, ticket_id)
        self._waiters.setdefault(slot, set()).add(waiter)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + max(timeout_s, 0)
        try:
            await self._ensure_listener()
            while True:
                waiter.clear()  # before reading: a change after the read wakes us
                status = await self.status(tenant, ticket_id)
                remaining = give_up - loop.time()
                if after_state is None or status.state != after_state or remaining <= 0:
                    return status
                nap = min(remaining, self._safety_poll_s)
                if status.state == QUEUED:
                    # Expiry happens by the clock, with no message: wake for it.
                    nap = min(nap, max(status.expires_ms - self._now_ms(), 0) / 1000 + 0.001)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiter.wait(), nap)
        finally:
            waiters = self._waiters.get(slot)
            if waiters is not None:
                waiters.discard(waiter)
                if not waiters:
                    del self._waiters[slot]

    async def _ensure_listener(self) -> None:
        """Start this replica's one subscription (if needed) and wait until it is live."""
        if self._listener is None or self._listener.done():
            self._subscribed.clear()
            self._listener = asyncio.create_task(self._listen())
        subscribed = asyncio.ensure_future(self._subscribed.wait())
        try:
            # Without pub/sub the safety poll still answers, only slower.
            await asyncio.wait({subscribed, self._listener}, timeout=2.0, return_when=asyncio.FIRST_COMPLETED)
        finally:
            subscribed.cancel()

    async def _listen(self) -> None:
        while True:
            pubsub = None
            try:
                initialize = getattr(self._subscriber, "initialize", None)
                if initialize is not None:
                    # A cluster client learns its slots lazily; its pub/sub needs them first.
                    await initialize()
                pubsub = self._subscriber.pubsub(ignore_subscribe_messages=True)
                await pubsub.subscribe(TICKETS_CHANNEL, WAKE_CHANNEL)
                self._subscribed.set()
                self._wake_all()  # anything may have changed while we were not subscribed
                async for message in live_messages(pubsub):
                    channel, data = _text(message["channel"]), _text(message["data"])
                    if channel == WAKE_CHANNEL:
                        self._woken.add(data)
                        self._wake.set()
                    else:
                        tenant, _, ticket_id = data.partition(":")
                        for waiter in self._waiters.get((tenant, ticket_id), ()):
                            waiter.set()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                _log.warning("matchmaking subscription lost; reconnecting", error=repr(error))
                self._subscribed.clear()
                await asyncio.sleep(0.5)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()

    def _wake_all(self) -> None:
        for waiters in self._waiters.values():
            for waiter in waiters:
                waiter.set()
        self._wake.set()

    async def close(self) -> None:
        """Drop this replica's subscription."""
        if self._listener is not None:
            await stop_listener(self._listener)
            self._listener = None

    # -- pairing --------------------------------------------------------------------------

    async def pair_once(self, tenant: str, game: str) -> list[Pairing]:
        """Seat what the policy can seat now in one pool; returns the pairings committed."""
        pairings, _ = await self._pair_pool(_Pool(tenant, game))
        return pairings

    async def _pair_pool(self, pool: _Pool) -> tuple[list[Pairing], int]:
        now = self._now_ms()
        reply = await self._read(
            keys=[pool.key("queue"), pool.key("tickets"), pool.key("done")],
            args=[now, self._batch, self._retention_ms, TICKETS_CHANNEL, pool.tenant],
        )
        queued = int(reply[0])
        stored = [_TICKET.decode(raw) for raw in reply[1:]]
        if len(stored) < 2 and not any(t.min == 1 for t in stored):
            return [], queued
        tables = form_tables(
            (
                QueuedTicket(
                    ticket_id=t.id,
                    player_id=t.player,
                    options=t.options,
                    min_seats=t.min,
                    max_seats=t.max,
                    rating=float(t.rating) if t.rating else None,
                    enqueued_ms=t.enq,
                )
                for t in stored
            ),
            now,
            self._policy,
        )
        if not tables:
            return [], queued
        proposed: dict[str, _StoredPairing] = {}
        for table in tables:
            order = list(table)
            self._seats_rng.shuffle(order)  # seat order (who moves first) is not first come
            match_id = f"mm-{secrets.token_hex(10)}"
            proposed[match_id] = _StoredPairing(
                pairing_id=match_id,
                match_id=match_id,
                options=table[0].options,
                seats=[(t.ticket_id, seat, t.player_id) for seat, t in enumerate(order)],
            )
        seated = await self._commit(
            keys=[pool.key("queue"), pool.key("tickets"), pool.key("pending"), pool.key("pairings")],
            args=[now, self._lease_ms, *(_JSON.encode(p) for p in proposed.values())],
        )
        pairings = [self._pairing(pool, proposed[_text(pid)]) for pid in seated]
        seated_tickets = sum(len(p.seats) for p in pairings)
        return pairings, queued - seated_tickets

    @staticmethod
    def _pairing(pool: _Pool, stored: _StoredPairing) -> Pairing:
        seats = [(str(t), int(s), str(p)) for t, s, p in stored.seats]
        return Pairing(
            match_id=stored.match_id,
            tenant=pool.tenant,
            game=pool.game,
            options_json=stored.options.encode(),
            players=[player for _, _, player in sorted(seats, key=lambda seat: seat[1])],
            seats=seats,
            attempts=stored.attempts,
        )

    async def complete(self, pairing: Pairing) -> bool:
        """The match exists: its tickets become `matched` (idempotent)."""
        pool = _Pool(pairing.tenant, pairing.game)
        done = await self._complete(
            keys=[pool.key("tickets"), pool.key("pending"), pool.key("pairings"), pool.key("done")],
            args=[pairing.match_id, self._now_ms(), TICKETS_CHANNEL, pool.tenant],
        )
        return bool(done)

    async def abandon(self, pairing: Pairing) -> bool:
        """Give up on creating a pairing's match: its tickets queue again (or expire)."""
        pool = _Pool(pairing.tenant, pairing.game)
        done = await self._abandon(
            keys=[pool.key(k) for k in ("queue", "tickets", "pending", "pairings", "done")],
            args=[pairing.match_id, self._now_ms(), TICKETS_CHANNEL, pool.tenant],
        )
        return bool(done)

    async def reclaim(self, tenant: str, game: str) -> list[Pairing]:
        """Claim the pool's pairings whose lease ran out (their replica died or creation failed)."""
        pool = _Pool(tenant, game)
        reply = await self._reclaim(
            keys=[pool.key("pending"), pool.key("pairings")], args=[self._now_ms(), self._lease_ms, 100]
        )
        return [self._pairing(pool, _PAIRING_DECODER.decode(raw)) for raw in reply]

    async def _pools(self) -> list[_Pool]:
        members = await self._redis.smembers(POOLS_KEY)
        pools = []
        for member in sorted(_text(m) for m in members):
            tenant, _, game = member.partition(":")
            if _ID.fullmatch(tenant) and _ID.fullmatch(game):
                pools.append(_Pool(tenant, game))
        return pools

    async def _seat(
        self, pairing: Pairing, create_match: Callable[[Pairing], Awaitable[None]], limit: asyncio.Semaphore
    ) -> None:
        async with limit:
            if pairing.attempts > self._max_attempts:
                _log.warning("giving up on a pairing", match_id=pairing.match_id, game=pairing.game)
                await self.abandon(pairing)
                return
            try:
                await create_match(pairing)
            except asyncio.CancelledError:
                raise
            except Exception:
                # The lease runs out and a replica (maybe this one) tries again.
                _log.exception(
                    "creating a matched match failed", match_id=pairing.match_id, game=pairing.game
                )
                return
            await self.complete(pairing)

    async def run(self, create_match: Callable[[Pairing], Awaitable[None]], stop: asyncio.Event) -> None:
        """Pair every pool and create the matches, until `stop` is set; every replica runs this."""
        limit = asyncio.Semaphore(self._concurrency)
        tasks: set[asyncio.Task[None]] = set()
        # Pools with tickets still queued after the last pass -> when to look again (loop time):
        # at once after news (an enqueue, a table seated), else every `recheck_s` as windows widen.
        active: dict[_Pool, float] = {}
        last_scan = -float("inf")
        loop = asyncio.get_running_loop()

        def start(pairing: Pairing) -> None:
            task = asyncio.create_task(self._seat(pairing, create_match, limit))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        try:
            await self._ensure_listener()
            while not stop.is_set():
                self._wake.clear()
                try:
                    if loop.time() - last_scan >= self._full_scan_s:
                        last_scan = loop.time()
                        every = await self._pools()
                        for pool in every:
                            active.setdefault(pool, 0.0)
                        for stale in await asyncio.gather(*(self.reclaim(p.tenant, p.game) for p in every)):
                            for pairing in stale:
                                start(pairing)
                    for member in self._woken:
                        tenant, _, game = member.partition(":")
                        if _ID.fullmatch(tenant) and _ID.fullmatch(game):
                            active[_Pool(tenant, game)] = 0.0
                    self._woken.clear()
                    again = False
                    # Seat no more than creation keeps up with: a pairing waiting too long for
                    # its turn would outlive its lease and be created twice (harmless, wasted).
                    if len(tasks) < 4 * self._concurrency:
                        now = loop.time()
                        pools = [pool for pool, due in active.items() if due <= now]
                        results = await asyncio.gather(*(self._pair_pool(p) for p in pools))
                        for pool, (pairings, left) in zip(pools, results, strict=True):
                            for pairing in pairings:
                                start(pairing)
                            if left == 0:
                                del active[pool]
                            else:
                                active[pool] = now if pairings else now + self._recheck_s
                            # A busy pool (more than one batch, or lost races) goes again at once.
                            again = again or (bool(pairings) and left > 1)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    _log.exception("a pairing pass failed; retrying")
                    again = False
                if not again:
                    await _sleep_or_stop(stop, self._wake, self._interval_s)
        finally:
            if tasks:
                await asyncio.wait(set(tasks), timeout=5.0)
            for task in tasks:
                task.cancel()


async def _sleep_or_stop(stop: asyncio.Event, wake: asyncio.Event, delay: float) -> None:
    waiters = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(wake.wait())]
    try:
        await asyncio.wait(waiters, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
