"""The client library's Play stream (guildhall_client/stream.py) against a real gateway process:
bots playing whole matches over it while the gateway restarts under them (drained, then killed),
resuming from the last version with every action applied once; the blocking twin; and the
answer handling: a fault over quota is sent again after the gateway's hint, others fail only
their action."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb

from guildhall_client import AsyncClient, Client, errors
from guildhall_client.bots import make_bot
from guildhall_client.bots.runner import play_seat
from guildhall_client.stream import PlayStream
from guildhall_client.types import WatchUpdate

GAME = "rattus_cartus"


def _players() -> list[str]:
    return [f"p{i}-{uuid.uuid4().hex[:6]}" for i in range(2)]


@pytest.mark.parametrize("kill", [False, True], ids=["drained", "killed"])
def test_bots_on_play_streams_finish_their_match_across_a_gateway_restart(stack: Any, kill: bool) -> None:
    async def go() -> tuple[list[Any], list[list[int]], list[int], Any, list[Any], list[set[str]]]:
        async with AsyncClient(stack.target, api_key=stack.api_key, retries=30) as gh:
            created = await gh.create_match(GAME, _players())
            seats = [gh.seat(created.match_id, s.token) for s in created.seats]
            seen: list[list[int]] = [[], []]
            restart = asyncio.Event()

            def on_update(seat: int) -> Any:
                def record(update: WatchUpdate) -> None:
                    seen[seat].extend(e.version for e in update.events)
                    if update.view.version >= 30:
                        restart.set()

                return record

            async def restarting() -> None:
                await restart.wait()
                try:
                    await asyncio.to_thread(stack.stop_gateway, kill=kill)
                finally:  # whatever happens here, the module's other tests need their gateway
                    await asyncio.shield(asyncio.to_thread(stack.start_gateway))

            restarter = asyncio.create_task(restarting())
            finals = await asyncio.wait_for(
                asyncio.gather(
                    *(
                        play_seat(seat, make_bot("random", GAME, seed=n), on_update=on_update(n))
                        for n, seat in enumerate(seats)
                    )
                ),
                120,
            )
            await restarter
            resumed = [seat.client.resumed for seat in seats]
            stored = await gh.read_events(created.match_id)
            audit = await gh.audit(created.match_id)
            accepted = [set(seat._accepted) for seat in seats]
            for seat in seats:
                await seat.client.close()
            return list(finals), seen, resumed, audit, stored, accepted

    finals, seen, resumed, audit, stored, accepted = asyncio.run(go())
    last = finals[0].version
    assert all(f.finished and f.version == last for f in finals)
    assert all(r >= 1 for r in resumed)  # both streams really broke and were opened again
    for versions in seen:  # every version after the first view once, in order, across the break
        assert versions == list(range(2, last + 1))
    assert audit.ok and audit.checked_versions == last
    # Each command accepted through the library was applied once: one append per command id.
    appends = Counter(e.command_id for e in stored if e.command_id and not e.command_id.startswith("gw "))
    for ids in accepted:
        assert ids and all(appends[command] >= 1 for command in ids)
    # ... and once only: each command id's entries are one append (one contiguous run).
    runs: Counter[str] = Counter()
    previous = None
    for e in stored:
        if e.command_id != previous:
            runs[e.command_id] += 1
        previous = e.command_id
    assert all(count == 1 for command, count in runs.items() if command and not command.startswith("gw "))


def test_the_blocking_client_plays_over_a_stream(stack: Any) -> None:
    with Client(stack.target, api_key=stack.api_key) as gh:
        created = gh.create_match(GAME, _players())
        seats = [gh.for_token(s.token) for s in created.seats]
        view = next(v for v in (s.get_view(created.match_id) for s in seats) if v.my_turn)
        stream = seats[view.seat].play(created.match_id, view.version)
        try:
            accepted = stream.submit(view.legal_actions[0], expected_version=view.version)
            assert accepted.version > view.version and accepted.view is not None
            assert accepted.view.version == accepted.version and accepted.events
            with pytest.raises(errors.StaleVersion):
                stream.submit(view.legal_actions[0], expected_version=view.version)
            # Down the stream came the opening view, then the update the answer rode on.
            updates = stream.updates(until_finished=False)
            opening, answered = next(updates), next(updates)
            updates.close()
            assert opening.view.version == view.version and not opening.events
            assert answered.view == accepted.view
            assert [e.version for e in answered.events] == list(range(view.version + 1, accepted.version + 1))
        finally:
            stream.close()


def test_an_action_sent_after_the_match_ended_its_stream_is_a_game_over_rejection(stack: Any) -> None:
    """The gateway ends a seat's Play stream once the match is over (issue 39 item 12): an action
    sent afterwards (a player still reading an older view) is refused as game_over, a rejection a
    client handles like any other, not a closed-stream fault."""

    async def go() -> None:
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            created = await gh.create_match(GAME, _players())
            seat = gh.seat(created.match_id, created.seats[0].token)
            opening = await seat.view()
            async with seat.stream(opening.version) as stream:
                resigned = await seat.resign()  # two seats: the match ends
                async for update in stream.updates():
                    assert update.view.version <= resigned.version
                with pytest.raises(errors.Rejected) as refused:
                    await stream.submit(opening.legal_actions[0] if opening.legal_actions else {})
                assert refused.value.code == "game_over"
            await seat.client.close()

    asyncio.run(go())


class _FakeClient:
    retries = 2
    reconnects = 0
    verify_receipts = False
    resumed = 0


def test_a_fault_over_quota_is_sent_again_after_the_hint_and_other_faults_fail_their_action() -> None:
    async def go() -> tuple[list[Any], Any, Any]:
        stream = PlayStream(_FakeClient(), "m1")  # type: ignore[arg-type]
        stream._task = asyncio.get_running_loop().create_future()  # no network: not started
        outgoing: asyncio.Queue[Any] = asyncio.Queue()
        stream._outgoing = outgoing
        quota = stream.send({"type": "x"}, command_id="q1")
        bad = stream.send({"type": "x"}, command_id="b1")
        sent = [outgoing.get_nowait(), outgoing.get_nowait()]
        over = pb.PlayAnswer(
            command_id="q1",
            fault=pb.PlayFault(
                code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], message="quota", retry_after_ms=20
            ),
        )
        assert await stream._answer(over, None) is None  # not answered yet: it goes again
        again = await asyncio.wait_for(outgoing.get(), 5)
        invalid = pb.PlayAnswer(
            command_id="b1", fault=pb.PlayFault(code=grpc.StatusCode.INVALID_ARGUMENT.value[0], message="bad")
        )
        assert await stream._answer(invalid, None) == "b1"
        accepted = pb.PlayAnswer(command_id="q1", accepted=pb.PlayAccepted(version=7))
        assert await stream._answer(accepted, None) == "q1"
        return [*sent, again], await quota, bad.exception()

    sent, accepted, error = asyncio.run(go())
    assert [m.action.command_id for m in sent] == ["q1", "b1", "q1"]  # the same command id again
    assert accepted.version == 7 and accepted.command_id == "q1"
    assert isinstance(error, errors.InvalidArgument)
