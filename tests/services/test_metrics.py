"""A rules service's metrics (issue 43, item 2): every call, unary or over a Session (a batch's
calls each on their own), is counted by method and status under the service's game and rules
version, with its time in the histogram; open Session streams are a gauge; and `METRICS_PORT`
serves them from the real process, with the process's own series."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
import urllib.request

import grpc
from prometheus_client import REGISTRY

from devstack.processes import free_port
from gateway.rules_client import AsyncRulesClient
from services.server import build_aio_server
from tests.kernel.toy_game import GAME

SEED = (7).to_bytes(32, "big")
SERVICE = {"game": GAME.game_id, "rules_version": GAME.rules_version}


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, {**SERVICE, **labels}) or 0.0


def test_calls_are_counted_by_method_and_status_under_the_game_and_rules_version() -> None:
    before = {
        "setup_ok": sample("guildhall_rules_requests_total", method="Setup", code="OK"),
        "setup_bad": sample("guildhall_rules_requests_total", method="Setup", code="INVALID_ARGUMENT"),
        "legal_ok": sample("guildhall_rules_requests_total", method="LegalActions", code="OK"),
        "legal_timed": sample("guildhall_rules_request_seconds_count", method="LegalActions"),
    }
    sessions_during: list[float] = []

    async def main() -> None:
        server, port, _ = await build_aio_server(GAME)
        await server.start()
        unary = AsyncRulesClient(GAME.game_id, f"127.0.0.1:{port}", sessions=0)
        streamed = AsyncRulesClient(GAME.game_id, f"127.0.0.1:{port}", sessions=1)
        try:
            state, status = await unary.setup(2, SEED)
            try:
                await unary.setup(99, SEED)  # no such player count: INVALID_ARGUMENT
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
            # Three calls made together go over the Session as one batch message.
            player = status.active_players[0]
            await asyncio.gather(*(streamed.legal_actions(state, player) for _ in range(3)))
            sessions_during.append(sample("guildhall_rules_sessions_open"))
        finally:
            await unary.close()
            await streamed.close()
            await server.stop(None)

    asyncio.run(main())
    assert sample("guildhall_rules_requests_total", method="Setup", code="OK") == before["setup_ok"] + 1
    assert (
        sample("guildhall_rules_requests_total", method="Setup", code="INVALID_ARGUMENT")
        == before["setup_bad"] + 1
    )
    assert (
        sample("guildhall_rules_requests_total", method="LegalActions", code="OK") == before["legal_ok"] + 3
    )
    assert sample("guildhall_rules_request_seconds_count", method="LegalActions") == before["legal_timed"] + 3
    assert sample("guildhall_rules_request_seconds_bucket", method="LegalActions", le="+Inf") >= 3
    assert sample("guildhall_rules_info") == 1
    assert sessions_during[0] >= 1 and sample("guildhall_rules_in_flight") == 0


def test_metrics_port_serves_the_rules_service_series_and_its_process_series() -> None:
    port, metrics_port = free_port(), free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "services.ys", "--port", str(port), "--metrics-port", str(metrics_port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "the rules service exited"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=2) as answer:
                    text = answer.read().decode()
                break
            except OSError:
                assert time.monotonic() < deadline, "no /metrics within 60 s"
                time.sleep(0.2)
    finally:
        process.terminate()
        process.wait(20)
    assert 'guildhall_rules_info{game="ys",rules_version="' in text
    assert "process_cpu_seconds_total" in text and "process_resident_memory_bytes" in text
