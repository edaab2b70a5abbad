"""Private tables: a match whose seats are claimed with an invite code instead of the queue.

Keys (each table under its own hash tag, so tables spread over a Redis Cluster):

    gh:tbl:{<tenant>:<code>}          hash: match, seats, created_ms, then per claimed seat
                                      seat:<n> -> player id, player:<id> -> n, claim:<n> -> the
                                      claim id's sha256 (if it had one), namekey:<n> -> the key of
                                      its name (gateway/domain/names.py)
    gh:tbl:{<tenant>:<match>}:code    string: the match's invite code (opening again returns it)
    gh:tbl:{<tenant>:<match>}:names   hash: seat -> the name its player chose (issue 32), kept
                                      NAMES_TTL_S after the last claim: it outlives the invite
    gh:tbl:{<tenant>:<match>}:resume  hash: seat -> sha256 of its resume secret (issue 39), kept as
                                      long as the names
    gh:{tables}:deadlines             sorted set: "<tenant>\x1f<match>" -> when the table closes
                                      if its seats are not all claimed by then (ms)

The table expires with `ttl_s` (a week by default): an unclaimed seat is not held forever.
The code is 100 bits from the CSPRNG, written in Crockford's base32 (no I, L, O, U; read
case-insensitively, with I/L as 1 and O as 0, dashes and spaces ignored) as four groups of five,
e.g. `7K2QD-M4X9F-0VBNC-3RTZE`: unguessable, and safe to read aloud or type from a screen.

Claims are one atomic script: a seat goes to one player only, and once (issue 39): a player who
holds a seat, a bot's seat and a seat whose player anyone can read in `seat_names` are refused
alike. The only repeat answered is the same claim again with the same client-chosen claim id (a
lost reply). Moving a seat to another device takes its resume secret, `ghs1.<match>.<seat>.<32
random characters>` (192 bits), which only its holder has: its claim answered it, and each use
replaces it (`resume`), so a used resume link stops working. Only its sha256 is stored.
The script also refuses a name whose key is another seat's, atomically with the claim.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import structlog

from gateway.domain.names import BadName
from gateway.domain.pairing import MAX_SEATS
from gateway.eventstore.base import MatchKey
from gateway.scripts import ColdClusterGuard, guarded_script
from gateway.usecases.results import MatchNotFound
from services.kernel.rejection import BAD_INVITE, SEAT_TAKEN

_log = structlog.get_logger("tables")

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_CODE_LENGTH = 20  # 20 symbols x 5 bits = 100 bits
_CODE = re.compile(f"[{_CROCKFORD}]{{{_CODE_LENGTH}}}")
_READ_AS = str.maketrans({"I": "1", "L": "1", "O": "0", "-": None, " ": None})
_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
MAX_PLAYER_ID = 128
MAX_DISPLAY_NAME = 40
NAMES_TTL_S = 90 * 24 * 3600  # the names of a table's seats, shown to its viewers (issue 32)
RESUME_PREFIX = "ghs1."
_RESUME = re.compile(r"ghs1\.([A-Za-z0-9._-]{1,64})\.(\d{1,2})\.([A-Za-z0-9_-]{32})")
_CLAIM_ID = re.compile(r"[\x21-\x7e]{16,64}")
DEADLINES = "gh:{tables}:deadlines"
SEP = "\x1f"

# KEYS: code index.  ARGV: new code, ttl ms.  Returns the match's code (the existing one if any).
_RESERVE = """
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]
"""

# KEYS: table.  ARGV: match id, seats, created ms, ttl ms.  Creates the table if missing.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'match', ARGV[1], 'seats', ARGV[2], 'created_ms', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return redis.call('HGET', KEYS[1], 'match')
"""

