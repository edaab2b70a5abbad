"""Retention by default (issue 25): a finished match older than ARCHIVE_RETENTION_SECONDS leaves
Redis through the archive, swept by every gateway replica, and stays replayable and auditable
from there; an unfinished match never leaves; sweepers running at once lose nothing."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio

from gateway.archive import DirectoryArchive, archive_match, finished_key, load, load_async, tombstone_key
from gateway.eventstore.base import MatchKey
from gateway.eventstore.redis_store import match_keys
from gateway.retention import DEFAULT_ARCHIVE_DIR, Sweeper, lease_key, sweep_interval_s
from gateway.rules_client import AsyncRulesClient
from gateway.settings import parse_args
from gateway.usecases import GameMatches
from tests.gateway.gwcore_support import SHARED_KEYS, gateway, play_first_legal
from tests.kernel.toy_game import GAME
from tests.rules_service import serving

TENANT = "acme"
HOUR = 3600.0


@pytest.fixture(scope="module")
def rules() -> Iterator[str]:
    with serving(GAME) as running:
        yield running.target


def _play(redis_url: str, target: str, ids: list[str], *, finish: bool = True) -> None:
    """Create the matches; play each to its end (or one action in, when not `finish`)."""

    async def play() -> None:
        async with gateway(redis_url, {GAME.game_id: target}) as matches:
            for match_id in ids:
                key = MatchKey(TENANT, match_id)
                await matches.create(TENANT, GAME.game_id, ["x", "y"], match_id=match_id)
                if finish:
                    assert (await play_first_legal(matches, key)).finished
                else:
                    view = await matches.get_view(key, 0)
                    assert (await matches.submit(key, 0, view.legal_actions[0], command_id="c1")).accepted

    asyncio.run(play())


def _sweeper(client: redis.Redis, archive: DirectoryArchive, *, later_s: float) -> Sweeper:
    """A sweeper with a one-hour retention whose clock reads `later_s` from now."""
    return Sweeper(client, archive, lambda: [TENANT], HOUR, clock=lambda: time.time() + later_s)


def _in_redis(client: redis.Redis, match_id: str) -> bool:
    return any(client.exists(k) for k in match_keys(MatchKey(TENANT, match_id)))


def test_a_finished_match_older_than_the_retention_leaves_redis_and_replays_and_audits_from_the_archive(
    redis_url: str, redis_client: redis.Redis, rules: str, tmp_path: Path
) -> None:
    _play(redis_url, rules, ["done-1"])
    key = MatchKey(TENANT, "done-1")
    assert redis_client.zscore(finished_key(TENANT), "done-1") is not None  # indexed by its ending
    archive = DirectoryArchive(tmp_path)

    young = asyncio.run(_sweeper(redis_client, archive, later_s=HOUR / 2).sweep())
    assert young.archived == [] and _in_redis(redis_client, "done-1")  # not old enough yet

    swept = asyncio.run(_sweeper(redis_client, archive, later_s=HOUR + 60).sweep())
    assert [r.key for r in swept.archived] == [key] and swept.archived[0].events > 2
    assert not _in_redis(redis_client, "done-1") and redis_client.exists(tombstone_key(key))
    assert redis_client.zcard(finished_key(TENANT)) == 0  # it left the index with Redis
    assert not redis_client.exists(lease_key(key))
    archived = load(redis_client, archive, key)
    assert archived is not None and archived.audit().ok and archived.meta["finished"] == "1"

    async def read_back() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        rules_client = AsyncRulesClient(GAME.game_id, rules)
        try:
            matches = GameMatches(
                client,
                {GAME.game_id: rules_client},
                SHARED_KEYS,
                archive=lambda k: load_async(client, archive, k),
            )
            audit = await matches.audit(key)
            assert audit.ok and audit.checked_versions == archived.version
            replayed = await matches.replay(key, archived.version, None)
            assert replayed.finished and replayed.version == archived.version
            assert [e.version for e in await matches.raw_events(key)] == list(range(1, archived.version + 1))
        finally:
            await rules_client.close()
            await client.aclose()

    asyncio.run(read_back())


def test_an_unfinished_match_is_never_archived(
    redis_url: str, redis_client: redis.Redis, rules: str, tmp_path: Path
) -> None:
    _play(redis_url, rules, ["live-1"], finish=False)
    archive = DirectoryArchive(tmp_path)
    assert redis_client.zcard(finished_key(TENANT)) == 0  # only an ending indexes a match
    # Even named in the finished index by mistake, it stays in Redis (and leaves the index).
    redis_client.zadd(finished_key(TENANT), {"live-1": 0})
    report = asyncio.run(_sweeper(redis_client, archive, later_s=100 * HOUR).sweep())
    assert report.archived == [] and [k.match_id for k, _ in report.failed] == ["live-1"]
    assert "not finished" in report.failed[0][1]
    assert _in_redis(redis_client, "live-1") and not redis_client.exists(
        tombstone_key(MatchKey(TENANT, "live-1"))
    )
    assert redis_client.zcard(finished_key(TENANT)) == 0
    assert not any(tmp_path.rglob("*.ghz"))


def test_two_sweepers_at_once_archive_every_match_once_and_lose_nothing(
    redis_url: str, redis_client: redis.Redis, rules: str, tmp_path: Path
) -> None:
    ids = [f"pair-{n}" for n in range(6)]
    _play(redis_url, rules, ids)
    heads = {m: redis_client.hget(match_keys(MatchKey(TENANT, m)).meta, "head_hash") for m in ids}
    archive = DirectoryArchive(tmp_path)
    other = redis.Redis.from_url(redis_url)
    try:
        first, second = (
            _sweeper(redis_client, archive, later_s=2 * HOUR),
            _sweeper(other, archive, later_s=2 * HOUR),
        )

        async def both() -> list[Any]:
            return list(await asyncio.gather(first.sweep(), second.sweep()))

        reports = asyncio.run(both())
    finally:
        other.close()
    archived = [r.key.match_id for report in reports for r in report.archived]
    assert sorted(archived) == ids  # each once: the other found it leased or archived already
    assert not any(report.failed for report in reports)
    for match_id in ids:
        key = MatchKey(TENANT, match_id)
        assert not _in_redis(redis_client, match_id)
        kept = load(redis_client, archive, key)
        assert kept is not None and kept.audit().ok and kept.meta["head_hash"].encode() == heads[match_id]
    assert redis_client.zcard(finished_key(TENANT)) == 0


def test_archiving_a_match_twice_at_the_same_moment_is_harmless(
    redis_url: str, redis_client: redis.Redis, rules: str, tmp_path: Path
) -> None:
    """No lease: the second archiver read the match before the first removed it; its removal
    finds the match archived at the same version and does nothing more."""
    _play(redis_url, rules, ["twice-1"])
    key = MatchKey(TENANT, "twice-1")
    inner: list[Any] = []

    class Racing(DirectoryArchive):
        def put(self, name: str, blob: bytes) -> None:
            super().put(name, blob)
            if not inner:  # the other archiver runs whole while this one is between put and remove
                other = redis.Redis.from_url(redis_url)
                try:
                    inner.append(archive_match(other, DirectoryArchive(self.root), key, finished_only=True))
                finally:
                    other.close()

    outer = archive_match(redis_client, Racing(tmp_path), key, finished_only=True)
    assert not inner[0].already and outer.already and outer.events == inner[0].events
    again = archive_match(redis_client, DirectoryArchive(tmp_path), key)  # and once more, later
    assert again.already and again.events == 0
    kept = load(redis_client, DirectoryArchive(tmp_path), key)
    assert kept is not None and kept.audit().ok and not _in_redis(redis_client, "twice-1")


def test_a_failing_archive_leaves_the_match_in_redis_and_the_sweep_goes_on(
    redis_url: str, redis_client: redis.Redis, rules: str, tmp_path: Path
) -> None:
    _play(redis_url, rules, ["bad-1", "good-1"])
    redis_client.zadd(finished_key(TENANT), {"bad-1": 1, "good-1": 2})  # the bad one comes first
    redis_client.xdel(match_keys(MatchKey(TENANT, "bad-1")).events, "2-0")  # fails its audit
    report = asyncio.run(_sweeper(redis_client, DirectoryArchive(tmp_path), later_s=2 * HOUR).sweep())
    assert [r.key.match_id for r in report.archived] == ["good-1"]
    assert [k.match_id for k, _ in report.failed] == ["bad-1"] and "audit" in report.failed[0][1]
    assert _in_redis(redis_client, "bad-1") and redis_client.zscore(finished_key(TENANT), "bad-1") == 1


def test_retention_settings_default_to_an_hour_and_a_local_directory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = parse_args([], {"RULES_YS": "h:1"})
    assert (config.archive_retention_s, config.archive_dir, config.archive_s3_bucket) == (
        3600.0,
        DEFAULT_ARCHIVE_DIR,
        "",
    )
    s3 = parse_args([], {"RULES_YS": "h:1", "ARCHIVE_S3_BUCKET": "b", "ARCHIVE_RETENTION_SECONDS": "0"})
    assert (s3.archive_dir, s3.archive_s3_bucket, s3.archive_retention_s) == ("", "b", 0.0)
    for bad in ("-1", "soon", "nan"):
        with pytest.raises(SystemExit):
            parse_args([], {"RULES_YS": "h:1", "ARCHIVE_RETENTION_SECONDS": bad})
        assert "ARCHIVE_RETENTION_SECONDS must be a number of seconds" in capsys.readouterr().err
    assert sweep_interval_s(3600) == 60 and sweep_interval_s(2) == 1 and sweep_interval_s(40) == 10
    with pytest.raises(ValueError, match="retention"):
        Sweeper(None, DirectoryArchive("x"), list, 0)


def test_a_gateway_process_archives_its_finished_matches_by_default(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python -m gateway` with a short retention: a resigned match leaves Redis for the stack's
    archive directory on its own, and the gateway still audits and replays it."""
    from devstack.stack import Stack
    from guildhall_client import AsyncClient
    from tests.gateway.conftest import ACME_AUDITOR, ACME_KEY, private_database, tenants_document

    url = private_database(redis_url, 14)
    monkeypatch.setenv("REDIS_URL", url)  # the stack's Redis
    with Stack(
        ["ys"],
        gateways=1,
        tenants=tenants_document(),
        work_dir=tmp_path / "stack",
        log_dir=tmp_path / "logs",
        gateway_env={"ARCHIVE_RETENTION_SECONDS": "1"},
    ) as stack:

        async def scenario() -> tuple[bool, int, bool]:
            client = AsyncClient(stack.gateway_targets[0], api_key=ACME_KEY)
            auditor = AsyncClient(stack.gateway_targets[0], api_key=ACME_AUDITOR)
            try:
                created = await client.create_match(
                    "ys", ["a", "b", "c"], match_id=f"r-{uuid.uuid4().hex[:8]}"
                )
                for seat in created.seats[:2]:  # two of three leave: the match ends
                    async with client.seat(created.match_id, seat.token) as player:
                        await player.resign()
                plain = redis.Redis.from_url(url)
                try:
                    meta = match_keys(MatchKey(TENANT, created.match_id)).meta
                    deadline = time.monotonic() + 60  # a bound, not a measurement
                    while plain.exists(meta) and time.monotonic() < deadline:
                        await asyncio.sleep(0.2)
                    gone = not plain.exists(meta)
                finally:
                    plain.close()
                audit = await auditor.audit(created.match_id)
                replayed = await client.replay(created.match_id, 1)
                return gone, replayed.version, audit.ok
            finally:
                await client.close()
                await auditor.close()

        gone, replayed_version, audited = asyncio.run(scenario())
        assert gone and replayed_version == 1 and audited
        assert len(list((tmp_path / "stack" / "archive" / TENANT).glob("*.ghz"))) == 1


def test_the_sweeper_runs_in_a_thread_and_stops_with_the_gateway(
    redis_url: str, redis_client: redis.Redis, rules: str, tmp_path: Path
) -> None:
    """`run` sweeps at once, then every interval, off the event loop, until stopping is set."""
    _play(redis_url, rules, ["bg-1"])
    threads: set[str] = set()

    class Watching(DirectoryArchive):
        def put(self, name: str, blob: bytes) -> None:
            threads.add(threading.current_thread().name)
            super().put(name, blob)

    sweeper = _sweeper(redis_client, Watching(tmp_path), later_s=2 * HOUR)

    async def run() -> None:
        stopping = asyncio.Event()
        task = asyncio.create_task(sweeper.run(stopping))
        while _in_redis(redis_client, "bg-1"):
            await asyncio.sleep(0.05)
        stopping.set()
        await asyncio.wait_for(task, 30)

    asyncio.run(run())
    assert threads and threading.main_thread().name not in threads
