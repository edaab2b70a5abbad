"""Retention: finished matches leave Redis for an archive, verified before anything is removed.

Redis holds live matches only. A finished match is copied whole (every stream entry with all
its fields, so the hash chain and receipts travel with it, plus meta and the command table)
into one compressed blob, written to an archive store, read back and checked (the chain
re-computed and compared with the recorded head), and only then removed from Redis, by a
script that removes it only if the match has not moved since it was read. A small tombstone
stays behind, so the match id is never reused. Archiving a match twice (two sweepers at once,
gateway/retention.py) is harmless: the second finds it archived at the same version. Replay
and audit read archived matches from the blob (`load`).

Archive stores are behind one port: `DirectoryArchive` (a local directory, the default) and
`S3Archive` (any S3-compatible bucket, with the `s3` extra: `pip install guildhall[s3]`).

Blob format: gateway/domain/archived.py (`guildhall-archive-v1`, the `.ghz` files `guildhall
verify` reads too).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import redis

from gateway.domain.archived import FORMAT as FORMAT  # the blob's format, re-exported
from gateway.domain.archived import ArchivedMatch as ArchivedMatch
from gateway.domain.archived import ArchiveError as ArchiveError
from gateway.domain.archived import decode as decode
from gateway.domain.archived import encode as encode
from gateway.eventstore.base import MatchKey
from gateway.eventstore.redis_store import match_keys

# Removes a match from Redis only if it is still at the version that was archived, and leaves
# a tombstone naming the archive so the id is never reused and readers know where to look.
_REMOVE_SCRIPT = """
-- KEYS: events, meta, snapshot, commands, tombstone   ARGV: archived_version, archive_name
if redis.call('HGET', KEYS[2], 'version') ~= ARGV[1] then
  -- Archived at this very version already (another sweeper got there first): harmless.
  if redis.call('HGET', KEYS[5], 'version') == ARGV[1] then
    return 2
  end
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('HSET', KEYS[5], 'version', ARGV[1], 'archive', ARGV[2])
return 1
"""


class NotArchivable(ArchiveError):
    """There is nothing to archive: no such match in Redis, or (when asked) it is not finished."""


class ArchiveStore(Protocol):
    """Where archived matches go: one immutable blob per match, by name."""

    def put(self, name: str, blob: bytes) -> None: ...

    def get(self, name: str) -> bytes | None: ...


class ListedArchive(ArchiveStore, Protocol):
    """An archive store that lists its blobs (both stores here do): what a backup copies."""

    def names(self) -> Iterator[str]: ...


class DirectoryArchive:
    """Blobs as files under `root` (the local default); a write is atomic and fsynced."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _path(self, name: str) -> Path:
        return self.root / name

    def put(self, name: str, blob: bytes) -> None:
        path = self._path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
            handle.write(blob)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)

    def get(self, name: str) -> bytes | None:
        try:
            return self._path(name).read_bytes()
        except FileNotFoundError:
            return None

    def names(self) -> Iterator[str]:
        """Every blob's name (issue 43: backups copy them all), in order."""
        for path in sorted(self.root.rglob("*.ghz")):
            yield path.relative_to(self.root).as_posix()


class S3Archive:
    """Blobs as objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, ...)."""

    def __init__(self, bucket: str, prefix: str = "", client: Any = None) -> None:
        if client is None:
            import boto3  # the `s3` extra
            from botocore.config import Config

            # Bounded waits: tenant reads of archived matches run this on a small thread pool,
            # so boto3's defaults (60 s per read, retried) could tie the pool up for minutes.
            client = boto3.client(
                "s3", config=Config(connect_timeout=5, read_timeout=15, retries={"max_attempts": 2})
            )
        self.bucket = bucket
        self.prefix = prefix
        self._s3 = client

    def put(self, name: str, blob: bytes) -> None:
        self._s3.put_object(Bucket=self.bucket, Key=self.prefix + name, Body=blob)

    def get(self, name: str) -> bytes | None:
        try:
            reply = self._s3.get_object(Bucket=self.bucket, Key=self.prefix + name)
        except self._s3.exceptions.NoSuchKey:
            return None
        body: bytes = reply["Body"].read()
        return body

    def names(self) -> Iterator[str]:
        """Every blob's name (issue 43: backups copy them all), in the bucket's order."""
        pages = self._s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix)
        for page in pages:
            for item in page.get("Contents", ()):
                if item["Key"].endswith(".ghz"):
                    yield item["Key"][len(self.prefix) :]


