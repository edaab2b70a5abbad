"""Event-store figures against bare Redis commands on the same server, in the same run.

  * appends/s of RedisEventStore.append (1 event + a 2 KB snapshot per append, the Lua script)
    with 1 and with 32 concurrent writers (each its own match and connection), next to bare
    XADDs of the same payload at the same concurrency;
  * the same with the gateway's asyncio store (`AsyncRedisEventStore`, hiredis, one event loop,
    N concurrent coroutines, the head chained as the gateway does) next to bare XADDs through
    the same asyncio client at the same concurrency: what the gateway's hot path pays;
  * read + decode of a 1,000-event match next to a bare XRANGE of the same stream;
  * the cost of acknowledging only replicated appends (issue 24): the gateway's store on a local
    Redis Cluster (3 primaries, one replica each, AOF always) with REDIS_WAIT_REPLICAS=1 next to
    the same without the wait: appends/s and p50/p99 per append at 1 and 32 coroutines.

Redis runs as in production: AOF with `appendfsync always`.
Usage: python -m benchmarks.bench_eventstore [--seconds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import threading
import time
from collections.abc import Callable

import redis

from benchmarks.report import Figure, Report, percentiles
from devstack.redis import redis_server_process
from gateway.eventstore.async_redis import DUPLICATE, OK, AsyncRedisEventStore, connection_class_for
from gateway.eventstore.base import GENESIS, EventStoreUnavailable, MatchKey, NewEvent
from gateway.eventstore.redis_store import RedisEventStore

EVENT_PAYLOAD = (
    b'{"type":"card_played","player":2,"card":"church:3","building":1,'
    b'"drawn":["magic:3","royalty:1"],"rats":[10,11,9,12],"round":4}'
)
SNAPSHOT = b"s" * 2048
READ_LENGTH = 1000
SECTION = "event store"


def concurrent_rate(
    make_operation: Callable[[int], Callable[[int], object]], writers: int, seconds: float
) -> float:
    """Total calls/s of `writers` threads, thread w running make_operation(w)(i) for i = 0, 1, ..."""
    counts = [0] * writers
    stop = time.perf_counter() + seconds

    def work(w: int) -> None:
        operation = make_operation(w)
        i = 0
        while time.perf_counter() < stop:
            operation(i)
            i += 1
        counts[w] = i

    threads = [threading.Thread(target=work, args=(w,)) for w in range(writers)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.perf_counter() - started)


async def _async_rates(url: str, writers: int, seconds: float) -> tuple[float, float]:
    """(appends/s, bare XADDs/s) of `writers` coroutines on one event loop, as in the gateway."""
    import redis.asyncio

    # The gateway's connections (hiredis packs commands), for the append and the bare XADD alike.
    client = redis.asyncio.Redis.from_url(
        url, max_connections=max(writers, 1) + 4, connection_class=connection_class_for(url)
    )
    store = AsyncRedisEventStore(client)
    event = NewEvent("card_played", EVENT_PAYLOAD)
    snapshot: dict[str, str | bytes] = {"rules_version": "bench", "state": SNAPSHOT}

    async def timed(work: Callable[[int], object]) -> float:
        counts = [0] * writers
        stop = time.perf_counter() + seconds

        async def writer(w: int) -> None:
            while time.perf_counter() < stop:
                await work(w)  # type: ignore[misc]
                counts[w] += 1

        started = time.perf_counter()
        await asyncio.gather(*(writer(w) for w in range(writers)))
        return sum(counts) / (time.perf_counter() - started)

    heads = {w: (0, GENESIS) for w in range(writers)}
    run_id = time.monotonic_ns()

    async def append(w: int) -> None:
        version, head = heads[w]
        key = MatchKey("bench", f"async-{run_id}-{writers}-{w}")
        outcome = await store.append(
            key, version, head, [event], actor="seat:0", command_id=f"c{version}",
            rules_version="bench", time_ms=0, snapshot=snapshot,
        )  # fmt: skip
        assert outcome.status == OK, outcome
        heads[w] = (outcome.last, outcome.hashes[-1])

    async def bare(w: int) -> None:
        await client.xadd(f"bench:abare:{run_id}:{w}", {"payload": EVENT_PAYLOAD})

    try:
        return await timed(append), await timed(bare)
    finally:
        await client.aclose()


def _with_server_cost(
    client: redis.Redis,
    command: str,
    work: Callable[[int], Callable[[int], object]],
    writers: int,
    seconds: float,
) -> tuple[float, tuple[float, float]]:
    """`concurrent_rate(work, ...)`, and what Redis spent per `command` call meanwhile: CPU (µs,
    from INFO commandstats; a script's own commands are counted inside it) and AOF bytes written."""
    client.config_resetstat()
    aof_before = int(client.info("persistence")["aof_current_size"])
    result = concurrent_rate(work, writers, seconds)
    stats = client.info("commandstats").get(f"cmdstat_{command}", {})
    calls = max(int(stats.get("calls", 0)), 1)
    aof_bytes = int(client.info("persistence")["aof_current_size"]) - aof_before
    return result, (float(stats.get("usec_per_call", 0.0)), aof_bytes / calls)


def run(report: Report, url: str, seconds: float) -> None:
    event = NewEvent("card_played", EVENT_PAYLOAD)
    pool = redis.ConnectionPool.from_url(url, max_connections=64)
    client = redis.Redis(connection_pool=pool)
    client.flushdb()
    store = RedisEventStore(client)
    for writers in (1, 32):

        def bare(w: int) -> Callable[[int], object]:
            return lambda i: client.xadd(f"bench:bare:{w}", {"payload": EVENT_PAYLOAD})

        def append(w: int, writers: int = writers) -> Callable[[int], object]:
            key = MatchKey("bench", f"w{writers}-{w}")
            return lambda i: store.append(
                key, i, [event], actor="seat:0", command_id=f"c{i}", rules_version="bench", snapshot=SNAPSHOT
            )

        xadd, xadd_cost = _with_server_cost(client, "xadd", bare, writers, seconds)
        appended, append_cost = _with_server_cost(client, "evalsha", append, writers, seconds)
        label = f"{writers} writer{'s' * (writers > 1)}"
        note = "1 event + 2 KB snapshot, Lua, AOF always"
        report.add(
            Figure(SECTION, f"append, {label}", appended, "appends/s", f"bare XADD, {label}", xadd, note)
        )
        if writers == 1:  # why an append costs more than a bare XADD, as Redis itself counts it
            for (what, unit), (append_value, xadd_value) in zip(
                (("Redis CPU per call", "µs"), ("AOF bytes written per call", "bytes")),
                zip(append_cost, xadd_cost, strict=True),
                strict=True,
            ):
                report.add(
                    Figure(SECTION, f"{what}: append script", append_value, unit, "bare XADD", xadd_value,
                           "INFO commandstats and aof_current_size over the 1-writer runs")
                )  # fmt: skip
    for writers in (1, 32):
        appended, xadd = asyncio.run(_async_rates(url, writers, seconds))
        label = f"{writers} coroutine{'s' * (writers > 1)}"
        report.add(
            Figure(SECTION, f"async append (gateway's store), {label}", appended, "appends/s",
                   f"bare async XADD, {label}", xadd, "1 event + 2 KB snapshot, Lua, AOF always")
        )  # fmt: skip
    key = MatchKey("bench", "read")
    for i in range(READ_LENGTH):
        store.append(key, i, [event], actor="seat:0", command_id=f"r{i}", rules_version="bench")
    reads = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        store.read(key)
        reads += 1
    read_s = (time.perf_counter() - t0) / reads
    bare_reads = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        client.xrange("gh:{bench:read}:events")
        bare_reads += 1
    bare_s = (time.perf_counter() - t0) / bare_reads
    report.add(
        Figure(
            SECTION, f"read + decode of {READ_LENGTH} events", read_s * 1e3, "ms", "bare XRANGE", bare_s * 1e3
        )
    )
    report.add(Figure(SECTION, "read + decode throughput", READ_LENGTH / read_s, "events/s"))
    client.close()


async def _cluster_appends(url: str, wait: int, writers: int, seconds: float) -> tuple[float, list[float]]:
    """(appends/s, latencies in s) of the gateway's store on a cluster client, `wait` replicas."""
    import redis.asyncio.cluster

    client = redis.asyncio.cluster.RedisCluster.from_url(url)
    store = AsyncRedisEventStore(client, wait_replicas=wait, wait_timeout_ms=1000)
    event = NewEvent("card_played", EVENT_PAYLOAD)
    snapshot: dict[str, str | bytes] = {"rules_version": "bench", "state": SNAPSHOT}
    run_id = time.monotonic_ns()
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    retries = 0

    async def writer(w: int) -> None:
        nonlocal retries
        version, head = 0, GENESIS
        key = MatchKey("bench", f"cluster-{run_id}-{wait}-{w}")
        while time.perf_counter() < stop:
            started = time.perf_counter()
            try:
                outcome = await store.append(
                    key, version, head, [event], actor="seat:0", command_id=f"c{version}",
                    rules_version="bench", time_ms=0, snapshot=snapshot,
                )  # fmt: skip
            except EventStoreUnavailable:  # retried with the same command id, as the gateway's client does
                retries += 1
                continue
            latencies.append(time.perf_counter() - started)
            assert outcome.status in (OK, DUPLICATE), outcome
            version, head = outcome.last, outcome.hashes[-1] if outcome.hashes else head

    await store.head(MatchKey("bench", "warm-up"))  # the client learns the slots before the load
    started = time.perf_counter()
    try:
        await asyncio.gather(*(writer(w) for w in range(writers)))
    finally:
        await store.aclose()
        await client.aclose()
    if retries:
        print(f"      cluster appends retried after UNAVAILABLE: {retries}", flush=True)
    return len(latencies) / (time.perf_counter() - started), latencies


def run_cluster_wait(report: Report, seconds: float) -> None:
    """Appends with and without REDIS_WAIT_REPLICAS=1 on one local cluster, same run."""
    from devstack.cluster import redis_cluster

    with redis_cluster(3, replicas_per_primary=1, appendonly=True) as cluster:
        for writers in (1, 32):
            rate_0, latencies_0 = asyncio.run(_cluster_appends(cluster.url, 0, writers, seconds))
            rate_1, latencies_1 = asyncio.run(_cluster_appends(cluster.url, 1, writers, seconds))
            label = f"{writers} coroutine{'s' * (writers > 1)}"
            note = "cluster 3x(1+1), AOF always; a replica holds every acknowledged append"
            report.add(
                Figure(SECTION, f"cluster append with WAIT 1, {label}", rate_1, "appends/s",
                       "without the wait", rate_0, note)
            )  # fmt: skip
            quantiles = zip(("p50", "p99"), percentiles(latencies_1), percentiles(latencies_0), strict=True)
            for name, waited, plain in quantiles:
                report.add(
                    Figure(SECTION, f"cluster append {name} with WAIT 1, {label}", 1e3 * waited, "ms",
                           "without the wait", 1e3 * plain, note)
                )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of each measurement")
    args = parser.parse_args()
    report = Report(quick=False)
    with redis_server_process(appendonly=True) as url:
        run(report, url, args.seconds)


if __name__ == "__main__":
    main()
