"""End to end: two gateway replicas (real processes) over one real Redis and every game's real
rules service, called over gRPC on loopback. Bots of each game are matched through the queue
and play to the end, seats split over both replicas; a spectator and a watcher that keeps
reconnecting (to the other replica each time) see the same stream; every audit passes.
Then isolation (every RPC with another tenant's key, another seat's or match's token), bad
input, quotas and timers, all on the same stack (one per module keeps the suite quick)."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from gateway import demo
from gateway.auth import Tokens, hash_key
from gateway.signing import KeyRing
from gateway.stack import Stack
from services.registry import GAMES
from tests.gateway.conftest import (
    ACME_AUDITOR,
    ACME_KEY,
    GLOBEX_KEY,
    bearer,
    private_database,
    tenants_document,
)

SLOW_KEY = "ghk_slow-tenant-key-for-tests-0000000000000000"
GAME = "rattus_cartus" if "rattus_cartus" in GAMES else next(iter(GAMES))


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    import os

    document = tenants_document()
    document["tenants"]["slow"] = {
        "keys": [{"id": "slow-app", "sha256": hash_key(SLOW_KEY), "scopes": ["tenant"]}],
        "quotas": {"open_tickets": 2, "active_matches": 2, "actions_per_second": 2},
    }
    previous = os.environ.get("REDIS_URL")
    os.environ["REDIS_URL"] = private_database(redis_url, 8)
    logs = tmp_path_factory.mktemp("e2e-logs")
    try:
        with Stack(list(GAMES), gateways=2, log_dir=logs, tenants=document) as running:
            yield running
    finally:
        if previous is None:
            os.environ.pop("REDIS_URL", None)
        else:
            os.environ["REDIS_URL"] = previous


@pytest.fixture(scope="module")
def stubs(stack: Stack) -> Iterator[list[gateway_pb2_grpc.GatewayServiceStub]]:
    channels = [grpc.insecure_channel(target) for target in stack.gateway_targets]
    yield [gateway_pb2_grpc.GatewayServiceStub(c) for c in channels]
    for channel in channels:
        channel.close()


def code_of(call: Callable[[], Any]) -> grpc.StatusCode:
    try:
        call()
    except grpc.RpcError as error:
        return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def first_message(stream: Any) -> Any:
    try:
        return next(stream)
    finally:
        stream.cancel()


def create(
    stub: Any, key: str = ACME_KEY, game: str = GAME, players: int = 2, **kw: Any
) -> pb.CreateMatchResponse:
    request = pb.CreateMatchRequest(game_id=game, players=[f"p{n}" for n in range(players)], **kw)
    response: pb.CreateMatchResponse = stub.CreateMatch(request, metadata=bearer(key), timeout=30)
    return response


# -- whole matches, two replicas ---------------------------------------------------------------


async def _reconnecting_watcher(stubs: list[Any], match_id: str, token: str) -> list[pb.MatchEvent]:
    """Watches in short sessions, resuming from its last version on the other replica each time."""
    seen: list[pb.MatchEvent] = []
    version = 0
    for hop in range(100_000):
        stream = stubs[hop % 2].Watch(
            pb.WatchRequest(match_id=match_id, from_version=version), metadata=bearer(token)
        )
        updates = 0
        async for update in stream:
            seen.extend(update.events)
            if update.events:
                version = update.events[-1].version
            if any(e.type == "match_ended" for e in update.events):
                stream.cancel()
                return seen
            updates += 1
            if updates == 3:
                break
        stream.cancel()
    raise AssertionError("never saw the end")


async def _play_across_replicas(targets: list[str], game: str, players: int) -> dict[str, Any]:
    channels = [grpc.aio.insecure_channel(t) for t in targets]
    stubs = [gateway_pb2_grpc.GatewayServiceStub(c) for c in channels]
    try:
        options = b"{}"
        tickets = [
            await stubs[n % 2].CreateTicket(
                pb.CreateTicketRequest(
                    game_id=game, options=options, min_seats=players, player_id=f"{game}-{n}"
                ),
                metadata=bearer(ACME_KEY),
            )
            for n in range(players)
        ]
        matched = await asyncio.gather(
            *(demo._matched(stubs[n % 2], ACME_KEY, t.ticket_id) for n, t in enumerate(tickets))
        )
        match_id = matched[0].match_id
        spectator = await stubs[0].IssueToken(
            pb.IssueTokenRequest(match_id=match_id), metadata=bearer(ACME_KEY)
        )
        watching = asyncio.create_task(demo._spectate(stubs[1], match_id, spectator.token))
        hopping = asyncio.create_task(_reconnecting_watcher(stubs, match_id, spectator.token))
        report = demo.MatchReport(game, players)
        await asyncio.gather(
            *(
                demo._bot(stubs[t.seat % 2], match_id, t.seat_token, random.Random(t.seat), report)
                for t in matched
            )
        )
        spectated, hopped = await asyncio.wait_for(asyncio.gather(watching, hopping), 60)
        final = await stubs[1].GetView(pb.GetViewRequest(match_id=match_id), metadata=bearer(ACME_KEY))
        audits = [
            await s.Audit(pb.AuditRequest(match_id=match_id), metadata=bearer(ACME_AUDITOR)) for s in stubs
        ]
        keys = await stubs[0].GetPublicKeys(pb.GetPublicKeysRequest())
        return {
            "tickets": matched,
            "match_id": match_id,
            "report": report,
            "spectated": spectated,
            "hopped": hopped,
            "final": final,
            "audits": audits,
            "keys": {k.key_id: k.ed25519 for k in keys.keys},
        }
    finally:
        for channel in channels:
            await channel.close()


class Played:
    """Matches played in this module, one per game, each played the first time a test asks for it
    (under pytest-xdist each worker plays only the games of the tests it runs)."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.results: dict[str, dict[str, Any]] = {}

    def __getitem__(self, game: str) -> dict[str, Any]:
        if game not in self.results:
            players = min(GAMES[game].player_counts)
            self.results[game] = asyncio.run(_play_across_replicas(self.stack.gateway_targets, game, players))
        return self.results[game]


