"""Ratings and leaderboards per tenant and game (issue 23), updated when a match ends.

The model is openskill's Plackett-Luce (Weng and Lin's Bayesian approximation), which rates
matches of any number of seats with ties: a rating is (mu, sigma), 25 and 25/3 at the start, and
leaderboards sort by the ordinal mu - 3 sigma (what the player is at least, with 99.7% belief).
Where each seat finished comes from `gateway/domain/ranking.py`; bot seats, seats whose player
is not known (a private table's unclaimed placeholders) and players holding several seats of one
match are left out, and a match with fewer than two rated players changes nobody's rating.

Keys (one hash tag per tenant and game, so each script runs on one Redis Cluster slot):

    gh:rt:{<tenant>:<game>}:players     hash: player id -> {"mu", "sigma", "n"} (JSON)
    gh:rt:{<tenant>:<game>}:board       sorted set: player id -> ordinal (the leaderboard)
    gh:rt:{<tenant>:<game>}:applied     hash: match id -> the rating changes it made (JSON)
    gh:rt:{<tenant>:<game>}:applied_at  sorted set: match id -> when (ms); kept a month

A match is applied once: the script answers an applied match's recorded changes (a re-derived
`match.ended` webhook carries the same ones), and writes new ratings only if every player's
stored rating is still the one they were computed from (two matches of one player ending at
once: the second recomputes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from gateway.scripts import ColdClusterGuard, guarded_script

MU, SIGMA = 25.0, 25.0 / 3.0
# Matchmaking windows are Elo-like (gateway/domain/pairing.py: 1500 average, windows of 100):
# a ticket without a rating gets its player's mu on that scale.
ELO_BASE, ELO_PER_MU = 1500.0, 60.0
APPLIED_RETENTION_MS = 30 * 24 * 3600 * 1000
_CONFLICT_RETRIES = 10

# KEYS: players, board, applied, applied_at.  ARGV: match id, now ms, retention ms, changes JSON,
# player count, then per player: id, the stored JSON it was computed from ('' = none), new JSON,
# new ordinal.  Returns {'done', changes} (already applied), {'ok', changes} or {'conflict', id}.
_APPLY = """
local done = redis.call('HGET', KEYS[3], ARGV[1])
if done then return {'done', done} end
local n = tonumber(ARGV[5])
for i = 0, n - 1 do
  local at = 6 + 4 * i
  local stored = redis.call('HGET', KEYS[1], ARGV[at]) or ''
  if stored ~= ARGV[at + 1] then return {'conflict', ARGV[at]} end
end
for i = 0, n - 1 do
  local at = 6 + 4 * i
  redis.call('HSET', KEYS[1], ARGV[at], ARGV[at + 2])
  redis.call('ZADD', KEYS[2], ARGV[at + 3], ARGV[at])
end
local now = tonumber(ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[4], now, ARGV[1])
local old = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[3]), 'LIMIT', 0, 100)
for _, id in ipairs(old) do
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[4], id)
end
return {'ok', ARGV[4]}
"""


class _Stored(msgspec.Struct):
    mu: float
    sigma: float
    n: int = 0


class RatingChange(msgspec.Struct, frozen=True):
    """One seat's rating before and after a match (what the match.ended webhook carries)."""

    seat: int
    player_id: str
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float

    @property
    def ordinal_before(self) -> float:
        return self.mu_before - 3 * self.sigma_before

    @property
    def ordinal_after(self) -> float:
        return self.mu_after - 3 * self.sigma_after


_CHANGES = msgspec.json.Decoder(list[RatingChange])
_STORED = msgspec.json.Decoder(_Stored)
_JSON = msgspec.json.Encoder()


@dataclass(frozen=True)
class Rating:
    player_id: str
    mu: float
    sigma: float
    matches: int
    rank: int = 0  # place on the leaderboard, 1 = best; 0 when not asked for

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class Seat:
    """A seat of an ended match as ratings see it: who, where it finished, whether it counts."""

    seat: int
    player_id: str
    rank: int
    rated: bool = True


class RatingConflict(RuntimeError):
    """Ratings kept changing under an update (many matches of one player ending at once)."""