# KEYS: table.  ARGV: player id, wanted seat ('' = any), claim id hash ('' = none), name key
# ('' = not checked: a bot's seat).
_CLAIM = """
local info = redis.call('HMGET', KEYS[1], 'match', 'seats')
if not info[1] then return {'bad_invite'} end
local held = redis.call('HGET', KEYS[1], 'player:' .. ARGV[1])
if held then
  if ARGV[3] ~= '' and redis.call('HGET', KEYS[1], 'claim:' .. held) == ARGV[3] then
    return {'again', info[1], tonumber(held)}
  end
  return {'player_seated', info[1], tonumber(held)}
end
local seats = tonumber(info[2])
if ARGV[4] ~= '' then
  for n = 0, seats - 1 do
    if redis.call('HGET', KEYS[1], 'namekey:' .. n) == ARGV[4] then return {'name_taken', info[1], n} end
  end
end
local seat = nil
if ARGV[2] ~= '' then
  seat = tonumber(ARGV[2])
  if seat < 0 or seat >= seats then return {'no_such_seat', info[1], seats} end
  if redis.call('HEXISTS', KEYS[1], 'seat:' .. seat) == 1 then return {'seat_taken', info[1], seat} end
else
  for n = 0, seats - 1 do
    if redis.call('HEXISTS', KEYS[1], 'seat:' .. n) == 0 then
      seat = n
      break
    end
  end
  if not seat then return {'seat_taken', info[1], -1} end
end
redis.call('HSET', KEYS[1], 'seat:' .. seat, ARGV[1], 'player:' .. ARGV[1], seat)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'claim:' .. seat, ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'namekey:' .. seat, ARGV[4]) end
return {'ok', info[1], seat}
"""

# KEYS: resume hash.  ARGV: seat, sha256 of the secret presented, sha256 of its replacement, ttl ms.
_RESUME_SEAT = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""


class TableError(Exception):
    """A claim refused; `code` is the rejection code (services/kernel/rejection.py)."""

    code = ""


class BadInvite(TableError, LookupError):
    """No open table has this invite code for this tenant (unknown, expired, revoked, malformed)."""

    code = BAD_INVITE


class SeatTaken(TableError):
    """The seat asked for is someone else's, or every seat is claimed, or the player holds one."""

    code = SEAT_TAKEN

    def __init__(self, message: str, match_id: str) -> None:
        super().__init__(message)
        self.match_id = match_id


class Claimed(NamedTuple):
    """A seat claimed (or the same claim again: `again`)."""

    match_id: str
    seat: int
    again: bool = False


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def new_resume_secret(match_id: str, seat: int) -> str:
    return f"{RESUME_PREFIX}{match_id}.{seat}.{secrets.token_urlsafe(24)}"


def new_invite_code() -> str:
    """A fresh code: 100 random bits as four groups of five Crockford base32 symbols."""
    symbols = "".join(secrets.choice(_CROCKFORD) for _ in range(_CODE_LENGTH))
    return "-".join(symbols[i : i + 5] for i in range(0, _CODE_LENGTH, 5))


def normalize_code(code: str) -> str | None:
    """The code as stored (20 symbols, no dashes), or None if it cannot be one."""
    if not isinstance(code, str) or len(code) > 64:
        return None
    plain = code.strip().upper().translate(_READ_AS)
    return plain if _CODE.fullmatch(plain) else None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _check_id(name: str, value: str) -> None:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise ValueError(f"{name} must match [A-Za-z0-9._-]{{1,64}}")


