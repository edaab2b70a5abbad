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

`GUILDHALL_EVENT_LOOP=asyncio` and `GUILDHALL_GC=stock` restore the defaults (the benchmark
runs them beside the tuned runtime to show what each choice is worth).
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

EVENT_LOOP_ENV = "GUILDHALL_EVENT_LOOP"  # "uvloop" (the default when installed) or "asyncio"
GC_ENV = "GUILDHALL_GC"  # "tuned" (the default) or "stock"
# Young-generation threshold: net container allocations between young collections. CPython's
# 700 promotes a request's temporaries that are still alive across an await; at 3,000 most die
# young. Higher is not better: the middle generation holds up to 10 young batches, and at 10,000
# its collections paused the gateway 60 to 75 ms (at 3,000: 11 to 22 ms, 250 paced matches).
YOUNG_THRESHOLD = 3_000


class RuntimeSettingError(ValueError):
    """GUILDHALL_EVENT_LOOP or GUILDHALL_GC has a value this module does not know."""


def event_loop_name() -> str:
    """The loop `run` will use: uvloop unless asked for asyncio or uvloop is not installed."""
    wanted = os.environ.get(EVENT_LOOP_ENV, "uvloop").strip().lower()
    if wanted not in ("uvloop", "asyncio"):
        raise RuntimeSettingError(f"{EVENT_LOOP_ENV} must be 'uvloop' or 'asyncio', not {wanted!r}")
    if wanted == "uvloop":
        try:
            import uvloop  # noqa: F401
        except ImportError:
            return "asyncio"
    return wanted


def tune_gc() -> bool:
    """Freeze what exists now (call it once start-up has imported everything) and raise the young
    threshold; returns False (and changes nothing) when GUILDHALL_GC=stock."""
    mode = os.environ.get(GC_ENV, "tuned").strip().lower()
    if mode not in ("tuned", "stock"):
        raise RuntimeSettingError(f"{GC_ENV} must be 'tuned' or 'stock', not {mode!r}")
    if mode == "stock":
        return False
    gc.collect()  # what start-up left as garbage goes now, not into the frozen generation
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)

    return True


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` on the chosen loop, with the collector tuned first. A bad setting
    raises RuntimeSettingError before anything runs (and closes `main`, never awaited)."""
    try:
        loop = event_loop_name()
        tune_gc()
    except RuntimeSettingError:
        main.close()
        raise
    if loop == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)
