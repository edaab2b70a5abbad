"""One seat's Play stream: its actions up, the match's updates and the answers down, on one
bidirectional gRPC stream (the gateway's `Play`), resumed after a break.

    async with seat.client.play(match_id) as stream:
        async for update in stream.updates():
            if update.view.my_turn:
                accepted = await stream.submit(update.view.legal_actions[0],
                                               expected_version=update.view.version)

A message on an open stream costs the gateway a fraction of a unary call, so this is how the
library's bots, `Seat.play` and the CLI play. Guarantees, as SubmitAction and Watch give them:
- every action carries a command id (generated when not given): after a break, the stream is
  opened again (on any replica) from the last version received and the actions left unanswered
  are sent again with their ids; the gateway answers a repeat with its first result, so a lost
  answer never becomes a double move;
- updates come in order, without gap or duplicate, across breaks (a draining gateway ends the
  stream: it is opened again, up to `client.reconnects` times in a row);
- an action over the tenant's quota, or that met a rules service or Redis unavailable, is sent
  again after the gateway's hint or a backoff, up to `client.retries` times; other faults and
  rejections fail that action alone (its `submit` raises), the stream goes on.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from guildhall.gateway.v1 import gateway_pb2 as pb

from guildhall_client import errors
from guildhall_client.stale import MAX_RESUBMITS, resubmit_id, still_decided
from guildhall_client.types import Accepted, Event, MatchView, Receipt, WatchUpdate, encode_json


@dataclass
class _Pending:
    request: pb.PlayRequest
    future: asyncio.Future[Accepted]
    attempts: int = 0


@dataclass(frozen=True)
class PlayMessage:
    """What one message of the stream brought: an update (events and view), the answer to one of
    this stream's actions (`command_id`, now resolved in the future `send` returned), or both."""

    update: WatchUpdate | None
    command_id: str | None = None


@dataclass
class _State:
    last: int
    closed: bool = False
    finished: bool = False  # a view showing the match finished came down
    pending: dict[str, _Pending] = field(default_factory=dict)  # in the order sent


_END = object()