class Tables:
    """Private tables on a `redis.asyncio` client (plain or cluster)."""

    def __init__(
        self, redis: Any, *, ttl_s: float = 7 * 24 * 3600, clock: Callable[[], float] = time.time
    ) -> None:
        self._redis = redis
        self.ttl_s = ttl_s
        self._ttl_ms = int(ttl_s * 1000)
        self._clock = clock
        guard = ColdClusterGuard(redis)
        self._reserve = guarded_script(redis, guard, _RESERVE)
        self._create = guarded_script(redis, guard, _CREATE)
        self._claim = guarded_script(redis, guard, _CLAIM)
        self._resume = guarded_script(redis, guard, _RESUME_SEAT)

    @staticmethod
    def _table_key(tenant: str, plain_code: str) -> str:
        return f"gh:tbl:{{{tenant}:{plain_code}}}"

    @staticmethod
    def _index_key(tenant: str, match_id: str) -> str:
        return f"gh:tbl:{{{tenant}:{match_id}}}:code"

    async def open(self, tenant: str, match_id: str, players: int | Sequence[str]) -> str:
        """The invite code of the match's table with `players` seats (a count, or the match's
        placeholder player list); opening the same match again returns the same code."""
        _check_id("tenant", tenant)
        _check_id("match_id", match_id)
        if not isinstance(players, int | str) and isinstance(players, Sequence):
            players = len(players)
        if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= MAX_SEATS:
            raise ValueError(f"a table has 1-{MAX_SEATS} seats")
        plain = normalize_code(new_invite_code())
        assert plain is not None
        code = _text(
            await self._reserve(keys=[self._index_key(tenant, match_id)], args=[plain, self._ttl_ms])
        )
        # Idempotent: a retry after a lost reply (or a crash between the two steps) completes it.
        owner = await self._create(
            keys=[self._table_key(tenant, code)],
            args=[match_id, players, int(self._clock() * 1000), self._ttl_ms],
        )
        if _text(owner) != match_id:  # 100 random bits: never in practice, but never silently
            raise RuntimeError("invite code collision")
        return "-".join(code[i : i + 5] for i in range(0, _CODE_LENGTH, 5))

    async def claim(
        self,
        tenant: str,
        code: str,
        player_id: str,
        *,
        seat: int | None = None,
        claim_id: str = "",
        name_key: str = "",
    ) -> Claimed:
        """Seat `player_id` at the table (the lowest free seat, or `seat`), once. `claim_id`: the
        client's id for this claim, which alone makes a repeat answer the same seat; `name_key`:
        the chosen name's key, refused (BadName) when another seat's is the same."""
        plain = normalize_code(code)
        if plain is None or not isinstance(tenant, str) or not _ID.fullmatch(tenant):
            raise BadInvite("no table has this invite code")
        if (
            not isinstance(player_id, str)
            or not 1 <= len(player_id) <= MAX_PLAYER_ID
            or not player_id.isprintable()
        ):
            raise ValueError(f"player_id must be 1-{MAX_PLAYER_ID} printable characters")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
            raise ValueError("seat must be an integer")
        if claim_id and not _CLAIM_ID.fullmatch(claim_id):
            raise ValueError("claim_id must be 16-64 printable ASCII characters without spaces (random)")
        reply = await self._claim(
            keys=[self._table_key(tenant, plain)],
            args=[player_id, "" if seat is None else seat, _sha(claim_id) if claim_id else "", name_key],
        )
        outcome = _text(reply[0])
        if outcome == "bad_invite":
            raise BadInvite("no table has this invite code")
        match_id = _text(reply[1])
        if outcome == "no_such_seat":
            raise ValueError(f"the table has seats 0-{int(reply[2]) - 1}")
        if outcome == "seat_taken":
            which = int(reply[2])
            raise SeatTaken("every seat is taken" if which < 0 else f"seat {which} is taken", match_id)
        if outcome == "player_seated":
            raise SeatTaken(
                "this player already has a seat at this table, and a seat is claimed once: to play it "
                "on another device, open the seat's resume link there",
                match_id,
            )
        if outcome == "name_taken":
            raise BadName(
                "display_name: another player at this table already has this name, or one that reads "
                "the same: choose another"
            )
        return Claimed(match_id, int(reply[2]), again=outcome == "again")

    @staticmethod
    def _resume_key(tenant: str, match_id: str) -> str:
        return f"gh:tbl:{{{tenant}:{match_id}}}:resume"

    async def new_resume_secret(self, tenant: str, match_id: str, seat: int) -> str:
        """A fresh resume secret for a claimed seat (the seat's previous one stops working)."""
        _check_id("tenant", tenant)
        _check_id("match_id", match_id)
        secret = new_resume_secret(match_id, seat)
        key = self._resume_key(tenant, match_id)
        pipe = self._redis.pipeline(transaction=False)
        pipe.hset(key, str(seat), _sha(secret))
        pipe.pexpire(key, NAMES_TTL_S * 1000)
        await pipe.execute()
        return secret

    async def resume(self, tenant: str, secret: str) -> tuple[str, int, str]:
        """The seat a resume secret is for, and its replacement: (match id, seat, new secret).
        BadInvite when no seat has it (malformed, unknown, already used, another tenant's)."""
        found = _RESUME.fullmatch(secret) if isinstance(secret, str) else None
        if found is None or not _ID.fullmatch(tenant):
            raise BadInvite("this resume link is not valid: it may have been used already (each works once)")
        match_id, seat = found.group(1), int(found.group(2))
        fresh = new_resume_secret(match_id, seat)
        swapped = await self._resume(
            keys=[self._resume_key(tenant, match_id)],
            args=[str(seat), _sha(secret), _sha(fresh), NAMES_TTL_S * 1000],
        )
        if not int(swapped):
            raise BadInvite("this resume link is not valid: it may have been used already (each works once)")
        return match_id, seat, fresh

    # -- deadlines: a table whose seats are not all claimed in time is closed ------------------

    async def set_deadline(self, tenant: str, match_id: str, deadline_ms: int) -> None:
        _check_id("tenant", tenant)
        _check_id("match_id", match_id)
        await self._redis.zadd(DEADLINES, {f"{tenant}{SEP}{match_id}": deadline_ms})

    async def due(self, limit: int = 100) -> list[tuple[str, str]]:
        """Tables whose deadline has passed: (tenant, match id)."""
        members = await self._redis.zrangebyscore(DEADLINES, "-inf", int(self._clock() * 1000), 0, limit)
        return [tuple(_text(m).split(SEP, 1)) for m in members]  # type: ignore[misc]

    async def drop_deadline(self, tenant: str, match_id: str) -> None:
        await self._redis.zrem(DEADLINES, f"{tenant}{SEP}{match_id}")

    @staticmethod
    def _names_key(tenant: str, match_id: str) -> str:
        return f"gh:tbl:{{{tenant}:{match_id}}}:names"

    async def name_seat(self, tenant: str, match_id: str, seat: int, name: str) -> None:
        """Record the name the player of `seat` chose at the table (claiming again may rename)."""
        _check_id("tenant", tenant)
        _check_id("match_id", match_id)
        key = self._names_key(tenant, match_id)
        await self._redis.hset(key, str(seat), name)
        await self._redis.pexpire(key, NAMES_TTL_S * 1000)

    async def names(self, tenant: str, match_id: str) -> dict[int, str]:
        """Seat -> the name its player chose, for the seats whose players named themselves."""
        fields = await self._redis.hgetall(self._names_key(tenant, match_id))
        return {int(_text(k)): _text(v) for k, v in fields.items()}

    async def seats(self, tenant: str, code: str) -> tuple[str, int, dict[int, str]]:
        """The table's match id, seat count and claimed seats (seat -> player id)."""
        plain = normalize_code(code)
        if plain is None or not isinstance(tenant, str) or not _ID.fullmatch(tenant):
            raise BadInvite("no table has this invite code")
        fields = await self._redis.hgetall(self._table_key(tenant, plain))
        if not fields:
            raise BadInvite("no table has this invite code")
        values = {_text(k): _text(v) for k, v in fields.items()}
        claimed = {int(k[5:]): v for k, v in values.items() if k.startswith("seat:")}
        return values["match"], int(values["seats"]), dict(sorted(claimed.items()))

    async def code_for(self, tenant: str, match_id: str) -> str | None:
        """The match's invite code while its table is open, else None."""
        _check_id("tenant", tenant)
        _check_id("match_id", match_id)
        code = await self._redis.get(self._index_key(tenant, match_id))
        if code is None:
            return None
        plain = _text(code)
        return "-".join(plain[i : i + 5] for i in range(0, _CODE_LENGTH, 5))

    async def revoke(self, tenant: str, match_id: str) -> bool:
        """Close the match's table (its code stops working); claimed seats keep their tokens."""
        _check_id("tenant", tenant)
        _check_id("match_id", match_id)
        index = self._index_key(tenant, match_id)
        code = await self._redis.get(index)
        if code is None:
            return False
        await self._redis.delete(self._table_key(tenant, _text(code)))
        await self._redis.delete(index)
        return True


