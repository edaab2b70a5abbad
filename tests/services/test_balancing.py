"""The gateway's rules client spreads calls over every pod of a headless Service and stops
sending to a pod whose health says NOT_SERVING (it is draining), as deploy/ relies on."""

from __future__ import annotations

import dataclasses
import time

from grpc_health.v1 import health_pb2

from gateway.rules_client import RulesClient
from services.server import build_server
from tests.kernel.toy_game import GAME


def test_calls_spread_over_pods_and_skip_a_draining_one() -> None:
    pods = [build_server(dataclasses.replace(GAME, title=name)) for name in ("A", "B")]
    for server, _, _ in pods:
        server.start()
    client = RulesClient(GAME.game_id, "ipv4:" + ",".join(f"127.0.0.1:{port}" for _, port, _ in pods))
    try:
        # Round robin uses the pods whose connections are ready: on a busy machine the second
        # may take a moment to connect, so look until both answered (bounded).
        seen = {client.describe().title}
        deadline = time.monotonic() + 10
        while seen != {"A", "B"} and time.monotonic() < deadline:
            seen.add(client.describe().title)
            time.sleep(0.02)
        assert seen == {"A", "B"}
        pods[0][2].set("", health_pb2.HealthCheckResponse.NOT_SERVING)
        deadline = time.monotonic() + 10  # the health watch reaches the client asynchronously
        while client.describe().title == "A" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert {client.describe().title for _ in range(8)} == {"B"}
    finally:
        client.close()
        for server, _, _ in pods:
            server.stop(None)