@pytest.fixture(scope="module")
def played(stack: Stack) -> Played:
    return Played(stack)


@pytest.mark.parametrize("game", list(GAMES))
def test_bots_matched_through_the_queue_play_to_the_end_watched_and_audited_across_replicas(
    played: Played, game: str
) -> None:
    result = played[game]
    # Matched through the queue, seats split over both replicas, played to the end.
    tickets = result["tickets"]
    assert len({t.match_id for t in tickets}) == 1
    assert sorted(t.seat for t in tickets) == list(range(len(tickets)))
    assert not result["report"].errors
    final = result["final"]
    assert final.finished and final.outcome and not final.active_seats
    assert result["report"].actions > 0
    # A spectator and a watcher reconnecting to the other replica every few updates see the same
    # whole stream: no gap, no duplicate.
    last = final.version
    spectated = [(e.version, e.type, e.json) for e in result["spectated"]]
    hopped = [(e.version, e.type, e.json) for e in result["hopped"]]
    assert [v for v, _, _ in spectated] == list(range(1, last + 1))
    assert hopped == spectated
    assert spectated[0][1] == "match_created" and spectated[-1][1] == "match_ended"
    # Both replicas' audits pass; the revealed seed matches its commitment; receipts verify, and a
    # receipt edited to another version does not.
    assert [(a.ok, a.checked_versions) for a in result["audits"]] == [(True, last)] * 2
    assert demo._check_seed(result["spectated"])
    receipts = [e.receipt for e in result["spectated"] if e.HasField("receipt")]
    assert receipts and all(demo._check_receipt(r, result["keys"]) for r in receipts)
    forged = pb.Receipt()
    forged.CopyFrom(receipts[-1])
    forged.version += 1
    assert not demo._check_receipt(forged, result["keys"])


def test_the_players_seats_and_tickets_answer_the_match_on_either_replica(
    stubs: list[Any], played: Played
) -> None:
    ticket = played[GAME]["tickets"][0]
    for stub in stubs:
        status = stub.GetTicket(pb.GetTicketRequest(ticket_id=ticket.ticket_id), metadata=bearer(ACME_KEY))
        assert (status.state, status.match_id, status.seat) == (
            pb.Ticket.MATCHED,
            ticket.match_id,
            ticket.seat,
        )
        assert status.seat_token


def test_list_matches_filters_by_game_and_finished(stubs: list[Any], played: Played) -> None:
    page = stubs[0].ListMatches(pb.ListMatchesRequest(game_id=GAME, finished=True), metadata=bearer(ACME_KEY))
    ids = {m.match_id for m in page.matches}
    assert played[GAME]["match_id"] in ids
    assert all(m.game_id == GAME and m.finished for m in page.matches)
    other = stubs[1].ListMatches(pb.ListMatchesRequest(), metadata=bearer(GLOBEX_KEY))
    assert not {m.match_id for m in other.matches} & ids


