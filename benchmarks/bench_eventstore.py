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
    the same without the wait: appends/s and p50/p99 per append at 1 and 32 coroutines;
  * what an append costs Redis (issue 25 item 4), same run: Redis's own CPU per call (INFO
    commandstats) and AOF bytes per append of the format-1 script as it was (kept here only as
    the baseline), of today's script with a snapshot every K versions, and of a bare XADD of the
    event; and Redis bytes per stored event of real matches (Rattus Cartus bot playouts through
    the gateway's use cases), as stored now and rewritten as format 1.

Redis runs as in production: AOF with `appendfsync always`.
Usage: python -m benchmarks.bench_eventstore [--seconds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, cast

import redis

from benchmarks.report import Figure, Report, percentiles
from devstack.redis import redis_server_process
from gateway.domain.receipts import Receipt, encode_receipt, receipt_message
from gateway.eventstore.async_redis import (
    DUPLICATE,
    OK,
    AsyncRedisEventStore,
    connection_class_for,
    entry_hashes,
)
from gateway.eventstore.base import GENESIS, EventStoreUnavailable, MatchKey, NewEvent, chain_hash
from gateway.eventstore.entries import decode_entries, fields_of
from gateway.eventstore.redis_store import RedisEventStore, append_args, match_keys, notify_prefix
from gateway.signing import KeyRing

EVENT_PAYLOAD = (
    b'{"type":"card_played","player":2,"card":"church:3","building":1,'
    b'"drawn":["magic:3","royalty:1"],"rats":[10,11,9,12],"round":4}'
)
SNAPSHOT = b"s" * 2048
READ_LENGTH = 1000
SECTION = "event store"
COST = "event store: append cost"
_BENCH_KEYS = KeyRing.generate("bench-receipts")


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

        xadd = concurrent_rate(bare, writers, seconds)
        appended = concurrent_rate(append, writers, seconds)
        label = f"{writers} writer{'s' * (writers > 1)}"
        note = "1 event + 2 KB snapshot, Lua, AOF always"
        report.add(
            Figure(SECTION, f"append, {label}", appended, "appends/s", f"bare XADD, {label}", xadd, note)
        )
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
    append_cost(report, client, COST_APPENDS // 4 if seconds < 1 else COST_APPENDS)
    client.close()
    memory_per_event(report, url, count=1 if seconds < 1 else 4)


# -- what an append costs Redis (issue 25 item 4) ---------------------------------------------------

# The baseline only: the append script as it was before issue 25 item 4 (entry format 1, nine
# named fields, every write made by the script; gateway/eventstore/redis_store.py has today's).
_FORMAT_1_SCRIPT = """
-- KEYS: events, meta, snapshot, commands
-- ARGV: expected_version, expected_head, new_head, command_id, actor, notify,
--       snapshot_pair_count, meta_pair_count, event_count,
--       then meta field/value pairs,
--       then per event: its extra field count, the values of ENTRY_FIELDS in order, then the
--       extra field/value pairs (action, receipt),
--       then snapshot field/value pairs (last: the state is the largest argument, and
--       redis-py copies what precedes each argument while packing a command)
local FIELDS = {'version', 'type', 'actor', 'command_id', 'payload', 'rules_version', 'time_ms',
                'prev_hash', 'hash'}
local expected_version = tonumber(ARGV[1])
local expected_head = ARGV[2]
local new_head = ARGV[3]
local command_id = ARGV[4]
local actor = ARGV[5]
local notify = ARGV[6]
local snapshot_pair_count = tonumber(ARGV[7])
local meta_pair_count = tonumber(ARGV[8])
local event_count = tonumber(ARGV[9])
local meta_start = 10
local events_start = meta_start + 2 * meta_pair_count
local snapshot_start = #ARGV - 2 * snapshot_pair_count + 1

-- A command id seen before answers with its first result, whatever the version is now, but
-- only to the actor that used it: command ids are scoped to match and actor.
local seen = redis.call('HGET', KEYS[4], command_id)
if seen then
  local a = string.find(seen, ':', 1, true)
  local b = string.find(seen, ':', a + 1, true)
  local first = tonumber(string.sub(seen, 1, a - 1))
  if b == nil then  -- written before commands were scoped: "first:last"
    return {'duplicate', first, tonumber(string.sub(seen, a + 1))}
  end
  local last = tonumber(string.sub(seen, a + 1, b - 1))
  if string.sub(seen, b + 1) ~= actor then
    return {'taken', first, last}
  end
  return {'duplicate', first, last}
end

local stored = redis.call('HMGET', KEYS[2], 'version', 'head_hash')
local version = tonumber(stored[1]) or 0
local head_hash = stored[2] or string.rep('0', 64)  -- GENESIS before the first append
if version ~= expected_version or head_hash ~= expected_head then
  return {'conflict', version, 0}
end

local arg = events_start
for i = 1, event_count do
  local extra_count = tonumber(ARGV[arg])
  local entry = {}
  for f = 1, #FIELDS do
    entry[2 * f - 1] = FIELDS[f]
    entry[2 * f] = ARGV[arg + f]
  end
  arg = arg + 1 + #FIELDS
  for e = 1, 2 * extra_count do
    entry[2 * #FIELDS + e] = ARGV[arg + e - 1]
  end
  arg = arg + 2 * extra_count
  redis.call('XADD', KEYS[1], (expected_version + i) .. '-0', unpack(entry))
end

local first_version = expected_version + 1
local last_version = expected_version + event_count
if meta_pair_count > 0 then
  redis.call('HSET', KEYS[2], unpack(ARGV, meta_start, events_start - 1))
end
redis.call('HSET', KEYS[2], 'version', last_version, 'head_hash', new_head)
redis.call('HSET', KEYS[4], command_id, first_version .. ':' .. last_version .. ':' .. actor)
if snapshot_pair_count > 0 then
  redis.call('HSET', KEYS[3], 'version', last_version, unpack(ARGV, snapshot_start, #ARGV))
end
if notify ~= '' then
  -- Watchers on every replica learn of the append from one channel, atomically with it.
  redis.call('PUBLISH', 'gh:notify', notify .. string.char(31) .. last_version)
end
return {'ok', first_version, last_version}
"""
COST_APPENDS = 1600  # appends per variant: a multiple of every K measured
# What the gateway stores beside the chain: a seat's action, its receipt (an Ed25519 signature).
ACTION = b'{"type":"play_card","card":"church:3","building":1}'


def _format_1_args(
    key: MatchKey,
    expected_version: int,
    chain_from: str,
    event: NewEvent,
    command_id: str,
    extra: dict[str, bytes],
    snapshot: bytes | None,
) -> tuple[list[str | bytes | int], str]:
    """ARGV of the format-1 script for one event, as redis_store.append_args built it then."""
    version = expected_version + 1
    entry_hash = chain_hash(chain_from, version, event.type, "seat:0", command_id, "bench", 0, event.payload)
    entry: list[str | bytes | int] = [len(extra), version, event.type, "seat:0", command_id]
    entry += [event.payload, "bench", 0, chain_from, entry_hash]
    for name, blob in extra.items():
        entry += (name, blob)
    snap: list[str | bytes] = ["rules_version", "bench", "state", snapshot] if snapshot is not None else []
    args: list[str | bytes | int] = [expected_version, chain_from, entry_hash, command_id, "seat:0"]
    args += [notify_prefix(key), len(snap) // 2, 0, 1, *entry, *snap]
    return args, entry_hash


def _receipt(key: MatchKey, version: int, head: str) -> bytes:
    key_id, signature = _BENCH_KEYS.sign(receipt_message(key.tenant, key.match_id, version, head))
    return encode_receipt(Receipt(key_id, version, head, signature))


def _redis_cpu_s(client: redis.Redis) -> float:
    cpu = client.info("cpu")
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def _redis_cost(
    client: redis.Redis, command: str, calls: int, work: Callable[[int], object], rounds: int = 5
) -> tuple[float, float, float]:
    """What Redis spends per call of `work(i)`, i = 0..calls-1, one after another, in `rounds`
    slices: µs inside `command` (INFO commandstats: wall time, a script's commands included), µs
    of the process's CPU (INFO cpu: the call, its reply, the AOF write and fsync, immune to
    preemption by other work on a shared host), each the least slice's; and AOF bytes written."""
    per_round = calls // rounds
    inside, process, aof_bytes = [], [], 0
    for start in range(0, per_round * rounds, per_round):
        client.config_resetstat()
        aof_before = int(client.info("persistence")["aof_current_size"])
        cpu_before = _redis_cpu_s(client)
        for i in range(start, start + per_round):
            work(i)
        cpu_after = _redis_cpu_s(client)
        stats = client.info("commandstats").get(f"cmdstat_{command}", {})
        aof_bytes += int(client.info("persistence")["aof_current_size"]) - aof_before
        inside.append(float(stats.get("usec", 0.0)) / per_round)
        process.append((cpu_after - cpu_before) * 1e6 / per_round)
    return min(inside), min(process), aof_bytes / (per_round * rounds)


def append_cost(report: Report, client: redis.Redis, appends: int = COST_APPENDS) -> None:
    """Redis CPU and AOF bytes per append against a bare XADD of the event, in the same run: the
    format-1 script as before (its 2 KB snapshot with every append, and without), today's
    script with a snapshot every K versions (K = 1, 16; amortised over K appends), each with the
    event alone (the issue's measure) and as the gateway appends (+ action + receipt)."""
    run_id = time.monotonic_ns()
    # An AOF rewrite in the middle would shrink the file under a measurement: none meanwhile.
    client.config_set("auto-aof-rewrite-percentage", 0)
    event = NewEvent("card_played", EVENT_PAYLOAD)
    old_script = client.register_script(_FORMAT_1_SCRIPT)
    store = RedisEventStore(client)

    def bare(i: int) -> object:
        return client.xadd(f"bench:cost-bare:{run_id}", {"payload": EVENT_PAYLOAD}, id=f"{i + 1}-0")

    def format_1(label: str, every: int | None, gateway: bool) -> Callable[[int], object]:
        key = MatchKey("bench", f"cost-f1-{label}-{run_id}")
        head = [GENESIS]

        def work(i: int) -> object:
            extra = {"action": ACTION, "receipt": b""} if gateway else {}
            snapshot = SNAPSHOT if every is not None and (i + 1) % every == 0 else None
            args, new_head = _format_1_args(key, i, head[0], event, f"c{i}", extra, snapshot)
            if gateway:  # the receipt signs the new head: rebuild the arguments with it
                extra["receipt"] = _receipt(key, i + 1, new_head)
                args, new_head = _format_1_args(key, i, head[0], event, f"c{i}", extra, snapshot)
            head[0] = new_head
            return old_script(keys=list(match_keys(key)), args=args)

        return work

    def format_2(label: str, every: int | None, gateway: bool) -> Callable[[int], object]:
        key = MatchKey("bench", f"cost-f2-{label}-{run_id}")
        head = [GENESIS]

        def work(i: int) -> object:
            [entry_hash] = entry_hashes(head[0], i, [event], "seat:0", f"c{i}", "bench", 0)
            extra = [{"action": ACTION, "receipt": _receipt(key, i + 1, entry_hash)}] if gateway else []
            snapshot: dict[str, str | bytes] | None = None
            if every is not None and (i + 1) % every == 0:
                snapshot = {"rules_version": "bench", "state": SNAPSHOT}
            args, _ = append_args(
                key, i, head[0], [event], "seat:0", f"c{i}", "bench", 0, snapshot, None,
                extra=extra, hashes=[entry_hash],
            )  # fmt: skip
            head[0] = entry_hash
            return store._append_script(keys=list(match_keys(key)), args=args)

        return work

    xadd_us, xadd_cpu, xadd_aof = _redis_cost(client, "xadd", appends, bare)
    note = f"one writer, {appends} calls each, AOF always; least of 5 slices"
    report.add(Figure(COST, "bare XADD of the event: Redis µs inside the command", xadd_us, "µs", note=note))
    report.add(Figure(COST, "bare XADD of the event: Redis process CPU per call", xadd_cpu, "µs", note=note))
    report.add(Figure(COST, "bare XADD of the event: AOF bytes per call", xadd_aof, "bytes", note=note))
    variants: list[tuple[str, Callable[[int], object]]] = [
        ("format 1 (before), 2 KB snapshot every append", format_1("k1", 1, False)),
        ("format 1 (before), no snapshot", format_1("k0", None, False)),
        ("format 2 (now), snapshot every append (K=1)", format_2("k1", 1, False)),
        ("format 2 (now), snapshot every 16 (K=16, amortised)", format_2("k16", 16, False)),
        ("format 2 (now), no snapshot (15 of 16 appends)", format_2("k0", None, False)),
        ("as the gateway appends (+ action, receipt): format 1, K=1", format_1("gk1", 1, True)),
        ("as the gateway appends (+ action, receipt): format 2, K=16", format_2("gk16", 16, True)),
    ]
    for label, work in variants:
        usec, cpu, aof = _redis_cost(client, "evalsha", appends, work)
        report.add(Figure(COST, f"append {label}: µs inside EVALSHA", usec, "µs", "bare XADD", xadd_us))
        report.add(Figure(COST, f"append {label}: Redis process CPU", cpu, "µs", "bare XADD", xadd_cpu))
        report.add(Figure(COST, f"append {label}: AOF bytes", aof, "bytes", "bare XADD", xadd_aof))


def _memory_of_matches(client: redis.Redis, keys: list[MatchKey]) -> dict[str, int]:
    """MEMORY USAGE (every element counted) of the matches' keys, by kind."""
    totals = dict.fromkeys(("events", "meta", "snapshot", "commands"), 0)
    for key in keys:
        for kind, name in zip(totals, match_keys(key), strict=True):
            totals[kind] += int(client.memory_usage(name, samples=0) or 0)
    return totals


async def _play_matches(url: str, target: str, game: str, players: int, count: int) -> list[MatchKey]:
    """`count` seeded random playouts of `game` through the gateway's use cases (GameMatches)."""
    import random

    import redis.asyncio

    from gateway.rules_client import AsyncRulesClient
    from gateway.signing import KeyRing
    from gateway.usecases import GameMatches

    client = redis.asyncio.Redis.from_url(url)
    rules = AsyncRulesClient(game, target)
    matches = GameMatches(client, {game: rules}, KeyRing.generate("bench-memory"))
    keys = []
    try:
        for number in range(count):
            bots = random.Random(number)
            created = await matches.create("bench", game, [f"p{i}" for i in range(players)], seed=bytes(32))
            key = created.key
            for _turn in range(5000):
                spectator = await matches.get_view(key, None)
                if spectator.finished:
                    break
                seat = bots.choice(spectator.active_seats)
                view = await matches.get_view(key, seat, min_version=spectator.version)
                action = bots.choice(view.legal_actions)
                outcome = await matches.submit(
                    key, seat, action, command_id=uuid.UUID(int=bots.getrandbits(128)).hex
                )
                assert outcome.accepted, outcome.rejection
            keys.append(key)
    finally:
        await rules.close()
        await client.aclose()
    return keys


def memory_per_event(
    report: Report, url: str, game: str = "rattus_cartus", players: int = 2, count: int = 4
) -> None:
    """Redis bytes per stored event of real matches (seeded bot playouts through GameMatches,
    the gateway's default SNAPSHOT_EVERY), as stored now (format 2) and the same matches
    rewritten as format 1 (as stored before), same run: MEMORY USAGE of every key of each
    match, and INFO used_memory before and after."""
    from services.registry import GAMES
    from services.server import build_server

    client = redis.Redis.from_url(url)
    server, port, _ = build_server(GAMES[game])
    server.start()
    try:
        before = int(client.info("memory")["used_memory"])
        keys = asyncio.run(_play_matches(url, f"127.0.0.1:{port}", game, players, count))
        now = _memory_of_matches(client, keys)
        used_now = int(client.info("memory")["used_memory"]) - before
        events = sum(int(client.xlen(match_keys(key).events)) for key in keys)
        for key in keys:  # the same entries as format 1 wrote them (values, field names, hex hashes)
            events_key = match_keys(key).events
            stored = decode_entries(cast(Any, client.xrange(events_key)))
            client.delete(events_key)
            for event in stored:
                client.xadd(events_key, cast(Any, fields_of(event, format=1)), id=f"{event.version}-0")
        was = _memory_of_matches(client, keys)
        used_was = int(client.info("memory")["used_memory"]) - before
    finally:
        server.stop(None)
        client.close()
    note = f"{count} {game} {players}p seeded bot matches, {events} events; MEMORY USAGE SAMPLES 0"
    report.add(
        Figure(COST, "Redis bytes per stored event, every key of the match", sum(now.values()) / events,
               "bytes", "format 1 (before)", sum(was.values()) / events, note)
    )  # fmt: skip
    for kind in now:
        report.add(
            Figure(COST, f"Redis bytes per stored event: {kind}", now[kind] / events, "bytes",
                   "format 1 (before)", was[kind] / events, note)
        )  # fmt: skip
    report.add(
        Figure(COST, "Redis used_memory per stored event", used_now / events, "bytes",
               "format 1 (before)", used_was / events, "INFO used_memory delta over the matches' play")
    )  # fmt: skip


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
    parser.add_argument("--cost-only", action="store_true", help="only the append-cost and memory figures")
    args = parser.parse_args()
    report = Report(quick=False)
    with redis_server_process(appendonly=True) as url:
        if args.cost_only:
            client = redis.Redis.from_url(url)
            append_cost(report, client)
            client.close()
            memory_per_event(report, url)
        else:
            run(report, url, args.seconds)


if __name__ == "__main__":
    main()
