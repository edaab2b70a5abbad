"""`guildhall export` and `guildhall verify`: what the two commands do (cli.py declares them).

guildhall export MATCH > match.ghx             # auditor key; the match as one file
guildhall verify match.ghx                     # offline: exit 0 verified, 1 not
guildhall verify match.ghx --keys keys.json    # also against the operator's published keys
guildhall verify match.ghx --story             # the match as people read it, checks beside
guildhall verify match.ghx --bundles var/bundles   # rules versions not installed here, from bundles
guildhall verify tenant/match.ghz --keys keys.json   # an archived match (issue 43), same checks
"""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gateway.domain import archived
from gateway.domain.audit import HeldReceipt
from gateway.domain.ghx import PublicKeyLine
from guildhall_client.ghx import ExportReport, load_keys, verify_export
from guildhall_client.story import story_lines, verdict_lines


class UsageError(ValueError):
    """A bad argument: the command says why and exits 2."""


def published_keys(keys_file: Path | None, keys_from: str | None, tls: bool) -> dict[str, bytes] | None:
    """The operator's published keys: from a file (`guildhall keys public --json`), or asked of a
    gateway (GetPublicKeys needs no credentials); None when neither is given."""
    if keys_file is not None and keys_from:
        raise UsageError("give --keys or --keys-from, not both")
    if keys_file is not None:
        try:
            return load_keys(json.loads(keys_file.read_text()))
        except (OSError, ValueError) as error:
            raise UsageError(f"cannot read the keys in {keys_file}: {error}") from None
    if keys_from:
        from guildhall_client.aio import AsyncClient

        async def fetch() -> dict[str, bytes]:
            async with AsyncClient(keys_from, secure=tls) as client:
                return await client.public_keys()

        return asyncio.run(fetch())
    return None


def data_files(specs: Sequence[str]) -> list[Any]:
    """`GAME=FILE` options: each game built from a replacement data file (its `load_game`)."""
    games = []
    for item in specs:
        game, sep, path = item.partition("=")
        if not sep or not game or not path:
            raise UsageError(f"--data takes GAME=FILE, not {item!r}")
        try:
            package = importlib.import_module(f"services.{game}")
        except ImportError:
            raise UsageError(f"no game {game!r} is installed") from None
        try:
            games.append(package.load_game(path))
        except (ValueError, OSError) as error:
            raise UsageError(f"cannot use {path}: {error}") from None
    return games


def held_receipts(path: Path | None) -> list[HeldReceipt]:
    """Receipts kept while playing: a JSON list of {tenant, match_id, key_id, version, head_hash,
    signature (hex)}."""
    if path is None:
        return []
    try:
        document = json.loads(path.read_text())
        return [
            HeldReceipt(
                str(r["tenant"]),
                str(r["match_id"]),
                str(r["key_id"]),
                int(r["version"]),
                str(r["head_hash"]),
                bytes.fromhex(r["signature"]),
            )
            for r in document
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(f"cannot read the receipts in {path}: {error}") from None


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # an archive blob (.ghz) is a zstd frame; a .ghx is JSON lines


def archive_as_export(data: bytes, keys: dict[str, bytes] | None) -> bytes:
    """An archive blob (`.ghz`, from ARCHIVE_DIR or the archive bucket) as the export file it
    holds. A blob carries no public keys, so the operator's published ones are required."""
    if keys is None:
        raise UsageError(
            "an archived match (.ghz) carries no public keys: give the operator's published keys "
            "(--keys FILE from `guildhall keys public --json`, or --keys-from HOST:PORT)"
        )
    published = [PublicKeyLine(key_id, raw.hex()) for key_id, raw in sorted(keys.items())]
    return archived.as_export(archived.decode(data), published)


def report_json(report: ExportReport) -> str:
    return json.dumps(
        {
            "ok": report.ok,
            "refused": report.refused,
            "needs": report.needs,
            "first_bad_version": report.first_bad_version,
            "evidence": report.evidence,
            "reason": report.reason,
            "checked_versions": report.checked_versions,
            "executed": report.executed,
            "findings": [
                {"version": f.version, "through": f.through, "evidence": f.evidence, "reason": f.reason}
                for f in report.findings
            ],
            "checks": [{"check": n, "passed": p, "result": t} for n, p, t in report.checks()],
        },
        indent=2,
    )


def verify_file(
    path: Path,
    *,
    keys: dict[str, bytes] | None,
    games: Sequence[Any],
    receipts: Sequence[HeldReceipt],
    story: bool,
    as_json: bool,
    show_all: bool = False,
    bundles: Sequence[Path] = (),
) -> tuple[bool, list[str]]:
    """(verified, the lines to print)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error}") from None
    missing = [str(place) for place in bundles if not place.exists()]
    if missing:
        raise UsageError(f"no such bundle file or directory: {', '.join(missing)}")
    if path.suffix == archived.SUFFIX or data.startswith(_ZSTD_MAGIC):
        try:
            data = archive_as_export(data, keys)
        except archived.ArchiveError as error:
            reason = f"{path.name}: {error}"
            return False, [json.dumps({"ok": False, "reason": reason}) if as_json else reason]
    report = verify_export(data, keys=keys, games=games, receipts=receipts, bundles=bundles)
    if as_json:
        return report.ok, [report_json(report)]
    header = report.header
    lines = []
    if story:
        lines = story_lines(report, show_all)
    else:
        if header is not None:
            lines.append(
                f"{path.name}: {header.tenant}/{header.match_id}, {header.game_id} {header.rules_version}, "
                f"{len(header.players)} seats, versions 1 to {header.version}, "
                + ("finished" if header.finished else "in play")
            )
        lines.extend(verdict_lines(report))
    return report.ok, lines
