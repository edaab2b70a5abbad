"""The generic RulesService, in process on port 0, serving the kernel's test game."""

from __future__ import annotations

import json
from collections.abc import Iterator

import grpc
import msgspec
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from guildhall.common.v1 import common_pb2
from guildhall.rules.v1 import rules_pb2, rules_pb2_grpc

from gateway.rules_client import Accepted, RulesClient
from services.kernel import Rejection, SetupConfig
from tests.kernel.toy_game import GAME
from tests.rules_service import serving


@pytest.fixture(scope="module")
def served() -> Iterator[RulesClient]:
    with serving(GAME) as client:
        yield client


@pytest.fixture()
def address(served: RulesClient) -> str:
    return served.target


@pytest.fixture()
def client(served: RulesClient) -> RulesClient:
    return served


@pytest.fixture()
def stub(address: str) -> Iterator[rules_pb2_grpc.RulesServiceStub]:
    with grpc.insecure_channel(address) as channel:
        yield rules_pb2_grpc.RulesServiceStub(channel)


def _status_code(call: object) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as error:
        call()  # type: ignore[operator]
    return error.value.code()  # type: ignore[no-any-return]


def test_describe_publishes_ids_counts_and_json_schemas(client: RulesClient) -> None:
    described = client.describe()
    assert described.game_id == "secret_nim"
    assert list(described.player_counts) == [2, 3, 4]
    assert set(described.json_schemas) == {
        "options",
        "action",
        "event",
        "view",
        "outcome",
        "rejection",
        "decision",
        "description",
    }
    action_schema = json.loads(described.json_schemas["action"])
    assert "take" in json.dumps(action_schema)
    assert json.loads(described.default_options) == {"pile": 15, "hand_size": 2}


def test_setup_returns_the_kernels_opening_state(client: RulesClient) -> None:
    state, status = client.setup(3, 42)
    assert state.rules_version == GAME.rules_version
    assert GAME.codec.decode_state(state.state) == GAME.start(SetupConfig(3, 42))
    assert status.active_players == (0,) and not status.finished


def test_setup_with_a_wrong_player_count_or_bad_options_is_invalid_argument(client: RulesClient) -> None:
    assert _status_code(lambda: client.setup(7, 1)) == grpc.StatusCode.INVALID_ARGUMENT
    assert _status_code(lambda: client.setup(2, 1, b'{"pile": "many"}')) == grpc.StatusCode.INVALID_ARGUMENT
    assert _status_code(lambda: client.setup(2, 1, b"{not json")) == grpc.StatusCode.INVALID_ARGUMENT


def test_validate_returns_events_and_the_next_state_in_one_call(client: RulesClient) -> None:
    state, _ = client.setup(2, 7)
    decision = client.validate(state, 0, b'{"type": "take", "count": 2}')
    assert isinstance(decision, Accepted)
    assert [e.type for e in decision.events] == ["counters_taken"]
    assert decision.state is not None and decision.status is not None
    assert GAME.codec.decode_state(decision.state.state).pile == 13
    assert decision.status.active_players == (1,)


def test_validate_without_return_state_sends_only_events(client: RulesClient) -> None:
    state, _ = client.setup(2, 7)
    decision = client.validate(state, 0, b'{"type": "take", "count": 1}', return_state=False)
    assert isinstance(decision, Accepted) and decision.state is None and len(decision.events) == 1


def test_rule_violations_are_rejections_with_stable_codes(client: RulesClient) -> None:
    state, _ = client.setup(2, 7)
    assert client.validate(state, 1, b'{"type": "take", "count": 1}') == Rejection(
        "not_your_turn", "It is not your turn."
    )
    illegal = client.validate(state, 0, b'{"type": "take", "count": 9}')
    assert isinstance(illegal, Rejection) and illegal.code == "illegal_action"
    unknown = client.validate(state, 0, b'{"type": "flip_table"}')
    assert isinstance(unknown, Rejection) and unknown.code == "unknown_action" and "take" in unknown.message
    nobody = client.validate(state, 5, b'{"type": "take", "count": 1}')
    assert isinstance(nobody, Rejection) and nobody.code == "unknown_player"


def test_undecodable_actions_are_invalid_argument(client: RulesClient) -> None:
    state, _ = client.setup(2, 7)
    for payload in (
        b"{oops",
        b"[1, 2]",
        b'{"count": 1}',
        b'{"type": "take", "count": "two"}',
        b'{"type": "take", "count": 1, "cuont": 2}',
    ):
        assert (
            _status_code(lambda p=payload: client.validate(state, 0, p)) == grpc.StatusCode.INVALID_ARGUMENT
        )


