"""How every server process (gateway, rules services) runs: its event loop and its garbage collector.

Both choices were measured under the whole-path benchmark (docs/performance.md, "Round 3: the
servers' runtime"):

- The event loop is uvloop when it is installed (a dependency on Linux): grpc.aio runs on any
  asyncio loop, and uvloop's cheaper callbacks and sockets cut the gateway's CPU per accepted
  action by 8 to 11% in interleaved runs.
- The garbage collector. CPython's default thresholds (700, 10, 10) promote a busy server's
  short-lived coroutines, futures and contexts into the old generation, so full collections
  come every few seconds and walk the whole heap: 75 to 190 ms pauses were measured in the
  gateway with 250 to 500 paced matches, and every call in flight waits them out (they set the
  p99). After start-up, the objects that live for the whole process (modules, classes,
  functions, compiled protobuf descriptors) are frozen out of collection (`gc.freeze`), and
  the young generation's threshold is raised so that what dies within a request dies young
  (no full collection in 40 s at 250 paced matches, middle-generation pauses 11 to 22 ms);
  cycles are still collected, only less often.
- In the servers, collections come on a clock, not from allocation counts, and what survives
  is frozen (round 7, docs/performance.md "Round 7: the collector"). At 1,000 paced matches the
  gateway holds some 250,000 long-lived objects (two thousand Play streams' tasks, coroutines
  and gRPC call state). The counted collector walked them every few seconds (middle-generation
  pauses of 40 to 50 ms) and the whole heap every 10 to 20 s (230 to 400 ms): they set the
  p99, 72 to 130 ms against the 50 ms target (19 ms with the collector off). The young count
  is no better a clock: it is allocations less deallocations, so old objects dying as new ones
  replace them hold it down while the young generation grows (100,000 to 200,000 objects,
  pauses of 50 to 130 ms, once the older generations were off the count). And what all those
  collections found was next to nothing: what a request leaves in cycles dies young, and a
  closed stream is freed by reference counts (0 objects in cycles after 600 streams closed).
  So the young generation is collected every YOUNG_EVERY_S (its count, set too high to be
  reached between two ticks, stays as a backstop) and what survives a young collection is frozen
  at once: no collection walks it again until the full pass, which every
  `GUILDHALL_GC_OLD_EVERY_S` seconds (hourly by default) unfreezes everything, collects and
  freezes again, to reclaim the rare cycle that died after its first quarter-second (1 to 3
  objects a second at 1,000 paced matches), and sooner if the heap has doubled since the last
  one, ten minutes after it at the soonest (GROWTH_FACTOR, GROWTH_WAIT_S): a flood of refused
  calls leaves more. An earlier form of this, a pass every 60 s over what came since the last
  one, still paused the gateway 90 ms a minute (its objects: requests alive across a tick, that
  die by reference counts soon after) and 265 ms once after a burst of 2,000 new Play streams,
  which missed a `make bench` ladder's rung.

- gRPC's I/O (issue 45, docs/performance.md "Round 7: gRPC's own I/O"): gRPC core 1.85 reads and
  writes a connection on its EventEngine's threads by default, and hands every completion to the
  Python thread that polls the completion queue. With its experiments `event_engine_client`,
  `event_engine_listener` and `event_engine_for_all_other_endpoints` off, that polling thread does
  the reads itself (the I/O manager gRPC used before): in interleaved runs the gateway's CPU per
  accepted action fell by 6 to 9% at 8, 32 and 128 busy matches, and throughput at 8 and 32 rose
  by 7 to 9%.
  gRPC reads GRPC_EXPERIMENTS once, when it is imported, so the servers' entry points call
  `choose_grpc_io` before anything imports it; an operator's own GRPC_EXPERIMENTS is left alone.

`GUILDHALL_EVENT_LOOP=asyncio`, `GUILDHALL_GC=stock` and `GUILDHALL_GRPC_IO=event_engine` restore
the defaults (the benchmark runs them beside the tuned runtime to show what each choice is worth).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import sys
from collections.abc import AsyncIterator, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

EVENT_LOOP_ENV = "GUILDHALL_EVENT_LOOP"  # "uvloop" (the default when installed) or "asyncio"
GC_ENV = "GUILDHALL_GC"  # "tuned" (the default) or "stock"
GRPC_IO_ENV = "GUILDHALL_GRPC_IO"  # "iomgr" (the default) or "event_engine" (gRPC's own default)
GRPC_EXPERIMENTS_ENV = "GRPC_EXPERIMENTS"  # gRPC core's switches, read when grpc is imported
# What "iomgr" turns off: each connection's reads and writes on EventEngine threads.
IOMGR_EXPERIMENTS = "-event_engine_client,-event_engine_listener,-event_engine_for_all_other_endpoints"
OLD_EVERY_ENV = "GUILDHALL_GC_OLD_EVERY_S"  # seconds between full passes (the frozen objects too)
# A full pass walks the whole heap: some 300 ms in the gateway at 1,000 paced matches, in which
# every call waits. Hourly, it reclaims what died in cycles since (1 to 3 objects a second).
DEFAULT_OLD_EVERY_S = 3600.0
# Young-generation threshold where collections are counted (a benchmark process; the servers
# collect on the clock): net container allocations between young collections. CPython's
# 700 promotes a request's temporaries that are still alive across an await; at 3,000 most die
# young. Higher is not better: the middle generation holds up to 10 young batches, and at 10,000
# its collections paused the gateway 60 to 75 ms (at 3,000: 11 to 22 ms, 250 paced matches).
YOUNG_THRESHOLD = 3_000
# The servers' collections on the clock (`run`): the young generation every YOUNG_EVERY_S, what
# survives frozen; the count that would start one between two ticks is a backstop for a loop held
# up by a long call; the middle and old generations never reach theirs.
YOUNG_EVERY_S = 0.25
YOUNG_BACKSTOP = 50_000
NEVER_BY_COUNT = 1 << 30
# A full pass also comes when the heap has doubled since the last one (in blocks of Python's
# small-object allocator, a count read in 0.1 ms; counting the frozen objects takes 30-50 ms at
# 1,000 paced matches), but not within GROWTH_WAIT_S of the last: what a call in flight at a
# tick leaves in cycles when it ends stays frozen until a full pass (under a flood of 3,600
# refused calls a second, the frozen objects grew by 280 a second and the process by 2 MB a
# minute), and this bounds it. The wait keeps a heap that grows as a server fills up (new
# matches, caches) from paying a full pass every time it doubles: at once, one fell inside a
# paced benchmark's window (285 ms).
GROWTH_FACTOR = 2
GROWTH_WAIT_S = 600.0


class RuntimeSettingError(ValueError):
    """GUILDHALL_EVENT_LOOP, GUILDHALL_GC, GUILDHALL_GC_OLD_EVERY_S or GUILDHALL_GRPC_IO has a
    value this module does not know."""


def _choice(variable: str, default: str, other: str) -> str:
    """One of a setting's two values (any case; unset: `default`), else RuntimeSettingError."""
    wanted = os.environ.get(variable, default).strip().lower()
    if wanted not in (default, other):
        raise RuntimeSettingError(f"{variable} must be '{default}' or '{other}', not {wanted!r}")
    return wanted


