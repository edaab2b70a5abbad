"""Rules bundles (services/bundles.py): a rules version kept as a file whose files re-hash to the
version, run in a child process that re-executes a match exactly as the rules do; a tampered
bundle is refused before any of its code decides anything."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from services.bundles import (
    MANIFEST,
    BundleError,
    BundleRunner,
    build_bundle,
    bundle_name,
    find_bundle,
    read_bundle,
)
from services.kernel import Rejection
from services.kernel.runner import Refused, Replayer
from services.kernel.testing import random_playout
from services.kernel.version import digest_files
from services.rattus_cartus import GAME

SHIPPED = Path(__file__).resolve().parents[2] / "services" / "rattus_cartus" / "data" / "catalog.toml"


@pytest.fixture(scope="module")
def bundle() -> bytes:
    name, raw = build_bundle("rattus_cartus")
    assert name == bundle_name("rattus_cartus", GAME.rules_version)
    return raw


def rezip(raw: bytes, change: dict[str, bytes | None]) -> bytes:
    """The bundle with files replaced, added, or (None) removed."""
    source = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            if name not in change:
                target.writestr(name, source.read(name))
        for name, data in change.items():
            if data is not None:
                target.writestr(name, data)
    return out.getvalue()


def test_the_same_rules_build_the_same_bytes(bundle: bytes) -> None:
    assert build_bundle("rattus_cartus")[1] == bundle


def test_a_bundle_re_executes_a_match_exactly_as_the_rules_in_process(bundle: bytes, tmp_path: Path) -> None:
    playout = random_playout(GAME, 3, 41)
    replayer = Replayer(GAME)
    seed = playout.config.seed.to_bytes(32, "big")
    options = bytes(playout.config.options)
    with BundleRunner.start(
        read_bundle(bundle, game="rattus_cartus", version=GAME.rules_version), tmp_path
    ) as run:
        state, status = run.setup(3, seed, options)
        expected, expected_status = replayer.setup(3, seed, options)
        assert state == GAME.codec.encode_state(expected) and list(status[0]) == list(
            expected_status.active_players
        )
        for step in playout.steps:
            decided = run.decide(state, step.player, GAME.codec.encode_json(step.action))
            assert not isinstance(decided, Rejection)
            events, state, status, undoable = decided
            assert isinstance(undoable, bool)
            assert events == [(e.__struct_config__.tag, GAME.codec.encode_json(e)) for e in step.events]
        assert status[1] is True and status[2] == GAME.codec.encode_json(playout.outcome)
        # A rule violation is an answer, an action that does not decode is refused.
        assert isinstance(run.decide(state, 0, GAME.codec.encode_json(playout.steps[0].action)), Rejection)
        with pytest.raises(Refused, match="does not decode"):
            run.decide(state, 0, b'{"type": "no_such_action"}')


def test_a_bundle_with_a_replacement_data_file_is_that_version(tmp_path: Path) -> None:
    real = tmp_path / "real.toml"
    real.write_text(SHIPPED.read_text().replace("stand_in = true", "stand_in = false"))
    name, raw = build_bundle("rattus_cartus", real)
    bundle = read_bundle(raw)
    assert bundle.rules_version != GAME.rules_version and bundle.data_name == "game-data/real.toml"
    BundleRunner.start(bundle, tmp_path / "cache").close()
    # Its data file changed after the build: the runner's version is no longer the bundle's.
    edited = rezip(raw, {"game-data/real.toml": real.read_bytes().replace(b"jokers = 15", b"jokers = 14")})
    with pytest.raises(BundleError, match="rules version"):
        BundleRunner.start(read_bundle(edited), tmp_path / "cache")


def test_an_edited_file_is_refused(bundle: bytes) -> None:
    rules = "services/rattus_cartus/rules.py"
    code = zipfile.ZipFile(io.BytesIO(bundle)).read(rules)
    with pytest.raises(BundleError, match="altered"):
        read_bundle(rezip(bundle, {rules: code.replace(b"draw", b"drew", 1)}))


def test_edited_code_with_a_manifest_to_match_is_refused_when_it_starts(
    bundle: bytes, tmp_path: Path
) -> None:
    """The attacker re-hashes the manifest: the files then make another version than the name's."""
    source = zipfile.ZipFile(io.BytesIO(bundle))
    rules = "services/rattus_cartus/rules.py"
    files = {n: source.read(n) for n in source.namelist() if n != MANIFEST}
    files[rules] = files[rules].replace(b"Rattus Cartus rules:", b"Rattus Cartus rules (forged):", 1)
    manifest = json.loads(source.read(MANIFEST))
    manifest["code_digest"] = digest_files(files.items())
    forged = rezip(bundle, {rules: files[rules], MANIFEST: json.dumps(manifest).encode()})
    with pytest.raises(BundleError, match="rules version"):
        BundleRunner.start(read_bundle(forged), tmp_path)


@pytest.mark.parametrize(
    "name",
    ["msgspec/__init__.py", "sitecustomize.py", "services/ys/__init__.py", "services/rattus_cartus/../x.py"],
)
def test_a_file_a_bundle_may_not_hold_is_refused(bundle: bytes, name: str) -> None:
    with pytest.raises(BundleError, match="may not"):
        read_bundle(rezip(bundle, {name: b"print('hello')"}))


def test_the_wrong_game_or_version_or_no_manifest_is_refused(bundle: bytes) -> None:
    with pytest.raises(BundleError, match="not 'ys'"):
        read_bundle(bundle, game="ys")
    with pytest.raises(BundleError, match="rules version"):
        read_bundle(bundle, version="2.0+0000000000000000")
    with pytest.raises(BundleError, match="manifest|guildhall-bundle"):
        read_bundle(rezip(bundle, {MANIFEST: None}))
    with pytest.raises(BundleError, match="zip"):
        read_bundle(b"not a zip")


def test_make_bundle_writes_and_checks_bundles(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "services.bundles"]
    built = subprocess.run(
        [*run, "build", "--game", "rattus_cartus", "--out", str(tmp_path)], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    path = find_bundle("rattus_cartus", GAME.rules_version, [tmp_path])
    assert path is not None and find_bundle("rattus_cartus", "2.0+x", [tmp_path]) is None
    checked = subprocess.run([*run, "check", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0 and "verified" in checked.stdout
    path.write_bytes(rezip(path.read_bytes(), {"services/kernel/tuples.py": b"x = 1\n"}))
    refused = subprocess.run([*run, "check", str(path)], capture_output=True, text=True)
    assert refused.returncode == 1 and "REFUSED" in refused.stdout
