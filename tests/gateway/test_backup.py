"""Backups (issue 43 item 3) on real Redis servers: an RDB taken with SYNC and restored key by key
with RESTORE keeps every type Redis holds (streams with their consumer groups, expiries); a
Redis Cluster's primaries are backed up at one cut and restore into a Redis of another shape;
bad input (a non-empty target, an edited file, another blob under the same name) is refused
before anything is written. The rehearsal with a whole stack is tests/reliability/test_backup_rehearsal.py."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from devstack.cluster import LocalCluster
from devstack.processes import RedisProcess
from gateway.archive import DirectoryArchive
from gateway.backup.rdb import crc64, lzf_decompress
from gateway.backup.tool import MANIFEST, BackupError, _verify_target, create, restore, verify
from gateway.domain.archived import FORMAT, ArchivedMatch, encode
from gateway.eventstore.base import GENESIS


def quiet(_line: str) -> None:
    pass


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[RedisProcess, RedisProcess]]:
    """A source Redis and a fresh one to restore into (AOF on, as deployments run them)."""
    source, target = RedisProcess(tmp_path / "source"), RedisProcess(tmp_path / "target")
    source.start()
    target.start()
    try:
        yield source, target
    finally:
        source.stop()
        target.stop()


def fill(client: Any) -> None:
    """Every kind of value, small (encoded compactly) and large (Redis's general encodings)."""
    client.set("gh:{acme:m1}:s", "hello")
    client.set("gh:{acme:m1}:i", 12345)
    client.set("gh:{acme:" + "x" * 60 + "}:long", "compressible " * 100)  # an LZF-compressed key
    client.rpush("gh:{acme:l}", *[str(i) for i in range(300)])
    client.sadd("gh:{acme:small-set}", 1, 2, 3)
    client.sadd("gh:{acme:set}", *[f"m{i}" for i in range(600)])
    client.zadd("gh:{acme:z}", {"a": 1.5, "b": 2})
    client.zadd("gh:{acme:zbig}", {f"m{i}": i for i in range(300)})
    client.hset("gh:{acme:h}", mapping={"a": "1", "b": "2"})
    client.hset("gh:{acme:hbig}", mapping={f"f{i}": "v" * 100 for i in range(600)})
    for version in range(1, 51):
        client.xadd("gh:{acme:m1}:events", {"e": os.urandom(20)}, id=f"{version}-0")
    client.xgroup_create("gh:{acme:m1}:events", "readers", id="0")
    client.xreadgroup("readers", "alice", {"gh:{acme:m1}:events": ">"}, count=3)
    client.set("gh:{acme:ttl}", "v", px=600_000)


def content(client: Any) -> dict[bytes, Any]:
    """Every key's type, value and whether it expires (what a restore must give back)."""
    out: dict[bytes, Any] = {}
    for key in client.scan_iter(count=1000):
        kind = client.type(key)
        value: Any
        if kind == b"string":
            value = client.get(key)
        elif kind == b"list":
            value = client.lrange(key, 0, -1)
        elif kind == b"set":
            value = sorted(client.smembers(key))
        elif kind == b"zset":
            value = client.zrange(key, 0, -1, withscores=True)
        elif kind == b"hash":
            value = client.hgetall(key)
        else:
            value = (client.xrange(key), [sorted(g.items()) for g in client.xinfo_groups(key)])
        out[key] = (kind, value, client.pttl(key) > 0)
    return out


def blob(tenant: str, match_id: str) -> bytes:
    return encode(ArchivedMatch(FORMAT, tenant, match_id, {"version": "0", "head_hash": GENESIS}, {}, []))


def test_redis_crc64_and_lzf() -> None:
    assert crc64(b"123456789") == 0xE9C6D914C4B8D9CA  # Redis's own check value (src/crc64.c)
    assert crc64(b"") == 0
    assert lzf_decompress(bytes([2]) + b"abc" + bytes([0x20 | 0, 2]), 6) == b"abcabc"  # a back reference


def test_a_backup_restores_every_kind_of_value_into_a_fresh_redis(
    servers: tuple[RedisProcess, RedisProcess], tmp_path: Path
) -> None:
    source, target = servers
    client = source.client()
    fill(client)
    archive = DirectoryArchive(tmp_path / "archive")
    archive.put("acme/m0.ghz", blob("acme", "m0"))
    manifest = create(tmp_path / "backup", source.url, archive=archive, archive_source="dir", say=quiet)
    (snapshot,) = manifest["redis"]["nodes"]
    assert snapshot["keys"] == len(content(client)) and manifest["archive"]["blobs"] == 1
    assert verify(tmp_path / "backup", quiet).ok
    restored_archive = DirectoryArchive(tmp_path / "restored-archive")
    report = restore(tmp_path / "backup", target.url, archive=restored_archive, say=quiet)
    assert report.ok, report.problems
    assert content(target.client()) == content(client)
    assert restored_archive.get("acme/m0.ghz") == blob("acme", "m0")


def test_bad_restores_are_refused_before_anything_is_written(
    servers: tuple[RedisProcess, RedisProcess], tmp_path: Path
) -> None:
    source, target = servers
    fill(source.client())
    backup = tmp_path / "backup"
    archive = DirectoryArchive(tmp_path / "archive")
    archive.put("acme/m0.ghz", blob("acme", "m0"))
    create(backup, source.url, archive=archive, archive_source="dir", say=quiet)
    with pytest.raises(BackupError, match="not empty"):
        create(backup, source.url, say=quiet)
    # A target that holds anything: refused, untouched.
    target.client().set("mine", "1")
    with pytest.raises(BackupError, match="holds 1 keys"):
        restore(backup, target.url, archive=DirectoryArchive(tmp_path / "t1"), say=quiet)
    assert target.client().keys() == [b"mine"] and not (tmp_path / "t1").exists()
    target.client().delete("mine")
    # Another blob under the same name in the target archive: refused, Redis untouched.
    clash = DirectoryArchive(tmp_path / "t2")
    clash.put("acme/m0.ghz", blob("acme", "other"))
    with pytest.raises(BackupError, match="another acme/m0.ghz"):
        restore(backup, target.url, archive=clash, say=quiet)
    assert target.client().dbsize() == 0
    # A byte of the snapshot changed: the backup no longer verifies, and is not restored.
    manifest = json.loads((backup / MANIFEST).read_text())
    rdb = backup / manifest["redis"]["nodes"][0]["file"]
    data = bytearray(rdb.read_bytes())
    data[len(data) // 2] ^= 0xFF
    rdb.write_bytes(bytes(data))
    report = verify(backup, quiet)
    assert not report.ok and "not the bytes the backup wrote" in report.problems[0]
    with pytest.raises(BackupError, match="does not verify"):
        restore(backup, target.url, archive=DirectoryArchive(tmp_path / "t3"), say=quiet)
    assert target.client().dbsize() == 0


def test_a_cluster_is_backed_up_at_one_cut_and_restores_into_a_redis_of_another_shape(
    redis_cluster_client: redis.RedisCluster, local_cluster: LocalCluster, tmp_path: Path
) -> None:
    fill(redis_cluster_client)
    for n in range(200):  # keys on every primary
        redis_cluster_client.set(f"gh:{{t{n}:m}}:n", n)
    lines: list[str] = []
    manifest = create(tmp_path / "backup", local_cluster.url, cluster=True, say=lines.append)
    assert len(manifest["redis"]["nodes"]) == 3 and manifest["redis"]["cut"].startswith("writes paused")
    assert sum(n["slots"][0][1] - n["slots"][0][0] + 1 for n in manifest["redis"]["nodes"]) == 16384
    assert any(line.startswith("cut: 3 primaries forked with writes paused") for line in lines)
    assert redis_cluster_client.set("after-the-backup", 1)  # writes go on after the cut
    target = RedisProcess(tmp_path / "single")
    target.start()
    try:
        report = restore(tmp_path / "backup", target.url, say=quiet)
        assert report.ok, report.problems
        restored = content(target.client())
        assert restored.pop(b"after-the-backup", None) is None
        original = content(redis_cluster_client)
        original.pop(b"after-the-backup")
        assert restored == original
    finally:
        target.stop()


def test_an_s3_archive_is_backed_up_and_restored_into_another_bucket(
    servers: tuple[RedisProcess, RedisProcess], tmp_path: Path
) -> None:
    import boto3  # the `s3` extra (part of the dev extra)
    from moto import mock_aws

    from gateway.archive import S3Archive

    source, target = servers
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        for bucket in ("live", "restored"):
            s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket="live", Key="matches/notes.txt", Body=b"not a blob")  # listed, not copied
        live = S3Archive("live", prefix="matches/", client=s3)
        for n in range(3):
            live.put(f"acme/m{n}.ghz", blob("acme", f"m{n}"))
        manifest = create(
            tmp_path / "backup", source.url, archive=live, archive_source="s3://live", say=quiet
        )
        assert manifest["archive"]["blobs"] == 3
        restored = S3Archive("restored", client=s3)
        assert restore(tmp_path / "backup", target.url, archive=restored, say=quiet).ok
        assert sorted(restored.names()) == [f"acme/m{n}.ghz" for n in range(3)]
        assert all(restored.get(f"acme/m{n}.ghz") == blob("acme", f"m{n}") for n in range(3))


class _Counted:
    """A target Redis that holds `held` keys (all `_verify_target` asks of it with no matches)."""

    def __init__(self, held: int) -> None:
        self.held = held

    def dbsize(self) -> int:
        return self.held


def test_the_restore_check_lets_a_restored_key_whose_ttl_ran_out_be_missing_and_nothing_else() -> None:
    """A key restored with a TTL that runs out before the count is missing from the target: that
    alone is no problem. A key missing without that, or one more than restored, is."""
    past, future = int(time.time() * 1000) - 1, int(time.time() * 1000) + 600_000

    def problems(held: int, expiries: list[int]) -> list[str]:
        return _verify_target(_Counted(held), None, [], 3, expiries, [], lambda _line: None).problems

    assert problems(3, [past]) == []  # Redis had not yet dropped it
    assert problems(2, [past]) == []
    assert problems(2, [future]) == ["the target holds 2 keys, 3 were restored (0 of them expired since)"]
    assert problems(4, [past]) != []
