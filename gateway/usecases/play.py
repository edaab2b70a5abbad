"""Play use cases: submit, resign, turn timers, the moves of resigned seats, a private table's
claimed seats, and away seats (issue 41) taken over by the platform's bot and handed back.

The hot path of an accepted action with a warm cache is one rules call (Validate, which also
returns the next state and the events as the actor sees them) and one Redis round trip (the
append script).

Decisions (question -> decision; docs/gateway.md, "Resigning" and "Away seats"):
- A resigned seat in a match that goes on: the gateway makes its decisions (a legal action
  chosen by the seed-keyed generator of `gateway.domain.timers.timeout_choice`), appended as
  "gateway:seat:N"; when one seat (or none) is left, the match ends and the seats left win.
  Why not a pass: the gateway knows no game's rules, and many decisions have none; why not a
  bot: a bot plays to win, and a seat that can no longer win must not compete. The draw is
  uniform, unforeseeable by players (keyed by the hidden seed) and re-derivable by an auditor.
  However the game ends, a resigned seat finishes after every seat that stayed and never wins
  (`gateway.domain.match.standing_outcome`).
- A private table does not start until each of its seats waiting for a player is claimed
  (`seat_claimed`): until then no seat is asked to act, so no clock runs, no bot plays and no
  resigned seat's move is made.
- Gateway command ids ("gw create", "gw auto <v> <seat>", "gw timer <v> <seat>", "gw claim
  <seat>", "gw close") contain spaces, which client command ids cannot, so a client can never
  take one first.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import msgspec

from gateway.domain.match import (
    GATEWAY,
    JSON,
    SEAT_RETURNED,
    TURN_TIMED_OUT,
    SeatAway,
    SeatClaimed,
    SeatResigned,
    SeatReturned,
    TurnTimedOut,
    on_behalf_actor,
    seat_actor,
)
from gateway.domain.timers import AWAY_BOT_KIND, BOT, FORFEIT, POLICIES, timeout_choice
from gateway.domain.undo import players_own
from gateway.eventstore.async_redis import DUPLICATE, REUSED, TAKEN
from gateway.eventstore.base import AppendResult, CommandIdReused, MatchKey, NewEvent, action_digest
from gateway.rules_client import Accepted, Event
from gateway.usecases.results import ContendedMatch, InvalidRequest, MatchNotFound, SubmitOutcome
from gateway.usecases.store import Appended, Match
from gateway.usecases.views import ViewUseCases
from services.kernel import GAME_OVER, NOT_YOUR_TURN, STALE_VERSION, UNKNOWN_PLAYER, Rejection
from services.kernel.rejection import COMMAND_ID_IN_USE

_log = logging.getLogger(__name__)

CONFLICT_RETRIES = 5  # replicas racing on one match: the loser reloads and decides again
AUTO_PLAY_LIMIT = 10_000  # resigned seats' moves played in one go, at most (a safety bound)
RESIGN_DIGEST = action_digest("resign")  # what a seat's Resign command id is used for
RETURN_DIGEST = action_digest("return")  # and its ReturnToSeat's (issue 41)
UNDO_DIGEST = action_digest("undo")  # and its Undo's (issue 41)


class BotSeatsPort(Protocol):
    """Where away seats go to be played (gateway.botseats.BotSeats)."""

    async def enlist(self, tenant: str, match_id: str, game: str, bots: Mapping[int, str]) -> None: ...

    async def withdraw(self, tenant: str, match_id: str, seat: int) -> None: ...


def _stale(expected: int, actual: int) -> Rejection:
    return Rejection(
        STALE_VERSION, f"the match is at version {actual}, not {expected}: reload and decide again"
    )


def _rejected(rejection: Rejection, game: str = "") -> SubmitOutcome:
    return SubmitOutcome(accepted=False, rejection=rejection, game=game)


class PlayUseCases(ViewUseCases):
    """Decisions: submit, resign, turn timers and the resigned seats' moves."""

    # Wiring sets it: the platform's bot seats, which play away seats (issue 41).
    bot_seats: BotSeatsPort | None = None

    async def _decide(self, match: Match, seat: int, action: bytes) -> Accepted | Rejection:
        # The next seats' views come back too, so their GetView costs no rules call; and when
        # someone here watches the match, the events and views of those watching (the fan-out).
        viewers = self._watching_here(match.key)
        # The acting seat's own events come among the viewers' when it watches here (its Play
        # stream): not asked for twice.
        redacted = seat not in viewers
        decision: Accepted | Rejection = await self._rules_call(
            match,
            "validate",
            match.state,
            seat,
            action,
            return_redacted=redacted,
            return_views=True,
            viewers=viewers,
        )
        return decision

    async def _first_result(
        self, key: MatchKey, seat: int | None, command_id: str, *, actor: str, digest: str
    ) -> SubmitOutcome | None:
        """A command id already used: its first result (for its own actor and the same action,
        redacted for the caller), a rejection when another actor used it, CommandIdReused when
        this actor used it for another action. None when it is unused."""
        seen = await self.store.command(key, command_id)
        if seen is None:
            return None
        first, last, used_by, used_for = seen
        if used_by != actor:
            return _rejected(
                Rejection(COMMAND_ID_IN_USE, "this command id was already used in this match by another seat")
            )
        if used_for and digest and used_for != digest:
            raise CommandIdReused(command_id, AppendResult(first, last))
        # Answered only once replicated, as the first answer was (no-op without REDIS_WAIT_REPLICAS).
        await self.store.confirm_replicated(key)
        match = await self._load(key)
        stored = await self.store.read_range(key, first, last)
        events = await self._redact(match, seat, stored)
        receipt = events[-1].receipt if events else None
        return SubmitOutcome(True, None, last, events, receipt, repeated=True, game=match.game)

    async def submit(
        self,
        key: MatchKey,
        seat: int,
        action_json: bytes,
        *,
        command_id: str,
        expected_version: int | None = None,
        by_bot: bool = False,
    ) -> SubmitOutcome:
        """One seat's action: decided by the rules service on the state at some version and
        appended at that version. A repeated command id from the same seat answers with its
        first result; from another seat it is refused (command_id_in_use); for another action,
        CommandIdReused (ALREADY_EXISTS).

        `by_bot`: sent with a token of the platform's bot worker, which may act only for a bot
        seat or an away seat; the player's own action on an away seat takes it back first.

        The seats' actions on one match are decided one at a time here (gateway/usecases/turns.py),
        up to the append; what follows it (bots leaving, resigned seats' moves, clocks) is not."""
        actor = seat_actor(seat)
        digest = action_digest("action", action_json)
        for _ in range(CONFLICT_RETRIES):
            async with self._deciding.turn(key):
                step = await self._decide_and_append(
                    key, seat, action_json, command_id, actor, digest, expected_version, by_bot
                )
            if step is None:
                continue  # decide again on the match as it is now
            if isinstance(step, SubmitOutcome):
                return step
            appended, events, returning = step
            assert appended.match is not None
            if returning:
                await self._bot_leaves(key, seat)
            await self._after(appended.match)
            new = appended.match
            return SubmitOutcome(True, None, new.version, events, appended.receipt, game=new.game)
        raise ContendedMatch(f"match {key.match_id!r} changed {CONFLICT_RETRIES} times while deciding; retry")

    async def _decide_and_append(
        self,
        key: MatchKey,
        seat: int,
        action_json: bytes,
        command_id: str,
        actor: str,
        digest: str,
        expected_version: int | None,
        by_bot: bool,
    ) -> SubmitOutcome | tuple[Appended, Sequence[Any], bool] | None:
        """One attempt of `submit`, in the match's turn: its final answer (a refusal, a rejection,
        a command id's first result), the append made (with the events shown to the seat and
        whether the seat returned from away), or None to decide again."""
        match = await self._load(key)
        refusal = await self._precheck(match, seat, command_id, actor, digest, expected_version, by_bot)
        if refusal == "reload":
            return None
        if refusal is not None:
            assert isinstance(refusal, SubmitOutcome)
            return refusal
        decision = await self._decide(match, seat, action_json)
        if isinstance(decision, Rejection):
            # Said on the state we hold: make sure it is the latest, and not a retry.
            repeated = await self._first_result(key, seat, command_id, actor=actor, digest=digest)
            if repeated is not None:
                return repeated
            if not await self._check_fresh(match):
                return None
            return _rejected(decision, match.game)
        assert decision.state is not None and decision.status is not None
        returning = seat in match.away and not by_bot
        back = [NewEvent(SEAT_RETURNED, JSON.encode(SeatReturned(seat)))] if returning else []
        appended = await self._append(
            match,
            back + [NewEvent(e.type, e.json) for e in decision.events],
            actor=actor,
            command_id=command_id,
            state=decision.state,
            status=decision.status,
            action=action_json,
            command_digest=digest,
            # Never the bot's moves: a returning player takes back only their own.
            undoable=decision.undoable and not by_bot and players_own(seat, match.away, dict(match.bots)),
        )
        status = appended.status
        if appended.match is not None:
            shown: Sequence[Event] = decision.redacted or (decision.shown or {}).get(seat, ())
            if decision.events and not shown:
                # A rules service without return_redacted: never show raw events, ask View.
                _, shown = await self._rules_call(match, "view", match.state, seat, decision.events)
            events = appended.out(match.version, actor, shown)
            self._fan_out(match, appended, actor, decision)
            return appended, events, returning
        if status in (DUPLICATE, TAKEN, REUSED):
            return await self._first_result(key, seat, command_id, actor=actor, digest=digest)
        # CONFLICT: another replica's append came first (or our head was stale). The version the
        # store held as it refused says whether the seat's expected one is stale; otherwise the
        # loop decides again on the match as it is now.
        if expected_version is not None and appended.stored_version != expected_version:
            assert appended.stored_version is not None
            return _rejected(_stale(expected_version, appended.stored_version), match.game)
        return None

    async def _precheck(
        self,
        match: Match,
        seat: int,
        command_id: str,
        actor: str,
        digest: str,
        expected_version: int | None,
        by_bot: bool = False,
        acting: bool = True,
    ) -> SubmitOutcome | str | None:
        """Refusals that need no rules call; "reload" when the cache was found stale. Messages
        speak to the seat's own player ("you"): the gateway does not know the names the table
        shows, and never says "seat N" where the table says "Player N+1"."""
        if not 0 <= seat < match.seats:
            return _rejected(Rejection(UNKNOWN_PLAYER, f"the match has no seat {seat}"), match.game)
        problem: Rejection | None = None
        if expected_version is not None and expected_version != match.version:
            problem = _stale(expected_version, match.version)
        elif match.ended:
            problem = Rejection(GAME_OVER, "the match has ended")
        elif seat in match.resigned:
            problem = Rejection(NOT_YOUR_TURN, "you resigned from this match: you can no longer act in it")
        elif match.unclaimed and acting:  # resigning before the start is allowed
            problem = Rejection(
                NOT_YOUR_TURN, "the table is waiting for its players: play starts once every seat is taken"
            )
        elif by_bot and seat not in match.away and seat not in dict(match.bots):
            problem = Rejection(
                NOT_YOUR_TURN, "the player is back: the platform's bot no longer plays this seat"
            )
        if problem is None:
            return None
        repeated = await self._first_result(match.key, seat, command_id, actor=actor, digest=digest)
        if repeated is not None:
            return repeated
        if not await self._check_fresh(match):
            return "reload"
        return _rejected(problem, match.game)

    async def _after(self, match: Match, asked_ms: int | None = None) -> None:
        """After an append: play resigned seats' decisions, then start the next clocks (from
        `asked_ms` when the decisions are older than this append: a take-back). The action is
        acknowledged already: a fault here is retried, never reported as its failure."""

        attempts = 0

        async def work() -> None:
            nonlocal attempts
            attempts += 1
            latest = match if attempts == 1 else await self._load(match.key, fresh=True)  # a retry: reload
            settled = await self._auto_play(latest)
            await self._arm(settled, asked_ms if settled.version == match.version else None)

        await self.after_append(match.key, "auto-play and timers", work)

    async def _auto_play(self, match: Match) -> Match:
        """A resigned seat still owes decisions while others play on: the gateway makes them,
        choosing among the legal actions with the match's keyed generator (deterministic, so
        replicas racing here agree and the command id makes the second a no-op)."""
        for _ in range(AUTO_PLAY_LIMIT):
            owed = sorted(set(match.status.active_players) & match.resigned)
            if match.ended or match.unclaimed or not owed:  # a table not yet full plays nothing
                return match
            seat = owed[0]
            legal = await self._rules_call(match, "legal_actions", match.state, seat)
            if not legal:
                return match
            action = legal[timeout_choice(len(legal), match.seed, match.version, seat)]
            decision = await self._decide(match, seat, action)
            if isinstance(decision, Rejection):  # a listed action refused: the rules' bug, not ours
                _log.error("auto-play of seat %s in %s was refused: %s", seat, match.key, decision)
                return match
            assert decision.state is not None and decision.status is not None
            appended = await self._append(
                match,
                [NewEvent(e.type, e.json) for e in decision.events],
                actor=on_behalf_actor(seat),
                command_id=f"gw auto {match.version} {seat}",
                state=decision.state,
                status=decision.status,
                action=action,
            )
            self._fan_out(match, appended, on_behalf_actor(seat), decision)
            match = appended.match or await self._load(match.key, fresh=True)
        return match

    async def resign(self, key: MatchKey, seat: int, *, command_id: str) -> SubmitOutcome:
        """A seat leaves; when one seat (or none) is left the match ends with them winning."""
        return await self._seat_says(key, seat, command_id, SeatResigned(seat))

    async def return_to_seat(self, key: MatchKey, seat: int, *, command_id: str) -> SubmitOutcome:
        """Issue 41: "I'm back": the player of an away seat takes it back from the platform's bot."""
        return await self._seat_says(key, seat, command_id, SeatReturned(seat))

    async def _seat_says(
        self, key: MatchKey, seat: int, command_id: str, event: SeatResigned | SeatReturned
    ) -> SubmitOutcome:
        """A seat's own gateway event (resigning, coming back), appended once per command id."""
        actor = seat_actor(seat)
        digest = RESIGN_DIGEST if isinstance(event, SeatResigned) else RETURN_DIGEST
        for _ in range(CONFLICT_RETRIES):
            match = await self._load(key)
            refusal = await self._precheck(match, seat, command_id, actor, digest, None, acting=False)
            if refusal == "reload":
                continue
            if refusal is not None:
                assert isinstance(refusal, SubmitOutcome)
                return refusal
            if isinstance(event, SeatReturned) and seat not in match.away:
                repeated = await self._first_result(key, seat, command_id, actor=actor, digest=digest)
                return repeated or _rejected(
                    Rejection(NOT_YOUR_TURN, "you are not away: nobody plays this seat but you"), match.game
                )
            outcome = await self._gateway_append(match, seat, actor, command_id, [event], digest)
            if outcome is not None:
                return outcome
        raise ContendedMatch(f"match {key.match_id!r} changed {CONFLICT_RETRIES} times; retry")

    async def _gateway_append(
        self,
        match: Match,
        seat: int,
        actor: str,
        command_id: str,
        said: Sequence[msgspec.Struct],
        digest: str = "",
    ) -> SubmitOutcome | None:
        """Append gateway events that change no game state (resigning, a timeout's forfeit or
        away mark, a return, a claim); None when another append came first (decide again).
        `digest`: what a seat's own command id is used for (none for the gateway's own)."""
        events = [NewEvent(str(event.__struct_config__.tag), JSON.encode(event)) for event in said]
        appended = await self._append(
            match,
            events,
            actor=actor,
            command_id=command_id,
            state=match.state,
            status=match.status,
            command_digest=digest,
        )
        if appended.match is not None:
            out = appended.out(match.version, actor, [])
            if seat in match.away - appended.match.away:  # back, or resigned while away
                await self._bot_leaves(match.key, seat)
            if seat in appended.match.away - match.away:
                await self._bot_takes(appended.match, seat)
            await self._after(appended.match)
            return SubmitOutcome(True, None, appended.match.version, out, appended.receipt, game=match.game)
        if appended.status in (DUPLICATE, TAKEN, REUSED):
            return await self._first_result(match.key, seat, command_id, actor=actor, digest=digest)
        return None

    async def _bot_takes(self, match: Match, seat: int) -> None:
        """An away seat goes to the platform's bot worker (after the append marking it: the
        worker plays only a seat the match says is away)."""
        ports = self.bot_seats
        if ports is not None:
            bots = {seat: AWAY_BOT_KIND}
            await self.after_append(
                match.key, "enlist the away seat's bot",
                lambda: ports.enlist(match.key.tenant, match.key.match_id, match.game, bots),
            )  # fmt: skip

    async def _bot_leaves(self, key: MatchKey, seat: int) -> None:
        """The player is back (or resigned): the bot's lease ends, and its worker stops."""
        ports = self.bot_seats
        if ports is not None:
            await self.after_append(
                key, "withdraw the away seat's bot", lambda: ports.withdraw(key.tenant, key.match_id, seat)
            )

    async def claim_seat(self, key: MatchKey, seat: int) -> None:
        """Issue 39: a private table's seat was claimed (gateway/tables.py); once every waiting
        seat is, play starts and clocks run. Idempotent: a seat is claimed once in the stream."""
        for _ in range(CONFLICT_RETRIES):
            match = await self._load(key)
            if seat not in match.unclaimed:
                fresh = await self._check_fresh(match)
                if fresh:
                    return
                continue
            if await self._gateway_append(match, seat, GATEWAY, f"gw claim {seat}", [SeatClaimed(seat)]):
                return
        raise ContendedMatch(f"match {key.match_id!r} changed {CONFLICT_RETRIES} times; retry")

    async def close_unclaimed(self, key: MatchKey) -> SubmitOutcome | None:
        """Issue 39: a private table whose seats were not all claimed in time ends, nobody
        winning (reason `unclaimed`); None when it filled (or ended) meanwhile."""
        for _ in range(CONFLICT_RETRIES):
            match = await self._load(key, fresh=True)
            if match.ended or not match.unclaimed:
                return None
            appended = await self._append(
                match, [], actor=GATEWAY, command_id="gw close", state=match.state, status=match.status,
                close_unclaimed=True,
            )  # fmt: skip
            if appended.match is not None:
                out = appended.out(match.version, GATEWAY, [])
                return SubmitOutcome(
                    True, None, appended.match.version, out, appended.receipt, game=match.game
                )
            if appended.status in (DUPLICATE, TAKEN):
                return None
        raise ContendedMatch(f"match {key.match_id!r} changed {CONFLICT_RETRIES} times; retry")

    async def restart_clocks(self, key: MatchKey) -> None:
        """Issue 39: every seat the match waits for gets its whole turn time again, from now (a
        suspended tenant's match, resumed: its players could not act meanwhile)."""
        try:
            match: Match | None = await self._load(key, fresh=True)
        except MatchNotFound:
            match = None  # archived or removed meanwhile
        if match is None or match.ended or match.timer is None or not match.waiting_seats():
            if self.timers is not None:
                await self.timers.disarm(key)  # no clock to restart: none left parked either
            return
        await self._arm(match)

    async def on_timer(self, key: MatchKey, version: int, seat: int, policy: str) -> SubmitOutcome | None:
        """A turn timer ran out: if the match still waits for `seat` at `version`, play a legal
        action for it ("random_action"), make it resign ("forfeit"), or mark it away for the
        platform's bot to play ("bot"; a seat already away gets a legal action), appended at
        `version`, so it happens at most once whichever replica gets here. None when nothing
        was due."""
        match = await self._load(key)
        if match.version != version:
            match = await self._load(key, fresh=True)
        if match.version != version or seat not in match.waiting_seats():
            return None
        if policy not in POLICIES:
            raise InvalidRequest(f"unknown turn timer policy {policy!r}")
        timed_out = TurnTimedOut(seat, version, policy)
        command_id = f"gw timer {version} {seat}"
        played_by_bot = seat in match.away or seat in dict(match.bots)
        if policy == FORFEIT or (policy == BOT and not played_by_bot):
            mark = SeatResigned(seat, forfeit=True) if policy == FORFEIT else SeatAway(seat, AWAY_BOT_KIND)
            outcome = await self._gateway_append(match, seat, GATEWAY, command_id, [timed_out, mark])
            return outcome if outcome is not None and not outcome.repeated else None
        legal = await self._rules_call(match, "legal_actions", match.state, seat)
        if not legal:
            return None
        action = legal[timeout_choice(len(legal), match.seed, version, seat)]
        decision = await self._decide(match, seat, action)
        if isinstance(decision, Rejection):
            _log.error("timeout action of seat %s in %s was refused: %s", seat, key, decision)
            return None
        assert decision.state is not None and decision.status is not None
        events = [NewEvent(TURN_TIMED_OUT, JSON.encode(timed_out))]
        events += [NewEvent(e.type, e.json) for e in decision.events]
        appended = await self._append(
            match,
            events,
            actor=on_behalf_actor(seat),
            command_id=command_id,
            state=decision.state,
            status=decision.status,
            action=action,
        )
        if appended.match is None:
            return None
        self._fan_out(match, appended, on_behalf_actor(seat), decision)
        # Shown as a spectator sees it: the seat's hidden draws stay hidden from the caller.
        stored = await self.store.read_range(key, version + 1, appended.match.version)
        out = await self._redact(appended.match, None, stored)
        await self._after(appended.match)
        return SubmitOutcome(True, None, appended.match.version, out, appended.receipt, game=match.game)
