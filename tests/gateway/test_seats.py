"""Issues 39 and 41, the match use cases over real Redis and a real rules service: a private
table waits for its seats; a resigned (or absent) seat never wins; a seat whose timer ran out is
played by the platform's bot and handed back; a table nobody filled closes. The audit, the offline
verifier and the webhooks' ranks agree with every outcome."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgspec
import pytest
import redis
import redis.asyncio
from guildhall.common.v1.common_pb2 import Description

from gateway.botseats import BotSeats
from gateway.domain.audit import Replayed, gateway_event_problem
from gateway.domain.match import JSON, UNCLAIMED_REASON, MatchCreated, MatchEnded, Seating, standing_outcome
from gateway.domain.receipts import seed_commitment
from gateway.domain.timers import TimerPolicy
from gateway.eventstore.base import MatchKey, StoredEvent
from gateway.rules_client import Status
from gateway.usecases import GameMatches
from gateway.webhooks.derive import Deriver
from guildhall_client.ghx import verify_export
from services.kernel import NOT_YOUR_TURN
from tests.gateway.gwcore_support import gateway
from tests.gateway.test_matches import NIM, SEED, TAKE_ONE, _Timers
from tests.kernel.toy_game import GAME


@pytest.fixture
def url(redis_url: str, redis_client: redis.Redis) -> str:
    return redis_url  # redis_client flushed the database


async def _agreed(matches: GameMatches, key: MatchKey) -> dict[str, Any]:
    """The audit and the offline verifier pass; the match.ended webhook's data."""
    assert (await matches.audit(key)).ok
    assert verify_export((await matches.export(key)).data, games=[GAME]).ok
    meta = await matches.store.meta(key)
    stream = await matches.store.read(key, after_version=0)

    async def whole() -> Any:
        return stream

    events = await Deriver(None).events(key, meta, stream, whole, lambda kind: True)
    return next(e.data for e in events if e.event_type == "match.ended")


# -- resigning -----------------------------------------------------------------------------------


def test_a_resigned_seat_never_wins_even_when_the_rules_say_it_did(url: str, targets: dict[str, str]) -> None:
    """Issue 39 item 5 (Waterdeep's resigned player won 88-69): seat 2 resigns; the gateway's move
    for it takes the last counter, which wins Secret Nim by its rules. The match's outcome gives
    the win to the seats that stayed and marks seat 2 as resigned, and so do the view, the
    webhook's winners and ranks, the audit and the offline verifier."""

    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            ended_here: list[MatchKey] = []

            async def on_ended(key: MatchKey) -> None:
                ended_here.append(key)

            matches.on_ended = on_ended  # the quota's place (bootstrap): released however it ends
            created = await matches.create(
                "acme", NIM, ["ann", "bob", "cy"], b'{"pile": 3}', match_id="r1", seed=SEED
            )
            key = created.key
            assert (await matches.resign(key, 2, command_id="bye")).accepted
            for seat in (0, 1):
                assert (await matches.submit(key, seat, TAKE_ONE, command_id=f"t{seat}")).accepted
            view = await matches.get_view(key, None)  # seat 2's move (the last counter) was made for it
            assert view.finished and view.resigned == (2,) and ended_here == [key]
            outcome = json.loads(view.outcome_json)
            assert outcome["winners"] == [0, 1], outcome
            assert [r["note"] for r in outcome["results"] if r["player"] == 2] == ["resigned"]
            ended = await _agreed(matches, key)
            assert ended["reason"] == "finished" and ended["winners"] == [0, 1]
            ranks = {p["seat"]: (p["rank"], p["left"]) for p in ended["players"]}
            assert ranks == {0: (1, False), 1: (1, False), 2: (3, True)}
            refused = await matches.submit(key, 2, TAKE_ONE, command_id="ghost")
            assert refused.rejection is not None and "seat 2" not in refused.rejection.message

    asyncio.run(scenario())


def test_the_waterdeep_case_the_other_seat_wins_with_fewer_points() -> None:
    """The outcome of issue 39's report: the seat that resigned had 88 VP, the other 69."""
    rules = b'{"winners":[1],"results":[{"player":0,"score":69},{"player":1,"score":88}]}'
    standing = json.loads(standing_outcome(rules, 2, Seating(resigned=frozenset({1}))))
    assert standing["winners"] == [0]
    assert [(r["player"], r["score"], r["note"]) for r in standing["results"]] == [
        (0, 69, ""),
        (1, 88, "resigned"),
    ]
    # Nobody left: the rules' outcome, byte for byte.
    assert standing_outcome(rules, 2, Seating()) == rules
    # A seat away at the end (a bot played for it) finishes behind too, and says why.
    away = json.loads(standing_outcome(rules, 2, Seating(away=frozenset({1}))))
    assert away["winners"] == [0] and "away" in away["results"][1]["note"]


