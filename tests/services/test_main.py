"""`python -m services.<game>`: a real process, its data flag, and its graceful stop."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import grpc

from gateway.rules_client import RulesClient
from gateway.stack import free_port, wait_serving
from services.rattus_cartus import GAME, load_game

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "services" / "rattus_cartus" / "data" / "catalog.toml"


def _serve(*args: str) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    command = [sys.executable, "-m", "services.rattus_cartus", "--port", str(port), *args]
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    return process, f"127.0.0.1:{port}"


def test_a_replacement_data_file_is_served_with_its_own_rules_version(tmp_path: Path) -> None:
    real = tmp_path / "real-catalog.toml"
    real.write_text(SHIPPED.read_text().replace("draw = 3", "draw = 1", 1))
    process, address = _serve("--data", str(real))
    try:
        wait_serving(address, 30, process)  # type: ignore[arg-type]
        described = RulesClient("rattus_cartus", address).describe()
        assert described.rules_version == load_game(real).rules_version
        assert described.rules_version != GAME.rules_version
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)


def test_a_malformed_data_file_stops_the_service_with_the_reason(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text(SHIPPED.read_text().replace("jokers = 15", "jokers = -1"))
    process, _ = _serve("--data", str(broken))
    _, err = process.communicate(timeout=30)
    assert process.returncode != 0
    assert f"cannot use {broken}" in err and "jokers" in err


def test_sigterm_drains_and_exits_cleanly() -> None:
    process, address = _serve()
    wait_serving(address, 30, process)  # type: ignore[arg-type]
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "stopping" in err and "stopped" in err
    with grpc.insecure_channel(address) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=0.5)
            reachable = True
        except grpc.FutureTimeoutError:
            reachable = False
    assert not reachable
