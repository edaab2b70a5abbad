"""Undo within a turn through the gateway (issue 41 item 4), over real Redis and real rules
services: a seat takes back its own last move until something is revealed or drawn or another
seat acts; the take-back is an `action_undone` entry, never a deletion; the state after it is
exactly the state before the move, on this replica and on a fresh one; audits and exports of a
match with take-backs verify, and a forged take-back fails them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import redis.asyncio

from gateway.botseats import BotSeats
from gateway.domain.match import ACTION_UNDONE
from gateway.domain.timers import TimerPolicy
from gateway.domain.undo import REFUSAL
from gateway.eventstore.base import CommandIdReused, MatchKey
from gateway.eventstore.redis_store import match_keys
from gateway.usecases import GameMatches, MatchView, SubmitOutcome
from guildhall_client.ghx import verify_export
from guildhall_client.story import story_lines
from services.kernel import Rejection
from services.rattus_cartus import GAME as RATTUS
from tests.gateway.gwcore_support import entries_of, gateway, play_first_legal, re_sign, rewrite_stream
from tests.kernel.toy_game import GAME as NIM
from tests.rules_service import serving

KEY = MatchKey("acme", "u1")
SEED = bytes(range(32))
TAKE = b'{"type": "take", "count": 1}'
TAKE_TWO = b'{"type": "take", "count": 2}'


@pytest.fixture(scope="module")
def targets() -> Iterator[dict[str, str]]:
    """The toy game (taking counters may be taken back, playing a card draws) and Rattus Cartus
    (a seat enters a building and puts cards face down, several moves in a row)."""
    with serving(NIM) as nim, serving(RATTUS) as rattus:
        yield {NIM.game_id: nim.target, RATTUS.game_id: rattus.target}


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


async def views(
    matches: GameMatches, key: MatchKey, seats: int
) -> list[tuple[bytes, list[bytes], list[int]]]:
    """What every seat and a spectator see, with their legal actions and who is to act."""
    out = []
    for seat in [*range(seats), None]:
        view = await matches.get_view(key, seat)
        out.append((view.view_json, view.legal_actions, view.active_seats))
    return out


async def state_bytes(redis_url: str, targets: dict[str, str], key: MatchKey) -> bytes:
    """The match's state as a fresh replica loads it (nothing cached: snapshot and stream)."""
    async with gateway(redis_url, targets) as fresh:
        return bytes((await fresh._load(key, fresh=True)).state.state)


def kinds(outcome: SubmitOutcome) -> list[str]:
    return [e.type for e in outcome.events]


def refused(outcome: SubmitOutcome, code: str = "cannot_undo") -> bool:
    return not outcome.accepted and outcome.rejection is not None and outcome.rejection.code == code


