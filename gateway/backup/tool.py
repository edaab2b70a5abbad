"""Back up, verify and restore a deployment's state: Redis (every primary's RDB) and the archive
(issue 43 item 3). `python -m gateway.backup create|verify|restore` (gateway/backup/__main__.py).

A backup is a directory:

    manifest.json           what it holds: each primary's snapshot (node, slots, size, sha256,
                            keys, RDB version), how the cut was taken, the archive's blobs
    redis/<host>-<port>.rdb each primary's RDB, as SYNC gave it
    archive.jsonl           one line per archived match: name, size, sha256
    archive/<tenant>/<match>.ghz   the blobs, byte for byte

Decisions (question -> decision):
- RDB or AOF? The RDB a SYNC makes (gateway/backup/rdb.py): one file, a point-in-time image
  (Redis forks for it), taken over the network from any primary without touching its disk or
  its AOF, which keeps being written. An AOF copied while Redis appends to it would need its
  tail repaired, and the node's file system.
- A Redis Cluster: one RDB per primary. Each match lives in one slot, so each primary's fork is
  consistent for its matches; the cut across primaries is made one instant too: writes are
  paused on every primary (CLIENT PAUSE WRITE; reads go on) from before the first SYNC until
  every primary has forked, a few milliseconds, and a primary that could not fork at once
  (another child running) fails the backup rather than taking a later, inconsistent picture.
  Appends in flight wait out the pause (REDIS_TIMEOUT_SECONDS is far longer).
- Redis first, then the archive: retention writes a blob before it removes the match from Redis
  (gateway/archive.py), and blobs are never changed, so every tombstone in the snapshot has
  its blob in the archive copied after it. A blob written after the cut is copied too, harmless:
  the restored Redis still holds that match live.
- Restoring: into a FRESH Redis (or cluster, of any shape: each key goes to its slot's owner),
  with RESTORE (gateway/backup/rdb.py says why); a target that holds any key is refused before
  anything is written. The archive's blobs are written where ARCHIVE_DIR / ARCHIVE_S3_BUCKET
  say; an existing blob with other bytes is refused before anything is written. Keys that
  expired since the backup are not restored (counted). Then the target is verified against
  the backup: every key there, every match's chain re-computed against its recorded head,
  every blob read back.
- Not in a backup: the Secrets (signing keys, the tenants file, Redis's URL): back them up with
  the cluster's own means; a restore needs the signing keys the receipts were made with.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from redis.cluster import RedisCluster

from gateway.archive import ListedArchive, decode, read_live
from gateway.backup.rdb import Entry, Node, RdbError, RdbReader, SyncStream, dump_payload
from gateway.eventstore.base import AuditReport, MatchKey

FORMAT = "guildhall-backup-v1"
MANIFEST = "manifest.json"
ARCHIVE_INDEX = "archive.jsonl"
PAUSE_MS = 10_000  # the longest writes may be paused for the cut; unpaused as soon as all forked
_FORK_WAIT_S = 5.0
_QUIET_WAIT_S = 60.0
_BATCH = 500
_BATCH_BYTES = 8 << 20
_HASH_TYPES = (4, 13, 16)  # a hash, as an RDB stores it (a match's meta is one)

Say = Callable[[str], None]


class BackupError(Exception):
    """The backup or restore cannot go on; nothing was written past the step named."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        for chunk in iter(lambda: source.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _client(node: Node, **options: Any) -> redis.Redis:
    return redis.Redis(
        host=node.host, port=node.port, username=node.username, password=node.password,
        ssl=node.tls, db=node.db, socket_timeout=30, **options,
    )  # fmt: skip


def primaries(node: Node, cluster: bool) -> list[tuple[Node, list[list[int]]]]:
    """The primaries to back up, with their slot ranges (a plain Redis: itself, no slots)."""
    if not cluster:
        return [(node, [])]
    with contextlib.closing(_client(node)) as client:
        ranges = client.execute_command("CLUSTER", "SLOTS")  # type: ignore[no-untyped-call]
    found: dict[tuple[str, int], list[list[int]]] = {}
    for low, high, owner, *_replicas in ranges:
        host = owner[0].decode() if isinstance(owner[0], bytes) else str(owner[0])
        found.setdefault((host, int(owner[1])), []).append([int(low), int(high)])
    return [(node.at(host, port), sorted(slots)) for (host, port), slots in sorted(found.items())]


def _info(client: redis.Redis, section: str) -> dict[str, Any]:
    info: dict[str, Any] = client.info(section)
    return info


