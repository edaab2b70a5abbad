"""The Play stream (issue 25, item 1) as a client speaks it, raw protobuf over gRPC, against a
real gateway process with real Redis and the Rattus Cartus rules service: answers riding on the
updates, idempotent command ids, expected versions, receipts, resuming from a version, the scope
table, the per-action quota, hostile input (bad JSON, oversize, another seat's command id, huge
numbers, bytes that are not protobuf) and a draining gateway. The client library's resuming
stream across gateway restarts is in tests/clients/test_play_stream.py."""

from __future__ import annotations

import os
import queue
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from devstack.stack import Stack
from gateway.auth import hash_key
from guildhall_client.types import Receipt
from guildhall_client.verify import verify_receipt
from tests.gateway.conftest import ACME_KEY, bearer, private_database, tenants_document

GAME = "rattus_cartus"
SLOW_KEY = "ghk_slow-tenant-key-for-play-tests-00000000000"
INVALID, EXHAUSTED = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    document = tenants_document()
    document["tenants"]["slow"] = {
        "keys": [{"id": "slow-app", "sha256": hash_key(SLOW_KEY), "scopes": ["tenant"]}],
        "quotas": {"open_tickets": 2, "active_matches": 5, "actions_per_second": 2, "reads_per_second": 50},
    }
    previous = os.environ.get("REDIS_URL")
    os.environ["REDIS_URL"] = private_database(redis_url, 10)
    try:
        with Stack(
            [GAME],
            gateways=1,
            log_dir=tmp_path_factory.mktemp("play-logs"),
            tenants=document,
            gateway_env={"GRACE_SECONDS": "2"},
        ) as running:
            yield running
    finally:
        if previous is None:
            os.environ.pop("REDIS_URL", None)
        else:
            os.environ["REDIS_URL"] = previous


@pytest.fixture(scope="module")
def channel(stack: Stack) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(stack.gateway_targets[0]) as opened:
        yield opened


def _stub(channel: grpc.Channel) -> Any:
    return gateway_pb2_grpc.GatewayServiceStub(channel)


def _match(channel: grpc.Channel, key: str = ACME_KEY) -> Any:
    request = pb.CreateMatchRequest(game_id=GAME, players=["ann", "bob"])
    return _stub(channel).CreateMatch(request, metadata=bearer(key), timeout=30)


class Raw:
    """One Play stream: `send` a message, `recv` the next one (or the error that ended it)."""

    def __init__(self, channel: grpc.Channel, token: str | None, *, raw_bytes: bool = False) -> None:
        self.requests: queue.Queue[Any] = queue.Queue()
        self.responses: queue.Queue[Any] = queue.Queue()
        metadata = bearer(token) if token else None
        if raw_bytes:  # whatever bytes the test puts on the wire
            play = channel.stream_stream(
                "/guildhall.gateway.v1.GatewayService/Play",
                request_serializer=lambda data: data,
                response_deserializer=pb.PlayUpdate.FromString,
            )
        else:
            play = _stub(channel).Play
        self.call = play(iter(self.requests.get, None), metadata=metadata, timeout=60)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for message in self.call:
                self.responses.put(message)
            self.responses.put(None)  # ended OK
        except grpc.RpcError as error:
            self.responses.put(error)

    def send(self, message: Any) -> None:
        self.requests.put(message)

    def open(self, match_id: str, from_version: int = 0) -> None:
        self.send(pb.PlayRequest(open=pb.PlayOpen(match_id=match_id, from_version=from_version)))

    def act(self, action: bytes, command_id: str | None = None, expected_version: int | None = None) -> str:
        command_id = command_id or uuid.uuid4().hex
        message = pb.PlayAction(command_id=command_id, action=action)
        if expected_version is not None:
            message.expected_version = expected_version
        self.send(pb.PlayRequest(action=message))
        return command_id

    def recv(self, timeout: float = 30) -> Any:
        return self.responses.get(timeout=timeout)

    def answer(self) -> Any:
        """Messages until one carries an answer: (that message, every update before it)."""
        before = []
        while True:
            message = self.recv()
            assert isinstance(message, pb.PlayUpdate), message
            if message.HasField("answer"):
                return message, before
            before.append(message)

    def until_view(self) -> pb.MatchView:
        """Messages until one carries a view; that view."""
        while True:
            message = self.recv()
            assert isinstance(message, pb.PlayUpdate), message
            if message.HasField("view"):
                return message.view

    def ended_with(self) -> grpc.StatusCode | None:
        """The status the stream ended with (None: OK), skipping messages still coming."""
        while True:
            item = self.recv()
            if item is None:
                return None
            if isinstance(item, grpc.RpcError):
                return item.code()

    def close(self) -> None:
        self.requests.put(None)
        self.call.cancel()


