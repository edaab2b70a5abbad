"""Retention: a finished match is archived, verified, removed from Redis, and still readable and
auditable from the archive; nothing is removed when any step fails."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from gateway.archive import (
    ArchiveError,
    DirectoryArchive,
    S3Archive,
    archive_match,
    archive_name,
    decode,
    load,
    tombstone_key,
)
from gateway.eventstore.base import MatchKey, NewEvent
from gateway.eventstore.entries import decode_entries
from gateway.eventstore.redis_store import RedisEventStore, match_keys

MATCH = MatchKey("acme", "finished-1")


def _play(client: redis.Redis, key: MatchKey = MATCH, events: int = 40) -> RedisEventStore:
    store = RedisEventStore(client)
    for n in range(events):
        payload = b'{"type":"card_played","card":"church:%d"}' % (n % 5)
        store.append(
            key,
            n,
            [NewEvent("card_played", payload)],
            actor=f"seat:{n % 4}",
            command_id=f"c{n}",
            rules_version="r1",
            snapshot=b"state" * 50,
        )
    return store


@pytest.mark.parametrize("client_fixture", ["redis_client", "redis_cluster_client"])
def test_an_archived_match_leaves_redis_and_replays_and_audits_from_the_archive(
    client_fixture: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    client: redis.Redis = request.getfixturevalue(client_fixture)
    store = _play(client)
    before = store.read(MATCH)
    archive = DirectoryArchive(tmp_path)
    report = archive_match(client, archive, MATCH)
    assert report.events == 40 and report.archived_bytes < report.stored_bytes
    assert not any(client.exists(k) for k in match_keys(MATCH))  # Redis holds live matches only
    assert client.exists(tombstone_key(MATCH))
    archived = load(client, archive, MATCH)
    assert archived is not None and archived.events() == before
    assert archived.audit().ok and archived.audit().head_hash == before[-1].hash


def test_nothing_is_removed_when_the_archive_returns_something_else(
    redis_client: redis.Redis, tmp_path: Path
) -> None:
    _play(redis_client)

    class Lossy(DirectoryArchive):
        def put(self, name: str, blob: bytes) -> None:
            super().put(name, blob[:-10])

    with pytest.raises(Exception):  # noqa: B017 - a broken blob fails to decompress or to compare
        archive_match(redis_client, Lossy(tmp_path), MATCH)
    assert RedisEventStore(redis_client).version(MATCH) == 40 and not redis_client.exists(
        tombstone_key(MATCH)
    )


def test_a_match_that_moves_while_archived_stays_in_redis(redis_client: redis.Redis, tmp_path: Path) -> None:
    store = _play(redis_client)

    class Racing(DirectoryArchive):
        def put(self, name: str, blob: bytes) -> None:
            super().put(name, blob)
            store.append(
                MATCH, 40, [NewEvent("late", b"{}")], actor="seat:0", command_id="late", rules_version="r1"
            )

    with pytest.raises(ArchiveError, match="moved"):
        archive_match(redis_client, Racing(tmp_path), MATCH)
    assert store.version(MATCH) == 41 and store.audit(MATCH).ok


def test_a_tampered_match_is_not_archived(redis_client: redis.Redis, tmp_path: Path) -> None:
    _play(redis_client)
    redis_client.xdel(match_keys(MATCH).events, "7-0")
    with pytest.raises(ArchiveError, match="audit at version 7"):
        archive_match(redis_client, DirectoryArchive(tmp_path), MATCH)
    assert redis_client.exists(match_keys(MATCH).meta)


def test_an_unknown_match_is_an_error(redis_client: redis.Redis, tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="no such match"):
        archive_match(redis_client, DirectoryArchive(tmp_path), MatchKey("acme", "never"))
    assert load(redis_client, DirectoryArchive(tmp_path), MatchKey("acme", "never")) is None


def test_an_s3_bucket_is_an_archive_store(redis_client: redis.Redis) -> None:
    import boto3  # the `s3` extra (part of the dev extra)
    from moto import mock_aws

    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="guildhall-archive")
        archive = S3Archive("guildhall-archive", prefix="matches/", client=s3)
        _play(redis_client)
        archive_match(redis_client, archive, MATCH)
        stored = s3.get_object(Bucket="guildhall-archive", Key="matches/" + archive_name(MATCH))[
            "Body"
        ].read()
        assert decode(stored).version == 40
        assert archive.get("matches/none") is None


def test_a_match_played_through_the_gateway_archives_with_its_receipts_and_actions(
    redis_url: str, redis_client: redis.Redis, tmp_path: Path
) -> None:
    """Gateway entries carry binary fields beside the chain (the receipt's signature, the
    action): they travel into the archive byte for byte and the archived chain verifies."""
    import asyncio

    from gateway.domain.receipts import decode_receipt, receipt_message
    from tests.gateway.gwcore_support import SHARED_KEYS, gateway, play_first_legal
    from tests.kernel.toy_game import GAME
    from tests.rules_service import serving

    key = MatchKey("acme", "played-1")
    with serving(GAME) as rules:

        async def play() -> None:
            async with gateway(redis_url, {GAME.game_id: rules.target}) as matches:
                await matches.create("acme", GAME.game_id, ["x", "y"], match_id=key.match_id)
                assert (await play_first_legal(matches, key)).finished

        asyncio.run(play())
    live = decode_entries(redis_client.xrange(match_keys(key).events))
    archive = DirectoryArchive(tmp_path)

    report = archive_match(redis_client, archive, key)  # raises if anything does not verify
    assert report.events == len(live)
    archived = load(redis_client, archive, key)
    assert archived is not None and archived.audit().ok
    events = archived.events()
    assert events == live  # every field, receipts and actions included
    assert all(e.receipt for e in events if e.type == "match_ended") and any(e.action for e in events)
    last = decode_receipt(events[-1].receipt)
    message = receipt_message("acme", key.match_id, last.version, last.head_hash)
    assert last.head_hash == events[-1].hash and SHARED_KEYS.verify(last.key_id, message, last.signature)


def test_an_archived_match_is_still_replayed_audited_and_read_through_the_gateway(
    redis_url: str, redis_client: redis.Redis, tmp_path: Path
) -> None:
    import asyncio

    import redis.asyncio

    from gateway.archive import load_async
    from gateway.rules_client import AsyncRulesClient
    from gateway.usecases import GameMatches, MatchNotFound
    from tests.gateway.gwcore_support import SHARED_KEYS, gateway, play_first_legal
    from tests.kernel.toy_game import GAME

    key = MatchKey("acme", "old-1")
    archive = DirectoryArchive(tmp_path)
    from tests.rules_service import serving

    with serving(GAME) as rules:

        async def play() -> tuple[int, bytes]:
            async with gateway(redis_url, {GAME.game_id: rules.target}) as matches:
                await matches.create("acme", GAME.game_id, ["x", "y"], match_id=key.match_id)
                final = await play_first_legal(matches, key)
                return final.version, (await matches.replay(key, 3, 0)).view_json

        version, view_at_3 = asyncio.run(play())
        archive_match(redis_client, archive, key)

        async def read_archived() -> None:
            client = redis.asyncio.Redis.from_url(redis_url)
            client_rules = {GAME.game_id: AsyncRulesClient(GAME.game_id, rules.target)}
            try:
                plain = GameMatches(client, client_rules, SHARED_KEYS)
                with pytest.raises(MatchNotFound):
                    await plain.audit(key)
                matches = GameMatches(
                    client, client_rules, SHARED_KEYS, archive=lambda k: load_async(client, archive, k)
                )
                assert (await matches.audit(key)).ok
                assert (await matches.replay(key, 3, 0)).view_json == view_at_3
                raw = await matches.raw_events(key, version - 2)
                assert [e.version for e in raw] == [version - 1, version] and raw[-1].receipt is not None
                with pytest.raises(MatchNotFound):
                    await matches.audit(MatchKey("acme", "never"))
            finally:
                await client_rules[GAME.game_id].close()
                await client.aclose()

        asyncio.run(read_archived())


def test_the_gateway_is_told_where_the_archive_is_like_the_archive_tool(tmp_path: Path) -> None:
    """ARCHIVE_DIR / ARCHIVE_S3_BUCKET name the same store for `python -m gateway` as for
    `python -m gateway.archive`, so archived matches stay readable through the gateway."""
    import pytest

    from gateway.archive import ArchiveError, archive_from
    from gateway.settings import parse_args

    config = parse_args([], {"ARCHIVE_DIR": str(tmp_path), "RULES_YS": "localhost:1"})
    assert config.archive_dir == str(tmp_path)
    assert isinstance(archive_from(config.archive_dir, config.archive_s3_bucket), DirectoryArchive)
    assert archive_from("", "") is None
    with pytest.raises(ArchiveError):
        archive_from(str(tmp_path), "bucket")
