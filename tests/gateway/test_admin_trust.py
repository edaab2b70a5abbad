"""Issue 39, keys and tenants, end to end on two real gateway replicas and one Redis: tokens die
with the key that minted them, a deleted tenant's id is never given again, a suspension stops
turn timers (and a resume gives every clock its full time), offboarding is a job that survives a
killed gateway, and tenant records written outside the admin log are neither served nor missed."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from guildhall.admin.v1 import admin_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2

from devstack.stack import Stack, TenantSpec
from gateway.archive import DirectoryArchive, archive_name, decode
from gateway.auth import hash_key, new_api_key
from gateway.eventstore.base import MatchKey
from tests.gateway.test_admin import (
    GAME,
    admin_stub,
    bearer,
    code_of,
    create_tenant,
    gw_stub,
    lists_games,
    new_key,
    play_a_little,
    refused,
    tenant_keys,
    within,
)

TENANTS = "gh:{admin}:tenants"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("admin-trust")
    with Stack(
        [GAME],
        gateways=2,
        tenants=[TenantSpec("acme")],
        work_dir=work,
        log_dir=work / "logs",
        gateway_env={
            "USAGE_FLUSH_SECONDS": "0.5",
            "ARCHIVE_RETENTION_SECONDS": "0",
            "GRACE_SECONDS": "1",
            "OFFBOARD_LEASE_SECONDS": "3",  # a killed replica's job is taken over within seconds
        },
        start_timeout_s=60.0,
    ) as running:
        yield running


def view_code(target: str, match_id: str, token: str) -> grpc.StatusCode:
    return code_of(
        lambda: gw_stub(target).GetView(gateway_pb2.GetViewRequest(match_id=match_id), metadata=bearer(token))
    )


def watch_in_background(target: str, match_id: str, token: str) -> tuple[dict[str, bool], dict[str, Any]]:
    """A Watch stream on its own thread: `started` once it delivered, `ended` with its error."""
    started: dict[str, bool] = {}
    ended: dict[str, Any] = {}

    def watch() -> None:
        stream = gw_stub(target).Watch(gateway_pb2.WatchRequest(match_id=match_id), metadata=bearer(token))
        try:
            for _update in stream:
                started["yes"] = True
        except grpc.RpcError as error:
            ended["error"] = error

    threading.Thread(target=watch, daemon=True).start()
    within(lambda: bool(started), 10.0)
    return started, ended


def admin(stack: Stack, replica: int = 0) -> Any:
    return admin_stub(stack.admin_targets[replica])


# -- item 6: revoked keys -------------------------------------------------------------------------


def test_seat_and_spectator_tokens_minted_with_a_revoked_key_stop_working_on_both_replicas(
    stack: Stack,
) -> None:
    create_tenant(stack, "revoking")
    key = new_key(stack, "revoking", key_id="app")
    backend = new_key(stack, "revoking", key_id="backend")
    within(
        lambda: lists_games(stack.gateway_targets[1], key) and lists_games(stack.gateway_targets[1], backend)
    )
    created = gw_stub(stack.gateway_targets[0]).CreateMatch(
        gateway_pb2.CreateMatchRequest(game_id=GAME, players=["ann", "bob"]), metadata=bearer(key)
    )
    match_id, seat, spectator = created.match_id, created.seats[0].token, created.spectator_token
    kept = (
        gw_stub(stack.gateway_targets[1])
        .IssueToken(gateway_pb2.IssueTokenRequest(match_id=match_id, seat=1), metadata=bearer(backend))
        .token
    )
    for target in stack.gateway_targets:
        for token in (seat, spectator, kept):
            assert view_code(target, match_id, token) == grpc.StatusCode.OK
    _started, ended = watch_in_background(stack.gateway_targets[1], match_id, seat)

    admin(stack).RevokeApiKey(
        pb.RevokeApiKeyRequest(tenant_id="revoking", key_id="app"), metadata=bearer(stack.admin_key)
    )
    started = time.monotonic()
    for target in stack.gateway_targets:  # within the bound the key's own revocation has
        within(lambda t=target: view_code(t, match_id, seat) == grpc.StatusCode.UNAUTHENTICATED)
        within(lambda t=target: view_code(t, match_id, spectator) == grpc.StatusCode.UNAUTHENTICATED)
        submitted = code_of(
            lambda t=target: gw_stub(t).SubmitAction(
                gateway_pb2.SubmitActionRequest(match_id=match_id, command_id="after-revoke"),
                metadata=bearer(seat),
            )
        )
        assert submitted == grpc.StatusCode.UNAUTHENTICATED
        assert view_code(target, match_id, kept) == grpc.StatusCode.OK  # another key's token lives on
    took = time.monotonic() - started
    print(f"the revoked key's tokens refused by both replicas {took:.3f} s after the call")
    within(lambda: "error" in ended)  # the stream opened with the token ended too
    assert ended["error"].code() == grpc.StatusCode.PERMISSION_DENIED
    assert "revoked" in (ended["error"].details() or "")

    # The key id given to a new key: the old key's tokens stay dead (they name the key, not its id).
    again = new_key(stack, "revoking", key_id="app")
    within(lambda: lists_games(stack.gateway_targets[1], again))
    for target in stack.gateway_targets:
        assert view_code(target, match_id, seat) == grpc.StatusCode.UNAUTHENTICATED


# -- item 7: a deleted tenant's id ----------------------------------------------------------------


def test_a_deleted_tenants_id_is_never_created_again_and_its_tokens_stay_refused(stack: Stack) -> None:
    create_tenant(stack, "once")
    key = new_key(stack, "once")
    within(lambda: lists_games(stack.gateway_targets[1], key))
    created = gw_stub(stack.gateway_targets[0]).CreateMatch(
        gateway_pb2.CreateMatchRequest(game_id=GAME, players=["ann", "bob"], match_id="m1"),
        metadata=bearer(key),
    )
    done = admin(stack).DeleteTenant(
        pb.DeleteTenantRequest(tenant_id="once", force=True), metadata=bearer(stack.admin_key), timeout=30
    )
    assert done.state == "done", done
    with pytest.raises(grpc.RpcError) as refusal:
        create_tenant(stack, "once")
    assert refusal.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "never reused" in (refusal.value.details() or "")
    for target in stack.gateway_targets:
        assert view_code(target, "m1", created.seats[0].token) == grpc.StatusCode.UNAUTHENTICATED


# -- item 8: suspension stops turn timers ---------------------------------------------------------


def match_version(client: redis.Redis, tenant: str, match_id: str) -> int:
    return int(client.hget(f"gh:{{{tenant}:{match_id}}}:meta", "version") or 0)


def armed_deadlines(url: str, key: MatchKey) -> list[int]:
    import redis.asyncio

    from gateway.timers import TurnTimers

    async def read() -> list[int]:
        client = redis.asyncio.Redis.from_url(url)
        try:
            return [t.deadline_ms for t in await TurnTimers(client).armed(key)]
        finally:
            await client.aclose()

    return asyncio.run(read())


def actions_billed(stack: Stack, tenant: str) -> int:
    today = time.strftime("%Y-%m-%d", time.gmtime())
    rows = (
        admin(stack)
        .GetUsage(pb.GetUsageRequest(tenant_id=tenant, start=today), metadata=bearer(stack.admin_key))
        .rows
    )
    return sum(row.counters.get("actions_accepted", 0) for row in rows)


def test_a_suspension_stops_turn_timers_and_a_resume_gives_every_clock_its_full_time(stack: Stack) -> None:
    create_tenant(stack, "paused")
    key = new_key(stack, "paused")
    within(lambda: lists_games(stack.gateway_targets[1], key))
    client = redis.Redis.from_url(stack.redis_url)
    created = gw_stub(stack.gateway_targets[0]).CreateMatch(
        gateway_pb2.CreateMatchRequest(
            game_id=GAME,
            players=["ann", "bob"],
            turn_timer=gateway_pb2.TurnTimer(seconds=1, policy="random_action"),
        ),
        metadata=bearer(key),
    )
    admin(stack).SuspendTenant(pb.SuspendTenantRequest(tenant_id="paused"), metadata=bearer(stack.admin_key))
    for target in stack.gateway_targets:
        within(lambda t=target: refused(t, key))
    suspended_at = match_version(client, "paused", created.match_id)
    time.sleep(1.0)  # the usage flushed (every 0.5 s here) with whatever was counted before
    billed = actions_billed(stack, "paused")
    time.sleep(3.0)  # three turn times: an active tenant's timer would have played three times
    assert match_version(client, "paused", created.match_id) == suspended_at  # no action, no forfeit
    assert actions_billed(stack, "paused") == billed  # and nothing billed
    assert armed_deadlines(stack.redis_url, MatchKey("paused", created.match_id))  # parked, not lost

    resumed_ms = int(time.time() * 1000)
    admin(stack, 1).ResumeTenant(pb.ResumeTenantRequest(tenant_id="paused"), metadata=bearer(stack.admin_key))
    # Every clock restarts with its whole turn time, counted from the resume.
    within(
        lambda: all(
            d >= resumed_ms + 1000
            for d in armed_deadlines(stack.redis_url, MatchKey("paused", created.match_id))
        )
    )
    within(lambda: match_version(client, "paused", created.match_id) > suspended_at, 10.0)  # and runs again


# -- item 9: offboarding is a job ------------------------------------------------------------------


def job(client: redis.Redis, tenant: str) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in client.hgetall(f"gh:{{admin}}:offboarding:{tenant}").items()}


def test_offboarding_answers_within_the_callers_deadline_and_survives_a_killed_gateway(stack: Stack) -> None:
    create_tenant(stack, "leaving")
    key = new_key(stack, "leaving")
    within(lambda: lists_games(stack.gateway_targets[1], key))
    finished = play_a_little(stack.gateway_targets[1], key)  # usage counted and flushed
    gw = gw_stub(stack.gateway_targets[1])
    running = [
        gw.CreateMatch(
            gateway_pb2.CreateMatchRequest(game_id=GAME, players=["ann", "bob"]), metadata=bearer(key)
        )
        for _ in range(80)
    ]
    _started, ended = watch_in_background(
        stack.gateway_targets[1], running[0].match_id, running[0].seats[0].token
    )
    client = redis.Redis.from_url(stack.redis_url)
    within(lambda: bool(list(client.scan_iter(match="gh:usage:{leaving}:*"))), 5.0)

    # A caller with a 1 s deadline: the answer is the job's progress, not DEADLINE_EXCEEDED.
    first = admin(stack).DeleteTenant(
        pb.DeleteTenantRequest(tenant_id="leaving", force=True), metadata=bearer(stack.admin_key), timeout=1.0
    )
    assert first.state == "running" and first.phase in ("suspending", "settling"), first
    within(lambda: "error" in ended)  # the suspension ended the tenant's streams

    # Killed mid-way through archiving: the other replica takes the job over and finishes it.
    within(lambda: int(job(client, "leaving").get("matches_archived", 0)) > 0, 20.0)
    stack.stop_gateway(0, kill=True)
    at_kill = job(client, "leaving")
    assert at_kill["phase"] == "archiving" and int(at_kill["matches_archived"]) < len(running) + 1
    try:
        deadline = time.monotonic() + 60
        progress = None
        while time.monotonic() < deadline:
            progress = admin(stack, 1).DeleteTenant(
                pb.DeleteTenantRequest(tenant_id="leaving", force=True),
                metadata=bearer(stack.admin_key),
                timeout=5,
            )
            if progress.state != "running":
                break
        assert progress is not None and progress.state == "done", progress
        assert progress.archive_verified and progress.finished_ms >= progress.started_ms > 0
    finally:
        stack.start_gateway(0)

    archive = DirectoryArchive(Path(stack.work_dir) / "archive")
    for match_id in [finished] + [m.match_id for m in running]:
        blob = archive.get(archive_name(MatchKey("leaving", match_id)))
        assert blob is not None and decode(blob).audit().ok, match_id
    assert tenant_keys(client, "leaving") == []
    time.sleep(2.0)  # four usage flushes on each replica: the usage keys do not come back
    assert tenant_keys(client, "leaving") == []
    log = admin(stack, 1).ListAdminLog(pb.ListAdminLogRequest(limit=1000), metadata=bearer(stack.admin_key))
    mine = [e for e in log.entries if e.tenant_id == "leaving"]
    actions = [e.action for e in mine]
    assert actions.count("delete_tenant") == 1 and actions.count("tenant_deleted") == 1
    assert actions[-1] == "tenant_deleted" and json.loads(mine[-1].after_json)["deleted"] is True
    assert (
        code_of(
            lambda: admin(stack, 1).GetTenant(
                pb.GetTenantRequest(tenant_id="leaving"), metadata=bearer(stack.admin_key)
            )
        )
        == grpc.StatusCode.NOT_FOUND
    )
    again = admin(stack, 0).DeleteTenant(
        pb.DeleteTenantRequest(tenant_id="leaving"), metadata=bearer(stack.admin_key)
    )
    assert (
        again.state == "done" and again.matches_archived == progress.matches_archived
    )  # it reports, nothing more


# -- item 10: records the admin log does not explain ----------------------------------------------


def unexplained(stack: Stack) -> dict[str, str]:
    report = admin(stack).VerifyAdminLog(pb.VerifyAdminLogRequest(), metadata=bearer(stack.admin_key))
    return {u.tenant_id: u.problem for u in report.unexplained}


def test_tenant_records_written_outside_the_admin_log_are_not_served_and_are_reported(stack: Stack) -> None:
    client = redis.Redis.from_url(stack.redis_url)
    intruder_key, injected = new_api_key(), new_api_key()
    key_entry = {"id": "x", "sha256": hash_key(intruder_key), "scopes": ["tenant"]}
    client.hset(TENANTS, "intruder", json.dumps({"body": {"keys": [key_entry]}, "suspended": False}))
    create_tenant(stack, "honest")
    honest_key = new_key(stack, "honest", key_id="real")
    for target in stack.gateway_targets:  # every replica holds the explained record first
        within(lambda t=target: lists_games(t, honest_key))
    record = json.loads(client.hget(TENANTS, "honest"))
    record["body"]["keys"].append(
        {"id": "evil", "sha256": hash_key(injected), "scopes": ["tenant", "auditor"]}
    )
    client.hset(TENANTS, "honest", json.dumps(record))
    create_tenant(stack, "poke")  # an admin change after the writes: every replica reloads
    poke = new_key(stack, "poke")
    for target in stack.gateway_targets:
        within(lambda t=target: lists_games(t, poke))
        assert refused(target, intruder_key) and refused(target, injected)
        assert lists_games(target, honest_key)  # a replica keeps the record the log explained

    found = unexplained(stack)
    assert "no admin log entry wrote this record" in found["intruder"]
    assert "keys not in the log: ['evil']" in found["honest"]
    update = pb.UpdateTenantRequest(
        tenant_id="honest", settings=pb.TenantSettings(quotas=pb.Quotas(active_matches=3))
    )
    with pytest.raises(grpc.RpcError) as refusal:  # no change ever builds on (and blesses) it
        admin(stack).UpdateTenant(update, metadata=bearer(stack.admin_key))
    assert refusal.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "restore-tenant" in (refusal.value.details() or "")

    restored = admin(stack, 1).RestoreTenant(
        pb.RestoreTenantRequest(tenant_id="honest"), metadata=bearer(stack.admin_key)
    )
    assert restored.changed and [k.key_id for k in restored.tenant.keys] == ["real"]
    removed = admin(stack, 1).RestoreTenant(
        pb.RestoreTenantRequest(tenant_id="intruder"), metadata=bearer(stack.admin_key)
    )
    assert removed.removed and client.hget(TENANTS, "intruder") is None
    found = unexplained(stack)
    assert "honest" not in found and "intruder" not in found
    admin(stack).UpdateTenant(update, metadata=bearer(stack.admin_key))  # changes work again
    for target in stack.gateway_targets:
        within(lambda t=target: refused(t, injected))
        assert lists_games(target, honest_key)
