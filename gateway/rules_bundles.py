"""Rules bundles beside the archive (issue 40): every rules version that ever served a match kept
as a content-addressed bundle (services/bundles.py), so its matches stay auditable once it is no
longer deployed.

Where: the archive store (ARCHIVE_DIR or ARCHIVE_S3_BUCKET, gateway/archive.py) under
`bundles/<game>/<game>-<version>.zip`. Match blobs are `<tenant>/<match>.ghz`, two path parts
of ids without `/`: the names can never meet.

When: the first time a version answers a replica's probe (gateway/rules_directory.py), the
replica asks that rules service for its own bundle (RulesService.Bundle), checks it (its files
re-hash to the version, its runner says so) and stores it unless it is there already. A bundle
read back is checked again before it runs: a tampered one is refused.

Running one: unpacked under BUNDLE_CACHE_DIR and started as a child process (the kernel's runner),
an audit's RulesPort for that version (`BundleRules`).
"""

from __future__ import annotations

import asyncio
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from services.bundles import (
    Bundle,
    BundleError,
    BundleRules,
    BundleRunner,
    RunnerError,
    bundle_name,
    read_bundle,
)
from services.kernel.version import VERSION

_log = structlog.get_logger("rules")

PREFIX = "bundles"
IDLE_RUNNERS = 2  # runners kept per version between audits
IDLE_S = 120.0  # an idle runner is closed after this
GAME_ID = re.compile(r"[a-z][a-z0-9_]{0,63}")


def archive_path(game: str, version: str) -> str:
    """Where a version's bundle is kept; ValueError for a name that is no game or version (a
    caller's names must never reach outside `bundles/`)."""
    if not GAME_ID.fullmatch(game) or not VERSION.fullmatch(version):
        raise ValueError(f"no rules version {version[:80]!r} of a game {game[:64]!r} can be kept")
    return f"{PREFIX}/{game}/{bundle_name(game, version)}"


@dataclass
class BundleStore:
    """Bundles in the archive store; `cache_dir` is where they are unpacked to run."""

    archive: Any  # gateway.archive.ArchiveStore
    cache_dir: Path | None = None
    # (game, version) -> runners not in use, with when each was released.
    _idle: dict[tuple[str, str], list[tuple[float, BundleRules]]] = field(default_factory=dict)

    def _cache(self) -> Path:
        if self.cache_dir is None:
            self.cache_dir = Path(tempfile.mkdtemp(prefix="guildhall-bundles-"))
        return self.cache_dir

    async def has(self, game: str, version: str) -> bool:
        return await asyncio.to_thread(self.archive.get, archive_path(game, version)) is not None

    async def load(self, game: str, version: str) -> Bundle | None:
        """The stored bundle of that version, checked (BundleError if it does not hold)."""
        raw = await asyncio.to_thread(self.archive.get, archive_path(game, version))
        return None if raw is None else read_bundle(raw, game=game, version=version)

    async def verify(self, raw: bytes, game: str, version: str) -> Bundle:
        """A bundle checked whole: its files, then a start of its runner (BundleError if not)."""
        bundle = read_bundle(raw, game=game, version=version)
        runner = await asyncio.to_thread(BundleRunner.start, bundle, self._cache())
        runner.close()
        return bundle

    async def put(self, bundle: Bundle) -> None:
        await asyncio.to_thread(self.archive.put, archive_path(bundle.game, bundle.rules_version), bundle.raw)

    async def rules(self, game: str, version: str) -> BundleRules | None:
        """The stored bundle's rules, running (None: no bundle of that version is stored): an
        idle runner of that version if there is one, else a new one; `release` it after use."""
        idle = self._idle.get((game, version), [])
        while idle:
            _, port = idle.pop()
            if port.runner.alive:
                return port
            await asyncio.to_thread(port.close)
        bundle = await self.load(game, version)
        if bundle is None:
            return None
        runner = await asyncio.to_thread(BundleRunner.start, bundle, self._cache())
        return BundleRules(runner, in_thread=True)

    async def release(self, port: BundleRules) -> None:
        """A runner done with: kept for the next audit of its version (audits of old matches
        come in runs: each new child costs an interpreter's start), closed once idle too long."""
        now = time.monotonic()
        if port.runner.alive:
            self._idle.setdefault((port.runner.bundle.game, port.rules_version), []).append((now, port))
        else:
            await asyncio.to_thread(port.close)
        for key, idle in list(self._idle.items()):
            keep = [(at, p) for at, p in idle if now - at < IDLE_S][-IDLE_RUNNERS:]
            for at, p in idle:
                if (at, p) not in keep:
                    await asyncio.to_thread(p.close)
            self._idle[key] = keep

    async def close(self) -> None:
        for idle in self._idle.values():
            for _, port in idle:
                await asyncio.to_thread(port.close)
        self._idle.clear()

    async def keep(self, game: str, version: str, fetch: Any) -> str:
        """Make sure the version's bundle is stored: asks `fetch()` for it (the rules service's
        own) only if it is not. Returns what happened, for the version listing."""
        try:
            if await self.has(game, version):
                return "stored"
            raw = await fetch()
            bundle = await self.verify(raw, game, version)
            await self.put(bundle)
        except (BundleError, RunnerError) as error:
            _log.error("rules bundle refused", game=game, rules_version=version, error=str(error))
            return f"refused: {error}"
        _log.info("rules bundle stored", game=game, rules_version=version, bytes=len(bundle.raw))
        return "stored"
