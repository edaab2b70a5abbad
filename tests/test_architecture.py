"""The rules core stays pure: it imports with grpc, redis and structlog unavailable,
and no rules module reaches for randomness, clocks or I/O of its own."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
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
