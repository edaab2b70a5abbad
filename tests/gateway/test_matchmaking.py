"""Matchmaking on a real Redis and a real Redis Cluster: tickets, cancels, expiry, waiting, and
two replicas racing over many tickets without ever seating a ticket twice or a cancelled one."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
import redis.asyncio
import redis.asyncio.cluster

from gateway.domain.pairing import PairingPolicy, QueuedTicket, form_tables
from gateway.matchmaking import (
    CANCELLED,
    EXPIRED,
    MATCHED,
    QUEUED,
    InvalidRequest,
    Matchmaker,
    Pairing,
    TicketNotFound,
    TicketRequest,
    TicketStatus,
)

ClientFactory = Callable[[], Any]
# Seat at once: tests are about atomicity, not the policy's patience.
EAGER = PairingPolicy(fill_wait_s=0)


@pytest.fixture
def plain(redis_url: str, redis_client: object) -> ClientFactory:
    return lambda: redis.asyncio.Redis.from_url(redis_url)


@pytest.fixture(params=["redis", "cluster"])
def any_redis(request: pytest.FixtureRequest) -> ClientFactory:
    """Async clients on a plain Redis, then on the local Redis Cluster (flushed)."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        request.getfixturevalue("redis_client")
        return lambda: redis.asyncio.Redis.from_url(url)
    cluster = request.getfixturevalue("local_cluster")
    request.getfixturevalue("redis_cluster_client")
    return lambda: redis.asyncio.cluster.RedisCluster.from_url(cluster.url)


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(scenario())


class Clock:
    def __init__(self) -> None:
        self.now_s = time.time()

    def __call__(self) -> float:
        return self.now_s


def request(
    player: str, *, tenant: str = "acme", game: str = "ys", seats: tuple[int, int] = (2, 2), **more: Any
) -> TicketRequest:
    fields: dict[str, Any] = {"options_json": b"{}", "rating": None} | more
    return TicketRequest(
        tenant=tenant, game=game, min_seats=seats[0], max_seats=seats[1], player_id=player, **fields
    )


def as_queued(status: TicketStatus) -> QueuedTicket:
    return QueuedTicket(
        ticket_id=status.ticket_id,
        player_id=status.player_id,
        options=f"{status.game}:{status.options_json.decode()}",  # one game's pool at a time
        min_seats=status.min_seats,
        max_seats=status.max_seats,
        rating=status.rating,
        enqueued_ms=status.enqueued_ms,
    )


async def eventually(condition: Callable[[], Any], what: str, limit_s: float = 90.0) -> None:
    """Wait for background loops (a safety limit, not a timing assertion)."""
    give_up = time.monotonic() + limit_s
    while not await _holds(condition):
        if time.monotonic() > give_up:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(0.02)


async def _holds(condition: Callable[[], Any]) -> bool:
    value = condition()
    if asyncio.iscoroutine(value):
        value = await value
    return bool(value)


def test_a_queued_ticket_reads_back_for_its_tenant_only(plain: ClientFactory) -> None:
    async def scenario() -> None:
        mm = Matchmaker(plain())
        ticket = await mm.enqueue(
            request("alice", options_json=b'{ "b": 1, "a": 2 }', rating=1512.25, seats=(2, 4))
        )
        assert ticket.state == QUEUED and ticket.match_id is None and ticket.seat is None
        assert ticket.ticket_id.startswith("ys/t.")
        again = await mm.status("acme", ticket.ticket_id)
        assert again == ticket
        assert (again.options_json, again.rating, again.min_seats, again.max_seats) == (
            b'{"a":2,"b":1}',
            1512.25,
            2,
            4,
        )
        for tenant, ticket_id in [
            ("globex", ticket.ticket_id),  # another tenant's ticket: not found, no hint
            ("acme", "ys/t.000000000000000000000000"),
            ("acme", "nonsense"),
            ("acme", "ys}:x/t.0"),
        ]:
            with pytest.raises(TicketNotFound):
                await mm.status(tenant, ticket_id)
            with pytest.raises(TicketNotFound):
                await mm.cancel(tenant, ticket_id)
        assert await mm.open_tickets("acme") == 1
        assert await mm.open_tickets("globex") == 0

    run(scenario)


