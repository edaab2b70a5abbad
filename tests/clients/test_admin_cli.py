"""`guildhall admin ...` (issue 34) as an operator runs it, against a real gateway: onboard a
tenant and give it a key, bill it (usage as CSV and JSON), revoke the key, read the admin log,
and offboard it."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from devstack.stack import Stack, TenantSpec

ROOT = Path(__file__).resolve().parents[2]
GAME = "rattus_cartus"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("admin-cli")
    with Stack(
        [GAME],
        gateways=1,
        tenants=[TenantSpec("acme")],
        work_dir=work,
        log_dir=work / "logs",
        gateway_env={"USAGE_FLUSH_SECONDS": "0.3", "GRACE_SECONDS": "1"},
        start_timeout_s=60.0,
    ) as running:
        yield running


def admin(
    stack: Stack, *args: str, key: str | None = None, timeout_s: float = 15.0
) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "GUILDHALL_TARGET": stack.admin_targets[0],  # issue 43: the admin listener
        "GUILDHALL_API_KEY": key if key is not None else stack.admin_key,
        "GUILDHALL_CONFIG": str(ROOT / "no-such-config.toml"),
        "GUILDHALL_TIMEOUT": str(timeout_s),
        "COLUMNS": "200",
        "NO_COLOR": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "guildhall_client.cli", "admin", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def works(stack: Stack, key: str) -> bool:
    stub = gateway_pb2_grpc.GatewayServiceStub(grpc.insecure_channel(stack.gateway_targets[0]))
    try:
        stub.ListGames(gateway_pb2.ListGamesRequest(), metadata=[("authorization", f"Bearer {key}")])
    except grpc.RpcError:
        return False
    return True


def test_onboard_bill_revoke_log_and_offboard_from_the_terminal(stack: Stack) -> None:
    done = admin(stack, "create-tenant", "shop", "--active-matches", "9", "--turn-timer-seconds", "60")
    assert done.returncode == 0, done.stderr
    assert "tenant shop: active" in done.stdout and "active_matches=9" in done.stdout
    done = admin(stack, "create-key", "shop", "--id", "app")
    assert done.returncode == 0, done.stderr
    key = re.search(r"ghk_\S+", done.stdout).group(0)  # type: ignore[union-attr]
    assert works(stack, key)
    assert "app" in admin(stack, "keys", "shop").stdout
    assert key not in admin(stack, "keys", "shop").stdout

    from tests.gateway.test_admin import play_a_little

    play_a_little(stack.gateway_targets[0], key)
    today = time.strftime("%Y-%m-%d", time.gmtime())
    deadline = time.monotonic() + 10
    while True:
        done = admin(stack, "usage", "--tenant", "shop", "--from", today, "--format", "csv")
        assert done.returncode == 0, done.stderr
        rows = list(csv.DictReader(io.StringIO(done.stdout)))
        if rows and rows[0]["matches_finished"] == "1" or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert rows[0]["tenant"] == "shop" and rows[0]["period"] == today
    assert int(rows[0]["matches_created"]) == 1
    assert int(rows[0]["actions_accepted"]) >= 1
    json_out = admin(stack, "usage", "--tenant", "shop", "--from", today, "--format", "json").stdout
    as_json = json.loads(json_out)
    assert as_json[0]["events_stored"] == int(rows[0]["events_stored"])
    hourly = admin(stack, "usage", "--tenant", "shop", "--from", today, "--granularity", "hour").stdout
    assert re.search(rf"shop,{today}T\d\d,1,", hourly)

    assert admin(stack, "revoke-key", "shop", "app").returncode == 0
    assert not works(stack, key)

    refused = admin(stack, "tenants", key=stack.api_keys["acme"])  # a tenant's key is no admin's
    assert refused.returncode == 1 and "PERMISSION_DENIED" in refused.stderr
    missing = admin(stack, "show", "nobody")
    assert missing.returncode == 1 and "NOT_FOUND" in missing.stderr

    done = admin(stack, "delete-tenant", "shop")
    assert done.returncode == 0, done.stderr
    assert "archive verified: yes" in done.stdout and "1 matches archived" in done.stdout

    log = admin(stack, "log", "--json")
    assert log.returncode == 0 and "chain verifies" in log.stderr
    actions = [json.loads(line)["action"] for line in log.stdout.splitlines()]
    assert actions[-5:] == ["create_tenant", "create_key", "revoke_key", "delete_tenant", "tenant_deleted"]


def test_a_followed_offboarding_and_a_kept_checkpoint_from_the_terminal(stack: Stack, tmp_path: Path) -> None:
    """Issue 39: `delete-tenant --wait` follows the job with its progress (each call answers
    within the client's 2 s deadline); `log checkpoint > file` keeps the log's signed head and
    `log verify --checkpoint file` finds the tail cut under it."""
    import redis

    assert admin(stack, "create-tenant", "brief").returncode == 0
    followed = admin(stack, "delete-tenant", "brief", "--force", "--wait", timeout_s=2.0)
    assert followed.returncode == 0, followed.stderr
    progress, last = followed.stdout.splitlines()[:-1], followed.stdout.splitlines()[-1]
    assert progress and all(line.startswith("brief: ") for line in progress)  # e.g. "brief: settling: ..."
    assert last.startswith("brief deleted: 0 matches archived") and "archive verified: yes" in last

    kept = admin(stack, "log", "checkpoint")
    assert kept.returncode == 0, kept.stderr
    checkpoint = tmp_path / "admin-log.checkpoint.json"
    checkpoint.write_text(kept.stdout)
    assert json.loads(kept.stdout)["format"] == "guildhall-admin-log-checkpoint-v1"
    verified = admin(stack, "log", "verify", "--checkpoint", str(checkpoint))
    assert verified.returncode == 0 and "verifies" in verified.stdout, verified.stdout + verified.stderr

    # The tail cut: the last entry gone from the stream, the head set back to the one before.
    entries = [
        json.loads(line) for line in admin(stack, "log", "--json", "--limit", "1000").stdout.splitlines()
    ]
    client = redis.Redis.from_url(stack.redis_url)
    stream = client.xrange("gh:{admin}:log")
    pipe = client.pipeline(transaction=True)
    pipe.delete("gh:{admin}:log")
    for entry_id, fields in stream[:-1]:
        pipe.xadd("gh:{admin}:log", fields, id=entry_id)
    pipe.hset("gh:{admin}:log:meta", mapping={"version": len(stream) - 1, "head_hash": entries[-2]["hash"]})
    pipe.execute()
    cut = admin(stack, "log", "verify", "--checkpoint", str(checkpoint))
    assert cut.returncode == 3 and "PROBLEM: the log was cut" in cut.stdout, cut.stdout
    checkpoint.write_text("{}")
    unreadable = admin(stack, "log", "verify", "--checkpoint", str(checkpoint))
    assert unreadable.returncode == 2 and "checkpoint" in unreadable.stderr
