"""Isolation through the real gateway: every RPC called with another tenant's credentials (its
key, its auditor key, its own seat and spectator tokens) against one tenant's match, ticket and
table, and every seat RPC with another seat's token. Nothing is found, nothing is hinted,
nothing changes."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from devstack.stack import Stack
from gateway.auth import AUDITOR, PUBLIC, SCOPES, SEAT, SPECTATOR, TENANT
from services.registry import GAMES
from tests.gateway.conftest import (
    ACME_KEY,
    GLOBEX_AUDITOR,
    GLOBEX_KEY,
    bearer,
    private_database,
    tenants_document,
)

GAME = "rattus_cartus" if "rattus_cartus" in GAMES else next(iter(GAMES))
RULES_VERSION = GAMES[GAME].rules_version
SEATS = min(GAMES[GAME].player_counts)


@pytest.fixture(scope="module")
def stub(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    previous = os.environ.get("REDIS_URL")
    os.environ["REDIS_URL"] = private_database(redis_url, 10)
    try:
        logs = tmp_path_factory.mktemp("isolation-logs")
        with (
            Stack([GAME], gateways=1, log_dir=logs, tenants=tenants_document()) as stack,
            grpc.insecure_channel(stack.gateway_targets[0]) as channel,
        ):
            yield gateway_pb2_grpc.GatewayServiceStub(channel)
    finally:
        if previous is None:
            os.environ.pop("REDIS_URL", None)
        else:
            os.environ["REDIS_URL"] = previous


def code_of(call: Callable[[], Any]) -> tuple[grpc.StatusCode, Any]:
    try:
        return grpc.StatusCode.OK, call()
    except grpc.RpcError as error:
        return error.code(), None


def invoke(stub: Any, rpc: str, request: Any, credential: str) -> tuple[grpc.StatusCode, Any]:
    method = getattr(stub, rpc)
    if rpc == "Play":  # the client's side is a stream too: the request is its only message
        request = iter([request])
    if rpc in ("Watch", "WatchTicket", "Play"):

        def first() -> Any:
            stream = method(request, metadata=bearer(credential), timeout=20)
            try:
                return next(stream)
            finally:
                stream.cancel()

        return code_of(first)
    return code_of(lambda: method(request, metadata=bearer(credential), timeout=20))


def players() -> list[str]:
    return [f"p{n}" for n in range(SEATS)]


@pytest.fixture(scope="module")
def acme(stub: Any) -> dict[str, Any]:
    """One tenant's match, queued ticket and private table."""
    match = stub.CreateMatch(
        pb.CreateMatchRequest(game_id=GAME, players=players()), metadata=bearer(ACME_KEY)
    )
    ticket = stub.CreateTicket(
        pb.CreateTicketRequest(game_id=GAME, min_seats=max(GAMES[GAME].player_counts), player_id="waits"),
        metadata=bearer(ACME_KEY),
    )
    table = stub.CreateTable(pb.CreateTableRequest(game_id=GAME, seats=SEATS), metadata=bearer(ACME_KEY))
    claimed = stub.ClaimSeat(
        pb.ClaimSeatRequest(invite_code=table.invite_code, player_id="ann"), metadata=bearer(ACME_KEY)
    )
    return {"match": match, "ticket": ticket, "table": table, "resume_secret": claimed.resume_secret}


