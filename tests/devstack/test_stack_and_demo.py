"""End to end: the demo over real processes (rules services, Redis), and `make run`'s clean stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from devstack import demo
from devstack.stack import Stack
from services.registry import GAMES
from tests.gateway.conftest import private_database

ROOT = Path(__file__).resolve().parents[2]
DEMO_GAME = "rattus_cartus" if "rattus_cartus" in GAMES else next(iter(GAMES))


def test_the_demo_plays_watches_and_audits_every_game_through_the_gateway(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDIS_URL", private_database(redis_url, 14))
    # One game: every registered game is played through the gateway in test_e2e.py already.
    code = demo.main(["--seed", "2024", "--log-dir", str(tmp_path), "--players", "2", "--games", DEMO_GAME])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "All matches played, watched and audited." in out
    assert f"{DEMO_GAME}: 2 players, match " in out
    assert out.count("spectator: saw every event") == 1
    assert out.count("snapshots): OK") == 1
    assert out.count("seed revealed matches its commitment: OK") == 1
    assert out.count("receipts verify with the published keys: OK") == 1
    # Played by the client library's bots, one greedy and one random seat, named in the results.
    assert "seat 0 (greedy): " in out and "seat 1 (random): " in out
    assert " checked locally)" in out and "error:" not in out


def test_the_stack_stops_every_child_process(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    with Stack(list(GAMES), log_dir=tmp_path) as stack:
        processes = list(stack.processes.values())
        assert all(p.alive for p in processes)
    assert not any(p.alive for p in processes)
    assert "serving" in (tmp_path / f"rules-{next(iter(GAMES))}.log").read_text()


def test_make_run_stops_cleanly_on_ctrl_c(redis_url: str, tmp_path: Path) -> None:
    env = {**os.environ, "REDIS_URL": redis_url}
    run = subprocess.Popen(
        [sys.executable, "-m", "devstack.stack", "--any-ports", "--dir", str(tmp_path), "--games", DEMO_GAME],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert run.stderr is not None
        lines = []
        for line in run.stderr:  # bounded: the stack prints this once every service is healthy
            lines.append(line)
            if "Stack running" in line or run.poll() is not None:
                break
        assert any("Stack running" in line for line in lines), "".join(lines)
        assert any("Gateway at 127.0.0.1:" in line for line in lines), "".join(lines)
        run.send_signal(signal.SIGINT)
        _, rest = run.communicate(timeout=30)
        assert run.returncode == 0, rest
        assert "stopping the stack" in rest
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()


def test_a_rules_service_stops_when_its_supervisor_dies(tmp_path: Path) -> None:
    """Even a SIGKILLed supervisor leaves no rules service behind."""
    script = (
        "import subprocess, sys, os\n"
        "from devstack.processes import free_port\n"
        "from services.server import EXIT_WITH_PARENT_ENV\n"
        "command = [sys.executable, '-m', 'services.rattus_cartus', '--port', str(free_port())]\n"
        "child = subprocess.Popen(command, env={**os.environ, EXIT_WITH_PARENT_ENV: str(os.getpid())})\n"
        "print(child.pid, flush=True)\n"
        "child.wait()\n"
    )
    supervisor = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert supervisor.stdout is not None
    child_pid = int(supervisor.stdout.readline())
    supervisor.kill()
    supervisor.wait()
    deadline = time.monotonic() + 20
    while _alive(child_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child_pid), "the orphaned rules service kept running"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but not yet reaped by init; it counts as gone.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "State:\tZ" in status.read_text())
