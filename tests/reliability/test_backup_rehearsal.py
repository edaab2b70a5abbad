"""The backup and restore rehearsal (issue 43 item 3), with real processes, as an operator runs it:
matches played (finished, archived, in progress), a backup taken during play (`python -m
gateway.backup create` while a player keeps acting), a restore into a fresh Redis and a fresh
archive (`restore`), and a gateway started on them: every match audits, the usage and billing
exports are the ones of the backup's instant, and play resumes on the restored store (an
in-progress match finishes with the seat tokens of before).

The test defines the backup's instant from outside: it pauses writes on the source Redis (CLIENT
PAUSE WRITE, what the tool itself does across a cluster's primaries), reads the "before"
exports there, takes the backup, and lets writes go on. Appends in flight wait out the pause."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from devstack.processes import GatewayProcess, RedisProcess
from devstack.stack import Stack, TenantSpec
from guildhall_client import AsyncClient, errors
from guildhall_client.bots import make_bot
from guildhall_client.bots.runner import play_seat

ROOT = Path(__file__).resolve().parents[2]
GAME = "rattus_cartus"


def run(*command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *command], cwd=ROOT, env={"PATH": "/usr/bin:/bin", **(env or {})},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def admin(stack: Stack, target: str, *args: str) -> str:
    env = {
        "GUILDHALL_TARGET": target,
        "GUILDHALL_API_KEY": stack.admin_key,
        "GUILDHALL_CONFIG": str(ROOT / "no-such-config.toml"),
        "GUILDHALL_TIMEOUT": "60",
    }
    done = run("-m", "guildhall_client.cli", "admin", *args, env=env)
    assert done.returncode in (0, 3), done.stderr
    return done.stdout


def accepted(stack: Stack, tenant: str) -> int:
    """The tenant's actions billed today so far."""
    today = time.strftime("%Y-%m-%d", time.gmtime())
    daily = admin(stack, stack.admin_targets[0], "usage", "--all", "--from", today, "--format", "json")
    return sum(int(row["actions_accepted"]) for row in json.loads(daily) if row["tenant"] == tenant)


def exports(stack: Stack, target: str) -> dict[str, Any]:
    """Every export an operator bills from: all tenants' usage by day and by hour, per game."""
    today = time.strftime("%Y-%m-%d", time.gmtime())
    return {
        "daily": admin(stack, target, "usage", "--all", "--by-game", "--from", today, "--format", "json"),
        "hourly": admin(
            stack,
            target,
            "usage",
            "--all",
            "--by-game",
            "--granularity",
            "hour",
            "--from",
            today,
            "--format",
            "csv",
        ),  # fmt: skip
    }


async def play_out(target: str, key: str, players: int) -> str:
    """A match played to its end by bots."""
    async with AsyncClient(target, api_key=key) as gh:
        created = await gh.create_match(GAME, [f"p{n}" for n in range(players)])
        seats = [gh.seat(created.match_id, s.token) for s in created.seats]
        await asyncio.gather(
            *(play_seat(seat, make_bot("greedy", GAME, seed=n)) for n, seat in enumerate(seats))
        )
        return created.match_id


async def step(target: str, match_id: str, tokens: list[str]) -> int | None:
    """One action by the seat whose turn it is; the new version (None: the match is over)."""
    async with AsyncClient(target, timeout_s=60) as gh:
        for token in tokens:
            seat = gh.seat(match_id, token)
            view = await seat.view()
            if view.finished:
                return None
            if view.legal_actions:
                return (await seat.submit(view.legal_actions[0])).version
    raise AssertionError("no seat may act")


async def start(target: str, key: str, players: int, actions: int) -> tuple[str, list[str]]:
    """A match with `actions` actions played: its id and its seat tokens."""
    async with AsyncClient(target, api_key=key) as gh:
        created = await gh.create_match(GAME, [f"p{n}" for n in range(players)])
    tokens = [s.token for s in created.seats]
    for _ in range(actions):
        await step(target, created.match_id, tokens)
    return created.match_id, tokens


class Player(threading.Thread):
    """Keeps acting in one match until told to stop (or it ends), each acknowledged version and
    when it came back recorded."""

    def __init__(self, target: str, match_id: str, tokens: list[str]) -> None:
        super().__init__(daemon=True)
        self.target, self.match_id, self.tokens = target, match_id, tokens
        self.stop = threading.Event()
        self.acked: list[tuple[float, int]] = []

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                version = asyncio.run(step(self.target, self.match_id, self.tokens))
            except errors.GuildhallError:
                continue  # a call that outlived the pause: the next decides afresh
            if version is None:
                return
            self.acked.append((time.monotonic(), version))