def test_a_match_begun_under_the_old_policy_is_audited_by_it() -> None:
    """Matches begun before issue 39 (policy 0 in match_created) are judged as they were played:
    their rules' outcome stands, so their audit does not fail after the upgrade; a match of
    policy 1 must state the standing outcome instead."""
    rules = b'{"winners":[1],"results":[{"player":0,"score":69},{"player":1,"score":88}]}'
    standing = standing_outcome(rules, 2, Seating(resigned=frozenset({1})))
    for policy, stated, problem in (
        (0, rules, ""),
        (0, standing, "match_ended does not state the re-executed outcome"),
        (1, standing, ""),
        (1, rules, "match_ended does not state the re-executed outcome"),
    ):
        created = MatchCreated("g", "r1", 2, seed_commitment(SEED), msgspec.Raw(b"{}"), policy=policy)
        replayed = Replayed(9, None, Status((), True, rules), Seating(resigned=frozenset({1})))
        payload = JSON.encode(MatchEnded("finished", msgspec.Raw(stated), SEED.hex()))
        entry = StoredEvent(10, "match_ended", "gateway", "c", payload, "r1", 0, "0" * 64, "0" * 64)
        assert gateway_event_problem(entry, created, SEED, replayed) == problem, policy


# -- a private table waits for its seats ----------------------------------------------------------


def test_a_table_does_not_play_until_every_waiting_seat_is_claimed(url: str, targets: dict[str, str]) -> None:
    """Issue 39 item 4 (a table nobody joined went from version 1 to 15 in 6 s): no clock, no
    move and no resigned seat's move before the seats are claimed; then play starts."""

    async def scenario() -> None:
        timers = _Timers()
        async with gateway(url, targets, timers=timers) as matches:
            created = await matches.create(
                "acme", NIM, ["seat-0", "seat-1", "seat-2"], b"", match_id="t1", seed=SEED,
                turn_timer=TimerPolicy(1, "random_action"), awaiting=[0, 1, 2],
            )  # fmt: skip
            key = created.key
            view = await matches.get_view(key, 0)
            assert view.active_seats == () and view.legal_actions == () and view.unclaimed == (0, 1, 2)
            refused = await matches.submit(key, 0, TAKE_ONE, command_id="early")
            assert refused.rejection is not None and refused.rejection.code == NOT_YOUR_TURN
            assert "waiting for its players" in refused.rejection.message
            assert await matches.on_timer(key, 1, 0, "random_action") is None
            await matches.claim_seat(key, 0)
            await matches.claim_seat(key, 0)  # a repeat appends nothing
            assert (
                await matches.resign(key, 1, command_id="bye")
            ).accepted  # before the start: no move for it
            assert (await matches.get_view(key, None)).version == 3
            await matches.claim_seat(key, 2)
            assert timers.armed == []  # no clock ran while the table waited
            await matches.claim_seat(key, 1)
            view = await matches.get_view(key, 0)
            assert view.unclaimed == () and view.active_seats == (0,) and view.legal_actions
            assert timers.armed == [("t1", view.version, 0, "random_action")]
            types = [e.type for e in await matches.events_since(key, None, 0)]
            assert types == ["match_created", "seat_claimed", "seat_resigned", "seat_claimed", "seat_claimed"]
            assert (await matches.submit(key, 0, TAKE_ONE, command_id="go")).accepted
            assert (await matches.audit(key)).ok

    asyncio.run(scenario())


def test_a_table_not_filled_in_time_closes_with_nobody_winning(url: str, targets: dict[str, str]) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            created = await matches.create(
                "acme", NIM, ["seat-0", "seat-1"], b"", match_id="c1", seed=SEED, awaiting=[0, 1]
            )
            await matches.claim_seat(created.key, 0)
            closed = await matches.close_unclaimed(created.key)
            assert closed is not None and [e.type for e in closed.events] == ["match_ended"]
            ended = json.loads(closed.events[0].payload_json)
            assert ended["reason"] == "unclaimed" and ended["outcome"] == {
                "winners": [],
                "results": [],
                "reason": UNCLAIMED_REASON,
            }
            assert await matches.close_unclaimed(created.key) is None  # once
            assert (await _agreed(matches, created.key))["winners"] == []
            full = await matches.create("acme", NIM, ["a", "b"], b"", match_id="c2", seed=SEED, awaiting=[1])
            await matches.claim_seat(full.key, 1)
            assert await matches.close_unclaimed(full.key) is None  # it filled in time: it plays on

    asyncio.run(scenario())


# -- away seats (issue 41 item 2) -------------------------------------------------------------------