@pytest.fixture
def raws() -> Iterator[list[Raw]]:
    opened: list[Raw] = []
    yield opened
    for stream in opened:
        stream.close()


def _open(channel: grpc.Channel, raws: list[Raw], token: str, match_id: str, from_version: int = 0) -> Raw:
    stream = Raw(channel, token)
    raws.append(stream)
    stream.open(match_id, from_version)
    return stream


def _keys(channel: grpc.Channel) -> dict[str, bytes]:
    response = _stub(channel).GetPublicKeys(pb.GetPublicKeysRequest(), timeout=10)
    return {k.key_id: k.ed25519 for k in response.keys}


def _turn(streams: list[Raw], views: list[pb.MatchView]) -> int:
    """The seat to act: the first whose view lists legal actions."""
    return next(seat for seat, view in enumerate(views) if view.legal_actions)


# -- playing ---------------------------------------------------------------------------------------


def test_each_answer_rides_on_the_update_that_reaches_its_version_and_every_seat_sees_it(
    channel: grpc.Channel, raws: list[Raw]
) -> None:
    created = _match(channel)
    streams = [_open(channel, raws, s.token, created.match_id) for s in created.seats]
    views = [stream.until_view() for stream in streams]
    keys = _keys(channel)
    delivered: list[list[int]] = [[], []]
    for _ in range(12):
        seat = _turn(streams, views)
        view = views[seat]
        command = streams[seat].act(view.legal_actions[-1], expected_version=view.version)
        message, before = streams[seat].answer()
        answer = message.answer
        assert answer.command_id == command and answer.HasField("accepted"), answer
        accepted = answer.accepted
        # The answer's own message carries the events up to its version and the view there.
        assert message.events[-1].version == accepted.version == message.view.version
        assert (message.view.seat, message.view.match_id) == (seat, created.match_id)
        receipt = Receipt.from_pb(accepted.receipt)
        assert receipt is not None and receipt.version == accepted.version
        assert verify_receipt(receipt, keys)
        delivered[seat] += [e.version for m in [*before, message] for e in m.events]
        views[seat] = message.view
        # The other seat is told too: its own update, with its view at that version.
        other = 1 - seat
        while views[other].version < accepted.version:
            update = streams[other].recv()
            assert not update.HasField("answer")
            delivered[other] += [e.version for e in update.events]
            if update.HasField("view"):
                assert update.view.seat == other
                views[other] = update.view
    for seat in (0, 1):  # every version once, in order, on both streams
        assert delivered[seat] == list(range(2, views[seat].version + 1))


def test_a_repeated_command_id_answers_alone_with_its_first_result(
    channel: grpc.Channel, raws: list[Raw]
) -> None:
    created = _match(channel)
    streams = [_open(channel, raws, s.token, created.match_id) for s in created.seats]
    views = [stream.until_view() for stream in streams]
    seat = _turn(streams, views)
    stream = streams[seat]
    stream.act(views[seat].legal_actions[0], command_id="once")
    first, _ = stream.answer()
    # Issue 39 item 11: another action under the same id is refused (ALREADY_EXISTS), not given
    # the first action's result; the same action again is a repeat.
    stream.act(views[seat].legal_actions[-1], command_id="once")
    reused, before = stream.answer()
    assert reused.answer.fault.code == grpc.StatusCode.ALREADY_EXISTS.value[0] and not before
    assert "another action" in reused.answer.fault.message
    again = stream.act(views[seat].legal_actions[0], command_id="once")
    repeat, before = stream.answer()
    assert again == "once" and not before
    assert repeat.answer.accepted.repeated and not first.answer.accepted.repeated
    assert repeat.answer.accepted.version == first.answer.accepted.version
    assert repeat.answer.accepted.receipt == first.answer.accepted.receipt
    assert not repeat.events and not repeat.HasField("view")  # already delivered: nothing twice
    # The same id from the other seat is refused, and nothing is written.
    other = streams[1 - seat]
    other.act(views[seat].legal_actions[0], command_id="once")  # well-formed, not its turn
    refused, _ = other.answer()
    assert refused.answer.rejection.code == "command_id_in_use", refused
    view = _stub(channel).GetView(
        pb.GetViewRequest(match_id=created.match_id), metadata=bearer(created.seats[0].token), timeout=10
    )
    assert view.version == first.answer.accepted.version


def test_a_stale_or_huge_expected_version_is_stale_version(channel: grpc.Channel, raws: list[Raw]) -> None:
    created = _match(channel)
    streams = [_open(channel, raws, s.token, created.match_id) for s in created.seats]
    views = [stream.until_view() for stream in streams]
    seat = _turn(streams, views)
    for expected in (0, views[seat].version + 1, 2**64 - 1):
        streams[seat].act(views[seat].legal_actions[0], expected_version=expected)
        message, _ = streams[seat].answer()
        assert message.answer.rejection.code == "stale_version", expected
    streams[seat].act(views[seat].legal_actions[0], expected_version=views[seat].version)
    message, _ = streams[seat].answer()
    assert message.answer.accepted.version > views[seat].version


