"""The client library against a real gateway (Redis, rules service and gateway processes)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import subprocess
import sys
import uuid
from pathlib import Path

import grpc
import pytest

from guildhall_client import AsyncClient, Client, PlayStream, Seat, errors
from guildhall_client.bots import make_bot
from guildhall_client.bots.runner import play_seat
from guildhall_client.sync import BlockingPlayStream, BlockingSeat

GAME = "rattus_cartus"


def run(coro):
    return asyncio.run(coro)


def players(n: int = 2) -> list[str]:
    return [f"p{i}-{uuid.uuid4().hex[:6]}" for i in range(n)]


async def play_out(gh: AsyncClient, created, kinds=("greedy", "random")) -> list:
    """Every seat of a created match played to the end by bots, concurrently."""
    seats = [gh.seat(created.match_id, s.token) for s in created.seats]
    try:
        return await asyncio.gather(
            *(play_seat(seat, make_bot(kinds[i % len(kinds)], GAME, seed=i)) for i, seat in enumerate(seats))
        )
    finally:
        for seat in seats:
            await seat.client.close()


def test_games_and_the_published_receipt_keys(stack):
    async def go():
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            return await gh.list_games(), await gh.public_keys()

    games, keys = run(go())
    assert [g.game for g in games] == [GAME] and 2 in games[0].player_counts
    assert keys and all(len(raw) == 32 for raw in keys.values())


def test_bots_play_a_whole_match_and_every_receipt_and_the_seed_verify_locally(stack):
    async def go():
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            created = await gh.create_match(GAME, players())
            finals = await play_out(gh, created)
            spectator = gh.for_token(created.spectator_token)
            verification = await gh.verify_match(created.match_id)
            audit = await gh.audit(created.match_id)
            public = await spectator.get_view(created.match_id)
            return created, finals, verification, audit, public

    created, finals, verification, audit, public = run(go())
    assert all(f.finished for f in finals) and {f.seat for f in finals} == {0, 1}
    assert finals[0].version == finals[1].version == public.version
    assert public.seat is None and public.legal_actions == []
    assert verification.receipts_checked > 0 and verification.bad_receipts == []
    assert verification.seed_commitment == created.seed_commitment
    assert verification.seed_revealed and verification.seed_ok
    assert audit.ok and audit.checked_versions == public.version, audit


def test_two_players_queue_and_land_in_the_same_match_on_different_seats(stack):
    async def go():
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            a, b = await asyncio.gather(
                gh.enqueue_and_wait(GAME, seats=2, player_id="alice", timeout_s=60),
                gh.enqueue_and_wait(GAME, seats=2, player_id="bob", timeout_s=60),
            )
            views = [await a.view(), await b.view()]
            await a.client.close()
            await b.client.close()
            return a, b, views

    a, b, views = run(go())
    assert a.match_id == b.match_id
    assert {v.seat for v in views} == {0, 1}
    assert set(a.ticket.players) == {"alice", "bob"}


def test_the_blocking_client_works_like_the_async_one(stack):
    with Client(stack.target, api_key=stack.api_key) as gh:
        created = gh.create_match(GAME, players())
        seat = gh.seat(created.match_id, created.seats[0].token)
        view = seat.view()
        assert view.seat == 0 and view.version == created.version
        first = next(iter(seat.watch(0)))
        assert first.view.version == view.version and first.events[0].type == "match_created"
        if view.my_turn:
            accepted = seat.submit(view.legal_actions[0])
            assert accepted.version > view.version and accepted.receipt is not None


@pytest.mark.parametrize(
    ("asynchronous", "blocking"),
    [(AsyncClient, Client), (Seat, BlockingSeat), (PlayStream, BlockingPlayStream)],
)
def test_every_public_method_of_the_async_classes_has_its_typed_blocking_twin(asynchronous, blocking):
    """The blocking classes declare each method from its async twin (so a type checker sees it);
    a method added to the async class alone would be missing from the blocking one."""
    public = {
        name
        for name, member in vars(asynchronous).items()
        if not name.startswith("_")
        and (inspect.iscoroutinefunction(member) or inspect.isasyncgenfunction(member))
    }
    assert public, asynchronous
    assert not {name for name in public if not hasattr(blocking, name)}, blocking


def test_rule_violations_and_bad_credentials_are_typed_errors_and_change_nothing(stack):
    async def go():
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            created = await gh.create_match(GAME, players())
            seat0 = gh.seat(created.match_id, created.seats[0].token)
            before = await seat0.view()
            with pytest.raises(errors.IllegalAction):
                await seat0.submit({"type": "choose_supply", "building": 99})
            with pytest.raises(errors.UnknownAction):
                await seat0.submit({"type": "fly_away"})
            with pytest.raises(errors.StaleVersion):
                await seat0.submit(
                    before.legal_actions[0], expected_version=before.version - 1, resubmit_when_stale=False
                )
            with pytest.raises(errors.InvalidArgument):
                await seat0.submit(b"{not json")
            assert (await seat0.view()).version == before.version
            async with AsyncClient(stack.target, api_key="ghk_" + "x" * 43) as stranger:
                with pytest.raises(errors.Unauthenticated):
                    await stranger.get_view(created.match_id)
            async with AsyncClient(stack.target, api_key=stack.other_key) as rival:
                with pytest.raises(errors.NotFound):
                    await rival.get_view(created.match_id)  # another tenant's match does not exist
            with pytest.raises(errors.PermissionDenied):
                await seat0.client.list_matches()  # a seat token may not list the tenant's matches
            await seat0.client.close()

    run(go())


def test_a_seat_counts_each_accepted_action_once_and_no_rejected_one(stack):
    async def go():
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            created = await gh.create_match(GAME, players())
            active = (await gh.get_view(created.match_id)).active_seats[0]
            mover = gh.seat(created.match_id, created.seats[active].token)
            idle = gh.seat(created.match_id, created.seats[1 - active].token)
            action = (await mover.view()).legal_actions[0]
            first = await mover.submit(action, command_id="counted")
            again = await mover.submit(action, command_id="counted")  # the same command, answered again
            with pytest.raises(errors.UnknownAction):
                await mover.submit({"type": "fly_away"})
            with pytest.raises(errors.StaleVersion):
                await idle.submit(action, expected_version=first.version - 1, resubmit_when_stale=False)
            stored = await gh.read_events(created.match_id)
            return first, again, mover.actions, idle.actions, stored

    first, again, moved, idled, stored = run(go())
    assert not first.repeated and again.repeated
    assert (moved, idled) == (1, 0)
    counted = {e.command_id for e in stored if e.command_id.endswith("counted")}
    assert len(counted) == 1  # in the stream as one command


class LoseFirstSubmitReply(grpc.aio.UnaryUnaryClientInterceptor):
    """Lets the first SubmitAction reach the gateway and be applied, then loses its reply."""

    def __init__(self) -> None:
        self.lost = 0

    async def intercept_unary_unary(self, continuation, client_call_details, request):
        call = await continuation(client_call_details, request)
        method = client_call_details.method
        method = method.decode() if isinstance(method, bytes) else method
        if method.endswith("/SubmitAction") and self.lost == 0:
            await call  # the gateway has answered: the action is applied
            self.lost += 1
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "reply lost (test)"
            )
        return call


def test_a_retry_after_a_lost_reply_returns_the_first_result_never_a_double_move(stack):
    async def go():
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            created = await gh.create_match(GAME, players())
            lossy = LoseFirstSubmitReply()
            seat_token = created.seats[0].token
            async with AsyncClient(stack.target, token=seat_token, interceptors=[lossy]) as seat0:
                before = await seat0.get_view(created.match_id)
                assert before.my_turn
                accepted = await seat0.submit(created.match_id, before.legal_actions[0])
                after = await seat0.get_view(created.match_id)
                events = await seat0.events(created.match_id)
            return lossy, before, accepted, after, events

    lossy, before, accepted, after, events = run(go())
    assert lossy.lost == 1  # the first reply really was lost
    assert accepted.repeated  # the retry got the first result back
    assert accepted.version == after.version  # and nothing else was written
    chosen = [e for e in events if e.type == "supply_chosen" and e.data.get("player") == 0]
    assert len(chosen) == 1  # one move, not two
    assert [e.version for e in events] == list(range(1, after.version + 1))


@pytest.mark.parametrize("kill", [False, True], ids=["drained", "killed"])
def test_a_watcher_resumes_after_the_gateway_restarts_with_no_gap_and_no_duplicate(stack, kill):
    async def go():
        async with AsyncClient(stack.target, api_key=stack.api_key, retries=30) as gh:
            created = await gh.create_match(GAME, players())
            watcher = gh.for_token(created.spectator_token)
            seen: list[int] = []
            updates = 0
            restarted = asyncio.Event()

            async def watch() -> int:
                nonlocal updates
                async for update in watcher.watch(created.match_id):
                    seen.extend(e.version for e in update.events)
                    updates += 1
                    if update.view.finished:
                        return update.view.version
                return -1

            watching = asyncio.create_task(watch())
            seats = [gh.seat(created.match_id, s.token) for s in created.seats]
            bots = [make_bot("random", GAME, seed=i) for i in range(2)]
            moves = 0
            while True:
                views = [await s.view() for s in seats]
                if views[0].finished:
                    break
                for seat, view, bot in zip(seats, views, bots, strict=True):
                    if view.my_turn:
                        choice = bot.choose(view.view, view.legal_actions, view.seat)
                        with contextlib.suppress(errors.StaleVersion, errors.NotYourTurn):
                            await seat.submit(view.legal_actions[choice], expected_version=view.version)
                        moves += 1
                        break
                if moves == 20 and not restarted.is_set():
                    # The replica goes away under the watcher and comes back on the same address.
                    await asyncio.to_thread(stack.stop_gateway, kill=kill)
                    await asyncio.to_thread(stack.start_gateway)
                    restarted.set()
            final = await asyncio.wait_for(watching, 60)
            complete = await gh.events(created.match_id)
            for seat in seats:
                await seat.client.close()
            return final, seen, complete, watcher.resumed

    final, seen, complete, resumed = run(go())
    assert resumed >= 1  # the stream really broke and was resumed
    assert final > 20
    assert seen == list(range(1, final + 1))  # every version exactly once, in order
    assert seen == [e.version for e in complete]


def test_the_30_line_example_runs_against_a_real_gateway(stack):
    root = Path(__file__).resolve().parents[2]
    example = root / "examples" / "client_in_30_lines.py"
    assert len(example.read_text().splitlines()) <= 40  # 30 lines of code plus its docstring
    result = subprocess.run(
        [sys.executable, str(example), stack.target],
        cwd=root,
        env=stack.cli_env(GUILDHALL_API_KEY=stack.api_key),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "seed matches commitment: True" in result.stdout and "ok=True" in result.stdout


def test_the_bots_example_runs_against_a_real_gateway(stack):
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, str(root / "examples" / "greedy_vs_random.py"), stack.target, GAME],
        cwd=root,
        env=stack.cli_env(GUILDHALL_API_KEY=stack.api_key),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "greedy bot, seat" in result.stdout and "random bot, seat" in result.stdout
