"""Bot seats the platform plays (issue 23): the seats waiting for the bot worker, and tickets
that asked to be seated with bots after a wait.

A bot seat is a seat of a match marked in the match itself (`match_created.bots`, meta `bots`),
or (issue 41) a seat marked away by its turn timer (`seat_away`, meta `away`) until its player
is back (`withdraw`);
the platform's bot worker (`python -m guildhall_client.botworker`, outside the gateway) leases
it here, gets its seat token and plays it through the gateway like any client. Keys (one slot:
a few writes per match, far below one node's capacity):

    gh:{bots}:due      sorted set: "<tenant>\\x1f<match>\\x1f<seat>" -> when it may be claimed (ms):
                       now for a free seat, the lease's end for a leased one
    gh:{bots}:info     hash: same member -> {"game", "kind", "lease", "since"} (JSON)
    gh:{bots}:leases   hash: lease id -> member

A seat is written here *before* its match is created (so a replica dying after the create
cannot leave a bot seat nobody plays); a claim checks the match exists with that seat marked as
a bot of that kind before giving out a token, puts back a seat whose match is not there yet,
and forgets one whose match never came. A lease not renewed lapses and the seat is claimed
again (a worker that died); `done` forgets it.

Tickets with `bot_fill` keep their request beside their pool's keys (the pool's hash tag, so
one script checks the ticket and seats it): `gh:mm:{<tenant>:<game>}:botfill` (sorted set:
ticket id -> when to fill) and `...:botspec` (hash: ticket id -> kind and seats). The fill loop
seats a still-queued ticket at a table of its own with bots in the other seats, as a pairing
the matchmaker's own machinery creates, leases and completes (`bot:<kind>` in a seat's ticket
slot marks a bot).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog

from gateway.scripts import ColdClusterGuard, guarded_script

_log = structlog.get_logger("botseats")

BOT_KINDS = ("random", "greedy", "strong")  # guildhall_client.bots.KINDS (a test keeps them equal)
BOT_TICKET_PREFIX = "bot:"
SEP = "\x1f"
_DUE, _INFO, _LEASES = "gh:{bots}:due", "gh:{bots}:info", "gh:{bots}:leases"
FILL_POOLS = "gh:bots:pools"  # pools with bot-fill requests (its own slot; only grows)
NOT_THERE_YET_S = 60.0  # a seat whose match does not exist this long after it was written: dropped

# KEYS: due, info.  ARGV: now ms, then member, info JSON pairs.  Adds the seats not already there.
_ENLIST = """
for i = 2, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 0 then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i])
  end
end
return 1
"""

# KEYS: due, info, leases.  ARGV: now ms, lease end ms, worker, then one fresh lease id per seat
# wanted.  Returns {member, info JSON (with its new lease)} pairs.
_CLAIM = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, #ARGV - 3)
local out = {}
for n, member in ipairs(ids) do
  local raw = redis.call('HGET', KEYS[2], member)
  if raw then
    local info = cjson.decode(raw)
    if info.lease then redis.call('HDEL', KEYS[3], info.lease) end
    info.lease = ARGV[3 + n]
    info.worker = ARGV[3]
    raw = cjson.encode(info)
    redis.call('HSET', KEYS[2], member, raw)
    redis.call('HSET', KEYS[3], info.lease, member)
    redis.call('ZADD', KEYS[1], ARGV[2], member)
    out[#out + 1] = member
    out[#out + 1] = raw
  else
    redis.call('ZREM', KEYS[1], member)
  end
end
return out
"""

# KEYS: due, info, leases.  ARGV: lease end ms, lease ids...  Returns the leases still held.
_RENEW = """
local held = {}
for i = 2, #ARGV do
  local member = redis.call('HGET', KEYS[3], ARGV[i])
  local raw = member and redis.call('HGET', KEYS[2], member)
  if raw and cjson.decode(raw).lease == ARGV[i] then
    redis.call('ZADD', KEYS[1], ARGV[1], member)
    held[#held + 1] = ARGV[i]
  end
end
return held
"""

