"""Issue 33 over a real stack: the game's JSON as JSON values over HTTP JSON (and bytes only in
binary answers), live feeds as Server-Sent Events on a GET, and every wrong shape answered with a
Connect error body that names the field and the form it expects. Raw http.client calls: the test
checks the wire a curl user sees."""

from __future__ import annotations

import http.client
import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from devstack.stack import Stack, TenantSpec
from gateway.api import jsonfields

GAME = "rattus_cartus"
PATH = "/guildhall.gateway.v1.GatewayService/"
PER_TOKEN = 2


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("httpjson")
    with Stack(
        [GAME],
        gateways=1,
        tenants=(TenantSpec("acme"), TenantSpec("globex")),
        work_dir=work,
        log_dir=work / "logs",
        gateway_env={
            "HTTP_PORT": "any",
            "MAX_STREAMS_PER_TOKEN": str(PER_TOKEN),
            "GRACE_SECONDS": "2",
        },
        start_timeout_s=60.0,
    ) as running:
        yield running


@pytest.fixture(scope="module")
def rpc(stack: Stack) -> Iterator[gateway_pb2_grpc.GatewayServiceStub]:
    channel = grpc.insecure_channel(stack.gateway_targets[0])
    yield gateway_pb2_grpc.GatewayServiceStub(channel)
    channel.close()