class TableDeadlines:
    """Every replica's loop closing the tables whose seats were not all claimed in time (issue
    39): the match ends (`unclaimed`: nobody wins, nobody is rated), its invite stops working,
    and it no longer counts against the tenant's quota. A table that filled is left alone.

    Before judging, a claim the match's stream missed (a replica that died between the claim and
    its `seat_claimed`) is appended, so a table whose seats were all claimed starts instead."""

    def __init__(self, tables: Tables, matches: Any, quotas: Any, *, interval_s: float = 5.0) -> None:
        self.tables = tables
        self.matches = matches  # gateway.usecases.GameMatches
        self.quotas = quotas  # gateway.quotas.Quotas
        self.interval_s = interval_s

    async def sweep(self) -> int:
        """Judge every table past its deadline; the number closed."""
        closed = 0
        for tenant, match_id in await self.tables.due():
            key = MatchKey(tenant, match_id)
            try:
                code = await self.tables.code_for(tenant, match_id)
                for seat in (await self.tables.seats(tenant, code))[2] if code is not None else ():
                    await self.matches.claim_seat(key, seat)
                outcome = await self.matches.close_unclaimed(key)
            except (MatchNotFound, BadInvite):
                outcome = None  # gone (archived, or its creation failed)
            if outcome is not None:
                closed += 1
                await self.tables.revoke(tenant, match_id)
                await self.quotas.release_match(tenant, match_id)
            await self.tables.drop_deadline(tenant, match_id)
        return closed

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                _log.exception("closing unclaimed tables failed; retrying")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.interval_s)