def _no_child(client: redis.Redis) -> bool:
    """No snapshot or AOF rewrite running: a SYNC now forks at once."""
    persistence = _info(client, "persistence")
    return not int(persistence.get("rdb_bgsave_in_progress", 0)) and not int(
        persistence.get("aof_rewrite_in_progress", 0)
    )


def _forks(client: redis.Redis) -> int:
    return int(_info(client, "stats").get("total_forks", 0))


def _forked_since(client: redis.Redis, before: int) -> bool:
    return _forks(client) > before


def failed(audit: AuditReport) -> str:
    """An audit's failure in words."""
    where = f" at version {audit.first_bad_version}" if audit.first_bad_version else ""
    return f"its chain fails{where}: {audit.problem}"


def _wait(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise BackupError(what)
        time.sleep(0.01)


# -- create -------------------------------------------------------------------------------------


def create(
    out: Path, redis_url: str, *, cluster: bool = False, archive: ListedArchive | None = None,
    archive_source: str = "", say: Say = print,
) -> dict[str, Any]:  # fmt: skip
    """Take a backup into `out` (a new or empty directory); returns its manifest."""
    if out.exists() and any(out.iterdir()):
        raise BackupError(f"{out} is not empty: a backup goes into a new directory")
    (out / "redis").mkdir(parents=True, exist_ok=True)
    node = Node.from_url(redis_url)
    nodes = primaries(node, cluster)
    streams = _cut(nodes, say)
    names = [f"redis/{primary.host}-{primary.port}.rdb" for primary, _slots in nodes]
    # Every primary's snapshot read at once: a SYNC left unread while another is copied piles
    # the writes made since the cut in its primary's output buffer, up to its limit.
    with ThreadPoolExecutor(max_workers=len(streams)) as pool:
        copied = list(pool.map(_copy, streams, [out / name for name in names]))
    snapshots = []
    for (primary, slots), name, (size, digest) in zip(nodes, names, copied, strict=True):
        with (out / name).open("rb") as source:
            reader = RdbReader(source)
            keys = sum(1 for entry in reader.entries() if entry.db == node.db)
        with contextlib.closing(_client(primary)) as client:
            version = str(_info(client, "server").get("redis_version", ""))
        snapshots.append({
            "node": primary.address, "slots": slots, "file": name, "bytes": size, "sha256": digest,
            "keys": keys, "rdb_version": reader.version, "redis_version": version,
        })  # fmt: skip
        say(f"redis {primary.address}: {keys} keys, {size:,} bytes")
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "created_ms": int(time.time() * 1000),
        "redis": {
            "cluster": cluster,
            "db": node.db,
            "cut": "writes paused on every primary while each forked" if len(nodes) > 1 else "the fork",
            "nodes": snapshots,
        },
    }
    if archive is not None:
        manifest["archive"] = _copy_archive(archive, archive_source, out, say)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def _copy(stream: SyncStream, path: Path) -> tuple[int, str]:
    try:
        with path.open("wb") as target:
            return stream.copy_to(target)
    finally:
        stream.close()


def _cut(nodes: Sequence[tuple[Node, list[list[int]]]], say: Say) -> list[SyncStream]:
    """A SYNC on every primary, their forks at one instant (see the module's decisions)."""
    if len(nodes) == 1:
        stream = SyncStream(nodes[0][0])
        stream.start()
        return [stream]
    clients = [_client(node) for node, _slots in nodes]
    streams: list[SyncStream] = []
    try:
        for client in clients:  # a child already running would make SYNC wait past the pause
            _wait(
                functools.partial(_no_child, client),
                _QUIET_WAIT_S,
                "a primary kept a snapshot or AOF rewrite running for a minute: try again",
            )
        forks = [_forks(c) for c in clients]
        for client in clients:
            client.execute_command("CLIENT", "PAUSE", str(PAUSE_MS), "WRITE")  # type: ignore[no-untyped-call]
        started = time.monotonic()
        try:
            for node, _slots in nodes:
                streams.append(SyncStream(node))
                streams[-1].start()
            for client, before in zip(clients, forks, strict=True):
                _wait(
                    functools.partial(_forked_since, client, before),
                    _FORK_WAIT_S,
                    "a primary did not fork for its snapshot while writes were paused: no consistent cut",
                )
        finally:
            for client in clients:
                with contextlib.suppress(redis.RedisError):
                    client.execute_command("CLIENT", "UNPAUSE")  # type: ignore[no-untyped-call]
        say(f"cut: {len(nodes)} primaries forked with writes paused for {time.monotonic() - started:.3f} s")
        return streams
    except BaseException:
        for stream in streams:
            stream.close()
        raise
    finally:
        for client in clients:
            client.close()