def test_replay_answers_the_view_at_an_earlier_version(stubs: list[Any], played: Played) -> None:
    match_id = played[GAME]["match_id"]
    early = stubs[1].Replay(pb.ReplayRequest(match_id=match_id, version=1), metadata=bearer(ACME_KEY))
    assert early.version == 1 and not early.finished and early.seat == -1
    raw = stubs[0].ReadEvents(pb.ReadEventsRequest(match_id=match_id, limit=3), metadata=bearer(ACME_AUDITOR))
    assert [e.version for e in raw.events] == [1, 2, 3]
    assert raw.events[0].type == "match_created" and raw.events[0].prev_hash == "0" * 64


# -- private tables ---------------------------------------------------------------------------


def test_a_private_table_seats_its_players_by_invite_code(stubs: list[Any]) -> None:
    table = stubs[0].CreateTable(pb.CreateTableRequest(game_id=GAME, seats=2), metadata=bearer(ACME_KEY))
    assert table.invite_code and table.match_id

    def claim(stub: Any, code: str, player: str, key: str = ACME_KEY) -> pb.ClaimSeatResponse:
        request = pb.ClaimSeatRequest(invite_code=code, player_id=player)
        response: pb.ClaimSeatResponse = stub.ClaimSeat(request, metadata=bearer(key))
        return response

    first, second = claim(stubs[0], table.invite_code, "ann"), claim(stubs[1], table.invite_code, "bob")
    assert {first.seat.seat, second.seat.seat} == {0, 1}
    assert first.match_id == second.match_id == table.match_id
    assert claim(stubs[0], table.invite_code, "cid").rejection.code == "seat_taken"
    assert claim(stubs[1], "AAAAA-BBBBB-CCCCC-DDDDD", "dan").rejection.code == "bad_invite"
    # Another tenant holding the code still finds no table: codes are per tenant.
    assert claim(stubs[1], table.invite_code, "eve", GLOBEX_KEY).rejection.code == "bad_invite"
    for claimed in (first, second):
        view = stubs[1].GetView(
            pb.GetViewRequest(match_id=table.match_id), metadata=bearer(claimed.seat.token)
        )
        assert view.seat == claimed.seat.seat
    spectator = stubs[0].GetView(
        pb.GetViewRequest(match_id=table.match_id), metadata=bearer(table.spectator_token)
    )
    assert spectator.seat == -1


# -- isolation (every RPC with every foreign credential: test_isolation.py) -----------------------


def test_a_token_works_only_for_its_own_seat_and_match(stubs: list[Any]) -> None:
    first, second = create(stubs[0]), create(stubs[1])
    token_b = bearer(first.seats[1].token)
    denied = grpc.StatusCode.PERMISSION_DENIED
    other_match = second.match_id
    for rpc, call in {
        "GetView": lambda: stubs[0].GetView(pb.GetViewRequest(match_id=other_match), metadata=token_b),
        "SubmitAction": lambda: stubs[0].SubmitAction(
            pb.SubmitActionRequest(match_id=other_match, action=b"{}", command_id="c"), metadata=token_b
        ),
        "Resign": lambda: stubs[1].Resign(
            pb.ResignRequest(match_id=other_match, command_id="c"), metadata=token_b
        ),
        "Watch": lambda: first_message(
            stubs[1].Watch(pb.WatchRequest(match_id=other_match), metadata=token_b)
        ),
        "Replay": lambda: stubs[0].Replay(
            pb.ReplayRequest(match_id=other_match, version=1), metadata=token_b
        ),
    }.items():
        assert code_of(call) == denied, rpc
    # On its own match, seat 1's token sees seat 1's view and acts only as seat 1.
    view = stubs[0].GetView(pb.GetViewRequest(match_id=first.match_id), metadata=token_b)
    assert view.seat == 1
    seat0 = stubs[0].GetView(
        pb.GetViewRequest(match_id=first.match_id), metadata=bearer(first.seats[0].token)
    )
    assert seat0.view != view.view  # each seat sees its own hand
    if 1 not in view.active_seats:
        action = seat0.legal_actions[0] if seat0.legal_actions else b"{}"
        answer = stubs[1].SubmitAction(
            pb.SubmitActionRequest(match_id=first.match_id, action=action, command_id="as-seat-1"),
            metadata=token_b,
        )
        assert answer.HasField("rejection")


