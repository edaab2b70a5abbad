"""End to end: two gateway replicas (real processes) over one real Redis and every game's real
rules service, called over gRPC on loopback, through the client library (guildhall_client) as a
third-party client would. Bots of each game are matched through the queue and play to the end
with the library's bots, seats split over both replicas; a spectator (the library's resuming
watch) and a watcher that keeps reconnecting (to the other replica each time) see the same
stream; every audit passes and the receipts and seed verify locally.
Then isolation (every RPC with another tenant's key, another seat's or match's token), bad
input, quotas and timers, all on the same stack (one per module keeps the suite quick)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

import grpc
import pytest

from devstack import demo
from devstack.stack import Stack
from gateway.auth import Tokens, hash_key
from gateway.signing import KeyRing
from guildhall_client import AsyncClient, Client, errors
from guildhall_client.types import CreatedMatch, Event
from guildhall_client.verify import verify_receipt
from services.registry import GAMES
from tests.gateway.conftest import ACME_AUDITOR, ACME_KEY, GLOBEX_KEY, private_database, tenants_document

SLOW_KEY = "ghk_slow-tenant-key-for-tests-0000000000000000"
GAME = "rattus_cartus" if "rattus_cartus" in GAMES else next(iter(GAMES))


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    import os

    document = tenants_document()
    document["tenants"]["slow"] = {
        "keys": [{"id": "slow-app", "sha256": hash_key(SLOW_KEY), "scopes": ["tenant"]}],
        "quotas": {"open_tickets": 2, "active_matches": 2, "actions_per_second": 2, "reads_per_second": 3},
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
def connect(stack: Stack) -> Iterator[Callable[..., Client]]:
    """`connect(key=ACME_KEY, replica=0, **options)`: a blocking client of that replica under that
    credential, opened once per module (tokens reuse its connection through `for_token`)."""
    opened: dict[tuple[Any, ...], Client] = {}

    def get(key: str = ACME_KEY, replica: int = 0, **options: Any) -> Client:
        name = (key, replica, *sorted(options.items()))
        if name not in opened:
            opened[name] = Client(stack.gateway_targets[replica], api_key=key, **options)
        return opened[name]

    yield get
    for client in opened.values():
        client.close()


def create(gh: Client, game: str = GAME, players: int = 2, **kw: Any) -> CreatedMatch:
    created: CreatedMatch = gh.create_match(game, [f"p{n}" for n in range(players)], **kw)
    return created


# -- whole matches, two replicas ---------------------------------------------------------------


async def _reconnecting_watcher(clients: list[AsyncClient], match_id: str, token: str) -> list[Event]:
    """Watches in short sessions, resuming from its last version on the other replica each time."""
    watchers = [client.for_token(token) for client in clients]
    seen: list[Event] = []
    version = 0
    for hop in range(100_000):
        updates = 0
        # Leaving the block closes the stream: the next session starts on the other replica.
        async with aclosing(watchers[hop % 2].watch(match_id, version, reconnect=False)) as stream:
            async for update in stream:
                seen.extend(update.events)
                if update.events:
                    version = update.events[-1].version
                if update.view.finished:
                    return seen
                updates += 1
                if updates == 3:
                    break
    raise AssertionError("never saw the end")


async def _play_across_replicas(targets: list[str], game: str, players: int) -> dict[str, Any]:
    clients = [AsyncClient(target, api_key=ACME_KEY) for target in targets]
    auditors = [AsyncClient(target, api_key=ACME_AUDITOR) for target in targets]
    try:
        seats = await demo.queue_bots(clients, game, players)
        token, _ = await clients[0].issue_token(seats[0].match_id)
        hopping = asyncio.create_task(_reconnecting_watcher(clients, seats[0].match_id, token))
        report = await demo.play_match(clients, seats, seed=2024, auditors=auditors)
        hopped = await asyncio.wait_for(hopping, 60)
        return {"report": report, "hopped": hopped, "keys": await clients[1].public_keys()}
    finally:
        for client in clients + auditors:
            await client.close()


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
    report: demo.MatchReport = result["report"]
    # Matched through the queue, seats split over both replicas, played to the end by greedy and
    # random bots.
    tickets = report.tickets
    assert len({t.match_id for t in tickets}) == 1
    assert sorted(t.seat for t in tickets) == list(range(len(tickets)))
    assert set(report.kinds.values()) == {"greedy", "random"}
    assert not report.errors
    final = report.final
    assert final is not None and final.finished and final.outcome and not final.active_seats
    assert report.actions > 0
    # A spectator and a watcher reconnecting to the other replica every few updates see the same
    # whole stream: no gap, no duplicate.
    last = final.version
    spectated = [(e.version, e.type, e.raw) for e in report.spectated]
    hopped = [(e.version, e.type, e.raw) for e in result["hopped"]]
    assert [v for v, _, _ in spectated] == list(range(1, last + 1))
    assert hopped == spectated
    assert spectated[0][1] == "match_created" and spectated[-1][1] == "match_ended"
    # Both replicas' audits pass; checked locally, the revealed seed matches its commitment and
    # every receipt verifies, and a receipt edited to another version does not.
    assert [(a.ok, a.checked_versions) for a in report.audits] == [(True, last)] * 2
    verification = report.verification
    assert verification is not None and verification.seed_revealed and verification.seed_ok
    receipts = [e.receipt for e in report.spectated if e.receipt is not None]
    assert receipts and verification.receipts_checked == len(receipts) and not verification.bad_receipts
    assert all(verify_receipt(r, result["keys"]) for r in receipts)
    forged = dataclasses.replace(receipts[-1], version=receipts[-1].version + 1)
    assert not verify_receipt(forged, result["keys"])
    assert report.ok


def test_the_players_seats_and_tickets_answer_the_match_on_either_replica(
    connect: Callable[..., Client], played: Played
) -> None:
    ticket = played[GAME]["report"].tickets[0]
    for replica in (0, 1):
        status = connect(replica=replica).get_ticket(ticket.ticket_id)
        assert (status.state, status.match_id, status.seat) == ("matched", ticket.match_id, ticket.seat)
        assert status.seat_token


def test_list_matches_filters_by_game_and_finished(connect: Callable[..., Client], played: Played) -> None:
    page = connect().list_matches(game=GAME, finished=True)
    ids = {m.match_id for m in page.matches}
    assert played[GAME]["report"].match_id in ids
    assert all(m.game == GAME and m.finished for m in page.matches)
    other = connect(GLOBEX_KEY, replica=1).list_matches()
    assert not {m.match_id for m in other.matches} & ids


def test_replay_answers_the_view_at_an_earlier_version(
    connect: Callable[..., Client], played: Played
) -> None:
    match_id = played[GAME]["report"].match_id
    early = connect(replica=1).replay(match_id, 1)
    assert early.version == 1 and not early.finished and early.seat is None
    raw = connect(ACME_AUDITOR).read_events(match_id, limit=3)
    assert [e.version for e in raw] == [1, 2, 3]
    assert raw[0].type == "match_created" and raw[0].prev_hash == "0" * 64


# -- private tables ---------------------------------------------------------------------------


def test_a_private_table_seats_its_players_by_invite_code(connect: Callable[..., Client]) -> None:
    table = connect().create_table(GAME, 2)
    assert table.invite_code and table.match_id
    first = connect().claim_seat(table.invite_code, "ann")
    second = connect(replica=1).claim_seat(table.invite_code, "bob")
    assert {first.number, second.number} == {0, 1}
    assert first.match_id == second.match_id == table.match_id
    with pytest.raises(errors.SeatTaken):
        connect().claim_seat(table.invite_code, "cid")
    with pytest.raises(errors.BadInvite):
        connect(replica=1).claim_seat("AAAAA-BBBBB-CCCCC-DDDDD", "dan")
    # Another tenant holding the code still finds no table: codes are per tenant.
    with pytest.raises(errors.BadInvite):
        connect(GLOBEX_KEY, replica=1).claim_seat(table.invite_code, "eve")
    for claimed in (first, second):
        assert connect(replica=1).seat(table.match_id, claimed.token).view().seat == claimed.number
    assert connect().for_token(table.spectator_token).get_view(table.match_id).seat is None


# -- isolation (every RPC with every foreign credential: test_isolation.py) -----------------------


def test_a_token_works_only_for_its_own_seat_and_match(connect: Callable[..., Client]) -> None:
    first, second = create(connect()), create(connect(replica=1))
    as_b = [connect(replica=r).for_token(first.seats[1].token) for r in (0, 1)]
    other_match = second.match_id
    for rpc, call in {
        "GetView": lambda: as_b[0].get_view(other_match),
        "SubmitAction": lambda: as_b[0].submit(other_match, b"{}", command_id="c"),
        "Resign": lambda: as_b[1].resign(other_match, command_id="c"),
        "Watch": lambda: next(iter(as_b[1].watch(other_match))),
        "Replay": lambda: as_b[0].replay(other_match, 1),
    }.items():
        with pytest.raises(errors.PermissionDenied):
            call()
            pytest.fail(f"{rpc} answered another match's caller")
    # On its own match, seat 1's token sees seat 1's view and acts only as seat 1.
    view = as_b[0].get_view(first.match_id)
    assert view.seat == 1
    seat0 = connect().seat(first.match_id, first.seats[0].token).view()
    assert seat0.view != view.view  # each seat sees its own hand
    if 1 not in view.active_seats:
        action = seat0.raw_legal_actions[0] if seat0.legal_actions else b"{}"
        with pytest.raises(errors.Rejected):
            as_b[1].submit(first.match_id, action, command_id="as-seat-1")


def test_another_seats_command_id_is_refused_and_leaks_nothing(connect: Callable[..., Client]) -> None:
    created = create(connect())
    seat = connect().get_view(created.match_id).active_seats[0]
    mine = connect().seat(created.match_id, created.seats[seat].token)
    action = mine.view().raw_legal_actions[0]
    first = mine.submit(action, command_id="shared-id")
    assert first.version > created.version and not first.repeated
    other = connect(replica=1).seat(created.match_id, created.seats[1 - seat].token)
    with pytest.raises(errors.CommandIdInUse):
        other.submit(action, command_id="shared-id")
    again = (
        connect(replica=1)
        .seat(created.match_id, created.seats[seat].token)
        .submit(action, command_id="shared-id")
    )
    assert again.repeated and again.version == first.version
    assert [e.raw for e in again.events] == [e.raw for e in first.events]


# -- bad input: a precise answer, nothing written ----------------------------------------------


def test_bad_actions_get_a_precise_answer_and_change_nothing(connect: Callable[..., Client]) -> None:
    gh = connect()
    created = create(gh)
    match_id = created.match_id
    token = created.seats[gh.get_view(match_id).active_seats[0]].token
    seat = connect(replica=1).seat(match_id, token)
    before = gh.get_view(match_id).version

    with pytest.raises(errors.UnknownAction):
        seat.submit(b'{"type": "no_such_action"}')
    with pytest.raises((errors.UnknownAction, errors.IllegalAction)):
        seat.submit(b'{"type": "bid", "pawns": 3}')
    # Undecodable payloads are contract faults: INVALID_ARGUMENT, not a rejection.
    for garbage in (b"{not json", b"\xff\xfe"):
        with pytest.raises(errors.InvalidArgument):
            seat.submit(garbage)
    legal = connect().seat(match_id, token).view().raw_legal_actions[0]
    with pytest.raises(errors.StaleVersion):
        seat.submit(legal, expected_version=before + 7)
    with pytest.raises(errors.PermissionDenied):
        gh.for_token(token).submit("no-such-match", legal, command_id="x")
    assert gh.get_view(match_id).version == before


def test_a_ticket_with_options_the_game_refuses_is_invalid(connect: Callable[..., Client]) -> None:
    with pytest.raises(errors.InvalidArgument):
        connect().create_ticket(GAME, seats=2, player_id="p", options=b'{"no_such_option": 1}')


def test_unknown_matches_and_games_are_not_found_or_invalid(connect: Callable[..., Client]) -> None:
    gh = connect()
    with pytest.raises(errors.NotFound):
        gh.get_view("nope")
    with pytest.raises(errors.InvalidArgument):
        create(gh, game="chess")
    with pytest.raises(errors.InvalidArgument):
        create(gh, options=b'{"no_such_option": 1}')
    with pytest.raises(errors.InvalidArgument):
        create(gh, players=9)


def test_an_expired_or_foreign_token_is_unauthenticated(connect: Callable[..., Client], stack: Stack) -> None:
    created = create(connect())
    keyring = KeyRing.from_dir(stack.work_dir / "signing")
    expired, _ = Tokens(keyring.sign, keyring.verify, ttl_s=-1).issue("acme", created.match_id, 0)
    foreign_ring = KeyRing.generate(keyring.active)
    foreign, _ = Tokens(foreign_ring.sign, foreign_ring.verify).issue("acme", created.match_id, 0)
    for token in (expired, foreign):
        with pytest.raises(errors.Unauthenticated):
            connect(replica=1).for_token(token).get_view(created.match_id)


def test_a_finished_match_refuses_actions_with_game_over(
    connect: Callable[..., Client], played: Played
) -> None:
    ticket = played[GAME]["report"].tickets[0]
    with pytest.raises(errors.GameOver):
        connect().seat(ticket.match_id, ticket.seat_token).submit(b'{"type": "pass"}', command_id="late")


def test_a_repeated_create_with_the_same_id_returns_the_match_and_a_different_one_is_refused(
    connect: Callable[..., Client],
) -> None:
    match_id = f"fixed-{uuid.uuid4().hex[:8]}"
    first = create(connect(), match_id=match_id)
    again = create(connect(replica=1), match_id=match_id)
    assert again.match_id == first.match_id and again.seed_commitment == first.seed_commitment
    with pytest.raises(errors.GatewayError) as caught:
        create(connect(), match_id=match_id, players=3)
    assert caught.value.status == grpc.StatusCode.ALREADY_EXISTS


# -- quotas ----------------------------------------------------------------------------------


def test_over_quota_is_resource_exhausted_with_a_retry_hint(connect: Callable[..., Client]) -> None:
    # No retries: the library would otherwise wait out the gateway's hint and send again.
    slow = [connect(SLOW_KEY, replica=r, retries=0) for r in (0, 1)]
    created = [create(slow[0]) for _ in range(2)]
    with pytest.raises(errors.QuotaExceeded) as caught:
        create(slow[1])
    assert "active matches" in caught.value.details
    assert caught.value.retry_after_s is not None and caught.value.retry_after_s > 0
    # Actions: two per second; a burst of submissions is cut off with a retry hint.
    match = created[0]
    answers = []
    for n in range(6):
        try:
            slow[n % 2].seat(match.match_id, match.seats[0].token).submit(
                b'{"type": "x"}', command_id=f"q{n}"
            )
        except errors.Rejected as rejection:
            answers.append(rejection.code)
        except errors.QuotaExceeded:
            answers.append("quota")
    assert "quota" in answers
    # Reads: three per second, a bucket of their own; a burst of views is cut off too.
    with pytest.raises(errors.QuotaExceeded) as read_refused:
        for n in range(20):
            slow[n % 2].seat(match.match_id, match.seats[0].token).view()
    assert "reads per second" in read_refused.value.details
    # Tickets: two open at most (different options, so the two never pair with each other).
    for n in range(2):
        slow[0].create_ticket(GAME, seats=2, player_id=f"slow-{n}", options={"vp_token_value": n + 2})
    with pytest.raises(errors.QuotaExceeded):
        slow[1].create_ticket(GAME, seats=2, player_id="slow-3")


# -- timers ----------------------------------------------------------------------------------


def test_a_turn_timer_fires_once_across_two_replicas(connect: Callable[..., Client]) -> None:
    created = create(connect(), turn_timer=(1, "forfeit"))
    deadline = time.monotonic() + 30
    view = None
    while time.monotonic() < deadline:  # bounded wait for the timer; no timing is asserted
        view = connect(replica=1).get_view(created.match_id)
        if view.finished:
            break
        time.sleep(0.2)
    assert view is not None and view.finished, "the timer never fired"
    types = [e.type for e in connect(ACME_AUDITOR).read_events(created.match_id)]
    assert types[0] == "match_created" and types[-1] == "match_ended"
    # Both replicas run the timer loop; the expiry was acted on once: one timeout, one forfeit.
    assert types.count("turn_timed_out") == 1, types
    assert types.count("seat_resigned") == 1, types
    assert view.outcome["winners"]


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