def event_loop_name() -> str:
    """The loop `run` will use: uvloop unless asked for asyncio or uvloop is not installed."""
    wanted = _choice(EVENT_LOOP_ENV, "uvloop", "asyncio")
    if wanted == "uvloop":
        try:
            import uvloop  # noqa: F401
        except ImportError:
            return "asyncio"
    return wanted


def grpc_io_name() -> str:
    """GUILDHALL_GRPC_IO: "iomgr" (the default) or "event_engine"."""
    return _choice(GRPC_IO_ENV, "iomgr", "event_engine")


def choose_grpc_io() -> None:
    """Turn gRPC's EventEngine I/O off (GUILDHALL_GRPC_IO=iomgr, the default) unless the operator
    set GRPC_EXPERIMENTS. Call it before grpc is imported: gRPC reads the setting once, then.
    A bad GUILDHALL_GRPC_IO changes nothing here; `run` refuses it."""
    try:
        io = grpc_io_name()
    except RuntimeSettingError:
        return
    if io == "iomgr" and GRPC_EXPERIMENTS_ENV not in os.environ:
        os.environ[GRPC_EXPERIMENTS_ENV] = IOMGR_EXPERIMENTS


def old_every_s() -> float:
    """GUILDHALL_GC_OLD_EVERY_S: seconds between full passes, a number > 0."""
    text = os.environ.get(OLD_EVERY_ENV, "").strip()
    if not text:
        return DEFAULT_OLD_EVERY_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise RuntimeSettingError(f"{OLD_EVERY_ENV} must be a number of seconds > 0, not {text!r}")
    return seconds


