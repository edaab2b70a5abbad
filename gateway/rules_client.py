"""The gateway's port to one game's rules service over gRPC.

`AsyncRulesClient` (grpc.aio) is what the gateway uses: no thread per call, no hop between
the event loop and a thread pool, and its calls go as messages over open `Session` streams (a
message costs a fraction of a unary call's machinery on both ends), falling back to the unary
RPCs when a service has no Session (an older one) or a stream is lost. `RulesClient` is the
blocking twin for tools, benchmarks and tests that talk to a rules service directly.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import msgspec
from guildhall.common.v1 import common_pb2
from guildhall.rules.v1 import rules_pb2, rules_pb2_grpc

from services import tracing
from services.kernel import Rejection

# Replays send events in batches: one call per batch, each well under the message limit.
APPLY_BATCH = 500
# A Session's initial metadata naming the rules process answering it (services/server.py).
INSTANCE_METADATA = "guildhall-rules-instance"
# Many rules pods behind one headless Service: spread calls over all of them (round robin),
# skip pods whose health says NOT_SERVING (draining), and retry a call that found a pod gone
# (UNAVAILABLE): rules calls are pure, so a retry can never apply anything twice.
SERVICE_CONFIG = {
    "loadBalancingConfig": [{"round_robin": {}}],
    "healthCheckConfig": {"serviceName": ""},
    "methodConfig": [
        {
            "name": [{"service": "guildhall.rules.v1.RulesService"}],
            "retryPolicy": {
                "maxAttempts": 4,
                "initialBackoff": "0.05s",
                "maxBackoff": "1s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        }
    ],
}
GRPC_OPTIONS = [
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),
    ("grpc.max_send_message_length", 64 * 1024 * 1024),
    ("grpc.service_config", json.dumps(SERVICE_CONFIG)),
    ("grpc.enable_retries", 1),
    # A restarted rules pod is found again within a second: gRPC's default reconnect backoff
    # grows to two minutes, and a replica stuck in it answered UNAVAILABLE long after the
    # service was back (seen in the rules-restart fault tests).
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


# gc=False: strings, bytes and numbers only, never in a cycle; the gateway's caches hold many (see
# gateway/eventstore/base.py).
class Event(msgspec.Struct, frozen=True, gc=False):
    """An event as the rules service returned it: its tag, its JSON, and its description for the
    viewer it was returned for (a serialized guildhall.common.v1.Description; empty: none)."""

    type: str
    json: bytes
    description: bytes = b""


class Status(msgspec.Struct, frozen=True, gc=False):
    """Who owes a decision, and the outcome JSON once the game is over."""

    active_players: tuple[int, ...]
    finished: bool
    outcome: bytes = b""


class SeatView(msgspec.Struct, frozen=True, gc=False):
    """A seat's view of a state and its legal actions there (JSON each), and its decision over
    them (a serialized guildhall.common.v1.Decision; empty: none)."""

    player: int
    view: bytes
    legal_actions: tuple[bytes, ...]
    decision: bytes = b""


@dataclass(frozen=True)
class Accepted:
    """An accepted action: its events, and the next state when it was asked for."""

    events: tuple[Event, ...]
    state: rules_pb2.GameState | None
    status: Status | None
    # The events as the acting seat sees them, when asked for (return_redacted).
    redacted: tuple[Event, ...] = ()
    # With return_views: the next state's view and legal actions of each seat owing a decision;
    # with return_every_view, of every seat (with `viewers`, of those named) too (legal actions
    # only for those owing a decision).
    views: tuple[SeatView, ...] = ()
    # With return_every_view: the events as each seat (None: a spectator) may see them (with
    # `viewers`, each viewer named), and the spectator's view of the next state (None when not
    # asked for).
    shown: dict[int | None, tuple[Event, ...]] | None = None
    spectator_view: bytes | None = None
    # With return_state: the acting seat may take this action back until another seat acts.
    undoable: bool = False


def _status(status: rules_pb2.Status) -> Status:
    return Status(tuple(status.active_players), status.finished, status.outcome)


def _events(events: Sequence[common_pb2.Event]) -> tuple[Event, ...]:
    # Kept serialized: bytes hold no reference to the (batched) response they came in, and go
    # out again into each MatchEvent with one parse.
    return tuple(
        Event(e.type, e.json, e.description.SerializeToString() if e.HasField("description") else b"")
        for e in events
    )


def _decision(message: Any) -> bytes:
    return message.decision.SerializeToString() if message.HasField("decision") else b""


def _wire(events: Sequence[Event]) -> list[common_pb2.Event]:
    return [common_pb2.Event(type=e.type, json=e.json) for e in events]


class RulesClient:
    """Calls one game's RulesService; `target` is e.g. "dns:///rules-ys:50051" or "127.0.0.1:50062"."""

    def __init__(self, game_id: str, target: str, *, timeout_s: float = 10.0) -> None:
        self.game_id = game_id
        self.target = target
        self._timeout = timeout_s
        self._channel = grpc.insecure_channel(target, options=GRPC_OPTIONS)
        self._stub = rules_pb2_grpc.RulesServiceStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def describe(self) -> rules_pb2.DescribeResponse:
        request = rules_pb2.DescribeRequest()
        response: rules_pb2.DescribeResponse = self._stub.Describe(request, timeout=self._timeout)
        return response

    def setup(self, players: int, seed: int, options: bytes = b"") -> tuple[rules_pb2.GameState, Status]:
        request = rules_pb2.SetupRequest(
            game_id=self.game_id, players=players, seed=seed.to_bytes(32, "big"), options=options
        )
        response = self._stub.Setup(request, timeout=self._timeout)
        return response.state, _status(response.status)

    def validate(
        self, state: rules_pb2.GameState, player: int, action: bytes, *, return_state: bool = True
    ) -> Accepted | Rejection:
        request = rules_pb2.ValidateRequest(
            state=state, player=player, action=action, return_state=return_state
        )
        return _accepted(self._stub.Validate(request, timeout=self._timeout))

    def apply(
        self, state: rules_pb2.GameState, events: Sequence[Event]
    ) -> tuple[rules_pb2.GameState, Status]:
        """Fold events of any number into the state, a batch per call."""
        status = None
        for start in range(0, len(events), APPLY_BATCH):
            request = rules_pb2.ApplyRequest(state=state, events=_wire(events[start : start + APPLY_BATCH]))
            response = self._stub.Apply(request, timeout=self._timeout)
            state, status = response.state, _status(response.status)
        if status is None:  # no events: ask nothing of the service but the status
            response = self._stub.Apply(rules_pb2.ApplyRequest(state=state), timeout=self._timeout)
            state, status = response.state, _status(response.status)
        return state, status

    def legal_actions(self, state: rules_pb2.GameState, player: int) -> list[bytes]:
        request = rules_pb2.LegalActionsRequest(state=state, player=player)
        return list(self._stub.LegalActions(request, timeout=self._timeout).actions)

    def view(
        self, state: rules_pb2.GameState, player: int | None, events: Sequence[Event] = ()
    ) -> tuple[bytes, tuple[Event, ...]]:
        request = rules_pb2.ViewRequest(state=state, events=_wire(events))
        if player is not None:
            request.player = player
        response = self._stub.View(request, timeout=self._timeout)
        return response.view, _events(response.events)


