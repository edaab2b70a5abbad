"""The gateway's port to one game's rules service over gRPC.

`AsyncRulesClient` (grpc.aio) is what the gateway uses: no thread per call, no hop between
the event loop and a thread pool. `RulesClient` is the blocking twin for tools, benchmarks and
tests that talk to a rules service directly.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import grpc
import msgspec
from guildhall.common.v1 import common_pb2
from guildhall.rules.v1 import rules_pb2, rules_pb2_grpc

from services.kernel import Rejection

# Replays send events in batches: one call per batch, each well under the message limit.
APPLY_BATCH = 500
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
]


class Event(msgspec.Struct, frozen=True):
    """An event as the rules service returned it: its tag and its JSON."""

    type: str
    json: bytes


class Status(msgspec.Struct, frozen=True):
    """Who owes a decision, and the outcome JSON once the game is over."""

    active_players: tuple[int, ...]
    finished: bool
    outcome: bytes = b""


@dataclass(frozen=True)
class Accepted:
    """An accepted action: its events, and the next state when it was asked for."""

    events: tuple[Event, ...]
    state: rules_pb2.GameState | None
    status: Status | None
    # The events as the acting seat sees them, when asked for (return_redacted).
    redacted: tuple[Event, ...] = ()


def _status(status: rules_pb2.Status) -> Status:
    return Status(tuple(status.active_players), status.finished, status.outcome)


def _events(events: Sequence[common_pb2.Event]) -> tuple[Event, ...]:
    return tuple(Event(e.type, e.json) for e in events)


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


def _accepted(response: rules_pb2.ValidateResponse) -> Accepted | Rejection:
    if response.WhichOneof("result") == "rejection":
        return Rejection(response.rejection.code, response.rejection.message)
    accepted = response.accepted
    return Accepted(
        _events(accepted.events),
        accepted.state if accepted.HasField("state") else None,
        _status(accepted.status) if accepted.HasField("status") else None,
        _events(accepted.redacted_events),
    )


class AsyncRulesClient:
    """One game's RulesService over a grpc.aio channel; build it inside the running event loop.

    Same service config as the blocking client: round robin over every pod behind a headless
    Service, health checking, retries on UNAVAILABLE (rules calls are pure, so safe to repeat).
    """

    def __init__(self, game_id: str, target: str, *, timeout_s: float = 10.0) -> None:
        self.game_id = game_id
        self.target = target
        self._timeout = timeout_s
        self._channel = grpc.aio.insecure_channel(target, options=GRPC_OPTIONS)
        self._stub = rules_pb2_grpc.RulesServiceStub(self._channel)

    async def close(self) -> None:
        await self._channel.close()

    async def describe(self) -> rules_pb2.DescribeResponse:
        response: rules_pb2.DescribeResponse = await self._stub.Describe(
            rules_pb2.DescribeRequest(), timeout=self._timeout
        )
        return response

    async def setup(
        self, players: int, seed: bytes, options: bytes = b""
    ) -> tuple[rules_pb2.GameState, Status]:
        """The opening state; `seed` is the match's 32 random bytes (an integer, big-endian)."""
        request = rules_pb2.SetupRequest(game_id=self.game_id, players=players, seed=seed, options=options)
        response = await self._stub.Setup(request, timeout=self._timeout)
        return response.state, _status(response.status)

    async def validate(
        self,
        state: rules_pb2.GameState,
        player: int,
        action: bytes,
        *,
        return_state: bool = True,
        return_redacted: bool = True,
    ) -> Accepted | Rejection:
        request = rules_pb2.ValidateRequest(
            state=state,
            player=player,
            action=action,
            return_state=return_state,
            return_redacted=return_redacted,
        )
        return _accepted(await self._stub.Validate(request, timeout=self._timeout))

    async def apply(
        self, state: rules_pb2.GameState, events: Sequence[Event]
    ) -> tuple[rules_pb2.GameState, Status]:
        """Fold events of any number into the state, a batch per call."""
        status = None
        for start in range(0, len(events), APPLY_BATCH):
            request = rules_pb2.ApplyRequest(state=state, events=_wire(events[start : start + APPLY_BATCH]))
            response = await self._stub.Apply(request, timeout=self._timeout)
            state, status = response.state, _status(response.status)
        if status is None:  # no events: ask nothing of the service but the status
            response = await self._stub.Apply(rules_pb2.ApplyRequest(state=state), timeout=self._timeout)
            state, status = response.state, _status(response.status)
        return state, status

    async def legal_actions(self, state: rules_pb2.GameState, player: int) -> list[bytes]:
        request = rules_pb2.LegalActionsRequest(state=state, player=player)
        response = await self._stub.LegalActions(request, timeout=self._timeout)
        return list(response.actions)

    async def view_and_legal_actions(
        self, state: rules_pb2.GameState, player: int
    ) -> tuple[bytes, list[bytes]]:
        """A seat's view and its legal actions in one call."""
        request = rules_pb2.ViewRequest(state=state, player=player, include_legal_actions=True)
        response = await self._stub.View(request, timeout=self._timeout)
        return response.view, list(response.legal_actions)

    async def view(
        self, state: rules_pb2.GameState, player: int | None, events: Sequence[Event] = ()
    ) -> tuple[bytes, tuple[Event, ...]]:
        """What `player` (None: a spectator) sees of the state, and `events` as they see them."""
        request = rules_pb2.ViewRequest(state=state, events=_wire(events))
        if player is not None:
            request.player = player
        response = await self._stub.View(request, timeout=self._timeout)
        return response.view, _events(response.events)
