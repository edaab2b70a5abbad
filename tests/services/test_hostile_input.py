"""Input a hostile client can send the real Rattus Cartus service: each answer is a precise status
(INVALID_ARGUMENT or RESOURCE_EXHAUSTED) or a Rejection, never INTERNAL, never an unbounded echo,
and the state sent stays the caller's: nothing on the server changes."""

from __future__ import annotations

import json
from collections.abc import Iterator

import grpc
import msgspec
import pytest
from guildhall.common.v1 import common_pb2
from guildhall.rules.v1 import rules_pb2, rules_pb2_grpc

from gateway.rules_client import RulesClient
from services.kernel import Rejection
from services.observability import refused_requests
from services.rattus_cartus import GAME
from services.server import MAX_ACTION_BYTES, REQUEST_LIMITS
from tests.rules_service import serving


@pytest.fixture(scope="module")
def client() -> Iterator[RulesClient]:
    with serving(GAME) as rules:
        yield rules


@pytest.fixture(scope="module")
def stub(client: RulesClient) -> Iterator[rules_pb2_grpc.RulesServiceStub]:
    with grpc.insecure_channel(client.target, options=[("grpc.max_send_message_length", -1)]) as channel:
        yield rules_pb2_grpc.RulesServiceStub(channel)


@pytest.fixture(scope="module")
def opening(client: RulesClient) -> rules_pb2.GameState:
    state, _ = client.setup(4, 7)
    return state


def _fault(call: object) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as error:
        call()  # type: ignore[operator]
    return error.value


def _validate(stub: rules_pb2_grpc.RulesServiceStub, state: rules_pb2.GameState, action: bytes) -> object:
    return stub.Validate(rules_pb2.ValidateRequest(state=state, player=0, action=action))


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b'{"type":"play_card","card":"\xff\xfe"}', "invalid UTF-8"),
        (b"[" * 5000 + b"]" * 5000, "JSON object"),
        (b'{"type":"play_pass","x":' + b"[" * 5000 + b"]" * 5000 + b"}", "nested too deeply"),
        (b'{"type":' * 3000, '"type" string'),
        (b'{"type": 5}', '"type" string'),
    ],
)
def test_malformed_json_is_invalid_argument_not_internal(
    stub: rules_pb2_grpc.RulesServiceStub, opening: rules_pb2.GameState, payload: bytes, reason: str
) -> None:
    error = _fault(lambda: _validate(stub, opening, payload))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason in error.details()


@pytest.mark.parametrize("number", [2**31, -(2**31) - 1, 10**30])
def test_huge_numbers_in_an_action_are_invalid_argument(
    stub: rules_pb2_grpc.RulesServiceStub, opening: rules_pb2.GameState, number: int
) -> None:
    error = _fault(
        lambda: _validate(stub, opening, json.dumps({"type": "enter_building", "building": number}).encode())
    )
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "out of range" in error.details() and "building" in error.details()


def test_an_out_of_range_option_is_invalid_argument_naming_the_field(
    stub: rules_pb2_grpc.RulesServiceStub,
) -> None:
    for options in ({"vp_token_value": 10**30}, {"vp_token_value": 101}):
        request = rules_pb2.SetupRequest(
            game_id="rattus_cartus", players=4, options=json.dumps(options).encode()
        )
        error = _fault(lambda request=request: stub.Setup(request))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "vp_token_value" in error.details()


def test_a_seed_over_256_bits_is_invalid_argument(stub: rules_pb2_grpc.RulesServiceStub) -> None:
    request = rules_pb2.SetupRequest(game_id="rattus_cartus", players=4, seed=b"\x01" * 33)
    assert _fault(lambda: stub.Setup(request)).code() == grpc.StatusCode.INVALID_ARGUMENT


def test_a_state_that_decodes_but_does_not_fit_the_game_is_invalid_argument(
    stub: rules_pb2_grpc.RulesServiceStub, opening: rules_pb2.GameState
) -> None:
    state = GAME.codec.decode_state(opening.state)
    forged = [
        msgspec.structs.replace(state, hands=state.hands[:2]),  # fewer hands than seats
        msgspec.structs.replace(state, start_player=9),  # a seat that does not exist
        msgspec.structs.replace(state, deck=("dragon:3",)),  # an unknown card
        msgspec.structs.replace(state, players=40),
    ]
    for bad in forged:
        packed = rules_pb2.GameState(
            game_id=opening.game_id, rules_version=opening.rules_version, state=GAME.codec.encode_state(bad)
        )
        for call in (
            lambda packed=packed: _validate(stub, packed, b'{"type": "play_pass"}'),
            lambda packed=packed: stub.LegalActions(rules_pb2.LegalActionsRequest(state=packed, player=0)),
            lambda packed=packed: stub.View(rules_pb2.ViewRequest(state=packed, player=0)),
        ):
            error = _fault(call)
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
            assert "does not fit" in error.details()


def test_an_event_that_decodes_but_does_not_fit_the_state_is_invalid_argument(
    stub: rules_pb2_grpc.RulesServiceStub, opening: rules_pb2.GameState
) -> None:
    misfit = common_pb2.Event(type="rats_discarded", json=b'{"type":"rats_discarded","player":9,"count":1}')
    error = _fault(lambda: stub.Apply(rules_pb2.ApplyRequest(state=opening, events=[misfit])))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "event 0 (rats_discarded) does not fit" in error.details()


def test_protobuf_garbage_is_invalid_argument_and_counted(client: RulesClient) -> None:
    before = refused_requests["undecodable"]
    with grpc.insecure_channel(client.target) as channel:
        raw = channel.unary_unary("/guildhall.rules.v1.RulesService/Validate")
        error = _fault(lambda: raw(b"\xff\xff\xff\xff\x0f garbage"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not valid protobuf" in error.details()
    assert refused_requests["undecodable"] == before + 1


def test_a_request_over_its_rpcs_limit_is_resource_exhausted(
    stub: rules_pb2_grpc.RulesServiceStub, opening: rules_pb2.GameState
) -> None:
    before = refused_requests["oversized"]
    huge = b"x" * (REQUEST_LIMITS["Validate"] + 1)
    error = _fault(lambda: _validate(stub, opening, huge))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert refused_requests["oversized"] == before + 1


def test_an_oversized_action_is_refused_without_echoing_it(
    stub: rules_pb2_grpc.RulesServiceStub, opening: rules_pb2.GameState
) -> None:
    big_type = json.dumps({"type": "x" * (2 * MAX_ACTION_BYTES)}).encode()
    error = _fault(lambda: _validate(stub, opening, big_type))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and len(error.details()) < 300


def test_client_text_in_rejections_and_errors_is_cut_short(
    client: RulesClient, stub: rules_pb2_grpc.RulesServiceStub, opening: rules_pb2.GameState
) -> None:
    long_type = json.dumps({"type": "y" * 50_000}).encode()
    rejection = client.validate(opening, 0, long_type)
    assert isinstance(rejection, Rejection) and rejection.code == "unknown_action"
    assert len(rejection.message) < 600
    unknown_field = json.dumps({"type": "play_pass", "z" * 50_000: 1}).encode()
    error = _fault(lambda: _validate(stub, opening, unknown_field))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and len(error.details()) < 400
    other_game = rules_pb2.SetupRequest(game_id="g" * 30_000, players=4)
    error = _fault(lambda: stub.Setup(other_game))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and len(error.details()) < 300
