"""`guildhall export` and `guildhall verify` as an auditor runs them: export a match from a real
gateway, then verify the file with no gateway to talk to; the library's audit with the receipts a
client holds; ExportMatch's scope; hostile numbers answered precisely."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from guildhall_client import AsyncClient, errors
from guildhall_client.bots import make_bot
from guildhall_client.bots.runner import play_seat

GAME = "rattus_cartus"
ROOT = Path(__file__).resolve().parents[2]


def command() -> list[str]:
    script = Path(sys.executable).with_name("guildhall")
    if script.exists():
        return [str(script)]
    found = shutil.which("guildhall")
    return [found] if found else [sys.executable, "-m", "guildhall_client.cli"]


def guildhall(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*command(), *args], cwd=ROOT, env=env, capture_output=True, timeout=120)


def nowhere(stack: Any) -> dict[str, str]:
    """An environment whose gateway address answers nothing: verify must not need one."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return stack.cli_env(GUILDHALL_TARGET=f"127.0.0.1:{port}", GUILDHALL_API_KEY="")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture(scope="module")
def finished(stack: Any) -> tuple[str, Any]:
    """A Rattus Cartus match played to the end by two bots; its id and a watcher's events."""

    async def go() -> tuple[str, Any]:
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            created = await gh.create_match(GAME, [f"p{n}-{uuid.uuid4().hex[:6]}" for n in range(2)])
            seats = [gh.seat(created.match_id, s.token) for s in created.seats]
            await asyncio.gather(
                *(play_seat(seat, make_bot("greedy", GAME, seed=n)) for n, seat in enumerate(seats))
            )
            return created.match_id, await gh.events(created.match_id)

    return run(go())