@pytest.mark.parametrize(
    "bad",
    [
        request("alice", seats=(0, 2)),
        request("alice", seats=(3, 2)),
        request("alice", options_json=b"[1, 2]"),
        request("alice", options_json=b"{"),
        request("alice", rating=float("nan")),
        request(""),
        request("x" * 129),
        request("bad\nname"),
        request("alice", game="ys}:evil"),
        request("alice", tenant=""),
    ],
)
def test_a_bad_ticket_request_is_refused_and_writes_nothing(plain: ClientFactory, bad: TicketRequest) -> None:
    async def scenario() -> None:
        client = plain()
        with pytest.raises(InvalidRequest):
            await Matchmaker(client).enqueue(bad)
        assert await client.dbsize() == 0

    run(scenario)


def test_paired_tickets_are_matched_once_the_match_exists(plain: ClientFactory) -> None:
    async def scenario() -> None:
        mm = Matchmaker(plain(), policy=EAGER)
        alice = await mm.enqueue(request("alice"))
        bob = await mm.enqueue(request("bob"))
        (pairing,) = await mm.pair_once("acme", "ys")
        assert (pairing.tenant, pairing.game, pairing.options_json) == ("acme", "ys", b"{}")
        assert sorted(pairing.players) == ["alice", "bob"]
        assert sorted(t for t, _, _ in pairing.seats) == sorted([alice.ticket_id, bob.ticket_id])
        assert [pairing.players[seat] for _, seat, _ in pairing.seats] == [p for _, _, p in pairing.seats]
        # Seated but the match is not created yet: still queued, and too late to cancel.
        assert (await mm.status("acme", alice.ticket_id)).state == QUEUED
        assert (await mm.cancel("acme", alice.ticket_id)).state == QUEUED
        assert await mm.pair_once("acme", "ys") == []
        assert await mm.complete(pairing)
        for ticket in (alice, bob):
            status = await mm.status("acme", ticket.ticket_id)
            assert status.state == MATCHED and status.match_id == pairing.match_id
            assert status.players == pairing.players
            assert status.players[status.seat or 0] == status.player_id
        assert await mm.complete(pairing) is False  # idempotent
        assert await mm.open_tickets("acme") == 0

    run(scenario)


def test_a_cancelled_ticket_is_never_matched(plain: ClientFactory) -> None:
    async def scenario() -> None:
        mm = Matchmaker(plain(), policy=EAGER)
        alice = await mm.enqueue(request("alice"))
        bob = await mm.enqueue(request("bob"))
        carol = await mm.enqueue(request("carol"))
        cancelled = await mm.cancel("acme", bob.ticket_id)
        assert cancelled.state == CANCELLED
        assert (await mm.cancel("acme", bob.ticket_id)).state == CANCELLED  # idempotent
        (pairing,) = await mm.pair_once("acme", "ys")
        assert sorted(pairing.players) == ["alice", "carol"]
        assert {alice.ticket_id, carol.ticket_id} == {t for t, _, _ in pairing.seats}

    run(scenario)


def test_tickets_of_other_tenants_games_and_options_are_not_mixed(plain: ClientFactory) -> None:
    async def scenario() -> None:
        mm = Matchmaker(plain(), policy=EAGER)
        await mm.enqueue(request("a1"))
        await mm.enqueue(request("g1", tenant="globex"))
        await mm.enqueue(request("r1", game="rattus_cartus"))
        await mm.enqueue(request("v1", options_json=b'{"variant": "express"}'))
        for tenant, game in [("acme", "ys"), ("globex", "ys"), ("acme", "rattus_cartus")]:
            assert await mm.pair_once(tenant, game) == []
        await mm.enqueue(request("v2", options_json=b'{"variant":"express"}'))
        (pairing,) = await mm.pair_once("acme", "ys")
        assert sorted(pairing.players) == ["v1", "v2"] and pairing.options_json == b'{"variant":"express"}'

    run(scenario)


def test_a_ticket_expires_after_its_time_to_live(plain: ClientFactory) -> None:
    async def scenario() -> None:
        clock = Clock()
        mm = Matchmaker(plain(), ticket_ttl_s=60, clock=clock, policy=EAGER)
        old = await mm.enqueue(request("alice"))
        clock.now_s += 61
        assert (await mm.status("acme", old.ticket_id)).state == EXPIRED
        assert await mm.open_tickets("acme") == 0
        await mm.enqueue(request("bob"))
        assert await mm.pair_once("acme", "ys") == []  # alice expired: bob waits alone
        assert (await mm.cancel("acme", old.ticket_id)).state == EXPIRED

    run(scenario)


