"""Event-store throughput against bare Redis on the same server.

    python benchmarks/bench_eventstore.py [--seconds 3]

Measures, single-threaded over one connection:
  * appends/s of RedisEventStore.append (1 event per append, ~2 KB snapshot) vs bare XADD of the
    same event payload;
  * read of a 1000-event stream via RedisEventStore.read vs a bare XRANGE of the same stream.
Each measurement runs for a fixed time, so the whole run stays well under 30 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from gateway.eventstore.base import MatchKey, NewEvent  # noqa: E402
from gateway.eventstore.local_redis import local_redis  # noqa: E402
from gateway.eventstore.redis_store import RedisEventStore  # noqa: E402

EVENT_PAYLOAD = (
    b'{"type":"card_played","player":"alice","card":"rattus_queen","region":"hamburg",'
    b'"drawn":[12,7,33],"rats_moved":[["hamburg","berlin"],["berlin","wien"]],"round":4}'
)
SNAPSHOT = b"s" * 2048
READ_STREAM_LENGTH = 1000


def rate(operation: Callable[[int], None], seconds: float) -> float:
    """Calls per second of operation(i), i = 0, 1, 2, ..., run for about `seconds`."""
    calls = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        # Check the clock every 50 calls: cheap, and fine-grained enough for sub-ms operations.
        for _ in range(50):
            operation(calls)
            calls += 1
        now = time.perf_counter()
        if now >= deadline:
            return calls / (now - started)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of each measurement")
    seconds: float = parser.parse_args().seconds

    with local_redis() as url:
        client = redis.Redis.from_url(url)
        client.flushdb()
        store = RedisEventStore(client)
        event = NewEvent("card_played", EVENT_PAYLOAD)

        def bare_xadd(i: int) -> None:
            client.xadd("bench:bare", {"payload": EVENT_PAYLOAD})

        append_match = MatchKey("bench", "append")

        def store_append(i: int) -> None:
            store.append(
                append_match,
                i,
                [event],
                actor="alice",
                command_id=f"c{i}",
                rules_version="bench-1",
                snapshot=SNAPSHOT,
            )

        xadd_rate = rate(bare_xadd, seconds)
        append_rate = rate(store_append, seconds)

        read_match = MatchKey("bench", "read")
        for i in range(READ_STREAM_LENGTH):
            store.append(read_match, i, [event], actor="alice", command_id=f"c{i}", rules_version="bench-1")
        bare_stream = "gh:{bench:read}:events"  # the same entries, read without decoding

        def bare_xrange(i: int) -> None:
            client.xrange(bare_stream)

        def store_read(i: int) -> None:
            store.read(read_match)

        xrange_rate = rate(bare_xrange, seconds)
        read_rate = rate(store_read, seconds)
        client.close()

    print(f"Redis at {url}; event payload {len(EVENT_PAYLOAD)} B, snapshot {len(SNAPSHOT)} B")
    print(f"{'':38}{'ops/s':>10}{'per op':>12}{'vs baseline':>14}")
    rows = [
        ("bare XADD (baseline)", xadd_rate, 1.0),
        ("store.append, 1 event + snapshot", append_rate, append_rate / xadd_rate),
        (f"bare XRANGE of {READ_STREAM_LENGTH} (baseline)", xrange_rate, 1.0),
        (f"store.read of {READ_STREAM_LENGTH} events", read_rate, read_rate / xrange_rate),
    ]
    for label, ops, ratio in rows:
        print(f"{label:38}{ops:>10,.0f}{1e6 / ops:>9,.0f} us{ratio:>13.2f}x")
    print(f"store.read decodes {read_rate * READ_STREAM_LENGTH:,.0f} events/s")


if __name__ == "__main__":
    main()