def archive_name(key: MatchKey) -> str:
    return f"{key.tenant}/{key.match_id}.ghz"


def tombstone_key(key: MatchKey) -> str:
    return f"gh:{{{key.tenant}:{key.match_id}}}:archived"


def finished_key(tenant: str) -> str:
    """Sorted set of a tenant's finished match ids by the time they ended (ms): what retention
    archives once they are old enough (gateway/retention.py); a match leaves it when archived."""
    return f"gh:tenant:{{{tenant}}}:finished"


@dataclass(frozen=True)
class ArchiveReport:
    key: MatchKey
    events: int
    stored_bytes: int  # the stream's payloads and fields as Redis held them
    archived_bytes: int  # the compressed blob
    already: bool = False  # it was archived already (by another sweeper): nothing was done twice


def read_live(client: redis.Redis, key: MatchKey) -> ArchivedMatch:
    """A live match as its archive blob would hold it (no entries: none in Redis)."""
    keys = match_keys(key)
    pipe = client.pipeline(transaction=False)
    pipe.hgetall(keys.meta)
    pipe.hgetall(keys.commands)
    pipe.xrange(keys.events)
    meta, commands, entries = pipe.execute()
    return ArchivedMatch(
        format=FORMAT,
        tenant=key.tenant,
        match_id=key.match_id,
        meta={k.decode(): v.decode() for k, v in meta.items()},
        commands={k.decode(): v.decode() for k, v in commands.items()},
        entries=[{k.decode(): v for k, v in fields.items()} for _id, fields in entries],
    )


def archive_match(
    client: redis.Redis, archive: ArchiveStore, key: MatchKey, *, finished_only: bool = False
) -> ArchiveReport:
    """Copy a match to the archive, verify the copy, then remove it from Redis (and from the
    tenant's finished index). A match archived already answers a report with `already` set.

    Raises ArchiveError (and removes nothing) when the match is unknown, not finished while
    `finished_only`, its chain does not verify, the archive returns something else than was
    written, or the match moved meanwhile.
    """
    live = read_live(client, key)
    if not live.entries:
        if client.exists(tombstone_key(key)):
            client.zrem(finished_key(key.tenant), key.match_id)
            return ArchiveReport(key, 0, 0, 0, already=True)
        raise NotArchivable(f"{key.tenant}/{key.match_id}: no such match in Redis")
    if finished_only and live.meta.get("finished") != "1":
        raise NotArchivable(f"{key.tenant}/{key.match_id} is not finished; it stays in Redis")
    report = live.audit()
    if not report.ok:
        raise ArchiveError(
            f"{key.tenant}/{key.match_id} fails its audit at version {report.first_bad_version}"
        )
    blob = encode(live)
    name = archive_name(key)
    archive.put(name, blob)
    stored = archive.get(name)
    if stored is None or decode(stored) != live:
        raise ArchiveError(f"{name}: the archive did not return what was written")
    keys = match_keys(key)
    removed = client.eval(
        _REMOVE_SCRIPT,
        5,
        keys.events,
        keys.meta,
        keys.snapshot,
        keys.commands,
        tombstone_key(key),
        str(live.version),
        name,
    )
    if not removed:
        raise ArchiveError(f"{key.tenant}/{key.match_id} moved while it was archived; it stays in Redis")
    client.zrem(finished_key(key.tenant), key.match_id)
    raw = sum(len(k) + len(v) for fields in live.entries for k, v in fields.items())
    return ArchiveReport(key, len(live.entries), raw, len(blob), already=removed == 2)


