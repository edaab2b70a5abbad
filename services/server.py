"""The one generic RulesService: serves any GameSpec over gRPC, holding no state.

Everything a call needs comes in the request; the state travels as msgpack bytes
tagged with the game and rules version that made it. `python -m services.<game>`
runs `main(<game>)`, which adds health checking, server reflection and a
graceful stop on SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import os
import secrets
import signal
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent import futures
from typing import Any, NoReturn

import grpc
import msgspec
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from guildhall.common.v1 import common_pb2
from guildhall.rules.v1 import rules_pb2, rules_pb2_grpc

from services import runtime, tracing
from services.kernel import UNKNOWN_ACTION, GameSpec, Rejection, SetupConfig, SetupError, json_schemas
from services.kernel.present import Arg, Decision, Description, choice_table
from services.kernel.spec import clip
from services.metrics import RulesMetrics, serve_metrics
from services.observability import (
    CanonicalLogInterceptor,
    configure_logging,
    count_refused,
    rpc_log_fields,
)
from services.runtime import RuntimeSettingError

MiB = 1024 * 1024
# Batch Apply carries whole matches; the 4 MiB default is too tight for long replays. This is
# the transport's ceiling; each RPC has its own, smaller limit below.
MAX_MESSAGE_BYTES = 64 * MiB
# Per-RPC receive limits: a state of a long match is large, an action is small. Larger requests
# are RESOURCE_EXHAUSTED before they are parsed.
REQUEST_LIMITS = {
    "Describe": 4 * 1024,
    "Bundle": 1024,
    "Setup": 64 * 1024,
    "Validate": 8 * MiB,
    "LegalActions": 8 * MiB,
    "View": 16 * MiB,
    "Apply": MAX_MESSAGE_BYTES,
}
MAX_ACTION_BYTES = 64 * 1024  # the action inside a Validate request
# States this process encoded that it remembers, to skip the game's check of their fit when their
# bytes come back: 1,000 paced matches make about 1,000 states between one of a match's actions and
# its next; at most ~10 MB (Waterdeep's largest states are 5 KB).
MADE_STATES_KEPT = 2048
GRPC_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    # A taken port is an error at start, not a second server silently sharing it.
    ("grpc.so_reuseport", 0),
    # Clients balance per call over the connections they hold; closing each connection after a
    # while makes them re-resolve, so pods added by a scale-out get traffic too.
    ("grpc.max_connection_age_ms", 60_000),
    ("grpc.max_connection_age_grace_ms", 15_000),
]
# Errors a rules function raises on an event that decodes but does not fit the state.
_MISFIT_ERRORS = (IndexError, KeyError, ValueError, TypeError, AttributeError)

_log = structlog.get_logger(__name__)


class RulesServicer(rules_pb2_grpc.RulesServiceServicer):  # type: ignore[misc]
    """guildhall.rules.v1.RulesService for one game."""

    def __init__(self, spec: GameSpec[Any], data_path: str | None = None) -> None:
        """`data_path`: the replacement data file the spec was loaded from (GAME_DATA), if any."""
        self.spec = spec
        self.codec = spec.codec
        self._data_path = data_path
        self._bundle: Any = None
        self._action_tags = _tags(spec.action_type)
        presentation = spec.presentation
        self._describe_event = presentation.describe if presentation is not None else None
        self._decide = presentation.decision if presentation is not None else None
        # The states this process encoded lately (`_made_here`); the threaded server shares them.
        self._made: OrderedDict[bytes, None] = OrderedDict()
        self._made_lock = threading.Lock()
        self._describe = rules_pb2.DescribeResponse(
            game_id=spec.game_id,
            title=spec.title,
            rules_version=spec.rules_version,
            player_counts=list(spec.player_counts),
            json_schemas={name: msgspec.json.encode(s).decode() for name, s in json_schemas(spec).items()},
            default_options=msgspec.json.encode(spec.options_type()),
        )
        if spec.data is not None:  # the game's cards and boards for clients (GetGameData)
            from services.gamedata import game_data_json, game_data_schema

            self._describe.game_data = game_data_json(spec)
            self._describe.game_data_schema = msgspec.json.encode(game_data_schema(spec)).decode()

    # -- RPCs ------------------------------------------------------------------------

    def Describe(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._describe

    def Bundle(self, request: Any, context: grpc.ServicerContext) -> Any:
        """This service's rules as a bundle (services/bundles.py), built once."""
        if self._bundle is None:
            from services.bundles import build_bundle

            name, raw = build_bundle(self.spec.game_id, self._data_path)
            if not name.endswith(f"-{self.spec.rules_version}.zip"):  # the data file changed since
                _abort(
                    context,
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"the files here are no longer those of rules {self.spec.rules_version}: {name}",
                )
            self._bundle = rules_pb2.BundleResponse(
                rules_version=self.spec.rules_version, file_name=name, bundle=raw
            )
        return self._bundle

    def Setup(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._check_game(request.game_id, context)
        if len(request.seed) > 32:
            _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a seed is at most 32 bytes (256 bits)")
        seed = int.from_bytes(request.seed, "big")
        config = SetupConfig(request.players, seed, msgspec.Raw(request.options or b"{}"))
        try:
            state = self.spec.start(config)
        except SetupError as exc:
            _abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        return rules_pb2.SetupResponse(state=self._pack(state), status=self._status(state))

    def Validate(self, request: Any, context: grpc.ServicerContext, response: Any = None) -> Any:
        """`response`: the ValidateResponse to fill (a Session's answer fills its own in place: a
        message given to a constructor or to CopyFrom is copied, and the copies of every answer
        were a twentieth of the service's CPU); a new one when None."""
        response = rules_pb2.ValidateResponse() if response is None else response
        state = self._unpack(request.state, context)
        action = self._decode_action(request.action, context)
        if isinstance(action, Rejection):
            _fill_rejection(response.rejection, action)
            return response
        result = self.spec.decide(state, request.player, action)
        if isinstance(result, Rejection):
            _fill_rejection(response.rejection, result)
            return response
        accepted = response.accepted
        accepted.SetInParent()
        # Each event's JSON by the event's id (the events of `result` stay alive meanwhile): a
        # viewer shown an event unchanged (redaction hands back the event itself) reuses it. Each
        # distinct event shown is described once, by its JSON: a description depends on the event
        # as received only (services/kernel/present.py), so viewers shown equal events share it.
        encoded: dict[int, bytes] = {}
        described: dict[bytes, Any] = {}
        for event in result:
            encoded[id(event)] = self.codec.encode_json(event)
            accepted.events.add(type=_tag_of(event), json=encoded[id(event)])
        every = request.return_every_view and request.return_state
        seats, spectator = self._viewers(request, state) if every else ((), False)
        shown_to: dict[int | None, Any] = {}
        # One call brings what every watcher needs: no redaction call per seat afterwards.
        for viewer in (*seats, None) if spectator else seats:
            shown = shown_to[viewer] = accepted.seat_events.add()
            self._add_redacted(shown.events, result, viewer, encoded, described)
            if viewer is not None:
                shown.player = viewer
        if request.return_redacted:
            acting = shown_to.get(request.player)
            if acting is not None:
                accepted.redacted_events.extend(acting.events)
            else:
                self._add_redacted(accepted.redacted_events, result, request.player, encoded, described)
        if request.return_state:
            before, state = state, self.spec.evolve(state, result)
            accepted.undoable = self.spec.may_take_back(before, request.player, action, result, state)
            self._pack(state, accepted.state)
            self._status(state, accepted.status)
            active = set(accepted.status.active_players)
            viewed = sorted(active.union(seats)) if every else sorted(active) if request.return_views else ()
            for seat in viewed:
                self._seat_view(state, seat, seat in active, accepted.views.add())
            if spectator:
                accepted.spectator_view = self.codec.encode_json(self.spec.view(state, None))
        return response

    def _viewers(self, request: Any, state: Any) -> tuple[Sequence[int], bool]:
        """The seats and whether the spectator a Validate with return_every_view answers for: the
        viewers the request names (ValidateRequest.viewers), else every one."""
        count = self.spec.seat_count(state)
        if not request.HasField("viewers"):
            return range(count), True
        named = request.viewers
        return sorted({seat for seat in named.seats if 0 <= seat < count}), named.spectator

    def _add_redacted(
        self,
        target: Any,
        events: Sequence[Any],
        viewer: int | None,
        encoded: dict[int, bytes],
        described: dict[bytes, Any],
    ) -> None:
        """Add `events` as `viewer` may see them to the repeated field `target`, each with its
        description. `encoded`: the events' JSON by id; `described`: the description messages
        built so far in this call, by the JSON of the event they describe."""
        describe = self._describe_event
        for event in events:
            shown = self.spec.redact_event(event, viewer)
            json = encoded[id(event)] if shown is event else self.codec.encode_json(shown)
            added = target.add(type=_tag_of(shown), json=json)
            if describe is None:
                continue
            message = described.get(json)
            if message is None:
                message = described[json] = _description_pb(describe(shown, viewer))
            added.description.CopyFrom(message)

    def _seat_view(self, state: Any, seat: int, with_legal_actions: bool, seat_view: Any) -> Any:
        """Fill the SeatView `seat_view` (in place: see Validate) with a seat's view of the state,
        and its legal actions when it owes a decision."""
        legal = self.spec.legal_actions(state, seat) if with_legal_actions else ()
        seat_view.player = seat
        seat_view.view = self.codec.encode_json(self.spec.view(state, seat))
        seat_view.legal_actions.extend([self.codec.encode_json(a) for a in legal])
        if legal and self._decide is not None:
            _fill_decision(seat_view.decision, self._decide(state, seat, legal))
        return seat_view

    def Apply(self, request: Any, context: grpc.ServicerContext) -> Any:
        state = self._unpack(request.state, context)
        for number, event in enumerate(self._decode_events(request, context)):
            try:
                state = self.spec.apply(state, event)
            except _MISFIT_ERRORS as exc:
                # Apply is total for the events Validate made from this state; any other
                # event is the caller's (a corrupted or edited stream), not a crash of ours.
                _abort(
                    context,
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"event {number} ({_tag_of(event)}) does not fit the state: {type(exc).__name__}",
                )
        return rules_pb2.ApplyResponse(state=self._pack(state), status=self._status(state))

    def LegalActions(self, request: Any, context: grpc.ServicerContext) -> Any:
        state = self._unpack(request.state, context)
        actions = (
            self.spec.legal_actions(state, request.player) if self._is_seat(state, request.player) else []
        )
        return rules_pb2.LegalActionsResponse(actions=[self.codec.encode_json(a) for a in actions])

    def View(self, request: Any, context: grpc.ServicerContext) -> Any:
        state = self._unpack(request.state, context)
        viewer = request.player if request.HasField("player") else None
        if viewer is not None and not self._is_seat(state, viewer):
            _abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"there is no seat {viewer} in this match")
        events = [
            self._event(self.spec.redact_event(e, viewer), viewer)
            for e in self._decode_events(request, context)
        ]
        view = self.codec.encode_json(self.spec.view(state, viewer))
        response = rules_pb2.ViewResponse(view=view, events=events)
        if request.include_legal_actions and viewer is not None:
            legal = self.spec.legal_actions(state, viewer)
            response.legal_actions.extend(self.codec.encode_json(a) for a in legal)
            if legal and self._decide is not None:
                _fill_decision(response.decision, self._decide(state, viewer, legal))
        return response

    # -- helpers ---------------------------------------------------------------------

    def _check_game(self, game_id: str, context: grpc.ServicerContext) -> None:
        if game_id != self.spec.game_id:
            _abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"this service plays {self.spec.game_id!r}, not {clip(game_id, 64)!r}",
            )

    def _pack(self, state: Any, out: Any = None) -> Any:
        """The state as a GameState message: `out` filled in place, else a new one."""
        encoded = self.codec.encode_state(state)
        if self.spec.check_state is not None:
            with self._made_lock:
                self._made[encoded] = None
                if len(self._made) > MADE_STATES_KEPT:
                    self._made.popitem(last=False)
        out = rules_pb2.GameState() if out is None else out
        out.game_id = self.spec.game_id
        out.rules_version = self.spec.rules_version
        out.state = encoded
        return out

    def _unpack(self, packed: Any, context: grpc.ServicerContext) -> Any:
        self._check_game(packed.game_id, context)
        if packed.rules_version != self.spec.rules_version:
            _abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"the state was made by rules version {clip(packed.rules_version, 64)!r}, this service "
                f"runs {self.spec.rules_version!r}: replay the match's events instead",
            )
        encoded = packed.state
        try:
            state = self.codec.decode_state(encoded)
            if self.spec.check_state is not None and not self._made_here(encoded):
                self.spec.check_state(state)
        except msgspec.DecodeError as exc:
            _abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the state is not a valid {self.spec.game_id} state: {clip(str(exc))}",
            )
        except ValueError as exc:
            _abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the state does not fit {self.spec.game_id}: {clip(str(exc))}",
            )
        return state

    def _made_here(self, encoded: bytes) -> bool:
        """Whether these are the bytes of a state this process encoded lately: one its own rules
        made, which fits the game by construction, so the check against a forged or corrupted
        state is skipped (a tenth of a Rattus Cartus Validate; issue 45). The gateway sends back
        the state the last Validate returned, so with one rules process nearly every call hits."""
        with self._made_lock:
            return encoded in self._made

    def _decode_action(self, data: bytes, context: grpc.ServicerContext) -> Any:
        """The action, a Rejection for a well-formed action of an unknown type, or abort."""
        if len(data) > MAX_ACTION_BYTES:
            _abort(
                context, grpc.StatusCode.INVALID_ARGUMENT, f"an action is at most {MAX_ACTION_BYTES} bytes"
            )
        try:
            shape = _ACTION_SHAPE.decode(data)
        except msgspec.ValidationError:
            _abort(
                context, grpc.StatusCode.INVALID_ARGUMENT, 'an action is a JSON object with a "type" string'
            )
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
            reason = "invalid UTF-8" if isinstance(exc, UnicodeDecodeError) else clip(str(exc))
            reason = "nested too deeply" if isinstance(exc, RecursionError) else reason
            _abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"the action is not valid JSON: {reason}")
        if shape.type not in self._action_tags:
            known = ", ".join(sorted(self._action_tags))
            return Rejection(
                UNKNOWN_ACTION, f"{self.spec.title} has no action {clip(shape.type, 64)!r}; known: {known}"
            )
        try:
            action = self.codec.decode_action(data)
        except msgspec.DecodeError as exc:
            _abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"bad {shape.type!r} action: {clip(str(exc))}")
        # A misspelt field must not be dropped silently: the player meant something by it.
        fields = msgspec.json.decode(data)  # valid by now: the typed decode above accepted it
        unknown = sorted(set(fields) - {"type", *type(action).__struct_encode_fields__})
        if unknown:
            names = clip(", ".join(clip(name, 40) for name in unknown[:5]), 200)
            _abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"bad {shape.type!r} action: unknown field(s) {names}",
            )
        return action

    def _decode_events(self, request: Any, context: grpc.ServicerContext) -> list[Any]:
        """The request's events, all decoded before any is used: one bad event aborts the call."""
        decoded = []
        for number, event in enumerate(request.events):
            try:
                decoded.append(self.codec.decode_event(event.json))
            except msgspec.DecodeError as exc:
                _abort(
                    context,
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"event {number} is not a valid event: {clip(str(exc))}",
                )
        return decoded

    def _event(self, event: Any, viewer: int | None) -> Any:
        """An event as `viewer` received it, with its description for that viewer."""
        message = common_pb2.Event(type=_tag_of(event), json=self.codec.encode_json(event))
        if self._describe_event is not None:
            message.description.CopyFrom(_description_pb(self._describe_event(event, viewer)))
        return message

    def _status(self, state: Any, out: Any = None) -> Any:
        """The state's Status message: `out` filled in place, else a new one."""
        outcome = self.spec.outcome(state)
        out = rules_pb2.Status() if out is None else out
        out.SetInParent()  # present even with no seat to act and no outcome
        out.active_players.extend(self.spec.active_players(state))
        out.finished = outcome is not None
        out.outcome = self.codec.encode_json(outcome) if outcome is not None else b""
        return out

    def _is_seat(self, state: Any, player: int) -> bool:
        return 0 <= player < self.spec.seat_count(state)


