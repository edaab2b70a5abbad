"""Faults through the gateway, on real processes: two replicas, Redis under AOF always, one
rules service per game. Clients get UNAVAILABLE (or RESOURCE_EXHAUSTED when Redis is full)
while a part is down, never a wrong answer; afterwards the same command id applies once."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from devstack.stack import Stack
from guildhall_client import AsyncClient
from guildhall_client.errors import QuotaExceeded, StaleVersion, Unavailable
from guildhall_client.types import Accepted
from tests.reliability.gateway_helpers import (
    Table,
    both_replicas,
    close_all,
    eventually,
    settle,
    tenant_clients,
)

GAME = "rattus_cartus"


def contiguous(versions: list[int], first: int = 1) -> bool:
    return versions == list(range(first, first + len(versions)))


async def stored_commands(client: AsyncClient, match_id: str) -> list[str]:
    return [e.command_id for e in await client.read_events(match_id)]


def test_concurrent_submits_for_one_version_across_replicas_accept_exactly_one(healthy: Stack) -> None:
    async def scenario() -> None:
        a, b = tenant_clients(healthy)
        try:
            # Rattus Cartus opens with every seat choosing a supply at once: all may act at v1.
            table = await Table.create(a, GAME, 4)
            other = [b.for_token(seat.credential) for seat in table.seats]
            views = [await seat.get_view(table.match_id) for seat in table.seats]
            version = views[0].version
            attempts = []
            for seat, view in enumerate(views):
                for number, action in enumerate(view.raw_legal_actions[:3]):
                    for replica, clients in enumerate((table.seats, other)):
                        attempts.append(
                            clients[seat].submit(
                                table.match_id,
                                action,
                                command_id=f"race-{seat}-{number}-{replica}",
                                expected_version=version,
                                # The gateway's own check under test: no library resubmission.
                                resubmit_when_stale=False,
                            )
                        )
            results = await asyncio.gather(*attempts, return_exceptions=True)

            accepted = [r for r in results if isinstance(r, Accepted)]
            stale = [r for r in results if isinstance(r, StaleVersion)]
            assert len(accepted) == 1, results
            assert len(stale) == len(results) - 1, [
                r for r in results if not isinstance(r, Accepted | StaleVersion)
            ]
            stream = await a.read_events(table.match_id)
            assert contiguous([e.version for e in stream])
            raced = [e.command_id for e in stream if "race-" in e.command_id]
            assert set(raced) == {accepted[0].command_id}
            assert (await a.audit(table.match_id)).ok
        finally:
            await close_all(a, b)

    asyncio.run(scenario())


def test_a_replica_killed_mid_match_play_and_watch_continue_on_the_other(healthy: Stack) -> None:
    async def scenario() -> None:
        # Players and the watcher reach the gateway through one target naming both replicas.
        tenant = AsyncClient(both_replicas(healthy), api_key=healthy.api_keys["acme"], retries=8)
        spectator = tenant.for_token("")
        try:
            table = await Table.create(tenant, GAME, 3, seed=11)
            spectator = tenant.for_token(table.spectator_token)
            seen: list[tuple[int, str]] = []
            target = asyncio.Event()
            goal = {"version": 10**9}

            async def watch() -> None:
                async for update in spectator.watch(table.match_id, 0, until_finished=False):
                    seen.extend((e.version, e.type) for e in update.events)
                    if update.view.version >= goal["version"]:
                        target.set()
                        return

            watcher = asyncio.create_task(watch())
            await table.play(8)
            healthy.gateways[0].kill()  # pick_first was on the first address
            played = await table.play(12)
            final = (await tenant.get_view(table.match_id)).version
            goal["version"] = final
            if seen and seen[-1][0] >= final:
                target.set()
            await asyncio.wait_for(target.wait(), 60)
            watcher.cancel()

            assert played, "no action went through the surviving replica"
            assert [v for v, _ in seen] == list(range(1, final + 1))  # no gap, no duplicate
            stream = await tenant.read_events(table.match_id)
            assert [(e.version, e.type) for e in stream] == seen
            assert (await tenant.audit(table.match_id)).ok
        finally:
            healthy.gateways[0].start()
            await tenant.close()

    asyncio.run(scenario())


def test_redis_killed_mid_match_gives_unavailable_and_the_retried_command_lands_once(
    healthy: Stack,
) -> None:
    async def scenario() -> None:
        a, b = tenant_clients(healthy)
        try:
            table = await Table.create(a, GAME, 2, seed=3)
            await table.play(5)
            seat, view = await table.next_move()  # type: ignore[misc]
            before = await a.read_events(table.match_id)

            healthy.redis.kill()
            for call in (
                lambda: table.submit(seat, view.raw_legal_actions[0], command_id="during-outage"),
                lambda: table.seats[seat].get_view(table.match_id),
                lambda: a.audit(table.match_id),
            ):
                with pytest.raises(Unavailable):
                    await call()
            healthy.redis.start()
            await asyncio.to_thread(settle, healthy)  # pooled connections fail once each; see settle

            retried = await eventually(
                lambda: table.submit(seat, view.raw_legal_actions[0], command_id="during-outage"),
                "the submit after Redis came back",
            )
            again = await table.submit(seat, view.raw_legal_actions[0], command_id="during-outage")
            assert again.repeated and again.version == retried.version
            after = await a.read_events(table.match_id)
            assert [e.hash for e in after[: len(before)]] == [e.hash for e in before]  # nothing lost
            assert len({e.version for e in after if e.command_id.endswith("during-outage")}) == len(
                [e for e in after if e.command_id.endswith("during-outage")]
            )
            assert len(await table.play(5)) > 0  # play resumes, through either replica
            assert (await b.audit(table.match_id)).ok
        finally:
            await close_all(a, b)

    asyncio.run(scenario())


def test_rules_service_killed_gives_unavailable_writes_nothing_and_recovers(healthy: Stack) -> None:
    async def scenario() -> None:
        a, b = tenant_clients(healthy)
        try:
            table = await Table.create(a, GAME, 2, seed=5)
            await table.play(3)
            seat, view = await table.next_move()  # type: ignore[misc]
            version = view.version

            healthy.rules[GAME].kill()
            with pytest.raises(Unavailable):
                await table.submit(seat, view.raw_legal_actions[0], command_id="rules-down")
            assert (await a.read_events(table.match_id))[-1].version == version  # nothing written
            healthy.rules[GAME].start()

            accepted = await eventually(
                lambda: table.submit(seat, view.raw_legal_actions[0], command_id="rules-down"),
                "the submit after the rules service came back",
            )
            assert not accepted.repeated and accepted.version > version
            stream = await a.read_events(table.match_id)
            assert contiguous([e.version for e in stream])
            assert (await b.audit(table.match_id)).ok
        finally:
            await close_all(a, b)

    asyncio.run(scenario())


def test_a_full_redis_refuses_submits_precisely_and_keeps_serving_reads(healthy: Stack) -> None:
    async def scenario() -> None:
        a, b = tenant_clients(healthy)
        redis_client = healthy.redis.client()
        try:
            table = await Table.create(a, GAME, 2, seed=9)
            await table.play(3)
            seat, view = await table.next_move()  # type: ignore[misc]
            before = await a.read_events(table.match_id)

            used = int(redis_client.info("memory")["used_memory"])
            redis_client.config_set("maxmemory", max(used - 1024 * 1024, 1024 * 1024))
            with pytest.raises(QuotaExceeded) as refused:
                await table.submit(seat, view.raw_legal_actions[0], command_id="when-full")
            assert refused.value.status.name == "RESOURCE_EXHAUSTED"
            assert "full" in refused.value.details

            # Nothing half-written; reads, views, replays and audits still work.
            assert [e.hash for e in await b.read_events(table.match_id)] == [e.hash for e in before]
            assert (await table.seats[seat].get_view(table.match_id)).version == view.version
            assert (await b.replay(table.match_id, 1)).version == 1
            assert (await b.audit(table.match_id)).ok

            redis_client.config_set("maxmemory", 0)
            accepted = await table.submit(seat, view.raw_legal_actions[0], command_id="when-full")
            assert not accepted.repeated and accepted.version == view.version + len(accepted.events)
        finally:
            redis_client.config_set("maxmemory", 0)
            redis_client.close()
            await close_all(a, b)

    asyncio.run(scenario())


def test_outage_answers_are_never_wrong_answers(healthy: Stack) -> None:
    """While Redis is down, no call answers as if the match did not exist or had moved."""

    async def scenario() -> None:
        (a, _b) = tenant_clients(healthy)
        try:
            table = await Table.create(a, GAME, 2, seed=13)
            await table.play(2)
            healthy.redis.kill()
            outcomes = []
            for call in (
                lambda: a.get_view(table.match_id),
                lambda: a.read_events(table.match_id),
                lambda: a.list_matches(),
                lambda: table.seats[0].submit(table.match_id, json.dumps({"type": "x"}), command_id="z"),
            ):
                try:
                    await call()
                    outcomes.append("answered")
                except Exception as error:
                    outcomes.append(type(error).__name__)
            assert set(outcomes) == {"Unavailable"}, outcomes
        finally:
            healthy.redis.start()
            await asyncio.to_thread(settle, healthy)
            await close_all(a, _b)

    asyncio.run(scenario())


def test_turn_timers_fire_once_per_turn_with_a_replica_killed(healthy: Stack) -> None:
    """Nobody acts; 1 s turn timers play for the seats (random_action) on whichever replica
    claims them, one replica is SIGKILLed meanwhile: each (version, seat) times out once."""

    async def scenario() -> None:
        a, b = tenant_clients(healthy, retries=3)
        try:
            created = await a.create_match("rattus_cartus", ["p0", "p1"], turn_timer=(1, "random_action"))
            await asyncio.sleep(1.5)
            healthy.gateways[0].kill()
            # Wait (without acting) until the timers have played several turns.
            stream: list[Any] = []
            for _ in range(600):  # the give-up bound only
                stream = await b.read_events(created.match_id)
                if sum(e.type == "turn_timed_out" for e in stream) >= 4:
                    break
                await asyncio.sleep(0.1)
            timed_out = [json.loads(e.payload) for e in stream if e.type == "turn_timed_out"]
            assert len(timed_out) >= 4, [e.type for e in stream]
            turns = [(t["version"], t["seat"]) for t in timed_out]
            assert len(turns) == len(set(turns)), turns  # never twice for one turn
            assert contiguous([e.version for e in stream])
            assert (await b.audit(created.match_id)).ok
        finally:
            healthy.gateways[0].start()
            await close_all(a, b)

    asyncio.run(scenario())


def test_watch_streams_keep_delivering_across_a_redis_restart(healthy: Stack) -> None:
    """A watcher on each replica; Redis is SIGKILLed and restarted mid-match (the replicas'
    notification subscriptions die with it): every version still arrives once, in order."""

    async def scenario() -> None:
        a, b = tenant_clients(healthy, retries=8)
        try:
            table = await Table.create(a, GAME, 2, seed=17)
            seen: dict[int, list[int]] = {0: [], 1: []}

            async def watch(replica: int, client: AsyncClient) -> None:
                spectator = client.for_token(table.spectator_token)
                async for update in spectator.watch(table.match_id, 0, until_finished=False):
                    seen[replica].extend(e.version for e in update.events)

            watchers = [asyncio.create_task(watch(n, c)) for n, c in enumerate((a, b))]
            await table.play(5)
            healthy.redis.kill()
            healthy.redis.start()
            await asyncio.to_thread(settle, healthy)
            await eventually(lambda: table.play(8), "play after the Redis restart")
            goal = (await a.get_view(table.match_id)).version
            for _ in range(600):  # the give-up bound only; the hub's safety poll is 15 s
                if all(seen[n] and seen[n][-1] >= goal for n in (0, 1)):
                    break
                await asyncio.sleep(0.1)
            for watcher in watchers:
                watcher.cancel()
            for replica in (0, 1):
                assert seen[replica] == list(range(1, goal + 1)), (replica, seen[replica])
        finally:
            await close_all(a, b)

    asyncio.run(scenario())