def _keys(tenant: str, game: str) -> list[str]:
    tag = f"gh:rt:{{{tenant}:{game}}}"
    return [f"{tag}:players", f"{tag}:board", f"{tag}:applied", f"{tag}:applied_at"]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Ratings:
    """Ratings on a `redis.asyncio` client (plain or cluster), with openskill's Plackett-Luce."""

    def __init__(self, redis: Any, *, clock: Callable[[], float] = time.time) -> None:
        from openskill.models import PlackettLuce

        self._redis = redis
        self._model = PlackettLuce(mu=MU, sigma=SIGMA)
        self._clock = clock
        self._apply = guarded_script(redis, ColdClusterGuard(redis), _APPLY)

    def rate(self, seats: Sequence[Seat], stored: dict[str, _Stored | None]) -> list[RatingChange]:
        """The new ratings of the rated seats, from their stored ones (pure: openskill only)."""
        rated = [s for s in seats if s.rated]
        before = [stored.get(s.player_id) or _Stored(MU, SIGMA) for s in rated]
        teams = [[self._model.rating(mu=b.mu, sigma=b.sigma)] for b in before]
        after = self._model.rate(teams, ranks=[float(s.rank) for s in rated])
        return [
            RatingChange(s.seat, s.player_id, s.rank, b.mu, b.sigma, a[0].mu, a[0].sigma)
            for s, b, a in zip(rated, before, after, strict=True)
        ]

    async def apply(self, tenant: str, game: str, match_id: str, seats: Sequence[Seat]) -> list[RatingChange]:
        """Update the ratings of an ended match's seats, once per match; the changes it made."""
        counted = [s.player_id for s in seats if s.rated]
        repeated = {p for p in counted if counted.count(p) > 1}
        seats = [
            s if s.player_id not in repeated else Seat(s.seat, s.player_id, s.rank, False) for s in seats
        ]
        rated = [s for s in seats if s.rated]
        if len(rated) < 2:
            return []
        keys = _keys(tenant, game)
        for _ in range(_CONFLICT_RETRIES):
            raw = await self._redis.hmget(keys[0], [s.player_id for s in rated])
            texts = {s.player_id: _text(r) if r is not None else "" for s, r in zip(rated, raw, strict=True)}
            stored = {p: _STORED.decode(t) if t else None for p, t in texts.items()}
            changes = self.rate(rated, stored)
            args: list[Any] = [
                match_id,
                int(self._clock() * 1000),
                APPLIED_RETENTION_MS,
                _JSON.encode(changes),
                len(changes),
            ]
            for change in changes:
                n = (stored[change.player_id] or _Stored(MU, SIGMA)).n + 1
                args += [
                    change.player_id,
                    texts[change.player_id],
                    _JSON.encode(_Stored(change.mu_after, change.sigma_after, n)),
                    repr(change.ordinal_after),
                ]
            status, body = await self._apply(keys=keys, args=args)
            if _text(status) in ("ok", "done"):
                return _CHANGES.decode(body)
        raise RatingConflict(f"ratings of {tenant}/{game} kept changing while applying {match_id}")

    async def get(self, tenant: str, game: str, player_ids: Sequence[str]) -> list[Rating]:
        """The ratings of the players who have one, in the order asked, with their places."""
        if not player_ids:
            return []
        keys = _keys(tenant, game)
        pipe = self._redis.pipeline(transaction=False)
        pipe.hmget(keys[0], list(player_ids))
        for player in player_ids:
            pipe.zrevrank(keys[1], player)
        raw, *places = await pipe.execute()
        out = []
        for player, value, place in zip(player_ids, raw, places, strict=True):
            if value is None:
                continue
            stored = _STORED.decode(value)
            out.append(
                Rating(player, stored.mu, stored.sigma, stored.n, int(place) + 1 if place is not None else 0)
            )
        return out

    async def leaderboard(
        self, tenant: str, game: str, limit: int = 50, cursor: str = ""
    ) -> tuple[list[Rating], str]:
        """A page of the leaderboard, best first, and the cursor of the next page ('' at the end)."""
        limit = max(1, min(limit, 200))
        start = int(cursor) if cursor.isdigit() else 0
        keys = _keys(tenant, game)
        rows = await self._redis.zrevrange(keys[1], start, start + limit, withscores=True)
        page = rows[:limit]
        ids = [_text(member) for member, _ in page]
        raw = await self._redis.hmget(keys[0], ids) if ids else []
        out = []
        for place, (player, value) in enumerate(zip(ids, raw, strict=True), start=start + 1):
            if value is not None:
                stored = _STORED.decode(value)
                out.append(Rating(player, stored.mu, stored.sigma, stored.n, place))
        return out, (str(start + limit) if len(rows) > limit else "")

    async def for_matchmaking(self, tenant: str, game: str, player_id: str) -> float | None:
        """The player's rating on the matchmaking scale (Elo-like), or None if unrated."""
        value = await self._redis.hget(_keys(tenant, game)[0], player_id)
        if value is None:
            return None
        return ELO_BASE + ELO_PER_MU * (_STORED.decode(value).mu - MU)
