"""The Play stream (issue 25): one seat's SubmitAction and Watch over one bidirectional stream.

A unary call costs the gateway a whole gRPC call's machinery before any of our code runs; a
message on an open stream costs a fraction of it. So a seat that plays a whole match opens one
stream, authenticated once with its seat token, and sends its actions up it; down come, in
order, every update of the match for that seat (as Watch sends them) and the answer to each
action (as SubmitAction gives it).

Decisions (question -> decision):
- Where does an accepted action's answer go? On the update that first reaches its version (its
  events and the seat's view there), so a bot acts again on the message that answers it; alone
  when the stream has already sent that version (a repeated command id).
- One action at a time per stream, in the order sent: answers come in that order, and a bot's
  next action is decided on the view its previous one produced. Up to MAX_QUEUED actions wait
  unread beyond that: gRPC's flow control holds a client that sends faster.
- A fault of one action (a malformed field, the action quota, a rules service or Redis
  unavailable) answers that action alone with the status the unary call would have had; the
  stream stays open. A malformed stream (no `open` first, a second `open`) ends with its status.
- Draining: the stream ends (OK) between two actions; actions still queued are not answered, and
  a client sends them again, same command ids, on the stream it opens elsewhere (a repeat answers
  with the first result, so nothing is applied twice).
- The end of the match (issue 39 item 12): once the update showing it finished is sent, the
  actions already read are answered (game_over, or their first result) and the stream ends (OK),
  as Watch and the SSE feed do: nothing more can happen in it. An action still on its way is not
  answered; a client takes the end after a finished view as the match's end, not a drain.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from guildhall.common.v1 import common_pb2
from guildhall.gateway.v1 import gateway_pb2

from gateway import metrics
from gateway.api import seatnames, wire
from gateway.api.faults import fault
from gateway.api.jsonfields import json_bytes
from gateway.api.wire import MAX_ACTION_BYTES, BadRequest, TooLarge
from gateway.auth import Principal, denied
from gateway.eventstore.base import MatchKey
from gateway.watch import Signal
from services import tracing

MAX_QUEUED = 32  # actions read ahead of the one being decided, per stream
_END = object()  # the client closed its side: answer what is queued, then end


class PlaySession:
    """One Play stream: open, then actions in and updates out, until the client closes it, the
    match ends, or the gateway drains. `ports` is gateway.api.server.Ports."""

    def __init__(self, ports: Any, principal: Principal, requests: AsyncIterator[Any]) -> None:
        if principal.seat is None:
            raise denied("only a seat token may play")
        self.ports = ports
        self.principal = principal
        self.seat: int = principal.seat
        self._requests = requests
        self._inbox: asyncio.Queue[Any] = asyncio.Queue(MAX_QUEUED)
        self._wake = Signal()
        self.key: MatchKey | None = None
        self.known = 0  # the last version this stream delivered
        self.ended = False  # the update showing the match finished was sent

    async def run(self) -> AsyncIterator[gateway_pb2.PlayUpdate]:
        opening = await self._open()
        if opening is None:
            return  # closed before opening: nothing asked, nothing to say
        key = self.key = wire.match_key(self.principal, opening.match_id)
        quotas = self.ports.auth.tenant(self.principal.tenant).quotas
        await self.ports.quotas.take_read(self.principal.tenant, quotas.reads_per_second)
        hub = self.ports.hub
        self.known = int(opening.from_version)
        async with hub.watching(key, self.seat) as feed:
            updates = await self._catch_up(0, first=True)
            for update in updates:
                yield update
            self.ended = wire.finished(updates)
            polls, tried = feed.polls, 0
            reader = asyncio.create_task(self._read(), name="play-read")
            follower = asyncio.create_task(self._follow(feed), name="play-follow")
            try:
                while True:
                    self._wake.clear()
                    while not self._inbox.empty():
                        request = self._inbox.get_nowait()
                        if request is _END:
                            return
                        if isinstance(request, BaseException):
                            raise request
                        messages = await self._act(request)
                        for message in messages:
                            yield message
                        self.ended = self.ended or wire.finished(messages)
                        if self.ports.stopping.is_set():
                            return
                    if self.ports.stopping.is_set() or self.ended:
                        return  # drained, or the match is over and what was asked is answered
                    if (feed.version > self.known and feed.version != tried) or feed.polls != polls:
                        # Woken for a version: read from it (once: a version announced but not
                        # readable yet waits for the next wake-up, no spin); by a poll or a
                        # resubscription: check with Redis for anything missed.
                        polls, tried = feed.polls, feed.version
                        min_version = feed.version if feed.version > self.known else 0
                        updates = await self._catch_up(min_version)
                        for update in updates:
                            yield update
                        if wire.finished(updates):
                            self.ended = True
                            self._wake.set()  # answer what is queued, then end
                    if self._inbox.empty() and not self._wake.is_set():
                        await self._wake.wait()
            finally:
                for task in (reader, follower):
                    task.cancel()
                await asyncio.gather(reader, follower, return_exceptions=True)

    async def _open(self) -> Any:
        """The first message, which must open the stream; None if the client closed at once."""
        try:
            first = await anext(self._requests)
        except StopAsyncIteration:
            return None
        if first.WhichOneof("message") != "open":
            raise BadRequest("a Play stream starts with `open`: the match and the version to resume after")
        return first.open

    async def _read(self) -> None:
        """Queue what the client sends, for the session loop; its end or failure last."""
        try:
            async for request in self._requests:
                await self._inbox.put(request)
                self._wake.set()
            await self._inbox.put(_END)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # undecodable bytes (gateway/api/undecodable.py), a broken stream
            await self._inbox.put(error)
        self._wake.set()

    async def _follow(self, feed: Any) -> None:
        """Wake the session loop at every notification of the match (and at every poll)."""
        while True:
            signal = feed.signal
            await signal.wait()
            self._wake.set()

    # -- one action --------------------------------------------------------------------------------

    async def _act(self, request: Any) -> list[gateway_pb2.PlayUpdate]:
        """The messages that answer one action: updates up to its version with the answer on the
        last, or the answer alone. Traced (when on) as a trace of its own, linked to the stream's:
        one action, one trace, however long the stream lives."""
        if not tracing.ENABLED:
            return await self._answer(request)
        with tracing.new_trace("guildhall.gateway.v1.GatewayService/Play action"):
            return await self._answer(request)

    async def _answer(self, request: Any) -> list[gateway_pb2.PlayUpdate]:
        if request.WhichOneof("message") != "action":
            raise BadRequest("a Play stream opens once: every message after `open` is an `action`")
        action = request.action
        command_id = action.command_id if len(action.command_id) <= 64 else ""
        key = self.key
        assert key is not None
        try:
            data = json_bytes(action, "action", "action_value")
            if len(data) > MAX_ACTION_BYTES:
                raise TooLarge(f"an action is at most {MAX_ACTION_BYTES} bytes")
            if not data:
                raise BadRequest("action is required (the action's JSON)")
            wire.command_id(action.command_id)
            tenant = self.principal.tenant
            quota = self.ports.auth.tenant(tenant).quotas.actions_per_second
            await self.ports.quotas.take_action(tenant, quota)
            outcome = await self.ports.matches.submit(
                key,
                self.seat,
                data,
                command_id=action.command_id,
                expected_version=action.expected_version if action.HasField("expected_version") else None,
                by_bot=self.principal.by_bot,
            )
        except Exception as exc:
            mapped = fault(exc)
            if mapped is None:
                raise  # a bug of ours: the stream ends INTERNAL, logged
            status, message, retry_ms = mapped
            metrics.PLAY_FAULTS.labels(status.name).inc()
            answer = gateway_pb2.PlayAnswer(
                command_id=command_id,
                fault=gateway_pb2.PlayFault(code=status.value[0], message=message, retry_after_ms=retry_ms),
            )
            return [gateway_pb2.PlayUpdate(answer=answer)]
        if not outcome.accepted:
            rejection = outcome.rejection
            metrics.REJECTIONS.labels(rejection.code).inc()
            answer = gateway_pb2.PlayAnswer(
                command_id=command_id,
                rejection=common_pb2.Rejection(code=rejection.code, message=rejection.message),
            )
            return [gateway_pb2.PlayUpdate(answer=answer)]
        return await self._accepted(key, command_id, outcome)

    async def _accepted(self, key: MatchKey, command_id: str, outcome: Any) -> list[gateway_pb2.PlayUpdate]:
        if not outcome.repeated:
            metrics.ACCEPTED_ACTIONS.labels(outcome.game or "").inc()
        if wire.ended(outcome):
            await self.ports.quotas.release_match(key.tenant, key.match_id)
        if outcome.version <= self.known:
            return [_answered(gateway_pb2.PlayUpdate(), command_id, outcome, key)]  # already delivered
        updates: list[gateway_pb2.PlayUpdate] = []
        events = outcome.events
        if not outcome.repeated and events and events[0].version == self.known + 1:
            # Nothing else happened since our last update: the answer's own events (redacted for
            # this seat by the rules call that decided them) and the view it left (its memo).
            view = await self.ports.matches.get_view(key, self.seat, min_version=outcome.version)
            if view.version == outcome.version:
                self.known = outcome.version
                update = gateway_pb2.PlayUpdate()
                wire.fill_events(update.events, events, key)
                await seatnames.fill_view(self.ports, update.view, view, key)
                updates.append(update)
        if not updates:
            updates = await self._catch_up(outcome.version)
        if not (updates and self.known >= outcome.version):
            updates.append(gateway_pb2.PlayUpdate())
        _answered(updates[-1], command_id, outcome, key)
        return updates

    # -- updates -----------------------------------------------------------------------------------

    async def _catch_up(self, min_version: int, *, first: bool = False) -> list[gateway_pb2.PlayUpdate]:
        """The updates that bring this stream to the latest version (as Watch's): the view first,
        then the events up to its version, so an update never holds events its view does not
        include and the next read starts where this one ended (no gap, no duplicate)."""
        matches, key, seat = self.ports.matches, self.key, self.seat
        assert key is not None
        view = await matches.get_view(key, seat, min_version=min_version)
        if first and self.known > view.version:
            raise BadRequest(f"from_version {self.known} is beyond the match's version {view.version}")
        updates = []
        while self.known < view.version:
            events = [
                e for e in await matches.events_since(key, seat, self.known) if e.version <= view.version
            ]
            if not events:
                break
            self.known = events[-1].version
            update = gateway_pb2.PlayUpdate()
            wire.fill_events(update.events, events, key)
            if self.known >= view.version:
                await seatnames.fill_view(self.ports, update.view, view, key)
            updates.append(update)
        if first and not updates:  # nothing new: the current view, so the client can draw
            self.known = view.version
            update = gateway_pb2.PlayUpdate()
            await seatnames.fill_view(self.ports, update.view, view, key)
            updates.append(update)
        return updates


def _answered(
    update: gateway_pb2.PlayUpdate, command_id: str, outcome: Any, key: MatchKey
) -> gateway_pb2.PlayUpdate:
    """`update` carrying the answer to an accepted action (written in place: no copy)."""
    answer = update.answer
    answer.command_id = command_id
    accepted = answer.accepted
    accepted.SetInParent()  # present even were every field its default
    accepted.version = outcome.version
    accepted.repeated = bool(outcome.repeated)
    if outcome.receipt is not None:
        wire.fill_receipt(accepted.receipt, outcome.receipt, key)
    return update


async def play(ports: Any, principal: Principal, requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """The Play RPC's body, for the servicer (gateway/api/server.py)."""
    session = PlaySession(ports, principal, requests)
    with ports.streams.hold(principal, "Play"):  # the caps on open streams, released at the end
        metrics.PLAY_STREAMS.inc()
        try:
            async for update in session.run():
                yield update
        finally:
            metrics.PLAY_STREAMS.dec()
