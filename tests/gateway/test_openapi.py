"""The OpenAPI document (gateway/api/openapi.py, docs/api/openapi.json) is current, valid (openapi-spec-
validator and Redocly's lint), served by the gateway, and true: every path it lists is called on a
real stack (gateway, Redis, rules service; the state each call needs made first) and answers with a
status the document lists and a body its schema accepts, with every message object closed to
properties the document does not name."""

from __future__ import annotations

import copy
import json
import os
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from devstack.stack import LOCAL_TENANT, Stack
from gateway.api.openapi import DOCUMENT, document_json
from tests.gateway.conftest import http_stack

ROOT = Path(__file__).resolve().parents[2]
REDOCLY = ROOT / "tools" / "redocly" / "node_modules" / ".bin" / "redocly"  # make test installs it
RPC = "/guildhall.gateway.v1.GatewayService/"
GAME = "rattus_cartus"


def _document() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(DOCUMENT.read_text())
    return found


def test_the_committed_document_is_what_the_descriptors_give() -> None:
    assert DOCUMENT.read_bytes() == document_json(), "docs/api/openapi.json is stale: run `make openapi`"


def test_the_document_is_valid_openapi_3_1() -> None:
    document = _document()
    assert document["openapi"].startswith("3.1")
    validate(document)