class PlayStream:
    """A seat's Play stream (see the module). Build it with `AsyncClient.play` or `Seat.stream`."""

    def __init__(self, client: Any, match_id: str, from_version: int = 0, *, reconnect: bool = True) -> None:
        self.client = client  # a guildhall_client.aio.AsyncClient (under the seat's token)
        self.match_id = match_id
        self.reconnect = reconnect
        self.resumed = 0  # times the stream was opened again after a break
        self._state = _State(from_version)
        self._messages: asyncio.Queue[Any] = asyncio.Queue()
        self._outgoing: asyncio.Queue[pb.PlayRequest | None] | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def last_version(self) -> int:
        """The last version this stream delivered."""
        return self._state.last

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> PlayStream:
        self._start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _start(self) -> None:
        if self._task is None and not self._state.closed:
            self._task = asyncio.create_task(self._run(), name=f"play {self.match_id}")

    async def close(self) -> None:
        """End the stream; actions still unanswered fail with Unavailable."""
        self._state.closed = True
        if self._outgoing is not None:
            self._outgoing.put_nowait(None)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._fail_pending(errors.Unavailable(grpc.StatusCode.CANCELLED, "the Play stream was closed"))
        self._messages.put_nowait(_END)

    # -- actions -------------------------------------------------------------------------------

    def send(
        self, action: Any, *, command_id: str | None = None, expected_version: int | None = None
    ) -> asyncio.Future[Accepted]:
        """Send an action for this seat; the future resolves to its Accepted, or fails with its
        rejection (a `Rejected` subclass) or fault (a `GatewayError`)."""
        if self._state.closed:
            if self._state.finished:  # the gateway ended the stream with the match
                raise errors.rejection("game_over", "the match has ended")
            raise errors.Unavailable(grpc.StatusCode.CANCELLED, "the Play stream is closed")
        self._start()
        command_id = command_id or uuid.uuid4().hex
        request = pb.PlayRequest(action=pb.PlayAction(command_id=command_id, action=encode_json(action)))
        if expected_version is not None:
            request.action.expected_version = expected_version
        future: asyncio.Future[Accepted] = asyncio.get_running_loop().create_future()
        self._state.pending[command_id] = _Pending(request, future)
        if self._outgoing is not None:
            self._outgoing.put_nowait(request)
        return future

    async def submit(
        self,
        action: Any,
        *,
        command_id: str | None = None,
        expected_version: int | None = None,
        resubmit_when_stale: bool = True,
    ) -> Accepted:
        """Send an action and wait for its answer (raises its rejection or fault).

        With `expected_version`, a stale_version answer because other seats acted in between (a
        simultaneous decision) sends the action again for the new version when it is still
        legal there, with a command id derived from the first (`<id>.1`), up to 3 times: the
        rule of `AsyncClient.submit`, in guildhall_client/stale.py. `resubmit_when_stale=False`
        never does."""
        command_id = command_id or uuid.uuid4().hex
        sent_id = command_id
        for resubmits in range(MAX_RESUBMITS + 1):
            try:
                return await self.send(action, command_id=sent_id, expected_version=expected_version)
            except errors.StaleVersion:
                if not resubmit_when_stale or resubmits == MAX_RESUBMITS:
                    raise
                version = await still_decided(self.client, self.match_id, action, expected_version)
                if version is None:
                    raise
                expected_version = version
                sent_id = resubmit_id(command_id, resubmits + 1)
        raise AssertionError("unreachable")

    # -- what comes down -----------------------------------------------------------------------

    async def messages(self) -> AsyncIterator[PlayMessage]:
        """Every message, in order: updates, answers, or both (an answer's future is resolved
        before its message is yielded). Ends when the stream is closed; raises if it broke
        for good."""
        self._start()
        while True:
            item = await self._messages.get()
            if item is _END:
                self._messages.put_nowait(_END)  # for any other reader
                return
            if isinstance(item, BaseException):
                self._messages.put_nowait(item)
                raise item
            yield item

    async def updates(self, *, until_finished: bool = True) -> AsyncIterator[WatchUpdate]:
        """The match's updates for this seat, as Watch gives them; ends after the update that
        shows the match finished (unless `until_finished` is False)."""
        async for message in self.messages():
            if message.update is not None:
                yield message.update
                if until_finished and message.update.view.finished:
                    return

    # -- the stream itself ---------------------------------------------------------------------

    async def _requests(
        self, outgoing: asyncio.Queue[pb.PlayRequest | None]
    ) -> AsyncIterator[pb.PlayRequest]:
        while (request := await outgoing.get()) is not None:
            yield request

    async def _run(self) -> None:
        client, state = self.client, self._state
        attempt = 0
        while not state.closed:
            outgoing: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
            outgoing.put_nowait(
                pb.PlayRequest(open=pb.PlayOpen(match_id=self.match_id, from_version=state.last))
            )
            for pending in state.pending.values():  # unanswered when the last stream broke
                outgoing.put_nowait(pending.request)
            self._outgoing = outgoing
            call = client._stub.Play(self._requests(outgoing), metadata=client._metadata())
            try:
                async for message in call:
                    attempt = 0
                    await self._dispatch(message)
                if state.closed:
                    return
                if state.finished:
                    # The gateway ends the stream after the match's end and the answers to what it
                    # had read: an action still unanswered came too late to be played.
                    self._fail_pending(errors.rejection("game_over", "the match has ended"))
                    state.closed = True
                    self._messages.put_nowait(_END)
                    return
                # Ended without an error: a draining gateway closes its streams so clients move
                # to another replica. Open again from where we are.
                attempt += 1
                if not self.reconnect or attempt > client.reconnects:
                    self._give_up(
                        errors.Unavailable(grpc.StatusCode.UNAVAILABLE, "the Play stream kept ending")
                    )
                    return
            except grpc.aio.AioRpcError as error:
                if state.closed:
                    return
                attempt += 1
                if not self.reconnect or not errors.stream_broken(error) or attempt > client.reconnects:
                    self._give_up(errors.from_rpc_error(error))
                    return
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a receipt that does not verify, or a bug: fail loudly
                self._give_up(error)
                return
            finally:
                self._outgoing = None
                call.cancel()
            self.resumed += 1
            client.resumed += 1
            await asyncio.sleep(_backoff(attempt))

    def _give_up(self, error: BaseException) -> None:
        self._state.closed = True
        self._fail_pending(error)
        self._messages.put_nowait(error)

    def _fail_pending(self, error: BaseException) -> None:
        for pending in self._state.pending.values():
            if not pending.future.done():
                pending.future.set_exception(error)
                pending.future.exception()  # retrieved: no "never retrieved" warning if unused
        self._state.pending.clear()

    async def _dispatch(self, message: pb.PlayUpdate) -> None:
        state = self._state
        update: WatchUpdate | None = None
        if message.events or message.HasField("view"):
            # A gateway must never resend what we have; drop it if one ever does.
            events = [Event.from_pb(e) for e in message.events if e.version > state.last]
            view = MatchView.from_pb(message.view)
            state.last = max([state.last, view.version, *(e.version for e in events)])
            state.finished = state.finished or view.finished
            update = WatchUpdate(events, view)
        command_id = None
        if message.HasField("answer"):
            command_id = await self._answer(message.answer, update)
        self._messages.put_nowait(PlayMessage(update, command_id))

    async def _answer(self, answer: pb.PlayAnswer, update: WatchUpdate | None) -> str | None:
        """Resolve the future of the action answered; an action to send again stays pending."""
        pending_by_id = self._state.pending
        command_id = answer.command_id or next(iter(pending_by_id), "")  # answers come in order
        pending = pending_by_id.get(command_id)
        if pending is None:
            return None  # the answer to an action sent again after a break came twice
        kind = answer.WhichOneof("result")
        if kind == "fault":
            fault = answer.fault
            retry_s = fault.retry_after_ms / 1000 if fault.retry_after_ms else None
            error = errors.from_status(fault.code, fault.message, retry_s)
            transient = error.status in errors.TRANSIENT or retry_s is not None
            pending.attempts += 1
            if transient and pending.attempts <= self.client.retries:
                delay = retry_s if retry_s is not None else _backoff(pending.attempts)
                asyncio.get_running_loop().call_later(delay, self._send_again, command_id)
                return None
            outcome: Accepted | BaseException = error
        elif kind == "rejection":
            outcome = errors.rejection(answer.rejection.code, answer.rejection.message)
        else:
            outcome = await self._accepted(command_id, answer.accepted, update)
        del pending_by_id[command_id]
        if not pending.future.done():
            if isinstance(outcome, BaseException):
                pending.future.set_exception(outcome)
                pending.future.exception()  # the caller may only look at done(): no warning
            else:
                pending.future.set_result(outcome)
        return command_id

    def _send_again(self, command_id: str) -> None:
        pending = self._state.pending.get(command_id)
        if pending is not None and self._outgoing is not None:
            self._outgoing.put_nowait(pending.request)
        # Without an open stream it goes with the others when the stream is opened again.

    async def _accepted(
        self, command_id: str, accepted: pb.PlayAccepted, update: WatchUpdate | None
    ) -> Accepted | BaseException:
        receipt = Receipt.from_pb(accepted.receipt) if accepted.HasField("receipt") else None
        client = self.client
        if (
            client.verify_receipts
            and receipt is not None
            and (
                receipt.match_id != self.match_id
                or receipt.version != accepted.version
                or not await client.check_receipt(receipt)
            )
        ):
            return errors.ReceiptInvalid(
                f"the receipt for version {accepted.version} of {self.match_id} does not verify"
            )
        view = update.view if update is not None and update.view.version >= accepted.version else None
        events = [e for e in update.events if e.version <= accepted.version] if update is not None else []
        return Accepted(self.match_id, accepted.version, events, receipt, accepted.repeated, command_id, view)


def _backoff(attempt: int) -> float:
    """Exponential backoff with full jitter, capped: 50 ms, 100 ms, ... 2 s."""
    return random.uniform(0, min(2.0, 0.05 * 2 ** (attempt - 1)))