# KEYS: due, info, leases.  ARGV: '1' done / '0' give back, when it may be claimed again (ms),
# lease ids...  Returns {member, since, game} of each seat released as done (its usage is charged).
_RELEASE = """
local done = {}
for i = 3, #ARGV do
  local member = redis.call('HGET', KEYS[3], ARGV[i])
  redis.call('HDEL', KEYS[3], ARGV[i])
  local raw = member and redis.call('HGET', KEYS[2], member)
  if raw then
    local info = cjson.decode(raw)
    if info.lease == ARGV[i] then
      if ARGV[1] == '1' then
        redis.call('HDEL', KEYS[2], member)
        redis.call('ZREM', KEYS[1], member)
        done[#done + 1] = member
        done[#done + 1] = tostring(info.since)
        done[#done + 1] = info.game or ''
      else
        info.lease = nil
        redis.call('HSET', KEYS[2], member, cjson.encode(info))
        redis.call('ZADD', KEYS[1], ARGV[2], member)
      end
    end
  end
end
return done
"""

# KEYS: due, info, leases.  ARGV: member.  Forgets the seat and its lease (issue 41: an away
# seat's player is back); returns {when it was enlisted (ms), game}, or nothing if it was not.
_WITHDRAW = """
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return false end
local info = cjson.decode(raw)
if info.lease then redis.call('HDEL', KEYS[3], info.lease) end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
return {tostring(info.since), info.game or ''}
"""