def _copy_archive(archive: ListedArchive, source: str, out: Path, say: Say) -> dict[str, Any]:
    count = size = 0
    with (out / ARCHIVE_INDEX).open("w") as index:
        for name in archive.names():
            blob = archive.get(name)
            if blob is None:
                raise BackupError(f"the archive listed {name} and then did not return it")
            target = out / "archive" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob)
            index.write(
                json.dumps({"name": name, "bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest()})
                + "\n"
            )
            count, size = count + 1, size + len(blob)
    say(f"archive {source}: {count} blobs, {size:,} bytes")
    return {"source": source, "index": ARCHIVE_INDEX, "blobs": count, "bytes": size}


# -- verify -------------------------------------------------------------------------------------


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    keys: int = 0
    blobs: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def load_manifest(backup: Path) -> dict[str, Any]:
    try:
        manifest: dict[str, Any] = json.loads((backup / MANIFEST).read_text())
    except (OSError, ValueError) as error:
        raise BackupError(f"{backup} holds no readable {MANIFEST}: {error}") from None
    if manifest.get("format") != FORMAT:
        raise BackupError(f"{backup / MANIFEST} is not a {FORMAT} manifest")
    return manifest


def _blobs(backup: Path, manifest: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if "archive" in manifest:
        with (backup / manifest["archive"]["index"]).open() as index:
            yield from (json.loads(line) for line in index if line.strip())


def verify(backup: Path, say: Say = print) -> Report:
    """The backup on its own: every file's sha256, every RDB read to its end (its keys counted),
    every archived match decoded and its chain re-computed."""
    manifest = load_manifest(backup)
    report = Report()
    for snapshot in manifest["redis"]["nodes"]:
        path = backup / snapshot["file"]
        if not path.is_file() or _sha256(path) != snapshot["sha256"]:
            report.problems.append(f"{snapshot['file']}: missing, or not the bytes the backup wrote")
            continue
        try:
            with path.open("rb") as source:
                keys = sum(1 for e in RdbReader(source).entries() if e.db == manifest["redis"]["db"])
        except RdbError as error:
            report.problems.append(f"{snapshot['file']}: {error}")
            continue
        if keys != snapshot["keys"]:
            report.problems.append(f"{snapshot['file']}: {keys} keys, the manifest says {snapshot['keys']}")
        report.keys += keys
    for blob in _blobs(backup, manifest):
        path = backup / "archive" / blob["name"]
        data = path.read_bytes() if path.is_file() else b""
        if hashlib.sha256(data).hexdigest() != blob["sha256"]:
            report.problems.append(f"archive/{blob['name']}: missing, or not the bytes the backup wrote")
            continue
        audit = decode(data).audit()
        if not audit.ok:
            report.problems.append(f"archive/{blob['name']}: {failed(audit)}")
        report.blobs += 1
    say(f"backup {backup}: {report.keys} keys, {report.blobs} archived matches, "
        + ("verified" if report.ok else f"{len(report.problems)} problem(s)"))  # fmt: skip
    return report


# -- restore ------------------------------------------------------------------------------------


def target_client(redis_url: str, cluster: bool) -> Any:
    if cluster:
        return RedisCluster.from_url(redis_url, socket_timeout=30)
    return redis.Redis.from_url(redis_url, socket_timeout=30)


def key_count(client: Any) -> int:
    """Keys held: on a cluster, every primary's together."""
    if isinstance(client, RedisCluster):
        return int(client.dbsize(target_nodes=RedisCluster.PRIMARIES))
    return int(client.dbsize())


def restore(
    backup: Path, redis_url: str, *, cluster: bool = False, archive: ListedArchive | None = None,
    say: Say = print,
) -> Report:  # fmt: skip
    """Restore the backup into a fresh Redis (and archive), then verify the target against it."""
    checked = verify(backup, say)
    if not checked.ok:
        raise BackupError(
            "the backup does not verify; nothing was restored: " + "; ".join(checked.problems[:5])
        )
    manifest = load_manifest(backup)
    client = target_client(redis_url, cluster)
    try:
        held = key_count(client)
        if held:
            raise BackupError(f"the target Redis holds {held} keys: restore into a fresh (empty) Redis")
        blobs = list(_blobs(backup, manifest))
        if blobs and archive is None:
            raise BackupError("the backup holds archived matches: name the archive to restore them into")
        for blob in blobs:
            assert archive is not None
            there = archive.get(blob["name"])
            if there is not None and hashlib.sha256(there).hexdigest() != blob["sha256"]:
                raise BackupError(f"the target archive holds another {blob['name']}: nothing was restored")
        restored, expiries, matches = restore_keys(client, backup, manifest, say)
        for blob in blobs:
            assert archive is not None
            archive.put(blob["name"], (backup / "archive" / blob["name"]).read_bytes())
        say(f"archive: {len(blobs)} blobs restored")
        return _verify_target(client, archive, blobs, restored, expiries, matches, say)
    finally:
        client.close()


def restore_keys(
    client: Any, backup: Path, manifest: dict[str, Any], say: Say
) -> tuple[int, list[int], list[MatchKey]]:
    """Restore the backup's keys of its db: (how many, the expiry of each one with a TTL in ms,
    the matches among them). Keys whose TTL ran out since the backup are left out."""
    db = manifest["redis"]["db"]
    restored = expired = 0
    expiries: list[int] = []
    matches: list[MatchKey] = []
    now_ms = int(time.time() * 1000)
    for snapshot in manifest["redis"]["nodes"]:
        with (backup / snapshot["file"]).open("rb") as source:
            reader = RdbReader(source)
            batch: list[Entry] = []
            for entry in reader.entries():
                if entry.db != db:
                    continue
                if entry.expires_ms and entry.expires_ms <= now_ms:
                    expired += 1
                    continue
                batch.append(entry)
                if entry.expires_ms:
                    expiries.append(entry.expires_ms)
                match = _match_of(entry.key) if entry.value_type in _HASH_TYPES else None
                if match is not None:
                    matches.append(match)
                if len(batch) >= _BATCH or sum(len(e.value) for e in batch) >= _BATCH_BYTES:
                    restored += _send(client, batch, reader.version)
                    batch = []
            restored += _send(client, batch, reader.version)
        say(f"redis {snapshot['node']}: restored")
    say(f"redis: {restored} keys restored, {expired} expired since the backup and left out")
    return restored, expiries, matches


def _send(client: Any, batch: list[Entry], rdb_version: int) -> int:
    if not batch:
        return 0
    pipe = client.pipeline(transaction=False)
    for entry in batch:
        payload = dump_payload(entry.value_type, entry.value, rdb_version)
        pipe.restore(entry.key, entry.expires_ms, payload, absttl=bool(entry.expires_ms))
    pipe.execute()
    return len(batch)


def _match_of(key: bytes) -> MatchKey | None:
    """The match whose meta `key` is (`gh:{<tenant>:<match>}:meta`), or None."""
    text = key.decode(errors="replace")
    if not (text.startswith("gh:{") and text.endswith("}:meta")):
        return None
    tenant, sep, match_id = text[len("gh:{") : -len("}:meta")].partition(":")
    try:
        return MatchKey(tenant, match_id) if sep else None
    except ValueError:
        return None


def _verify_target(
    client: Any, archive: ListedArchive | None, blobs: list[dict[str, Any]], restored: int,
    expiries: Sequence[int], matches: list[MatchKey], say: Say,
) -> Report:  # fmt: skip
    report = Report(keys=restored, blobs=len(blobs))
    held = key_count(client)
    # A restored key with a TTL may run out between the restore and this count (a rehearsal
    # under load lost one that way): it may be missing, nothing else may.
    lapsed = sum(1 for at in expiries if at <= int(time.time() * 1000))
    if not restored - lapsed <= held <= restored:
        report.problems.append(
            f"the target holds {held} keys, {restored} were restored ({lapsed} of them expired since)"
        )
    for key in matches:
        audit = read_live(client, key).audit()
        if not audit.ok:
            report.problems.append(f"{key.tenant}/{key.match_id}: {failed(audit)}")
    for blob in blobs:
        assert archive is not None
        there = archive.get(blob["name"])
        if there is None or hashlib.sha256(there).hexdigest() != blob["sha256"]:
            report.problems.append(f"archive {blob['name']}: not read back as restored")
    say(f"target: {held} keys, {len(matches)} matches audited, {len(blobs)} blobs read back: "
        + ("verified" if report.ok else f"{len(report.problems)} problem(s)"))  # fmt: skip
    return report
