"""A snapshot every K versions (SNAPSHOT_EVERY, issue 25 item 4): the append writes it when the
match is created, ends, or reaches a multiple of K; a load takes it and folds the events after
it; the audit still checks the snapshot that exists, at whatever version it is."""

from __future__ import annotations

import asyncio
from typing import cast

import msgspec
import pytest
import redis

from gateway.domain.match import ENCODER, SNAPSHOT_DECODER
from gateway.eventstore.base import MatchKey
from gateway.eventstore.redis_store import match_keys
from gateway.usecases import GameMatches
from tests.gateway.gwcore_support import gateway, play_first_legal
from tests.kernel.toy_game import GAME

NIM = GAME.game_id
SEED = bytes(range(32))
TAKE_ONE = b'{"type": "take", "count": 1}'
K = 4


async def _take(matches: GameMatches, key: MatchKey, turns: range) -> int:
    version = 0
    for turn in turns:
        outcome = await matches.submit(key, turn % 2, TAKE_ONE, command_id=f"t{turn}")
        assert outcome.accepted, outcome.rejection
        version = outcome.version
    return version


def _snapshot_version(client: redis.Redis, key: MatchKey) -> int:
    return int(client.hget(match_keys(key).snapshot, "version") or 0)


def test_the_snapshot_is_written_every_k_versions_and_a_load_folds_the_events_after_it(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    key = MatchKey("acme", "every-k")

    async def scenario() -> None:
        async with gateway(redis_url, targets, snapshot_every=K) as matches:
            await matches.create("acme", NIM, ["x", "y"], match_id=key.match_id, seed=SEED)
            assert _snapshot_version(redis_client, key) == 1  # written at creation
            seen = []
            for turn in range(2 * K + 1):
                version = await _take(matches, key, range(turn, turn + 1))
                seen.append((version, _snapshot_version(redis_client, key)))
            # at each version the snapshot is at the last multiple of K reached (1 before the first)
            assert seen == [(v, max(1, v // K * K)) for v in range(2, 2 * K + 3)]
            latest = await matches.get_view(key, 0)
            assert latest.version > _snapshot_version(redis_client, key)
        # A replica that never saw the match: the snapshot plus the K - 1 events after it at most,
        # folded through the rules service, give the very state a replay from setup gives.
        async with gateway(redis_url, targets, snapshot_every=K) as fresh:
            loaded = await fresh.get_view(key, 0)
            replayed = await fresh.replay(key, latest.version, 0)
            assert (loaded.version, loaded.view_json) == (latest.version, latest.view_json)
            assert loaded.view_json == replayed.view_json
            match = await fresh._load(key)
            rebuilt = await fresh._replay(match, None)
            assert (match.version, match.head, match.state, match.status) == (
                rebuilt.version, rebuilt.head, rebuilt.state, rebuilt.status,
            )  # fmt: skip
            # it plays on from there like any replica
            assert (await _take(fresh, key, range(2 * K + 1, 2 * K + 2))) == latest.version + 1
            assert (await fresh.audit(key)).ok

    asyncio.run(scenario())


def test_a_load_after_k_minus_one_events_folds_them_all(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    key = MatchKey("acme", "fold")

    async def scenario() -> None:
        async with gateway(redis_url, targets, snapshot_every=K) as matches:
            await matches.create("acme", NIM, ["x", "y"], match_id=key.match_id, seed=SEED)
            version = await _take(matches, key, range(K - 1))  # versions 2..K: K - 1 events
            assert (version, _snapshot_version(redis_client, key)) == (K, K)
            version = await _take(matches, key, range(K - 1, 2 * K - 2))  # K + 1 .. 2K - 1
            assert (version, _snapshot_version(redis_client, key)) == (2 * K - 1, K)
            latest = await matches.get_view(key, 1)
        async with gateway(redis_url, targets, snapshot_every=K) as fresh:
            loaded = await fresh.get_view(key, 1)
            assert (loaded.version, loaded.view_json, loaded.legal_actions) == (
                latest.version, latest.view_json, latest.legal_actions,
            )  # fmt: skip

    asyncio.run(scenario())


def test_the_audit_checks_a_snapshot_written_k_versions_ago(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    key = MatchKey("acme", "audit-k")

    async def played() -> int:
        async with gateway(redis_url, targets, snapshot_every=K) as matches:
            await matches.create("acme", NIM, ["x", "y"], match_id=key.match_id, seed=SEED)
            return await _take(matches, key, range(K + 1))

    async def audit() -> tuple[bool, int | None, str]:
        async with gateway(redis_url, targets, snapshot_every=K) as matches:
            result = await matches.audit(key)
            return result.ok, result.first_bad_version, result.evidence

    version = asyncio.run(played())
    assert (version, _snapshot_version(redis_client, key)) == (K + 2, K)
    assert asyncio.run(audit()) == (True, None, "")
    # The state cached at version K edited, its MAC left as it was: the audit names the snapshot.
    state = cast(bytes | None, redis_client.hget(match_keys(key).snapshot, "state"))
    assert state is not None
    body = SNAPSHOT_DECODER.decode(state)
    edited = body.state[:-1] + bytes([body.state[-1] ^ 1])
    redis_client.hset(
        match_keys(key).snapshot, "state", ENCODER.encode(msgspec.structs.replace(body, state=edited))
    )
    ok, first_bad, evidence = asyncio.run(audit())
    assert not ok and evidence == "snapshot" and first_bad is not None and first_bad <= K + 1


def test_the_end_of_a_match_writes_its_snapshot(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    key = MatchKey("acme", "end-k")

    async def scenario() -> int:
        async with gateway(redis_url, targets, snapshot_every=1000) as matches:
            await matches.create("acme", NIM, ["x", "y"], match_id=key.match_id, seed=SEED)
            final = await play_first_legal(matches, key)
            assert (await matches.audit(key)).ok
            return final.version

    assert _snapshot_version(redis_client, key) == 0
    final = asyncio.run(scenario())
    assert final > 2 and _snapshot_version(redis_client, key) == final


def test_snapshot_every_must_be_positive(redis_url: str, targets: dict[str, str]) -> None:
    async def scenario() -> None:
        async with gateway(redis_url, targets, snapshot_every=0):
            pass

    with pytest.raises(ValueError, match="snapshot_every"):
        asyncio.run(scenario())
