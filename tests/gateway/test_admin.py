"""The admin API (issue 34) end to end: two real gateway replicas on one Redis. Tenants created,
changed, suspended and deleted at runtime; keys created and revoked; every change applied by
both replicas within 2 s; usage counted and flushed; offboarding; the hash-chained admin log."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from guildhall.admin.v1 import admin_pb2 as pb
from guildhall.admin.v1 import admin_pb2_grpc
from guildhall.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from devstack.stack import Stack, TenantSpec
from gateway.admin.offboard import tenant_patterns
from gateway.archive import DirectoryArchive, archive_name, decode
from gateway.eventstore.base import MatchKey

GAME = "rattus_cartus"
PROPAGATION_S = 2.0  # the bound the issue sets: every replica applies a change within it


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("admin")
    with Stack(
        [GAME],
        gateways=2,
        tenants=[TenantSpec("acme"), TenantSpec("rival")],
        work_dir=work,
        log_dir=work / "logs",
        gateway_env={"USAGE_FLUSH_SECONDS": "0.5", "ARCHIVE_RETENTION_SECONDS": "0", "GRACE_SECONDS": "1"},
        start_timeout_s=60.0,
    ) as running:
        yield running


def admin_stub(target: str) -> admin_pb2_grpc.AdminServiceStub:
    return admin_pb2_grpc.AdminServiceStub(grpc.insecure_channel(target))


def gw_stub(target: str) -> gateway_pb2_grpc.GatewayServiceStub:
    return gateway_pb2_grpc.GatewayServiceStub(grpc.insecure_channel(target))


def bearer(key: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {key}")]


def code_of(call: Callable[[], Any]) -> grpc.StatusCode:
    try:
        call()
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


def within(check: Callable[[], bool], bound_s: float = PROPAGATION_S) -> float:
    """Seconds until `check` holds; fails past the bound (a bounded wait loop, nothing tighter)."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > bound_s:
            raise AssertionError(f"not applied within {bound_s} s")
        time.sleep(0.02)
    return time.monotonic() - started


def lists_games(target: str, key: str) -> bool:
    return code_of(
        lambda: gw_stub(target).ListGames(gateway_pb2.ListGamesRequest(), metadata=bearer(key))
    ) == (grpc.StatusCode.OK)


def refused(target: str, key: str) -> bool:
    return code_of(
        lambda: gw_stub(target).ListGames(gateway_pb2.ListGamesRequest(), metadata=bearer(key))
    ) in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)


def create_tenant(stack: Stack, tenant_id: str, **settings: Any) -> pb.Tenant:
    request = pb.CreateTenantRequest(tenant_id=tenant_id, settings=pb.TenantSettings(**settings))
    return admin_stub(stack.admin_targets[0]).CreateTenant(request, metadata=bearer(stack.admin_key)).tenant


def new_key(stack: Stack, tenant_id: str, replica: int = 0, **fields: Any) -> str:
    response = admin_stub(stack.admin_targets[replica]).CreateApiKey(
        pb.CreateApiKeyRequest(tenant_id=tenant_id, **fields), metadata=bearer(stack.admin_key)
    )
    assert response.api_key.startswith("ghk_")
    return response.api_key


def test_tenant_crud_and_settings(stack: Stack) -> None:
    admin = admin_stub(stack.admin_targets[1])
    md = bearer(stack.admin_key)
    created = create_tenant(
        stack,
        "crud",
        quotas=pb.Quotas(active_matches=7),
        turn_timer=pb.TurnTimer(seconds=30, policy="forfeit"),
    )
    assert created.quotas.active_matches == 7 and created.quotas.open_tickets == 1000  # defaults filled in
    assert created.turn_timer.seconds == 30 and created.turn_timer.policy == "forfeit"
    assert code_of(lambda: create_tenant(stack, "crud")) == grpc.StatusCode.ALREADY_EXISTS
    updated = admin.UpdateTenant(
        pb.UpdateTenantRequest(
            tenant_id="crud",
            settings=pb.TenantSettings(
                quotas=pb.Quotas(actions_per_second=5),
                bots=pb.BotSettings(ticket_wait_seconds=12),
                webhooks_json=json.dumps(
                    {
                        "secrets": ["whsec_admin_test_secret_01"],
                        "endpoints": [{"id": "m", "url": "https://x.test/h"}],
                    }
                ),
            ),
        ),
        metadata=md,
    ).tenant
    assert updated.quotas.active_matches == 7 and updated.quotas.actions_per_second == 5  # merged
    assert updated.bots.ticket_wait_seconds == 12
    assert "whsec_admin_test_secret_01" not in updated.webhooks_json and "<redacted>" in updated.webhooks_json
    got = admin.GetTenant(pb.GetTenantRequest(tenant_id="crud"), metadata=md).tenant
    assert got == updated
    listed = admin.ListTenants(pb.ListTenantsRequest(), metadata=md).tenants
    assert {"acme", "rival", "crud"} <= {t.tenant_id for t in listed}  # the file seeded acme, rival
    removed = admin.UpdateTenant(
        pb.UpdateTenantRequest(tenant_id="crud", settings=pb.TenantSettings(webhooks_json="null")),
        metadata=md,
    ).tenant
    assert removed.webhooks_json == ""