def test_finished_tickets_are_forgotten_after_retention(plain: ClientFactory) -> None:
    async def scenario() -> None:
        clock = Clock()
        mm = Matchmaker(plain(), clock=clock, retention_s=60, policy=EAGER)
        ticket = await mm.enqueue(request("alice"))
        await mm.cancel("acme", ticket.ticket_id)
        clock.now_s += 61
        await mm.pair_once("acme", "ys")  # the pass sweeps old finished tickets
        with pytest.raises(TicketNotFound):
            await mm.status("acme", ticket.ticket_id)

    run(scenario)


def test_wait_returns_at_the_change_or_the_timeout(any_redis: ClientFactory) -> None:
    async def scenario() -> None:
        client = any_redis()
        mm = Matchmaker(client, policy=EAGER, interval_s=0.05)
        alice = await mm.enqueue(request("alice"))
        same = await mm.wait("acme", alice.ticket_id, QUEUED, 0.1)
        assert same.state == QUEUED
        created: list[Pairing] = []

        async def create_match(pairing: Pairing) -> None:
            created.append(pairing)

        stop = asyncio.Event()
        loop = asyncio.ensure_future(mm.run(create_match, stop))
        waiting = asyncio.ensure_future(mm.wait("acme", alice.ticket_id, QUEUED, 30))
        await asyncio.sleep(0.05)
        await mm.enqueue(request("bob"))
        matched = await waiting
        assert matched.state == MATCHED and matched.match_id == created[0].match_id
        stop.set()
        await loop
        await mm.close()

    run(scenario)


def test_a_cancel_wakes_a_waiter(plain: ClientFactory) -> None:
    async def scenario() -> None:
        mm = Matchmaker(plain(), safety_poll_s=60)  # only the subscription can wake it in time
        alice = await mm.enqueue(request("alice"))
        waiting = asyncio.ensure_future(mm.wait("acme", alice.ticket_id, QUEUED, 30))
        await asyncio.sleep(0.05)
        other_replica = Matchmaker(plain())
        await other_replica.cancel("acme", alice.ticket_id)
        assert (await asyncio.wait_for(waiting, 20)).state == CANCELLED
        await mm.close()

    run(scenario)


def test_a_failed_creation_is_retried_by_a_replica(plain: ClientFactory) -> None:
    async def scenario() -> None:
        mm = Matchmaker(plain(), policy=EAGER, interval_s=0.02, full_scan_s=0.05, lease_s=0.1)
        attempts: Counter[str] = Counter()

        async def flaky_create(pairing: Pairing) -> None:
            attempts[pairing.match_id] += 1
            if attempts[pairing.match_id] < 3:
                raise RuntimeError("rules service unavailable")

        alice = await mm.enqueue(request("alice"))
        await mm.enqueue(request("bob"))
        stop = asyncio.Event()
        loop = asyncio.ensure_future(mm.run(flaky_create, stop))
        await eventually(lambda: mm.status("acme", alice.ticket_id), "status readable")

        async def matched() -> bool:
            return (await mm.status("acme", alice.ticket_id)).state == MATCHED

        await eventually(matched, "the third attempt matched the tickets")
        stop.set()
        await loop
        (match_id,) = attempts
        assert attempts[match_id] == 3  # one match id throughout: creation is idempotent on it
        assert (await mm.status("acme", alice.ticket_id)).match_id == match_id
        await mm.close()

    run(scenario)