def post(
    stack: Stack,
    rpc: str,
    body: bytes | dict[str, Any],
    credential: str | None = None,
    content_type: str = "application/json",
    path: str | None = None,
) -> tuple[int, dict[str, str], bytes]:
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    headers = {"content-type": content_type}
    if credential:
        headers["authorization"] = f"Bearer {credential}"
    connection = http.client.HTTPConnection("127.0.0.1", stack.http_port, timeout=30)
    try:
        connection.request("POST", path or PATH + rpc, data, headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def call(stack: Stack, rpc: str, body: dict[str, Any], credential: str) -> dict[str, Any]:
    status, _, data = post(stack, rpc, body, credential)
    assert status == 200, (rpc, status, data)
    answer: dict[str, Any] = json.loads(data)
    return answer


def new_match(stack: Stack) -> tuple[dict[str, Any], dict[str, Any]]:
    """A match made over JSON, and the answer of GetView for a seat that may act now."""
    key = stack.api_keys["acme"]
    match = call(stack, "CreateMatch", {"game_id": GAME, "players": ["ann", "bob"], "options_value": {}}, key)
    for seat in match["seats"]:
        view = call(stack, "GetView", {"match_id": match["matchId"]}, seat["token"])
        if seat.get("seat", 0) in view["activeSeats"]:
            return match, {**view, "token": seat["token"]}
    raise AssertionError("nobody may act")


# -- item 1: JSON values over HTTP JSON, bytes only in binary ------------------------------------


def test_every_value_field_of_the_contract_has_its_bytes_twin() -> None:
    found = jsonfields.value_fields(pb.DESCRIPTOR.message_types_by_name.values())
    declared = {name: [value for _, value, _ in pairs] for name, pairs in jsonfields.PAIRS.items()}
    assert found == declared
    for name, pairs in jsonfields.PAIRS.items():
        descriptor = pb.DESCRIPTOR.message_types_by_name[name.rsplit(".", 1)[1]]
        for raw, _, _ in pairs:
            assert descriptor.fields_by_name[raw].type == descriptor.fields_by_name[raw].TYPE_BYTES


def test_http_json_reads_and_writes_the_games_json_as_json(stack: Stack, rpc: Any) -> None:
    match, view = new_match(stack)
    assert isinstance(view["viewValue"], dict) and "view" not in view
    assert all(isinstance(a, dict) and "type" in a for a in view["legalActionsValue"])
    assert "legalActions" not in view
    action = view["legalActionsValue"][0]
    answer = call(
        stack,
        "SubmitAction",
        {"match_id": match["matchId"], "command_id": "c1", "action_value": action, "return_view": True},
        view["token"],
    )
    accepted = answer["accepted"]
    assert all(isinstance(e["data"], dict) and "json" not in e for e in accepted["events"])
    assert accepted["events"][-1]["data"]["type"] == accepted["events"][-1]["type"]
    assert isinstance(accepted["view"]["viewValue"], dict)
    games = call(stack, "ListGames", {}, stack.api_keys["acme"])
    assert isinstance(games["games"][0]["defaultOptionsValue"], dict)
    data = call(stack, "GetGameData", {"game_id": GAME}, stack.api_keys["acme"])
    assert isinstance(data["dataValue"], dict) and "data" not in data
    events = call(stack, "ReadEvents", {"match_id": match["matchId"]}, stack.api_keys["acme"])
    assert all(isinstance(e["payloadValue"], dict) for e in events["events"])
    replay = call(stack, "Replay", {"match_id": match["matchId"], "version": 1}, stack.api_keys["acme"])
    assert isinstance(replay["viewValue"], dict)
    # The older form still works over JSON: base64 of the JSON's bytes.
    import base64

    for seat in match["seats"]:
        legal = call(stack, "GetView", {"match_id": match["matchId"]}, seat["token"])
        if legal.get("legalActionsValue"):
            encoded = base64.b64encode(json.dumps(legal["legalActionsValue"][0]).encode()).decode()
            again = call(
                stack,
                "SubmitAction",
                {"match_id": match["matchId"], "command_id": "c2", "action": encoded},
                seat["token"],
            )
            assert "accepted" in again, again
            break
    else:
        raise AssertionError("nobody may act")


def test_binary_answers_carry_the_bytes_only_and_binary_requests_may_send_values(
    stack: Stack, rpc: Any
) -> None:
    match, view = new_match(stack)
    status, _, data = post(
        stack,
        "GetView",
        pb.GetViewRequest(match_id=match["matchId"]).SerializeToString(),
        view["token"],
        "application/proto",
    )
    assert status == 200
    answer = pb.MatchView.FromString(data)
    assert answer.view and answer.legal_actions
    assert not answer.HasField("view_value") and not answer.legal_actions_value
    grpc_view = rpc.GetView(
        pb.GetViewRequest(match_id=match["matchId"]), metadata=[("authorization", f"Bearer {view['token']}")]
    )
    assert not grpc_view.HasField("view_value") and grpc_view.view == answer.view
    # gRPC: action_value accepted, both fields refused.
    request = pb.SubmitActionRequest(match_id=match["matchId"], command_id="v1")
    request.action_value.struct_value.update(json.loads(grpc_view.legal_actions[0]))
    both = pb.SubmitActionRequest()
    both.CopyFrom(request)
    both.action = grpc_view.legal_actions[0]
    with pytest.raises(grpc.RpcError) as refused:
        rpc.SubmitAction(both, metadata=[("authorization", f"Bearer {view['token']}")])
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "action and action_value" in refused.value.details()
    answer2 = rpc.SubmitAction(request, metadata=[("authorization", f"Bearer {view['token']}")])
    assert answer2.HasField("accepted"), answer2


# -- item 3: errors that teach ---------------------------------------------------------------------


WRONG_SHAPES = [
    # (name, rpc, body, content type, HTTP status, what the message must say)
    (
        "action as an object",
        "SubmitAction",
        b'{"match_id": "m1", "command_id": "c", "action": {"type": "x"}}',
        "application/json",
        400,
        "action is base64 of JSON bytes in this field; send action_value with the JSON itself",
    ),
    (
        "action as a plain string",
        "SubmitAction",
        b'{"match_id": "m1", "command_id": "c", "action": "enter_building"}',
        "application/json",
        400,
        "send action_value with the JSON itself",
    ),
    (
        "action_value not an object",
        "SubmitAction",
        b'{"match_id": "m1", "command_id": "c", "action_value": "pass"}',
        "application/json",
        400,
        'action_value must be a JSON object like {"type": ',
    ),
    (
        "both action fields",
        "SubmitAction",
        b'{"match_id": "m1", "action": "e30=", "action_value": {"type": "x"}}',
        "application/json",
        400,
        "send one",
    ),
    (
        "options as an object",
        "CreateMatch",
        b'{"game_id": "rattus_cartus", "options": {}}',
        "application/json",
        400,
        "options is base64 of JSON bytes in this field; send options_value",
    ),
    (
        "options_value an array",
        "CreateMatch",
        b'{"game_id": "rattus_cartus", "options_value": []}',
        "application/json",
        400,
        "options_value must be a JSON object",
    ),
    (
        "a number for a string",
        "GetView",
        b'{"match_id": 12}',
        "application/json",
        400,
        "match_id must be a string, not a number",
    ),
    (
        "a string for a boolean",
        "SubmitAction",
        b'{"return_view": "yes"}',
        "application/json",
        400,
        "return_view must be true or false",
    ),
    (
        "a word for a version",
        "Replay",
        b'{"match_id": "m", "version": "latest"}',
        "application/json",
        400,
        "version must be an integer",
    ),
    (
        "a string for a list",
        "CreateMatch",
        b'{"players": "ann"}',
        "application/json",
        400,
        "players must be a JSON array",
    ),
    (
        "an unknown field",
        "GetView",
        b'{"match": "m1"}',
        "application/json",
        400,
        "match is not a field of GetViewRequest (its fields: match_id)",
    ),
    (
        "an unknown nested field",
        "CreateMatch",
        b'{"turn_timer": {"secs": 3}}',
        "application/json",
        400,
        "turn_timer.secs is not a field of TurnTimer",
    ),
    ("invalid UTF-8", "GetView", b'{"match_id": "\xff\xfe"}', "application/json", 400, "not UTF-8"),
    ("not JSON", "GetView", b'{"match_id": ', "application/json", 400, "is not JSON"),
    (
        "a JSON array body",
        "GetView",
        b'["m1"]',
        "application/json",
        400,
        "must be a JSON object of its fields",
    ),
    ("deep nesting", "GetView", b"[" * 20000 + b"]" * 20000, "application/json", 400, "nests too deeply"),
    (
        "deep action",
        "SubmitAction",
        b'{"action_value": {"a": ' + b"[" * 100 + b"]" * 100 + b"}}",
        "application/json",
        400,
        "action_value nests deeper than 64 levels",
    ),
    (
        "Watch as application/json",
        "Watch",
        b'{"match_id": "m1"}',
        "application/json",
        415,
        "Watch is a server stream: POST it with content-type application/connect+json",
    ),
    (
        "Watch unframed",
        "Watch",
        b'{"match_id": "m1"}',
        "application/connect+json",
        400,
        "Watch's request is JSON with no envelope",
    ),
    (
        "a unary call enveloped",
        "GetView",
        b"\x00\x00\x00\x00\x02{}",
        "application/connect+json",
        415,
        "GetView is a unary call",
    ),
    (
        "a content type nobody reads",
        "GetView",
        b"match_id=m1",
        "application/x-www-form-urlencoded",
        415,
        "send application/json or application/proto",
    ),
    (
        "an RPC that does not exist",
        "GetMatch",
        b"{}",
        "application/json",
        404,
        "GatewayService has no RPC named 'GetMatch'",
    ),
]


@pytest.mark.parametrize("shape", WRONG_SHAPES, ids=[s[0] for s in WRONG_SHAPES])
def test_each_wrong_shape_is_named_with_the_form_it_expects(stack: Stack, shape: tuple[Any, ...]) -> None:
    _, rpc_name, body, content_type, status, expected = shape
    key = stack.api_keys["acme"]
    got, headers, data = post(stack, rpc_name, body, key, content_type)
    assert got == status, (got, data)
    assert headers["content-type"] == "application/json"
    error = json.loads(data)
    assert set(error) >= {"code", "message"}
    assert expected in error["message"], error
    for leak in ("Traceback", "operand", "'dict'", "codec can't", "Failed to parse", "(byte 0)"):
        assert leak not in error["message"]


def test_every_http_error_has_a_connect_error_body(stack: Stack) -> None:
    port = stack.http_port
    for method, path in (
        ("GET", "/nothing/here"),
        ("GET", "/v1/matches"),
        ("POST", "/v1/matches/m/watch"),
        ("GET", "/v1/matches/m/watch"),
    ):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request(method, path)
        response = connection.getresponse()
        body = json.loads(response.read())
        connection.close()
        assert response.status >= 400 and response.getheader("content-type") == "application/json"
        assert body["code"] and body["message"], (path, body)


# -- item 2: live feeds as Server-Sent Events ----------------------------------------------------


class Feed:
    """A raw SSE reader over a socket: events as (id, event, data dict)."""

    def __init__(
        self, stack: Stack, path: str, credential: str | None, headers: dict[str, str] | None = None
    ) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", stack.http_port, timeout=30)
        all_headers = {**({"authorization": f"Bearer {credential}"} if credential else {}), **(headers or {})}
        self.connection.request("GET", path, headers=all_headers)
        self.response = self.connection.getresponse()

    def next(self) -> tuple[str | None, str, dict[str, Any]]:
        fields: dict[str, str] = {}
        while True:
            line = self.response.readline().decode().rstrip("\n")
            if not line:
                if "data" in fields:
                    return fields.get("id"), fields.get("event", "message"), json.loads(fields["data"])
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(": ")
            fields[name] = value

    def close(self) -> None:
        with_socket = self.connection.sock
        if with_socket is not None:
            with_socket.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def test_a_match_can_be_followed_live_with_a_get_and_resumed_with_last_event_id(stack: Stack) -> None:
    match, view = new_match(stack)
    match_id, version = match["matchId"], int(view["version"])
    feed = Feed(stack, f"/v1/matches/{match_id}/watch?from_version=0", match["spectatorToken"])
    assert feed.response.status == 200
    assert feed.response.getheader("content-type").startswith("text/event-stream")
    first_id, kind, first = feed.next()
    assert kind == "update" and first_id == str(version)
    assert first["events"][0]["type"] == "match_created" and isinstance(first["events"][0]["data"], dict)
    assert isinstance(first["view"]["viewValue"], dict)
    answer = call(
        stack,
        "SubmitAction",
        {"match_id": match_id, "command_id": "live", "action_value": view["legalActionsValue"][0]},
        view["token"],
    )
    new_version = int(answer["accepted"]["version"])
    live_id, _, live = feed.next()
    assert live_id == str(new_version) and int(live["events"][-1]["version"]) == new_version
    feed.close()
    # Resume from the first id: the same update again, nothing before it.
    again = Feed(
        stack, f"/v1/matches/{match_id}/watch", match["spectatorToken"], {"Last-Event-ID": str(version)}
    )
    resumed_id, _, resumed = again.next()
    assert resumed_id == str(new_version)
    assert [e["version"] for e in resumed["events"]] == [e["version"] for e in live["events"]]
    again.close()


def test_a_feed_is_authenticated_and_refused_with_connect_errors(stack: Stack) -> None:
    match, _ = new_match(stack)
    path = f"/v1/matches/{match['matchId']}/watch"
    for credential, status, code in (
        (None, 401, "unauthenticated"),
        ("ghk_wrong", 401, "unauthenticated"),
        (stack.api_keys["globex"], 404, "not_found"),  # another tenant's match
    ):
        feed = Feed(stack, path, credential)
        assert feed.response.status == status
        assert json.loads(feed.response.read())["code"] == code
        feed.close()
    bad = Feed(stack, path + "?from_version=-1", stack.api_keys["acme"])
    assert bad.response.status == 400 and "from_version" in json.loads(bad.response.read())["message"]


def test_feeds_are_held_to_the_stream_caps(stack: Stack) -> None:
    match, view = new_match(stack)
    path = f"/v1/matches/{match['matchId']}/watch"
    held = [Feed(stack, path, view["token"]) for _ in range(PER_TOKEN)]
    for feed in held:
        assert feed.response.status == 200
        feed.next()
    over = Feed(stack, path, view["token"])
    assert over.response.status == 429
    assert "MAX_STREAMS_PER_TOKEN" in json.loads(over.response.read())["message"]
    over.close()
    held.pop().close()
    deadline = time.monotonic() + 10
    while True:  # its place is given back once the gateway sees it gone
        again = Feed(stack, path, view["token"])
        if again.response.status == 200 or time.monotonic() > deadline:
            break
        again.response.read()
        again.close()
        time.sleep(0.2)
    assert again.response.status == 200
    again.close()
    for feed in held:
        feed.close()


def test_a_ticket_can_be_followed_until_it_is_matched(stack: Stack) -> None:
    key = stack.api_keys["acme"]
    ticket = call(
        stack, "CreateTicket", {"game_id": GAME, "min_seats": 2, "player_id": "t1", "options_value": {}}, key
    )
    feed = Feed(stack, f"/v1/tickets/{ticket['ticketId']}/watch", key)
    assert feed.response.status == 200, (ticket, feed.response.read())
    _, kind, first = feed.next()
    assert kind == "ticket" and first["state"] == "QUEUED"
    call(stack, "CreateTicket", {"game_id": GAME, "min_seats": 2, "player_id": "t2"}, key)
    result: dict[str, Any] = {}

    def read() -> None:
        while True:
            _, kind, data = feed.next()
            if kind != "ticket" or data["state"] != "QUEUED":
                result["last"] = (kind, data)
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(30)
    kind, data = result["last"]
    assert kind == "ticket" and data["state"] == "MATCHED" and data["seatToken"].startswith("ght1.")
    feed.close()


def test_connect_streams_still_carry_json_values(stack: Stack) -> None:
    match, view = new_match(stack)
    payload = json.dumps({"match_id": match["matchId"]}).encode()
    connection = http.client.HTTPConnection("127.0.0.1", stack.http_port, timeout=30)
    connection.request(
        "POST",
        PATH + "Watch",
        struct.pack(">BI", 0, len(payload)) + payload,
        {"content-type": "application/connect+json", "authorization": f"Bearer {view['token']}"},
    )
    response = connection.getresponse()
    assert response.status == 200
    _, length = struct.unpack(">BI", response.read(5))
    first = json.loads(response.read(length))
    connection.close()
    assert isinstance(first["view"]["viewValue"], dict) and "view" not in first["view"]
