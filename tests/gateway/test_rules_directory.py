"""The rules directory (gateway/rules_directory.py) and the operator's rules commands
(gateway/admin/rules.py) over a real Redis: routing by (game, version), the precise refusals,
the current version and its ramp, settings reaching another replica, the pinned-match sets,
and bad input refused with nothing changed. The targets are stand-ins that answer Describe
(each version's rules themselves run in tests/gateway/test_rules_versions.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
import redis
import redis.asyncio
from guildhall.rules.v1 import rules_pb2

from gateway.admin.log import LOG_KEYS, AdminLog
from gateway.admin.rules import RulesAdmin
from gateway.admin.usecases import AdminError
from gateway.eventstore.base import MatchKey
from gateway.rules_directory import (
    SETTINGS_KEY,
    Current,
    PinnedMatches,
    RulesDirectory,
    RulesSettings,
    ramp_share,
)
from gateway.usecases.results import RulesNotAnswering, RulesNotDeployed, UnknownGame

GAME = "rattus_cartus"
A, B, C = "2.0+" + "a" * 16, "2.0+" + "b" * 16, "2.0+" + "c" * 16


class Target:
    """A rules service as the directory sees it: it answers Describe with its game and version,
    or does not answer at all."""

    def __init__(self, game: str, version: str) -> None:
        self.game, self.version, self.up = game, version, True
        self.closed = False

    async def describe(self) -> Any:
        if not self.up:
            raise grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata())
        return rules_pb2.DescribeResponse(game_id=self.game, rules_version=self.version, title=self.game)

    async def close(self) -> None:
        self.closed = True


class Fleet:
    """The targets that exist, by address; a directory's clients are these."""

    def __init__(self, **targets: Target) -> None:
        self.targets = targets

    def client(self, game: str, address: str) -> Target:
        return self.targets[address]