def test_an_away_seat_is_played_by_the_platform_bot_and_handed_back(
    url: str, targets: dict[str, str]
) -> None:
    """A seat's timer runs out under the "bot" policy: it is marked away and enlisted for the bot
    worker, whose token may act for it; the player's next action takes it back (the bot's are
    then refused and its lease is gone), as does "I'm back"; a seat away at the end of the match
    finishes behind the seats that were there."""

    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            bots = BotSeats(redis.asyncio.Redis.from_url(url))
            matches.bot_seats = bots
            created = await matches.create(
                "acme", NIM, ["ann", "bob"], b'{"pile": 40}', match_id="a1", seed=SEED,
                turn_timer=TimerPolicy(30, "bot"),
            )  # fmt: skip
            key = created.key
            timed_out = await matches.on_timer(key, 1, 0, "bot")
            assert timed_out is not None and [e.type for e in timed_out.events] == [
                "turn_timed_out",
                "seat_away",
            ]
            assert [Description.FromString(e.description).text for e in timed_out.events] == [
                "Player 1's turn timed out",
                "Player 1 is away: a bot plays for them until they are back",
            ]
            assert (await matches.get_view(key, None)).away == (0,)
            assert await matches.store.meta(key) and (await matches.store.meta(key))["away"] == "[0]"
            leases = await bots.claim("worker-1", 10, 30)
            assert [(lease.match_id, lease.seat, lease.kind) for lease in leases] == [("a1", 0, "greedy")]
            by_bot = await matches.submit(key, 0, TAKE_ONE, command_id="bot-1", by_bot=True)
            assert by_bot.accepted and (await matches.get_view(key, None)).away == (0,)
            assert (await matches.submit(key, 1, TAKE_ONE, command_id="bob-1")).accepted
            # The seat's timer runs out again while it is away (no worker reached it): a move is made.
            version = (await matches.get_view(key, None)).version
            again = await matches.on_timer(key, version, 0, "bot")
            assert again is not None and [e.type for e in again.events][:1] == ["turn_timed_out"]
            assert "seat_away" not in [e.type for e in again.events]
            assert (await matches.submit(key, 1, TAKE_ONE, command_id="bob-2")).accepted
            # Ann acts herself: the seat is hers again.
            back = await matches.submit(key, 0, TAKE_ONE, command_id="ann-1")
            assert back.accepted and back.events[0].type == "seat_returned"
            assert (await matches.get_view(key, None)).away == ()
            assert await bots.renew([leases[0].lease_id], 30) == []  # the worker's lease is gone
            refused = await matches.submit(key, 0, TAKE_ONE, command_id="bot-2", by_bot=True)
            assert refused.rejection is not None and "the player is back" in refused.rejection.message
            # Away again, back by saying so; saying so when not away is refused.
            version = (await matches.get_view(key, None)).version
            assert (await matches.submit(key, 1, TAKE_ONE, command_id="bob-3")).accepted
            version = (await matches.get_view(key, None)).version
            assert await matches.on_timer(key, version, 0, "bot") is not None
            returned = await matches.return_to_seat(key, 0, command_id="im-back")
            assert returned.accepted and [e.type for e in returned.events] == ["seat_returned"]
            not_away = await matches.return_to_seat(key, 0, command_id="im-back-2")
            assert not_away.rejection is not None and not_away.rejection.code == NOT_YOUR_TURN
            assert (await matches.return_to_seat(key, 0, command_id="im-back")).repeated
            # Away at the end: the bot finishes the match for Ann, who does not win it.
            version = (await matches.get_view(key, None)).version
            assert await matches.on_timer(key, version, 0, "bot") is not None
            final = await _play_on(matches, key, bot_plays=0)
            outcome = json.loads(final.outcome_json)
            assert final.away == (0,) and 0 not in outcome["winners"] and outcome["winners"] == [1]
            ended = await _agreed(matches, key)
            assert ended["winners"] == [1]
            places = {p["seat"]: (p["rank"], p["left"]) for p in ended["players"]}
            assert places == {0: (2, True), 1: (1, False)}
            await bots.redis.aclose()

    asyncio.run(scenario())


async def _play_on(matches: GameMatches, key: MatchKey, *, bot_plays: int) -> Any:
    """Every turn the waiting seat takes one counter, `bot_plays`'s with the bot worker's token."""
    for turn in range(100):
        view = await matches.get_view(key, None)
        if view.finished:
            return view
        seat = view.active_seats[0]
        outcome = await matches.submit(
            key, seat, TAKE_ONE, command_id=f"end-{turn}", by_bot=seat == bot_plays
        )
        assert outcome.accepted, outcome.rejection
    raise AssertionError("the match did not end")
