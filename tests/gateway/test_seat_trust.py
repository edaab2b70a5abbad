"""Issue 39 (items 1-5 and 15) and issue 41 item 2 from outside, as the report tried them: a real
gateway process (gRPC and HTTP) over real Redis, Rattus Cartus's real rules service and the
platform's bot worker, called through the client library, grpc stubs and plain HTTP, with a
tenant's API key and the web table's publishable key.

- a seat is claimed once: another player's id (read in seat_names), a bot's id or the same id
  again take no seat; only the seat's resume secret moves it to another device, once;
- the publishable key's spectator streams have their own budget: players' Watch stays open;
- its tables do not count against the backend's active_matches and have a cap of their own;
  its tables per minute are bucketed per client address too; an unclaimed table closes;
- a table plays nothing until its seats are claimed; the key may not ask for a 1 s timer;
- a resigned seat is marked in every view and told to everyone;
- names that show nothing or impersonate a label or another seat are refused;
- a seat whose timer ran out is played by the platform's bot, marked away, and handed back.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from devstack.stack import Stack
from gateway.auth import hash_key
from gateway.domain.match import UNCLAIMED_REASON
from guildhall_client import Client, errors

GAME = "rattus_cartus"
WEB_SPECTATORS_PER_TABLE, WEB_SPECTATORS_PER_TENANT, STREAMS_PER_TENANT = 2, 3, 4


def _tenant(name: str, **body: Any) -> tuple[dict[str, Any], str, str]:
    key, publishable = f"ghk_{name}-key-{'0' * 30}", f"ghk_{name}-publishable-{'0' * 24}"
    keys = [
        {"id": f"{name}-app", "sha256": hash_key(key), "scopes": ["tenant", "auditor"]},
        {"id": f"{name}-web", "sha256": hash_key(publishable), "scopes": ["publishable"]},
    ]
    return {"keys": keys, **body}, key, publishable


TENANTS = {
    # Claims, names, resigning: no clock on web tables (the tests act at their own pace).
    "claims": _tenant(
        "claims", quotas={"tables_per_minute_per_address": 100}, tables={"turn_timer": {"seconds": 0}}
    ),
    "caps": _tenant(
        "caps",
        quotas={"active_matches": 2, "web_tables": 3, "tables_per_minute_per_address": 100},
        tables={"turn_timer": {"seconds": 0}},
    ),
    "flow": _tenant(
        "flow", quotas={"tables_per_minute_per_address": 2}, tables={"turn_timer": {"seconds": 0}}
    ),
    "expiry": _tenant("expiry", tables={"unclaimed_seconds": 1, "turn_timer": {"seconds": 0}}),
    "lazy": _tenant("lazy", turn_timer={"seconds": 1, "policy": "random_action"}),
    "away": _tenant("away", tables={"turn_timer": {"seconds": 3, "policy": "bot"}}),
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("seat-trust")
    document = {"tenants": {name: body for name, (body, _, _) in TENANTS.items()}}
    with Stack(
        [GAME],
        gateways=1,
        tenants=document,
        work_dir=work,
        log_dir=work / "logs",
        gateway_env={
            "HTTP_PORT": "any",
            "TRUSTED_PROXIES": "127.0.0.1/32",  # the test plays the ingress: X-Forwarded-For counts
            "MAX_WEB_SPECTATORS_PER_TABLE": str(WEB_SPECTATORS_PER_TABLE),
            "MAX_WEB_SPECTATORS_PER_TENANT": str(WEB_SPECTATORS_PER_TENANT),
            "MAX_STREAMS_PER_TENANT": str(STREAMS_PER_TENANT),
        },
        start_timeout_s=60.0,
        bot_workers=1,
        bot_think_s=0.3,
    ) as running:
        yield running


@pytest.fixture(scope="module")
def connect(stack: Stack) -> Iterator[Callable[[str], Client]]:
    opened: dict[str, Client] = {}

    def get(credential: str) -> Client:
        if credential not in opened:
            opened[credential] = Client(stack.gateway_targets[0], api_key=credential)
        return opened[credential]

    yield get
    for client in opened.values():
        client.close()


def keys(tenant: str) -> tuple[str, str]:
    """(the tenant's API key, its publishable key)."""
    return TENANTS[tenant][1], TENANTS[tenant][2]


def _http(stack: Stack, rpc: str, credential: str, body: dict[str, Any], **headers: str) -> tuple[int, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{stack.http_port}/guildhall.gateway.v1.GatewayService/{rpc}",
        data=json.dumps(body).encode(),
        headers={"authorization": f"Bearer {credential}", "content-type": "application/json", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _wait(what: str, check: Callable[[], Any], within_s: float = 60.0) -> Any:
    """A bounded wait for something the gateway does on its own (no timing is asserted)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"never saw: {what}")


# -- item 1: a seat is claimed once; a resume secret moves it ------------------------------------


def test_a_seat_is_claimed_once_and_moves_only_with_its_resume_secret(
    stack: Stack, connect: Callable[[str], Client]
) -> None:
    _, web = keys("claims")
    page = connect(web)
    table = page.create_table(GAME, 3, bots={2: "random"})
    ann = page.claim_seat(table.invite_code, "alice", "Ann")
    assert ann.number == 0 and ann.resume_secret.startswith("ghs1.")
    bob_claim = uuid.uuid4().hex
    bob = page.claim_seat(table.invite_code, "bob", claim_id=bob_claim)  # no name: "bob" is shown
    names = page.for_token(ann.token).get_view(table.match_id).seat_names
    assert names[:2] == ("Ann", "bob")
    # What the report did: claim with ids read in seat_names, with the bot's id, and again.
    for player in ("alice", "bob", "bot-random-2", "mallory"):
        with pytest.raises(errors.SeatTaken):
            page.claim_seat(table.invite_code, player)
    # The same claim sent again with its claim id (a lost reply) is the one repeat answered.
    retried = page.claim_seat(table.invite_code, "bob", claim_id=bob_claim)
    assert retried.number == bob.number == 1
    # Bob moves to his phone with the resume secret; it works once; the new one works.
    secret = retried.resume_secret
    phone = page.resume_seat(secret)
    assert (phone.match_id, phone.number) == (table.match_id, 1) and phone.resume_secret != secret
    with pytest.raises(errors.BadInvite):
        page.resume_seat(secret)
    view = page.for_token(phone.token).get_view(table.match_id)
    assert view.seat == 1 and view.my_turn
    page.for_token(phone.token).submit(table.match_id, view.legal_actions[0])
    # Never another seat's secret: not in any view, event or raw entry, nor in the gateway's log.
    auditor = connect(keys("claims")[0])
    shown = [
        page.for_token(ann.token).get_view(table.match_id),
        page.for_token(table.spectator_token).get_view(table.match_id),
        *auditor.read_events(table.match_id),
    ]
    text = repr(shown) + (Path(stack.work_dir or "") / "logs" / "gateway-0.log").read_text()  # type: ignore[operator]
    assert "ghs1." not in text


def test_the_resume_secret_over_http_is_the_same_contract(
    stack: Stack, connect: Callable[[str], Client]
) -> None:
    _, web = keys("claims")
    table = connect(web).create_table(GAME, 2)
    status, claimed = _http(stack, "ClaimSeat", web, {"invite_code": table.invite_code, "player_id": "ann"})
    assert status == 200 and claimed["resumeSecret"].startswith("ghs1.")
    status, moved = _http(stack, "ResumeSeat", web, {"resume_secret": claimed["resumeSecret"]})
    assert status == 200 and moved["matchId"] == table.match_id and moved["seat"]["token"]
    status, again = _http(stack, "ResumeSeat", web, {"resume_secret": claimed["resumeSecret"]})
    assert status == 200 and again["rejection"]["code"] == "bad_invite"
    # A tenant's key resumes its tenant's seats only: another tenant's secret is no seat.
    other_key, _ = keys("flow")
    status, foreign = _http(stack, "ResumeSeat", other_key, {"resume_secret": moved["resumeSecret"]})
    assert status == 200 and foreign["rejection"]["code"] == "bad_invite"


# -- item 15: names ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["\u3164", "\u2800\u2800", "\u200b", "Player 1", "Bot 5 (greedy)", "Spectator", "ANN", "Ａnn (you)"],
)
def test_a_name_that_shows_nothing_or_impersonates_is_refused_and_takes_no_seat(
    connect: Callable[[str], Client], name: str
) -> None:
    _, web = keys("claims")
    page = connect(web)
    table = page.create_table(GAME, 3)
    page.claim_seat(table.invite_code, "alice", "Ann")
    with pytest.raises(errors.GatewayError) as refused:
        page.claim_seat(table.invite_code, "mallory", name)
    assert refused.value.status == grpc.StatusCode.INVALID_ARGUMENT and "display_name" in str(refused.value)
    assert page.claim_seat(table.invite_code, "mallory", "Mallory").number == 1  # nothing was taken


# -- item 2: the publishable key's spectators have their own budget --------------------------------


def test_web_spectators_cannot_refuse_a_players_watch(stack: Stack, connect: Callable[[str], Client]) -> None:
    """Spectator tokens from the publishable key fill their own budget (per table, per tenant),
    never the tenant's players' (MAX_STREAMS_PER_TENANT): the report's five tables' feeds
    refused every real player's Watch."""
    key, web = keys("claims")
    stub = gateway_pb2_grpc.GatewayServiceStub(grpc.insecure_channel(stack.gateway_targets[0]))
    tables = [connect(web).create_table(GAME, 2) for _ in range(2)]
    opened: list[Any] = []

    def watch(token: str, match_id: str) -> grpc.StatusCode:
        stream = stub.Watch(
            pb.WatchRequest(match_id=match_id), metadata=[("authorization", f"Bearer {token}")]
        )
        try:
            next(stream)
        except grpc.RpcError as error:
            return error.code()  # type: ignore[no-any-return]
        opened.append(stream)
        return grpc.StatusCode.OK

    try:
        spectators = [
            watch(t.spectator_token, t.match_id) for t in tables for _ in range(WEB_SPECTATORS_PER_TABLE + 1)
        ]
        # Two per table, three for the tenant's web tables: the rest refused.
        assert spectators.count(grpc.StatusCode.OK) == WEB_SPECTATORS_PER_TENANT
        assert set(spectators) == {grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED}
        # Every real player's (and the backend's) stream still opens, up to the tenant's own cap.
        match = connect(key).create_match(GAME, ["p", "q"])
        players = [watch(seat.token, match.match_id) for seat in match.seats]
        players.append(watch(key, match.match_id))
        assert players == [grpc.StatusCode.OK] * 3
    finally:
        for stream in opened:
            stream.cancel()


# -- item 3: the publishable key cannot lock out the backend ---------------------------------------


def test_web_tables_have_their_own_cap_and_leave_the_backends_matches_alone(
    connect: Callable[[str], Client],
) -> None:
    key, web = keys("caps")
    for _ in range(3):
        connect(web).create_table(GAME, 2)
    with pytest.raises(errors.QuotaExceeded) as refused:
        connect(web).create_table(GAME, 2)
    assert "web tables" in str(refused.value)
    # The backend's two active matches are all its own.
    for _ in range(2):
        connect(key).create_match(GAME, ["p", "q"])
    with pytest.raises(errors.QuotaExceeded):
        connect(key).create_match(GAME, ["p", "q"])


def test_one_visitor_cannot_drain_the_publishable_keys_tables(stack: Stack) -> None:
    """tables_per_minute_per_address (2 here): a visitor over it is refused, another is not.
    The gateway believes X-Forwarded-For from TRUSTED_PROXIES only (here the test's address)."""
    _, web = keys("flow")
    table = {"game_id": GAME, "seats": 2}
    visitor = {"x-forwarded-for": "203.0.113.7"}
    answers = [_http(stack, "CreateTable", web, table, **visitor)[0] for _ in range(3)]
    assert answers == [200, 200, 429]
    status, body = _http(stack, "CreateTable", web, table, **visitor)
    assert status == 429 and "from this address" in body["message"]
    assert _http(stack, "CreateTable", web, table, **{"x-forwarded-for": "198.51.100.20"})[0] == 200


def test_a_web_table_nobody_filled_closes_and_frees_its_place(connect: Callable[[str], Client]) -> None:
    key, web = keys("expiry")
    table = connect(web).create_table(GAME, 2)
    connect(web).claim_seat(table.invite_code, "ann", "Ann")
    ended = _wait("the unclaimed table closed", lambda: _finished(connect(key), table.match_id))
    assert ended.winners == () and ended.outcome == {"winners": [], "results": [], "reason": UNCLAIMED_REASON}
    events = connect(key).read_events(table.match_id)
    assert json.loads(events[-1].payload)["reason"] == "unclaimed"
    with pytest.raises(errors.BadInvite):
        connect(web).claim_seat(table.invite_code, "bob", "Bob")
    assert connect(key).audit(table.match_id).ok


def _finished(client: Client, match_id: str) -> Any:
    view = client.get_view(match_id)
    return view if view.finished else None


# -- item 4: an unclaimed table does not play itself -----------------------------------------------


def test_an_unclaimed_table_does_not_play_itself(connect: Callable[[str], Client]) -> None:
    """The report: a table nobody joined, a 1 s random timer and a platform bot, went from
    version 1 to 15 in 6 s. Now nothing happens until its human seat is claimed."""
    key, web = keys("lazy")
    table = connect(key).create_table(GAME, 2, bots={1: "random"}, turn_timer=(1, "random_action"))
    time.sleep(4)  # four timer periods; the bot worker polls every second
    view = connect(key).get_view(table.match_id)
    assert view.version == 1 and view.unclaimed_seats == frozenset({0}) and view.active_seats == ()
    # The publishable key cannot ask for a timer that plays a table at speed.
    with pytest.raises(errors.GatewayError) as refused:
        connect(web).create_table(GAME, 2, turn_timer=(1, "random_action"))
    assert refused.value.status == grpc.StatusCode.INVALID_ARGUMENT and "at least 20" in str(refused.value)
    # Once claimed, it plays: the timer and the bot act.
    connect(key).claim_seat(table.invite_code, "ann", "Ann")
    _wait("the table started", lambda: connect(key).get_view(table.match_id).version > 3)


# -- item 5: resigning ------------------------------------------------------------------------------


def test_a_resigned_seat_is_marked_in_every_view_and_everyone_is_told(
    stack: Stack, connect: Callable[[str], Client]
) -> None:
    _, web = keys("claims")
    page = connect(web)
    table = page.create_table(GAME, 3, bots={2: "random"})
    ann = page.claim_seat(table.invite_code, "alice", "Ann")
    bob = page.claim_seat(table.invite_code, "bob", "Bob")
    as_bob = page.for_token(bob.token)
    as_bob.resign(table.match_id)
    for viewer in (ann.token, bob.token, table.spectator_token):
        assert page.for_token(viewer).get_view(table.match_id).resigned_seats == frozenset({1})
    update = next(iter(page.for_token(ann.token).watch(table.match_id, 0)))
    said = [e.description.text for e in update.events if e.type == "seat_resigned"]
    assert said == ["Player 2 resigns: the platform makes their remaining moves, and they finish last"]
    # Over HTTP (the web table's shape) the mark is in the view too.
    status, body = _http(stack, "GetView", table.spectator_token, {"match_id": table.match_id})
    assert status == 200 and body["resignedSeats"] == [1]
    # Acting again is refused in the player's words, not "seat 1".
    with pytest.raises(errors.Rejected) as refused:
        as_bob.resign(table.match_id)
    assert "you resigned" in str(refused.value) and "seat 1" not in str(refused.value)


# -- issue 41 item 2: an absent player's seat goes to the bot, and comes back -------------------------


def test_an_absent_players_seat_is_played_by_the_bot_and_taken_back(connect: Callable[[str], Client]) -> None:
    """A web table's default timer (3 s here, "bot"): Bob does nothing, so his seat is marked away
    and the platform's bot worker plays it; Bob says "I'm back" and the seat is his again."""
    _, web = keys("away")
    page = connect(web)
    table = page.create_table(GAME, 2, bots={0: "random"})
    bob = page.claim_seat(table.invite_code, "bob", "Bob")
    as_bob = page.for_token(bob.token)
    away = _wait("Bob's seat marked away", lambda: 1 in as_bob.get_view(table.match_id).away_seats)
    assert away
    auditor = connect(keys("away")[0])

    def bot_played_for_bob() -> bool:
        entries = auditor.read_events(table.match_id)
        marked = next(e.version for e in entries if e.type == "seat_away")
        return any(e.actor == "seat:1" and e.version > marked for e in entries)

    _wait("the bot playing Bob's seat", bot_played_for_bob)
    as_bob.return_to_seat(table.match_id)
    view = as_bob.get_view(table.match_id)
    assert 1 not in view.away_seats
    types = [e.type for e in auditor.read_events(table.match_id)]
    assert "seat_returned" in types and types.index("seat_returned") > types.index("seat_away")
    assert auditor.audit(table.match_id).ok
