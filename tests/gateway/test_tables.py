"""Private tables on a real Redis and Redis Cluster: invite codes, atomic seat claims."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
import redis.asyncio
import redis.asyncio.cluster

from gateway.domain.names import BadName
from gateway.tables import BadInvite, Claimed, SeatTaken, Tables, new_invite_code, normalize_code
from services.kernel.rejection import BAD_INVITE, SEAT_TAKEN

ClientFactory = Callable[[], Any]


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
    now_s = 1_000_000.0

    def __call__(self) -> float:
        return self.now_s


def test_invite_codes_are_long_random_and_forgiving_to_type() -> None:
    codes = {new_invite_code() for _ in range(1000)}
    assert len(codes) == 1000
    code = next(iter(codes))
    assert len(code) == 23 and code.count("-") == 3
    plain = normalize_code(code)
    assert plain is not None and len(plain) == 20
    assert normalize_code(f"  {code.lower()} ") == plain
    assert normalize_code("ABCDE-FGHIJ-KLMNO-PQRSU") is None  # U is no Crockford symbol
    assert normalize_code("0O1IL-00000-00000-00000") == "00111000000000000000"
    assert normalize_code("short") is None and normalize_code("x" * 100) is None


def test_players_claim_the_seats_of_a_table_in_order(any_redis: ClientFactory) -> None:
    async def scenario() -> None:
        tables = Tables(any_redis())
        code = await tables.open("acme", "m1", 3)
        assert await tables.claim("acme", code, "alice") == Claimed("m1", 0)
        assert await tables.claim("acme", code.lower().replace("-", " "), "bob") == Claimed("m1", 1)
        assert await tables.claim("acme", code, "carol") == Claimed("m1", 2)
        with pytest.raises(SeatTaken) as full:
            await tables.claim("acme", code, "dave")
        assert full.value.code == SEAT_TAKEN and full.value.match_id == "m1"
        assert await tables.seats("acme", code) == ("m1", 3, {0: "alice", 1: "bob", 2: "carol"})

    run(scenario)


def test_a_seat_is_claimed_once_and_only_its_claim_id_repeats_it(plain: ClientFactory) -> None:
    """Issue 39: another player's id (read in seat_names), a bot's id, or the player's own id
    again take no seat; the same claim again with its claim id answers the same seat."""

    async def scenario() -> None:
        tables = Tables(plain())
        code = await tables.open("acme", "m1", 3)
        claim_id = "c" * 16
        assert await tables.claim("acme", code, "bot-random-0", seat=0) == Claimed("m1", 0)
        assert await tables.claim("acme", code, "alice", claim_id=claim_id) == Claimed("m1", 1)
        for player, given in (("alice", ""), ("alice", "d" * 16), ("bot-random-0", claim_id)):
            with pytest.raises(SeatTaken) as refused:
                await tables.claim("acme", code, player, claim_id=given)
            assert "claimed once" in str(refused.value) and "resume link" in str(refused.value)
        assert await tables.claim("acme", code, "alice", claim_id=claim_id) == Claimed("m1", 1, again=True)
        with pytest.raises(ValueError, match="claim_id"):
            await tables.claim("acme", code, "bob", claim_id="short")
        assert (await tables.seats("acme", code))[2] == {0: "bot-random-0", 1: "alice"}

    run(scenario)


def test_a_name_another_seat_has_is_refused_with_the_claim(plain: ClientFactory) -> None:
    async def scenario() -> None:
        tables = Tables(plain())
        code = await tables.open("acme", "m1", 3)
        await tables.claim("acme", code, "alice", name_key="ann")
        with pytest.raises(BadName):
            await tables.claim("acme", code, "mallory", name_key="ann")
        assert (await tables.seats("acme", code))[2] == {0: "alice"}  # nothing claimed
        assert await tables.claim("acme", code, "bob", name_key="bob") == Claimed("m1", 1)

    run(scenario)


def test_a_resume_secret_moves_a_seat_once_and_is_replaced(plain: ClientFactory) -> None:
    async def scenario() -> None:
        client = plain()
        tables = Tables(client)
        first = await tables.new_resume_secret("acme", "m1", 2)
        assert first.startswith("ghs1.m1.2.") and len(first.rsplit(".", 1)[1]) == 32
        match_id, seat, second = await tables.resume("acme", first)
        assert (match_id, seat) == ("m1", 2) and second != first
        # The last character changed (to another one: a secret may end in "x" already).
        altered = second[:-1] + ("y" if second.endswith("x") else "x")
        for stale in (first, second.replace("ghs1.m1.2.", "ghs1.m1.1."), altered, "nonsense"):
            with pytest.raises(BadInvite) as refused:
                await tables.resume("acme", stale)
            assert refused.value.code == BAD_INVITE
        with pytest.raises(BadInvite):
            await tables.resume("globex", second)  # another tenant's
        assert (await tables.resume("acme", second))[:2] == ("m1", 2)
        stored = await client.hgetall("gh:tbl:{acme:m1}:resume")
        assert second.encode() not in b"".join(stored.values())  # only hashes are kept

    run(scenario)


def test_a_named_seat_is_given_once(plain: ClientFactory) -> None:
    async def scenario() -> None:
        tables = Tables(plain())
        code = await tables.open("acme", "m1", 4)
        assert await tables.claim("acme", code, "alice", seat=2) == Claimed("m1", 2)
        with pytest.raises(SeatTaken):
            await tables.claim("acme", code, "bob", seat=2)
        assert await tables.claim("acme", code, "bob") == Claimed("m1", 0)
        with pytest.raises(ValueError):
            await tables.claim("acme", code, "carol", seat=4)
        assert (await tables.seats("acme", code))[2] == {0: "bob", 2: "alice"}

    run(scenario)


def test_bad_codes_and_other_tenants_codes_are_bad_invites(plain: ClientFactory) -> None:
    async def scenario() -> None:
        client = plain()
        tables = Tables(client)
        code = await tables.open("acme", "m1", 2)
        keys_before = sorted(await client.keys("*"))
        for tenant, attempt in [
            ("globex", code),
            ("acme", new_invite_code()),
            ("acme", "nonsense"),
            ("ac}me", code),
        ]:
            with pytest.raises(BadInvite) as refused:
                await tables.claim(tenant, attempt, "mallory")
            assert refused.value.code == BAD_INVITE
        assert sorted(await client.keys("*")) == keys_before
        assert (await tables.seats("acme", code))[2] == {}

    run(scenario)


def test_opening_the_same_match_again_returns_its_code(plain: ClientFactory) -> None:
    async def scenario() -> None:
        tables = Tables(plain())
        code = await tables.open("acme", "m1", 2)
        assert await tables.open("acme", "m1", 2) == code
        assert await tables.code_for("acme", "m1") == code
        assert await tables.code_for("globex", "m1") is None
        assert await tables.open("acme", "m2", 2) != code

    run(scenario)


@pytest.mark.parametrize(("match_id", "players"), [("m}1", 2), ("m1", 0), ("m1", 17), ("m1", True)])
def test_a_bad_table_is_refused(plain: ClientFactory, match_id: str, players: int) -> None:
    async def scenario() -> None:
        client = plain()
        with pytest.raises(ValueError):
            await Tables(client).open("acme", match_id, players)
        assert await client.dbsize() == 0

    run(scenario)


def test_a_revoked_or_expired_table_takes_no_claims(plain: ClientFactory) -> None:
    async def scenario() -> None:
        client = plain()
        tables = Tables(client)
        code = await tables.open("acme", "m1", 2)
        assert await tables.revoke("acme", "m1")
        with pytest.raises(BadInvite):
            await tables.claim("acme", code, "alice")
        assert await tables.revoke("acme", "m1") is False

        short = Tables(client, ttl_s=0.05)
        code = await short.open("acme", "m2", 2)
        await asyncio.sleep(0.2)  # Redis expires the keys itself
        with pytest.raises(BadInvite):
            await short.claim("acme", code, "alice")

    run(scenario)


def test_players_racing_for_seats_each_get_a_different_one(any_redis: ClientFactory) -> None:
    async def scenario() -> None:
        clients = [any_redis(), any_redis()]  # two gateway replicas
        replicas = [Tables(c) for c in clients]
        code = await replicas[0].open("acme", "m1", 4)

        async def attempt(n: int) -> int | None:
            try:
                return (await replicas[n % 2].claim("acme", code, f"p{n}"))[1]
            except SeatTaken:
                return None

        results = await asyncio.gather(*(attempt(n) for n in range(40)))
        seated = [seat for seat in results if seat is not None]
        assert sorted(seated) == [0, 1, 2, 3]
        _, _, claimed = await replicas[0].seats("acme", code)
        assert {claimed[results[n]]: results[n] for n in range(40) if results[n] is not None} == {
            f"p{n}": results[n] for n in range(40) if results[n] is not None
        }

    run(scenario)


def test_a_table_opens_for_the_placeholder_players_of_its_match(plain: ClientFactory) -> None:
    async def scenario() -> None:
        tables = Tables(plain())
        code = await tables.open("acme", "m1", ["seat-0", "seat-1", "seat-2"])
        assert (await tables.seats("acme", code))[:2] == ("m1", 3)

    run(scenario)
