"""The rules core stays pure: it imports with grpc, redis and structlog unavailable,
and no rules module reaches for randomness, clocks or I/O of its own. Every package reads
downward: no import circle among its modules, counting imports inside functions too. The
product (gateway/, services/) starts no processes and imports no client library or tooling, and
no gateway module grows past 800 lines."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

from services.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
GAME_DIRS = [ROOT / "services" / game for game in GAMES]
CORE_FILES = sorted((ROOT / "services" / "kernel").glob("*.py")) + [
    path for game in GAME_DIRS for path in sorted(game.glob("*.py")) if path.name != "__main__.py"
]
# What a pure rules module may not import: randomness, clocks, ids, I/O, logging and the transports.
FORBIDDEN = {
    "random",
    "time",
    "datetime",
    "uuid",
    "secrets",
    "socket",
    "logging",
    "grpc",
    "redis",
    "structlog",
}
# Packages whose modules (subpackages included) must import one another without a circle.
# Each package and the directory it is imported from (the client is its own distribution).
ACYCLIC_PACKAGES = {"services": ROOT, "gateway": ROOT, "guildhall_client": ROOT / "clients" / "python"}


def test_the_rules_core_imports_with_grpc_redis_and_structlog_blocked() -> None:
    modules = ["services.kernel", "services.kernel.testing", "services.registry"] + [
        f"services.{game}.{part}" for game in GAMES for part in ("model", "rules")
    ]
    script = textwrap.dedent(
        f"""
        import importlib, importlib.abc, sys

        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {{"grpc", "redis", "structlog", "google"}}:
                    raise ImportError(f"blocked: {{name}}")
                return None

        sys.meta_path.insert(0, Block())
        for module in {modules!r}:
            importlib.import_module(module)
        leaked = sorted(m for m in sys.modules if m.split(".")[0] in {{"grpc", "redis", "structlog"}})
        assert not leaked, leaked
        print("pure")
        """
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "pure"


def test_no_rules_module_imports_randomness_clocks_or_io() -> None:
    offenders = []
    for path in CORE_FILES:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert not offenders, offenders


def test_every_registered_game_has_its_package_and_entry_point() -> None:
    for game in GAME_DIRS:
        for part in ("__init__.py", "model.py", "rules.py", "__main__.py"):
            assert (game / part).is_file(), f"{game.name} lacks {part}"


# -- import circles ----------------------------------------------------------------------------
#
# An edge A -> B means running module A's file may need module B's to have run first:
# `import B`, `from B import name` (B is the module that defines `name`), `from P import B`
# (B a submodule of P), relative forms alike, and wherever the statement stands: inside a
# function or an `if TYPE_CHECKING:` block it is a circle deferred, not a circle removed.
# Importing a submodule also initialises its parent packages, but Python has already put a
# parent in `sys.modules` before any of its submodules runs, so a package's `__init__` that
# imports its own submodules is no circle and adds no edge from them back to it.


def _module_name(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, module: str, known: set[str]) -> Iterator[tuple[str, int]]:
    """The modules of `known` that `path` (module `module`) imports, with the line of each."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module if path.name == "__init__.py" else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            for alias in node.names:
                target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                if target in known:
                    yield target, node.lineno


def import_graph(package: Path, base: Path = ROOT) -> dict[str, dict[str, str]]:
    """module -> {imported module: "file:line" of the first such import}, inside `package`
    (module names are dotted paths from `base`, the directory on `sys.path`)."""
    files = {_module_name(path, base): path for path in sorted(package.rglob("*.py"))}
    known = set(files)
    graph: dict[str, dict[str, str]] = {}
    for module, path in files.items():
        edges = graph.setdefault(module, {})
        for target, line in _imported(path, module, known):
            if target != module:
                edges.setdefault(target, f"{path.relative_to(base)}:{line}")
    return graph


def import_circles(graph: dict[str, dict[str, str]]) -> list[str]:
    """One circle per strongly connected group of modules, e.g. `a -> b -> a (a.py:3, b.py:5)`,
    naming the group's other members when the shortest circle does not pass them all."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:  # Tarjan; packages are far too shallow to hit the recursion limit
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    circles = []
    for group in groups:
        start = min(group)
        paths = {start: [start]}  # breadth first: the shortest way from `start` back to itself
        queue = [start]
        while queue:
            node = queue.pop(0)
            if start in graph[node]:
                path = [*paths[node], start]
                break
            for target in sorted(graph[node]):
                if target in group and target not in paths:
                    paths[target] = [*paths[node], target]
                    queue.append(target)
        where = ", ".join(graph[a][b] for a, b in zip(path, path[1:], strict=False))
        others = sorted(group - set(path))
        tangled = f"; tangled with {', '.join(others)}" if others else ""
        circles.append(f"{' -> '.join(path)} ({where}){tangled}")
    return sorted(circles)


def test_no_package_has_an_import_circle_even_inside_functions() -> None:
    graphs = [import_graph(base / name, base) for name, base in ACYCLIC_PACKAGES.items()]
    assert all(graphs), "a package to check has no modules: moved?"
    circles = [circle for graph in graphs for circle in import_circles(graph)]
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_the_circle_check_sees_deferred_imports_and_spares_package_inits(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    files = {
        "__init__.py": "from pkg.rules import GAME\n",
        "model.py": "STATE = 1\n",
        "rules.py": "from pkg import effects, model\nGAME = model.STATE\n",
        "effects.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .views import View\n",
        "views.py": "def view():\n    from pkg.rules import GAME\n    return GAME\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    graph = import_graph(package, base=tmp_path)
    assert "pkg" not in graph["pkg.rules"], "`from pkg import effects` names a submodule, not pkg"
    assert import_circles(graph) == [
        "pkg.effects -> pkg.views -> pkg.rules -> pkg.effects"
        " (pkg/effects.py:3, pkg/views.py:2, pkg/rules.py:1)"
    ]


# -- the product starts no processes and imports no tooling -------------------------------------

PRODUCT_FILES = sorted(path for top in ("gateway", "services") for path in (ROOT / top).rglob("*.py"))
# Packages the product never imports: the client library (a separate deliverable that talks to
# the gateway over gRPC), the local process tooling, the soak, the benchmarks and the tests.
NOT_FOR_THE_PRODUCT = {"guildhall_client", "devstack", "soak", "benchmarks", "tests"}
# Ways to start a process. Production code has no reason to: Kubernetes starts the processes in
# a deployment, devstack (tests, `make run`, the demo, the benchmarks, the soak) everywhere else.
PROCESS_MODULES = {"subprocess", "multiprocessing", "pty", "concurrent.futures.process"}
PROCESS_CALLS = {
    "os": {"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "concurrent.futures": {"ProcessPoolExecutor"},
}
PROCESS_CALL_PREFIXES = {"os": ("exec", "spawn")}
# path (from the root) -> why that production module has to start a process.
STARTS_PROCESSES_BECAUSE: dict[str, str] = {
    "services/bundles.py": "a rules version no longer deployed re-executes its matches from its bundle "
    "(issue 40): two versions of services.<game> cannot share one interpreter, so it runs in a child",
}
GATEWAY_MODULE_MAX_LINES = 800


def _absolute_imports(tree: ast.AST) -> list[tuple[str, list[str]]]:
    """(module, names imported from it) for every absolute import, wherever it stands."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [alias.name for alias in node.names]))
    return found


