"""The match use cases (GameMatches) over real Redis and a real rules service on loopback."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import grpc
import pytest
import redis
import redis.asyncio.cluster

from devstack.cluster import LocalCluster
from gateway.domain.receipts import receipt_message, seed_commitment
from gateway.domain.timers import TimerPolicy
from gateway.eventstore.base import CommandIdReused, MatchKey
from gateway.eventstore.redis_store import match_keys
from gateway.rules_client import AsyncRulesClient
from gateway.signing import KeyRing
from gateway.usecases import (
    GameMatches,
    InvalidRequest,
    MatchExists,
    MatchNotFound,
    UnknownGame,
)
from services.kernel import GAME_OVER, NOT_YOUR_TURN, STALE_VERSION, UNKNOWN_PLAYER
from services.kernel.rejection import COMMAND_ID_IN_USE
from tests.gateway.gwcore_support import entries_of, gateway, play_first_legal
from tests.kernel.toy_game import GAME

NIM = GAME.game_id
TAKE_ONE = b'{"type": "take", "count": 1}'
SEED = bytes(range(32))


@pytest.fixture
def url(redis_url: str, redis_client: redis.Redis) -> str:
    return redis_url  # redis_client flushed the database


def _key(match_id: str = "m1") -> MatchKey:
    return MatchKey("acme", match_id)


async def _create(matches: GameMatches, players: int = 2, **options: Any) -> MatchKey:
    names = [f"p{n}" for n in range(players)]
    created = await matches.create("acme", NIM, names, b"", match_id="m1", seed=SEED, **options)
    return created.key


def _play_card_of(view_json: bytes) -> bytes:
    hand = json.loads(view_json)["hand"]
    return json.dumps({"type": "play_card", "value": min(hand)}).encode()


# -- creation ----------------------------------------------------------------------------------------


def test_a_match_opens_with_a_public_match_created_that_commits_to_the_seed_without_revealing_it(
    url: str, targets: dict[str, str], redis_client: redis.Redis
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            created = await matches.create(
                "acme", NIM, ["ann", "bob"], b'{"pile": 9}', match_id="m1", seed=SEED
            )
            assert created.created and created.version == 1
            assert created.seed_commitment == seed_commitment(SEED)
            (first,) = await matches.events_since(created.key, 0, 0)
            body = json.loads(first.payload_json)
            assert first.type == "match_created" and first.actor == -1
            assert body["seed_commitment"] == seed_commitment(SEED) and body["options"] == {"pile": 9}
            assert (
                SEED.hex() not in first.payload_json.decode() and 'seed"' not in first.payload_json.decode()
            )
            view = await matches.get_view(created.key, None)
            assert json.loads(view.view_json)["pile"] == 9 and view.players == ("ann", "bob")

    asyncio.run(scenario())
    assert redis_client.hget(match_keys(_key()).meta, "seed") == SEED.hex().encode()  # server side only


def test_a_drawn_seed_is_256_random_bits_and_differs_per_match(url: str, targets: dict[str, str]) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            a = await matches.create("acme", NIM, ["x", "y"], match_id="a")
            b = await matches.create("acme", NIM, ["x", "y"], match_id="b")
            assert a.seed_commitment != b.seed_commitment

    asyncio.run(scenario())


def test_creating_the_same_match_again_returns_it_and_other_settings_are_refused(
    url: str, targets: dict[str, str], redis_client: redis.Redis
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as replica_a, gateway(url, targets) as replica_b:
            first = await replica_a.create("acme", NIM, ["x", "y"], match_id="m1")
            again = await replica_b.create("acme", NIM, ["x", "y"], match_id="m1")  # a retried pairing
            assert not again.created and again.seed_commitment == first.seed_commitment
            with pytest.raises(MatchExists):
                await replica_b.create("acme", NIM, ["x", "y", "z"], match_id="m1")

    asyncio.run(scenario())
    assert redis_client.xlen(match_keys(_key()).events) == 1


def test_unknown_games_bad_options_and_bad_seat_counts_write_nothing(
    url: str, targets: dict[str, str], redis_client: redis.Redis
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            with pytest.raises(UnknownGame):
                await matches.create("acme", "chess", ["x", "y"], match_id="m1")
            for players, options in ((["x"] * 9, b""), (["x", "y"], b'{"pile": "many"}')):
                with pytest.raises(grpc.aio.AioRpcError) as error:
                    await matches.create("acme", NIM, players, options, match_id="m1")
                assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            with pytest.raises(ValueError):
                await matches.create("acme", NIM, ["x", "y"], match_id="bad:id")

    asyncio.run(scenario())
    assert redis_client.keys("gh:*") == []


# -- play --------------------------------------------------------------------------------------------


def test_an_accepted_action_returns_its_events_for_the_actor_and_a_receipt_that_verifies(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        keyring = KeyRing.generate("k7")
        async with gateway(url, targets, keyring) as matches:
            key = await _create(matches)
            view = await matches.get_view(key, 0)
            outcome = await matches.submit(key, 0, _play_card_of(view.view_json), command_id="c1")
            assert outcome.accepted and outcome.version == 3 and not outcome.repeated
            taken, dealt = outcome.events
            assert (taken.type, dealt.type) == ("counters_taken", "card_dealt")
            assert json.loads(dealt.payload_json)["value"] is not None  # the actor sees its own draw
            receipt = outcome.receipt
            assert receipt is not None and receipt.version == 3 and dealt.receipt == receipt
            message = receipt_message("acme", "m1", 3, receipt.head_hash)
            (public,) = matches.public_keys()
            assert public.key_id == receipt.key_id == "k7"
            assert keyring.verify(receipt.key_id, message, receipt.signature)
            # Others see the draw hidden.
            other = await matches.events_since(key, 1, 1)
            assert json.loads(other[1].payload_json)["value"] is None
            spectator = await matches.events_since(key, None, 1)
            assert json.loads(spectator[1].payload_json)["value"] is None

    asyncio.run(scenario())


def test_submit_with_another_seats_command_id_is_refused_and_hands_back_nothing(
    url: str, targets: dict[str, str], redis_client: redis.Redis
) -> None:
    """Regression: this used to hand back that seat's drawn cards."""

    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            key = await _create(matches)
            view = await matches.get_view(key, 0)
            drew = await matches.submit(key, 0, _play_card_of(view.view_json), command_id="c1")
            assert drew.accepted
            stolen = await matches.submit(key, 1, TAKE_ONE, command_id="c1")
            assert not stolen.accepted and not stolen.events
            assert stolen.rejection is not None and stolen.rejection.code == COMMAND_ID_IN_USE

    asyncio.run(scenario())
    assert redis_client.xlen(match_keys(_key()).events) == 3


