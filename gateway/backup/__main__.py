"""`python -m gateway.backup`: back up, verify and restore Redis and the archive (docs/deploy.md,
"Back up and restore").

    python -m gateway.backup create DIR [--redis-url URL] [--cluster] [--archive-dir D|--archive-s3-bucket B]
    python -m gateway.backup verify DIR
    python -m gateway.backup restore DIR --redis-url URL [--cluster] [--archive-dir D|--archive-s3-bucket B]

Exit 0 done and verified, 3 a verification found problems (each printed), 2 a bad argument, 1 the
work could not be done (why is printed; nothing is written past that step).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from gateway.archive import ArchiveError, ListedArchive, archive_from
from gateway.backup.rdb import RdbError
from gateway.backup.tool import BackupError, create, restore, verify
from gateway.settings import secret_setting


def _archive(args: argparse.Namespace) -> tuple[ListedArchive | None, str]:
    try:
        store = archive_from(args.archive_dir, args.archive_s3_bucket)
    except ArchiveError as error:
        raise SystemExit(f"gateway.backup: {error}") from None
    source = f"s3://{args.archive_s3_bucket}" if args.archive_s3_bucket else str(args.archive_dir or "")
    return store, source


def main(argv: Sequence[str] | None = None) -> int:
    env = os.environ
    parser = argparse.ArgumentParser(prog="python -m gateway.backup", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("create", "take a backup into a new directory"),
        ("verify", "check a backup on its own"),
        ("restore", "restore a backup into a fresh Redis and archive, then verify them"),
    ):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("backup", type=Path, help="the backup's directory")
        if name == "verify":
            continue
        sub.add_argument(
            "--redis-url",
            default=secret_setting(env, "REDIS_URL", "redis://127.0.0.1:6379/0"),
            help="the Redis (env REDIS_URL or REDIS_URL_FILE); restore: the fresh one to fill",
        )
        sub.add_argument(
            "--cluster", action="store_true", default=env.get("REDIS_CLUSTER", "0") == "1",
            help="REDIS_URL names a Redis Cluster node (env REDIS_CLUSTER)",
        )  # fmt: skip
        sub.add_argument("--archive-dir", default=env.get("ARCHIVE_DIR", ""), help="env ARCHIVE_DIR")
        sub.add_argument(
            "--archive-s3-bucket", default=env.get("ARCHIVE_S3_BUCKET", ""), help="env ARCHIVE_S3_BUCKET"
        )
    args = parser.parse_args(argv)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        if args.command == "create":
            store, source = _archive(args)
            create(
                args.backup,
                args.redis_url,
                cluster=args.cluster,
                archive=store,
                archive_source=source,
                say=say,
            )
            report = verify(args.backup, say)
        elif args.command == "verify":
            report = verify(args.backup, say)
        else:
            store, _source = _archive(args)
            report = restore(args.backup, args.redis_url, cluster=args.cluster, archive=store, say=say)
    except (BackupError, RdbError, ValueError, OSError) as error:
        say(f"gateway.backup {args.command}: {error}")
        return 1
    for problem in report.problems:
        print(f"PROBLEM: {problem}")
    return 0 if report.ok else 3


if __name__ == "__main__":
    sys.exit(main())