def test_a_state_of_another_game_or_rules_version_is_refused(client: RulesClient) -> None:
    state, _ = client.setup(2, 7)
    other_game = rules_pb2.GameState(game_id="ys", rules_version=state.rules_version, state=state.state)
    assert _status_code(lambda: client.legal_actions(other_game, 0)) == grpc.StatusCode.INVALID_ARGUMENT
    old_rules = rules_pb2.GameState(game_id=state.game_id, rules_version="0-old", state=state.state)
    assert _status_code(lambda: client.legal_actions(old_rules, 0)) == grpc.StatusCode.FAILED_PRECONDITION
    garbage = rules_pb2.GameState(game_id=state.game_id, rules_version=state.rules_version, state=b"\x93junk")
    assert _status_code(lambda: client.legal_actions(garbage, 0)) == grpc.StatusCode.INVALID_ARGUMENT


def test_batch_apply_replays_a_whole_game_to_the_live_state(client: RulesClient) -> None:
    opening, status = client.setup(3, 11)
    state, events = opening, []
    while not status.finished:
        seat = status.active_players[0]
        action = client.legal_actions(state, seat)[0]
        decision = client.validate(state, seat, action)
        assert isinstance(decision, Accepted) and decision.state and decision.status
        events.extend(decision.events)
        state, status = decision.state, decision.status
    replayed, replay_status = client.apply(opening, events)
    assert replayed.state == state.state
    outcome = json.loads(replay_status.outcome)
    assert replay_status.finished and len(outcome["winners"]) == 1


def test_apply_of_a_malformed_event_is_invalid_argument(client: RulesClient, stub: object) -> None:
    state, _ = client.setup(2, 7)
    bad = rules_pb2.ApplyRequest(state=state, events=[common_pb2.Event(type="x", json=b'{"type": "nope"}')])
    assert _status_code(lambda: stub.Apply(bad)) == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]


def test_legal_actions_are_listed_for_the_active_seat_only(client: RulesClient) -> None:
    state, _ = client.setup(2, 7)
    listed = [msgspec.json.decode(a) for a in client.legal_actions(state, 0)]
    assert {"type": "take", "count": 1} in listed
    assert client.legal_actions(state, 1) == []
    assert client.legal_actions(state, 9) == []


def test_views_and_events_are_filtered_for_their_viewer(client: RulesClient) -> None:
    state, _ = client.setup(2, 7)
    hand = GAME.codec.decode_state(state.state).hands[0]
    decision = client.validate(state, 0, msgspec.json.encode({"type": "play_card", "value": hand[0]}))
    assert isinstance(decision, Accepted) and decision.state
    own_view, own_events = client.view(decision.state, 0, decision.events)
    other_view, other_events = client.view(decision.state, 1, decision.events)
    spectator_view, _ = client.view(decision.state, None)
    dealt = [json.loads(e.json) for e in own_events if e.type == "card_dealt"][0]
    hidden = [json.loads(e.json) for e in other_events if e.type == "card_dealt"][0]
    assert dealt["value"] is not None and hidden["value"] is None
    assert json.loads(own_view)["hand"] is not None
    assert json.loads(other_view)["hand"] != json.loads(own_view)["hand"]
    assert json.loads(spectator_view)["hand"] is None
    assert _status_code(lambda: client.view(decision.state, 4)) == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[arg-type]


def test_health_reports_serving_and_reflection_lists_the_service(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest()).status == health_pb2.HealthCheckResponse.SERVING
        reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = reflect.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        )
        names = {s.name for reply in replies for s in reply.list_services_response.service}
    assert "guildhall.rules.v1.RulesService" in names


def test_logging_follows_stderr_when_it_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import structlog

    from services import observability

    at_setup, later = io.StringIO(), io.StringIO()
    monkeypatch.setattr(observability, "_configured", False)
    monkeypatch.setattr("sys.stderr", at_setup)
    observability.configure_logging("test")
    structlog.get_logger("probe").warning("first")
    monkeypatch.setattr("sys.stderr", later)  # e.g. the test runner's capture of the next test
    structlog.get_logger("probe").warning("second")
    assert "first" in at_setup.getvalue() and "second" not in at_setup.getvalue()
    assert "second" in later.getvalue()


def test_a_bug_in_the_rules_is_answered_internal_not_unknown() -> None:
    import dataclasses

    def broken_validate(state: object, player: int, action: object) -> list[object]:
        raise KeyError("a rules bug")

    with serving(dataclasses.replace(GAME, validate=broken_validate)) as client:
        state, _ = client.setup(2, 1)
        with pytest.raises(grpc.RpcError) as error:
            client.validate(state, 0, b'{"type": "take", "count": 1}')
    assert error.value.code() == grpc.StatusCode.INTERNAL
    assert "internal error in Validate" in (error.value.details() or "")