# Bot fill. KEYS: botfill, botspec, tickets.  ARGV: now ms, limit.  Due requests whose ticket is
# still queued: {ticket JSON, spec JSON} pairs; requests of tickets gone or no longer queued are
# forgotten.
_DUE_FILLS = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  local raw = redis.call('HGET', KEYS[3], id)
  local t = raw and cjson.decode(raw)
  if t and t.state == 'queued' and t.exp > tonumber(ARGV[1]) then
    out[#out + 1] = raw
    out[#out + 1] = redis.call('HGET', KEYS[2], id) or ''
  elseif not t or t.state ~= 'pairing' then
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
  end
end
return out
"""

# KEYS: queue, tickets, pending, pairings, botfill, botspec.  ARGV: now ms, lease ms, ticket id,
# pairing JSON.  Seats the ticket as the pairing (matchmaking's `pairing` state) if still queued.
_SEAT = """
local raw = redis.call('HGET', KEYS[2], ARGV[3])
local t = raw and cjson.decode(raw)
redis.call('ZREM', KEYS[5], ARGV[3])
redis.call('HDEL', KEYS[6], ARGV[3])
if not t or t.state ~= 'queued' or t.exp <= tonumber(ARGV[1]) then return 0 end
local p = cjson.decode(ARGV[4])
t.state = 'pairing'
t.pairing = p.pairing_id
redis.call('HSET', KEYS[2], ARGV[3], cjson.encode(t))
redis.call('ZREM', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[4], p.pairing_id, ARGV[4])
redis.call('ZADD', KEYS[3], tonumber(ARGV[1]) + tonumber(ARGV[2]), p.pairing_id)
return 1
"""


class BotSeatError(ValueError):
    """A bot seat request the gateway refuses (an unknown kind, a seat out of range)."""


class _Info(msgspec.Struct, omit_defaults=True):
    game: str
    kind: str
    since: int
    lease: str = ""
    worker: str = ""


class _FillSpec(msgspec.Struct):
    kind: str
    seats: int


class _Ticket(msgspec.Struct):
    """The fields of matchmaking's stored ticket this module reads."""

    id: str
    player: str
    options: str


_INFO_DECODER = msgspec.json.Decoder(_Info)
_JSON = msgspec.json.Encoder()


@dataclass(frozen=True)
class BotLease:
    lease_id: str
    tenant: str
    match_id: str
    game: str
    seat: int
    kind: str
    since_ms: int


def check_kind(kind: str) -> str:
    if kind not in BOT_KINDS:
        raise BotSeatError(f"bot kind must be one of {', '.join(BOT_KINDS)}, not {kind[:32]!r}")
    return kind


def bot_player_id(kind: str, seat: int) -> str:
    return f"bot-{kind}-{seat}"


def pool_key(tenant: str, game: str, part: str) -> str:
    """A matchmaking pool's key (gateway/matchmaking.py's layout: a test keeps them equal)."""
    return f"gh:mm:{{{tenant}:{game}}}:{part}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class BotSeats:
    """Bot seats and bot-filled tickets on a `redis.asyncio` client (plain or cluster)."""

    def __init__(self, redis: Any, *, clock: Callable[[], float] = time.time, usage: Any = None) -> None:
        self.redis = redis
        self.clock = clock
        # Issue 34: a bot seat's time from its enlistment to its release as done, charged to its
        # tenant once (gateway/admin/usage.py, in memory), whichever workers held it meanwhile.
        self.usage = usage
        guard = ColdClusterGuard(redis)
        self._enlist = guarded_script(redis, guard, _ENLIST)
        self._claim = guarded_script(redis, guard, _CLAIM)
        self._renew = guarded_script(redis, guard, _RENEW)
        self._release = guarded_script(redis, guard, _RELEASE)
        self._withdraw = guarded_script(redis, guard, _WITHDRAW)
        self._due_fills = guarded_script(redis, guard, _DUE_FILLS)
        self._seat = guarded_script(redis, guard, _SEAT)

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    # -- seats for the worker -------------------------------------------------------------------

    async def enlist(self, tenant: str, match_id: str, game: str, bots: Mapping[int, str]) -> None:
        """The bot seats of a match about to be created (idempotent: a retried create is fine)."""
        if not bots:
            return
        now = self._now_ms()
        args: list[Any] = [now]
        for seat, kind in sorted(bots.items()):
            args += [SEP.join((tenant, match_id, str(seat))), _JSON.encode(_Info(game, kind, now))]
        await self._enlist(keys=[_DUE, _INFO], args=args)

    async def claim(self, worker: str, count: int, lease_s: float) -> list[BotLease]:
        """Lease up to `count` free seats to `worker`."""
        now = self._now_ms()
        leases = [secrets.token_hex(12) for _ in range(max(1, min(count, 100)))]
        reply = await self._claim(
            keys=[_DUE, _INFO, _LEASES], args=[now, now + int(lease_s * 1000), worker[:64], *leases]
        )
        out = []
        for member, raw in zip(reply[::2], reply[1::2], strict=True):
            tenant, match_id, seat = _text(member).split(SEP)
            info = _INFO_DECODER.decode(raw)
            out.append(BotLease(info.lease, tenant, match_id, info.game, int(seat), info.kind, info.since))
        return out

    async def renew(self, lease_ids: list[str], lease_s: float) -> list[str]:
        if not lease_ids:
            return []
        until = self._now_ms() + int(lease_s * 1000)
        held = await self._renew(keys=[_DUE, _INFO, _LEASES], args=[until, *lease_ids])
        return [_text(h) for h in held]

    async def release(self, lease_ids: list[str], *, done: bool, retry_in_s: float = 0.0) -> None:
        if lease_ids:
            now = self._now_ms()
            again = now + int(retry_in_s * 1000)
            finished = await self._release(
                keys=[_DUE, _INFO, _LEASES], args=["1" if done else "0", again, *lease_ids]
            )
            for member, since, game in zip(finished[::3], finished[1::3], finished[2::3], strict=True):
                self._charge(_text(member).split(SEP)[0], now, since, _text(game))

    async def withdraw(self, tenant: str, match_id: str, seat: int) -> None:
        """Issue 41: the player of an away seat is back: the seat is no bot's any more (its
        worker's lease is not renewed, and the gateway refuses its actions meanwhile)."""
        enlisted = await self._withdraw(
            keys=[_DUE, _INFO, _LEASES], args=[SEP.join((tenant, match_id, str(seat)))]
        )
        if enlisted:
            since, game = enlisted
            self._charge(tenant, self._now_ms(), since, _text(game))

    def _charge(self, tenant: str, now_ms: int, since: Any, game: str) -> None:
        """A bot seat's time from its enlistment to its release, charged to its tenant (and its
        game: issue 43) once."""
        if self.usage is not None:
            seconds = max(0, now_ms - int(float(_text(since)))) // 1000
            self.usage.count(tenant, "bot_seat_seconds", seconds, game=game)

    async def lease_until_ms(self, lease_s: float) -> int:
        return self._now_ms() + int(lease_s * 1000)

    # -- tickets filled with bots ---------------------------------------------------------------

    async def request_fill(
        self, tenant: str, game: str, ticket_id: str, kind: str, seats: int, after_s: float
    ) -> None:
        """Seat this ticket with bots if it is still queued `after_s` from now."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(pool_key(tenant, game, "botfill"), {ticket_id: self._now_ms() + int(after_s * 1000)})
        pipe.hset(pool_key(tenant, game, "botspec"), ticket_id, _JSON.encode(_FillSpec(kind, seats)))
        await pipe.execute()
        await self.redis.sadd(FILL_POOLS, f"{tenant}{SEP}{game}")

    async def fill_once(
        self,
        create_match: Callable[[Any], Awaitable[None]],
        complete: Callable[[Any], Awaitable[Any]],
        lease_s: float,
    ) -> int:
        """Seat every due bot-fill ticket at a table with bots; the tables created."""
        from gateway.matchmaking import Pairing

        created = 0
        for pool in sorted(_text(p) for p in await self.redis.smembers(FILL_POOLS)):
            tenant, _, game = pool.partition(SEP)
            reply = await self._due_fills(
                keys=[pool_key(tenant, game, k) for k in ("botfill", "botspec", "tickets")],
                args=[self._now_ms(), 50],
            )
            for raw_ticket, raw_spec in zip(reply[::2], reply[1::2], strict=True):
                ticket = msgspec.json.decode(raw_ticket, type=_Ticket)
                if not raw_spec:
                    continue
                spec = msgspec.json.decode(raw_spec, type=_FillSpec)
                order = list(range(spec.seats))
                secrets.SystemRandom().shuffle(order)  # the player's seat is drawn, as matchmaking does
                human = order[0]
                seats = [
                    (ticket.id, human, ticket.player)
                    if seat == human
                    else (f"{BOT_TICKET_PREFIX}{spec.kind}", seat, bot_player_id(spec.kind, seat))
                    for seat in range(spec.seats)
                ]
                match_id = f"mm-{secrets.token_hex(10)}"
                stored = {
                    "pairing_id": match_id,
                    "match_id": match_id,
                    "options": ticket.options,
                    "seats": seats,
                }
                seated = await self._seat(
                    keys=[
                        pool_key(tenant, game, k)
                        for k in ("queue", "tickets", "pending", "pairings", "botfill", "botspec")
                    ],
                    args=[self._now_ms(), int(lease_s * 1000), ticket.id, _JSON.encode(stored)],
                )
                if not seated:
                    continue
                pairing = Pairing(
                    match_id=match_id,
                    tenant=tenant,
                    game=game,
                    options_json=ticket.options.encode(),
                    players=[player for _, _, player in seats],
                    seats=seats,
                )
                try:
                    await create_match(pairing)
                except Exception:  # the pairing's lease runs out and matchmaking creates it again
                    _log.exception("creating a bot-filled match failed", match_id=match_id)
                    continue
                await complete(pairing)
                created += 1
        return created

    async def run_fill(
        self,
        create_match: Callable[[Any], Awaitable[None]],
        complete: Callable[[Any], Awaitable[Any]],
        stop: asyncio.Event,
        *,
        interval_s: float = 1.0,
        lease_s: float = 10.0,
    ) -> None:
        """Every replica's loop seating tickets whose bot wait ran out."""
        while not stop.is_set():
            try:
                await self.fill_once(create_match, complete, lease_s)
            except asyncio.CancelledError:
                raise
            except Exception:
                _log.exception("a bot-fill pass failed; retrying")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval_s)


def bots_of_pairing(pairing: Any) -> dict[int, str]:
    """The bot seats of a pairing (the fill loop puts `bot:<kind>` where a ticket id would be)."""
    return {
        seat: ticket[len(BOT_TICKET_PREFIX) :]
        for ticket, seat, _ in pairing.seats
        if ticket.startswith(BOT_TICKET_PREFIX)
    }