class _ActionShape(msgspec.Struct):
    """What every action has: its type. Other fields are checked by the game's own decoder."""

    type: str


_ACTION_SHAPE = msgspec.json.Decoder(_ActionShape)


def _abort(context: grpc.ServicerContext, code: grpc.StatusCode, message: str) -> NoReturn:
    context.abort(code, message)
    raise AssertionError("unreachable: abort raises")


def _fill_rejection(target: Any, rejection: Rejection) -> None:
    target.code = rejection.code
    target.message = rejection.message


def _description_pb(description: Description) -> Any:
    """A kernel Description as its message, field by field (no JSON in between)."""
    message = common_pb2.Description(
        key=description.key,
        text=description.text,
        template=description.template,
        internal=description.internal,
    )
    _add_args(message.args, description.args)
    return message


def _fill_decision(target: Any, decision: Decision) -> None:
    """Fill the Decision message `target` from a kernel Decision, field by field: each distinct
    choice once in `choices`, each option naming its choices by index (common.proto)."""
    target.seat = decision.seat
    target.prompt = decision.prompt
    target.key = decision.key
    target.simultaneous = decision.simultaneous
    if decision.prompt_template:
        target.prompt_template = decision.prompt_template
        _add_args(target.prompt_args, decision.prompt_args)
    table, paths = choice_table(decision.options)
    add_choice = target.choices.add
    for c in table:
        message = add_choice(step=c.step, label=c.label, kind=c.kind, id=c.id)
        if c.step_template:
            message.step_template = c.step_template
            _add_args(message.step_args, c.step_args)
        if c.label_template:
            message.label_template = c.label_template
            _add_args(message.label_args, c.label_args)
    add_option = target.options.add
    for option, path in zip(decision.options, paths, strict=True):
        add_option(action=option.action, choice_indexes=path)