def test_hostile_actions_are_answered_alone_and_the_stream_goes_on(
    channel: grpc.Channel, raws: list[Raw]
) -> None:
    created = _match(channel)
    streams = [_open(channel, raws, s.token, created.match_id) for s in created.seats]
    views = [stream.until_view() for stream in streams]
    seat = _turn(streams, views)
    stream = streams[seat]
    hostile = [
        (b"{not json", None, INVALID),
        (b"[1, 2, 3]", None, INVALID),
        (b'{"type": "choose_supply", "building": 100000000000000000000000000000}', None, INVALID),
        (b'{"type": "choose_supply", "building": 1e400}', None, INVALID),
        (b'{"type": "' + b"x" * (70 * 1024) + b'"}', None, EXHAUSTED),  # over 64 KiB, under 1 MiB
        (b"", None, INVALID),
        (views[seat].legal_actions[0], "has space", INVALID),
        (views[seat].legal_actions[0], "x" * 65, INVALID),
    ]
    for action, command_id, code in hostile:
        message = pb.PlayAction(command_id=command_id or uuid.uuid4().hex, action=action)
        stream.send(pb.PlayRequest(action=message))
        answer, before = stream.answer()
        assert not before and answer.answer.fault.code == code.value[0], (action[:60], answer.answer)
        assert answer.answer.fault.message
    # An unknown action type is the rules' answer: a rejection.
    stream.act(b'{"type": "fly_to_the_moon"}')
    unknown, _ = stream.answer()
    assert unknown.answer.rejection.code == "unknown_action"
    # Nothing was written, and the same stream still plays.
    stream.act(views[seat].legal_actions[0], expected_version=views[seat].version)
    accepted, _ = stream.answer()
    assert accepted.answer.accepted.version == views[seat].version + len(accepted.events)


def test_a_malformed_stream_ends_with_its_status(channel: grpc.Channel, raws: list[Raw]) -> None:
    created = _match(channel)
    token = created.seats[0].token
    # An action before `open`.
    first = Raw(channel, token)
    raws.append(first)
    first.act(b'{"type": "choose_supply"}')
    assert first.ended_with() == INVALID
    # A second `open`.
    twice = _open(channel, raws, token, created.match_id)
    twice.until_view()
    twice.open(created.match_id)
    assert twice.ended_with() == INVALID
    # Resuming from beyond the match's version (a huge number).
    beyond = _open(channel, raws, token, created.match_id, from_version=2**64 - 1)
    assert beyond.ended_with() == INVALID
    # Bytes that are not protobuf.
    garbage = Raw(channel, token, raw_bytes=True)
    raws.append(garbage)
    garbage.send(pb.PlayRequest(open=pb.PlayOpen(match_id=created.match_id)).SerializeToString())
    assert garbage.recv().HasField("view")
    garbage.send(b"\xff\xff\xff\xff\x0f")
    assert garbage.ended_with() == INVALID
    # A message over the transport's limit (1 MiB).
    huge = _open(channel, raws, token, created.match_id)
    huge.until_view()
    huge.act(b"x" * (2 * 1024 * 1024))
    assert huge.ended_with() == EXHAUSTED
    # The match took none of it.
    view = _stub(channel).GetView(
        pb.GetViewRequest(match_id=created.match_id), metadata=bearer(token), timeout=10
    )
    assert view.version == 1


def test_only_the_seat_token_of_the_match_may_play(channel: grpc.Channel, raws: list[Raw]) -> None:
    created, other = _match(channel), _match(channel)
    cases = [
        (None, grpc.StatusCode.UNAUTHENTICATED),
        ("ght1.forged.token", grpc.StatusCode.UNAUTHENTICATED),
        (created.spectator_token, grpc.StatusCode.PERMISSION_DENIED),
        (ACME_KEY, grpc.StatusCode.PERMISSION_DENIED),
        (other.seats[0].token, grpc.StatusCode.PERMISSION_DENIED),  # another match's seat
    ]
    for token, code in cases:
        stream = Raw(channel, token)
        raws.append(stream)
        stream.open(created.match_id)
        assert stream.ended_with() == code, token