def test_a_backup_during_play_restores_where_every_match_audits_the_bills_match_and_play_resumes(
    tmp_path: Path,
) -> None:
    work = tmp_path / "stack"
    with Stack(
        [GAME],
        gateways=1,
        tenants=[TenantSpec("acme"), TenantSpec("rival")],
        work_dir=work,
        log_dir=work / "logs",
        redis_dir=tmp_path / "redis-a",
        gateway_env={
            "USAGE_FLUSH_SECONDS": "0.3",
            "ARCHIVE_RETENTION_SECONDS": "0",
            "REDIS_TIMEOUT_SECONDS": "60",  # appends wait out the test's pause
            "GRACE_SECONDS": "1",
        },
        start_timeout_s=60.0,
    ) as stack:
        target, acme, rival = stack.gateway_targets[0], stack.api_keys["acme"], stack.api_keys["rival"]
        finished = [asyncio.run(play_out(target, acme, 2)) for _ in range(2)]
        in_progress, tokens = asyncio.run(start(target, acme, 2, 6))
        busy, busy_tokens = asyncio.run(start(target, rival, 4, 2))
        archive = work / "archive"
        moved = run("-m", "gateway.archive", "--tenant", "acme", "--dir", str(archive), finished[0],
                    env={"REDIS_URL": stack.redis_url})  # fmt: skip
        assert moved.returncode == 0, moved.stderr
        time.sleep(1.0)  # every count flushed (USAGE_FLUSH_SECONDS 0.3)

        player = Player(target, busy, busy_tokens)
        player.start()
        # Play is under way and its first actions are billed (the counters flush every 0.3 s; a
        # cut before that would hold 2, the setup's).
        while len(player.acked) < 3 or accepted(stack, "rival") < 3:
            time.sleep(0.05)
        assert stack.redis is not None
        source = stack.redis.client(socket_timeout=60)
        source.execute_command("CLIENT", "PAUSE", "60000", "WRITE")
        paused_at = time.monotonic()
        try:
            before = exports(stack, stack.admin_targets[0])
            backup = tmp_path / "backup"
            created = run("-m", "gateway.backup", "create", str(backup), "--redis-url", stack.redis_url,
                          "--archive-dir", str(archive))  # fmt: skip
            assert created.returncode == 0, created.stderr
        finally:
            source.execute_command("CLIENT", "UNPAUSE")
            unpaused_at = time.monotonic()
        while not player.acked or player.acked[-1][0] < unpaused_at + 0.5:  # play goes on after the cut
            time.sleep(0.05)
        player.stop.set()
        player.join(60)
        acked_before = max(v for at, v in player.acked if at < paused_at)
        acked_after = min(v for at, v in player.acked if at > unpaused_at)
        manifest = json.loads((backup / "manifest.json").read_text())
        assert manifest["archive"]["blobs"] == 1 and manifest["redis"]["nodes"][0]["keys"] > 0

        # A fresh Redis and a fresh archive, restored from the backup alone.
        fresh = RedisProcess(tmp_path / "redis-b")
        fresh.start()
        restored_archive = tmp_path / "archive-b"
        try:
            restored = run("-m", "gateway.backup", "restore", str(backup), "--redis-url", fresh.url,
                           "--archive-dir", str(restored_archive))  # fmt: skip
            assert restored.returncode == 0, restored.stdout + restored.stderr
            assert "verified" in restored.stderr.splitlines()[-1]
            env = {
                **stack.gateways[0].extra_env,
                "REDIS_URL": fresh.url,
                "ARCHIVE_DIR": str(restored_archive),
            }
            gateway = GatewayProcess(
                "gateway-restored", work / "logs", {k: v for k, v in env.items() if k != "ADMIN_PORT"}
            )
            gateway.start(60.0)
            try:
                after = exports(stack, gateway.admin_target)
                assert after == before  # the bills of the backup's instant, to the byte
                totals = {r["tenant"]: r for r in json.loads(before["daily"]) if not r["game"]}
                assert totals["acme"]["matches_created"] == 3 and totals["acme"]["matches_finished"] == 2
                assert totals["rival"]["matches_created"] == 1 and totals["rival"]["actions_accepted"] >= 3
                check_restored(
                    stack, gateway.target, finished, in_progress, tokens, busy, acked_before, acked_after
                )
            finally:
                gateway.stop()
        finally:
            fresh.stop()


def check_restored(
    stack: Stack, target: str, finished: list[str], in_progress: str, tokens: list[str], busy: str,
    acked_before: int, acked_after: int,
) -> None:  # fmt: skip
    async def go() -> None:
        acme = AsyncClient(target, api_key=stack.api_keys["acme"])
        rival = AsyncClient(target, api_key=stack.api_keys["rival"])
        async with acme, rival:
            # Every match audits: re-executed, chain, receipts, seeds (the archived one from the
            # restored archive).
            for client, match_id in [(acme, m) for m in (*finished, in_progress)] + [(rival, busy)]:
                report = await client.audit(match_id)
                assert report.ok, (match_id, report.reason)
            # The busy match is at the cut: every action acknowledged before it, none after.
            version = (await rival.get_view(busy)).version
            assert acked_before <= version < acked_after
        # Play resumes: the in-progress match finishes, with the seat tokens of before.
        while await step(target, in_progress, tokens) is not None:
            pass
        async with AsyncClient(target, api_key=stack.api_keys["acme"]) as again:
            assert (await again.get_view(in_progress)).finished
            assert (await again.audit(in_progress)).ok

    asyncio.run(go())
