"""Property-based fuzzing (hypothesis) of the gateway's RPCs on a real stack: random bytes,
invalid UTF-8, deep nesting, huge numbers and strings, wrong types, unknown games and actions,
oversized messages, forged credentials, actions at a finished match and out of turn. Each gets
a precise answer (a Rejection with a known code, or a contract status), never INTERNAL or
UNKNOWN, never an unbounded echo of the input, and nothing is written."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc as pb_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devstack.stack import Stack
from services.kernel import CODES
from tests.reliability.gateway_helpers import Table, close_all, settle, tenant_clients

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
# What a malformed or unauthorised request may get; never INTERNAL, UNKNOWN or UNAVAILABLE.
CONTRACT_FAULTS = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.OUT_OF_RANGE,
}
MAX_ECHO = 1000

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.sampled_from(["joker", "sword", "x" * 5000, "\u0000", "\ud7ff\ue000"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
actions = st.one_of(
    st.binary(max_size=300),  # random bytes, invalid UTF-8 included
    st.builds(
        lambda kind, values: json.dumps({"type": kind, **values}).encode(),
        st.sampled_from(["enter_building", "choose_supply", "play_pass", "bid", "no_such_action"])
        | st.text(max_size=20),
        st.dictionaries(st.sampled_from(["building", "card", "player", "extra"]), json_values, max_size=3),
    ),
    st.builds(
        lambda depth: b'{"type":"play_pass","x":' + b"[" * depth + b"]" * depth + b"}", st.integers(50, 5000)
    ),
    st.builds(lambda n: b'{"type":"play_pass","x":"' + b"y" * n + b'"}', st.integers(60_000, 70_000)),
    st.builds(lambda raw: b'{"type":"play_card","card":"' + raw + b'"}', st.binary(min_size=1, max_size=8)),
)
ids = st.one_of(
    st.text(max_size=80),
    st.sampled_from(["", "a" * 65, "../../etc", "{acme:x}", "match:1", "m\u00e9"]),
)
command_ids = st.one_of(st.text(max_size=80), st.sampled_from(["", " ", "x" * 65, "c\n1"]))


# Every test starts on a settled stack: xdist may run a fault test of another module just before.
pytestmark = pytest.mark.usefixtures("healthy")


@dataclass
class Fixture:
    stack: Stack
    channel: grpc.Channel
    stub: pb_grpc.GatewayServiceStub
    tenant_key: str
    live: str  # a match where `idle_seat` is not to act
    idle_seat_token: str
    finished: str
    finished_seat_token: str
    versions: dict[str, int]


def metadata(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {credential}"),)


@pytest.fixture(scope="module")
def fx(stack: Stack) -> Iterator[Fixture]:
    settle(stack)  # a fault test on this worker may have just restarted Redis

    async def prepare() -> tuple[str, str, str, str]:
        (tenant, other) = tenant_clients(stack, retries=3)
        try:
            live = await Table.create(tenant, "rattus_cartus", 3, seed=21)
            while True:  # play into the entering phase, where one seat acts at a time
                view = await tenant.get_view(live.match_id)
                if len(view.active_seats) < 3:
                    break
                await live.play(1)
            idle = next(s for s in range(3) if s not in view.active_seats)
            done = await Table.create(tenant, "rattus_cartus", 2, seed=22)
            await done.seats[0].resign(done.match_id, command_id="bye")
            assert (await tenant.get_view(done.match_id)).finished
            return live.match_id, live.seats[idle].credential, done.match_id, done.seats[1].credential
        finally:
            await close_all(tenant, other)

    live, idle_token, finished, finished_token = asyncio.run(prepare())
    channel = grpc.insecure_channel(stack.gateway_targets[0])
    stub = pb_grpc.GatewayServiceStub(channel)
    key = stack.api_keys["acme"]
    versions = {
        m: stub.GetView(pb.GetViewRequest(match_id=m), metadata=metadata(key)).version
        for m in (live, finished)
    }
    yield Fixture(stack, channel, stub, key, live, idle_token, finished, finished_token, versions)
    channel.close()


def answer(call: Any) -> Any:
    """The response, or the RpcError after checking it is a precise contract fault."""
    try:
        return call()
    except grpc.RpcError as error:
        assert error.code() in CONTRACT_FAULTS, (error.code(), (error.details() or "")[:200])
        assert len(error.details() or "") < MAX_ECHO, "the error echoed the input"
        return error


def assert_nothing_written(fx: Fixture) -> None:
    for match_id, version in fx.versions.items():
        view = fx.stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=metadata(fx.tenant_key))
        assert view.version == version, f"{match_id} moved from v{version} to v{view.version}"


def check_submit_answer(response: Any) -> None:
    if isinstance(response, grpc.RpcError):
        return
    assert response.HasField("rejection"), "an action no seat could take was accepted"
    assert response.rejection.code in CODES
    assert len(response.rejection.message) < MAX_ECHO


@FUZZ
@given(action=actions, command_id=command_ids, expected=st.none() | st.integers(0, 2**64 - 1))
def test_any_action_out_of_turn_or_at_a_finished_match_is_refused_precisely(
    fx: Fixture, action: bytes, command_id: str, expected: int | None
) -> None:
    for match_id, token in ((fx.live, fx.idle_seat_token), (fx.finished, fx.finished_seat_token)):
        request = pb.SubmitActionRequest(match_id=match_id, action=action, command_id=command_id)
        if expected is not None:
            request.expected_version = expected
        check_submit_answer(answer(lambda r=request, t=token: fx.stub.SubmitAction(r, metadata=metadata(t))))
    assert_nothing_written(fx)


@FUZZ
@given(match_id=ids, action=actions, command_id=command_ids)
def test_any_match_id_or_command_id_gets_a_precise_answer(
    fx: Fixture, match_id: str, action: bytes, command_id: str
) -> None:
    request = pb.SubmitActionRequest(match_id=match_id, action=action, command_id=command_id)
    check_submit_answer(answer(lambda: fx.stub.SubmitAction(request, metadata=metadata(fx.idle_seat_token))))
    for call in (
        lambda: fx.stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=metadata(fx.tenant_key)),
        lambda: fx.stub.Audit(pb.AuditRequest(match_id=match_id), metadata=metadata(fx.tenant_key)),
        lambda: fx.stub.Replay(
            pb.ReplayRequest(match_id=match_id, version=3), metadata=metadata(fx.tenant_key)
        ),
        lambda: fx.stub.ReadEvents(pb.ReadEventsRequest(match_id=match_id), metadata=metadata(fx.tenant_key)),
    ):
        answer(call)
    assert_nothing_written(fx)


@FUZZ
@given(
    # What an HTTP/2 header value may carry (grpc refuses anything else before sending it).
    credential=st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=300)
    | st.sampled_from(["ghk_" + "A" * 43, "ght1.a.b.c", "ght1....", "ght1." + "x" * 5000])
)
def test_forged_or_garbled_credentials_are_unauthenticated(fx: Fixture, credential: str) -> None:
    if credential in (fx.tenant_key, fx.idle_seat_token, fx.finished_seat_token):
        return
    try:
        creds = metadata(credential)
        fx.stub.GetView(pb.GetViewRequest(match_id=fx.live), metadata=creds)
    except ValueError:
        return  # not sendable as a header value at all: grpc refuses it client-side
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.UNAUTHENTICATED, (error.code(), error.details())
        assert len(error.details() or "") < MAX_ECHO
        return
    raise AssertionError("a forged credential was accepted")


@FUZZ
@given(
    game=st.text(max_size=40) | st.sampled_from(["rattus_cartus", "ys"]),
    players=st.lists(ids, max_size=8),
    options=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()),
)
def test_create_match_with_any_game_players_or_options_gets_a_precise_answer(
    fx: Fixture, game: str, players: list[str], options: bytes
) -> None:
    request = pb.CreateMatchRequest(game_id=game, players=players, options=options)
    answer(lambda: fx.stub.CreateMatch(request, metadata=metadata(fx.tenant_key)))


@FUZZ
@given(
    method=st.sampled_from(
        ["GetView", "SubmitAction", "Resign", "CreateMatch", "Audit", "Replay", "ReadEvents", "ListMatches"]
    ),
    raw=st.binary(max_size=300),
)
def test_protobuf_garbage_gets_a_precise_answer(fx: Fixture, method: str, raw: bytes) -> None:
    call = fx.channel.unary_unary(f"/guildhall.gateway.v1.GatewayService/{method}")
    answer(lambda: call(raw, metadata=metadata(fx.idle_seat_token)))
    assert_nothing_written(fx)


def test_an_oversized_request_is_resource_exhausted_and_writes_nothing(fx: Fixture) -> None:
    huge = b'{"type":"play_pass","x":"' + b"z" * (2 * 1024 * 1024) + b'"}'
    request = pb.SubmitActionRequest(match_id=fx.live, action=huge, command_id="huge")
    error = answer(lambda: fx.stub.SubmitAction(request, metadata=metadata(fx.idle_seat_token)))
    assert isinstance(error, grpc.RpcError) and error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert_nothing_written(fx)


def message_strategy(descriptor: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Random messages of any type in the gateway's proto, built from its descriptor: every
    field filled or left out, with values of the right wire type but any content."""
    from google.protobuf import message_factory
    from google.protobuf.descriptor import FieldDescriptor as F

    cls = message_factory.GetMessageClass(descriptor)

    def value(field: Any) -> st.SearchStrategy[Any]:
        kind = field.type
        if kind == F.TYPE_STRING:
            return st.text(max_size=70) | st.sampled_from(["", "x" * 5000, "rattus_cartus", "ys", "acme"])
        if kind == F.TYPE_BYTES:
            return actions
        if kind == F.TYPE_BOOL:
            return st.booleans()
        if kind in (F.TYPE_DOUBLE, F.TYPE_FLOAT):
            return st.floats(allow_nan=True, allow_infinity=True, width=64 if kind == F.TYPE_DOUBLE else 32)
        if kind == F.TYPE_ENUM:
            return st.sampled_from([v.number for v in field.enum_type.values])
        if kind == F.TYPE_MESSAGE:
            return message_strategy(field.message_type, depth + 1) if depth < 2 else st.just(None)
        if kind in (F.TYPE_UINT32, F.TYPE_FIXED32):
            return st.integers(0, 2**32 - 1)
        if kind in (F.TYPE_UINT64, F.TYPE_FIXED64):
            return st.integers(0, 2**64 - 1)
        if kind in (F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32):
            return st.integers(-(2**31), 2**31 - 1)
        return st.integers(-(2**63), 2**63 - 1)

    def build(values: dict[str, Any]) -> Any:
        message = cls()
        for name, item in values.items():
            field = descriptor.fields_by_name[name]
            if item is None:
                continue
            if field.is_repeated:
                if field.type == F.TYPE_MESSAGE and field.message_type.GetOptions().map_entry:
                    continue  # maps: none in requests
                target = getattr(message, name)
                for element in item:
                    if element is None:
                        continue
                    target.add().CopyFrom(element) if field.type == F.TYPE_MESSAGE else target.append(element)
            elif field.type == F.TYPE_MESSAGE:
                getattr(message, name).CopyFrom(item)
            else:
                setattr(message, name, item)
        return message

    fields = {
        f.name: (st.lists(value(f), max_size=3) if f.is_repeated else value(f)) for f in descriptor.fields
    }
    return st.fixed_dictionaries({}, optional=fields).map(build)


