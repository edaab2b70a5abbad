"""The `guildhall` command line driven as a person would, through a pseudo-terminal (pexpect),
against a real gateway: play a whole Rattus Cartus match against a bot, then watch, replay and
audit it; list matches, run bots, show keys."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pexpect
import pytest

from guildhall_client.cli import app

GAME = "rattus_cartus"
ROOT = Path(__file__).resolve().parents[2]


def command() -> list[str]:
    """The installed console script when there is one, else the same app through `-m`."""
    script = Path(sys.executable).with_name("guildhall")
    if script.exists():
        return [str(script)]
    found = shutil.which("guildhall")
    return [found] if found else [sys.executable, "-m", "guildhall_client.cli"]


def spawn(stack, *args: str, timeout: float = 60) -> pexpect.spawn:
    cmd = command()
    return pexpect.spawn(
        cmd[0],
        [*cmd[1:], *args],
        cwd=str(ROOT),
        env=stack.cli_env(),
        encoding="utf-8",
        timeout=timeout,
        dimensions=(50, 160),
    )


def run_cli(stack, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command(), *args], cwd=ROOT, env=stack.cli_env(), capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def played(stack):
    """A whole match played at the terminal: seat typed by 'a person' (always the last choice of
    a menu, or the first on every third menu), the other seat a greedy bot."""
    child = spawn(stack, "--player-id", "tester", "play", GAME, "--seats", "2", "--bots", "1", timeout=90)
    child.expect(r"Match (\S+): you are seat (\d)")
    match_id = child.match.group(1)
    turns = 0
    while True:
        # A decision's later steps offer "b = back" too: every menu is answered by number.
        index = child.expect(
            [
                r"Your choice \[1-(\d+)(?:, b = back)?(?:, u = undo your last move)?, r = resign\]: ",
                r"over at version (\d+)",
            ]
        )
        if index == 1:
            version = int(child.match.group(1))
            break
        count = int(child.match.group(1))
        turns += 1
        child.sendline(str(1 if turns % 3 == 0 else count))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return match_id, version, turns


def test_play_a_whole_match_against_a_bot_at_the_terminal(played):
    match_id, version, turns = played
    assert turns > 10 and version > turns


def test_a_wrong_choice_is_asked_again_not_sent(stack):
    child = spawn(stack, "--player-id", "typo", "play", GAME, "--seats", "2", "--bots", "1")
    child.expect(r"Your choice \[1-(\d+)")
    count = int(child.match.group(1))
    child.sendline(str(count + 5))
    child.expect(f"Type a number from 1 to {count}")
    child.sendline("r")  # resign: the match ends for this seat
    child.expect(pexpect.EOF)
    child.close()


def test_a_move_is_taken_back_at_the_terminal_menu(stack):
    """Issue 41: while a seat's last move may be taken back (Rattus Cartus: entered a building,
    cards still to put down) its menu offers "u"; the move is taken back and the seat decides
    again from where it was."""
    child = spawn(stack, "--player-id", "undoer", "play", GAME, "--seats", "2", "--bots", "1", timeout=90)
    menu = r"Your choice \[1-(\d+)(?:, b = back)?(, u = undo your last move)?, r = resign\]: "
    for _ in range(300):
        assert child.expect([menu, r"over at version"]) == 0, "the match ended with no move to take back"
        if not child.match.group(2):
            child.sendline(child.match.group(1))  # the last choice: it enters buildings
            continue
        child.sendline("u")
        # The bot deciding at the same time (supplies) may act first: then it is refused, go on.
        if child.expect([r"your last move is taken back \(version \d+\)", r"not taken back"]) == 0:
            break
    else:
        raise AssertionError("no move was taken back")
    child.expect(menu)
    assert not child.match.group(2)  # one move taken back: the one before it was not the seat's
    child.sendline("r")
    child.expect(pexpect.EOF)
    child.close()


def test_watch_replays_the_finished_match_to_its_end(stack, played):
    match_id, version, _ = played
    result = run_cli(stack, "watch", match_id)
    assert result.returncode == 0, result.stderr
    assert "The match begins with 2 players" in result.stdout  # the gateway describes its events
    assert f"version {version}, finished" in result.stdout
    # Engine bookkeeping is left out of the log unless --all: then every version is there.
    shown = [int(m) for m in re.findall(r"^\s+v(\d+)\s", result.stdout, re.M)]
    everything = run_cli(stack, "watch", match_id, "--all")
    assert everything.returncode == 0, everything.stderr
    lines = [int(m) for m in re.findall(r"^\s+v(\d+)\s", everything.stdout, re.M)]
    assert lines == list(range(1, version + 1))
    assert shown == sorted(set(shown)) and set(shown) < set(lines)


def test_replay_shows_one_version_and_steps_through_others(stack, played):
    match_id, version, _ = played
    shown = run_cli(stack, "replay", match_id, "--version", "3")
    assert shown.returncode == 0, shown.stderr
    assert f"at version 3 of {version}" in shown.stdout and "Round 1/10" in shown.stdout
    child = spawn(stack, "replay", match_id, "--start", "2")
    child.expect(f"at version 2 of {version}")
    child.expect("q quit: ")
    child.sendline("")
    child.expect(f"at version 3 of {version}")
    child.expect("q quit: ")
    child.sendline("b")
    child.expect(f"at version 2 of {version}")
    child.expect("q quit: ")
    child.sendline(str(version))
    child.expect(r"Winner\(s\)")
    child.expect("q quit: ")
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_audit_passes_with_every_receipt_and_the_seed_checked_locally(stack, played):
    match_id, version, _ = played
    result = run_cli(stack, "audit", match_id)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "gateway audit" in result.stdout and "ok" in result.stdout
    assert "matches its commitment" in result.stdout
    assert re.search(r"receipts verified here\s*│?\s*(\d+)/\1", result.stdout)


def test_matches_lists_the_played_match(stack, played):
    match_id, version, _ = played
    result = run_cli(stack, "matches", "--finished", "--json")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    mine = [r for r in rows if r["match_id"] == match_id]
    assert mine and mine[0]["finished"] and mine[0]["version"] == version


def test_bots_run_matches_with_a_summary(stack):
    result = run_cli(stack, "bots", "--game", GAME, "--matches", "2", "--seats", "2", "--kind", "mixed")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 rattus_cartus match(es)" in result.stdout
    assert "greedy: won" in result.stdout and "random: won" in result.stdout


def test_keys_public_and_new(stack):
    public = run_cli(stack, "keys", "public")
    assert public.returncode == 0, public.stderr
    assert re.search(r"[0-9a-f]{64}", public.stdout)
    new = run_cli(stack, "keys", "new", "--id", "k9", "--scopes", "tenant")
    assert new.returncode == 0
    key = re.search(r"(ghk_\S+)", new.stdout).group(1)
    entry = json.loads(new.stdout[new.stdout.index("{") :])
    assert entry["id"] == "k9" and entry["sha256"] == hashlib.sha256(key.encode()).hexdigest()


def test_bad_credentials_are_one_line_and_exit_code_1(stack):
    result = run_cli(stack, "--api-key", "ghk_" + "y" * 43, "audit", "any-match")
    assert result.returncode == 1 and "UNAUTHENTICATED" in result.stderr and "Traceback" not in result.stderr


def test_help_names_every_setting_and_its_environment_variable():
    result = subprocess.run([*command(), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    for name in ("GUILDHALL_TARGET", "GUILDHALL_API_KEY", "GUILDHALL_TOKEN", "GUILDHALL_CONFIG"):
        assert name in result.stdout
    for cmd in ("play", "watch", "matches", "replay", "audit", "bots", "keys"):
        assert cmd in result.stdout


def test_a_private_table_is_joined_by_invite_code_with_a_bot_in_the_other_seat(stack):
    opened = run_cli(stack, "table", GAME, "--seats", "2")
    assert opened.returncode == 0, opened.stderr
    code = re.search(r"invite code: (\S+)", opened.stdout).group(1)
    match_id = re.search(r"match: (\S+)", opened.stdout).group(1)
    played = run_cli(stack, "play", GAME, "--invite", code, "--bots", "1", "--auto", "random")
    assert played.returncode == 0, played.stdout + played.stderr
    assert "Claimed seat" in played.stdout and f"Match {match_id} over at version" in played.stdout
    # The same player claiming again gets its seat back; anybody else finds the table full.
    again = run_cli(stack, "--player-id", "latecomer", "play", GAME, "--invite", code)
    assert again.returncode == 1 and "seat_taken" in again.stderr


def test_the_console_script_is_declared_and_loads_the_app():
    client_project = tomllib.loads((ROOT / "clients" / "python" / "pyproject.toml").read_text())
    scripts = client_project["project"]["scripts"]
    assert scripts["guildhall"] == "guildhall_client.cli:app" and app.info.name == "guildhall"


def test_settings_come_from_the_config_file_when_no_flag_or_variable_names_them(stack, tmp_path):
    config = tmp_path / "guildhall.toml"
    config.write_text(f'target = "{stack.target}"\napi_key = "{stack.api_key}"\n')
    env = stack.cli_env(GUILDHALL_CONFIG=str(config))
    del env["GUILDHALL_TARGET"], env["GUILDHALL_API_KEY"]
    listed = subprocess.run(
        [*command(), "matches", "--json"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0, listed.stderr
    # A flag still wins over the file: a wrong target given on the command line is used (and fails).
    wrong = subprocess.run(
        [*command(), "--target", "127.0.0.1:1", "--timeout", "2", "matches"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert wrong.returncode == 1 and "UNAVAILABLE" in wrong.stderr
