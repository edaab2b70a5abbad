"""A rules service in this process on a free port, for tests that talk gRPC to one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gateway.rules_client import RulesClient
from services.kernel import GameSpec
from services.server import build_server


@contextmanager
def serving(spec: GameSpec[Any]) -> Iterator[RulesClient]:
    """Serve `spec` on 127.0.0.1, port 0; yield a client of it; stop both afterwards."""
    server, port, _ = build_server(spec)
    server.start()
    client = RulesClient(spec.game_id, f"127.0.0.1:{port}")
    try:
        yield client
    finally:
        client.close()
        server.stop(None)