def _detached(state: rules_pb2.GameState) -> rules_pb2.GameState:
    """A copy of a state that came inside a larger response: a sub-message keeps its whole
    response alive (one arena), and the state is cached long after the response's views and
    events are done with (issue 25: 51 KB kept per cached 4 KB state instead of 4.7 KB)."""
    copy = rules_pb2.GameState()
    copy.CopyFrom(state)
    return copy


def _accepted(response: rules_pb2.ValidateResponse) -> Accepted | Rejection:
    if response.WhichOneof("result") == "rejection":
        return Rejection(response.rejection.code, response.rejection.message)
    accepted = response.accepted
    shown: dict[int | None, tuple[Event, ...]] | None = None
    if accepted.seat_events:  # an older service ignores return_every_view: None, ask View
        shown = {
            (v.player if v.HasField("player") else None): _events(v.events) for v in accepted.seat_events
        }
    return Accepted(
        _events(accepted.events),
        _detached(accepted.state) if accepted.HasField("state") else None,
        _status(accepted.status) if accepted.HasField("status") else None,
        _events(accepted.redacted_events),
        tuple(SeatView(v.player, v.view, tuple(v.legal_actions), _decision(v)) for v in accepted.views),
        shown,
        accepted.spectator_view or None,  # none when not asked for (or no spectator was named)
        accepted.undoable,
    )


