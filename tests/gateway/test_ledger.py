"""Billing as a ledger (issue 43 item 7), end to end with real processes: usage per game, every
tenant's usage in one export (`guildhall admin usage --all`), and the reconciliation an operator
runs before invoicing (`guildhall admin reconcile`): usage against the event store, live and
archived matches, agreeing, and a tampered counter reported precisely."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis

from devstack.stack import Stack, TenantSpec
from gateway.admin.usage import HOUR, usage_key
from tests.clients.test_admin_cli import admin as admin_cli
from tests.gateway.test_admin import play_a_little, within

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("rattus_cartus", "ys")
admin = functools.partial(admin_cli, timeout_s=60.0)  # a reconciliation reads every event


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("ledger")
    with Stack(
        list(GAMES),
        gateways=1,
        tenants=[TenantSpec("ledger-a"), TenantSpec("ledger-b")],
        work_dir=work,
        log_dir=work / "logs",
        gateway_env={"USAGE_FLUSH_SECONDS": "0.3", "ARCHIVE_RETENTION_SECONDS": "0", "GRACE_SECONDS": "1"},
        start_timeout_s=60.0,
    ) as running:
        yield running


@pytest.fixture(scope="module")
def played(stack: Stack) -> dict[str, str]:
    """ledger-a plays a match of each game, ledger-b one of Rattus Cartus; one of ledger-a's is
    then archived (the reconciliation reads the archive too). Every count flushed."""
    target = stack.gateway_targets[0]
    matches = {
        "a-rattus": play_a_little(target, stack.api_keys["ledger-a"], "rattus_cartus"),
        "a-ys": play_a_little(target, stack.api_keys["ledger-a"], "ys"),
        "b-rattus": play_a_little(target, stack.api_keys["ledger-b"], "rattus_cartus"),
    }
    assert stack.work_dir is not None
    moved = subprocess.run(
        [sys.executable, "-m", "gateway.archive", "--tenant", "ledger-a", "--dir",
         str(stack.work_dir / "archive"), matches["a-ys"]],
        cwd=ROOT, env={"PATH": "/usr/bin:/bin", "REDIS_URL": stack.redis_url},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert moved.returncode == 0, moved.stderr

    def flushed() -> bool:
        rows = json.loads(admin(stack, "usage", "--all", "--format", "json").stdout or "[]")
        return sum(r["matches_finished"] for r in rows if r["tenant"].startswith("ledger-")) == 3

    within(flushed, 20.0)
    return matches


def test_every_tenants_usage_in_one_export_with_a_row_per_game(stack: Stack, played: dict[str, str]) -> None:
    done = admin(stack, "usage", "--all", "--by-game", "--granularity", "hour", "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = [r for r in json.loads(done.stdout) if r["tenant"].startswith("ledger-")]
    games = {(r["tenant"], r["game"]) for r in rows}
    assert games == {("ledger-a", ""), ("ledger-a", "rattus_cartus"), ("ledger-a", "ys"),
                     ("ledger-b", ""), ("ledger-b", "rattus_cartus")}  # fmt: skip
    for tenant in ("ledger-a", "ledger-b"):
        mine = [r for r in rows if r["tenant"] == tenant]
        for counter in ("matches_created", "actions_accepted", "events_stored", "bytes_stored"):
            together = sum(r[counter] for r in mine if r["game"] == "")
            assert together == sum(r[counter] for r in mine if r["game"]) > 0, (tenant, counter)
    assert sum(r["matches_created"] for r in rows if r["game"] == "ys") == 1
    csv = admin(stack, "usage", "--all", "--by-game", "--format", "csv")
    assert csv.stdout.splitlines()[0].startswith("tenant,period,game,matches_created,")
    refused = admin(stack, "usage", "--all", "--tenant", "ledger-a")
    assert refused.returncode != 0 and "--all" in refused.stderr


def test_usage_reconciles_with_the_event_store_live_and_archived(
    stack: Stack, played: dict[str, str]
) -> None:
    today = time.strftime("%Y-%m-%d", time.gmtime())
    done = admin(stack, "reconcile", "--from", today, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["differences"] == [] and report["matches"] >= 3
    assert report["counters"] == [
        "matches_created", "matches_finished", "actions_accepted", "events_stored", "bytes_stored",
    ]  # fmt: skip


def test_a_tampered_usage_counter_is_reported_precisely(stack: Stack, played: dict[str, str]) -> None:
    today = time.strftime("%Y-%m-%d", time.gmtime())
    client = redis.Redis.from_url(stack.redis_url)
    hour = next(  # the hour ledger-b's match was played in
        datetime.strptime(r["period"], "%Y-%m-%dT%H").replace(tzinfo=UTC)
        for r in json.loads(
            admin(stack, "usage", "--tenant", "ledger-b", "--granularity", "hour", "--format", "json").stdout
        )  # fmt: skip
        if r["actions_accepted"]
    )
    key = usage_key("ledger-b", HOUR, hour)
    real = int(client.hget(key, "rattus_cartus:actions_accepted") or 0)
    client.hincrby(key, "rattus_cartus:actions_accepted", 5)  # an edited per-game counter
    try:
        done = admin(stack, "reconcile", "--from", today, "--tenant", "ledger-b")
        assert done.returncode == 3, done.stdout + done.stderr
        period = f"{hour:%Y-%m-%dT%H}"
        expected = (
            f"DIFFERENT ledger-b rattus_cartus {period} actions_accepted: usage {real + 5}, "
            f"event store {real} (+5)"
        )
        assert expected in done.stdout.splitlines(), done.stdout
        assert sum(line.startswith("DIFFERENT") for line in done.stdout.splitlines()) == 1
        # Another tenant is not affected.
        assert admin(stack, "reconcile", "--from", today, "--tenant", "ledger-a").returncode == 0
    finally:
        client.hincrby(key, "rattus_cartus:actions_accepted", -5)
    assert admin(stack, "reconcile", "--from", today, "--tenant", "ledger-b").returncode == 0


def test_reconcile_refuses_a_period_it_cannot_read(stack: Stack) -> None:
    for args, words in (
        (("--from", "yesterday"), "YYYY-MM-DD"),
        (("--from", "2026-11-02", "--to", "2026-11-01"), "before the start"),
        (("--from", "2026-11-01", "--tenant", "nobody"), "no tenant"),
        (("--from", "2026-01-01", "--to", "2026-12-31"), "at most 93 days"),
    ):
        done = admin(stack, "reconcile", *args)
        assert done.returncode == 1 and words in done.stderr, (args, done.stderr)
