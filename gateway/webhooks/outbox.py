"""The webhook outbox in Redis: intents, deliveries, dead letters.

Why it is shaped like this. A Lua script runs on one Redis Cluster slot, and the append that
ends a match is the match's own script over the keys tagged `{<tenant>:<match>}`: nothing in
another slot can be written atomically with it. So the outbox does not try to; the match's stream
*is* the durable source (the append stores `match_ended` with everything a webhook says), and
every delivery is derived from it, idempotently, by whichever replica gets there:

    gh:{<tenant>:<match>}:webhooks   hash: cursor -> the last stream version already turned into
                                     deliveries (the match's slot: a compare-and-set script)
    gh:wh:{s<n>}:intents             sorted set: "<tenant>\\x1f<match>" -> when to derive (ms)
    gh:wh:{s<n>}:due                 sorted set: delivery id -> next attempt (ms), or lease end
    gh:wh:{s<n>}:items               hash: delivery id -> the delivery (JSON: body, attempts, ...)
    gh:wh:{s<n>}:sent                sorted set: delivery id -> when sent (kept a day: a
                                     derivation repeated after a crash does not send it again)
    gh:wh:{t:<tenant>}:dead          sorted set: delivery id -> when it ran out of retries
    gh:wh:{t:<tenant>}:deadinfo      hash: delivery id -> the delivery and its last error

Intents are written *before* an append that owes a webhook or a rating (it ends the match, or
the tenant subscribes to its event), due a grace period later. After the append the replica
derives at once and clears its intent; if it dies in between, the intent comes due and any
replica's dispatcher derives from the stream. Deriving reads the stream after the cursor, writes
the deliveries (ids are hashes of tenant, endpoint and event: writing one twice is a no-op, and
one already sent is skipped), then moves the cursor (compare-and-set, so two derivers agree).
An intent whose append never happened finds nothing and is cleared. The match is spread over
`SHARDS` groups by a hash of its ids, so dispatchers on many replicas share the work.

A delivery is leased while it is sent (its `due` score pushed a lease ahead): a replica killed
mid-delivery leaves it to come due again, and any replica sends it again: at least once.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from gateway.scripts import ColdClusterGuard, guarded_script

SHARDS = 8
SENT_RETENTION_MS = 24 * 3600 * 1000
SEP = "\x1f"

# KEYS: due, items, sent.  ARGV: score, then id, JSON pairs.  Adds each delivery not already
# queued or sent, due at `score` (a lease when the caller sends them at once); returns the new ids.
_ENQUEUE = """
local added = {}
for i = 2, #ARGV, 2 do
  local id = ARGV[i]
  if not redis.call('ZSCORE', KEYS[3], id) and redis.call('HEXISTS', KEYS[2], id) == 0 then
    redis.call('HSET', KEYS[2], id, ARGV[i + 1])
    redis.call('ZADD', KEYS[1], ARGV[1], id)
    added[#added + 1] = id
  end
end
return added
"""

# KEYS: due and items (or intents alone: one key, so one slot).  ARGV: now ms, lease end ms, limit.
# Leases what is due: {member, value (the item's JSON; '' for intents)} pairs.
_CLAIM = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  out[#out + 1] = id
  if #KEYS > 1 then
    out[#out + 1] = redis.call('HGET', KEYS[2], id) or ''
  else
    out[#out + 1] = ''
  end
end
return out
"""

# KEYS: due, items, sent.  ARGV: id, now ms, retention ms.  A delivery sent: forget it, remember it.
_SENT = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
local now = tonumber(ARGV[2])
redis.call('ZADD', KEYS[3], now, ARGV[1])
local old = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[3]), 'LIMIT', 0, 100)
for _, id in ipairs(old) do redis.call('ZREM', KEYS[3], id) end
return 1
"""

# KEYS: due, items.  ARGV: id, next attempt ms, the delivery's JSON (attempts, last error).
_RETRY = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""

# KEYS: intents.  ARGV: member, the score it was claimed or written with.  Clears it unless it
# was written again since (a newer append owes a derivation too).
_CLEAR_INTENT = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
"""

# KEYS: the match's webhooks hash.  ARGV: from, to.  Moves the cursor if it is still `from`;
# returns the cursor as it is afterwards.
_ADVANCE = """
local cursor = tonumber(redis.call('HGET', KEYS[1], 'cursor') or '0')
if cursor == tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'cursor', ARGV[2])
  return tonumber(ARGV[2])
end
return cursor
"""