def requests(acme: dict[str, Any]) -> dict[str, Any]:
    match_id = acme["match"].match_id
    ticket_id = acme["ticket"].ticket_id
    return {
        "ListGames": pb.ListGamesRequest(),
        "GetPublicKeys": pb.GetPublicKeysRequest(),
        "CreateTicket": pb.CreateTicketRequest(
            game_id=GAME, min_seats=SEATS, player_id="g", options=b'{"x": 1}'
        ),
        "GetTicket": pb.GetTicketRequest(ticket_id=ticket_id),
        "CancelTicket": pb.CancelTicketRequest(ticket_id=ticket_id),
        "WatchTicket": pb.WatchTicketRequest(ticket_id=ticket_id),
        "CreateMatch": pb.CreateMatchRequest(game_id=GAME, players=players(), match_id=match_id),
        "CreateTable": pb.CreateTableRequest(game_id=GAME, seats=SEATS),
        "ClaimSeat": pb.ClaimSeatRequest(invite_code=acme["table"].invite_code, player_id="intruder"),
        "ResumeSeat": pb.ResumeSeatRequest(resume_secret=acme["resume_secret"]),  # issue 39
        "IssueToken": pb.IssueTokenRequest(match_id=match_id, seat=0),
        "ListMatches": pb.ListMatchesRequest(),
        "GetView": pb.GetViewRequest(match_id=match_id),
        "SubmitAction": pb.SubmitActionRequest(match_id=match_id, action=b'{"type": "pass"}', command_id="x"),
        "Resign": pb.ResignRequest(match_id=match_id, command_id="x"),
        "Undo": pb.UndoRequest(match_id=match_id, command_id="x"),  # issue 41
        "ReturnToSeat": pb.ReturnToSeatRequest(match_id=match_id, command_id="x"),  # issue 41
        "Watch": pb.WatchRequest(match_id=match_id),
        "Replay": pb.ReplayRequest(match_id=match_id, version=1),
        "Audit": pb.AuditRequest(match_id=match_id),
        "ReadEvents": pb.ReadEventsRequest(match_id=match_id),
        "ExportMatch": pb.ExportMatchRequest(match_id=match_id),  # issue 22
        "GetGameData": pb.GetGameDataRequest(game_id=GAME),
        # issue 40: bundles are the platform's rules, no tenant's (NOT_FOUND: none kept yet)
        "GetRulesBundle": pb.GetRulesBundleRequest(game_id=GAME, rules_version=RULES_VERSION),
        # issue 23
        "GetRatings": pb.GetRatingsRequest(game_id=GAME, player_ids=["p"]),
        "ListLeaderboard": pb.ListLeaderboardRequest(game_id=GAME),
        "ListDeadLetters": pb.ListDeadLettersRequest(tenant="acme"),
        "ReplayDeadLetters": pb.ReplayDeadLettersRequest(tenant="acme", all=True),
        "ClaimBotSeats": pb.ClaimBotSeatsRequest(worker="w", max_seats=1),
        "RenewBotSeats": pb.RenewBotSeatsRequest(lease_ids=["l"]),
        "ReleaseBotSeats": pb.ReleaseBotSeatsRequest(lease_ids=["l"]),
        # issue 25: globex's seat token opening acme's match, then acting in it
        "Play": pb.PlayRequest(open=pb.PlayOpen(match_id=match_id)),
    }


def snapshot(stub: Any, acme: dict[str, Any]) -> tuple[Any, ...]:
    """What another tenant must never change: the match's version, the ticket, the table."""
    view = stub.GetView(pb.GetViewRequest(match_id=acme["match"].match_id), metadata=bearer(ACME_KEY))
    ticket = stub.GetTicket(
        pb.GetTicketRequest(ticket_id=acme["ticket"].ticket_id), metadata=bearer(ACME_KEY)
    )
    audit = stub.Audit(pb.AuditRequest(match_id=acme["match"].match_id), metadata=bearer(ACME_KEY))
    return view.version, view.view, ticket.state, audit.ok