def test_the_creates_command_id_hands_back_nothing_to_a_seat(
    url: str, targets: dict[str, str], redis_client: redis.Redis
) -> None:
    """Regression: a seat submitting with the create's id used to get match_created with the seed."""

    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            await matches.create("acme", NIM, ["x", "y"], match_id="m1", seed=SEED, command_id="mk-1")
            outcome = await matches.submit(_key(), 0, TAKE_ONE, command_id="mk-1")
            assert not outcome.accepted and not outcome.events
            assert outcome.rejection is not None and outcome.rejection.code == COMMAND_ID_IN_USE
            default = await matches.create("acme", NIM, ["x", "y"], match_id="m2", seed=SEED)
            assert default.created
            for events in [await matches.events_since(MatchKey("acme", "m2"), 0, 0)]:
                assert SEED.hex() not in events[0].payload_json.decode()

    asyncio.run(scenario())
    assert redis_client.xlen(match_keys(_key()).events) == 1


def test_a_repeated_command_returns_its_first_result_redacted_for_its_seat_even_later(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches, gateway(url, targets) as cold_replica:
            key = await _create(matches)
            view = await matches.get_view(key, 0)
            first = await matches.submit(key, 0, _play_card_of(view.view_json), command_id="c1")
            await matches.submit(key, 1, TAKE_ONE, command_id="c2")  # the match moves on
            for replica in (matches, cold_replica):
                again = await replica.submit(key, 0, _play_card_of(view.view_json), command_id="c1")
                assert again.accepted and again.repeated and again.version == first.version
                assert [e.payload_json for e in again.events] == [e.payload_json for e in first.events]
                assert again.receipt == first.receipt
            assert (await matches.get_view(key, None)).version == 4

    asyncio.run(scenario())


@pytest.mark.parametrize("store", ["redis", "redis-cluster"])
def test_a_command_id_sent_again_with_another_action_is_refused_and_writes_nothing(
    store: str, request: pytest.FixtureRequest, targets: dict[str, str]
) -> None:
    """Issue 39 item 11: a command id names one action. Sent again with another action (at the
    version it was used at, later, or as a Resign) it is refused with CommandIdReused (ALREADY_EXISTS
    over gRPC, 409 over HTTP), whichever replica is asked; the same action, however its JSON is
    spelt, still answers its first result."""
    if store == "redis":
        request.getfixturevalue("redis_client")  # a flushed database
        url = request.getfixturevalue("redis_url")
        match_id = "m1"
    else:
        url = request.getfixturevalue("local_cluster").url
        match_id = uuid.uuid4().hex

    async def scenario() -> None:
        client: Any = redis.asyncio.Redis.from_url(url)
        if store == "redis-cluster":
            client = redis.asyncio.cluster.RedisCluster.from_url(url)
        rules = {NIM: AsyncRulesClient(NIM, targets[NIM])}
        try:
            replicas = [GameMatches(client, rules, KeyRing.generate()) for _ in range(2)]
            key = MatchKey("acme", match_id)
            await replicas[0].create("acme", NIM, ["x", "y"], b"", match_id=match_id, seed=SEED)
            first = await replicas[0].submit(key, 0, TAKE_ONE, command_id="c1")
            assert first.accepted and first.version == 2
            take_two = b'{"type": "take", "count": 2}'
            for replica in replicas:
                with pytest.raises(CommandIdReused) as reused:
                    await replica.submit(key, 0, take_two, command_id="c1")
                assert "another action" in str(reused.value) and reused.value.first.last_version == 2
                with pytest.raises(CommandIdReused):
                    await replica.resign(key, 0, command_id="c1")
                respelt = await replica.submit(key, 0, b'{"count":1,"type":"take"}', command_id="c1")
                assert respelt.repeated and respelt.version == 2
            moved_on = await replicas[1].submit(key, 1, TAKE_ONE, command_id="c2")
            assert moved_on.accepted
            with pytest.raises(CommandIdReused):  # refused at a stale version too
                await replicas[0].submit(key, 0, take_two, command_id="c1", expected_version=2)
            assert (await replicas[0].get_view(key, None)).version == 3
        finally:
            await rules[NIM].close()
            await client.aclose()

    asyncio.run(scenario())


def test_refusals_are_precise_and_write_nothing(
    url: str, targets: dict[str, str], redis_client: redis.Redis
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            key = await _create(matches)
            cases = [
                (1, TAKE_ONE, None, NOT_YOUR_TURN),
                (5, TAKE_ONE, None, UNKNOWN_PLAYER),
                (0, TAKE_ONE, 7, STALE_VERSION),
                (0, b'{"type": "take", "count": 9}', None, "illegal_action"),
                (0, b'{"type": "fly"}', None, "unknown_action"),
            ]
            for number, (seat, action, expected, code) in enumerate(cases):
                outcome = await matches.submit(
                    key, seat, action, command_id=f"x{number}", expected_version=expected
                )
                assert not outcome.accepted and outcome.rejection is not None
                assert outcome.rejection.code == code, outcome.rejection
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await matches.submit(key, 0, b"{not json", command_id="x9")
            assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            with pytest.raises(MatchNotFound):
                await matches.submit(MatchKey("acme", "nope"), 0, TAKE_ONE, command_id="x10")
            with pytest.raises(MatchNotFound):  # another tenant's match is simply not there
                await matches.get_view(MatchKey("other", "m1"), None)
            accepted = await matches.submit(key, 0, TAKE_ONE, command_id="ok", expected_version=1)
            assert accepted.accepted and accepted.version == 2

    asyncio.run(scenario())
    assert redis_client.xlen(match_keys(_key()).events) == 2


def test_two_replicas_serve_one_match_and_a_stale_cache_never_decides(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as a, gateway(url, targets) as b:
            key = await _create(a)
            for turn in range(6):
                replica = (a, b)[turn % 2]
                seat = turn % 2
                outcome = await replica.submit(key, seat, TAKE_ONE, command_id=f"t{turn}")
                assert outcome.accepted, outcome.rejection
                assert outcome.version == turn + 2
            # Replica a's cache is at version 6 (its last append); b appended 7. A stale cache must
            # not say "not your turn" to seat 0, whose turn it is now.
            outcome = await a.submit(key, 0, TAKE_ONE, command_id="t6")
            assert outcome.accepted and outcome.version == 8
            view_b = await b.get_view(key, 1)
            assert view_b.version == 8 and view_b.legal_actions
            assert (await a.audit(key)).ok

    asyncio.run(scenario())


def test_concurrent_submits_of_one_seat_append_once_each(url: str, targets: dict[str, str]) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as a, gateway(url, targets) as b:
            key = await _create(a)
            results = await asyncio.gather(
                a.submit(key, 0, TAKE_ONE, command_id="same"), b.submit(key, 0, TAKE_ONE, command_id="same")
            )
            assert all(r.accepted for r in results) and sorted(r.repeated for r in results) == [False, True]
            assert (await a.get_view(key, None)).version == 2

    asyncio.run(scenario())


def test_a_finished_match_ends_in_the_same_append_revealing_the_seed(
    url: str, targets: dict[str, str], redis_client: redis.Redis
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            key = await _create(matches)
            final = await play_first_legal(matches, key)
            assert final.finished and json.loads(final.outcome_json)["winners"]
            ended = (await matches.events_since(key, None, final.version - 1))[-1]
            body = json.loads(ended.payload_json)
            assert ended.type == "match_ended" and body["reason"] == "finished"
            assert (
                bytes.fromhex(body["seed"]) == SEED
                and seed_commitment(SEED)
                == (
                    json.loads((await matches.events_since(key, None, 0, 1))[0].payload_json)[
                        "seed_commitment"
                    ]
                )
            )
            over = await matches.submit(
                key, final.active_seats[0] if final.active_seats else 0, TAKE_ONE, command_id="late"
            )
            assert over.rejection is not None and over.rejection.code == GAME_OVER
            assert (await matches.get_view(key, 0)).legal_actions == ()
            assert await matches.active_matches("acme") == 0
            assert (await matches.audit(key)).ok

    asyncio.run(scenario())
    last = entries_of(redis_client, _key())[-1]
    assert last[b"type"] == b"match_ended" and b"receipt" in last


# -- resignation and timers --------------------------------------------------------------------------


def test_in_a_two_seat_match_a_resignation_ends_it_and_the_other_seat_wins(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            key = await _create(matches)
            outcome = await matches.resign(key, 1, command_id="bye")
            assert outcome.accepted and [e.type for e in outcome.events] == ["seat_resigned", "match_ended"]
            ended = json.loads(outcome.events[-1].payload_json)
            assert ended["reason"] == "resigned" and ended["outcome"]["winners"] == [0]
            assert bytes.fromhex(ended["seed"]) == SEED
            view = await matches.get_view(key, 0)
            assert view.finished and json.loads(view.outcome_json)["winners"] == [0]
            assert (await matches.resign(key, 1, command_id="bye")).repeated
            assert (await matches.audit(key)).ok

    asyncio.run(scenario())


def test_a_resigned_seat_is_played_by_the_gateway_while_the_others_play_on(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            key = await _create(matches, players=3)
            assert (await matches.resign(key, 1, command_id="bye")).accepted
            after = await matches.submit(key, 0, TAKE_ONE, command_id="t0")  # seat 1 is next: auto-played
            assert after.accepted
            view = await matches.get_view(key, None)
            assert view.active_seats == (2,) and view.resigned == (1,)
            auto = (await matches.events_since(key, None, after.version))[0]
            assert auto.type == "counters_taken" and auto.actor == -1
            refused = await matches.submit(key, 1, TAKE_ONE, command_id="ghost")
            assert refused.rejection is not None and refused.rejection.code == NOT_YOUR_TURN
            final = await play_first_legal(matches, key)
            assert final.finished and (await matches.audit(key)).ok

    asyncio.run(scenario())


class _Timers:
    def __init__(self) -> None:
        self.armed: list[tuple[str, int, int, str]] = []
        self.disarmed: list[str] = []

    async def arm(self, key: MatchKey, version: int, seat: int, deadline_ms: int, policy: str) -> None:
        self.armed.append((key.match_id, version, seat, policy))

    async def disarm(self, key: MatchKey) -> None:
        self.disarmed.append(key.match_id)


def test_turn_timers_are_armed_for_each_decision_and_a_timeout_plays_once(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        timers = _Timers()
        async with gateway(url, targets, timers=timers) as a, gateway(url, targets, timers=timers) as b:
            key = await _create(a, turn_timer=TimerPolicy(30, "random_action"))
            assert timers.armed == [("m1", 1, 0, "random_action")]
            fired = await asyncio.gather(
                a.on_timer(key, 1, 0, "random_action"), b.on_timer(key, 1, 0, "random_action")
            )
            done = [f for f in fired if f is not None]
            assert len(done) == 1 and done[0].events[0].type == "turn_timed_out"
            assert await a.on_timer(key, 1, 0, "random_action") is None  # stale: the match moved on
            assert timers.armed[-1] == ("m1", done[0].version, 1, "random_action")
            forfeit = await b.on_timer(key, done[0].version, 1, "forfeit")
            assert forfeit is not None and [e.type for e in forfeit.events] == [
                "turn_timed_out", "seat_resigned", "match_ended",
            ]  # fmt: skip
            assert timers.disarmed == ["m1"]
            assert (await a.audit(key)).ok

    asyncio.run(scenario())


# -- reading -----------------------------------------------------------------------------------------


def test_views_show_each_seat_its_own_hand_and_legal_actions_only_when_it_must_act(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            key = await _create(matches)
            mine, theirs, spectator = (
                await matches.get_view(key, 0),
                await matches.get_view(key, 1),
                await matches.get_view(key, None),
            )
            assert json.loads(mine.view_json)["hand"] and mine.legal_actions
            assert json.loads(theirs.view_json)["hand"] and theirs.legal_actions == ()
            assert json.loads(spectator.view_json)["hand"] is None and spectator.seat is None
            with pytest.raises(InvalidRequest):
                await matches.get_view(key, 2)

    asyncio.run(scenario())


def test_replay_shows_any_past_version_as_it_was(url: str, targets: dict[str, str]) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            key = await _create(matches)
            for turn in range(3):
                await matches.submit(key, turn % 2, TAKE_ONE, command_id=f"t{turn}")
            past = await matches.replay(key, 2, 1)
            assert past.version == 2 and json.loads(past.view_json)["pile"] == 14
            assert past.legal_actions == ()
            with pytest.raises(InvalidRequest):
                await matches.replay(key, 9, None)

    asyncio.run(scenario())


def test_listing_filters_by_game_finished_and_time_and_pages_newest_first(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        now = [1_000]

        def clock() -> int:
            now[0] += 1000
            return now[0]

        async with gateway(url, targets, clock=clock) as matches:
            for number in range(5):
                await matches.create("acme", NIM, ["x", "y"], match_id=f"m{number}")
            await matches.create("other", NIM, ["x", "y"], match_id="theirs")
            await matches.resign(MatchKey("acme", "m1"), 0, command_id="r")
            page = await matches.list_matches("acme", limit=2)
            assert [m.match_id for m in page.matches] == ["m4", "m3"] and page.next_cursor
            rest = await matches.list_matches("acme", limit=10, cursor=page.next_cursor)
            assert [m.match_id for m in rest.matches] == ["m2", "m1", "m0"] and rest.next_cursor == ""
            finished = await matches.list_matches("acme", finished=True)
            assert [m.match_id for m in finished.matches] == ["m1"]
            created = {m.match_id: m.created_ms for m in page.matches + rest.matches}
            low, high = created["m1"], created["m2"]
            window = await matches.list_matches("acme", created_after_ms=low, created_before_ms=high)
            assert [m.match_id for m in window.matches] == ["m2", "m1"]
            assert (await matches.list_matches("acme", game="chess")).matches == []
            assert await matches.active_matches("acme") == 4

    asyncio.run(scenario())


def test_the_use_cases_run_on_redis_cluster(local_cluster: LocalCluster, targets: dict[str, str]) -> None:
    async def scenario() -> None:
        client = redis.asyncio.cluster.RedisCluster.from_url(local_cluster.url)
        rules = {NIM: AsyncRulesClient(NIM, targets[NIM])}
        try:
            matches = GameMatches(client, rules, KeyRing.generate())
            key = MatchKey("acme", uuid.uuid4().hex)
            await matches.create("acme", NIM, ["x", "y"], match_id=key.match_id)
            final = await play_first_legal(matches, key)
            assert final.finished
            assert (await matches.audit(key)).ok
            assert [m.match_id for m in (await matches.list_matches("acme")).matches].count(key.match_id) == 1
        finally:
            await rules[NIM].close()
            await client.aclose()

    asyncio.run(scenario())


# -- loading -----------------------------------------------------------------------------------------


def _resign_snapshot(redis_client: redis.Redis, key: MatchKey, **changes: Any) -> None:
    """Rewrite the snapshot's fields and MAC it with the deployment's key (as the gateway would)."""
    from gateway.domain.receipts import snapshot_message
    from tests.gateway.gwcore_support import SHARED_KEYS

    fields = {k.decode(): v for k, v in redis_client.hgetall(match_keys(key).snapshot).items()}
    fields.update(changes)
    message = snapshot_message(
        key.tenant, key.match_id, int(fields["version"]), fields["head_hash"].decode(),
        fields["rules_version"].decode(), fields["state"],
    )  # fmt: skip
    key_id, mac = SHARED_KEYS.mac(message)
    fields.update(key_id=key_id.encode(), mac=mac)
    redis_client.hset(match_keys(key).snapshot, mapping=fields)


def test_a_snapshot_older_than_the_stream_is_caught_up_from_the_newer_events(
    url: str, targets: dict[str, str], redis_client: redis.Redis
) -> None:
    async def play(turns: range) -> None:
        async with gateway(url, targets) as matches:
            if turns.start == 0:
                await _create(matches)
            for turn in turns:
                assert (await matches.submit(_key(), turn % 2, TAKE_ONE, command_id=f"t{turn}")).accepted

    asyncio.run(play(range(0, 2)))
    old = redis_client.hgetall(match_keys(_key()).snapshot)
    asyncio.run(play(range(2, 5)))
    redis_client.hset(match_keys(_key()).snapshot, mapping=old)  # the snapshot at version 3 of 6

    async def check() -> None:
        async with gateway(url, targets) as fresh:
            view = await fresh.get_view(_key(), None)
            assert view.version == 6 and json.loads(view.view_json)["pile"] == 10
            assert (await fresh.submit(_key(), 1, TAKE_ONE, command_id="t5")).version == 7

    asyncio.run(check())


def test_a_snapshot_of_other_rules_than_the_matchs_is_not_used(
    url: str, targets: dict[str, str], redis_client: redis.Redis
) -> None:
    """A snapshot whose state other rules made (one from before a move, or forged) is a cache
    the match cannot use: the stream is replayed under the match's own rules version."""

    async def play(turns: range) -> int:
        async with gateway(url, targets) as matches:
            if turns.start == 0:
                await _create(matches)
            outcome = None
            for turn in turns:
                outcome = await matches.submit(_key(), turn % 2, TAKE_ONE, command_id=f"t{turn}")
                assert outcome.accepted, outcome.rejection
            assert outcome is not None
            return outcome.version

    asyncio.run(play(range(0, 2)))
    _resign_snapshot(redis_client, _key(), rules_version=b"0-old")
    assert asyncio.run(play(range(2, 3))) == 4


def test_resigning_while_it_is_your_turn_hands_the_move_to_the_gateway_at_once(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            key = await _create(matches, players=3)
            resigned = await matches.resign(key, 0, command_id="bye")
            assert resigned.accepted and [e.type for e in resigned.events] == ["seat_resigned"]
            view = await matches.get_view(key, None)
            assert view.version == resigned.version + 1 and view.active_seats == (1,)
            assert json.loads(view.view_json)["pile"] < 15
            assert (await matches.resign(key, 2, command_id="bye2")).events[-1].type == "match_ended"
            final = await matches.get_view(key, 1)
            assert final.finished and json.loads(final.outcome_json)["winners"] == [1]
            assert (await matches.audit(key)).ok

    asyncio.run(scenario())


def test_auditors_read_raw_entries_with_actions_and_receipts(url: str, targets: dict[str, str]) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as matches:
            key = await _create(matches)
            view = await matches.get_view(key, 0)
            play = _play_card_of(view.view_json)
            await matches.submit(key, 0, play, command_id="c1")
            raw = await matches.raw_events(key, 1)
            assert [(e.version, e.type, e.actor) for e in raw] == [
                (2, "counters_taken", "seat:0"), (3, "card_dealt", "seat:0"),
            ]  # fmt: skip
            assert raw[0].action == play and raw[0].receipt is None
            assert raw[1].receipt is not None and raw[1].receipt.head_hash == raw[1].hash
            assert json.loads(raw[1].payload)["value"] is not None  # unredacted: auditor scope
            assert [e.version for e in await matches.raw_events(key, 0, limit=1)] == [1]
            with pytest.raises(MatchNotFound):
                await matches.raw_events(MatchKey("other", "m1"))

    asyncio.run(scenario())


def test_a_replica_told_of_a_newer_version_drops_its_cached_state(url: str, targets: dict[str, str]) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as a, gateway(url, targets) as b:
            key = await _create(a)
            await b.get_view(key, None)  # b caches version 1
            await a.submit(key, 0, TAKE_ONE, command_id="c1")
            assert (await b.get_view(key, None, min_version=1)).version == 1  # trusted: old enough
            b.observe_append(key, 2)  # what the watch hub does on gh:notify
            assert (await b.get_view(key, None, min_version=1)).version == 2
            assert (await b.get_view(key, 1, min_version=3)).version == 2  # asks Redis, none newer
            with pytest.raises(InvalidRequest):
                await b.on_timer(key, 2, 1, "explode")

    asyncio.run(scenario())


def test_without_fresh_reads_a_view_trusts_the_cache_until_told_of_an_append(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(url, targets) as a, gateway(url, targets, fresh_reads=False) as b:
            key = await _create(a)
            assert (await b.get_view(key, None)).version == 1
            await a.submit(key, 0, TAKE_ONE, command_id="c1")
            assert (await b.get_view(key, None)).version == 1  # no round trip: the cached view
            b.observe_append(key, 2)
            assert (await b.get_view(key, None)).version == 2
            # A decision is never made on the stale state: the append checks the version.
            await a.submit(key, 1, TAKE_ONE, command_id="c2")
            assert (await b.submit(key, 0, TAKE_ONE, command_id="c3")).version == 4

    asyncio.run(scenario())


def test_a_lost_append_race_is_counted_and_decided_again_on_the_new_state(
    url: str, targets: dict[str, str]
) -> None:
    from gateway import metrics

    async def scenario() -> None:
        async with gateway(url, targets) as a, gateway(url, targets) as b:
            key = await _create(a)
            await b.get_view(key, None)  # b caches version 1: seat 0 to act
            assert (await a.submit(key, 0, TAKE_ONE, command_id="c1")).accepted
            before = metrics.APPEND_CONFLICTS._value.get()
            # b decides seat 0's second move on its stale state; the append refuses it; decided
            # again on version 2, it is not seat 0's turn.
            raced = await b.submit(key, 0, TAKE_ONE, command_id="c2")
            assert raced.rejection is not None and raced.rejection.code == NOT_YOUR_TURN
            assert metrics.APPEND_CONFLICTS._value.get() == before + 1
            assert (await b.get_view(key, None)).version == 2

    asyncio.run(scenario())


def test_two_actions_on_one_replica_take_turns_so_the_stale_one_costs_no_rules_call(
    url: str, targets: dict[str, str]
) -> None:
    """Two actions on the same version in one replica (two seats of a simultaneous choice, here
    one seat twice) take turns (gateway/usecases/turns.py): the second is decided on the state the
    first left, so its stale expected version is refused with no rules call, no append and no
    read of the match (issue 45: at 128 busy matches one action in ten was decided, signed and
    sent to Redis only to conflict)."""
    from gateway import metrics

    async def scenario() -> None:
        async with gateway(url, targets) as a:
            key = await _create(a)
            await a.get_view(key, 0)  # version 1 cached
            loads, validates = 0, 0
            load, rules_call = a.store.load, a._rules_call

            async def counted_load(*args: Any, **kwargs: Any) -> Any:
                nonlocal loads
                loads += 1
                return await load(*args, **kwargs)

            async def counted_rules_call(match: Any, method: str, *args: Any, **kwargs: Any) -> Any:
                nonlocal validates
                validates += method == "validate"
                return await rules_call(match, method, *args, **kwargs)

            a.store.load = counted_load  # type: ignore[method-assign]
            a._rules_call = counted_rules_call  # type: ignore[method-assign]
            conflicts = metrics.APPEND_CONFLICTS._value.get()
            first, second = await asyncio.gather(
                a.submit(key, 0, TAKE_ONE, command_id="one", expected_version=1),
                a.submit(key, 0, TAKE_ONE, command_id="two", expected_version=1),
            )
            assert first.accepted and first.version == 2  # the first to ask goes first
            assert second.rejection is not None and second.rejection.code == STALE_VERSION
            assert "at version 2, not 1" in second.rejection.message
            assert validates == 1 and metrics.APPEND_CONFLICTS._value.get() == conflicts
            nxt = await a.submit(key, 1, TAKE_ONE, command_id="three", expected_version=2)
            assert nxt.accepted and nxt.version == 3
            # Without an expected version the second is decided once, on the first's state.
            validates = 0
            won, lost = await asyncio.gather(
                a.submit(key, 0, TAKE_ONE, command_id="four"),
                a.submit(key, 0, TAKE_ONE, command_id="five"),
            )
            assert won.accepted and lost.rejection is not None
            assert lost.rejection.code == NOT_YOUR_TURN
            assert validates == 2 and metrics.APPEND_CONFLICTS._value.get() == conflicts
            assert loads == 0 and (await a.audit(key)).ok
            assert len(a._deciding) == 0  # no turn is kept once nobody holds or waits for it

    asyncio.run(scenario())


def test_an_action_decided_on_another_replicas_old_version_is_told_stale_by_the_append(
    url: str, targets: dict[str, str]
) -> None:
    """Replicas do not take turns: the append's version check settles their race, and the version
    Redis held as it refused tells the seat its expected version is stale."""
    from gateway import metrics

    async def scenario() -> None:
        async with gateway(url, targets) as a, gateway(url, targets) as b:
            key = await _create(a)
            await b.get_view(key, None)  # b caches version 1: seat 0 to act
            assert (await a.submit(key, 0, TAKE_ONE, command_id="c1", expected_version=1)).accepted
            conflicts = metrics.APPEND_CONFLICTS._value.get()
            # b decides seat 0's move again on version 1, which its append finds gone.
            raced = await b.submit(key, 0, TAKE_ONE, command_id="c2", expected_version=1)
            assert raced.rejection is not None and raced.rejection.code == STALE_VERSION
            assert "at version 2, not 1" in raced.rejection.message
            assert metrics.APPEND_CONFLICTS._value.get() == conflicts + 1

    asyncio.run(scenario())


def test_with_a_rules_service_that_does_not_redact_on_validate_the_events_are_redacted_by_view(
    url: str, targets: dict[str, str]
) -> None:
    """An older rules service ignores return_redacted: the caller must still never get raw events."""

    class OldRules(AsyncRulesClient):
        views = 0

        async def validate(self, *args: Any, **kwargs: Any) -> Any:
            return await super().validate(*args, **{**kwargs, "return_redacted": False})

        async def view(self, *args: Any, **kwargs: Any) -> Any:
            OldRules.views += 1
            return await super().view(*args, **kwargs)

    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(url)
        rules = OldRules(NIM, targets[NIM])
        try:
            from tests.gateway.gwcore_support import SHARED_KEYS

            matches = GameMatches(client, {NIM: rules}, SHARED_KEYS)
            key = await _create(matches)
            view = await matches.get_view(key, 0)
            before = OldRules.views
            outcome = await matches.submit(key, 0, _play_card_of(view.view_json), command_id="c1")
            assert outcome.accepted and OldRules.views == before + 1
            assert [e.type for e in outcome.events] == ["counters_taken", "card_dealt"]
        finally:
            await rules.close()
            await client.aclose()

    asyncio.run(scenario())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_concurrent_traffic_from_two_replicas_keeps_one_clean_stream(
    seed: int, url: str, targets: dict[str, str], redis_client: redis.Redis
) -> None:
    """Submits (legal, illegal, repeated, with stale versions), resignations and timer expiries,
    a few at a time from two replicas: every audit passes and no command is appended twice."""
    import random

    async def scenario() -> None:
        rng = random.Random(seed)
        async with gateway(url, targets) as a, gateway(url, targets) as b:
            key = await _create(a, players=3)
            used: list[tuple[int, str]] = []
            for step in range(40):
                view = await a.get_view(key, None)
                if view.finished:
                    break
                calls = []
                for _ in range(rng.randint(1, 3)):
                    replica = rng.choice((a, b))
                    seat = rng.choice(view.active_seats or [0])
                    kind = rng.random()
                    if kind < 0.6:
                        count = rng.choice((1, 1, 2, 7))
                        action = json.dumps({"type": "take", "count": count}).encode()
                        if used and rng.random() < 0.2:
                            seat, command = rng.choice(used)  # a retry, or another seat's id
                            seat = rng.choice((seat, (seat + 1) % 3))
                        else:
                            command = f"s{step}-{len(calls)}"
                            used.append((seat, command))
                        expected = rng.choice((None, view.version, view.version - 1))
                        calls.append(
                            replica.submit(key, seat, action, command_id=command, expected_version=expected)
                        )
                    elif kind < 0.7:
                        calls.append(replica.resign(key, rng.randrange(3), command_id=f"r{step}"))
                    else:
                        policy = rng.choice(("random_action", "forfeit"))
                        calls.append(replica.on_timer(key, view.version, seat, policy))
                await asyncio.gather(*calls)
            result = await b.audit(key)
            assert result.ok, result
            raw = await a.raw_events(key)
            assert [e.version for e in raw] == list(range(1, len(raw) + 1))
            appends = [e.command_id for e in raw if e.receipt is not None]
            assert len(appends) == len(set(appends))

    asyncio.run(scenario())