# How long a client uses the unary RPCs after a stream was lost before it opens a new one, and
# after a service said it has no Session before it asks again (it may have been upgraded).
SESSION_RETRY_S = 1.0
# Open Session streams per client (each one pod's; streams that reach the same process count as
# one); 0 = unary calls only (how it was measured before streams, kept for comparison and as a
# switch if a proxy in between mishandles streams).
SESSIONS_ENV = "GUILDHALL_RULES_SESSIONS"
DEFAULT_SESSIONS = 2
SESSION_UNSUPPORTED_RETRY_S = 60.0
# Calls ready together go as one Session message of at most this many (issue 25);
# GUILDHALL_RULES_BATCH=0 sends each call alone (as before, for comparison).
MAX_BATCH = 32
SWEEP_S = 0.25  # how often a session fails the calls past their deadline
BATCH_ENV = "GUILDHALL_RULES_BATCH"
# Messages a Session stream may have unanswered before new calls wait for an answer and go
# with it as one batch; 0 = no limit (every loop turn's calls sent at once).
IN_FLIGHT_ENV = "GUILDHALL_RULES_IN_FLIGHT"
DEFAULT_IN_FLIGHT = 1
_STATUS_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


class _SessionLost(Exception):
    """The stream ended before this call's answer came: the call is made again as a unary call."""


def _fault(fault: rules_pb2.Fault) -> grpc.aio.AioRpcError:
    """A call's fault on a Session as the error the unary RPC would have raised."""
    code = _STATUS_BY_NUMBER.get(fault.code, grpc.StatusCode.UNKNOWN)
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=fault.message)


