"""Bundles beside the archive (gateway/rules_bundles.py): kept once per version after a full check,
a tampered one neither stored nor run, runners reused between audits of a version."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gateway.archive import DirectoryArchive
from gateway.rules_bundles import BundleStore, archive_path
from services.bundles import BundleError, build_bundle
from services.rattus_cartus import GAME

GAME_ID = "rattus_cartus"
VERSION = GAME.rules_version


@pytest.fixture(scope="module")
def raw() -> bytes:
    return build_bundle(GAME_ID)[1]


def test_a_version_is_kept_once_and_only_after_it_checks(raw: bytes, tmp_path: Path) -> None:
    archive = DirectoryArchive(tmp_path / "archive")
    store = BundleStore(archive, tmp_path / "cache")
    asked: list[str] = []

    async def fetch() -> bytes:
        asked.append("bundle")
        return raw

    async def scenario() -> None:
        assert await store.keep(GAME_ID, VERSION, fetch) == "stored"
        assert await store.keep(GAME_ID, VERSION, fetch) == "stored"  # already there: not asked again
        assert asked == ["bundle"]
        assert (await store.load(GAME_ID, VERSION)).raw == raw  # type: ignore[union-attr]

    asyncio.run(scenario())
    assert (tmp_path / "archive" / archive_path(GAME_ID, VERSION)).read_bytes() == raw


def test_a_bundle_that_is_not_its_version_is_neither_kept_nor_run(raw: bytes, tmp_path: Path) -> None:
    archive = DirectoryArchive(tmp_path / "archive")
    store = BundleStore(archive, tmp_path / "cache")
    other = "2.0+0123456789abcdef"

    async def fetch() -> bytes:
        return raw  # a service answering for `other` with another version's bundle

    async def scenario() -> None:
        state = await store.keep(GAME_ID, other, fetch)
        assert state.startswith("refused:") and "rules version" in state
        assert archive.get(archive_path(GAME_ID, other)) is None
        # Edited where it is kept: refused when read back, before anything of it runs.
        archive.put(archive_path(GAME_ID, VERSION), raw.replace(b"services/", b"servicez/", 1))
        with pytest.raises(BundleError):
            await store.rules(GAME_ID, VERSION)

    asyncio.run(scenario())


def test_names_that_are_no_game_or_version_never_reach_the_archive() -> None:
    for game, version in (("../x", VERSION), (GAME_ID, "../../etc"), (GAME_ID, "2.0+ab")):
        with pytest.raises(ValueError):
            archive_path(game, version)


def test_a_runner_is_reused_for_the_next_audit_of_its_version(raw: bytes, tmp_path: Path) -> None:
    store = BundleStore(DirectoryArchive(tmp_path / "archive"), tmp_path / "cache")

    async def scenario() -> None:
        await store.put(store_bundle := await store.verify(raw, GAME_ID, VERSION))
        assert store_bundle.rules_version == VERSION
        first = await store.rules(GAME_ID, VERSION)
        assert first is not None
        await store.release(first)
        again = await store.rules(GAME_ID, VERSION)
        assert again is first and again.runner.alive
        await store.release(again)
        await store.close()
        assert not first.runner.alive

    asyncio.run(scenario())
