"""Webhooks end to end (issue 23): two real gateway replicas, real Redis, a real HTTP receiver
that verifies every signature with the client library's helper. Deliveries arrive at least once,
signed; a replica killed while its receiver holds a delivery open loses nothing (the other
replica sends it again once the lease runs out); a receiver that keeps failing leaves dead
letters after the retry budget, which `guildhall webhooks` lists and replays."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from devstack.stack import Stack
from gateway.auth import hash_key, new_api_key
from guildhall_client.aio import AsyncClient
from guildhall_client.webhooks import SIGNATURE_HEADER, WebhookError, WebhookEvent, verify

ROOT = Path(__file__).resolve().parents[2]
SECRET = "whsec_end_to_end_secret_0001"
GAME = "rattus_cartus"


class Receiver:
    """POST /<tenant>: verify, then record (or fail with 500, or hold the request open)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, WebhookEvent]] = []  # (path, event), every verified arrival
        self.refused = 0
        self.failing: set[str] = set()
        self.hold: set[str] = set()  # paths whose first match.ended is held open
        self.held = threading.Event()
        self.release = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    event = verify(body, self.headers.get(SIGNATURE_HEADER), [SECRET])
                except WebhookError:
                    receiver.refused += 1
                    self.send_error(400)
                    return
                path = self.path.strip("/")
                if path in receiver.failing:
                    self.send_error(500)
                    return
                if path in receiver.hold and event.type == "match.ended" and not receiver.held.is_set():
                    receiver.events.append((path + ":held", event))
                    receiver.held.set()
                    receiver.release.wait(30)  # the gateway sending this is killed meanwhile
                    return
                receiver.events.append((path, event))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def of(self, path: str, kind: str | None = None, match_id: str | None = None) -> list[WebhookEvent]:
        return [
            e
            for p, e in self.events
            if p == path
            and (kind is None or e.type == kind)
            and (match_id is None or e.data.get("match_id") == match_id)
        ]


def tenant(key: str, url: str, **hooks: Any) -> dict[str, Any]:
    return {
        "keys": [{"id": "k1", "sha256": hash_key(key), "scopes": ["tenant", "auditor"]}],
        "webhooks": {
            "secrets": [SECRET],
            "endpoints": [{"id": "main", "url": url, "events": ["*"]}],
            **hooks,
        },
    }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, Receiver, dict[str, str]]]:
    receiver = Receiver()
    keys = {name: new_api_key() for name in ("acme", "flaky", "stall")}
    document = {
        "tenants": {
            "acme": tenant(keys["acme"], f"{receiver.url}/acme"),
            "flaky": tenant(keys["flaky"], f"{receiver.url}/flaky", max_attempts=3, backoff_seconds=0.1),
            "stall": tenant(keys["stall"], f"{receiver.url}/stall"),
        }
    }
    work = tmp_path_factory.mktemp("webhooks")
    stack = Stack(
        [GAME],
        gateways=2,
        tenants=document,
        work_dir=work,
        log_dir=work / "logs",
        gateway_env={
            "WEBHOOK_LEASE_SECONDS": "2",
            "WEBHOOK_GRACE_SECONDS": "2",
            "GRACE_SECONDS": "1",
            "WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8,::1/128",  # the receiver is on this machine
        },
        start_timeout_s=60.0,
    )
    with stack:
        yield stack, receiver, keys
    receiver.release.set()
    receiver.server.shutdown()