def describe(report: ArchiveReport) -> str:
    """One progress line: what an archiving did."""
    name = f"{report.key.tenant}/{report.key.match_id}"
    if report.already and not report.events:
        return f"{name}: archived already"
    return (
        f"{name}: {report.events} events, {report.stored_bytes:,} bytes in Redis -> "
        f"{report.archived_bytes:,} archived"
        + (" (by another archiver at the same time)" if report.already else "")
    )


def load(client: redis.Redis, archive: ArchiveStore, key: MatchKey) -> ArchivedMatch | None:
    """An archived match (None if it was never archived): replay and audit read it from here."""
    if not client.exists(tombstone_key(key)):
        return None
    blob = archive.get(archive_name(key))
    if blob is None:
        raise ArchiveError(f"{key.tenant}/{key.match_id} was archived but its blob is missing")
    return decode(blob)


async def load_async(client: Any, archive: ArchiveStore, key: MatchKey) -> ArchivedMatch | None:
    """`load` for the asyncio gateway (a redis.asyncio client): the archive store is blocking
    (files, S3), so its read runs in a worker thread; archived matches are read rarely."""
    import asyncio

    if not await client.exists(tombstone_key(key)):
        return None
    blob = await asyncio.to_thread(archive.get, archive_name(key))
    if blob is None:
        raise ArchiveError(f"{key.tenant}/{key.match_id} was archived but its blob is missing")
    return decode(blob)


def archive_from(directory: str | None, s3_bucket: str | None) -> ListedArchive | None:
    """The archive store named by configuration (ARCHIVE_DIR or ARCHIVE_S3_BUCKET), or None."""
    if directory and s3_bucket:
        raise ArchiveError("name one archive: a directory or an S3 bucket, not both")
    if directory:
        return DirectoryArchive(directory)
    return S3Archive(s3_bucket) if s3_bucket else None


def _matches(client: redis.Redis, tenant: str) -> Iterator[MatchKey]:
    for raw in client.scan_iter(match=f"gh:{{{tenant}:*}}:meta", count=500):
        inner = raw.decode()[len("gh:{") : -len("}:meta")]
        owner, _, match_id = inner.partition(":")
        yield MatchKey(owner, match_id)


def main(argv: list[str] | None = None) -> int:
    """Archive the named matches (or every match of a tenant whose meta says finished)."""
    parser = argparse.ArgumentParser(prog="python -m gateway.archive", description=main.__doc__)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument(
        "--dir", default=os.environ.get("ARCHIVE_DIR"), help="archive directory (env ARCHIVE_DIR)"
    )
    parser.add_argument(
        "--s3-bucket", default=os.environ.get("ARCHIVE_S3_BUCKET"), help="env ARCHIVE_S3_BUCKET"
    )
    parser.add_argument("--tenant", required=True)
    parser.add_argument("matches", nargs="*", help="match ids (default: the tenant's finished matches)")
    args = parser.parse_args(argv)
    if bool(args.dir) == bool(args.s3_bucket):
        parser.error("name exactly one archive: --dir or --s3-bucket")
    archive = archive_from(args.dir, args.s3_bucket)
    assert archive is not None
    client = redis.Redis.from_url(args.redis_url)
    if args.matches:
        keys = [MatchKey(args.tenant, m) for m in args.matches]
    else:
        keys = [
            k for k in _matches(client, args.tenant) if client.hget(match_keys(k).meta, "finished") == b"1"
        ]
    failures = 0
    for number, key in enumerate(keys, start=1):
        try:
            report = archive_match(client, archive, key)
        except ArchiveError as error:
            failures += 1
            print(f"[{number}/{len(keys)}] {error}", file=sys.stderr)
            continue
        print(f"[{number}/{len(keys)}] {describe(report)}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