def test_bad_input(stack: Stack) -> None:
    admin = admin_stub(stack.admin_targets[0])
    md = bearer(stack.admin_key)
    assert code_of(lambda: admin.GetTenant(pb.GetTenantRequest(tenant_id="nobody"), metadata=md)) == (
        grpc.StatusCode.NOT_FOUND
    )
    assert (
        code_of(
            lambda: admin.RevokeApiKey(pb.RevokeApiKeyRequest(tenant_id="nobody", key_id="k1"), metadata=md)
        )
        == grpc.StatusCode.NOT_FOUND
    )
    assert (
        code_of(
            lambda: admin.GetUsage(pb.GetUsageRequest(tenant_id="nobody", start="2024-01-01"), metadata=md)
        )
        == grpc.StatusCode.NOT_FOUND
    )
    for quotas in (pb.Quotas(active_matches=0), pb.Quotas(actions_per_second=-1)):
        update = pb.UpdateTenantRequest(tenant_id="acme", settings=pb.TenantSettings(quotas=quotas))
        assert code_of(lambda u=update: admin.UpdateTenant(u, metadata=md)) == (
            grpc.StatusCode.INVALID_ARGUMENT
        )
    bad_timer = pb.UpdateTenantRequest(
        tenant_id="acme", settings=pb.TenantSettings(turn_timer=pb.TurnTimer(policy="explode"))
    )
    assert code_of(lambda: admin.UpdateTenant(bad_timer, metadata=md)) == grpc.StatusCode.INVALID_ARGUMENT
    assert code_of(lambda: create_tenant(stack, "bad id!")) == grpc.StatusCode.INVALID_ARGUMENT
    assert (
        code_of(
            lambda: admin.CreateApiKey(
                pb.CreateApiKeyRequest(tenant_id="acme", scopes=["admin"]), metadata=md
            )
        )
        == grpc.StatusCode.INVALID_ARGUMENT
    )  # a tenant key never gets an operator scope
    assert (
        admin.GetTenant(pb.GetTenantRequest(tenant_id="acme"), metadata=md).tenant.quotas.active_matches > 0
    )


def test_non_admin_credentials_are_denied(stack: Stack) -> None:
    admin = admin_stub(stack.admin_targets[0])
    for key in (stack.api_keys["acme"], stack.operator_key, stack.botworker_key):
        assert code_of(lambda k=key: admin.ListTenants(pb.ListTenantsRequest(), metadata=bearer(k))) == (
            grpc.StatusCode.PERMISSION_DENIED
        )
    assert code_of(lambda: admin.ListTenants(pb.ListTenantsRequest())) == grpc.StatusCode.UNAUTHENTICATED
    # and the admin key is no tenant's: it cannot play
    assert (
        code_of(
            lambda: gw_stub(stack.gateway_targets[0]).ListGames(
                gateway_pb2.ListGamesRequest(), metadata=bearer(stack.admin_key)
            )
        )
        == grpc.StatusCode.PERMISSION_DENIED
    )


def test_a_created_key_works_at_once_on_both_replicas_and_a_revoked_one_is_refused_within_2s(
    stack: Stack,
) -> None:
    create_tenant(stack, "keys")
    key = new_key(stack, "keys", key_id="app")
    # At once on the replica that created it, and within the bound on the other.
    assert lists_games(stack.gateway_targets[0], key)
    within(lambda: lists_games(stack.gateway_targets[1], key))
    listed = (
        admin_stub(stack.admin_targets[1])
        .ListApiKeys(pb.ListApiKeysRequest(tenant_id="keys"), metadata=bearer(stack.admin_key))
        .keys
    )
    assert [k.key_id for k in listed] == ["app"] and listed[0].sha256_prefix and listed[0].created_ms > 0
    admin_stub(stack.admin_targets[0]).RevokeApiKey(
        pb.RevokeApiKeyRequest(tenant_id="keys", key_id="app"), metadata=bearer(stack.admin_key)
    )
    started = time.monotonic()
    for target in stack.gateway_targets:
        within(lambda t=target: refused(t, key), PROPAGATION_S - (time.monotonic() - started))
    print(f"revocation applied by both replicas in {time.monotonic() - started:.3f} s")