class CountingRedis:
    """A redis.asyncio client that counts the commands sent through it."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.calls = inner, 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return attr(*args, **kwargs)

        return counted


def directory(fleet: Fleet, configured: dict[str, list[str]], redis_client: Any = None) -> RulesDirectory:
    return RulesDirectory(configured, fleet.client, redis=redis_client, probe_s=0.05)


def test_each_version_is_routed_to_its_own_target_and_new_matches_to_the_current_one() -> None:
    async def scenario() -> None:
        fleet = Fleet(**{"a:1": Target(GAME, A), "b:1": Target(GAME, B)})
        rules = directory(fleet, {GAME: ["a:1", "b:1"]})
        await rules.start()
        assert rules.client(GAME, A) is fleet.targets["a:1"] and rules.client(GAME, B) is fleet.targets["b:1"]
        # Unset, the current version is the first configured target's.
        assert rules.current(GAME) == A and rules.for_new_match(GAME, "m1") == (A, fleet.targets["a:1"])

    asyncio.run(scenario())


def test_a_version_nobody_serves_is_refused_by_name_and_never_given_other_rules() -> None:
    async def scenario() -> None:
        fleet = Fleet(**{"a:1": Target(GAME, A), "b:1": Target(GAME, B)})
        rules = directory(fleet, {GAME: ["a:1", "b:1"]})
        await rules.start()
        with pytest.raises(RulesNotDeployed) as missing:
            rules.client(GAME, C)
        assert C in str(missing.value) and GAME in str(missing.value) and A in str(missing.value)
        with pytest.raises(UnknownGame):
            rules.client("ys", A)
        # B's pods stop: calls still go to its target (its channel reconnects), until a target
        # refuses a state of B (suspect): then UNAVAILABLE, naming the target, never A's rules.
        fleet.targets["b:1"].up = False
        await rules.probe()
        assert rules.client(GAME, B) is fleet.targets["b:1"] and not rules.answering(GAME, B)
        rules.suspect(GAME, B)
        with pytest.raises(RulesNotAnswering) as down:
            rules.client(GAME, B)
        assert "b:1 (" in str(down.value) and B in str(down.value)
        # Back: routed again at the next probe.
        fleet.targets["b:1"].up = True
        await rules.probe()
        assert rules.client(GAME, B) is fleet.targets["b:1"]

    asyncio.run(scenario())


def test_a_replica_started_while_a_versions_pod_is_down_says_unavailable_not_undeployed() -> None:
    """A replica restarts while B's pod restarts too (the soak's faults): it never learned B's
    version, so a match of B is UNAVAILABLE (retry) there, not refused as not deployed; once the
    pod answers, it is served."""

    async def scenario() -> None:
        fleet = Fleet(**{"a:1": Target(GAME, A), "b:1": Target(GAME, B)})
        fleet.targets["b:1"].up = False
        rules = directory(fleet, {GAME: ["a:1", "b:1"]})
        await rules.start()
        with pytest.raises(RulesNotAnswering) as down:
            rules.client(GAME, B)
        assert "b:1 (" in str(down.value) and B in str(down.value)
        fleet.targets["b:1"].up = True
        await rules.probe()
        assert rules.client(GAME, B) is fleet.targets["b:1"]
        # With every target's version known, a version nobody serves is still not deployed.
        with pytest.raises(RulesNotDeployed):
            rules.client(GAME, C)

    asyncio.run(scenario())


def test_a_configured_target_of_another_game_or_a_silent_game_stops_the_start() -> None:
    async def scenario(fleet: Fleet, configured: dict[str, list[str]]) -> str:
        with pytest.raises(SystemExit) as stopped:
            await directory(fleet, configured).start()
        return str(stopped.value)

    assert "answers for 'ys'" in asyncio.run(scenario(Fleet(**{"a:1": Target("ys", A)}), {GAME: ["a:1"]}))
    silent = Target(GAME, A)
    silent.up = False
    assert "no rules target of rattus_cartus answers" in asyncio.run(
        scenario(Fleet(**{"a:1": silent}), {GAME: ["a:1"]})
    )


def test_the_ramp_sends_a_share_of_new_matches_chosen_by_match_id() -> None:
    shares = [ramp_share(f"match-{n}") for n in range(4000)]
    assert all(0 <= share < 100 for share in shares)
    assert 0.23 < sum(share < 25 for share in shares) / len(shares) < 0.27
    assert ramp_share("m") == ramp_share("m")  # every replica, and a retried create, alike

    async def scenario() -> None:
        fleet = Fleet(**{"a:1": Target(GAME, A), "b:1": Target(GAME, B)})
        rules = directory(fleet, {GAME: ["a:1", "b:1"]})
        await rules.start()
        rules.games[GAME].current = Current(A, B, 25.0)
        chosen = {f"match-{n}": rules.for_new_match(GAME, f"match-{n}")[0] for n in range(400)}
        assert {m for m, v in chosen.items() if v == B} == {m for m in chosen if ramp_share(m) < 25}

    asyncio.run(scenario())


def test_settings_reach_another_replica_and_the_hot_path_never_asks_redis(redis_url: str) -> None:
    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        await client.delete(SETTINGS_KEY)
        fleet = Fleet(**{"a:1": Target(GAME, A), "b:1": Target(GAME, B)})
        counting = CountingRedis(client)
        one, two = directory(fleet, {GAME: ["a:1"]}, counting), directory(fleet, {GAME: ["a:1"]}, client)
        await one.start()
        await two.start()
        settings = RulesSettings(client)
        await settings.set_targets(GAME, ["b:1"])
        await settings.set_current(GAME, Current(B))
        stopping = asyncio.Event()
        runner = asyncio.create_task(two.run(stopping))
        for _ in range(100):  # within a few probe periods (0.05 s here; 2 s in production)
            await asyncio.sleep(0.02)
            if two.current(GAME) == B and two.known(GAME, B):
                break
        assert two.for_new_match(GAME, "m") == (B, fleet.targets["b:1"])
        await settings.set_targets(GAME, [])
        await asyncio.sleep(0.3)
        assert not two.known(GAME, B)  # a retired target goes
        stopping.set()
        await runner
        before = counting.calls
        for _ in range(1000):
            one.client(GAME, A)
        assert counting.calls == before
        await client.aclose()

    asyncio.run(scenario())


def test_pinned_matches_are_counted_moved_and_rebuilt(redis_url: str, redis_client: redis.Redis) -> None:
    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        pinned = PinnedMatches(client)
        one, two = MatchKey("acme", "m1"), MatchKey("acme", "m2")
        await pinned.pin(one, GAME, A)
        await pinned.pin(two, GAME, A)
        await pinned.move(two, GAME, A, B)
        assert await pinned.counts() == {(GAME, A): 1, (GAME, B): 1}
        await pinned.unpin(one, GAME, A)
        assert (await pinned.counts()).get((GAME, A), 0) == 0
        rebuilt = await pinned.reconcile({(GAME, C): {"acme/m3"}})
        assert rebuilt == {(GAME, C): 1} and await pinned.counts() == {(GAME, C): 1}
        await client.aclose()

    asyncio.run(scenario())


class NoMatches:
    """The match use cases RulesAdmin reaches, for the commands that need none."""

    def __init__(self, client: Any) -> None:
        self.pinned = PinnedMatches(client)


def test_bad_rules_commands_are_refused_and_change_nothing(redis_url: str, redis_client: redis.Redis) -> None:
    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        fleet = Fleet(**{"a:1": Target(GAME, A), "b:1": Target(GAME, B)})
        rules = directory(fleet, {GAME: ["a:1"]}, client)
        await rules.start()
        admin = RulesAdmin(
            rules, RulesSettings(client), AdminLog(client), NoMatches(client), lambda: ["acme"]
        )

        async def refused(call: Any) -> grpc.StatusCode:
            with pytest.raises(AdminError) as error:
                await call
            return error.value.code

        bad = grpc.StatusCode.INVALID_ARGUMENT
        assert await refused(admin.set_current("op", "Bad Game", A)) == bad
        assert await refused(admin.set_current("op", GAME, "latest")) == bad
        assert await refused(admin.set_current("op", GAME, A, B, 120.0)) == bad
        assert await refused(admin.set_current("op", GAME, A, "", 10.0)) == bad
        assert await refused(admin.set_current("op", GAME, B)) == grpc.StatusCode.FAILED_PRECONDITION
        assert await refused(admin.set_current("op", "ys", A)) == grpc.StatusCode.NOT_FOUND
        assert await refused(admin.add_target("op", GAME, "not a target")) == bad
        assert await refused(admin.add_target("op", GAME, "a:1")) == grpc.StatusCode.ALREADY_EXISTS
        assert await refused(admin.remove_target("op", GAME, "a:1")) == grpc.StatusCode.FAILED_PRECONDITION
        assert await refused(admin.remove_target("op", GAME, "b:1")) == grpc.StatusCode.NOT_FOUND
        assert await refused(admin.move("op", "rival", "m1", B)) == grpc.StatusCode.NOT_FOUND
        assert not redis_client.exists(SETTINGS_KEY) and not redis_client.exists(LOG_KEYS[0])

        # Good ones: in the admin log first, applied on this replica at once.
        await admin.add_target("op", GAME, "b:1")
        await admin.set_current("op", GAME, B, A, 10.0)
        assert rules.current(GAME) == B and rules.games[GAME].current == Current(B, A, 10.0)
        logged = await AdminLog(client).entries()
        assert [entry.action for entry in logged] == ["add_rules_target", "set_current_rules"]
        assert logged[0].before == [] and logged[0].after == ["b:1"]
        assert logged[1].before["version"] == "" and logged[1].after == {
            "version": B, "ramp_version": A, "ramp_percent": 10.0
        }  # fmt: skip
        (listed,) = await admin.listing(GAME)
        by_version = {v.version: v for v in listed.versions}
        assert by_version[B].current and by_version[A].ramp_percent == 10.0 and not listed.current_is_default
        await client.aclose()

    asyncio.run(scenario())