def _process_starting(tree: ast.AST) -> list[str]:
    def starts(owner: str, name: str) -> bool:
        prefixes = PROCESS_CALL_PREFIXES.get(owner, ())
        return name in PROCESS_CALLS.get(owner, ()) or any(name.startswith(p) for p in prefixes)

    uses = []
    for module, names in _absolute_imports(tree):
        if module in PROCESS_MODULES or module.split(".")[0] in PROCESS_MODULES:
            uses.append(f"import {module}")
        uses += [
            f"from {module} import {name}"
            for name in names
            if f"{module}.{name}" in PROCESS_MODULES or starts(module, name)
        ]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and starts(ast.unparse(node.value), node.attr):
            uses.append(f"{ast.unparse(node.value)}.{node.attr}")
    return uses


def test_the_product_imports_no_client_library_tooling_soak_benchmarks_or_tests() -> None:
    offenders = []
    for path in PRODUCT_FILES:
        tree = ast.parse(path.read_text(), str(path))
        names = [module for module, _ in _absolute_imports(tree)]
        # importlib.import_module("devstack...") and the like count too.
        names += [
            node.args[0].value
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and ast.unparse(node.func).endswith("import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ]
        offenders += [
            f"{path.relative_to(ROOT)}: {name}" for name in names if name.split(".")[0] in NOT_FOR_THE_PRODUCT
        ]
    assert not offenders, offenders


def test_the_product_starts_no_processes() -> None:
    offenders = []
    for path in PRODUCT_FILES:
        relative = str(path.relative_to(ROOT))
        uses = _process_starting(ast.parse(path.read_text(), str(path)))
        if uses and relative not in STARTS_PROCESSES_BECAUSE:
            offenders.append(f"{relative}: {', '.join(sorted(set(uses)))}")
    assert not offenders, f"process starting belongs in devstack/: {offenders}"


def test_the_process_check_notices_the_ways_to_start_one() -> None:
    for source in (
        "import subprocess",
        "from subprocess import Popen",
        "import multiprocessing.pool",
        "from concurrent.futures import ProcessPoolExecutor",
        "import concurrent.futures\nconcurrent.futures.ProcessPoolExecutor()",
        "import os\nos.execv('x', [])",
        "import os\nos.fork()",
        "from os import spawnlp",
        "import asyncio\nasyncio.create_subprocess_exec('x')",
    ):
        assert _process_starting(ast.parse(source)), source
    assert not _process_starting(
        ast.parse("import os, asyncio\nos.environ.get('X'); os.getpid(); asyncio.run")
    )


def test_no_gateway_module_is_over_800_lines() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in sorted((ROOT / "gateway").rglob("*.py"))
    }
    too_long = {path: lines for path, lines in sizes.items() if lines > GATEWAY_MODULE_MAX_LINES}
    assert not too_long, f"split these (over {GATEWAY_MODULE_MAX_LINES} lines): {too_long}"


# The gateway's transports live in gateway/api/; outside it only the wiring may import them.
WIRING = {"gateway/bootstrap.py", "gateway/settings.py", "gateway/__main__.py"}


def _imports_gateway_api(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "gateway.api" or node.module.startswith("gateway.api."):
                return True
            if node.module == "gateway" and any(alias.name == "api" for alias in node.names):
                return True
        if isinstance(node, ast.Import) and any(a.name.startswith("gateway.api") for a in node.names):
            return True
    return False


def test_only_the_wiring_imports_the_gateways_transports() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "gateway").rglob("*.py"))
        if "api" not in path.relative_to(ROOT / "gateway").parts[:1]
        and str(path.relative_to(ROOT)) not in WIRING
        and _imports_gateway_api(ast.parse(path.read_text()))
    ]
    assert not offenders, f"use cases, domain and stores must not import gateway/api/: {offenders}"
    assert _imports_gateway_api(ast.parse("from gateway.api import wire"))
    assert _imports_gateway_api(ast.parse("from gateway import api"))
