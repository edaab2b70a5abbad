"""Isolation attacks on a real gateway: every match-scoped RPC called with another tenant's key,
a token of another match, a spectator token trying to act, expired, forged and foreign-signed
tokens, and no credentials at all. Another tenant's match is NOT_FOUND with exactly the answer
a match that does not exist gets (no hint), a valid credential without the right is
PERMISSION_DENIED, bad credentials are UNAUTHENTICATED, and nothing is written."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc as pb_grpc

from devstack.stack import Stack
from gateway.auth import Tokens
from gateway.signing import KeyRing
from tests.reliability.gateway_helpers import Table, close_all, settle, tenant_clients

NO_SUCH_MATCH = "no-such-match-0001"


# Every test starts on a settled stack: xdist may run a fault test of another module just before.
pytestmark = pytest.mark.usefixtures("healthy")


@dataclass
class World:
    stub: pb_grpc.GatewayServiceStub
    acme_key: str
    rival_key: str
    match_id: str  # acme's
    rival_match_id: str
    seat0: str
    seat1: str
    spectator: str
    rival_seat0: str
    ticket_id: str
    expired: str
    forged: str
    foreign: str
    version: int


def credentials(credential: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {credential}"),) if credential else ()


def match_rpcs(stub: pb_grpc.GatewayServiceStub, match_id: str) -> dict[str, Callable[[Any], Any]]:
    """Each match-scoped RPC, called with the given metadata."""

    def first(stream: Any) -> Any:
        for message in stream:
            return message
        return None

    action = json.dumps({"type": "choose_supply", "building": 0}).encode()
    return {
        "GetView": lambda md: stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=md, timeout=10),
        "SubmitAction": lambda md: stub.SubmitAction(
            pb.SubmitActionRequest(match_id=match_id, action=action, command_id="attack"),
            metadata=md,
            timeout=10,
        ),
        "Resign": lambda md: stub.Resign(
            pb.ResignRequest(match_id=match_id, command_id="attack"), metadata=md, timeout=10
        ),
        "Undo": lambda md: stub.Undo(
            pb.UndoRequest(match_id=match_id, command_id="attack"), metadata=md, timeout=10
        ),
        "Watch": lambda md: first(stub.Watch(pb.WatchRequest(match_id=match_id), metadata=md, timeout=10)),
        "Replay": lambda md: stub.Replay(
            pb.ReplayRequest(match_id=match_id, version=1), metadata=md, timeout=10
        ),
        "Audit": lambda md: stub.Audit(pb.AuditRequest(match_id=match_id), metadata=md, timeout=30),
        "ReadEvents": lambda md: stub.ReadEvents(
            pb.ReadEventsRequest(match_id=match_id), metadata=md, timeout=10
        ),
        "IssueToken": lambda md: stub.IssueToken(
            pb.IssueTokenRequest(match_id=match_id), metadata=md, timeout=10
        ),
    }


def status_of(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    try:
        response = call()
    except grpc.RpcError as error:
        return error.code(), error.details() or ""
    rejection = getattr(response, "rejection", None)
    if rejection is not None and response.HasField("rejection"):
        return grpc.StatusCode.OK, f"rejected:{rejection.code}"
    return grpc.StatusCode.OK, "answered"


@pytest.fixture(scope="module")
def world(stack: Stack) -> Iterator[World]:
    settle(stack)  # a fault test on this worker may have just restarted Redis

    async def prepare() -> tuple[Table, Table]:
        (acme, _) = tenant_clients(stack, "acme", retries=3)
        (rival, _r) = tenant_clients(stack, "rival", retries=3)
        try:
            mine = await Table.create(acme, "rattus_cartus", 2, seed=31)
            await mine.play(2)
            theirs = await Table.create(rival, "rattus_cartus", 2, seed=32)
            return mine, theirs
        finally:
            await close_all(acme, _, rival, _r)

    mine, theirs = asyncio.run(prepare())
    assert stack.work_dir is not None
    keyring = KeyRing.from_dir(stack.work_dir / "signing")
    tokens = Tokens(keyring.sign, keyring.verify)
    expired, _ = tokens.issue("acme", mine.match_id, 0, ttl_s=-60)  # signed by the gateway's key, expired
    foreign_ring = KeyRing.generate(keyring.active)  # same key id, another key
    foreign, _ = Tokens(foreign_ring.sign, foreign_ring.verify).issue("acme", mine.match_id, 0)
    # Seat 0's token with the payload edited to seat 1, signature kept.
    prefix, header, payload, signature = mine.seats[0].credential.split(".")
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    body["s"] = 1
    edited = base64.urlsafe_b64encode(json.dumps(body, separators=(",", ":")).encode()).rstrip(b"=").decode()
    forged = ".".join((prefix, header, edited, signature))

    channel = grpc.insecure_channel(stack.gateway_targets[0])
    stub = pb_grpc.GatewayServiceStub(channel)
    ticket = stub.CreateTicket(
        pb.CreateTicketRequest(game_id="rattus_cartus", min_seats=4, player_id="lonely"),
        metadata=credentials(stack.api_keys["acme"]),
    )
    version = stub.GetView(
        pb.GetViewRequest(match_id=mine.match_id), metadata=credentials(stack.api_keys["acme"])
    )
    yield World(
        stub=stub,
        acme_key=stack.api_keys["acme"],
        rival_key=stack.api_keys["rival"],
        match_id=mine.match_id,
        rival_match_id=theirs.match_id,
        seat0=mine.seats[0].credential,
        seat1=mine.seats[1].credential,
        spectator=mine.spectator_token,
        rival_seat0=theirs.seats[0].credential,
        ticket_id=ticket.ticket_id,
        expired=expired,
        forged=forged,
        foreign=foreign,
        version=version.version,
    )
    stub.CancelTicket(
        pb.CancelTicketRequest(ticket_id=ticket.ticket_id), metadata=credentials(stack.api_keys["acme"])
    )
    channel.close()


def assert_nothing_written(world: World) -> None:
    view = world.stub.GetView(
        pb.GetViewRequest(match_id=world.match_id), metadata=credentials(world.acme_key)
    )
    assert view.version == world.version


def test_another_tenants_key_finds_nothing_and_learns_nothing(world: World) -> None:
    for name, call in match_rpcs(world.stub, world.match_id).items():
        theirs = status_of(lambda c=call: c(credentials(world.rival_key)))  # type: ignore[misc]
        missing = status_of(
            lambda n=name: match_rpcs(world.stub, NO_SUCH_MATCH)[n](credentials(world.rival_key))  # type: ignore[misc]
        )
        assert theirs[0] in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED), (name, theirs)
        # Exactly what a match that does not exist gets: no hint that this one does.
        assert theirs == missing, (name, theirs, missing)
    for name, call in {
        "GetTicket": lambda md: world.stub.GetTicket(
            pb.GetTicketRequest(ticket_id=world.ticket_id), metadata=md
        ),
        "CancelTicket": lambda md: world.stub.CancelTicket(
            pb.CancelTicketRequest(ticket_id=world.ticket_id), metadata=md
        ),
        "WatchTicket": lambda md: next(
            iter(
                world.stub.WatchTicket(
                    pb.WatchTicketRequest(ticket_id=world.ticket_id), metadata=md, timeout=10
                )
            )
        ),
    }.items():
        assert status_of(lambda c=call: c(credentials(world.rival_key)))[0] == grpc.StatusCode.NOT_FOUND, name  # type: ignore[misc]
    listed = world.stub.ListMatches(pb.ListMatchesRequest(limit=200), metadata=credentials(world.rival_key))
    assert world.match_id not in {m.match_id for m in listed.matches}
    assert (
        world.stub.GetTicket(
            pb.GetTicketRequest(ticket_id=world.ticket_id), metadata=credentials(world.acme_key)
        ).state
        == pb.Ticket.QUEUED
    )  # the rival's CancelTicket did not cancel it
    assert_nothing_written(world)


def test_a_token_for_another_match_is_denied_everywhere(world: World) -> None:
    for name, call in match_rpcs(world.stub, world.match_id).items():
        code, _ = status_of(lambda c=call: c(credentials(world.rival_seat0)))  # type: ignore[misc]
        # A rival seat token names another tenant's match: PERMISSION_DENIED or NOT_FOUND, never an answer.
        assert code in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.NOT_FOUND), (name, code)
    assert_nothing_written(world)


def test_a_spectator_token_cannot_act_audit_or_read_raw_events(world: World) -> None:
    rpcs = match_rpcs(world.stub, world.match_id)
    for name in ("SubmitAction", "Resign", "Undo", "Audit", "ReadEvents", "IssueToken"):
        assert status_of(lambda n=name: rpcs[n](credentials(world.spectator)))[0] == (  # type: ignore[misc]
            grpc.StatusCode.PERMISSION_DENIED
        ), name
    view = rpcs["GetView"](credentials(world.spectator))
    assert view.seat == -1 and not view.legal_actions
    assert_nothing_written(world)


def test_a_seat_token_cannot_read_raw_events_or_audit(world: World) -> None:
    rpcs = match_rpcs(world.stub, world.match_id)
    for name in ("ReadEvents", "Audit", "IssueToken"):
        assert status_of(lambda n=name: rpcs[n](credentials(world.seat1)))[0] == (  # type: ignore[misc]
            grpc.StatusCode.PERMISSION_DENIED
        ), name


@pytest.mark.parametrize("which", ["expired", "forged", "foreign", "garbage", "none"])
def test_bad_credentials_are_unauthenticated_on_every_rpc(world: World, which: str) -> None:
    credential = {
        "expired": world.expired,
        "forged": world.forged,
        "foreign": world.foreign,
        "garbage": "ght1.not.a.token",
        "none": None,
    }[which]
    for name, call in match_rpcs(world.stub, world.match_id).items():
        code, details = status_of(lambda c=call: c(credentials(credential)))  # type: ignore[misc]
        assert code == grpc.StatusCode.UNAUTHENTICATED, (which, name, code, details)
    assert_nothing_written(world)
