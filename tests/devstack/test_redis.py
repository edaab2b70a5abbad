"""Where tests and the local run get their Redis."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from devstack.processes import RedisServerStartError, free_port
from devstack.redis import _container_if_docker_is_reachable, local_redis, redis_server_process


def test_redis_url_from_the_environment_is_used_as_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://redis.example.invalid:6390/3")

    with local_redis() as url:
        assert url == "redis://redis.example.invalid:6390/3"


def test_without_redis_url_a_redis_is_provided(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)

    with local_redis() as url:
        assert redis.Redis.from_url(url).ping()


def test_an_unreachable_docker_engine_means_no_container(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"tcp://127.0.0.1:{free_port()}")

    started = time.monotonic()
    assert _container_if_docker_is_reachable(appendonly=False) is None
    assert time.monotonic() - started < 5


def test_missing_testcontainers_means_no_container(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("testcontainers.community.redis", "testcontainers.redis"):
        monkeypatch.setitem(sys.modules, module, None)  # makes `import` raise ImportError

    assert _container_if_docker_is_reachable(appendonly=False) is None


def test_a_started_server_listens_on_loopback_without_persistence_and_is_cleaned_up() -> None:
    with redis_server_process() as url:
        client: Any = redis.Redis.from_url(url)
        assert url.startswith("redis://127.0.0.1:")
        assert client.config_get("appendonly")["appendonly"] == "no"
        assert client.config_get("save")["save"] == ""
        data_dir = Path(client.config_get("dir")["dir"])
        assert data_dir.is_dir()
        client.close()

    assert not data_dir.exists()
    with pytest.raises(redis.exceptions.ConnectionError):
        redis.Redis.from_url(url, socket_connect_timeout=0.5).ping()


def test_a_started_server_can_keep_an_append_only_file() -> None:
    with redis_server_process(appendonly=True) as url:
        client = redis.Redis.from_url(url)
        assert client.config_get("appendfsync")["appendfsync"] == "always"
        client.close()


def test_a_server_that_fails_to_start_is_reported_with_its_log(tmp_path: Path) -> None:
    broken_server = tmp_path / "redis-server"
    # Without --logfile, redis-server logs to stdout, which devstack keeps in the server's log.
    broken_server.write_text('#!/bin/sh\necho "FATAL: cannot open the data directory"\nexit 1\n')
    broken_server.chmod(0o755)

    with (
        pytest.raises(RedisServerStartError, match="cannot open the data directory"),
        redis_server_process(binary=str(broken_server)),
    ):
        pass


def test_the_command_line_entry_prints_a_url_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    environment = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    # stderr to a file, not an unread pipe: a full pipe would block the process's logging.
    log = tmp_path / "stderr.txt"
    with open(log, "w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "devstack.redis"],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=environment,
            cwd=Path(__file__).resolve().parents[2],
            # Started with SIGINT blocked, as a long-lived test worker once handed it down: the
            # tool must still stop on Ctrl-C (it hung before it unblocked the signal itself).
            preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}),
        )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert redis.Redis.from_url(url).ping()

        process.send_signal(signal.SIGINT)
        # A safety limit for a loaded machine, not a timing check.
        assert process.wait(timeout=60) == 0, log.read_text()[-2000:]
    finally:
        if process.poll() is None:
            process.kill()
    with pytest.raises(redis.exceptions.ConnectionError):
        redis.Redis.from_url(url, socket_connect_timeout=0.5).ping()