SERVICE = pb.DESCRIPTOR.services_by_name["GatewayService"]


@FUZZ
@given(
    data=st.data(),
    method=st.sampled_from(list(SERVICE.methods)),
    who=st.sampled_from(["key", "seat", "spectator"]),
)
def test_every_rpc_with_random_fields_gets_a_precise_answer(
    fx: Fixture, data: Any, method: Any, who: str
) -> None:
    request = data.draw(message_strategy(method.input_type))
    credential = {"key": fx.tenant_key, "seat": fx.idle_seat_token, "spectator": fx.finished_seat_token}[who]
    path = f"/{SERVICE.full_name}/{method.name}"
    if method.server_streaming:
        call = fx.channel.unary_stream(path)

        def first() -> Any:
            stream = call(request.SerializeToString(), metadata=metadata(credential), timeout=3)
            try:
                return next(iter(stream), None)
            finally:
                stream.cancel()

        try:
            first()
        except grpc.RpcError as error:
            if error.code() not in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED):
                assert error.code() in CONTRACT_FAULTS, (
                    method.name,
                    error.code(),
                    (error.details() or "")[:200],
                )
                assert len(error.details() or "") < MAX_ECHO
    else:
        call = fx.channel.unary_unary(path)
        answer(lambda: call(request.SerializeToString(), metadata=metadata(credential), timeout=10))
    assert_nothing_written(fx)