class _Session:
    """Calls multiplexed over one open Session stream, matched to answers by id.

    Calls made in the same turn of the event loop go as one batch message (issue 25): under load
    the per-message cost on both ends is paid once for several matches' calls. A call alone is
    sent at the end of the turn it was made in, so batching adds no wait at low load. While
    `in_flight` messages of the stream are unanswered, new calls wait and go together when an
    answer comes back (a group commit: the service answers a stream's messages in turn anyway,
    so a call held here starts no later than it would have, and the batches grow with the load).
    A service older than batches answers a batch with a fault; its calls then go one by one, and
    so does everything after on that stream."""

    def __init__(
        self, stub: rules_pb2_grpc.RulesServiceStub, *, batches: bool = True, in_flight: int = 0
    ) -> None:
        """`in_flight` > 0: at most that many messages unanswered, later calls held (batches only)."""
        self._queue: asyncio.Queue[rules_pb2.SessionRequest | None] = asyncio.Queue()
        self._pending: dict[int, asyncio.Future[rules_pb2.SessionResponse]] = {}
        self._ids = itertools.count(1)
        self.closed = False
        self.unsupported = False
        # The service process answering, as the stream's initial metadata names it (None until
        # it comes, and from services older than that).
        self.instance: str | None = None
        self.batches = batches
        self._ready: list[rules_pb2.SessionRequest] = []  # made this turn, not sent yet
        self._sent_batches: dict[int, list[rules_pb2.SessionRequest]] = {}  # unanswered batches
        self._in_flight_limit = in_flight
        self._unanswered = 0  # messages sent and not answered yet
        self._deadlines: dict[int, tuple[float, float]] = {}  # call id -> (deadline, timeout)
        self._sweeper: asyncio.TimerHandle | None = None
        self._call = stub.Session(self._requests())
        self._reader = asyncio.create_task(self._read())

    async def _requests(self) -> AsyncIterator[rules_pb2.SessionRequest]:
        while (request := await self._queue.get()) is not None:
            yield request

    def _send(self, request: rules_pb2.SessionRequest) -> None:
        if not self.batches:
            self._queue.put_nowait(request)
            return
        self._ready.append(request)
        if len(self._ready) == 1 and not self._held():
            asyncio.get_running_loop().call_soon(self._flush)

    def _held(self) -> bool:
        return 0 < self._in_flight_limit <= self._unanswered and self.batches

    def _flush(self) -> None:
        if self._held():
            return  # the next answer flushes them
        ready, self._ready = self._ready, []
        for start in range(0, len(ready), MAX_BATCH):
            calls = ready[start : start + MAX_BATCH]
            if len(calls) == 1 or not self.batches:
                self._unanswered += len(calls)
                for call in calls:
                    self._queue.put_nowait(call)
                continue
            number = next(self._ids)
            self._sent_batches[number] = calls
            self._unanswered += 1
            self._queue.put_nowait(rules_pb2.SessionRequest(id=number, batch=calls))

    def _message_answered(self) -> None:
        self._unanswered -= 1
        if self._ready and not self._held():
            self._flush()

    def _answered(self, response: rules_pb2.SessionResponse) -> None:
        future = self._pending.pop(response.id, None)
        if future is not None and not future.done():
            future.set_result(response)

    async def _read(self) -> None:
        try:
            metadata = await self._call.initial_metadata()
            named = metadata.get(INSTANCE_METADATA) if metadata is not None else None
            self.instance = named if isinstance(named, str) and named else None
            async for response in self._call:
                calls = self._sent_batches.pop(response.id, None)
                if calls is None:
                    self._answered(response)
                elif response.batch:
                    for answer in response.batch:
                        self._answered(answer)
                else:  # a service without batches refused the envelope: send its calls alone
                    self.batches = False
                    self._unanswered += len(calls)
                    for call in calls:
                        self._queue.put_nowait(call)
                self._message_answered()
        except grpc.aio.AioRpcError as error:
            self.unsupported = error.code() == grpc.StatusCode.UNIMPLEMENTED
        except asyncio.CancelledError:
            pass
        finally:
            self.closed = True
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(_SessionLost())
            self._pending.clear()

    async def call(self, kind: str, request: Any, timeout_s: float) -> Any:
        """The answer to one call (the kind's response message), or its fault raised. `request`:
        the kind's request, or a SessionRequest already holding it (then sent as it is)."""
        if self.closed:
            raise _SessionLost()
        number = next(self._ids)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[rules_pb2.SessionResponse] = loop.create_future()
        self._pending[number] = future
        # One timer sweeps every call's deadline: a timeout per call (asyncio.timeout) cost 3% of
        # the gateway's CPU under load (issue 25's profile).
        self._deadlines[number] = (loop.time() + timeout_s, timeout_s)
        if self._sweeper is None:
            self._sweeper = loop.call_later(SWEEP_S, self._sweep)
        if isinstance(request, rules_pb2.SessionRequest):
            message = request
            message.id = number
        else:
            message = rules_pb2.SessionRequest(id=number, **{kind: request})
        if tracing.ENABLED:  # each call its trace's context: the stream carries many actions' calls
            tracing.inject(message.trace_context)
        self._send(message)
        try:
            response = await future
        finally:
            self._pending.pop(number, None)
            self._deadlines.pop(number, None)
        if response.WhichOneof("result") == "fault":
            raise _fault(response.fault)
        return getattr(response, kind)

    def _sweep(self) -> None:
        """Fail the calls past their deadline with DEADLINE_EXCEEDED; again while calls wait."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        for number, (deadline, timeout_s) in list(self._deadlines.items()):
            future = self._pending.get(number)
            if deadline <= now and future is not None and not future.done():
                future.set_exception(
                    grpc.aio.AioRpcError(
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        grpc.aio.Metadata(),
                        grpc.aio.Metadata(),
                        details=f"no answer on the rules session within {timeout_s} s",
                    )
                )
        self._sweeper = loop.call_later(SWEEP_S, self._sweep) if self._deadlines else None

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        self._queue.put_nowait(None)
        self._call.cancel()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


class AsyncRulesClient:
    """One game's RulesService over a grpc.aio channel; build it inside the running event loop.

    Same service config as the blocking client: round robin over every pod behind a headless
    Service, health checking, retries on UNAVAILABLE (rules calls are pure, so safe to repeat).
    Calls travel over `sessions` open Session streams taken in turn (each stream is one pod's,
    so several spread over pods; streams that reached the same process count as one); a call
    whose stream is lost is made again as a unary call.
    """

    def __init__(
        self,
        game_id: str,
        target: str,
        *,
        timeout_s: float = 10.0,
        sessions: int | None = None,
        batches: bool | None = None,
        in_flight: int | None = None,
    ) -> None:
        """`sessions` None: GUILDHALL_RULES_SESSIONS from the environment, else 2; 0: unary only.
        `batches` None: on unless GUILDHALL_RULES_BATCH=0 (calls ready together, one message).
        `in_flight` None: GUILDHALL_RULES_IN_FLIGHT, else 1 (messages unanswered per stream
        before new calls wait to go with the next one; 0: no limit)."""
        if sessions is None:
            sessions = int(os.environ.get(SESSIONS_ENV) or DEFAULT_SESSIONS)
        if batches is None:
            batches = os.environ.get(BATCH_ENV, "1") != "0"
        self._batches = batches
        if in_flight is None:
            in_flight = int(os.environ.get(IN_FLIGHT_ENV) or DEFAULT_IN_FLIGHT)
        self._in_flight = in_flight
        self.game_id = game_id
        self.target = target
        self._timeout = timeout_s
        # Traced (when on): the unary calls; a Session's calls carry their context per message.
        self._channel = grpc.aio.insecure_channel(
            target, options=GRPC_OPTIONS, interceptors=tracing.client_interceptors()
        )
        self._stub = rules_pb2_grpc.RulesServiceStub(self._channel)
        self._sessions: list[_Session | None] = [None] * max(sessions, 0)
        self._turn = itertools.count()
        self._unary_until = 0.0  # monotonic time before which calls go unary (a stream was lost)

    async def close(self) -> None:
        for session in self._sessions:
            if session is not None:
                await session.close()
        self._sessions = [None] * len(self._sessions)
        await self._channel.close()

    def _session(self) -> _Session | None:
        if not self._sessions:
            return None
        slot = next(self._turn) % len(self._sessions)
        session = self._sessions[slot]
        if session is not None and not session.closed:
            return self._same_instance(slot, session)
        now = time.monotonic()
        if session is not None:  # lost: use unary calls for a while, then open a new stream
            self._sessions[slot] = None
            pause = SESSION_UNSUPPORTED_RETRY_S if session.unsupported else SESSION_RETRY_S
            self._unary_until = max(self._unary_until, now + pause)
        if now < self._unary_until:
            return None
        session = self._sessions[slot] = _Session(
            self._stub, batches=self._batches, in_flight=self._in_flight
        )
        return session

    def _same_instance(self, slot: int, session: _Session) -> _Session:
        """An earlier open session whose stream reached the same service process, else `session`:
        calls to one process go down one stream, where they batch (its messages are answered in
        turn anyway). With one rules process, two streams halved every batch and its CPU per
        action was 0.80x to 0.91x with one stream (issue 45); with several pods the streams
        still spread over them."""
        if session.instance is None:
            return session
        for other in self._sessions[:slot]:
            if other is not None and not other.closed and other.instance == session.instance:
                return other
        return session

    async def _call(self, kind: str, request: Any, unary: Callable[..., Awaitable[Any]]) -> Any:
        """`request`: the kind's request, or a SessionRequest holding it (see validate)."""
        session = self._session()
        if session is not None:
            try:
                return await session.call(kind, request, self._timeout)
            except _SessionLost:
                pass  # rules calls are pure: asking again cannot apply anything twice
        if isinstance(request, rules_pb2.SessionRequest):
            request = getattr(request, kind)
        return await unary(request, timeout=self._timeout)

    async def describe(self) -> rules_pb2.DescribeResponse:
        response: rules_pb2.DescribeResponse = await self._stub.Describe(
            rules_pb2.DescribeRequest(), timeout=self._timeout
        )
        return response

    async def bundle(self) -> bytes:
        """The service's own rules bundle (issue 40: kept beside the archive)."""
        response = await self._stub.Bundle(rules_pb2.BundleRequest(), timeout=max(self._timeout, 30.0))
        return bytes(response.bundle)

    async def setup(
        self, players: int, seed: bytes, options: bytes = b""
    ) -> tuple[rules_pb2.GameState, Status]:
        """The opening state; `seed` is the match's 32 random bytes (an integer, big-endian)."""
        request = rules_pb2.SetupRequest(game_id=self.game_id, players=players, seed=seed, options=options)
        response = await self._call("setup", request, self._stub.Setup)
        return _detached(response.state), _status(response.status)

    async def validate(
        self,
        state: rules_pb2.GameState,
        player: int,
        action: bytes,
        *,
        return_state: bool = True,
        return_redacted: bool = True,
        return_views: bool = False,
        return_every_view: bool = False,
        viewers: Collection[int | None] = (),
    ) -> Accepted | Rejection:
        """`return_every_view`: also every seat's and the spectator's events and view (what
        delivering the action to every watcher needs; Accepted.shown and spectator_view).
        `viewers`: also those viewers' (seats; None: the spectator) events and views, and only
        theirs (a service older than ValidateRequest.viewers returns every viewer's)."""
        # Written into its Session envelope: a message given to a constructor is copied, and a
        # Validate carries the whole state (issue 45).
        message = rules_pb2.SessionRequest()
        request = message.validate
        request.state.CopyFrom(state)
        request.player = player
        request.action = action
        request.return_state = return_state
        request.return_redacted = return_redacted
        request.return_views = return_views
        request.return_every_view = return_every_view or bool(viewers)
        if viewers and not return_every_view:
            request.viewers.seats.extend(sorted(v for v in viewers if v is not None))
            request.viewers.spectator = None in viewers
        return _accepted(await self._call("validate", message, self._stub.Validate))

    async def apply(
        self, state: rules_pb2.GameState, events: Sequence[Event]
    ) -> tuple[rules_pb2.GameState, Status]:
        """Fold events of any number into the state, a batch per call."""
        status = None
        for start in range(0, len(events), APPLY_BATCH):
            request = rules_pb2.ApplyRequest(state=state, events=_wire(events[start : start + APPLY_BATCH]))
            response = await self._call("apply", request, self._stub.Apply)
            state, status = response.state, _status(response.status)
        if status is None:  # no events: ask nothing of the service but the status
            response = await self._call("apply", rules_pb2.ApplyRequest(state=state), self._stub.Apply)
            state, status = response.state, _status(response.status)
        return _detached(state), status  # it is cached: not its whole (batched) response

    async def legal_actions(self, state: rules_pb2.GameState, player: int) -> list[bytes]:
        request = rules_pb2.LegalActionsRequest(state=state, player=player)
        response = await self._call("legal_actions", request, self._stub.LegalActions)
        return list(response.actions)

    async def view_and_legal_actions(
        self, state: rules_pb2.GameState, player: int
    ) -> tuple[bytes, list[bytes], bytes]:
        """A seat's view, its legal actions and its decision over them (serialized; empty when
        the game has no presentation) in one call."""
        request = rules_pb2.ViewRequest(state=state, player=player, include_legal_actions=True)
        response = await self._call("view", request, self._stub.View)
        return response.view, list(response.legal_actions), _decision(response)

    async def view(
        self, state: rules_pb2.GameState, player: int | None, events: Sequence[Event] = ()
    ) -> tuple[bytes, tuple[Event, ...]]:
        """What `player` (None: a spectator) sees of the state, and `events` as they see them."""
        request = rules_pb2.ViewRequest(state=state, events=_wire(events))
        if player is not None:
            request.player = player
        response = await self._call("view", request, self._stub.View)
        return response.view, _events(response.events)
