"""The replica's pub/sub connections (notifications, matchmaking) that notice a node going away.

- `live_messages` pings an idle subscription and gives up on it when the node stops answering:
  a node that stalls (SIGSTOP, a VM pause, a partition) closes no socket, so without a deadline
  its subscribers would wait for the safety poll for as long as the stall lasts.
- `ClusterSubscriber` gives each new subscription to the next node of the cluster: PUBLISH
  reaches every node of a Redis Cluster, so any live node hears every append, and a subscription
  that lost its node moves to another instead of waiting for that one to come back (issue 24).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio
import redis.exceptions

HEARTBEAT_S = 1.0  # an idle subscription pings its node after this long
ANSWER_DEADLINE_S = 2.0  # and gives the node up when nothing came back this long after the ping
CANCEL_AGAIN_S = 0.5  # a listener still running this long after its cancel is cancelled again


async def live_messages(pubsub: Any) -> AsyncIterator[dict[str, Any]]:
    """The published messages of a subscribed `pubsub`; raises ConnectionError once its node has
    said nothing for HEARTBEAT_S + ANSWER_DEADLINE_S, a ping included."""
    loop = asyncio.get_running_loop()
    heard = loop.time()
    pinged = False
    while True:
        message = await pubsub.get_message(timeout=HEARTBEAT_S / 2)
        now = loop.time()
        if message is not None:
            heard, pinged = now, False
            if message.get("type") == "message":
                yield message
            continue
        silent = now - heard
        if pinged and silent >= HEARTBEAT_S + ANSWER_DEADLINE_S:
            raise redis.exceptions.ConnectionError(f"the subscribed node said nothing for {silent:.1f} s")
        if not pinged and silent >= HEARTBEAT_S:
            await pubsub.ping()
            pinged = True


async def stop_listener(task: asyncio.Task[Any]) -> None:
    """Cancel a subscription's listener and wait until it has ended, cancelling it again while it
    runs on: a cancel that lands as redis-py's timed read (`get_message(timeout=...)`) gives up
    can be lost, and the listener then reads on (a test waited on `WatchHub.stop` forever)."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=CANCEL_AGAIN_S)
    if not task.cancelled():
        task.exception()  # retrieved: how it ended is of no interest once it is stopped


class ClusterSubscriber:
    """`pubsub()` on one node of a cluster: the node named in the URL first, then, each time a
    subscription is made again (after a failure), the next node the cluster client knows."""

    def __init__(self, cluster: Any, host: str, port: int, **connection: Any) -> None:
        self._cluster = cluster
        self._first = (host, port)
        self._connection = connection
        self._turn = 0
        self._clients: dict[tuple[str, int], redis.asyncio.Redis] = {}

    def _addresses(self) -> list[tuple[str, int]]:
        known = [(node.host, node.port) for node in self._cluster.get_nodes()]
        return [self._first, *sorted(a for a in set(known) if a != self._first)]

    def pubsub(self, **options: Any) -> Any:
        addresses = self._addresses()
        address = addresses[self._turn % len(addresses)]
        self._turn += 1
        client = self._clients.get(address)
        if client is None:
            client = self._clients[address] = redis.asyncio.Redis(
                host=address[0], port=address[1], **self._connection
            )
        return client.pubsub(**options)

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()
