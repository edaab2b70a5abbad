"""The TypeScript client (clients/web) against a real gateway's HTTP port, under Node: game data,
stale decisions sent again, typed rejections and faults, receipts verified (and a forged one
refused), Watch resumed without gap or duplicate, a whole match's receipts and seed checked, texts
naming players rendered with the names chosen at the table."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from devstack.stack import Stack
from gateway.domain.receipts import seed_commitment

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"


def test_the_typescript_client_against_a_real_gateway(tmp_path: Path) -> None:
    assert (WEB / "dist" / "guildhall.js").is_file(), "the TypeScript client is not built: `make web`"
    node = shutil.which("node")
    assert node, "Node 20+ is needed for the TypeScript client"
    seed = bytes(range(32))
    with Stack(
        ["rattus_cartus"],
        gateways=1,
        work_dir=tmp_path,
        log_dir=tmp_path / "logs",
        gateway_env={"HTTP_PORT": "any", "LOG_LEVEL": "warning"},
    ) as stack:
        env = {
            **os.environ,
            "GUILDHALL_HTTP": f"http://127.0.0.1:{stack.http_port}",
            "GUILDHALL_KEY": stack.api_key,
            "SEED_VECTOR": f"{seed.hex()}:{seed_commitment(seed)}",
        }
        run = subprocess.run(
            [node, "--test", "--test-force-exit", "--test-timeout=120000", "test/"],
            cwd=WEB,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# pass 9" in run.stdout, run.stdout[-2000:]
