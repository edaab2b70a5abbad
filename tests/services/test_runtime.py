"""services.runtime: the servers' event loop and garbage collector settings, and their errors."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
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


def test_the_stock_collector_is_left_alone(monkeypatch: pytest.MonkeyPatch, collector: None) -> None:
    monkeypatch.setenv(runtime.GC_ENV, "stock")
    gc.set_threshold(700, 10, 10)
    assert not runtime.tune_gc()
    assert gc.get_threshold() == (700, 10, 10) and gc.get_freeze_count() == 0


@pytest.mark.parametrize(("variable", "value"), [(runtime.EVENT_LOOP_ENV, "trio"), (runtime.GC_ENV, "off")])
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
    ],
)
def test_the_servers_refuse_an_unknown_setting_at_start(command: list[str], variable: str) -> None:
    env = {"PATH": "/usr/bin:/bin", variable: "fastest", "RULES_RATTUS_CARTUS": "127.0.0.1:1"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert variable in done.stderr and "fastest" in done.stderr
    assert "Traceback" not in done.stderr
