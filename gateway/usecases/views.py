"""View use cases: what a seat or a spectator sees, watch reads, replay, raw entries.

Decisions (question -> decision):
- The gateway's own events (match_created, seat_resigned, turn_timed_out, match_ended) are
  public and shown as stored; game events go through the rules service's redaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import Any

from guildhall.common.v1 import common_pb2

from gateway.domain.match import acting_seat
from gateway.domain.undo import NOTHING
from gateway.eventstore.base import MatchKey, NewEvent, StoredEvent
from gateway.rules_client import Accepted, Event
from gateway.usecases.cache import stored_cost
from gateway.usecases.described import gateway_description
from gateway.usecases.results import EventOut, InvalidRequest, MatchNotFound, MatchView, RawEvent
from gateway.usecases.store import Appended, Match, MatchStore, decoded, is_game_event, receipt_of

# GUILDHALL_FAN_OUT=0 turns the fan-out off (views and events for watchers asked of the rules
# service per seat, the stream read per watcher): how it was before issue 25, for comparison.
FAN_OUT_ENV = "GUILDHALL_FAN_OUT"


def with_inline_choices(decision: bytes) -> bytes:
    """A serialized Decision whose options also carry their choices inline (DecisionOption.choices),
    as clients before issue 45 read them, beside the table they name by index."""
    message = common_pb2.Decision.FromString(decision)
    table = message.choices
    for option in message.options:
        if option.choice_indexes and not option.choices:
            option.choices.extend(table[i] for i in option.choice_indexes)
    serialized: bytes = message.SerializeToString()
    return serialized


class ViewUseCases(MatchStore):
    """What a seat or a spectator sees: views, watch reads, replay, raw entries."""

    # Wiring sets these: the viewers (seats, None: the spectator) whose streams of this replica
    # follow a match (WatchHub.viewers), and whether an append's one rules call brings what
    # those watchers need (the fan-out).
    viewers: Callable[[MatchKey], frozenset[int | None]] | None = None
    fan_out: bool = True
    # Told of each append made here as soon as it is made (WatchHub.notify): this replica's
    # watchers wake without waiting for Redis's notification, which then finds them up to date.
    announce: Callable[[MatchKey, int], None] | None = None
    # Around each append made here (WatchHub.appending): Redis's notification of it, which
    # usually arrives before the append's reply, then costs no check against the stream.
    appending: Callable[[MatchKey], AbstractContextManager[None]] | None = None
    # DECISION_SHAPE=both: each view's decision also carries every option's choices inline, for
    # clients that read only the shape before issue 45 (made once per view, kept with it).
    inline_choices: bool = False

    async def _append(self, match: Match, events: list[NewEvent], **kwargs: Any) -> Appended:
        # In flight here for the block: Redis's notification of it does not drop the state it was
        # decided on (observe_append), nor cost a check against the stream (WatchHub.appending).
        hub = self.appending(match.key) if self.appending is not None else nullcontext()
        with self._appending_to(match.key), hub:
            return await super()._append(match, events, **kwargs)

    def _watching_here(self, key: MatchKey) -> frozenset[int | None]:
        """The viewers whose events and views Validate should bring along (the fan-out): those
        with a stream of this replica on the match; none when nobody here watches it (a busy
        match nobody watches needs only the next seats' views). A viewer whose stream opens
        meanwhile, or who watches on another replica, costs a rules call when it reads."""
        if not self.fan_out or self.viewers is None:
            return frozenset()
        return self.viewers(key)

    def _fan_out(self, before: Match, appended: Appended, actor: str, decision: Accepted) -> None:
        """Keep what viewers need of this append, from the one rules call that decided it: the
        views it brought (the next seats', and with the fan-out those of the viewers watching
        here) and the events as each watching viewer sees them. They then catch up with no stream
        read and no rules call (`events_since`, `get_view`); the next player's GetView too."""
        new = appended.match
        if new is None:
            return
        if self.announce is not None:
            self.announce(new.key, new.version)
        key, first, last = new.key, before.version + 1, new.version
        if decision.shown is not None:
            for viewer, shown in decision.shown.items():
                self._redacted.put(
                    (key, viewer, first, last, new.head), appended.out(before.version, actor, shown)
                )
            self._appended.put(key, (first, last, new.head))
        waiting = new.waiting_seats()
        for seat_view in decision.views:
            seat = seat_view.player
            owes = seat in waiting
            legal = seat_view.legal_actions if owes else ()
            view = self._match_view(new, seat, seat_view.view, legal, seat_view.decision if owes else b"")
            self._views.put((key, last, new.head, seat), view)
        if decision.spectator_view is not None:
            spectator = self._match_view(new, None, decision.spectator_view, ())
            self._views.put((key, last, new.head, None), spectator)

    async def get_view(self, key: MatchKey, seat: int | None, *, min_version: int = 0) -> MatchView:
        """What `seat` (None: a spectator) sees now, with its legal actions. Checks with Redis
        that the cached state is the latest (one small read) unless it is at least `min_version`."""
        match = await self._load(key)
        check = self.fresh_reads and min_version == 0
        if match.version < min_version or (check and not await self._check_fresh(match)):
            match = await self._load(key, fresh=True)
        if seat is not None and not 0 <= seat < match.seats:
            raise InvalidRequest(f"the match has no seat {seat}")
        memo_key = (key, match.version, match.head, seat)
        memo = self._views.get_fresh(memo_key)
        if memo is not None:  # a state never changes at a version: watchers share one call
            return memo  # type: ignore[no-any-return]
        if seat is not None and seat in match.waiting_seats():
            view, legal, decision = await self._rules_call(match, "view_and_legal_actions", match.state, seat)
        else:
            view, _ = await self._rules_call(match, "view", match.state, seat)
            legal, decision = (), b""
        result = self._match_view(match, seat, view, legal, decision)
        self._views.put(memo_key, result)
        return result

    def _match_view(
        self, match: Match, seat: int | None, view: bytes, legal: Sequence[bytes], decision: bytes = b""
    ) -> MatchView:
        return MatchView(
            game=match.game,
            match_id=match.key.match_id,
            version=match.version,
            seat=seat,
            view_json=view,
            legal_actions=tuple(legal),  # a tuple (the fan-out's) is kept as it is
            active_seats=match.waiting_seats(),
            finished=match.ended,
            outcome_json=match.outcome if match.ended else b"",
            players=match.players,
            resigned=tuple(sorted(match.resigned)),
            bots=match.bots,
            decision=with_inline_choices(decision) if self.inline_choices and decision else decision,
            away=tuple(sorted(match.away)),
            unclaimed=tuple(sorted(match.unclaimed)),
            rules_version=match.rules_version,
            undo_available=seat is not None
            and not match.ended
            and seat not in match.resigned
            and match.undo.top(seat) is not None,
        )

    async def _redact(
        self, match: Match, seat: int | None, stored: Sequence[StoredEvent]
    ) -> tuple[EventOut, ...]:
        """Stored entries as `seat` may see them: game events through the rules service's
        redaction, the gateway's own events as stored (they are public)."""
        if not stored:
            return ()
        memo_key = (match.key, seat, stored[0].version, stored[-1].version, stored[-1].hash)
        memo = self._redacted.get_fresh(memo_key)
        if memo is not None:
            return memo  # type: ignore[no-any-return]
        game_events = [Event(e.type, e.payload) for e in stored if is_game_event(e.type)]
        shown: list[Event] = []
        if game_events:
            _, shown_list = await self._rules_call(match, "view", match.state, seat, game_events)
            shown = list(shown_list)
        out: list[EventOut] = []
        for entry in stored:
            if is_game_event(entry.type):
                game_event = shown.pop(0)
                payload, description = game_event.json, game_event.description
            else:
                payload, description = entry.payload, gateway_description(entry.payload)
            actor = acting_seat(entry.actor)
            out.append(
                EventOut(
                    entry.version, entry.type, actor, payload, entry.time_ms, receipt_of(entry), description
                )
            )
        result = tuple(out)
        self._redacted.put(memo_key, result)
        return result

    async def events_since(
        self, key: MatchKey, seat: int | None, after_version: int, limit: int = 500
    ) -> tuple[EventOut, ...]:
        """Events after `after_version`, redacted for `seat` (None: a spectator): what Watch sends."""
        match = await self._load(key)
        if seat is not None and not 0 <= seat < match.seats:
            raise InvalidRequest(f"the match has no seat {seat}")
        recent = self._appended.get(key)
        if (
            recent is not None
            and recent[0] == after_version + 1
            and recent[1:] == (match.version, match.head)
        ):
            # The last append, made here: its events as this viewer sees them came with it.
            memo = self._redacted.get_fresh((key, seat, *recent))
            if memo is not None and len(memo) <= limit:
                return memo  # type: ignore[no-any-return]
        stored = await self._read_shared(key, after_version, limit, match.version)
        return await self._redact(match, seat, stored)

    async def _read_shared(
        self, key: MatchKey, after_version: int, limit: int, version: int
    ) -> list[StoredEvent]:
        """A stream read that the watchers of every seat at the same position share: an append
        made by another replica is read once per match here, not once per seat."""
        if not self.fan_out:
            return await self.store.read(key, after_version=after_version, limit=limit)
        memo_key = (key, after_version, limit, version)
        shared = self._reads.get(memo_key)
        if shared is None:
            shared = asyncio.ensure_future(self.store.read(key, after_version=after_version, limit=limit))
            self._reads.put(memo_key, shared)

            def settle(done: asyncio.Future[list[StoredEvent]]) -> None:
                if done.cancelled() or done.exception() is not None:
                    self._reads.pop(memo_key, None)
                else:  # its size is known now (gateway/usecases/cache.py)
                    self._reads.charge(memo_key, stored_cost(done.result()))

            shared.add_done_callback(settle)
        return list(await asyncio.shield(shared))

    async def replay(self, key: MatchKey, version: int, seat: int | None) -> MatchView:
        """The view at `version`, rebuilt from the stream (no legal actions: it is history)."""
        meta, source = await self._stream(key, await self.store.meta(key))
        if "seed" not in meta:
            raise MatchNotFound(f"no match {key.match_id!r}")
        base = self._base(key, meta)
        if not 1 <= version <= base.version:
            raise InvalidRequest(f"the match has versions 1 to {base.version}, not {version}")
        if seat is not None and not 0 <= seat < base.seats:
            raise InvalidRequest(f"the match has no seat {seat}")
        match = replace(await self._replay(base, version, source), undo=NOTHING)  # history: no undo
        view, _ = await self._rules_call(match, "view", match.state, seat)
        return self._match_view(match, seat, view, [])

    async def raw_events(self, key: MatchKey, after_version: int = 0, limit: int = 1000) -> list[RawEvent]:
        """Stream entries as stored (auditor scope): unredacted, with their receipts."""
        meta, source = await self._stream(key, await self.store.meta(key))
        version = int(meta.get("version") or 0)
        if after_version > version:  # issue 22: 2^64-1 reached Redis as an invalid stream id
            raise InvalidRequest(f"after_version {after_version} is beyond the match's version {version}")
        if source is None:
            stored = await self.store.read(key, after_version=after_version, limit=limit)
        else:
            stored = [e async for e in decoded(source) if e.version > after_version][:limit]
        return [
            RawEvent(
                e.version, e.type, e.actor, e.command_id, e.payload, e.rules_version, e.time_ms,
                e.prev_hash, e.hash, e.action, receipt_of(e),
            )
            for e in stored
        ]  # fmt: skip
