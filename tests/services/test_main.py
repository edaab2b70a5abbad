"""`python -m services.<game>`: a real process, its data flag, and its graceful stop."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import grpc
from guildhall.common.v1 import common_pb2
from guildhall.rules.v1 import rules_pb2, rules_pb2_grpc

from devstack.processes import free_port, wait_serving
from gateway.rules_client import RulesClient
from services.bundles import BundleRunner, read_bundle
from services.kernel.testing import random_playout
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
        # Issue 40: its bundle is that version, its data file in it, and it runs as that version.
        with grpc.insecure_channel(address) as channel:
            reply = rules_pb2_grpc.RulesServiceStub(channel).Bundle(rules_pb2.BundleRequest(), timeout=30)
        bundle = read_bundle(reply.bundle, game="rattus_cartus", version=described.rules_version)
        assert reply.file_name == bundle.name and bundle.data_name == "game-data/real-catalog.toml"
        BundleRunner.start(bundle, tmp_path / "cache").close()
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


def test_ctrl_c_followed_by_sigterm_stops_every_time() -> None:
    # What Ctrl-C on `make run` delivers: SIGINT, then the supervisor's SIGTERM right after.
    for _ in range(3):
        process, address = _serve("--grace", "1")
        wait_serving(address, 30, process)  # type: ignore[arg-type]
        process.send_signal(signal.SIGINT)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
        assert process.returncode == 0, err
        assert err.count('"stopping"') + err.count("stopping ") == 1  # one stop, however many signals


def test_calls_in_flight_when_sigterm_arrives_all_complete() -> None:
    process, address = _serve("--drain", "1", "--grace", "10")
    wait_serving(address, 30, process)  # type: ignore[arg-type]
    client = RulesClient("rattus_cartus", address)
    state, _ = client.setup(5, 3)
    client.close()
    playout = random_playout(GAME, 5, 3)
    events = [
        common_pb2.Event(type=type(e).__struct_config__.tag, json=GAME.codec.encode_json(e))
        for step in playout.steps
        for e in step.events
    ]
    # A plain channel, as a caller already mid-call holds: 16 long replays sent at once.
    with grpc.insecure_channel(address) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        calls = [stub.Apply.future(rules_pb2.ApplyRequest(state=state, events=events)) for _ in range(16)]
        process.send_signal(signal.SIGTERM)
        results = [call.result(timeout=60) for call in calls]
    process.communicate(timeout=30)
    assert all(result.status.finished for result in results)


def test_a_taken_port_is_an_error_at_start() -> None:
    first, address = _serve()
    try:
        wait_serving(address, 30, first)  # type: ignore[arg-type]
        port = address.rsplit(":", 1)[1]
        second = subprocess.Popen(
            [sys.executable, "-m", "services.rattus_cartus", "--port", port],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        _, err = second.communicate(timeout=30)
        assert second.returncode != 0
        assert "port is taken" in err
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)


def test_log_level_is_accepted_in_any_case_and_a_bad_one_is_named() -> None:
    process, address = _serve("--log-level", "debug")
    wait_serving(address, 30, process)  # type: ignore[arg-type]
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "detail" not in err  # no `"detail": null` noise on successful calls
    bad, _ = _serve("--log-level", "LOUD")
    _, err = bad.communicate(timeout=30)
    assert bad.returncode == 2 and "LOUD" in err


def test_help_lists_every_setting_with_its_environment_variable() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "services.rattus_cartus", "--help"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    out = " ".join(out.split())  # argparse wraps lines
    for env in ("HOST", "PORT", "LOG_LEVEL", "DRAIN_SECONDS", "GRACE_SECONDS", "GAME_DATA"):
        assert f"env {env}" in out, env
