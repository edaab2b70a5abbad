"""The servicer's own duties, over a fake of the match use cases: the scope table called RPC by
RPC with every kind of credential, request checks, quotas, Watch fan-out and metrics.
(The same service over the real use cases, rules services and Redis: test_e2e*.py.)"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc
from prometheus_client import REGISTRY

from gateway.auth import AUDITOR, PUBLIC, PUBLISHABLE, SCOPES, SEAT, SPECTATOR, TENANT
from tests.gateway.conftest import ACME_AUDITOR, ACME_KEY, ACME_PUBLISHABLE, GLOBEX_KEY, InProcess, bearer

_ids = itertools.count()


def stub(gw: InProcess) -> gateway_pb2_grpc.GatewayServiceStub:
    return gateway_pb2_grpc.GatewayServiceStub(gw.channel)


def new_match(gw: InProcess, key: str = ACME_KEY, players: int = 2) -> pb.CreateMatchResponse:
    request = pb.CreateMatchRequest(
        game_id="fake", players=[f"p{n}" for n in range(players)], match_id=f"m{next(_ids)}"
    )
    response: pb.CreateMatchResponse = stub(gw).CreateMatch(request, metadata=bearer(key), timeout=10)
    return response


def code_of(call: Callable[[], Any]) -> grpc.StatusCode:
    try:
        call()
    except grpc.RpcError as error:
        return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def requests_for(match_id: str) -> dict[str, Any]:
    return {
        "ListGames": pb.ListGamesRequest(),
        "GetPublicKeys": pb.GetPublicKeysRequest(),
        "CreateTicket": pb.CreateTicketRequest(game_id="fake", min_seats=2, player_id="p"),
        "GetTicket": pb.GetTicketRequest(ticket_id="t1"),
        "CancelTicket": pb.CancelTicketRequest(ticket_id="t1"),
        "WatchTicket": pb.WatchTicketRequest(ticket_id="t1"),
        "CreateMatch": pb.CreateMatchRequest(game_id="fake", players=["a", "b"]),
        "CreateTable": pb.CreateTableRequest(game_id="fake", seats=2),
        "ClaimSeat": pb.ClaimSeatRequest(invite_code="x", player_id="p"),
        "ResumeSeat": pb.ResumeSeatRequest(resume_secret="ghs1.x.0.y"),  # issue 39
        "IssueToken": pb.IssueTokenRequest(match_id=match_id, seat=0),
        "ListMatches": pb.ListMatchesRequest(),
        "GetView": pb.GetViewRequest(match_id=match_id),
        "SubmitAction": pb.SubmitActionRequest(match_id=match_id, action=b'{"type":"move"}', command_id="c1"),
        "Resign": pb.ResignRequest(match_id=match_id, command_id="r1"),
        "Undo": pb.UndoRequest(match_id=match_id, command_id="u1"),  # issue 41
        "ReturnToSeat": pb.ReturnToSeatRequest(match_id=match_id, command_id="b1"),  # issue 41
        "Watch": pb.WatchRequest(match_id=match_id),
        "Replay": pb.ReplayRequest(match_id=match_id, version=1),
        "Audit": pb.AuditRequest(match_id=match_id),
        "ReadEvents": pb.ReadEventsRequest(match_id=match_id),
        "ExportMatch": pb.ExportMatchRequest(match_id=match_id),  # issue 22
        "GetGameData": pb.GetGameDataRequest(game_id="fake"),
        "GetRulesBundle": pb.GetRulesBundleRequest(game_id="fake", rules_version="1.0+0123456789abcdef"),
        # issue 23
        "GetRatings": pb.GetRatingsRequest(game_id="fake", player_ids=["p"]),
        "ListLeaderboard": pb.ListLeaderboardRequest(game_id="fake"),
        "ListDeadLetters": pb.ListDeadLettersRequest(tenant="acme"),
        "ReplayDeadLetters": pb.ReplayDeadLettersRequest(tenant="acme", all=True),
        "ClaimBotSeats": pb.ClaimBotSeatsRequest(worker="w", max_seats=1),
        "RenewBotSeats": pb.RenewBotSeatsRequest(lease_ids=["l"]),
        "ReleaseBotSeats": pb.ReleaseBotSeatsRequest(lease_ids=["l"]),
        # issue 25: a bidirectional stream, its first message
        "Play": pb.PlayRequest(open=pb.PlayOpen(match_id=match_id)),
    }


STREAMS = {"Watch", "WatchTicket"}


def call(gw: InProcess, rpc: str, request: Any, metadata: list[tuple[str, str]]) -> grpc.StatusCode:
    method = getattr(stub(gw), rpc)
    if rpc == "Play":  # the client's side is a stream too: the request is its only message
        request = iter([request])
    if rpc in STREAMS or rpc == "Play":

        def first() -> None:
            stream = method(request, metadata=metadata, timeout=10)
            try:
                next(stream)
            finally:
                stream.cancel()

        return code_of(first)
    return code_of(lambda: method(request, metadata=metadata, timeout=10))


# The GatewayService's RPCs (the AdminService's are held to the same table in test_admin.py).
GATEWAY_RPCS = sorted(pb.DESCRIPTOR.services_by_name["GatewayService"].methods_by_name)


def test_every_gateway_rpc_is_in_the_scope_table() -> None:
    assert set(GATEWAY_RPCS) <= set(SCOPES)


@pytest.mark.parametrize("rpc", GATEWAY_RPCS)
def test_the_scope_table_holds_for_every_rpc_and_every_credential(fake_gateway: InProcess, rpc: str) -> None:
    created = new_match(fake_gateway)
    credentials = {
        TENANT: ACME_KEY,
        AUDITOR: ACME_AUDITOR,
        SEAT: created.seats[0].token,
        SPECTATOR: created.spectator_token,
        PUBLISHABLE: ACME_PUBLISHABLE,
    }
    allowed = SCOPES[rpc]
    for scope, credential in credentials.items():
        request = requests_for(created.match_id)[rpc]
        code = call(fake_gateway, rpc, request, bearer(credential))
        if scope in allowed or PUBLIC in allowed:
            assert code not in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED), (
                scope,
                code,
            )
        else:
            assert code == grpc.StatusCode.PERMISSION_DENIED, (scope, code)
    no_credentials = call(fake_gateway, rpc, requests_for(created.match_id)[rpc], [])
    expected = grpc.StatusCode.OK if PUBLIC in allowed else grpc.StatusCode.UNAUTHENTICATED
    assert no_credentials == expected


def test_another_tenants_match_is_not_found_for_every_match_rpc(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway, ACME_KEY)
    for rpc in ("GetView", "Watch", "Replay", "Audit", "IssueToken"):
        request = requests_for(created.match_id)[rpc]
        assert call(fake_gateway, rpc, request, bearer(GLOBEX_KEY)) == grpc.StatusCode.NOT_FOUND, rpc


def test_a_token_of_another_match_is_permission_denied(fake_gateway: InProcess) -> None:
    first, second = new_match(fake_gateway), new_match(fake_gateway)
    for rpc in ("GetView", "SubmitAction", "Resign", "Undo", "Watch", "Replay"):
        request = requests_for(second.match_id)[rpc]
        assert (
            call(fake_gateway, rpc, request, bearer(first.seats[0].token))
            == grpc.StatusCode.PERMISSION_DENIED
        )


def test_a_seat_token_acts_only_as_its_own_seat(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway)
    s = stub(fake_gateway)
    request = pb.SubmitActionRequest(match_id=created.match_id, action=b'{"type":"move"}', command_id="x1")
    # Seat 0 is to move: seat 1's token is answered as seat 1 (not your turn), never as seat 0.
    answer = s.SubmitAction(request, metadata=bearer(created.seats[1].token), timeout=10)
    assert answer.rejection.code == "not_your_turn"
    answer = s.SubmitAction(request, metadata=bearer(created.seats[0].token), timeout=10)
    assert answer.accepted.version == 2


def test_create_match_answers_seat_tokens_for_each_seat(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway, players=3)
    assert [seat.seat for seat in created.seats] == [0, 1, 2]
    assert [seat.player_id for seat in created.seats] == ["p0", "p1", "p2"]
    views = [
        stub(fake_gateway).GetView(pb.GetViewRequest(match_id=created.match_id), metadata=bearer(t.token))
        for t in created.seats
    ]
    assert [v.seat for v in views] == [0, 1, 2]
    spectator = stub(fake_gateway).GetView(
        pb.GetViewRequest(match_id=created.match_id), metadata=bearer(created.spectator_token)
    )
    assert spectator.seat == -1 and not spectator.legal_actions


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        (pb.CreateMatchRequest(game_id="chess", players=["a", "b"]), grpc.StatusCode.INVALID_ARGUMENT),
        (pb.CreateMatchRequest(game_id="fake", players=["a"]), grpc.StatusCode.INVALID_ARGUMENT),
        (pb.CreateMatchRequest(game_id="fake", players=["a", ""]), grpc.StatusCode.INVALID_ARGUMENT),
        (
            pb.CreateMatchRequest(game_id="fake", players=["a", "b"], options=b"[1]"),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            pb.CreateMatchRequest(game_id="fake", players=["a", "b"], options=b"{"),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            pb.CreateMatchRequest(game_id="fake", players=["a", "b"], options=b" " * 70_000),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        ),
        (
            pb.CreateMatchRequest(game_id="fake", players=["a", "b"], match_id="bad:id"),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
    ],
)
def test_malformed_create_requests_are_invalid_and_create_nothing(
    fake_gateway: InProcess, request_: Any, code: grpc.StatusCode
) -> None:
    before = len(fake_gateway.matches.matches)
    assert code_of(lambda: stub(fake_gateway).CreateMatch(request_, metadata=bearer(ACME_KEY))) == code
    assert len(fake_gateway.matches.matches) == before


def test_malformed_actions_are_refused_before_any_use_case(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway)
    token = bearer(created.seats[0].token)
    s = stub(fake_gateway)
    cases = [
        (pb.SubmitActionRequest(match_id=created.match_id, action=b"{}", command_id=""), "INVALID_ARGUMENT"),
        (
            pb.SubmitActionRequest(match_id=created.match_id, action=b"{}", command_id="a b"),
            "INVALID_ARGUMENT",
        ),
        (pb.SubmitActionRequest(match_id=created.match_id, action=b"", command_id="c"), "INVALID_ARGUMENT"),
        (
            pb.SubmitActionRequest(match_id=created.match_id, action=b"x" * 70_000, command_id="c"),
            "RESOURCE_EXHAUSTED",
        ),
        (pb.SubmitActionRequest(match_id="", action=b"{}", command_id="c"), "INVALID_ARGUMENT"),
    ]
    for request, code in cases:
        assert code_of(lambda r=request: s.SubmitAction(r, metadata=token)).name == code
    assert len(fake_gateway.matches.matches[_key(created)].events) == 1  # only match_created


def _key(created: pb.CreateMatchResponse) -> Any:
    from gateway.eventstore.base import MatchKey

    return MatchKey("acme", created.match_id)


def test_a_request_over_the_transport_limit_is_refused(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway)
    huge = pb.SubmitActionRequest(match_id=created.match_id, action=b"x" * (2 * 1024 * 1024), command_id="c")
    code = code_of(lambda: stub(fake_gateway).SubmitAction(huge, metadata=bearer(created.seats[0].token)))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_a_repeated_command_returns_its_first_result(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway)
    request = pb.SubmitActionRequest(match_id=created.match_id, action=b'{"type":"move"}', command_id="same")
    first = stub(fake_gateway).SubmitAction(request, metadata=bearer(created.seats[0].token))
    again = stub(fake_gateway).SubmitAction(request, metadata=bearer(created.seats[0].token))
    assert first.accepted.version == again.accepted.version == 2
    assert again.accepted.repeated and not first.accepted.repeated
    other = stub(fake_gateway).SubmitAction(request, metadata=bearer(created.seats[1].token))
    assert other.rejection.code == "command_id_in_use"


def test_watch_streams_the_first_view_then_each_new_event(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway)
    s = stub(fake_gateway)
    stream = s.Watch(
        pb.WatchRequest(match_id=created.match_id), metadata=bearer(created.spectator_token), timeout=20
    )
    try:
        first = next(stream)
        assert [e.version for e in first.events] == [1] and first.view.version == 1
        for seat, command in ((0, "w1"), (1, "w2")):
            request = pb.SubmitActionRequest(
                match_id=created.match_id, action=b'{"type":"move"}', command_id=command
            )
            assert s.SubmitAction(request, metadata=bearer(created.seats[seat].token)).HasField("accepted")
            update = next(stream)
            assert [e.version for e in update.events] == [seat + 2]
            assert update.view.version == seat + 2 and update.view.seat == -1
    finally:
        stream.cancel()
    # A reconnect from version 2 resumes with event 3 only: no gap, no duplicate.
    resumed = s.Watch(
        pb.WatchRequest(match_id=created.match_id, from_version=2),
        metadata=bearer(created.seats[1].token),
        timeout=20,
    )
    try:
        update = next(resumed)
        assert [e.version for e in update.events] == [3] and update.view.seat == 1
    finally:
        resumed.cancel()


def test_a_safety_poll_costs_one_check_per_match_however_many_watch_it(
    fake_gateway: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A poll wakes every watcher of the replica at once; watchers at the same seat and version
    share one check with Redis instead of making one each (10,000 of them delayed deliveries)."""
    created = new_match(fake_gateway)
    s = stub(fake_gateway)
    streams = [
        s.Watch(
            pb.WatchRequest(match_id=created.match_id), metadata=bearer(created.spectator_token), timeout=20
        )
        for _ in range(12)
    ]
    checks: list[int] = []
    real_get_view = fake_gateway.matches.get_view

    async def counted(key: Any, seat: Any, *, min_version: int = 0) -> Any:
        if key.match_id == created.match_id and min_version == 0:
            checks.append(min_version)  # a check of what Redis holds now (not a read from a version)
        return await real_get_view(key, seat, min_version=min_version)

    try:
        assert all(next(stream).view.version == 1 for stream in streams)
        time.sleep(0.5)  # the watchers go back to waiting (what the poll must find them doing)
        monkeypatch.setattr(fake_gateway.matches, "get_view", counted)

        async def poll() -> None:
            fake_gateway.hub.wake_all()

        fake_gateway.loop.run(poll())
        request = pb.SubmitActionRequest(
            match_id=created.match_id, action=b'{"type":"move"}', command_id="p1"
        )
        assert s.SubmitAction(request, metadata=bearer(created.seats[0].token)).HasField("accepted")
        assert all([e.version for e in next(stream).events] == [2] for stream in streams)
        assert len(checks) == 1
    finally:
        for stream in streams:
            stream.cancel()


