"""Fixtures for fault tests: processes of our own that a test may SIGKILL and restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from soak.processes import RedisProcess


@pytest.fixture
def aof_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A redis-server of this test alone, AOF with appendfsync always, on its own data dir."""
    server = RedisProcess(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.kill()  # nothing to keep: the data dir goes with tmp_path