@pytest.fixture(scope="module")
def exported(stack: Any, finished: tuple[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    match_id, _ = finished
    done = guildhall(stack.cli_env(), "export", match_id)
    assert done.returncode == 0, done.stderr
    path = tmp_path_factory.mktemp("export") / "match.ghx"
    path.write_bytes(done.stdout)  # `guildhall export MATCH > match.ghx`
    assert b"exported versions 1 to" in done.stderr
    return path


def test_an_exported_match_verifies_with_no_gateway_to_ask(stack: Any, exported: Path) -> None:
    done = guildhall(nowhere(stack), "verify", str(exported))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout.decode()
    assert out.rstrip().endswith("VERIFIED") and "every action re-executed in process" in out


def test_verify_checks_against_the_operators_published_keys(
    stack: Any, exported: Path, tmp_path: Path
) -> None:
    keys = guildhall(stack.cli_env(), "keys", "public", "--json")
    assert keys.returncode == 0, keys.stderr
    (tmp_path / "keys.json").write_bytes(keys.stdout)
    from_file = guildhall(nowhere(stack), "verify", str(exported), "--keys", str(tmp_path / "keys.json"))
    asked = guildhall(stack.cli_env(), "verify", str(exported), "--keys-from", stack.target)
    for done in (from_file, asked):
        assert done.returncode == 0 and b"the operator's published keys" in done.stdout, done.stdout

    other = {"keys": [{"key_id": k["key_id"], "ed25519": "00" * 32} for k in json.loads(keys.stdout)["keys"]]}
    (tmp_path / "other.json").write_text(json.dumps(other))
    refused = guildhall(nowhere(stack), "verify", str(exported), "--keys", str(tmp_path / "other.json"))
    assert refused.returncode == 1 and b"FAILED at version 1 (receipt)" in refused.stdout, refused.stdout


def test_a_tampered_file_fails_naming_the_version_and_why(stack: Any, exported: Path, tmp_path: Path) -> None:
    lines = exported.read_bytes().splitlines()
    record = json.loads(lines[10])
    record["payload"] = record["payload"].replace(":", ": ", 1)
    lines[10] = json.dumps(record).encode()
    tampered = tmp_path / "tampered.ghx"
    tampered.write_bytes(b"\n".join(lines) + b"\n")
    done = guildhall(nowhere(stack), "verify", str(tampered))
    assert done.returncode == 1
    assert f"FAILED at version {record['version']} (chain)".encode() in done.stdout, done.stdout

    as_json = json.loads(guildhall(nowhere(stack), "verify", str(tampered), "--json").stdout)
    assert as_json["ok"] is False and as_json["first_bad_version"] == record["version"]
    assert guildhall(nowhere(stack), "verify", str(tmp_path / "missing.ghx")).returncode == 2


def test_the_story_tells_the_match_with_card_names_beside_the_checks(stack: Any, exported: Path) -> None:
    done = guildhall(nowhere(stack), "verify", str(exported), "--story")
    assert done.returncode == 0
    story = done.stdout.decode()
    assert "match created: rattus_cartus" in story and "chain ✓  receipt ✓  re-executed ✓" in story
    assert any(
        name in story for name in ("Peasantry", "Bourgeoisie", "Church", "Chivalry", "Magic", "Royalty")
    )
    assert "match ended (finished): won by" in story and story.rstrip().endswith("VERIFIED")


def test_a_match_in_play_exports_up_to_now_without_its_seed(stack: Any, tmp_path: Path) -> None:
    async def go() -> str:
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            created = await gh.create_match(GAME, ["a", "b"])
            for _ in range(3):
                view = await gh.get_view(created.match_id)
                seat = gh.seat(created.match_id, created.seats[view.active_seats[0]].token)
                await seat.submit((await seat.view()).legal_actions[0])
                await seat.client.close()
            return created.match_id

    match_id = run(go())
    path = tmp_path / "in-play.ghx"
    assert guildhall(stack.cli_env(), "export", match_id, "--output", str(path)).returncode == 0
    assert json.loads(path.read_bytes().splitlines()[0])["seed"] is None
    done = guildhall(nowhere(stack), "verify", str(path))
    assert done.returncode == 0 and b"not re-executed" in done.stdout, done.stdout


def test_the_audit_compares_the_receipts_a_watcher_holds(stack: Any, finished: tuple[str, Any]) -> None:
    match_id, events = finished
    receipts = [e.receipt for e in events if e.receipt is not None]

    async def go() -> Any:
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            return await gh.audit(match_id, receipts=receipts)

    report = run(go())
    assert report.ok and report.receipts_compared == len(receipts) > 10 and report.receipts_refused == 0


def test_export_is_for_auditors_of_the_matchs_tenant(stack: Any, finished: tuple[str, Any]) -> None:
    match_id, _ = finished

    async def go() -> tuple[type, type]:
        async with AsyncClient(stack.target, api_key=stack.other_key) as rival:
            with pytest.raises(errors.GuildhallError) as not_theirs:
                await rival.export_match(match_id)
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            token, _ = await gh.issue_token(match_id, 0)
            with pytest.raises(errors.GuildhallError) as a_seat:
                await gh.for_token(token).export_match(match_id)
        return type(not_theirs.value), type(a_seat.value)

    assert run(go()) == (errors.NotFound, errors.PermissionDenied)


def test_read_events_after_the_largest_version_is_an_invalid_argument(
    stack: Any, finished: tuple[str, Any]
) -> None:
    match_id, _ = finished

    async def go() -> None:
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            await gh.read_events(match_id, after_version=2**64 - 1)

    with pytest.raises(errors.InvalidArgument, match="beyond the match's version"):
        run(go())


# -- issue 43: an archived match's .ghz verifies offline as an export does --------------------------


@pytest.fixture(scope="module")
def archived(stack: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A finished match moved to an archive directory by `python -m gateway.archive` (its .ghz),
    and the operator's published keys as `guildhall keys public --json` prints them."""

    async def play() -> str:
        async with AsyncClient(stack.target, api_key=stack.api_key) as gh:
            created = await gh.create_match(GAME, ["ann", "bob"])
            seats = [gh.seat(created.match_id, s.token) for s in created.seats]
            await asyncio.gather(
                *(play_seat(seat, make_bot("greedy", GAME, seed=n)) for n, seat in enumerate(seats))
            )
            return created.match_id

    match_id = run(play())
    work = tmp_path_factory.mktemp("archive")
    env = {"PATH": "/usr/bin:/bin", "REDIS_URL": stack.redis_url}
    command = [sys.executable, "-m", "gateway.archive", "--tenant", "acme", "--dir", str(work / "archive")]
    moved = subprocess.run(
        [*command, match_id], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert moved.returncode == 0, moved.stderr
    keys = guildhall(stack.cli_env(), "keys", "public", "--json")
    assert keys.returncode == 0, keys.stderr
    (work / "keys.json").write_bytes(keys.stdout)
    return work / "archive" / "acme" / f"{match_id}.ghz", work / "keys.json"


def test_an_archived_match_verifies_offline_from_its_ghz(stack: Any, archived: tuple[Path, Path]) -> None:
    blob, keys = archived
    done = guildhall(nowhere(stack), "verify", str(blob), "--keys", str(keys))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout.decode()
    assert "every action re-executed in process" in out and "the operator's published keys" in out
    assert out.rstrip().endswith("VERIFIED")
    # A blob carries no keys of its own: the published ones are required, and said so.
    unkeyed = guildhall(nowhere(stack), "verify", str(blob))
    assert unkeyed.returncode == 2 and b"--keys" in unkeyed.stderr, unkeyed.stderr


def test_a_tampered_ghz_fails_naming_the_version_and_why(
    stack: Any, archived: tuple[Path, Path], tmp_path: Path
) -> None:
    import msgspec

    from gateway.domain.archived import decode, encode

    blob, keys = archived
    match = decode(blob.read_bytes())

    def verify(tampered: Any, name: str) -> subprocess.CompletedProcess[bytes]:
        path = tmp_path / name
        path.write_bytes(encode(tampered) if not isinstance(tampered, bytes) else tampered)
        return guildhall(nowhere(stack), "verify", str(path), "--keys", str(keys))

    # An entry's payload edited in the blob: the chain breaks at that version.
    entries = [dict(fields) for fields in match.entries]
    record = list(msgspec.msgpack.decode(entries[4]["e"]))
    record[1] = record[1].replace(b":", b": ", 1)
    entries[4]["e"] = msgspec.msgpack.encode(record)
    edited = verify(msgspec.structs.replace(match, entries=entries), "edited.ghz")
    assert edited.returncode == 1 and b"FAILED at version 5 (chain)" in edited.stdout, edited.stdout
    # The stream's last append cut away: the archive's own record of its head names the loss.
    cut = verify(msgspec.structs.replace(match, entries=match.entries[:-1]), "cut.ghz")
    assert cut.returncode == 1 and b"FAILED" in cut.stdout and b"(file)" in cut.stdout, cut.stdout
    # Not a blob at all: named, not a traceback.
    garbage = verify(blob.read_bytes()[:40], "garbage.ghz")
    assert garbage.returncode == 1 and b"not an archived match" in garbage.stdout, garbage.stdout