def tune_gc() -> bool:
    """Freeze what exists now (call it once start-up has imported everything) and raise the young
    threshold; returns False (and changes nothing) when GUILDHALL_GC=stock. The servers then
    collect on the clock (`collections_on_schedule`, in `run`)."""
    if _choice(GC_ENV, "tuned", "stock") == "stock":
        return False
    full_pass()  # what start-up left as garbage goes now, not into the frozen generation
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    return True


def collect_young() -> None:
    """A tick: collect the young generation and freeze what survives it (the tuned servers keep
    nothing in the older generations, so no collection but the full pass walks it again)."""
    gc.collect(0)
    gc.freeze()


def full_pass() -> int:
    """Unfreeze everything, collect it all and freeze what survives. Returns the number of
    unreachable objects found."""
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    return found


def _grown(blocks_after_last_pass: int) -> bool:
    """Has the heap doubled since the last full pass?"""
    return sys.getallocatedblocks() > GROWTH_FACTOR * blocks_after_last_pass


async def _collect(old_every_s: float) -> None:
    loop = asyncio.get_running_loop()
    tick = min(YOUNG_EVERY_S, old_every_s)
    last_pass = loop.time()
    blocks_after_last_pass = sys.getallocatedblocks()
    while True:
        await asyncio.sleep(tick)
        since = loop.time() - last_pass
        if since < old_every_s and not (since >= GROWTH_WAIT_S and _grown(blocks_after_last_pass)):
            collect_young()
            continue
        full_pass()
        last_pass = loop.time()
        blocks_after_last_pass = sys.getallocatedblocks()


@contextlib.asynccontextmanager
async def collections_on_schedule(old_every_s: float) -> AsyncIterator[None]:
    """While open, on the running loop: the young generation collected every YOUNG_EVERY_S and
    what survives frozen, and a full pass every `old_every_s`, or sooner once the heap has doubled
    (the counts only as a backstop). The thresholds are restored on leaving."""
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG_BACKSTOP, NEVER_BY_COUNT, NEVER_BY_COUNT)
    collector = asyncio.create_task(_collect(old_every_s), name="gc-on-schedule")
    try:
        yield
    finally:
        collector.cancel()
        gc.set_threshold(*thresholds)


async def _collecting_on_schedule(main: Coroutine[Any, Any, T], old_every_s: float) -> T:
    async with collections_on_schedule(old_every_s):
        return await main


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` on the chosen loop, with the collector tuned first and collecting on
    the clock. A bad setting raises RuntimeSettingError before anything runs (and closes `main`,
    never awaited)."""
    try:
        loop = event_loop_name()
        grpc_io_name()  # chosen before grpc was imported (choose_grpc_io); a bad value stops here
        every_s = old_every_s()
        if tune_gc():
            main = _collecting_on_schedule(main, every_s)
    except RuntimeSettingError:
        main.close()
        raise
    if loop == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)