def test_suspend_ends_open_streams_and_resume_restores(stack: Stack) -> None:
    create_tenant(stack, "susp")
    key = new_key(stack, "susp")
    within(lambda: lists_games(stack.gateway_targets[1], key))
    created = gw_stub(stack.gateway_targets[0]).CreateMatch(
        gateway_pb2.CreateMatchRequest(game_id=GAME, players=["ann", "bob"]), metadata=bearer(key)
    )
    seat_token = created.seats[0].token
    ended: dict[int, grpc.RpcError] = {}
    started: dict[int, Any] = {}

    def watch(replica: int) -> None:
        stream = gw_stub(stack.gateway_targets[replica]).Watch(
            gateway_pb2.WatchRequest(match_id=created.match_id), metadata=bearer(seat_token)
        )
        try:
            for _update in stream:
                started[replica] = True
        except grpc.RpcError as error:
            ended[replica] = error

    import threading

    threads = [threading.Thread(target=watch, args=(r,), daemon=True) for r in (0, 1)]
    for thread in threads:
        thread.start()
    within(lambda: len(started) == 2, 10.0)
    admin_stub(stack.admin_targets[0]).SuspendTenant(
        pb.SuspendTenantRequest(tenant_id="susp", reason="unpaid"), metadata=bearer(stack.admin_key)
    )
    within(lambda: len(ended) == 2)
    for error in ended.values():
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "tenant suspended" in (error.details() or "")
    for target in stack.gateway_targets:
        within(lambda t=target: refused(t, key))
        denied = code_of(
            lambda t=target: gw_stub(t).GetView(
                gateway_pb2.GetViewRequest(match_id=created.match_id), metadata=bearer(seat_token)
            )
        )
        assert denied == grpc.StatusCode.PERMISSION_DENIED  # tokens too, not only keys
    admin_stub(stack.admin_targets[1]).ResumeTenant(
        pb.ResumeTenantRequest(tenant_id="susp"), metadata=bearer(stack.admin_key)
    )
    for target in stack.gateway_targets:
        within(lambda t=target: lists_games(t, key))


def play_a_little(target: str, key: str, game: str = GAME) -> str:
    """A match with a few accepted actions, then a resignation that ends it."""
    from guildhall_client.aio import AsyncClient

    async def play() -> str:
        async with AsyncClient(target, api_key=key) as gh:
            created = await gh.create_match(game, ["ann", "bob"])
            for _ in range(3):
                for seat_info in created.seats:
                    seat = gh.seat(created.match_id, seat_info.token)
                    view = await seat.view()
                    if view.legal_actions:
                        await seat.submit(view.legal_actions[0])
                        break
            await gh.seat(created.match_id, created.seats[1].token).resign()
            return created.match_id

    return asyncio.run(play())


def test_usage_is_counted_flushed_and_read_per_hour_and_day(stack: Stack) -> None:
    create_tenant(stack, "billing")
    key = new_key(stack, "billing")
    within(lambda: lists_games(stack.gateway_targets[1], key))
    play_a_little(stack.gateway_targets[1], key)
    admin = admin_stub(stack.admin_targets[0])
    today = time.strftime("%Y-%m-%d", time.gmtime())

    def usage(granularity: str) -> dict[str, int]:
        rows = admin.GetUsage(
            pb.GetUsageRequest(tenant_id="billing", start=today, granularity=granularity),
            metadata=bearer(stack.admin_key),
        ).rows
        total: dict[str, int] = {}
        for row in rows:
            for name, value in row.counters.items():
                total[name] = total.get(name, 0) + value
        return total

    within(lambda: usage("day").get("matches_finished", 0) == 1, 10.0)  # flushed every 0.5 s here
    day = usage("day")
    assert day["matches_created"] == 1
    assert day["actions_accepted"] >= 1
    assert day["events_stored"] >= 3 and day["bytes_stored"] > 100
    assert usage("hour") == day  # the same counts by the hour, today


def tenant_keys(client: redis.Redis, tenant: str) -> list[bytes]:
    return [k for pattern in tenant_patterns(tenant) for k in client.scan_iter(match=pattern)]


