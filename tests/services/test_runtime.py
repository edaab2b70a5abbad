"""services.runtime: the servers' event loop, garbage collector and gRPC I/O settings, and their
errors."""

from __future__ import annotations

import ast
import asyncio
import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from devstack.processes import free_port
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


def test_the_servers_collect_on_the_clock_not_by_counts(
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
        for _ in range(200):  # the schedule's next full pass reclaims it
            if old() is None:
                break
            await asyncio.sleep(0.05)
        return thresholds, outlived_young, old() is None

    thresholds, outlived_young, reclaimed = runtime.run(main())
    assert thresholds == (runtime.YOUNG_BACKSTOP, runtime.NEVER_BY_COUNT, runtime.NEVER_BY_COUNT)
    assert outlived_young and reclaimed
    assert gc.get_threshold() == (runtime.YOUNG_THRESHOLD, 10, 10)  # restored on leaving


def test_what_outlives_a_tick_is_frozen_at_the_next(monkeypatch: pytest.MonkeyPatch, collector: None) -> None:
    """A burst of long-lived objects (new Play streams) is frozen as it comes: nothing piles up
    in the older generations for a later collection to walk in one long pause."""
    monkeypatch.delenv(runtime.GC_ENV, raising=False)
    monkeypatch.delenv(runtime.OLD_EVERY_ENV, raising=False)  # the full pass: an hour away

    async def main() -> tuple[int, list[int], bool]:
        kept: list[list[object]] = []
        waiting = []
        for _ in range(4):
            kept.extend([[] for _ in range(10_000)])
            await asyncio.sleep(runtime.YOUNG_EVERY_S * 2)  # a tick, at least
            waiting.append(len(gc.get_objects(generation=1)) + len(gc.get_objects(generation=2)))
        walked = {id(item) for item in gc.get_objects()}
        return len(kept), waiting, any(id(item) in walked for item in kept)

    kept, waiting, walked = runtime.run(main())
    assert kept == 40_000
    assert max(waiting) < 1_000, waiting  # the burst went to the frozen objects, tick by tick
    assert not walked  # nothing of it in any generation a collection walks


def test_frozen_garbage_brings_the_full_pass_forward_once_the_heap_has_grown(
    monkeypatch: pytest.MonkeyPatch, collector: None
) -> None:
    """A call in flight at a tick leaves its cycles frozen when it ends: the full pass comes once
    the heap has grown by GROWTH_FACTOR (GROWTH_WAIT_S after the last), not an hour later."""
    monkeypatch.delenv(runtime.GC_ENV, raising=False)
    monkeypatch.delenv(runtime.OLD_EVERY_ENV, raising=False)  # the clock's pass: an hour away
    monkeypatch.setattr(runtime, "GROWTH_FACTOR", 1.1)  # this process's heap is large: grow it 10%
    monkeypatch.setattr(runtime, "GROWTH_WAIT_S", runtime.YOUNG_EVERY_S)

    async def main() -> tuple[bool, bool]:
        await asyncio.sleep(runtime.YOUNG_EVERY_S * 2)
        probe = _Node()
        probe.other = probe
        dead = weakref.ref(probe)
        cycles: list[list[object]] = [[] for _ in range(sys.getallocatedblocks() // 8)]
        for cycle in cycles:
            cycle.append(cycle)
        gc.freeze()  # as a tick would, while they were alive; no tick can run before they die
        del probe, cycles, cycle
        frozen_when_they_died = dead() is not None
        for _ in range(20):
            if dead() is None:
                break
            await asyncio.sleep(runtime.YOUNG_EVERY_S)
        return frozen_when_they_died, dead() is None

    frozen_when_they_died, reclaimed = runtime.run(main())
    assert frozen_when_they_died and reclaimed


def test_a_pass_by_growth_waits_for_the_heap_to_double(collector: None) -> None:
    blocks = sys.getallocatedblocks()
    assert not runtime._grown(blocks)  # as large as after the last pass
    assert not runtime._grown(blocks // 2 + 10_000)  # not quite twice as large
    assert runtime._grown(blocks // 2 - 10_000)


def test_without_a_full_pass_a_cycle_among_frozen_objects_waits(collector: None) -> None:
    """What the full pass is for: a cycle that died after it was frozen."""
    node = _Node()
    node.other = node
    alive = weakref.ref(node)
    runtime.collect_young()  # alive at the tick: frozen
    assert gc.is_tracked(node) and node not in gc.get_objects()  # tracked, in no generation
    del node
    for _ in range(3):
        runtime.collect_young()
    gc.collect()  # even a full collection: frozen objects are not walked
    assert alive() is not None
    assert runtime.full_pass() >= 1
    assert alive() is None


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        (runtime.EVENT_LOOP_ENV, "trio"),
        (runtime.GC_ENV, "off"),
        (runtime.GRPC_IO_ENV, "asyncio"),
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
        ([sys.executable, "-m", "gateway"], runtime.GRPC_IO_ENV),
        ([sys.executable, "-m", "services.bruges", "--port", "0"], runtime.GRPC_IO_ENV),
    ],
)
def test_the_servers_refuse_an_unknown_setting_at_start(command: list[str], variable: str) -> None:
    env = {"PATH": "/usr/bin:/bin", variable: "fastest", "RULES_RATTUS_CARTUS": "127.0.0.1:1"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert variable in done.stderr and "fastest" in done.stderr
    assert "Traceback" not in done.stderr


def test_grpc_io_is_chosen_unless_the_operator_set_grpc_experiments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(runtime.GRPC_IO_ENV, raising=False)
    monkeypatch.delenv(runtime.GRPC_EXPERIMENTS_ENV, raising=False)
    runtime.choose_grpc_io()
    assert runtime.grpc_io_name() == "iomgr"
    assert runtime.os.environ[runtime.GRPC_EXPERIMENTS_ENV] == runtime.IOMGR_EXPERIMENTS
    monkeypatch.setenv(runtime.GRPC_EXPERIMENTS_ENV, "-event_engine_dns")  # the operator's own
    runtime.choose_grpc_io()
    assert runtime.os.environ[runtime.GRPC_EXPERIMENTS_ENV] == "-event_engine_dns"
    monkeypatch.delenv(runtime.GRPC_EXPERIMENTS_ENV)
    for setting in ("event_engine", "bogus"):  # gRPC's default; a bad value is left for `run`
        monkeypatch.setenv(runtime.GRPC_IO_ENV, setting)
        runtime.choose_grpc_io()
        assert runtime.GRPC_EXPERIMENTS_ENV not in runtime.os.environ


@pytest.mark.parametrize(
    ("setting", "traced_in"),
    [("iomgr", "tcp_posix.cc"), ("event_engine", "posix_endpoint.cc")],
)
def test_a_rules_service_reads_its_connections_with_the_io_chosen(setting: str, traced_in: str) -> None:
    """gRPC core's TCP trace names the source file that reads and writes the connection: the I/O
    manager's (tcp_posix.cc) by default, the EventEngine's when asked for. The setting must reach
    gRPC before it is imported, so this proves the entry point applies it first."""
    port = free_port()
    env = {
        "PATH": "/usr/bin:/bin",
        runtime.GRPC_IO_ENV: setting,
        "GRPC_VERBOSITY": "debug",
        "GRPC_TRACE": "tcp",
    }
    command = [sys.executable, "-m", "services.rattus_cartus", "--port", str(port)]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
    finally:
        server.terminate()
        _, err = server.communicate(timeout=60)
    assert traced_in in err


def test_every_server_entry_point_chooses_grpc_io_before_anything_else_is_imported() -> None:
    """What the trace test above proves for one rules service, read from the source of all of
    them and of the gateway: the first statements after `from __future__` import runtime and call
    choose_grpc_io, so nothing before it can have imported grpc."""
    entry_points = [ROOT / "gateway" / "__main__.py", *sorted((ROOT / "services").glob("*/__main__.py"))]
    assert len(entry_points) == 6  # the gateway and the five games
    for path in entry_points:
        body = [
            node
            for node in ast.parse(path.read_text()).body
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))  # docstring
            and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        ]
        first, second = body[0], body[1]
        assert isinstance(first, ast.ImportFrom) and first.module == "services", path
        assert [alias.name for alias in first.names] == ["runtime"], path
        assert ast.unparse(second) == "runtime.choose_grpc_io()", path