def test_resuming_from_a_version_sends_the_rest_without_gap_or_duplicate(
    channel: grpc.Channel, raws: list[Raw]
) -> None:
    created = _match(channel)
    streams = [_open(channel, raws, s.token, created.match_id) for s in created.seats]
    views = [stream.until_view() for stream in streams]
    for _ in range(6):
        seat = _turn(streams, views)
        streams[seat].act(views[seat].legal_actions[0], expected_version=views[seat].version)
        message, _ = streams[seat].answer()
        views[seat] = message.view
        other = 1 - seat
        while views[other].version < views[seat].version:
            views[other] = streams[other].until_view()
    latest = views[0].version
    resumed = _open(channel, raws, created.seats[1].token, created.match_id, from_version=3)
    versions: list[int] = []
    while True:
        update = resumed.recv()
        versions += [e.version for e in update.events]
        if update.HasField("view"):
            assert update.view.version == latest
            break
    assert versions == list(range(4, latest + 1))


def test_over_the_action_quota_an_action_is_answered_alone_with_a_retry_hint(
    channel: grpc.Channel, raws: list[Raw]
) -> None:
    created = _match(channel, SLOW_KEY)  # 2 actions a second
    stream = _open(channel, raws, created.seats[0].token, created.match_id)
    view = stream.until_view()
    faults = []
    for _ in range(6):
        stream.act(view.legal_actions[0], expected_version=view.version)
        message, _ = stream.answer()
        if message.answer.HasField("fault"):
            faults.append(message.answer.fault)
    assert faults and all(f.code == EXHAUSTED.value[0] and f.retry_after_ms > 0 for f in faults)
    assert "quota" in faults[0].message
    # The stream is still open: the next message still answers.
    stream.act(b"{not json")
    message, _ = stream.answer()
    assert message.answer.HasField("fault") or message.answer.HasField("rejection")


def test_a_draining_gateway_ends_the_stream_ok(stack: Stack, channel: grpc.Channel, raws: list[Raw]) -> None:
    created = _match(channel)
    stream = _open(channel, raws, created.seats[0].token, created.match_id)
    stream.until_view()
    stack.stop_gateway()  # SIGTERM: the replica drains
    try:
        assert stream.ended_with() is None  # OK: the client opens it again elsewhere
    finally:
        stack.start_gateway()


# -- decisions and descriptions (issue 31) ------------------------------------------------------


def test_play_updates_carry_descriptions_and_the_views_decision(
    channel: grpc.Channel, raws: list[Raw]
) -> None:
    created = _match(channel)
    streams = [_open(channel, raws, s.token, created.match_id) for s in created.seats]
    first = streams[0].recv()
    assert first.events[0].type == "match_created"
    assert first.events[0].description.text == "The match begins with 2 players"
    views = [first.view if first.HasField("view") else streams[0].until_view(), streams[1].until_view()]
    for view in views:  # each seat owing a decision gets its own, over its own legal actions
        assert view.HasField("decision") == bool(view.legal_actions)
        if view.legal_actions:
            assert view.decision.seat == view.seat and view.decision.prompt
            assert sorted(o.action for o in view.decision.options) == list(range(len(view.legal_actions)))
    seat = _turn(streams, views)
    decision = views[seat].decision
    chosen = decision.options[-1].action
    streams[seat].act(views[seat].legal_actions[chosen], expected_version=views[seat].version)
    message, before = streams[seat].answer()
    events = [e for m in [*before, message] for e in m.events]
    assert events and all(e.description.key and e.description.text for e in events)
    assert all("{" not in e.description.text for e in events)
    if message.view.legal_actions:
        assert len(message.view.decision.options) == len(message.view.legal_actions)


# -- issue 39 item 12: the streams end with the match --------------------------------------------


def test_play_and_watch_streams_end_ok_after_the_update_that_ends_the_match(
    channel: grpc.Channel, raws: list[Raw]
) -> None:
    """As the SSE feed does: once the view showing the match finished is delivered, nothing can
    follow, so the stream ends OK there (before, Play and Watch stayed open until the client
    left or the gateway drained). A stream opened on a finished match ends after its catch-up."""
    created = _match(channel)
    ann, bob = (seat.token for seat in created.seats)
    stream = _open(channel, raws, ann, created.match_id)
    stream.until_view()
    watch = _stub(channel).Watch(pb.WatchRequest(match_id=created.match_id), metadata=bearer(ann), timeout=60)
    first = next(watch)
    assert first.HasField("view") and not first.view.finished
    _stub(channel).Resign(pb.ResignRequest(match_id=created.match_id, command_id="bye"), metadata=bearer(bob))

    assert stream.until_view().finished
    assert stream.ended_with() is None
    rest = list(watch)  # read to the stream's end: it ends (a DEADLINE_EXCEEDED here was the bug)
    assert rest and rest[-1].view.finished and rest[-1].events[-1].type == "match_ended"

    late = _open(channel, raws, bob, created.match_id)
    assert late.until_view().finished and late.ended_with() is None
    again = list(
        _stub(channel).Watch(pb.WatchRequest(match_id=created.match_id), metadata=bearer(ann), timeout=60)
    )
    assert again[-1].view.finished