class Delivery(msgspec.Struct):
    """One webhook event for one endpoint, as queued."""

    delivery_id: str
    tenant: str
    endpoint_id: str
    event_id: str
    event_type: str
    body: str  # the JSON body, exactly as signed and sent
    created_ms: int  # when the event happened (the stream entry's time): for latency
    shard: int = 0  # where it queues: its match's (or ticket's) shard
    attempts: int = 0
    last_error: str = ""
    failed_ms: int = 0


DELIVERY = msgspec.json.Decoder(Delivery)
_JSON = msgspec.json.Encoder()


def shard_of(*ids: str) -> int:
    return zlib.crc32(SEP.join(ids).encode()) % SHARDS


def _shard(n: int, part: str) -> str:
    return f"gh:wh:{{s{n}}}:{part}"


def _dead(tenant: str, part: str) -> str:
    return f"gh:wh:{{t:{tenant}}}:{part}"


def cursor_key(tenant: str, match_id: str) -> str:
    return f"gh:{{{tenant}:{match_id}}}:webhooks"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Outbox:
    """The outbox's Redis operations on a `redis.asyncio` client (plain or cluster)."""

    def __init__(self, redis: Any, *, clock: Callable[[], float] = time.time) -> None:
        self.redis = redis
        self.clock = clock
        guard = ColdClusterGuard(redis)
        self._enqueue = guarded_script(redis, guard, _ENQUEUE)
        self._claim = guarded_script(redis, guard, _CLAIM)
        self._sent = guarded_script(redis, guard, _SENT)
        self._retry = guarded_script(redis, guard, _RETRY)
        self._clear = guarded_script(redis, guard, _CLEAR_INTENT)
        self._advance = guarded_script(redis, guard, _ADVANCE)

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    # -- intents --------------------------------------------------------------------------------

    async def intend(self, tenant: str, match_id: str, due_ms: int) -> int:
        """Owe a derivation for this match from `due_ms` on (before the append); the score."""
        shard = shard_of(tenant, match_id)
        await self.redis.zadd(_shard(shard, "intents"), {f"{tenant}{SEP}{match_id}": due_ms})
        return due_ms

    async def claim_intents(self, shard: int, lease_ms: int, limit: int = 100) -> list[tuple[str, str, int]]:
        """Due intents of a shard, leased: (tenant, match id, the lease's score)."""
        now = self.now_ms()
        reply = await self._claim(keys=[_shard(shard, "intents")], args=[now, now + lease_ms, limit])
        out = []
        for member in reply[::2]:
            tenant, _, match_id = _text(member).partition(SEP)
            out.append((tenant, match_id, now + lease_ms))
        return out

    async def clear_intent(self, tenant: str, match_id: str, score: int) -> bool:
        shard = shard_of(tenant, match_id)
        cleared = await self._clear(keys=[_shard(shard, "intents")], args=[f"{tenant}{SEP}{match_id}", score])
        return bool(cleared)

    # -- the match's cursor ---------------------------------------------------------------------

    async def cursor(self, tenant: str, match_id: str) -> int:
        value = await self.redis.hget(cursor_key(tenant, match_id), "cursor")
        return int(value) if value is not None else 0

    async def advance(self, tenant: str, match_id: str, start: int, end: int) -> bool:
        """Move the cursor from `start` to `end`; False when another deriver moved it first."""
        now = await self._advance(keys=[cursor_key(tenant, match_id)], args=[start, end])
        return int(now) == end

    # -- deliveries -----------------------------------------------------------------------------

    async def enqueue(self, shard: int, deliveries: Sequence[Delivery], due_ms: int) -> list[Delivery]:
        """Queue deliveries due at `due_ms`; the ones that were new (not queued or sent before)."""
        if not deliveries:
            return []
        args: list[Any] = [due_ms]
        for delivery in deliveries:
            args += [delivery.delivery_id, _JSON.encode(delivery)]
        keys = [_shard(shard, "due"), _shard(shard, "items"), _shard(shard, "sent")]
        added = {_text(i) for i in await self._enqueue(keys=keys, args=args)}
        return [d for d in deliveries if d.delivery_id in added]

    async def claim(self, shard: int, lease_ms: int, limit: int = 100) -> list[Delivery]:
        now = self.now_ms()
        reply = await self._claim(
            keys=[_shard(shard, "due"), _shard(shard, "items")], args=[now, now + lease_ms, limit]
        )
        out = []
        for member, raw in zip(reply[::2], reply[1::2], strict=True):
            if raw:
                out.append(DELIVERY.decode(raw))
            else:  # an item lost (never expected): drop its schedule entry
                await self.redis.zrem(_shard(shard, "due"), _text(member))
        return out

    async def sent(self, shard: int, delivery_id: str) -> None:
        keys = [_shard(shard, "due"), _shard(shard, "items"), _shard(shard, "sent")]
        await self._sent(keys=keys, args=[delivery_id, self.now_ms(), SENT_RETENTION_MS])

    async def retry(self, shard: int, delivery: Delivery, next_ms: int) -> None:
        await self._retry(
            keys=[_shard(shard, "due"), _shard(shard, "items")],
            args=[delivery.delivery_id, next_ms, _JSON.encode(delivery)],
        )

    async def drop(self, shard: int, delivery_id: str) -> None:
        """Forget a delivery that can no longer be sent (its endpoint or tenant was removed)."""
        await self.redis.zrem(_shard(shard, "due"), delivery_id)
        await self.redis.hdel(_shard(shard, "items"), delivery_id)

    # -- dead letters ---------------------------------------------------------------------------

    async def bury(self, shard: int, delivery: Delivery) -> None:
        """The retry budget is spent: keep it as a dead letter (first), then leave the queue."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(_dead(delivery.tenant, "deadinfo"), delivery.delivery_id, _JSON.encode(delivery))
        pipe.zadd(_dead(delivery.tenant, "dead"), {delivery.delivery_id: delivery.failed_ms})
        await pipe.execute()
        await self.drop(shard, delivery.delivery_id)

    async def dead_letters(
        self, tenant: str, limit: int = 50, cursor: str = ""
    ) -> tuple[list[Delivery], str]:
        """A tenant's dead letters, newest first, and the next page's cursor ('' at the end)."""
        limit = max(1, min(limit, 200))
        start = int(cursor) if cursor.isdigit() else 0
        ids = [_text(i) for i in await self.redis.zrevrange(_dead(tenant, "dead"), start, start + limit)]
        page = ids[:limit]
        raws = await self.redis.hmget(_dead(tenant, "deadinfo"), page) if page else []
        letters = [DELIVERY.decode(raw) for raw in raws if raw is not None]
        return letters, (str(start + limit) if len(ids) > limit else "")

    async def replay(self, tenant: str, delivery_ids: Sequence[str] | None) -> int:
        """Queue dead letters again, due now with a fresh budget (None: all of the tenant's)."""
        if delivery_ids is None:
            delivery_ids = [_text(i) for i in await self.redis.zrange(_dead(tenant, "dead"), 0, -1)]
        count = 0
        for start in range(0, len(delivery_ids), 100):
            chunk = list(delivery_ids[start : start + 100])
            raws = await self.redis.hmget(_dead(tenant, "deadinfo"), chunk)
            for raw in raws:
                if raw is None:
                    continue
                letter = DELIVERY.decode(raw)
                letter.attempts, letter.last_error, letter.failed_ms = 0, "", 0
                shard = letter.shard
                # The queue first: a crash between the two leaves it queued and still listed.
                keys = [_shard(shard, "due"), _shard(shard, "items"), _shard(shard, "sent")]
                await self.redis.zrem(_shard(shard, "sent"), letter.delivery_id)
                await self._enqueue(keys=keys, args=[self.now_ms(), letter.delivery_id, _JSON.encode(letter)])
                pipe = self.redis.pipeline(transaction=False)
                pipe.hdel(_dead(tenant, "deadinfo"), letter.delivery_id)
                pipe.zrem(_dead(tenant, "dead"), letter.delivery_id)
                await pipe.execute()
                count += 1
        return count

    async def pending(self) -> int:
        """Deliveries queued over every shard (for metrics and tests)."""
        total = 0
        for shard in range(SHARDS):
            total += int(await self.redis.zcard(_shard(shard, "due")))
        return total