def test_a_take_back_restores_the_exact_state_and_every_view(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(redis_url, targets) as matches:
            await matches.create("acme", NIM.game_id, ["ann", "bob", "cy"], match_id="u1", seed=SEED)
            before = await views(matches, KEY, 3)
            state_before = await state_bytes(redis_url, targets, KEY)
            assert not (await matches.get_view(KEY, 0)).undo_available
            moved = await matches.submit(KEY, 0, TAKE_TWO, command_id="m1")
            assert moved.accepted and moved.version == 2
            # Ann may take it back (Bob has not acted); Bob and the spectator are never offered it.
            assert (await matches.get_view(KEY, 0)).undo_available
            assert not (await matches.get_view(KEY, 1)).undo_available
            assert not (await matches.get_view(KEY, None)).undo_available

            undone = await matches.undo(KEY, 0, command_id="u1")
            assert undone.accepted and undone.version == 3 and kinds(undone) == [ACTION_UNDONE]
            record = json.loads(undone.events[0].payload_json)
            created_ms = (await matches.raw_events(KEY))[0].time_ms  # Ann's decision was asked then
            assert record == {
                "type": "action_undone",
                "seat": 0,
                "first_version": 2,
                "last_version": 2,
                "asked_ms": created_ms,
            }
            assert undone.events[0].actor == 0 and undone.receipt is not None
            assert b"takes back their last move" in undone.events[0].description
            assert await views(matches, KEY, 3) == before
            assert not (await matches.get_view(KEY, 0)).undo_available
            # Nothing deleted: the taken-back entry is still in the stream, before the take-back.
            raw = await matches.raw_events(KEY)
            assert [e.type for e in raw] == ["match_created", "counters_taken", ACTION_UNDONE]
        # A fresh replica (nothing cached) holds the same state, byte for byte, and the same views.
        assert await state_bytes(redis_url, targets, KEY) == state_before
        async with gateway(redis_url, targets) as fresh:
            assert await views(fresh, KEY, 3) == before

    run(scenario())


def test_another_seats_move_ends_the_take_back_and_only_the_mover_may_take_back(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(redis_url, targets) as matches:
            await matches.create("acme", NIM.game_id, ["ann", "bob", "cy"], match_id="u1", seed=SEED)
            assert (await matches.submit(KEY, 0, TAKE, command_id="a1")).accepted
            # Bob cannot take back Ann's move, and is told nothing of whether Ann could.
            other = await matches.undo(KEY, 1, command_id="b0")
            assert other.rejection == Rejection("cannot_undo", REFUSAL)
            assert (await matches.submit(KEY, 1, TAKE, command_id="b1")).accepted
            # Ann's move is behind Bob's now; Bob may take his back, and then Ann still may not.
            late = await matches.undo(KEY, 0, command_id="a2")
            assert late.rejection == Rejection("cannot_undo", REFUSAL) and "another player" in REFUSAL
            assert (await matches.undo(KEY, 1, command_id="b2")).accepted
            assert refused(await matches.undo(KEY, 0, command_id="a3"))
            assert (await matches.get_view(KEY, 1)).active_seats == (1,)

    run(scenario())


def test_a_move_that_drew_a_card_is_never_taken_back(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(redis_url, targets) as matches:
            await matches.create("acme", NIM.game_id, ["ann", "bob"], match_id="u1", seed=SEED)
            card = min(json.loads((await matches.get_view(KEY, 0)).view_json)["hand"])
            play = json.dumps({"type": "play_card", "value": card}).encode()
            assert kinds(await matches.submit(KEY, 0, play, command_id="p1")) == [
                "counters_taken",
                "card_dealt",
            ]
            assert not (await matches.get_view(KEY, 0)).undo_available
            assert refused(await matches.undo(KEY, 0, command_id="u1"))

    run(scenario())


def test_a_move_the_turn_timer_made_for_a_seat_is_not_that_seats_to_take_back(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(redis_url, targets) as matches:
            await matches.create("acme", NIM.game_id, ["ann", "bob"], match_id="u1", seed=SEED)
            played = await matches.on_timer(KEY, 1, 0, "random_action")
            assert played is not None and played.accepted
            assert refused(await matches.undo(KEY, 0, command_id="u1"))

    run(scenario())


def test_a_returning_player_never_takes_back_the_bots_moves(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    """The platform's bot plays an away seat under the seat's own actor (issue 41 item 2): its
    moves are not the player's to take back, nor is the move by which the player takes the seat
    back (its seat_returned is the gateway's, and the bot has left). The player's next own move
    may be taken back again, and the audit and the offline verifier agree on each of them."""

    async def scenario() -> bytes:
        async with gateway(redis_url, targets) as matches:
            matches.bot_seats = BotSeats(redis.asyncio.Redis.from_url(redis_url))
            timer = TimerPolicy(30, "bot")
            await matches.create(
                "acme", NIM.game_id, ["ann", "bob"], match_id="u1", seed=SEED, turn_timer=timer
            )
            assert (await matches.on_timer(KEY, 1, 0, "bot")) is not None  # Ann is away
            assert (await matches.submit(KEY, 0, TAKE, command_id="bot-1", by_bot=True)).accepted
            assert not (await matches.get_view(KEY, 0)).undo_available
            assert refused(await matches.undo(KEY, 0, command_id="ann-u1"))
            assert (await matches.submit(KEY, 1, TAKE, command_id="bob-1")).accepted
            back = await matches.submit(KEY, 0, TAKE, command_id="ann-1")
            assert back.accepted and kinds(back) == ["seat_returned", "counters_taken"]
            assert not (await matches.get_view(KEY, 0)).undo_available
            assert refused(await matches.undo(KEY, 0, command_id="ann-u2"))
            assert (await matches.submit(KEY, 1, TAKE, command_id="bob-2")).accepted
            assert (await matches.submit(KEY, 0, TAKE, command_id="ann-2")).accepted
            assert (await matches.get_view(KEY, 0)).undo_available
            assert (await matches.undo(KEY, 0, command_id="ann-u3")).accepted
            assert (await play_first_legal(matches, KEY)).finished  # the seed is revealed at the end
            audit = await matches.audit(KEY)
            assert audit.ok, (audit.first_bad_version, audit.reason)
            await matches.bot_seats.redis.aclose()
            return (await matches.export(KEY)).data

    report = verify_export(run(scenario()), games=[NIM])
    assert report.ok and report.executed, (report.first_bad_version, report.reason)


def test_a_forged_take_back_of_the_bots_move_fails_the_audit_even_re_signed(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    """An insider turns the next seat's move into a take-back of the bot's move on an away seat
    (appended under that seat's actor, as the bot's moves are): re-execution refuses it."""

    async def scenario() -> None:
        async with gateway(redis_url, targets) as matches:
            matches.bot_seats = BotSeats(redis.asyncio.Redis.from_url(redis_url))
            timer = TimerPolicy(30, "bot")
            await matches.create(
                "acme", NIM.game_id, ["ann", "bob"], match_id="u1", seed=SEED, turn_timer=timer
            )
            assert (await matches.on_timer(KEY, 1, 0, "bot")) is not None  # v2-3: Ann is away
            assert (await matches.submit(KEY, 0, TAKE, command_id="bot-1", by_bot=True)).version == 4
            assert (await matches.submit(KEY, 1, TAKE, command_id="bob-1")).version == 5
            await matches.bot_seats.redis.aclose()

    run(scenario())
    entries = entries_of(redis_client, KEY)
    forged = {"type": ACTION_UNDONE, "seat": 0, "first_version": 4, "last_version": 4}
    entries[4] = {
        **{name: value for name, value in entries[4].items() if name != b"action"},
        b"type": ACTION_UNDONE.encode(),
        b"payload": json.dumps(forged, separators=(",", ":")).encode(),
        b"actor": b"seat:0",
    }
    rewrite_stream(redis_client, KEY, entries, rechain=True)
    re_sign(redis_client, KEY)

    async def audit() -> Any:
        async with gateway(redis_url, targets) as matches:
            return await matches.audit(KEY)

    result = run(audit())
    assert not result.ok and result.first_bad_version == 5
    assert any(
        (f.version, f.evidence) == (5, "re-execution") and "seat 0 has no move it may take back" in f.reason
        for f in result.findings
    ), result.findings


def test_a_repeated_command_id_answers_with_the_first_take_back(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(redis_url, targets) as matches:
            await matches.create("acme", NIM.game_id, ["ann", "bob"], match_id="u1", seed=SEED)
            assert (await matches.submit(KEY, 0, TAKE, command_id="m1")).accepted
            first = await matches.undo(KEY, 0, command_id="u1")
            again = await matches.undo(KEY, 0, command_id="u1")
            assert first.accepted and again.accepted and again.repeated
            assert (again.version, kinds(again)) == (first.version, kinds(first)) == (3, [ACTION_UNDONE])
            assert (await matches.get_view(KEY, None)).version == 3  # taken back once
            # Bob reusing Ann's command id is refused; a stale expected version too.
            assert refused(await matches.undo(KEY, 1, command_id="u1"), "command_id_in_use")
            assert (await matches.submit(KEY, 0, TAKE, command_id="m2")).accepted
            assert refused(await matches.undo(KEY, 0, command_id="u2", expected_version=3), "stale_version")
            # A command id is bound to what it was used for (issue 39 item 11): an action's id
            # sent again with Undo is another command, refused whether or not it could undo.
            with pytest.raises(CommandIdReused):
                await matches.undo(KEY, 0, command_id="m2")

    run(scenario())


def test_a_take_back_racing_the_next_seats_move_lets_exactly_one_of_them_through(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    """Two replicas, one match: Ann takes back her move while Bob answers it. Whichever append
    lands first wins; the other is decided again on the new state and refused (a take-back that
    named the version it decided on: stale_version)."""

    async def scenario(expected: int | None) -> tuple[SubmitOutcome, SubmitOutcome, MatchView]:
        async with gateway(redis_url, targets) as one, gateway(redis_url, targets) as two:
            await one.create("acme", NIM.game_id, ["ann", "bob"], match_id="u1", seed=SEED)
            assert (await one.submit(KEY, 0, TAKE, command_id="m1")).accepted
            await two.get_view(KEY, 1)  # both replicas hold version 2
            undo, answer = await asyncio.gather(
                one.undo(KEY, 0, command_id="u1", expected_version=expected),
                two.submit(KEY, 1, TAKE, command_id="b1"),
            )
            return undo, answer, await one.get_view(KEY, None)

    for expected in (None, 2, None, 2):
        redis_client.flushdb()
        undo, answer, final = run(scenario(expected))
        assert undo.accepted != answer.accepted, (undo, answer)
        assert final.active_seats == (0,) and final.version == 3
        if undo.accepted:
            assert refused(answer, "not_your_turn")
        else:
            assert refused(undo, "cannot_undo" if expected is None else "stale_version"), undo


def test_a_seat_takes_back_several_moves_in_a_row_and_audits_and_replays_follow(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    """Rattus Cartus: the seat on turn enters a building and puts cards face down, one move each;
    it takes them back one by one to before its entry. Replay of a version between sees the match
    as it was then; the audit re-executes the take-backs."""
    key = MatchKey("acme", "r1")

    async def scenario() -> None:
        async with gateway(redis_url, targets, snapshot_every=4) as matches:
            await matches.create("acme", RATTUS.game_id, ["ann", "bob", "cy"], match_id="r1", seed=SEED)
            seat = await _to_an_entry(matches, key)
            before = await views(matches, key, 3)
            state_before = await state_bytes(redis_url, targets, key)
            versions = []
            for number in range(3):
                view = await matches.get_view(key, seat)
                wanted = "enter_building" if number == 0 else "play_card"
                action = next((a for a in view.legal_actions if json.loads(a)["type"] == wanted), None)
                if action is None:
                    break
                moved = await matches.submit(key, seat, action, command_id=f"m{number}")
                assert moved.accepted
                versions.append(moved.version)
                assert (await matches.get_view(key, seat)).undo_available
            assert len(versions) >= 2, "the seat had no card to put down"
            middle = await matches.replay(key, versions[0], None)
            for number in range(len(versions)):
                assert (await matches.undo(key, seat, command_id=f"u{number}")).accepted
            assert await views(matches, key, 3) == before
            assert not (await matches.get_view(key, seat)).undo_available
            assert refused(await matches.undo(key, seat, command_id="u-more"))
            # History keeps what was taken back: the replay of a version between is unchanged.
            assert (await matches.replay(key, versions[0], None)).view_json == middle.view_json
            audit = await matches.audit(key)
            assert audit.ok, (audit.first_bad_version, audit.reason)
        assert await state_bytes(redis_url, targets, key) == state_before

    run(scenario())


async def _to_an_entry(matches: GameMatches, key: MatchKey) -> int:
    """Play the first legal actions until a seat may enter a building; that seat."""
    for turn in range(200):
        spectator = await matches.get_view(key, None)
        for seat in spectator.active_seats:
            view = await matches.get_view(key, seat)
            if any(json.loads(a)["type"] == "enter_building" for a in view.legal_actions):
                return seat
        seat = spectator.active_seats[0]
        view = await matches.get_view(key, seat)
        assert (await matches.submit(key, seat, view.legal_actions[0], command_id=f"t{turn}")).accepted
    raise AssertionError("no seat came to enter a building")


def _played_with_take_backs(redis_url: str, targets: dict[str, str]) -> None:
    """Nim to the end, with take-backs along the way (a fresh replica for each take-back)."""

    async def scenario() -> None:
        async with gateway(redis_url, targets, snapshot_every=3) as matches:
            await matches.create("acme", NIM.game_id, ["ann", "bob"], match_id="u1", seed=SEED)
            for turn in range(4):
                seat = turn % 2
                assert (await matches.submit(KEY, seat, TAKE, command_id=f"m{turn}")).accepted
                async with gateway(redis_url, targets) as other:
                    assert (await other.undo(KEY, seat, command_id=f"u{turn}")).accepted
                assert (await matches.submit(KEY, seat, TAKE, command_id=f"n{turn}")).accepted
            assert (await play_first_legal(matches, KEY)).finished

    run(scenario())


def test_the_audit_and_the_exported_file_of_a_match_with_take_backs_verify(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    _played_with_take_backs(redis_url, targets)

    async def checks() -> tuple[Any, bytes]:
        async with gateway(redis_url, targets) as matches:
            return await matches.audit(KEY), (await matches.export(KEY)).data

    audit, data = run(checks())
    assert audit.ok, (audit.first_bad_version, audit.reason)
    report = verify_export(data, games=[NIM])
    assert report.ok and report.executed, (report.first_bad_version, report.reason)
    assert sum(1 for line in data.splitlines() if b'"action_undone"' in line) == 4
    # `guildhall verify --story` tells the take-backs in words.
    told = [line for line in story_lines(report) if "took back their last move" in line]
    assert len(told) == 4 and "ann (seat 0) took back their last move (version 2)" in told[0], told


def test_a_forged_take_back_of_a_move_that_drew_fails_the_audit_even_re_signed(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    """An insider with Redis and the signing key turns a take-back of a plain move into one of a
    move that drew a card (a redraw): re-execution refuses it at its version."""

    async def scenario() -> None:
        async with gateway(redis_url, targets, snapshot_every=1) as matches:
            await matches.create("acme", NIM.game_id, ["ann", "bob"], match_id="u1", seed=SEED)
            card = min(json.loads((await matches.get_view(KEY, 0)).view_json)["hand"])
            play = json.dumps({"type": "play_card", "value": card}).encode()
            assert (await matches.submit(KEY, 0, play, command_id="p1")).accepted  # v2-3, drew
            assert (await matches.submit(KEY, 1, TAKE, command_id="b1")).accepted  # v4
            assert (await matches.undo(KEY, 1, command_id="u1")).accepted  # v5 takes back v4

    run(scenario())
    entries = entries_of(redis_client, KEY)
    forged = {"type": "action_undone", "seat": 0, "first_version": 2, "last_version": 3}
    entries[4] = {
        **entries[4],
        b"payload": json.dumps(forged, separators=(",", ":")).encode(),
        b"actor": b"seat:0",
    }
    rewrite_stream(redis_client, KEY, entries, rechain=True)
    re_sign(redis_client, KEY)

    async def audit() -> Any:
        async with gateway(redis_url, targets) as matches:
            return await matches.audit(KEY)

    result = run(audit())
    assert not result.ok and result.first_bad_version == 5
    # (The command record names seat 1 for that command too; the re-execution refuses the undo.)
    assert any(
        (f.version, f.evidence) == (5, "re-execution") and "seat 0 has no move it may take back" in f.reason
        for f in result.findings
    ), result.findings


def test_an_older_snapshot_is_never_folded_across_a_take_back_that_reaches_before_it(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    """A snapshot from before a take-back (one restored from a backup, say) cannot be folded
    forward: the take-back undoes versions the snapshot already holds. The match is replayed from
    setup instead, and comes out as the take-back left it."""
    snapshot_key = match_keys(KEY).snapshot

    async def scenario() -> bytes:
        async with gateway(redis_url, targets, snapshot_every=1) as matches:
            await matches.create("acme", NIM.game_id, ["ann", "bob"], match_id="u1", seed=SEED)
            before = await state_bytes(redis_url, targets, KEY)
            assert (await matches.submit(KEY, 0, TAKE_TWO, command_id="m1")).accepted
            old = redis_client.hgetall(snapshot_key)  # at version 2: Ann's move in it
            assert old[b"version"] == b"2"
            assert (await matches.undo(KEY, 0, command_id="u1")).accepted
            redis_client.delete(snapshot_key)
            redis_client.hset(snapshot_key, mapping=old)
            return before

    before = run(scenario())
    assert run(state_bytes(redis_url, targets, KEY)) == before


class _Clocks:
    """A TimerPort that remembers what was armed last, per seat: (version, deadline)."""

    def __init__(self) -> None:
        self.armed: dict[int, tuple[int, int]] = {}

    async def arm(self, key: MatchKey, version: int, seat: int, deadline_ms: int, policy: str) -> None:
        self.armed[seat] = (version, deadline_ms)

    async def disarm(self, key: MatchKey) -> None:
        self.armed.clear()


def test_a_take_back_gives_the_seat_back_its_clock_never_a_fresh_one(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    """With a 10 s turn timer, moving and taking the move back again and again must not hold the
    match forever: after each take-back the seat's deadline is the one it had before the move."""
    now = [1_000_000]
    clocks = _Clocks()

    async def scenario() -> None:
        async with gateway(redis_url, targets, timers=clocks, clock=lambda: now[0]) as matches:
            timer = TimerPolicy(10, "random_action")
            await matches.create(
                "acme", NIM.game_id, ["ann", "bob"], match_id="u1", seed=SEED, turn_timer=timer
            )
            assert clocks.armed[0] == (1, 1_010_000)  # Ann's decision, asked at creation
            for round_ in range(3):
                now[0] += 4_000
                assert (await matches.submit(KEY, 0, TAKE, command_id=f"m{round_}")).accepted
                assert clocks.armed[1][1] == now[0] + 10_000  # Bob's fresh clock
                now[0] += 1_000
                undone = await matches.undo(KEY, 0, command_id=f"u{round_}")
                assert undone.accepted
                assert clocks.armed[0] == (undone.version, 1_010_000)  # Ann's clock as it was

    run(scenario())