def test_another_seats_command_id_is_refused_and_leaks_nothing(stubs: list[Any]) -> None:
    created = create(stubs[0])
    view = stubs[0].GetView(
        pb.GetViewRequest(match_id=created.match_id), metadata=bearer(created.seats[0].token)
    )
    seat = view.active_seats[0]
    mine = stubs[0].GetView(
        pb.GetViewRequest(match_id=created.match_id), metadata=bearer(created.seats[seat].token)
    )
    action = mine.legal_actions[0]
    first = stubs[0].SubmitAction(
        pb.SubmitActionRequest(match_id=created.match_id, action=action, command_id="shared-id"),
        metadata=bearer(created.seats[seat].token),
    )
    assert first.HasField("accepted")
    other = 1 - seat
    answer = stubs[1].SubmitAction(
        pb.SubmitActionRequest(match_id=created.match_id, action=action, command_id="shared-id"),
        metadata=bearer(created.seats[other].token),
    )
    assert answer.rejection.code == "command_id_in_use" and not answer.HasField("accepted")
    again = stubs[1].SubmitAction(
        pb.SubmitActionRequest(match_id=created.match_id, action=action, command_id="shared-id"),
        metadata=bearer(created.seats[seat].token),
    )
    assert again.accepted.repeated and again.accepted.version == first.accepted.version
    assert [e.json for e in again.accepted.events] == [e.json for e in first.accepted.events]


# -- bad input: a precise answer, nothing written ----------------------------------------------


def _version(stub: Any, match_id: str) -> int:
    return int(stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=bearer(ACME_KEY)).version)


def test_bad_actions_get_a_precise_answer_and_change_nothing(stubs: list[Any], stack: Stack) -> None:
    created = create(stubs[0])
    match_id = created.match_id
    view = stubs[0].GetView(pb.GetViewRequest(match_id=match_id), metadata=bearer(created.seats[0].token))
    seat = view.active_seats[0]
    token = bearer(created.seats[seat].token)
    before = _version(stubs[0], match_id)

    def submit(action: bytes, **kw: Any) -> Any:
        request = pb.SubmitActionRequest(match_id=match_id, action=action, command_id=uuid.uuid4().hex, **kw)
        return stubs[1].SubmitAction(request, metadata=token)

    assert submit(b'{"type": "no_such_action"}').rejection.code == "unknown_action"
    assert submit(b'{"type": "bid", "pawns": 3}').rejection.code in ("unknown_action", "illegal_action")
    assert code_of(lambda: submit(b"{not json")) == grpc.StatusCode.INVALID_ARGUMENT
    assert code_of(lambda: submit(b"\xff\xfe")) == grpc.StatusCode.INVALID_ARGUMENT
    legal = stubs[0].GetView(pb.GetViewRequest(match_id=match_id), metadata=token).legal_actions[0]
    assert submit(legal, expected_version=before + 7).rejection.code == "stale_version"
    missing = pb.SubmitActionRequest(match_id="no-such-match", action=legal, command_id="x")
    assert (
        code_of(lambda: stubs[0].SubmitAction(missing, metadata=token)) == grpc.StatusCode.PERMISSION_DENIED
    )
    assert _version(stubs[0], match_id) == before


def test_a_ticket_with_options_the_game_refuses_is_invalid(stubs: list[Any]) -> None:
    request = pb.CreateTicketRequest(
        game_id=GAME, min_seats=2, player_id="p", options=b'{"no_such_option": 1}'
    )
    assert code_of(lambda: stubs[0].CreateTicket(request, metadata=bearer(ACME_KEY))) == (
        grpc.StatusCode.INVALID_ARGUMENT
    )


def test_unknown_matches_and_games_are_not_found_or_invalid(stubs: list[Any]) -> None:
    assert code_of(
        lambda: stubs[0].GetView(pb.GetViewRequest(match_id="nope"), metadata=bearer(ACME_KEY))
    ) == (grpc.StatusCode.NOT_FOUND)
    assert code_of(lambda: create(stubs[0], game="chess")) == grpc.StatusCode.INVALID_ARGUMENT
    assert (
        code_of(lambda: create(stubs[0], options=b'{"no_such_option": 1}'))
        == grpc.StatusCode.INVALID_ARGUMENT
    )
    assert code_of(lambda: create(stubs[0], players=9)) == grpc.StatusCode.INVALID_ARGUMENT


def test_an_expired_or_foreign_token_is_unauthenticated(stubs: list[Any], stack: Stack) -> None:
    created = create(stubs[0])
    keyring = KeyRing.from_dir(stack.gateway_dir / "signing")
    expired, _ = Tokens(keyring.sign, keyring.verify, ttl_s=-1).issue("acme", created.match_id, 0)
    foreign_ring = KeyRing.generate(keyring.active)
    foreign, _ = Tokens(foreign_ring.sign, foreign_ring.verify).issue("acme", created.match_id, 0)
    for token in (expired, foreign):

        def call(t: str = token) -> Any:
            return stubs[1].GetView(pb.GetViewRequest(match_id=created.match_id), metadata=bearer(t))

        assert code_of(call) == grpc.StatusCode.UNAUTHENTICATED