def test_watch_from_beyond_the_match_is_invalid(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway)
    request = pb.WatchRequest(match_id=created.match_id, from_version=99)
    assert (
        call(fake_gateway, "Watch", request, bearer(created.spectator_token))
        == grpc.StatusCode.INVALID_ARGUMENT
    )


def test_public_keys_are_published_with_their_ids(fake_gateway: InProcess) -> None:
    keys = stub(fake_gateway).GetPublicKeys(pb.GetPublicKeysRequest()).keys
    assert [k.key_id for k in keys] == ["test-1"] and len(keys[0].ed25519) == 32


def test_issue_token_checks_the_seat(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway)
    s = stub(fake_gateway)
    fresh = s.IssueToken(pb.IssueTokenRequest(match_id=created.match_id, seat=1), metadata=bearer(ACME_KEY))
    view = s.GetView(pb.GetViewRequest(match_id=created.match_id), metadata=bearer(fresh.token))
    assert view.seat == 1 and fresh.expires_at_ms > 0
    bad = pb.IssueTokenRequest(match_id=created.match_id, seat=5)
    assert code_of(lambda: s.IssueToken(bad, metadata=bearer(ACME_KEY))) == grpc.StatusCode.INVALID_ARGUMENT


def test_calls_are_counted_by_rpc_and_code(fake_gateway: InProcess) -> None:
    def count(rpc: str, code: str) -> float:
        value = REGISTRY.get_sample_value("guildhall_gateway_requests_total", {"rpc": rpc, "code": code})
        return value or 0.0

    before_ok, before_denied = count("ListGames", "OK"), count("ListGames", "UNAUTHENTICATED")
    stub(fake_gateway).ListGames(pb.ListGamesRequest(), metadata=bearer(ACME_KEY))
    code_of(lambda: stub(fake_gateway).ListGames(pb.ListGamesRequest()))
    assert count("ListGames", "OK") == before_ok + 1
    assert count("ListGames", "UNAUTHENTICATED") == before_denied + 1


def test_list_games_describes_the_served_games(fake_gateway: InProcess) -> None:
    games = stub(fake_gateway).ListGames(pb.ListGamesRequest(), metadata=bearer(ACME_AUDITOR)).games
    assert [(g.game_id, list(g.player_counts)) for g in games] == [("fake", [2, 3])]
