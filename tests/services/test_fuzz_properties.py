"""Property-based fuzzing of every registered game's real rules service (hypothesis): whatever
bytes a client sends, as an action, as options, as a whole protobuf request, the answer is an
acceptance of a listed action, a Rejection with a known code, or a precise contract fault; never
INTERNAL or UNKNOWN, and never a reply that echoes the input back unbounded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from guildhall.rules.v1 import rules_pb2, rules_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.rules_client import RulesClient
from services.kernel import RULES_CODES, GameSpec
from services.registry import GAMES
from tests.rules_service import serving

CONTRACT_FAULTS = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.FAILED_PRECONDITION,
}
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.sampled_from(["church:3", "joker", "sword", "magic:9", "x" * 3000]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
)


def _actions(spec: GameSpec[Any]) -> st.SearchStrategy[bytes]:
    """JSON objects shaped like the game's actions: real and made-up types, real field names."""
    members = spec.action_type.__args__ if hasattr(spec.action_type, "__args__") else (spec.action_type,)
    tags = sorted(m.__struct_config__.tag for m in members)
    fields = sorted({f for m in members for f in m.__struct_fields__} | {"extra"})
    return st.builds(
        lambda kind, values: json.dumps({"type": kind, **values}).encode(),
        st.sampled_from(tags) | st.text(max_size=20),
        st.dictionaries(st.sampled_from(fields), json_values, max_size=3),
    )


broken_json = st.one_of(
    st.binary(max_size=200),
    st.builds(
        lambda depth: b'{"type":"play_pass","x":' + b"[" * depth + b"]" * depth + b"}",
        st.integers(100, 20_000),
    ),
    st.builds(lambda raw: b'{"type":"play_card","card":"' + raw + b'"}', st.binary(min_size=1, max_size=8)),
)


@pytest.fixture(scope="module", params=sorted(GAMES))
def client(request: pytest.FixtureRequest) -> Iterator[RulesClient]:
    with serving(GAMES[request.param]) as rules:
        yield rules


@pytest.fixture(scope="module")
def table(client: RulesClient) -> tuple[rules_pb2.GameState, list[int], set[bytes]]:
    spec = GAMES[client.game_id]
    state, status = client.setup(max(spec.player_counts), 99)
    listed = set(client.legal_actions(state, status.active_players[0]))
    return state, list(status.active_players), listed


def _answer(call: Any) -> Any:
    try:
        return call()
    except grpc.RpcError as error:
        assert error.code() in CONTRACT_FAULTS, (error.code(), error.details())
        assert len(error.details() or "") < 1000, "the error echoed the input"
        return error


@FUZZ
@given(data=st.data(), seat=st.integers(-3, 6))
def test_any_action_bytes_get_a_precise_answer(client: RulesClient, table: Any, data: Any, seat: int) -> None:
    payload = data.draw(_actions(GAMES[client.game_id]) | broken_json)
    state, active, listed = table
    stub = rules_pb2_grpc.RulesServiceStub(client._channel)
    answer = _answer(
        lambda: stub.Validate(rules_pb2.ValidateRequest(state=state, player=seat, action=payload))
    )
    if isinstance(answer, grpc.RpcError):
        return
    if answer.HasField("rejection"):
        assert answer.rejection.code in RULES_CODES and len(answer.rejection.message) < 1000
    else:  # accepted: only what legal_actions lists, by the active seat
        assert seat in active and json.loads(payload) in [json.loads(a) for a in listed]


@FUZZ
@given(options=json_values, players=st.integers(0, 2**32 - 1))
def test_any_options_get_a_precise_answer(client: RulesClient, options: Any, players: int) -> None:
    stub = rules_pb2_grpc.RulesServiceStub(client._channel)
    request = rules_pb2.SetupRequest(
        game_id=client.game_id, players=players, options=json.dumps(options).encode()
    )
    _answer(lambda: stub.Setup(request))


@FUZZ
@given(
    method=st.sampled_from(["Describe", "Setup", "Validate", "Apply", "LegalActions", "View"]),
    raw=st.binary(max_size=300),
)
def test_protobuf_garbage_gets_a_precise_answer(client: RulesClient, method: str, raw: bytes) -> None:
    call = client._channel.unary_unary(f"/guildhall.rules.v1.RulesService/{method}")
    _answer(lambda: call(raw))