def test_redocly_lints_the_document_clean() -> None:
    assert REDOCLY.exists(), "make test installs Redocly CLI (tools/redocly, npm ci)"
    env = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}
    linted = subprocess.run(
        [str(REDOCLY), "lint", "--format", "stylish", str(DOCUMENT)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert "warning" not in linted.stdout.lower(), linted.stdout


def test_every_rpc_the_http_port_serves_is_a_path_with_its_messages() -> None:
    from guildhall.gateway.v1 import gateway_pb2

    document = _document()
    service = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"]
    served = {m.name for m in service.methods if not m.client_streaming}
    assert {p.removeprefix(RPC) for p in document["paths"] if p.startswith(RPC)} == served
    schemas = document["components"]["schemas"]
    # proto3 JSON: camelCase names, 64-bit integers as strings, bytes as base64, enums by name.
    assert "legalActionsValue" in schemas["MatchView"]["properties"]
    assert schemas["MatchView"]["properties"]["version"]["type"] == "string"
    assert schemas["PublicKey"]["properties"]["ed25519"]["contentEncoding"] == "base64"
    assert schemas["Ticket.State"]["enum"][:2] == ["STATE_UNSPECIFIED", "QUEUED"]
    assert document["paths"][RPC + "GetPublicKeys"]["post"]["security"] == []
    assert {"seatToken": []} in document["paths"][RPC + "SubmitAction"]["post"]["security"]
    assert "Act for the token's seat" in document["paths"][RPC + "SubmitAction"]["post"]["summary"]


# -- every path, called -----------------------------------------------------------------------------


def _closed(node: Any) -> Any:
    """The schemas with every object that lists its properties closed: a field the gateway writes
    that the document does not name fails the check."""
    if isinstance(node, dict):
        out = {k: _closed(v) for k, v in node.items()}
        if out.get("type") == "object" and "properties" in out:
            out.setdefault("additionalProperties", False)
        return out
    if isinstance(node, list):
        return [_closed(v) for v in node]
    return node


class Checker:
    """Calls the stack and holds each answer to what the document says of its path."""

    def __init__(self, base: str, document: dict[str, Any]) -> None:
        self.http = httpx.Client(base_url=base, timeout=30.0)
        self.document = document
        self.components = _closed(copy.deepcopy(document["components"]))
        self.called: set[tuple[str, str]] = set()

    def check(self, schema: dict[str, Any], body: Any, where: str) -> None:
        validator = Draft202012Validator({**schema, "components": self.components})
        errors = sorted(validator.iter_errors(body), key=str)
        assert not errors, f"{where}: {errors[0].message} at {list(errors[0].absolute_path)}"

    def _operation(self, path: str, method: str, status: int) -> dict[str, Any]:
        operation: dict[str, Any] = self.document["paths"][path][method]
        self.called.add((path, method))
        responses = operation["responses"]
        assert str(status) in responses, (
            f"{method.upper()} {path} answered {status}, not in {sorted(responses)}"
        )
        response: dict[str, Any] = responses[str(status)]
        if "$ref" in response:
            response = self.document["components"]["responses"][response["$ref"].rsplit("/", 1)[-1]]
        return response

    def _answer(self, path: str, method: str, answer: httpx.Response) -> Any:
        response = self._operation(path, method, answer.status_code)
        kind = answer.headers.get("content-type", "").split(";")[0]
        content = response.get("content", {})
        assert kind in content, f"{path} answered {kind}, documented: {sorted(content)}"
        body = answer.json() if kind == "application/json" else answer.text
        self.check(content[kind]["schema"], body, f"{method.upper()} {path} {answer.status_code}")
        if answer.status_code == 200 and "x-request-id" in response.get("headers", {}):
            assert answer.headers.get("x-request-id"), f"{path}: no x-request-id"
        return body

    def rpc(self, rpc: str, credential: str | None, body: dict[str, Any], status: int = 200) -> Any:
        headers = {"x-request-id": f"openapi-{rpc}"}
        if credential:
            headers["authorization"] = f"Bearer {credential}"
        answer = self.http.post(RPC + rpc, json=body, headers=headers)
        assert answer.status_code == status, f"{rpc}: {answer.status_code} {answer.text}"
        if status == 200:
            assert answer.headers["x-request-id"] == f"openapi-{rpc}"  # echoed
        return self._answer(RPC + rpc, "post", answer)

    def stream(self, rpc: str, credential: str | None, body: dict[str, Any], messages: int) -> list[Any]:
        """A server stream over Connect: the request in its envelope, the first `messages` read (or
        with `messages` 0, the error its last envelope holds)."""
        path = RPC + rpc
        data = json.dumps(body).encode()
        headers = {"content-type": "application/connect+json"}
        if credential:
            headers["authorization"] = f"Bearer {credential}"
        read: list[Any] = []
        with self.http.stream(
            "POST", path, content=b"\0" + struct.pack(">I", len(data)) + data, headers=headers
        ) as answer:
            response = self._operation(path, "post", answer.status_code)
            schema = response["content"]["application/connect+json"]["schema"]["contentSchema"]
            buffer = b""
            for chunk in answer.iter_bytes():
                buffer += chunk
                while len(buffer) >= 5 and len(buffer) >= 5 + struct.unpack(">I", buffer[1:5])[0]:
                    size = struct.unpack(">I", buffer[1:5])[0]
                    flags, message = buffer[0], json.loads(buffer[5 : 5 + size])
                    buffer = buffer[5 + size :]
                    if flags & 2 and messages == 0:
                        self.check({"$ref": "#/components/schemas/ConnectError"}, message["error"], rpc)
                        return [message["error"]]
                    assert not flags & 2 or "error" not in message, f"{rpc} failed: {message}"
                    if not flags & 2:
                        self.check(schema, message, f"{rpc} stream message")
                        read.append(message)
                if len(read) >= messages:
                    break
        assert len(read) >= messages, f"{rpc}: {read}"
        return read

    def feed(self, path: str, url: str, credential: str) -> list[tuple[str, Any]]:
        """A Server-Sent Events feed read to its end: each event's name and data."""
        headers = {"authorization": f"Bearer {credential}"}
        with self.http.stream("GET", url, headers=headers) as answer:
            response = self._operation(path, "get", answer.status_code)
            assert answer.headers["content-type"].startswith("text/event-stream")
            events_schema = response["content"]["text/event-stream"]["x-sse-events"]
            text = "".join(answer.iter_text())
        events = []
        for block in text.strip().split("\n\n"):
            fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
            if "event" in fields:
                data = json.loads(fields["data"])
                self.check(events_schema[fields["event"]], data, f"{path} event {fields['event']}")
                events.append((fields["event"], data))
        return events

    def get(self, path: str, headers: dict[str, str] | None = None) -> Any:
        answer = self.http.get(path, headers=headers or {})
        return self._answer(path, "get", answer)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with http_stack(tmp_path_factory.mktemp("openapi"), [GAME]) as running:  # the local tenant's keys
        yield running


def test_every_path_in_the_document_answers_as_it_says(stack: Stack) -> None:
    document = _document()
    c = Checker(f"http://127.0.0.1:{stack.http_port}", document)
    key, page, operator, bots = stack.api_key, stack.publishable_key, stack.operator_key, stack.botworker_key

    # Games, keys and data: no state needed.
    games = c.rpc("ListGames", key, {})
    assert [g["gameId"] for g in games["games"]] == [GAME]
    assert c.rpc("GetPublicKeys", None, {})["keys"]
    assert c.rpc("GetGameData", key, {"game_id": GAME})["dataValue"]["game_id"] == GAME

    # A match, played, replayed, audited, exported and ended.
    created = c.rpc("CreateMatch", key, {"game_id": GAME, "players": ["ann", "bob"]})
    match, (ann, bob) = created["matchId"], [s["token"] for s in created["seats"]]
    view = c.rpc("GetView", ann, {"match_id": match})
    action = view["legalActionsValue"][0]
    accepted = c.rpc(
        "SubmitAction",
        ann,
        {"match_id": match, "command_id": "a1", "action_value": action, "return_view": True},
    )
    assert accepted["accepted"]["view"]["matchId"] == match
    # Issue 41: played on until a move may be taken back (one that revealed and drew nothing: the
    # server's seed decides which come first), then taken back; the other seat is refused.
    seats, mover, moved = (ann, bob), 0, accepted["accepted"]["view"]
    for number in range(2, 60):
        if moved["undoAvailable"]:
            break
        mover = c.rpc("GetView", key, {"match_id": match})["activeSeats"][0]
        legal = c.rpc("GetView", seats[mover], {"match_id": match})["legalActionsValue"][0]
        request = {"match_id": match, "command_id": f"a{number}", "action_value": legal, "return_view": True}
        moved = c.rpc("SubmitAction", seats[mover], request)["accepted"]["view"]
    assert moved["undoAvailable"], "no move that may be taken back in 60"
    refused = c.rpc("Undo", seats[1 - mover], {"match_id": match, "command_id": "u0"})
    assert refused["rejection"]["code"] == "cannot_undo"
    undone = c.rpc("Undo", seats[mover], {"match_id": match, "command_id": "u1"})
    assert [e["type"] for e in undone["accepted"]["events"]] == ["action_undone"]
    assert c.rpc("Replay", key, {"match_id": match, "version": 1})["version"] == "1"
    assert c.rpc("IssueToken", key, {"match_id": match, "seat": 0})["token"].startswith("ght1.")
    assert match in [m["matchId"] for m in c.rpc("ListMatches", key, {})["matches"]]
    first = c.stream("Watch", created["spectatorToken"], {"match_id": match}, messages=1)
    assert first[0]["view"]["matchId"] == match
    resigned = c.rpc("Resign", bob, {"match_id": match, "command_id": "b1"})
    assert [e["type"] for e in resigned["accepted"]["events"]][-1] == "match_ended"
    assert c.rpc("Audit", key, {"match_id": match})["ok"] is True
    assert c.rpc("ReadEvents", key, {"match_id": match})["events"][0]["type"] == "match_created"
    assert c.rpc("ExportMatch", key, {"match_id": match})["finished"] is True
    # The rules the match was played under, as the bundle an offline verifier loads (issue 40).
    version = view["rulesVersion"]
    bundle = c.rpc("GetRulesBundle", key, {"game_id": GAME, "rules_version": version})
    assert bundle["fileName"] == f"{GAME}-{version}.zip" and bundle["bundle"]
    feed = c.feed(
        "/v1/matches/{match_id}/watch", f"/v1/matches/{match}/watch?from_version=0", created["spectatorToken"]
    )
    assert feed[-1][0] == "end" and feed[-2][1]["view"]["finished"] is True

    # A private table opened with the page's key, a seat claimed.
    table = c.rpc("CreateTable", page, {"game_id": GAME, "seats": 2, "options_value": {}})
    claimed = c.rpc("ClaimSeat", key, {"invite_code": table["inviteCode"], "player_id": "cy"})
    assert claimed["matchId"] == table["matchId"] and claimed["seat"]["token"]
    # The seat moved to another device with its resume secret; the player says they are back.
    resumed = c.rpc("ResumeSeat", page, {"resume_secret": claimed["resumeSecret"]})
    assert resumed["seat"]["token"] and resumed["resumeSecret"] != claimed["resumeSecret"]
    c.rpc("ClaimSeat", key, {"invite_code": table["inviteCode"], "player_id": "dee"})
    back = c.rpc("ReturnToSeat", resumed["seat"]["token"], {"match_id": table["matchId"], "command_id": "r1"})
    assert back["rejection"]["code"] == "not_your_turn"  # nobody was playing for the seat

    # A ticket queued, read, followed and cancelled; its feed then ends.
    ticket = c.rpc("CreateTicket", key, {"game_id": GAME, "min_seats": 2, "player_id": "carol"})
    ticket_id = ticket["ticketId"]
    assert c.rpc("GetTicket", key, {"ticket_id": ticket_id})["state"] == "QUEUED"
    assert c.stream("WatchTicket", key, {"ticket_id": ticket_id}, messages=1)[0]["state"] == "QUEUED"
    assert c.rpc("CancelTicket", key, {"ticket_id": ticket_id})["state"] == "CANCELLED"
    ticket_feed = c.feed("/v1/tickets/{ticket_id}/watch", f"/v1/tickets/{ticket_id}/watch", key)
    assert [name for name, _ in ticket_feed] == ["ticket", "end"] and ticket_feed[0][1][
        "state"
    ] == "CANCELLED"

    # Ratings (the resigned match rated ann and bob), dead letters, platform bots.
    ratings = c.rpc("GetRatings", key, {"game_id": GAME, "player_ids": ["ann", "bob"]})["ratings"]
    assert {r["playerId"] for r in ratings} == {"ann", "bob"}
    assert len(c.rpc("ListLeaderboard", key, {"game_id": GAME})["ratings"]) == 2
    assert c.rpc("ListDeadLetters", operator, {"tenant": LOCAL_TENANT}) == {
        "deadLetters": [],
        "nextCursor": "",
    }
    assert c.rpc("ReplayDeadLetters", operator, {"tenant": LOCAL_TENANT, "all": True}) == {"replayed": 0}
    c.rpc("CreateMatch", key, {"game_id": GAME, "players": ["dana"], "bots": [{"seat": 1, "kind": "random"}]})
    leases = [s["leaseId"] for s in c.rpc("ClaimBotSeats", bots, {"worker": "w", "max_seats": 1})["seats"]]
    assert len(leases) == 1
    assert c.rpc("RenewBotSeats", bots, {"lease_ids": leases})["renewed"] == leases
    assert c.rpc("ReleaseBotSeats", bots, {"lease_ids": leases, "done": True}) == {}

    # The port's own paths.
    assert c.get("/healthz") == "ok\n"
    assert c.get("/config.json") == {"publishableKey": page}
    assert c.get("/openapi.json") == document

    # Errors as documented: a call without credentials, a feed without them, a bad field.
    for path, item in document["paths"].items():
        operation = item.get("post")
        if operation is None or not path.startswith(RPC):
            continue
        rpc = path.removeprefix(RPC)
        if "requestBody" in operation and "application/json" in operation["requestBody"]["content"]:
            if operation["security"]:
                c.rpc(rpc, None, {}, status=401)
            else:
                c.rpc(rpc, None, {"no_such_field": 1}, status=400)
        else:  # a server stream: with no credential at all, refused before it opens
            answer = c.http.post(
                path, content=b"\0\0\0\0\2{}", headers={"content-type": "application/connect+json"}
            )
            assert c._answer(path, "post", answer)["code"] == "unauthenticated" and answer.status_code == 401
            answer = c.http.post(
                path,
                content=b"{}",
                headers={"content-type": "application/connect+json", "authorization": f"Bearer {key}"},
            )
            c._answer(path, "post", answer)
            assert answer.status_code == 400
    answer = c.http.get(f"/v1/matches/{match}/watch")
    assert c._answer("/v1/matches/{match_id}/watch", "get", answer)["code"] == "unauthenticated"

    missing = {(p, m) for p, item in document["paths"].items() for m in item} - c.called
    assert not missing, f"paths of the document no test calls (add them here): {sorted(missing)}"