def wait_for(check: Callable[[], Any], timeout_s: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def resigned_match(target: str, key: str) -> str:
    """A two-seat match whose second seat resigns: match.created, seat.resigned, match.ended."""

    async def play() -> str:
        async with AsyncClient(target, api_key=key) as gh:
            created = await gh.create_match(GAME, ["ann", "bob"])
            await gh.seat(created.match_id, created.seats[1].token).resign()
            return created.match_id

    return asyncio.run(play())


def test_deliveries_arrive_signed_once_per_event_with_the_outcome_and_ratings(world: Any) -> None:
    stack, receiver, keys = world
    match_id = resigned_match(stack.gateway_targets[0], keys["acme"])
    # Deliveries come in no guaranteed order (docs/gateway.md): each is waited for.
    ended = wait_for(lambda: receiver.of("acme", "match.ended", match_id))[0]
    created = wait_for(lambda: receiver.of("acme", "match.created", match_id))[0]
    resigned = wait_for(lambda: receiver.of("acme", "seat.resigned", match_id))[0]
    assert receiver.refused == 0  # every delivery verified with the tenant's secret
    assert len({created.id, resigned.id, ended.id}) == 3 and ended.tenant == "acme"
    assert [p["player_id"] for p in created.data["players"]] == ["ann", "bob"]
    assert resigned.data["seat"] == 1 and resigned.data["player_id"] == "bob"
    assert ended.data["reason"] == "resigned" and ended.data["winners"] == [0]
    assert [(p["rank"], p["left"]) for p in ended.data["players"]] == [(1, False), (2, True)]
    ann, bob = ended.data["ratings"]
    assert ann["mu_after"] > ann["mu_before"] > bob["mu_after"]

    async def rated() -> Any:
        async with AsyncClient(stack.gateway_targets[1], api_key=keys["acme"]) as gh:
            return await gh.ratings(GAME, ["ann", "bob"]), await gh.leaderboard(GAME)

    ratings, board = asyncio.run(rated())
    assert [r.player_id for r in board.ratings][:2] == ["ann", "bob"]
    assert ratings[0].mu == pytest.approx(ann["mu_after"])


def test_a_replica_killed_mid_delivery_loses_nothing(world: Any) -> None:
    stack, receiver, keys = world
    receiver.hold.add("stall")
    match_id = resigned_match(stack.gateway_targets[0], keys["stall"])
    wait_for(receiver.held.is_set)  # gateway-0 is sending match.ended; the receiver holds it
    held = receiver.of("stall:held", "match.ended", match_id)[0]
    stack.stop_gateway(0, kill=True)
    try:
        again = wait_for(lambda: receiver.of("stall", "match.ended", match_id), timeout_s=45)[0]
    finally:
        receiver.release.set()
        stack.start_gateway(0)
    assert again.id == held.id and again.raw == held.raw  # the same delivery, sent by gateway-1


def test_a_failing_endpoint_leaves_dead_letters_that_the_cli_lists_and_replays(world: Any) -> None:
    stack, receiver, keys = world
    receiver.failing.add("flaky")
    match_id = resigned_match(stack.gateway_targets[0], keys["flaky"])

    async def dead() -> list[Any]:
        async with AsyncClient(stack.gateway_targets[1], api_key=stack.operator_key) as ops:
            letters, _ = await ops.dead_letters("flaky")
            return [d for d in letters if json.loads(d.body)["data"]["match_id"] == match_id]

    letters = wait_for(lambda: len(asyncio.run(dead())) == 3 and asyncio.run(dead()))
    assert {d.event_type for d in letters} == {"match.created", "seat.resigned", "match.ended"}
    assert all(d.attempts == 3 and d.last_error == "HTTP 500" for d in letters)
    assert not receiver.of("flaky")

    env = {
        **os.environ,
        "GUILDHALL_TARGET": stack.gateway_targets[0],
        "GUILDHALL_API_KEY": stack.operator_key,
        "GUILDHALL_CONFIG": str(stack.work_dir / "no-config.toml"),
    }
    cli = [sys.executable, "-m", "guildhall_client.cli", "webhooks"]
    listed = subprocess.run(
        [*cli, "dead", "--tenant", "flaky", "--json"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert {r["delivery_id"] for r in rows} >= {d.delivery_id for d in letters}
    receiver.failing.discard("flaky")
    replayed = subprocess.run(
        [*cli, "replay", "--tenant", "flaky", "--all"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert replayed.returncode == 0 and "queued again" in replayed.stdout, replayed.stderr
    ended = wait_for(lambda: receiver.of("flaky", "match.ended", match_id))[0]
    assert ended.id == next(d.event_id for d in letters if d.event_type == "match.ended")
    assert asyncio.run(dead()) == []


def test_only_operators_see_dead_letters(world: Any) -> None:
    stack, _, keys = world
    from guildhall_client import errors

    async def as_tenant() -> None:
        async with AsyncClient(stack.gateway_targets[0], api_key=keys["acme"]) as gh:
            await gh.dead_letters("acme")

    with pytest.raises(errors.PermissionDenied):
        asyncio.run(as_tenant())
