"""End to end: the demo over real processes (rules services, Redis), and `make run`'s clean stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gateway import demo
from gateway.stack import Stack
from services.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_plays_replays_and_audits_every_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    code = demo.main(["--seed", "2024", "--log-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "All replay checks passed." in out
    for game in GAMES:
        assert f"{game}: {max(GAMES[game].player_counts)} players, seed 2024" in out
    assert out.count("replay check: OK") == len(GAMES)
    assert out.count("audit (hash chain): OK") == len(GAMES)


def test_the_stack_stops_every_child_process(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    with Stack(list(GAMES), log_dir=tmp_path) as stack:
        processes = list(stack.processes.values())
        assert all(p.poll() is None for p in processes)
    assert all(p.poll() is not None for p in processes)
    assert "serving" in (tmp_path / f"rules-{next(iter(GAMES))}.log").read_text()


def test_make_run_stops_cleanly_on_ctrl_c(redis_url: str) -> None:
    env = {**os.environ, "REDIS_URL": redis_url}
    run = subprocess.Popen(
        [sys.executable, "-m", "gateway.stack", "--any-ports"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert run.stderr is not None
    lines = []
    for line in run.stderr:  # bounded: the stack prints this line once every service is healthy
        lines.append(line)
        if "Stack running" in line or run.poll() is not None:
            break
    assert any("Stack running" in line for line in lines), "".join(lines)
    run.send_signal(signal.SIGINT)
    _, rest = run.communicate(timeout=30)
    assert run.returncode == 0, rest
    assert "stopping the stack" in rest