def test_a_pairing_that_keeps_failing_puts_its_tickets_back_in_the_queue(plain: ClientFactory) -> None:
    async def scenario() -> None:
        mm = Matchmaker(
            plain(), policy=EAGER, interval_s=0.02, full_scan_s=0.05, lease_s=0.05, max_attempts=2
        )
        alice = await mm.enqueue(request("alice"))
        bob = await mm.enqueue(request("bob"))
        (pairing,) = await mm.pair_once("acme", "ys")
        calls: list[Pairing] = []

        async def broken_create(p: Pairing) -> None:
            calls.append(p)
            raise RuntimeError("bad options for this game")

        # This replica seated them and died; another replica retries, then gives up. The tickets
        # go back to the queue, where the running loop pairs them again at once (a new match id):
        # that re-pairing is the evidence, since the moment they sit queued is too short to poll.
        stop = asyncio.Event()
        loop = asyncio.ensure_future(mm.run(broken_create, stop))

        async def paired_again() -> bool:
            return any(p.match_id != pairing.match_id for p in calls)

        await eventually(paired_again, "the tickets were queued and paired again")
        stop.set()
        await loop
        first_ids = [p.match_id for p in calls[:2]]
        again = next(p for p in calls if p.match_id != pairing.match_id)
        assert first_ids == [pairing.match_id] * 2  # two attempts, then it gave up
        assert calls.index(again) == 2 and again.attempts == 0  # a fresh pairing, not a retry
        tickets = sorted(ticket for ticket, _seat, _player in pairing.seats)
        assert sorted(ticket for ticket, _seat, _player in again.seats) == tickets  # the same tickets
        # The new pairing's replica gives up too: the tickets are queued, in their first place.
        await mm.abandon(again)
        assert await mm.open_tickets("acme") == 2
        for ticket in (alice, bob):
            status = await mm.status("acme", ticket.ticket_id)
            assert status.state == QUEUED and status.enqueued_ms == ticket.enqueued_ms  # same place
        await mm.close()

    run(scenario)


def test_a_pairing_whose_replica_died_is_created_by_another(plain: ClientFactory) -> None:
    async def scenario() -> None:
        dead = Matchmaker(plain(), policy=EAGER, lease_s=0.05)
        alice = await dead.enqueue(request("alice"))
        await dead.enqueue(request("bob"))
        (pairing,) = await dead.pair_once("acme", "ys")  # ... and the replica is gone

        survivor = Matchmaker(plain(), policy=EAGER, interval_s=0.02, full_scan_s=0.05, lease_s=5)
        created: list[Pairing] = []

        async def create_match(p: Pairing) -> None:
            created.append(p)

        stop = asyncio.Event()
        loop = asyncio.ensure_future(survivor.run(create_match, stop))
        await eventually(lambda: created, "the survivor created the match")

        async def matched() -> bool:
            return (await survivor.status("acme", alice.ticket_id)).state == MATCHED

        await eventually(matched, "the tickets are matched")
        stop.set()
        await loop
        assert [(p.match_id, p.seats) for p in created] == [(pairing.match_id, pairing.seats)]
        await survivor.close()

    run(scenario)