def _add_args(target: Any, args: Sequence[Arg]) -> None:
    add = target.add
    for a in args:
        add(name=a.name, text=a.text, kind=a.kind, id=a.id)


def _tag_of(struct: Any) -> str:
    return str(type(struct).__struct_config__.tag)


def _tags(union: Any) -> frozenset[str]:
    members = getattr(union, "__args__", (union,))
    return frozenset(str(m.__struct_config__.tag) for m in members)


def _context_of(request: Any) -> dict[str, Any]:
    """Log context pulled from a rules request: the game, and the seat for per-seat calls."""
    context: dict[str, Any] = {}
    state = getattr(request, "state", None)
    game = getattr(request, "game_id", "") or getattr(state, "game_id", "")
    if game:
        context["game"] = game
    if hasattr(request, "player") and request.DESCRIPTOR.name != "ViewRequest":
        context["player"] = request.player
    return context


def build_server(
    spec: GameSpec[Any], address: str = "127.0.0.1:0", max_workers: int = 8, data_path: str | None = None
) -> tuple[grpc.Server, int, health.HealthServicer]:
    """A server for one game, bound but not started; returns it with its bound port.

    One game per server: that is the deployment unit, scaled by Kubernetes replicas.
    """
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix=f"rules-{spec.game_id}"),
        interceptors=[
            CanonicalLogInterceptor(
                _context_of,
                request_limits=REQUEST_LIMITS,
                observe=RulesMetrics.of(spec.game_id, spec.rules_version).observe_locked,
            )
        ],
        options=GRPC_OPTIONS,
    )
    rules_pb2_grpc.add_RulesServiceServicer_to_server(RulesServicer(spec, data_path), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    port = _reflect_and_bind(server, address)
    for name in ("", _SERVICE):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, port, health_servicer


def _reflect_and_bind(server: grpc.Server | grpc.aio.Server, address: str) -> int:
    """Turn on reflection for the rules and health services and bind `address`; the bound port.
    A taken port is an error here, never a second server sharing it."""
    reflection.enable_server_reflection((_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    try:
        port: int = server.add_insecure_port(address)
    except RuntimeError:  # grpcio raises here when the port is taken (SO_REUSEPORT is off)
        port = 0
    if port == 0:
        raise OSError(f"cannot listen on {address}: the port is taken or the address is not local")
    return port


class _Aborted(Exception):
    """A call's fault, raised where the sync server would call context.abort."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _RaisingContext:
    """The servicer's context on the asyncio paths: abort raises, the caller answers."""

    def abort(self, code: grpc.StatusCode, message: str) -> NoReturn:
        raise _Aborted(code, message)


_RAISING = _RaisingContext()
_SERVICE = "guildhall.rules.v1.RulesService"
# The initial metadata of a Session stream that names the process answering it (issue 45).
INSTANCE_METADATA = "guildhall-rules-instance"
# Session's call kinds: the oneof field, the servicer method, the RPC name for limits and logs.
_SESSION_CALLS = {
    "setup": "Setup",
    "validate": "Validate",
    "apply": "Apply",
    "legal_actions": "LegalActions",
    "view": "View",
}
_STATUS_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


class AsyncRules:
    """The RulesService on grpc.aio: every call runs on the event loop, no thread hand-off.

    The sync server spent most of its CPU on polling and handing each call to a worker thread;
    the game logic is a few per cent of a call. Here a unary call is parsed, decided and answered
    on the loop, and `Session` answers many calls over one stream. Same limits, statuses and one
    log line per call as the sync server's interceptor.
    """

    def __init__(self, servicer: RulesServicer) -> None:
        self.servicer = servicer
        self._log = structlog.get_logger("rpc")
        spec = servicer.spec
        self.metrics = RulesMetrics.of(spec.game_id, spec.rules_version)
        self._span_attributes = {
            "guildhall.game": spec.game_id,
            "guildhall.rules_version": spec.rules_version,
        }
        # Named in every Session's initial metadata (INSTANCE_METADATA): a caller whose streams
        # reach this same process sends its calls down one of them, in larger batches.
        self.instance = secrets.token_hex(8)

    def _call(
        self,
        rpc: str,
        request: Any,
        outcomes: Counter[str] | None = None,
        trace_context: Any = None,
        into: Any = None,
    ) -> Any:
        """One call: its response, or _Aborted with the status the caller gets. Logged on its
        own line, unless `outcomes` counts it for its batch's line (a fault or an error still
        gets its own line, with its detail). Traced when tracing is on: a Session call's span
        continues the trace its `trace_context` names; a unary call's, the gRPC call's span.
        `into`: a Validate's response to fill in place."""
        if not tracing.ENABLED:
            return self._decide(rpc, request, outcomes, into)
        with tracing.span(
            f"{self.servicer.spec.game_id} {rpc}",
            kind="server" if trace_context else "internal",
            carrier=dict(trace_context) if trace_context else None,
            attributes=self._span_attributes,
        ):
            return self._decide(rpc, request, outcomes, into)

    def _decide(self, rpc: str, request: Any, outcomes: Counter[str] | None, into: Any = None) -> Any:
        started = time.perf_counter()
        outcome, status, detail = "ok", "OK", None
        self.metrics.in_flight += 1
        try:
            method = getattr(self.servicer, rpc)
            response = method(request, _RAISING) if into is None else method(request, _RAISING, into)
            if rpc == "Validate" and response.HasField("rejection"):
                outcome = f"rejected:{response.rejection.code}"
            return response
        except _Aborted as aborted:
            outcome, status, detail = "fault", aborted.code.name, aborted.message
            raise
        except Exception:
            outcome, status = "error", grpc.StatusCode.INTERNAL.name
            detail = f"internal error in {rpc}; the server log has details"
            self._log.exception("unhandled error", rpc=rpc)
            raise _Aborted(grpc.StatusCode.INTERNAL, detail) from None
        finally:
            self.metrics.in_flight -= 1
            self.metrics.observe(rpc, status, time.perf_counter() - started)
            if outcomes is not None:
                outcomes[f"{rpc}:{outcome}"] += 1
            if outcomes is None or detail is not None:
                self._log.info(
                    "rpc", **rpc_log_fields(rpc, _context_of(request), status, outcome, started, detail)
                )

    def _unary(self, rpc: str, parse: Callable[[bytes], Any], serialize: Any) -> Any:
        limit = REQUEST_LIMITS.get(rpc)

        def deserialize(data: bytes) -> Any:
            if limit is not None and len(data) > limit:
                count_refused("oversized")
                return _Aborted(
                    grpc.StatusCode.RESOURCE_EXHAUSTED, f"{rpc} requests are at most {limit} bytes"
                )
            try:
                return parse(data)
            except Exception:  # protobuf's DecodeError, or worse: the bytes are not this message
                count_refused("undecodable")
                return _Aborted(grpc.StatusCode.INVALID_ARGUMENT, f"the {rpc} request is not valid protobuf")

        async def handle(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if isinstance(request, _Aborted):
                self._log.info(
                    "rpc",
                    **rpc_log_fields(
                        rpc, {}, request.code.name, "fault", time.perf_counter(), request.message
                    ),
                )
                await context.abort(request.code, request.message)
            try:
                return self._call(rpc, request)
            except _Aborted as aborted:
                await context.abort(aborted.code, aborted.message)

        return grpc.unary_unary_rpc_method_handler(
            handle, request_deserializer=deserialize, response_serializer=serialize
        )

    async def session(
        self, requests: AsyncIterator[Any], context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        """Answer each request in turn (a batch in one message); a fault answers its call alone.
        A batch logs one line (`rpc` Session, `calls`, and how many of each rpc and outcome)
        instead of one per call: under load a line per call was a tenth of the service's CPU."""
        await context.send_initial_metadata(((INSTANCE_METADATA, self.instance),))
        self.metrics.sessions += 1
        try:
            async for response in self._answers(requests):
                yield response
        finally:
            self.metrics.sessions -= 1

    async def _answers(self, requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for request in requests:
            if request.batch and request.WhichOneof("call") is None:
                started = time.perf_counter()
                outcomes: Counter[str] = Counter()
                response = rules_pb2.SessionResponse(id=request.id)
                for call in request.batch:
                    self._session_call(call, response.batch.add(), nested=True, outcomes=outcomes)
                fields = rpc_log_fields("Session", {}, "OK", "batch", started, None)
                self._log.info("rpc", **fields, calls=len(request.batch), outcomes=dict(outcomes))
                yield response
            else:
                yield self._session_call(request)

    def _session_call(
        self,
        request: Any,
        response: Any = None,
        *,
        nested: bool = False,
        outcomes: Counter[str] | None = None,
    ) -> Any:
        """Answer one call in `response` (a SessionResponse filled in place; a new one when None),
        which is returned."""
        kind = request.WhichOneof("call")
        response = rules_pb2.SessionResponse() if response is None else response
        response.id = request.id
        if kind is None or (nested and request.batch):
            response.fault.code = grpc.StatusCode.INVALID_ARGUMENT.value[0]
            response.fault.message = "a session request names one call (a batch holds calls, not batches)"
            return response
        rpc = _SESSION_CALLS[kind]
        inner = getattr(request, kind)
        limit = REQUEST_LIMITS.get(rpc)
        try:
            if limit is not None and limit < MAX_MESSAGE_BYTES and inner.ByteSize() > limit:
                count_refused("oversized")
                raise _Aborted(
                    grpc.StatusCode.RESOURCE_EXHAUSTED, f"{rpc} requests are at most {limit} bytes"
                )
            if rpc == "Validate":  # the hot call: answered in place, not copied
                self._call(rpc, inner, outcomes, request.trace_context, into=response.validate)
            else:
                getattr(response, kind).CopyFrom(self._call(rpc, inner, outcomes, request.trace_context))
        except _Aborted as aborted:
            response.fault.code = aborted.code.value[0]
            response.fault.message = aborted.message
        return response

    def handler(self) -> grpc.GenericRpcHandler:
        methods = {
            rpc: self._unary(
                rpc,
                getattr(rules_pb2, f"{rpc}Request").FromString,
                getattr(rules_pb2, f"{rpc}Response").SerializeToString,
            )
            for rpc in ("Describe", "Bundle", "Setup", "Validate", "Apply", "LegalActions", "View")
        }
        methods["Session"] = grpc.stream_stream_rpc_method_handler(
            self.session,
            request_deserializer=rules_pb2.SessionRequest.FromString,
            response_serializer=rules_pb2.SessionResponse.SerializeToString,
        )
        return grpc.method_handlers_generic_handler(_SERVICE, methods)


def fault_status(code: int) -> grpc.StatusCode:
    """The status code of a Session fault's number (UNKNOWN for a number gRPC does not have)."""
    return _STATUS_BY_NUMBER.get(code, grpc.StatusCode.UNKNOWN)


async def build_aio_server(
    spec: GameSpec[Any], address: str = "127.0.0.1:0", data_path: str | None = None
) -> tuple[grpc.aio.Server, int, Any]:
    """The asyncio server for one game, bound but not started; build it inside the running loop.

    What `python -m services.<game>` runs; `build_server` (threads) stays for in-process tools.
    """
    server = grpc.aio.server(options=GRPC_OPTIONS, interceptors=tracing.server_interceptors())
    server.add_generic_rpc_handlers((AsyncRules(RulesServicer(spec, data_path)).handler(),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    port = _reflect_and_bind(server, address)
    for name in ("", _SERVICE):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, port, health_servicer


# Set by a local supervisor (devstack's processes) to its pid: the service stops once it is no longer that
# process's child, so a crashed or killed `make run`, demo or test never leaves services behind.
EXIT_WITH_PARENT_ENV = "GUILDHALL_EXIT_WITH_PARENT"


def _stop_when_orphaned(supervisor_pid: int, stopping: threading.Event) -> None:
    while os.getppid() == supervisor_pid and not stopping.wait(1.0):
        pass
    if not stopping.is_set():
        _log.warning("supervisor gone; stopping", supervisor_pid=supervisor_pid)
        stopping.set()


def _load_spec(game_id: str, path: str) -> GameSpec[Any]:
    """The game built from a replacement data file, by the game package's `load_game(path)`."""
    package = importlib.import_module(f"services.{game_id}")
    load_game = getattr(package, "load_game", None)
    if load_game is None:
        raise SystemExit(f"{game_id} has no replaceable data file")
    try:
        spec: GameSpec[Any] = load_game(path)
    except ValueError as exc:  # the game's data error, naming what is wrong with the file
        raise SystemExit(f"cannot use {path}: {exc}") from None
    return spec


def _env_help(text: str, env: str, default: object) -> str:
    return f"{text} (env {env}; default: {default})"


def main(game_id: str, argv: Sequence[str] | None = None) -> None:
    """Serve one game until SIGTERM or Ctrl-C, then drain and stop.

    Stopping: health turns NOT_SERVING at once (readiness probes fail, load balancers move
    away), the server keeps serving for `--drain` seconds so calls already routed here still
    land, then stops accepting and gives calls in flight `--grace` seconds to finish.
    """
    from services.registry import GAMES, default_port

    env = os.environ
    parser = argparse.ArgumentParser(
        prog=f"python -m services.{game_id}",
        description=f"Serve the {game_id} rules over gRPC (guildhall.rules.v1.RulesService).",
    )
    parser.add_argument(
        "--host",
        default=env.get("HOST", "127.0.0.1"),
        help=_env_help("address to bind; 0.0.0.0 in a pod", "HOST", "127.0.0.1"),
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(env.get("PORT", default_port(game_id))),
        help=_env_help("port to listen on; a taken port is an error", "PORT", default_port(game_id)),
    )
    parser.add_argument(
        "--log-level",
        default=env.get("LOG_LEVEL", "info"),
        help=_env_help("debug, info, warning or error, any case", "LOG_LEVEL", "info"),
    )
    parser.add_argument(
        "--drain",
        type=float,
        default=float(env.get("DRAIN_SECONDS", "0")),
        help=_env_help(
            "seconds to keep serving after a stop signal while health says NOT_SERVING "
            "(set it above the readiness probe period in Kubernetes)",
            "DRAIN_SECONDS",
            0,
        ),
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=float(env.get("GRACE_SECONDS", "10")),
        help=_env_help("seconds calls in flight get to finish once serving stops", "GRACE_SECONDS", 10),
    )
    parser.add_argument(
        "--data",
        default=env.get("GAME_DATA"),
        help=_env_help(
            "a replacement game data file (same schema as the shipped one), e.g. the real card list",
            "GAME_DATA",
            "the shipped data",
        ),
    )
    parser.add_argument(
        "--server",
        choices=("asyncio", "threads"),
        default=env.get("GUILDHALL_RULES_SERVER", "asyncio"),
        help=_env_help(
            "asyncio (grpc.aio, with Session streams) or threads (the thread-pool server, kept for "
            "comparison: it spends most of its CPU polling and handing calls to threads)",
            "GUILDHALL_RULES_SERVER",
            "asyncio",
        ),
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(env.get("METRICS_PORT", "0")),
        help=_env_help("port of the Prometheus /metrics endpoint; 0 = none", "METRICS_PORT", 0),
    )
    args = parser.parse_args(argv)
    try:
        tracing.configure(f"rules-{game_id}")  # before logging: log lines then carry trace ids
        configure_logging(f"rules-{game_id}", args.log_level)
    except ValueError as exc:  # a bad LOG_LEVEL or OTEL_* setting
        parser.error(str(exc))

    spec = _load_spec(game_id, args.data) if args.data else GAMES[game_id]
    try:
        RulesMetrics.of(spec.game_id, spec.rules_version)  # its series exist from the first scrape
        serve_metrics(args.metrics_port, args.host)
        if args.server == "threads":
            _serve_threads(spec, game_id, args.host, args.port, args.drain, args.grace, args.data)
        else:
            runtime.run(_serve(spec, game_id, args.host, args.port, args.drain, args.grace, args.data))
    except RuntimeSettingError as exc:
        parser.error(str(exc))
    except OSError as exc:
        raise SystemExit(str(exc)) from None


def _serve_threads(
    spec: GameSpec[Any], game_id: str, host: str, port: int, drain: float, grace: float, data: str | None
) -> None:
    server, bound, health_servicer = build_server(spec, f"{host}:{port}", data_path=data)
    stopping = threading.Event()

    def stop(signum: int, _frame: object) -> None:
        # The flag first: a second signal can run this handler again inside the first one's log
        # call (Python runs handlers between bytecodes), and must find the stop under way.
        first = not stopping.is_set()
        stopping.set()
        if first:
            _log.info("stopping", signal=signal.Signals(signum).name, drain_s=drain, grace_s=grace)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # A parent may hand the signals down blocked (a mask survives exec); stopping must work.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    supervisor = os.environ.get(EXIT_WITH_PARENT_ENV)
    if supervisor:
        threading.Thread(target=_stop_when_orphaned, args=(int(supervisor), stopping), daemon=True).start()
    server.start()
    _log.info("serving", game=game_id, rules_version=spec.rules_version, address=f"{host}:{bound}")
    while not stopping.wait(0.2):  # a bare wait() can miss the signal handler's flag
        pass
    health_servicer.enter_graceful_shutdown()
    time.sleep(max(drain, 0.0))
    server.stop(grace).wait()
    _log.info("stopped", game=game_id)
    _ignore_stop_signals()


async def _serve(
    spec: GameSpec[Any], game_id: str, host: str, port: int, drain: float, grace: float, data: str | None
) -> None:
    server, bound, health_servicer = await build_aio_server(spec, f"{host}:{port}", data)
    stopping = threading.Event()
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def stop(signum: int, _frame: object) -> None:
        # Only sets flags: a signal handler must not block (a second signal arrives while the
        # first is being handled when Ctrl-C is followed by SIGTERM).
        first = not stopping.is_set()
        stopping.set()  # before the log line: see _serve_threads
        if first:
            _log.info("stopping", signal=signal.Signals(signum).name, drain_s=drain, grace_s=grace)
        loop.call_soon_threadsafe(wake.set)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # A parent may hand the signals down blocked (a mask survives exec); stopping must work.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    supervisor = os.environ.get(EXIT_WITH_PARENT_ENV)
    if supervisor:

        def orphaned() -> None:
            _stop_when_orphaned(int(supervisor), stopping)
            loop.call_soon_threadsafe(wake.set)

        threading.Thread(target=orphaned, daemon=True).start()
    await server.start()
    _log.info("serving", game=game_id, rules_version=spec.rules_version, address=f"{host}:{bound}")
    while not stopping.is_set():
        # Wake up regularly too: a flag set by a signal handler is seen even if a wake-up is lost.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), 0.5)
    await health_servicer.enter_graceful_shutdown()  # readiness fails first, so traffic moves away
    await asyncio.sleep(max(drain, 0.0))
    await server.stop(grace)
    tracing.shutdown()  # the spans still buffered go out
    _log.info("stopped", game=game_id)
    _ignore_stop_signals()


def _ignore_stop_signals() -> None:
    """Stopped: a late SIGTERM (Ctrl-C's SIGINT, then the supervisor's SIGTERM) must not kill the
    exiting process. Python's finalization resets signals with Python handlers to the default,
    which would make it die of that signal (-15) instead of exiting 0; ignored ones stay ignored."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
