"""services.runtime: the servers' event loop and garbage collector settings, and their errors."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from services import runtime

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def collector() -> Iterator[None]:
    """Whatever a test does to the collector is undone afterwards."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


async def _loop_type() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_uvloop_is_the_default_and_asyncio_can_be_asked_for(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.delenv(runtime.EVENT_LOOP_ENV, raising=False)
    assert runtime.event_loop_name() == "uvloop"
    assert runtime.run(_loop_type()).startswith("uvloop")
    monkeypatch.setenv(runtime.EVENT_LOOP_ENV, "AsyncIO")
    assert runtime.run(_loop_type()).startswith("asyncio")


def test_the_tuned_collector_freezes_start_up_and_raises_the_young_threshold(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.delenv(runtime.GC_ENV, raising=False)
    gc.set_threshold(700, 10, 10)
    assert runtime.tune_gc()
    assert gc.get_freeze_count() > 1_000  # the modules, classes and functions of start-up
    assert gc.get_threshold() == (runtime.YOUNG_THRESHOLD, 10, 10)
    # Cycles made after start-up are still collected.
    cycle: list[object] = []
    cycle.append(cycle)
    del cycle
    assert gc.collect() >= 1


class _Node:
    """A weak-referenceable object to make a cycle of."""

    other: object = None


def _old_cycle() -> weakref.ref[_Node]:
    """A cycle that outlived its young generation (promoted to the oldest), then became garbage."""
    node = _Node()
    node.other = node
    gc.collect(1)  # alive: moved to the oldest generation
    return weakref.ref(node)


def test_the_servers_collect_the_older_generations_on_the_clock_not_by_counts(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    monkeypatch.delenv(runtime.GC_ENV, raising=False)
    monkeypatch.setenv(runtime.OLD_EVERY_ENV, "0.05")

    async def main() -> tuple[tuple[int, int, int], bool, bool]:
        thresholds = gc.get_threshold()
        old = _old_cycle()
        made = [[] for _ in range(20 * runtime.YOUNG_THRESHOLD)]  # young collections come; no older one
        del made
        outlived_young = old() is not None
        for _ in range(200):  # the schedule's next pass reclaims it
            if old() is None:
                break
            await asyncio.sleep(0.05)
        return thresholds, outlived_young, old() is None

    thresholds, outlived_young, reclaimed = runtime.run(main())
    assert thresholds == (runtime.YOUNG_BACKSTOP, runtime.NEVER_BY_COUNT, runtime.NEVER_BY_COUNT)
    assert outlived_young and reclaimed
    assert gc.get_threshold() == (runtime.YOUNG_THRESHOLD, 10, 10)  # restored on leaving


def test_without_a_pass_an_old_cycle_waits(collector: None) -> None:
    """The other side of the test above: what the schedule is for."""
    gc.set_threshold(runtime.YOUNG_THRESHOLD, runtime.NEVER_BY_COUNT, runtime.NEVER_BY_COUNT)
    old = _old_cycle()
    made = [[] for _ in range(20 * runtime.YOUNG_THRESHOLD)]
    del made
    assert old() is not None
    assert runtime.collect_older_generations() >= 1
    assert old() is None


def test_a_pass_freezes_what_survives_and_the_unfreezing_pass_reclaims_cycles_among_them(
    collector: None,
) -> None:
    node = _Node()
    node.other = node
    alive = weakref.ref(node)
    runtime.collect_older_generations()  # alive now: frozen
    assert gc.is_tracked(node) and node not in gc.get_objects()  # tracked, in no generation
    del node  # a cycle among frozen objects: the ordinary passes do not walk them
    runtime.collect_older_generations()
    assert alive() is not None
    runtime.collect_older_generations(unfreeze=True)
    assert alive() is None


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        (runtime.EVENT_LOOP_ENV, "trio"),
        (runtime.GC_ENV, "off"),
        (runtime.OLD_EVERY_ENV, "0"),
        (runtime.OLD_EVERY_ENV, "-5"),
        (runtime.OLD_EVERY_ENV, "nan"),
        (runtime.OLD_EVERY_ENV, "inf"),
        (runtime.OLD_EVERY_ENV, "soon"),
    ],
)
def test_an_unknown_setting_is_named_and_nothing_runs(
    monkeypatch: pytest.MonkeyPatch, collector: None, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    ran = []

    async def main() -> None:
        ran.append(True)

    with pytest.raises(runtime.RuntimeSettingError, match=f"{variable}.*{value}"):
        runtime.run(main())
    assert not ran and gc.get_freeze_count() == 0


@pytest.mark.parametrize(
    ("command", "variable"),
    [
        ([sys.executable, "-m", "gateway"], runtime.EVENT_LOOP_ENV),
        ([sys.executable, "-m", "services.rattus_cartus", "--port", "0"], runtime.GC_ENV),
        ([sys.executable, "-m", "services.ys", "--port", "0"], runtime.OLD_EVERY_ENV),
    ],
)
def test_the_servers_refuse_an_unknown_setting_at_start(command: list[str], variable: str) -> None:
    env = {"PATH": "/usr/bin:/bin", variable: "fastest", "RULES_RATTUS_CARTUS": "127.0.0.1:1"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert variable in done.stderr and "fastest" in done.stderr
    assert "Traceback" not in done.stderr