def test_delete_tenant_refused_while_running_then_forced_archives_verifies_and_removes_every_key(
    stack: Stack,
) -> None:
    create_tenant(stack, "leaving")
    key = new_key(stack, "leaving")
    within(lambda: lists_games(stack.gateway_targets[1], key))
    finished = play_a_little(stack.gateway_targets[0], key)
    running = gw_stub(stack.gateway_targets[1]).CreateMatch(
        gateway_pb2.CreateMatchRequest(game_id=GAME, players=["ann", "bob"]), metadata=bearer(key)
    )
    client = redis.Redis.from_url(stack.redis_url)
    rival_before = sorted(tenant_keys(client, "rival")) + sorted(tenant_keys(client, "acme"))
    assert tenant_keys(client, "leaving")
    admin = admin_stub(stack.admin_targets[0])
    md = bearer(stack.admin_key)
    with pytest.raises(grpc.RpcError) as refusal:
        admin.DeleteTenant(pb.DeleteTenantRequest(tenant_id="leaving"), metadata=md)
    assert refusal.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "running" in (refusal.value.details() or "")
    assert lists_games(stack.gateway_targets[0], key)  # refused: nothing changed
    report = admin.DeleteTenant(pb.DeleteTenantRequest(tenant_id="leaving", force=True), metadata=md)
    assert report.matches_archived == 2 and report.running_matches_archived == 1
    assert report.archive_verified and report.keys_deleted > 0 and report.events_archived > 0
    assert tenant_keys(client, "leaving") == []  # SCAN: nothing of the tenant is left
    assert sorted(tenant_keys(client, "rival")) + sorted(tenant_keys(client, "acme")) == rival_before
    archive = DirectoryArchive(Path(stack.work_dir) / "archive")
    for match_id in (finished, running.match_id):
        blob = archive.get(archive_name(MatchKey("leaving", match_id)))
        assert blob is not None and decode(blob).audit().ok
    for target in stack.gateway_targets:
        within(lambda t=target: refused(t, key))
    assert code_of(lambda: admin.GetTenant(pb.GetTenantRequest(tenant_id="leaving"), metadata=md)) == (
        grpc.StatusCode.NOT_FOUND
    )


def test_every_admin_action_is_in_the_chained_log_and_an_edited_entry_is_detected(stack: Stack) -> None:
    create_tenant(stack, "logged")
    key = new_key(stack, "logged", key_id="secretive")
    admin = admin_stub(stack.admin_targets[1])
    md = bearer(stack.admin_key)
    log = admin.ListAdminLog(pb.ListAdminLogRequest(limit=1000), metadata=md)
    assert log.chain_ok, log.chain_problem
    mine = [e for e in log.entries if e.tenant_id == "logged"]
    assert [e.action for e in mine] == ["create_tenant", "create_key"]
    assert all(e.operator_key_id == "stack-admin" and e.time_ms > 0 for e in mine)
    assert key not in json.dumps([e.after_json for e in log.entries])  # the key itself is never logged
    from gateway.auth import hash_key

    assert hash_key(key) in mine[1].after_json and mine[1].before_json != mine[1].after_json
    later = admin.ListAdminLog(pb.ListAdminLogRequest(after_version=mine[0].version, limit=1), metadata=md)
    assert [e.version for e in later.entries] == [mine[1].version]
    # Tamper: rewrite the stream with one entry's payload changed (a forged "after").
    client = redis.Redis.from_url(stack.redis_url)
    entries = client.xrange("gh:{admin}:log")
    import msgspec

    target_id, fields = entries[mine[0].version - 1]
    record = list(msgspec.msgpack.decode(fields[b"e"]))
    record[1] = record[1].replace(b'"logged"', b'"forged"')
    pipe = client.pipeline(transaction=True)
    pipe.delete("gh:{admin}:log")
    for entry_id, entry_fields in entries:
        value = msgspec.msgpack.encode(record) if entry_id == target_id else entry_fields[b"e"]
        pipe.xadd("gh:{admin}:log", {"e": value}, id=entry_id)
    pipe.execute()
    tampered = admin.ListAdminLog(pb.ListAdminLogRequest(limit=1), metadata=md)
    assert not tampered.chain_ok and tampered.first_bad_version == mine[0].version


def test_every_admin_rpc_is_in_the_scope_table_and_served_over_connect() -> None:
    """Connect (HTTP) serves the same servicer: every AdminService RPC is mapped, admin scopes only
    (issue 43: the read role's RPCs also to `admin_read`)."""
    from guildhall.admin.v1.admin_pb2_grpc import AdminServiceServicer

    from gateway.api.admin import AdminServicer
    from gateway.api.connect import ConnectService
    from gateway.auth import ADMIN, ADMIN_READ, ADMIN_READ_RPCS, SCOPES

    service = pb.DESCRIPTOR.services_by_name["AdminService"]
    names = [m.name for m in service.methods]
    assert set(names) > ADMIN_READ_RPCS
    for name in names:
        assert SCOPES[name] == (
            frozenset({ADMIN, ADMIN_READ}) if name in ADMIN_READ_RPCS else frozenset({ADMIN})
        )
    adapter = ConnectService(AdminServicer.__new__(AdminServicer), service, AdminServiceServicer)
    assert adapter.rpcs == names
