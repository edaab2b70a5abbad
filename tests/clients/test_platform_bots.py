"""Bot seats the platform plays (issue 23): a real gateway, the bot worker as its own process
(`python -m guildhall_client.botworker`), and clients of the library. A match of bots only, a
private table with a bot beside a player, and a ticket seated with bots after its wait all play
to the end through the gateway; views mark the bot seats; ratings leave them out."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from devstack.stack import Stack
from gateway.auth import hash_key, new_api_key
from gateway.botseats import BOT_KINDS, pool_key
from gateway.matchmaking import _Pool
from guildhall_client import errors
from guildhall_client.aio import AsyncClient
from guildhall_client.bots import KINDS, make_bot
from guildhall_client.bots.runner import play_seat
from guildhall_client.botworker import STRONG_FLOOR_S, search_budget

GAME = "rattus_cartus"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, str]]:
    key = new_api_key()
    document = {
        "tenants": {
            "acme": {
                "keys": [{"id": "k1", "sha256": hash_key(key), "scopes": ["tenant", "auditor"]}],
                "bots": {"ticket_wait_seconds": 1},
            }
        }
    }
    work = tmp_path_factory.mktemp("bots")
    # Strong seats search 50 ms a decision here, so a match of them ends within the test's time.
    with Stack(
        [GAME],
        gateways=1,
        tenants=document,
        work_dir=work,
        log_dir=work / "logs",
        bot_workers=1,
        bot_strong_s=0.05,
    ) as running:
        yield running, key


def run(stack: Any, play: Any) -> Any:
    async def main() -> Any:
        async with AsyncClient(stack[0].gateway_targets[0], api_key=stack[1]) as gh:
            return await asyncio.wait_for(play(gh), 120)

    return asyncio.run(main())


def test_a_match_of_platform_bots_plays_to_the_end(stack: Any) -> None:
    async def play(gh: AsyncClient) -> Any:
        created = await gh.create_match(GAME, [], bots={0: "random", 1: "greedy"})
        assert created.seats == []  # nobody but the bot worker gets a bot seat's token
        spectator = gh.for_token(created.spectator_token)
        events = []
        async for update in spectator.watch(created.match_id):
            events += update.events
            if update.view.finished:
                return update.view, events

    final, events = run(stack, play)
    assert final.finished and final.bots == {0: "random", 1: "greedy"}
    assert {e.actor for e in events} >= {0, 1}  # both seats acted themselves, through the gateway


def test_a_strong_platform_seat_plays_a_match_to_the_end(stack: Any) -> None:
    """The strong level through the real worker: its search runs on the worker's search thread
    and its choices go through the gateway like any client's."""

    async def play(gh: AsyncClient) -> Any:
        created = await gh.create_match(GAME, [], bots={0: "strong", 1: "greedy"})
        spectator = gh.for_token(created.spectator_token)
        events = []
        async for update in spectator.watch(created.match_id):
            events += update.events
            if update.view.finished:
                return update.view, events

    final, events = run(stack, play)
    assert final.finished and final.bots == {0: "strong", 1: "greedy"}
    assert {e.actor for e in events} >= {0, 1}
    log = (stack[0].work_dir / "logs" / "botworker-0.log").read_text()
    assert "strong seats: one search at a time, 0.05 s a decision" in log


def test_a_private_table_with_a_bot_beside_a_player_plays_to_the_end(stack: Any) -> None:
    async def play(gh: AsyncClient) -> Any:
        table = await gh.create_table(GAME, 2, bots={1: "greedy"})
        seat = await gh.claim_seat(table.invite_code, "carol")
        assert seat.number == 0  # the bot took its seat at once
        with pytest.raises(errors.SeatTaken):
            await gh.claim_seat(table.invite_code, "dan")
        final = await play_seat(seat, make_bot("random", GAME, 3))
        return final, await gh.ratings(GAME, ["carol", "bot-greedy-1"])

    final, ratings = run(stack, play)
    assert final.finished and final.bots == {1: "greedy"}
    assert ratings == []  # one person against a bot: nobody's rating moves


def test_a_ticket_asking_for_bots_is_seated_with_them_after_its_wait(stack: Any) -> None:
    async def play(gh: AsyncClient) -> Any:
        seat = await gh.enqueue_and_wait(
            GAME, seats=2, player_id="erin", bot_fill="random", bot_fill_after_s=1, timeout_s=30
        )
        assert seat.ticket is not None and "erin" in seat.ticket.players
        return await play_seat(seat, make_bot("greedy", GAME, 4))

    final = run(stack, play)
    assert final.finished and list(final.bots.values()) == ["random"] and final.seat not in final.bots


def test_an_unknown_bot_kind_is_refused(stack: Any) -> None:
    async def play(gh: AsyncClient) -> None:
        await gh.create_match(GAME, ["a"], bots={1: "clever"})

    with pytest.raises(errors.InvalidArgument):
        run(stack, play)


def test_the_gateway_and_the_client_library_agree_on_bot_kinds_and_pool_keys() -> None:
    assert BOT_KINDS == KINDS
    assert pool_key("acme", GAME, "queue") == _Pool("acme", GAME).key("queue")


def test_a_strong_search_in_a_queue_is_shortened_down_to_the_measured_budget() -> None:
    """The worker searches one decision at a time: a decision that waited gets what is left of
    its second, one with others waiting behind it shares the second with them, and none gets
    less than the budget the strength is measured at (docs/bots.md)."""
    assert search_budget(1.0, waited=0.0, behind=0) == 1.0
    assert search_budget(1.0, waited=0.3, behind=0) == pytest.approx(0.7)
    assert search_budget(1.0, waited=0.0, behind=3) == 0.25
    assert search_budget(1.0, waited=0.95, behind=0) == STRONG_FLOOR_S
    assert search_budget(1.0, waited=0.0, behind=9) == STRONG_FLOOR_S
    assert search_budget(0.05, waited=1.0, behind=4) == 0.05  # a budget below the floor stays whole
