"""The undo use case: a seat takes back its own last move (issue 41 item 4).

What may be taken back is gateway/domain/undo.py's: an append the rules called undoable when
they accepted it (nothing revealed, nothing drawn), with nobody else appending since. The
take-back is an `action_undone` entry naming the versions it takes back; the match's state after
it is the state before them, rebuilt from the stream (gateway/usecases/store.py `_at_version`).

Cost: the cached match (its undo stack says whether there is anything to take back, so a refusal
costs nothing more), a read of the stream from the move on (the check that nobody else acted),
the state before the move from the snapshot and the events up to it (one Apply call; a replay
from setup when the snapshot is newer than that), and one append, which writes the snapshot.
The turn clocks restart from when the restored decision was first asked, not from now.
Like every append it is made at the version it was decided on: a move by another seat landing
first makes it a conflict, decided again on the new state (and then refused).
"""

from __future__ import annotations

import logging

from gateway.domain.match import ACTION_UNDONE, JSON, ActionUndone, seat_actor
from gateway.domain.undo import REFUSAL, asked_at, stream_problem
from gateway.eventstore.async_redis import DUPLICATE, REUSED, TAKEN
from gateway.eventstore.base import MatchKey, NewEvent
from gateway.usecases.play import CONFLICT_RETRIES, UNDO_DIGEST, PlayUseCases, _rejected
from gateway.usecases.results import ContendedMatch, SubmitOutcome
from services.kernel import Rejection
from services.kernel.rejection import CANNOT_UNDO

_log = logging.getLogger(__name__)


class UndoUseCases(PlayUseCases):
    """Undo: a seat takes back its own last move, until something is revealed or drawn or
    another seat acts."""

    async def undo(
        self, key: MatchKey, seat: int, *, command_id: str, expected_version: int | None = None
    ) -> SubmitOutcome:
        """Take back `seat`'s last move: cannot_undo when it may not (the message says why); a
        repeated command id answers with its first result, as SubmitAction does."""
        actor = seat_actor(seat)
        for _ in range(CONFLICT_RETRIES):
            match = await self._load(key)
            refused = await self._precheck(match, seat, command_id, actor, UNDO_DIGEST, expected_version)
            if refused == "reload":
                continue
            if refused is not None:
                assert isinstance(refused, SubmitOutcome)
                return refused
            target = match.undo.top(seat)
            problem = REFUSAL if target is None else ""
            asked_ms = self.clock()
            if target is not None:
                # From the entry before the move: when the decision the take-back restores was asked.
                entries = await self.store.read(key, after_version=target[0] - 2)
                asked_ms = asked_at(entries[0]) if entries else asked_ms
                mismatch = stream_problem(entries[1:], seat, *target)
                if mismatch:  # meta's stack disagrees with the stream, which is the truth
                    _log.error("the undo stack of %s disagrees with its stream: %s", key, mismatch)
                    problem = REFUSAL
            if problem:
                repeated = await self._first_result(key, seat, command_id, actor=actor, digest=UNDO_DIGEST)
                if repeated is not None:
                    return repeated
                if not await self._check_fresh(match):
                    continue
                return _rejected(Rejection(CANNOT_UNDO, problem), match.game)
            assert target is not None
            before = await self._at_version(key, target[0] - 1)
            record = ActionUndone(seat, *target, asked_ms=asked_ms)
            appended = await self._append(
                match,
                [NewEvent(ACTION_UNDONE, JSON.encode(record))],
                actor=actor,
                command_id=command_id,
                state=before.state,
                status=before.status,
                undo=match.undo.popped(),
                command_digest=UNDO_DIGEST,
            )
            if appended.match is not None:
                if self.announce is not None:
                    self.announce(key, appended.match.version)
                # The seats get back the clock they had before the move: taking moves back again
                # and again never holds the match past its turn timer.
                await self._after(appended.match, asked_ms)
                events = appended.out(match.version, actor, [])
                return SubmitOutcome(
                    True, None, appended.match.version, events, appended.receipt, game=match.game
                )
            if appended.status in (DUPLICATE, TAKEN, REUSED):
                repeated = await self._first_result(key, seat, command_id, actor=actor, digest=UNDO_DIGEST)
                if repeated is not None:
                    return repeated
            # A conflict: someone appended first (another seat's move, a timer). Decided again on
            # the new state, where an expected version is stale_version (the precheck says so).
        raise ContendedMatch(f"match {key.match_id!r} changed {CONFLICT_RETRIES} times while undoing; retry")
