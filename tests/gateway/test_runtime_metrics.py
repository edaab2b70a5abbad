"""The gateway's runtime metrics: garbage-collection pauses and event-loop lag (tail latency's
first suspects, docs/performance.md)."""

from __future__ import annotations

import asyncio
import gc
import time

from prometheus_client import REGISTRY

from gateway import metrics


def _sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_collections_and_a_blocked_loop_are_recorded_and_the_watcher_stops() -> None:
    before_gc = _sample("guildhall_gc_pause_seconds_count", generation="2")
    before_lag = _sample("guildhall_event_loop_lag_seconds_count")
    before_late = _sample("guildhall_event_loop_lag_seconds_bucket", le="0.01")
    before_all = before_lag

    async def scenario() -> None:
        stop = asyncio.Event()
        task = metrics.watch_runtime(stop)
        await asyncio.sleep(0.25)
        gc.collect()
        time.sleep(0.2)  # the loop is blocked: the sampler wakes ~0.2 s late
        await asyncio.sleep(0.25)
        stop.set()
        await asyncio.wait_for(task, 5)

    asyncio.run(scenario())
    assert _sample("guildhall_gc_pause_seconds_count", generation="2") >= before_gc + 1
    lag_samples = _sample("guildhall_event_loop_lag_seconds_count") - before_all
    on_time = _sample("guildhall_event_loop_lag_seconds_bucket", le="0.01") - before_late
    assert lag_samples >= 3 and on_time < lag_samples  # at least one sample was late
    assert metrics._GC_TIMER not in gc.callbacks  # nothing left behind once stopped
