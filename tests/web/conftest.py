"""What the board tests share: the boards' harness page (clients/web/table/games/harness.ts),
bundled with esbuild once per session."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"


@pytest.fixture(scope="session")
def harness(tmp_path_factory: pytest.TempPathFactory) -> str:
    esbuild = WEB / "node_modules" / ".bin" / "esbuild"
    assert esbuild.is_file(), "clients/web is not set up: `make web`"
    out = tmp_path_factory.mktemp("harness") / "harness.js"
    subprocess.run(
        [
            str(esbuild),
            "table/games/harness.ts",
            "--bundle",
            "--format=iife",
            "--target=es2022",
            f"--outfile={out}",
        ],
        cwd=WEB,
        check=True,
        capture_output=True,
    )
    return out.read_text()