def test_two_replicas_racing_never_seat_a_ticket_twice_nor_a_cancelled_one(any_redis: ClientFactory) -> None:
    async def scenario() -> None:
        clients = [any_redis(), any_redis()]
        # Pairings seated by hand below have no creator: they stand for a replica that died after
        # seating, so the loops must pick them up when the (short) lease runs out.
        replicas = [
            Matchmaker(c, policy=EAGER, interval_s=0.01, full_scan_s=0.2, lease_s=0.5) for c in clients
        ]
        created: list[Pairing] = []

        async def create_match(pairing: Pairing) -> None:
            await asyncio.sleep(0.001)
            created.append(pairing)

        stop = asyncio.Event()
        loops = [asyncio.ensure_future(r.run(create_match, stop)) for r in replicas]
        rng = random.Random(7)
        cancelled: set[str] = set()
        tickets: list[str] = []
        for n in range(240):
            replica = replicas[n % 2]
            seats = rng.choice([(2, 2), (2, 4), (3, 3), (4, 4)])
            game = rng.choice(["ys", "rattus_cartus"])
            ticket = await replica.enqueue(request(f"p{n}", game=game, seats=seats))
            tickets.append(ticket.ticket_id)
            if rng.random() < 0.25:
                victim = rng.choice(tickets)
                status = await replicas[(n + 1) % 2].cancel("acme", victim)
                if status.state == CANCELLED:
                    cancelled.add(victim)
            if n % 20 == 0:
                # Pair by hand too, from both replicas at once, on top of the loops.
                await asyncio.gather(
                    *(r.pair_once("acme", game) for r in replicas for game in ("ys", "rattus_cartus"))
                )

        async def settled() -> bool:
            statuses = [await replicas[0].status("acme", t) for t in tickets]
            waiting = [s for s in statuses if s.state == QUEUED]
            # Settled when whoever is still queued cannot be seated (by the policy's own verdict).
            return not form_tables((as_queued(s) for s in waiting), int(time.time() * 1000), EAGER)

        await eventually(settled, "the queue settled")
        await asyncio.sleep(0.3)
        stop.set()
        await asyncio.gather(*loops)

        # A pairing whose creation outlives its (short) lease is created again by design, under the
        # same match id (creation is idempotent by id): a ticket must never be in two matches.
        seated: dict[str, set[str]] = {}
        for pairing in created:
            for ticket, _, _ in pairing.seats:
                seated.setdefault(ticket, set()).add(pairing.match_id)
        assert seated and all(len(ids) == 1 for ids in seated.values()), "a ticket was seated twice"
        assert not (set(seated) & cancelled), "a cancelled ticket was seated"
        for ticket_id in tickets:
            status = await replicas[0].status("acme", ticket_id)
            if ticket_id in cancelled:
                assert status.state == CANCELLED
            elif ticket_id in seated:
                assert status.state == MATCHED
                (pairing,) = {
                    p.match_id: p for p in created if any(t == ticket_id for t, _, _ in p.seats)
                }.values()
                assert status.match_id == pairing.match_id and status.players == pairing.players
                assert all(p.game == pairing.game for p in created if p.match_id == pairing.match_id)
            else:
                assert status.state == QUEUED
        for pairing in created:
            sizes = {(await replicas[0].status("acme", t)).max_seats for t, _, _ in pairing.seats}
            assert all(len(pairing.seats) <= size for size in sizes)
        for replica in replicas:
            await replica.close()

    run(scenario)


def test_queued_tickets_are_counted_by_game_over_tenants(plain: ClientFactory) -> None:
    async def scenario() -> None:
        mm = Matchmaker(plain())
        await mm.enqueue(request("a", seats=(3, 3)))
        await mm.enqueue(request("b", tenant="globex", seats=(3, 3)))
        cancelled = await mm.enqueue(request("c", game="bruges"))
        await mm.enqueue(request("d", game="bruges"))
        await mm.cancel("acme", cancelled.ticket_id)
        assert await mm.queued_by_game() == {"ys": 2, "bruges": 1}

    run(scenario)


def test_a_pools_keys_share_one_cluster_slot_and_pools_spread_over_primaries(
    redis_cluster_client: Any, local_cluster: Any
) -> None:
    from gateway.matchmaking import _Pool

    for n in range(60):
        pool = _Pool(f"tenant-{n % 7}", f"game_{n}")
        keys = [pool.key(part) for part in ("queue", "tickets", "done", "pending", "pairings")]
        assert len({redis_cluster_client.keyslot(k) for k in keys}) == 1, keys
    owners = {
        redis_cluster_client.get_node_from_key(_Pool("t", f"game_{n}").key("queue")).name for n in range(60)
    }
    assert len(owners) == sum(node.primary for node in local_cluster.nodes)


def test_queued_tickets_outlive_the_replica_that_took_them(plain: ClientFactory) -> None:
    async def scenario() -> None:
        first = plain()
        gone = Matchmaker(first, policy=EAGER)
        alice = await gone.enqueue(request("alice"))
        bob = await gone.enqueue(request("bob"))
        await first.aclose()

        fresh = Matchmaker(plain(), policy=EAGER)
        (pairing,) = await fresh.pair_once("acme", "ys")
        assert {t for t, _, _ in pairing.seats} == {alice.ticket_id, bob.ticket_id}

    run(scenario)


def test_a_waiter_learns_of_its_tickets_expiry(plain: ClientFactory) -> None:
    async def scenario() -> None:
        # Expiry comes by the clock, with no message: the waiter must wake for it by itself.
        mm = Matchmaker(plain(), ticket_ttl_s=0.3, safety_poll_s=60)
        alice = await mm.enqueue(request("alice"))
        expired = await asyncio.wait_for(mm.wait("acme", alice.ticket_id, QUEUED, 30), 20)
        assert expired.state == EXPIRED
        await mm.close()

    run(scenario)
