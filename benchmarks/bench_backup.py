"""Backup and restore (gateway/backup/, issue 43): how fast a snapshot is taken and restored, beside
what Redis alone does with the same keys in the same run.

A Redis is filled with match-like streams (one per match, entries of the size the event store
writes); then:

- create: SYNC's RDB streamed to a file, hashed, and read to its end (`gateway.backup.tool.create`),
  beside a logical copy of the same keys (DUMP of every key, pipelined: what a backup without
  Redis's snapshot would fetch);
- restore: every key of the RDB split, its CRC-64 computed and RESTOREd into a fresh Redis
  (`restore` without its verification passes), beside RESTORE of the payloads Redis's own DUMP
  made (no parsing, no CRC here).

Usage: python -m benchmarks.bench_backup [--quick]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import redis

from benchmarks.report import Figure, Report
from devstack.processes import RedisProcess
from gateway.backup.rdb import RdbReader
from gateway.backup.tool import create, load_manifest, restore_keys
from services.observability import configure_logging

SECTION = "backup"
EVENTS_PER_MATCH, EVENT_BYTES = 60, 180


def _fill(client: redis.Redis, matches: int) -> int:
    for start in range(0, matches, 200):
        pipe = client.pipeline(transaction=False)
        for match in range(start, min(start + 200, matches)):
            key = f"gh:{{bench:m{match}}}:events"
            for version in range(1, EVENTS_PER_MATCH + 1):
                pipe.xadd(key, {"e": os.urandom(EVENT_BYTES)}, id=f"{version}-0")
            pipe.hset(f"gh:{{bench:m{match}}}:meta", mapping={"version": EVENTS_PER_MATCH, "game": "ys"})
        pipe.execute()
    return int(client.info("memory")["used_memory"])


def run(report: Report, quick: bool) -> None:
    matches = 300 if quick else 3000
    with tempfile.TemporaryDirectory(prefix="bench-backup-") as work:
        root = Path(work)
        source, fresh, again = (RedisProcess(root / name) for name in ("source", "fresh", "again"))
        for server in (source, fresh, again):
            server.start()
        try:
            client = source.client(socket_timeout=60)
            used = _fill(client, matches)
            t0 = time.perf_counter()
            create(root / "backup", source.url, say=lambda _line: None)
            create_s = time.perf_counter() - t0
            keys = client.keys("*")
            t0 = time.perf_counter()
            pipe = client.pipeline(transaction=False)
            for key in keys:
                pipe.dump(key)
            dumped = dict(zip(keys, pipe.execute(), strict=True))
            dump_s = time.perf_counter() - t0
            (snapshot,) = load_manifest(root / "backup")["redis"]["nodes"]
            megabytes = snapshot["bytes"] / 1e6
            t0 = time.perf_counter()
            restore_keys(
                fresh.client(socket_timeout=60),
                root / "backup",
                load_manifest(root / "backup"),
                lambda _l: None,
            )
            restore_s = time.perf_counter() - t0
            target = again.client(socket_timeout=60)
            t0 = time.perf_counter()
            for start in range(0, len(keys), 500):
                pipe = target.pipeline(transaction=False)
                for key in keys[start : start + 500]:
                    pipe.restore(key, 0, dumped[key])
                pipe.execute()
            bare_s = time.perf_counter() - t0
            with (root / "backup" / snapshot["file"]).open("rb") as rdb:
                assert sum(1 for _ in RdbReader(rdb).entries()) == len(keys)
            assert fresh.client().dbsize() == len(keys)
        finally:
            for server in (source, fresh, again):
                server.stop()
    note = (
        f"{matches} matches of {EVENTS_PER_MATCH} {EVENT_BYTES}-byte events, {len(keys)} keys, "
        f"an RDB of {megabytes:.1f} MB ({used / 1e6:.0f} MB in Redis); one run"
    )
    report.add(Figure(SECTION, "create: SYNC, hash, read through", megabytes / create_s, "MB/s",
                      "DUMP of every key, pipelined", megabytes / dump_s, note))  # fmt: skip
    report.add(Figure(SECTION, "restore: split, CRC-64, RESTORE", megabytes / restore_s, "MB/s",
                      "RESTORE of Redis's own DUMP payloads", megabytes / bare_s, note))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    configure_logging("bench", "warning")
    report = Report(quick=args.quick)
    run(report, args.quick)


if __name__ == "__main__":
    main()
