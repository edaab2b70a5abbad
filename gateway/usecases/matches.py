"""Match use cases: create a match, list a tenant's matches, count the active ones.

Decisions (question -> decision):
- Where does the seed live before the end? In the match's meta hash (server side only); the
  stream holds only its commitment until `match_ended` reveals it, so `raw_events` (auditor
  scope) never shows an unfinished match's seed.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace

import msgspec

from gateway.domain.match import GATEWAY, JSON, MATCH_CREATED, POLICY, BotSeat, MatchCreated, TurnTimerSpec
from gateway.domain.receipts import seed_commitment
from gateway.domain.timers import TimerPolicy
from gateway.eventstore.async_redis import OK
from gateway.eventstore.base import GENESIS, MatchKey, NewEvent
from gateway.usecases.results import (
    Created,
    InvalidRequest,
    MatchExists,
    MatchPage,
    MatchSummary,
    RulesNotAnswering,
)
from gateway.usecases.store import Match, MatchStore

SEED_BYTES = 32  # 256 bits from the OS CSPRNG: no player can search the seed space from a view
# Command ids the gateway uses for its own appends contain spaces, which client command ids
# (printable ASCII without spaces) never do: a client can never take one of them first.
_CREATE_COMMAND = "gw create"


class MatchUseCases(MatchStore):
    """Opening matches and listing a tenant's."""

    async def create(
        self,
        tenant: str,
        game: str,
        players: Sequence[str],
        options_json: bytes = b"",
        *,
        match_id: str | None = None,
        seed: bytes | None = None,
        command_id: str | None = None,
        turn_timer: TimerPolicy | None = None,
        created_by: str = "",
        bots: Mapping[int, str] | None = None,
        awaiting: Sequence[int] = (),
    ) -> Created:
        """Set up a match and open its stream with `match_created` (public: the seed's
        commitment, never the seed). Idempotent on match_id: the same game and players again
        return the existing match (matchmaking may retry a pairing from another replica).
        `awaiting`: a private table's seats that must be claimed before anyone acts."""
        key = MatchKey(tenant, match_id or uuid.uuid4().hex)
        # Issue 40: the game's current version, or the ramp's for this match id (every replica,
        # and a retried create, chooses alike).
        version, client = self.rules.for_new_match(game, key.match_id)
        players = tuple(players)
        if seed is None:
            seed = secrets.token_bytes(SEED_BYTES)
        if not 1 <= len(seed) <= SEED_BYTES:
            raise InvalidRequest(f"a seed is 1 to {SEED_BYTES} bytes")
        options = options_json or b"{}"
        state, status = await client.setup(len(players), seed, options)
        if version and state.rules_version != version:  # the target was redeployed in place
            self.rules.suspect(game, version)
            raise RulesNotAnswering(
                game, version, f"the target for rules {version} of {game} serves others now; retry"
            )
        commitment = seed_commitment(seed)
        timer = turn_timer if turn_timer is not None and turn_timer.enabled else None
        created = MatchCreated(
            game_id=game,
            rules_version=state.rules_version,
            players=len(players),
            seed_commitment=commitment,
            options=msgspec.Raw(options),
            player_ids=players,
            turn_timer=TurnTimerSpec(timer.seconds, timer.policy) if timer else None,
            bots=tuple(BotSeat(seat, kind) for seat, kind in sorted((bots or {}).items())),
            awaiting=tuple(sorted(awaiting)),
            policy=POLICY,
        )
        now = self.clock()
        meta = {
            "game": game,
            "players": JSON.encode(list(players)).decode(),
            "seats": str(len(players)),
            "seed": seed.hex(),
            "seed_commitment": commitment,
            "created_ms": str(now),
            "created_by": created_by,
            "finished": "0",
            "timer_seconds": str(timer.seconds if timer else 0),
            "timer_policy": timer.policy if timer else "",
            "bots": JSON.encode({str(seat): kind for seat, kind in (bots or {}).items()}).decode(),
            "policy": str(POLICY),
            "rules_version": state.rules_version,
        }
        match = Match(key, game, players, seed, commitment, now, timer, 0, GENESIS, state, status)
        match = replace(
            match,
            bots=tuple(sorted((bots or {}).items())),
            unclaimed=frozenset(awaiting),
            policy=POLICY,
            rules_version=state.rules_version,
        )
        command = command_id or _CREATE_COMMAND
        appended = await self._append(
            match,
            [NewEvent(MATCH_CREATED, JSON.encode(created))],
            actor=GATEWAY,
            command_id=command,
            state=state,
            status=status,
            meta=meta,
        )
        new, receipt, outcome = appended.match, appended.receipt, appended.status
        if outcome == OK:
            assert new is not None
            await self.store.index_created(key, now)
            await self.after_append(key, "pin", lambda: self.pinned.pin(key, game, state.rules_version))
            await self._arm(new)
            return Created(key, game, players, new.version, commitment, True, receipt)
        # The match exists: the same create retried, or another replica's identical pairing.
        existing = await self._load(key, fresh=True)
        if existing.game == game and existing.players == players:
            await self.store.index_created(key, existing.created_ms)  # in case the first died here
            return Created(key, game, existing.players, existing.version, existing.commitment, False)
        raise MatchExists(f"match {key.match_id!r} already exists with another game or players")

    async def active_matches(self, tenant: str) -> int:
        return await self.store.active_count(tenant)

    async def list_matches(
        self,
        tenant: str,
        *,
        game: str | None = None,
        finished: bool | None = None,
        created_after_ms: int | None = None,
        created_before_ms: int | None = None,
        limit: int = 50,
        cursor: str = "",
    ) -> MatchPage:
        """A tenant's matches, newest first, filtered; `next_cursor` continues after the page."""
        limit = max(1, min(limit, 1000))
        upper: float | str = created_before_ms if created_before_ms is not None else "+inf"
        lower: float | str = created_after_ms if created_after_ms is not None else "-inf"
        after: tuple[int, str] | None = None
        if cursor:
            score, _, member = cursor.partition(":")
            # ASCII digits of a ms timestamp ("²".isdigit() is True; 20 digits is no time)
            if not (score.isascii() and score.isdigit()) or len(score) > 15 or not member:
                raise InvalidRequest("bad cursor")
            after = (int(score), member)
            upper = min(float(upper), int(score)) if upper != "+inf" else int(score)
        found: list[MatchSummary] = []
        last: tuple[int, str] | None = None
        skip = 0
        while len(found) < limit:
            batch = await self.store.index_page(tenant, upper, lower, skip + 2 * limit)
            rows = batch[skip:]
            if not rows:
                break
            if after is not None:
                rows = [r for r in rows if (r[1], r[0]) < after]  # strictly older than the cursor
            keys = [MatchKey(tenant, match_id) for match_id, _ in rows]
            metas = await self.store.metas(keys, ["game", "players", "version", "finished"])
            for (match_id, created), (m_game, m_players, m_version, m_finished) in zip(
                rows, metas, strict=True
            ):
                last = (created, match_id)
                if m_game is None:
                    continue  # archived or removed
                is_finished = m_finished == "1"
                if (game is not None and m_game != game) or (
                    finished is not None and is_finished != finished
                ):
                    continue
                players = tuple(msgspec.json.decode(m_players or "[]", type=list[str]))
                found.append(
                    MatchSummary(match_id, m_game, players, int(m_version or 0), is_finished, created)
                )
                if len(found) == limit:
                    break
            if len(batch) < skip + 2 * limit or len(found) == limit:
                break
            skip = len(batch)
        more = len(found) == limit and last is not None
        next_cursor = f"{found[-1].created_ms}:{found[-1].match_id}" if more else ""
        return MatchPage(found, next_cursor)