@pytest.mark.parametrize("rpc", sorted(SCOPES))
def test_another_tenant_finds_nothing_and_changes_nothing(stub: Any, acme: dict[str, Any], rpc: str) -> None:
    before = snapshot(stub, acme)
    own = stub.CreateMatch(
        pb.CreateMatchRequest(game_id=GAME, players=players()), metadata=bearer(GLOBEX_KEY)
    )
    credentials = {
        TENANT: GLOBEX_KEY,
        AUDITOR: GLOBEX_AUDITOR,
        SEAT: own.seats[0].token,  # globex's own seat token, naming acme's ids
        SPECTATOR: own.spectator_token,
    }
    names_acme_object = rpc not in (
        "ListGames",
        "GetPublicKeys",
        "CreateTicket",
        "CreateTable",
        "ListMatches",
        "GetGameData",
        "GetRatings",
        "ListLeaderboard",
        "GetRulesBundle",
    )
    for scope, credential in credentials.items():
        if not (SCOPES[rpc] & {scope, PUBLIC}):
            continue
        request = requests(acme)[rpc]
        if rpc == "CreateMatch":  # with the id of another acme match (the module's one stays unique)
            other = stub.CreateMatch(
                pb.CreateMatchRequest(game_id=GAME, players=players()), metadata=bearer(ACME_KEY)
            )
            request.match_id = other.match_id
        code, answer = invoke(stub, rpc, request, credential)
        if rpc == "CreateMatch":
            # globex may use the same match id for its own match: a different match, not acme's.
            assert code == grpc.StatusCode.OK and answer.seed_commitment != other.seed_commitment
            acme_view = stub.GetView(pb.GetViewRequest(match_id=other.match_id), metadata=bearer(ACME_KEY))
            assert acme_view.version == other.version
        elif rpc in ("ClaimSeat", "ResumeSeat"):
            assert code == grpc.StatusCode.OK and answer.rejection.code == "bad_invite"
        elif rpc == "ListMatches":
            assert acme["match"].match_id not in {m.match_id for m in answer.matches}
        elif names_acme_object:
            expected = (
                grpc.StatusCode.PERMISSION_DENIED if scope in (SEAT, SPECTATOR) else grpc.StatusCode.NOT_FOUND
            )
            assert code == expected, (scope, code)
        elif rpc == "GetRulesBundle":  # the same answer whoever asks: the version's bundle, or none
            assert code in (grpc.StatusCode.OK, grpc.StatusCode.NOT_FOUND), (scope, code)
        else:
            assert code not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INTERNAL), (scope, code)
    assert snapshot(stub, acme) == before


def test_not_found_is_the_same_answer_as_for_a_match_that_does_not_exist(
    stub: Any, acme: dict[str, Any]
) -> None:
    def details(match_id: str) -> tuple[grpc.StatusCode, str]:
        try:
            stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=bearer(GLOBEX_KEY))
        except grpc.RpcError as error:
            return error.code(), error.details()
        raise AssertionError("found")

    assert details(acme["match"].match_id) == details("never-created")


def test_another_seats_token_only_ever_acts_and_sees_as_its_own_seat(stub: Any) -> None:
    match = stub.CreateMatch(
        pb.CreateMatchRequest(game_id=GAME, players=players()), metadata=bearer(ACME_KEY)
    )
    tokens = {s.seat: bearer(s.token) for s in match.seats}
    views = {
        seat: stub.GetView(pb.GetViewRequest(match_id=match.match_id), metadata=token)
        for seat, token in tokens.items()
    }
    assert {seat: v.seat for seat, v in views.items()} == {seat: seat for seat in tokens}
    # Every seat's legal action, sent with each other seat's token: never applied for the owner.
    for owner, view in views.items():
        for number, action in enumerate(view.legal_actions[:3]):
            for other, token in tokens.items():
                if other == owner:
                    continue
                request = pb.SubmitActionRequest(
                    match_id=match.match_id, action=action, command_id=f"{owner}-{other}-{number}"
                )
                answer = stub.SubmitAction(request, metadata=token)
                if answer.HasField("accepted"):
                    # Accepted only as `other`'s own move (the same action may be legal for both).
                    assert all(e.actor in (other, -1) for e in answer.accepted.events)
    stream = stub.Watch(pb.WatchRequest(match_id=match.match_id), metadata=tokens[1])
    try:
        assert next(stream).view.seat == 1
    finally:
        stream.cancel()
    replayed = stub.Replay(pb.ReplayRequest(match_id=match.match_id, version=1), metadata=tokens[1])
    assert replayed.seat == 1
    resigned = stub.Resign(pb.ResignRequest(match_id=match.match_id, command_id="bye"), metadata=tokens[1])
    assert all(e.actor in (1, -1) for e in resigned.accepted.events)
    unknown = code_of(
        lambda: stub.ReadEvents(
            pb.ReadEventsRequest(match_id=match.match_id), metadata=bearer("ghk_" + "0" * 43)
        )
    )
    assert unknown[0] == grpc.StatusCode.UNAUTHENTICATED
