"""Durable turn timers in Redis: armed by the replica that appended a turn, fired by any replica.

Timers are spread over `shards` groups of keys; each group shares one hash tag, so its Lua
scripts run on Redis Cluster and the groups spread over the primaries:

    gh:{timers.<n>}:due     sorted set: "<tenant>:<match>:<seat>" -> deadline (ms), or lease end
    gh:{timers.<n>}:info    hash: same member -> "<version>:<deadline_ms>:<policy>:<attempts>"
    gh:{timers.<n>}:seats   hash: "<tenant>:<match>" -> the armed seats, space separated
    gh:{timers.<n>}:parked  set: "<tenant>:<match>" whose clocks a suspension stopped

(tenant and match ids never contain ':', see MatchKey). A match's timers all live in one shard.
The timers of a match are those of the latest version armed: arming version v drops every
timer of an older version, and an arm older than what is armed is ignored, so a slow replica
cannot resurrect a finished turn.

Firing: a replica claims due timers with one script per shard, which pushes each claimed
deadline forward by a lease instead of removing it. Only one replica can claim a timer (the
script is atomic); when `on_expire` returns, the claim is acknowledged and the timer removed
(unless it was re-armed meanwhile). If the replica dies first, the lease runs out and any
replica claims it again: a timer survives restarts and crashes. `on_expire` appends with the
expected version, so even a re-fired timer changes the match at most once.

Suspension (issue 39): a timer of a suspended tenant (or of a tenant no longer configured) does
not act: no forfeit, no random action, nothing billed. When it comes due it is parked instead:
its deadline becomes +inf (never claimed) and its match joins the shard's parked set. When the
tenant is resumed every clock of the tenant restarts with its whole turn time, from the resume
(`resume`, run by every replica as it applies the resume; its players could not act while it
was suspended, so nobody loses the time the suspension took). Every replica also looks at the
parked sets every PARKED_SWEEP_S and restarts the parked clocks of tenants no longer
suspended: a resume whose replicas all died before restarting them is caught up there.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, NamedTuple

import structlog

from gateway.domain.timers import POLICIES
from gateway.eventstore.base import MatchKey
from gateway.scripts import ColdClusterGuard, guarded_script

_log = structlog.get_logger("timers")

DEFAULT_SHARDS = 16
PARKED_SWEEP_S = 10.0

# KEYS: due, info, seats, parked.  ARGV: match ("tenant:match"), version, deadline_ms, policy, seats...
_ARM = """
local match, version = ARGV[1], tonumber(ARGV[2])
local arming = {}
for i = 5, #ARGV do arming[ARGV[i]] = true end
local listed = redis.call('HGET', KEYS[3], match)
local armed = {}
if listed then
  for s in string.gmatch(listed, '%S+') do
    local info = redis.call('HGET', KEYS[2], match .. ':' .. s)
    local v = info and tonumber(string.match(info, '^(%d+):')) or -1
    if v > version then
      return 0  -- a newer turn is armed: this arm is late, drop it
    end
    armed[#armed + 1] = {s, v}
  end
end
local keep = {}
for _, entry in ipairs(armed) do
  local s, v = entry[1], entry[2]
  if not arming[s] then
    if v == version then
      keep[#keep + 1] = s  -- another seat owing a decision at this same version
    else
      redis.call('ZREM', KEYS[1], match .. ':' .. s)
      redis.call('HDEL', KEYS[2], match .. ':' .. s)
    end
  end
end
for i = 5, #ARGV do
  local member = match .. ':' .. ARGV[i]
  redis.call('ZADD', KEYS[1], ARGV[3], member)
  redis.call('HSET', KEYS[2], member, ARGV[2] .. ':' .. ARGV[3] .. ':' .. ARGV[4] .. ':0')
  keep[#keep + 1] = ARGV[i]
end
redis.call('HSET', KEYS[3], match, table.concat(keep, ' '))
redis.call('SREM', KEYS[4], match)  -- its clocks run again
return 1
"""

# KEYS: due, info, seats, parked.  ARGV: match
_DISARM = """
redis.call('SREM', KEYS[4], ARGV[1])
local listed = redis.call('HGET', KEYS[3], ARGV[1])
if not listed then return 0 end
local n = 0
for s in string.gmatch(listed, '%S+') do
  n = n + redis.call('ZREM', KEYS[1], ARGV[1] .. ':' .. s)
  redis.call('HDEL', KEYS[2], ARGV[1] .. ':' .. s)
end
redis.call('HDEL', KEYS[3], ARGV[1])
return n
"""

# KEYS: due, info.  ARGV: now_ms, lease_ms, limit
# Returns {member, info, member, info, ...} claimed, then the next due score ('' if none).
_CLAIM = """
local now = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, member in ipairs(due) do
  local info = redis.call('HGET', KEYS[2], member)
  if info then
    local head, attempts = string.match(info, '^(.*):(%d+)$')
    info = head .. ':' .. (tonumber(attempts) + 1)
    redis.call('HSET', KEYS[2], member, info)
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), member)
    out[#out + 1] = member
    out[#out + 1] = info
  else
    redis.call('ZREM', KEYS[1], member)  -- no details: nothing to fire
  end
end
local nxt = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
out[#out + 1] = nxt[2] or ''
return out
"""

# KEYS: due, info, seats.  ARGV: match, seat, claimed "<version>:<deadline>:<policy>"
# Removes the timer only if it is still the one claimed (not re-armed since).
_ACK = """
local member = ARGV[1] .. ':' .. ARGV[2]
local info = redis.call('HGET', KEYS[2], member)
if not info or string.match(info, '^(.*):%d+$') ~= ARGV[3] then return 0 end
redis.call('ZREM', KEYS[1], member)
redis.call('HDEL', KEYS[2], member)
local listed = redis.call('HGET', KEYS[3], ARGV[1])
if listed then
  local keep = {}
  for s in string.gmatch(listed, '%S+') do
    if s ~= ARGV[2] then keep[#keep + 1] = s end
  end
  if #keep == 0 then
    redis.call('HDEL', KEYS[3], ARGV[1])
  else
    redis.call('HSET', KEYS[3], ARGV[1], table.concat(keep, ' '))
  end
end
return 1
"""

# KEYS: due, info, parked.  ARGV: match, seat, claimed "<version>:<deadline>:<policy>"
# Stops a claimed timer's clock (its tenant is suspended), unless it was re-armed since the claim.
_PARK = """
local member = ARGV[1] .. ':' .. ARGV[2]
local info = redis.call('HGET', KEYS[2], member)
if not info or string.match(info, '^(.*):%d+$') ~= ARGV[3] then return 0 end
redis.call('ZADD', KEYS[1], '+inf', member)
redis.call('SADD', KEYS[3], ARGV[1])
return 1
"""

OnExpire = Callable[[MatchKey, int, int, str], Awaitable[object]]
Paused = Callable[[str], bool]  # tenant -> its clocks are stopped (suspended, or not configured)
Restart = Callable[[MatchKey], Awaitable[None]]  # every clock of the match from now, full time


class ArmedTimer(NamedTuple):
    """One seat's timer as stored."""

    key: MatchKey
    seat: int
    version: int
    deadline_ms: int
    policy: str
    attempts: int


class _Keys(NamedTuple):
    due: str
    info: str
    seats: str
    parked: str


def _decode(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _parse(member: str, info: str) -> ArmedTimer:
    tenant, match_id, seat = member.split(":")
    version, deadline, policy, attempts = info.split(":")
    return ArmedTimer(
        MatchKey(tenant, match_id), int(seat), int(version), int(deadline), policy, int(attempts)
    )


class TurnTimers:
    """Durable per-seat turn timers on a `redis.asyncio` client (plain or cluster)."""

    def __init__(
        self,
        redis: Any,
        *,
        shards: int = DEFAULT_SHARDS,
        clock: Callable[[], float] = time.time,
        lease_s: float = 30.0,
        poll_s: float = 0.5,
        batch: int = 100,
        max_attempts: int = 5,
        concurrency: int = 64,
        stop_grace_s: float = 5.0,
    ) -> None:
        if shards < 1:
            raise ValueError("shards must be at least 1")
        self._redis = redis
        self._shards = shards
        self._clock = clock
        self._lease_ms = int(lease_s * 1000)
        self._poll_s = poll_s
        self._batch = batch
        self._max_attempts = max_attempts
        self._concurrency = concurrency
        self._stop_grace_s = stop_grace_s
        guard = ColdClusterGuard(redis)
        self._arm = guarded_script(redis, guard, _ARM)
        self._disarm = guarded_script(redis, guard, _DISARM)
        self._claim = guarded_script(redis, guard, _CLAIM)
        self._ack = guarded_script(redis, guard, _ACK)
        self._park = guarded_script(redis, guard, _PARK)
        # Set when this replica arms a timer due before the run loop's next planned look.
        self._wake = asyncio.Event()
        self._next_look_ms: float = 0

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def shard_of(self, key: MatchKey) -> int:
        """A match's timers all live in one shard (a stable hash of tenant and match)."""
        return zlib.crc32(f"{key.tenant}:{key.match_id}".encode()) % self._shards

    def _keys(self, shard: int) -> _Keys:
        prefix = f"gh:{{timers.{shard}}}"
        return _Keys(f"{prefix}:due", f"{prefix}:info", f"{prefix}:seats", f"{prefix}:parked")

    async def arm(self, key: MatchKey, version: int, seat: int, deadline_ms: int, policy: str) -> None:
        """Arm `seat`'s timer for the decision asked at `version`; older turns' timers go."""
        await self.arm_seats(key, version, (seat,), deadline_ms, policy)

    async def arm_seats(
        self, key: MatchKey, version: int, seats: Iterable[int], deadline_ms: int, policy: str
    ) -> None:
        """Arm the timers of every seat owing a decision at `version` in one round trip."""
        if policy not in POLICIES:
            raise ValueError(f"unknown turn timer policy {policy!r}")
        chosen = sorted(set(seats))
        if version < 0 or any(seat < 0 for seat in chosen):
            raise ValueError("version and seats must be non-negative")
        if not chosen:
            return
        keys = self._keys(self.shard_of(key))
        await self._arm(
            keys=list(keys),
            args=[
                f"{key.tenant}:{key.match_id}",
                str(version),
                str(int(deadline_ms)),
                policy,
                *map(str, chosen),
            ],
        )
        if deadline_ms < self._next_look_ms:
            self._wake.set()

    async def disarm(self, key: MatchKey) -> None:
        """Drop every timer of the match (it ended, or its timer was switched off)."""
        keys = self._keys(self.shard_of(key))
        await self._disarm(keys=list(keys), args=[f"{key.tenant}:{key.match_id}"])

    async def armed(self, key: MatchKey) -> list[ArmedTimer]:
        """The match's armed timers, by seat (for tests and operators)."""
        keys = self._keys(self.shard_of(key))
        match = f"{key.tenant}:{key.match_id}"
        listed = await self._redis.hget(keys.seats, match)
        if not listed:
            return []
        seats = sorted(int(s) for s in _decode(listed).split())
        infos = await self._redis.hmget(keys.info, [f"{match}:{s}" for s in seats])
        return [
            _parse(f"{match}:{s}", _decode(i)) for s, i in zip(seats, infos, strict=True) if i is not None
        ]

    async def claim_due(self, shard: int) -> tuple[list[ArmedTimer], int | None]:
        """Claim the shard's due timers (leasing them) and tell when its next timer is due."""
        keys = self._keys(shard)
        reply = await self._claim(
            keys=[keys.due, keys.info], args=[str(self._now_ms()), str(self._lease_ms), str(self._batch)]
        )
        *pairs, next_due = (_decode(v) for v in reply)
        claimed = [_parse(pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2)]
        return claimed, (int(float(next_due)) if next_due and next_due != "inf" else None)

    async def acknowledge(self, timer: ArmedTimer) -> bool:
        """Remove a fired timer, unless its seat was re-armed since the claim."""
        keys = self._keys(self.shard_of(timer.key))
        done = await self._ack(keys=list(keys), args=_claimed(timer))
        return bool(done)

    async def park(self, timer: ArmedTimer) -> bool:
        """Stop a claimed timer's clock (its tenant is suspended), unless it was re-armed since."""
        keys = self._keys(self.shard_of(timer.key))
        return bool(await self._park(keys=[keys.due, keys.info, keys.parked], args=_claimed(timer)))

    async def matches_of(self, tenant: str) -> list[MatchKey]:
        """Every match of `tenant` with an armed (or parked) timer."""
        found = []
        for shard in range(self._shards):
            async for member, _seats in self._redis.hscan_iter(self._keys(shard).seats, match=f"{tenant}:*"):
                owner, _, match_id = _decode(member).partition(":")
                if owner == tenant:
                    found.append(MatchKey(owner, match_id))
        return found

    async def parked(self) -> list[MatchKey]:
        """Every match whose clocks a suspension stopped."""
        found = []
        for shard in range(self._shards):
            for member in await self._redis.smembers(self._keys(shard).parked):
                tenant, _, match_id = _decode(member).partition(":")
                found.append(MatchKey(tenant, match_id))
        return found

    async def resume(self, tenant: str, restart: Restart) -> int:
        """Every clock of a resumed tenant restarted with its whole time; returns how many matches."""
        matches = await self.matches_of(tenant)
        for key in matches:
            await restart(key)  # arming takes the match out of its parked set
        if matches:
            self._wake.set()
        return len(matches)

    async def _sweep_parked(self, paused: Paused, restart: Restart) -> None:
        for key in await self.parked():
            if not paused(key.tenant):
                await restart(key)

    async def _fire(
        self, timer: ArmedTimer, on_expire: OnExpire, limit: asyncio.Semaphore, paused: Paused
    ) -> None:
        async with limit:
            if paused(timer.key.tenant):
                await self.park(timer)
                return
            if timer.attempts > self._max_attempts:
                _log.warning("turn timer dropped after repeated failures", **_context(timer))
                await self.acknowledge(timer)
                return
            try:
                await on_expire(timer.key, timer.version, timer.seat, timer.policy)
            except asyncio.CancelledError:
                raise  # shutting down: the lease runs out and another replica fires it
            except Exception:
                # Leave the claim: the lease runs out and any replica tries again.
                _log.exception("turn timer handler failed", **_context(timer))
                return
            await self.acknowledge(timer)

    async def run(
        self,
        on_expire: OnExpire,
        stop: asyncio.Event,
        *,
        paused: Paused = lambda _tenant: False,
        restart: Restart | None = None,
    ) -> None:
        """Fire due timers until `stop` is set; every replica may run this at once. A timer of a
        `paused` tenant is parked instead; `restart` restarts a match's clocks (the sweep)."""
        limit = asyncio.Semaphore(self._concurrency)
        tasks: set[asyncio.Task[None]] = set()
        swept_at = 0.0
        try:
            while not stop.is_set():
                self._wake.clear()
                if restart is not None and time.monotonic() - swept_at >= PARKED_SWEEP_S:
                    swept_at = time.monotonic()
                    try:
                        await self._sweep_parked(paused, restart)
                    except Exception:
                        _log.exception("restarting parked turn timers failed; trying again later")
                now = self._now_ms()
                self._next_look_ms = now + self._poll_s * 1000
                try:
                    replies = await asyncio.gather(*(self.claim_due(s) for s in range(self._shards)))
                except Exception:
                    _log.exception("claiming turn timers failed; retrying")
                    await _sleep_or_stop(stop, self._wake, 1.0)
                    continue
                full = False
                for claimed, next_due in replies:
                    full = full or len(claimed) >= self._batch
                    for timer in claimed:
                        task = asyncio.create_task(self._fire(timer, on_expire, limit, paused))
                        tasks.add(task)
                        task.add_done_callback(tasks.discard)
                    if next_due is not None:
                        self._next_look_ms = min(self._next_look_ms, next_due)
                if full:
                    continue  # more were due than one batch: go again at once
                delay = max(self._next_look_ms - self._now_ms(), 0) / 1000
                await _sleep_or_stop(stop, self._wake, delay)
        finally:
            # Let handlers under way finish briefly; the rest are cancelled and their leases
            # run out, so another replica fires them.
            if tasks:
                await asyncio.wait(set(tasks), timeout=self._stop_grace_s)
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*tasks, return_exceptions=True)


def _claimed(timer: ArmedTimer) -> list[str]:
    """The ACK and PARK scripts' ARGV: the timer as it was claimed."""
    return [
        f"{timer.key.tenant}:{timer.key.match_id}",
        str(timer.seat),
        f"{timer.version}:{timer.deadline_ms}:{timer.policy}",
    ]


def _context(timer: ArmedTimer) -> dict[str, object]:
    return {
        "tenant": timer.key.tenant,
        "match_id": timer.key.match_id,
        "seat": timer.seat,
        "version": timer.version,
        "attempts": timer.attempts,
    }


async def _sleep_or_stop(stop: asyncio.Event, wake: asyncio.Event, delay: float) -> None:
    """Sleep `delay` seconds, or less if stop or wake is set."""
    if delay <= 0:
        await asyncio.sleep(0)
        return
    waiters = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(wake.wait())]
    try:
        await asyncio.wait(waiters, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