def test_a_finished_match_refuses_actions_with_game_over(stubs: list[Any], played: Played) -> None:
    ticket = played[GAME]["tickets"][0]
    answer = stubs[0].SubmitAction(
        pb.SubmitActionRequest(match_id=ticket.match_id, action=b'{"type": "pass"}', command_id="late"),
        metadata=bearer(ticket.seat_token),
    )
    assert answer.rejection.code == "game_over"


def test_a_repeated_create_with_the_same_id_returns_the_match_and_a_different_one_is_refused(
    stubs: list[Any],
) -> None:
    match_id = f"fixed-{uuid.uuid4().hex[:8]}"
    first = create(stubs[0], match_id=match_id)
    again = create(stubs[1], match_id=match_id)
    assert again.match_id == first.match_id and again.seed_commitment == first.seed_commitment
    assert code_of(lambda: create(stubs[0], match_id=match_id, players=3)) == grpc.StatusCode.ALREADY_EXISTS


# -- quotas ----------------------------------------------------------------------------------


def test_over_quota_is_resource_exhausted_with_a_retry_hint(stubs: list[Any]) -> None:
    created = [create(stubs[0], key=SLOW_KEY) for _ in range(2)]
    with pytest.raises(grpc.RpcError) as caught:
        create(stubs[1], key=SLOW_KEY)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "active matches" in caught.value.details()
    hints = dict(caught.value.trailing_metadata() or ())
    assert int(hints["retry-after-ms"]) > 0
    # Actions: two per second; a burst of submissions is cut off with a retry hint.
    match = created[0]
    codes = []
    for n in range(6):
        request = pb.SubmitActionRequest(match_id=match.match_id, action=b'{"type": "x"}', command_id=f"q{n}")
        stub = stubs[n % 2]
        codes.append(
            code_of(lambda r=request, s=stub: s.SubmitAction(r, metadata=bearer(match.seats[0].token)))
        )
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes
    # Tickets: two open at most (different options, so the two never pair with each other).
    for n in range(2):
        stubs[0].CreateTicket(
            pb.CreateTicketRequest(
                game_id=GAME,
                min_seats=2,
                player_id=f"slow-{n}",
                options=f'{{"vp_token_value": {n + 2}}}'.encode(),
            ),
            metadata=bearer(SLOW_KEY),
        )
    over = code_of(
        lambda: stubs[1].CreateTicket(
            pb.CreateTicketRequest(game_id=GAME, min_seats=2, player_id="slow-3"), metadata=bearer(SLOW_KEY)
        )
    )
    assert over == grpc.StatusCode.RESOURCE_EXHAUSTED


# -- timers ----------------------------------------------------------------------------------


def test_a_turn_timer_fires_once_across_two_replicas(stubs: list[Any]) -> None:
    created = create(stubs[0], turn_timer=pb.TurnTimer(seconds=1, policy="forfeit"))
    deadline = time.monotonic() + 30
    view = None
    while time.monotonic() < deadline:  # bounded wait for the timer; no timing is asserted
        view = stubs[1].GetView(pb.GetViewRequest(match_id=created.match_id), metadata=bearer(ACME_KEY))
        if view.finished:
            break
        time.sleep(0.2)
    assert view is not None and view.finished, "the timer never fired"
    raw = stubs[0].ReadEvents(pb.ReadEventsRequest(match_id=created.match_id), metadata=bearer(ACME_AUDITOR))
    types = [e.type for e in raw.events]
    assert types[0] == "match_created" and types[-1] == "match_ended"
    # Both replicas run the timer loop; the expiry was acted on once: one timeout, one forfeit.
    assert types.count("turn_timed_out") == 1, types
    assert types.count("seat_resigned") == 1, types
    outcome = json.loads(view.outcome)
    assert outcome["winners"]


# -- drain -------------------------------------------------------------------------------------


def test_metrics_name_the_rpcs(tmp_path: Path) -> None:
    from prometheus_client import generate_latest

    from gateway import metrics

    metrics.REQUESTS.labels("GetView", "OK").inc(0)
    text = generate_latest().decode()
    for name in (
        "guildhall_gateway_requests_total",
        "guildhall_watch_streams_open",
        "guildhall_gateway_rules_call_seconds",
        "guildhall_gateway_actions_accepted_total",
    ):
        assert name in text
