"""docs/http.md cannot rot: every ```sh block of the guide runs, in order, in one shell session's
state (variables and functions carry from block to block) against a real stack with an HTTP port,
and must exit 0 and print what the ```text block after it shows (each line, in order, `...`
matching anything)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from devstack.stack import Stack, TenantSpec
from tests.gateway.conftest import http_stack

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "http.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


def blocks(text: str) -> list[tuple[str, str | None]]:
    """Each sh block with the text block that follows it (before the next sh block), if any."""
    found: list[tuple[str, str | None]] = []
    for match in FENCE.finditer(text):
        kind, body = match.group(1), match.group(2)
        if kind == "sh":
            found.append((body, None))
        elif kind == "text" and found and found[-1][1] is None:
            found[-1] = (found[-1][0], body)
    return found


def shows(expected: str, output: str) -> bool:
    """Every line of `expected` matches a line of `output`, in order; `...` matches anything."""
    lines = [line.strip() for line in output.splitlines()]
    at = 0
    for want in (w.strip() for w in expected.splitlines()):
        if not want:
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in want.split("...")) + r"\Z")
        while at < len(lines) and not pattern.match(lines[at]):
            at += 1
        if at == len(lines):
            return False
        at += 1
    return True


def test_the_guide_has_blocks_with_outputs_and_the_matcher_is_strict() -> None:
    found = blocks(GUIDE.read_text())
    assert len(found) >= 10 and sum(1 for _, out in found if out) >= 10
    assert shows("a\n...c", "a\nb\nxc") and not shows("c\na", "a\nc") and not shows("ab", "abc")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # "slow": the rate-limit section's tenant, one read every five seconds.
    tenants = (TenantSpec("acme"), TenantSpec("slow", reads_per_second=0.2))
    with http_stack(tmp_path_factory.mktemp("guide"), ["rattus_cartus"], tenants) as running:
        yield running


def test_every_command_of_the_curl_guide_runs_and_prints_what_it_says(stack: Stack, tmp_path: Path) -> None:
    assert shutil.which("curl") and shutil.which("jq"), "the guide needs curl and jq on PATH"
    state = tmp_path / "state.sh"
    state.write_text("")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GATEWAY": f"http://127.0.0.1:{stack.http_port}",
        "KEY": stack.api_keys["acme"],
        "LIMITED_KEY": stack.api_keys["slow"],
        "OPERATOR_KEY": stack.operator_key,
        "BOT_KEY": stack.botworker_key,
    }
    for number, (script, expected) in enumerate(blocks(GUIDE.read_text()), 1):
        # Each block in a fresh bash that starts from the state the blocks before it left.
        wrapped = f"set -a\nsource {state}\nset -e\n{script}\n{{ export -p; declare -f; }} > {state}\n"
        done = subprocess.run(
            ["bash", "-c", wrapped], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
        )
        where = f"block {number} of docs/http.md:\n{script}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        assert done.returncode == 0, where
        if expected is not None:
            assert shows(expected, done.stdout), f"expected\n{expected}\nin the output of {where}"
