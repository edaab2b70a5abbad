"""The admin plane apart (issue 43 item 5), end to end on two gateway replicas: AdminService on
its own listener and not on the public port; admin keys created and revoked through the admin
API itself, stored hashed, in the admin log, expiring; the read and write roles; every admin call
logged with the key that made it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import grpc
import pytest
import redis
from guildhall.admin.v1 import admin_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2

from devstack.stack import Stack, TenantSpec
from gateway.admin.keys import ADMIN_KEYS_RECORD
from gateway.admin.log import TENANTS_KEY
from gateway.auth import hash_key
from tests.gateway.test_admin import GAME, admin_stub, bearer, code_of, gw_stub, within


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("admin-plane")
    with Stack(
        [GAME],
        gateways=2,
        tenants=[TenantSpec("acme")],
        work_dir=work,
        log_dir=work / "logs",
        gateway_env={"GRACE_SECONDS": "1"},
        start_timeout_s=60.0,
    ) as running:
        yield running


def admin_key(stack: Stack, key_id: str, role: str, ttl_seconds: int = 0) -> pb.CreateAdminKeyResponse:
    request = pb.CreateAdminKeyRequest(key_id=key_id, role=role, ttl_seconds=ttl_seconds)
    response: pb.CreateAdminKeyResponse = admin_stub(stack.admin_targets[0]).CreateAdminKey(
        request, metadata=bearer(stack.admin_key)
    )
    return response


def lists_tenants(target: str, key: str) -> bool:
    call = admin_stub(target).ListTenants
    return code_of(lambda: call(pb.ListTenantsRequest(), metadata=bearer(key))) == grpc.StatusCode.OK


def test_the_admin_api_is_not_on_the_public_port_and_says_where_it_is(stack: Stack) -> None:
    public = admin_stub(stack.gateway_targets[0])
    with pytest.raises(grpc.RpcError) as refused:
        public.ListTenants(pb.ListTenantsRequest(), metadata=bearer(stack.admin_key))
    assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "ADMIN_PORT" in (refused.value.details() or "")
    # ... its own listener serves it, and not the tenants' API.
    assert lists_tenants(stack.admin_targets[1], stack.admin_key)
    tenant_call = gw_stub(stack.admin_targets[0]).ListGames
    assert code_of(
        lambda: tenant_call(gateway_pb2.ListGamesRequest(), metadata=bearer(stack.api_keys["acme"]))
    ) in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.NOT_FOUND)
    # Reflection on the public port names no admin service.
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    channel = grpc.insecure_channel(stack.gateway_targets[0])
    answers = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")])
    )
    names = {s.name for answer in answers for s in answer.list_services_response.service}
    channel.close()
    assert "guildhall.gateway.v1.GatewayService" in names and "guildhall.admin.v1.AdminService" not in names


def test_a_read_key_reads_and_is_refused_every_write_naming_the_role_it_needs(stack: Stack) -> None:
    reader = admin_key(stack, "ro-auditor", "read")
    assert reader.key.role == "read" and reader.api_key.startswith("ghk_")
    target = stack.admin_targets[1]
    within(lambda: lists_tenants(target, reader.api_key))  # the other replica, within 2 s
    admin = admin_stub(target)
    md = bearer(reader.api_key)
    assert admin.GetTenant(pb.GetTenantRequest(tenant_id="acme"), metadata=md).tenant.tenant_id == "acme"
    today = time.strftime("%Y-%m-%d", time.gmtime())
    admin.GetUsage(pb.GetUsageRequest(all_tenants=True, start=today), metadata=md)
    assert admin.ListAdminLog(pb.ListAdminLogRequest(limit=5), metadata=md).chain_ok
    assert [k.key_id for k in admin.ListAdminKeys(pb.ListAdminKeysRequest(), metadata=md).keys if k.key_id][
        :1
    ]
    writes = {
        "CreateTenant": pb.CreateTenantRequest(tenant_id="nope"),
        "SuspendTenant": pb.SuspendTenantRequest(tenant_id="acme"),
        "CreateApiKey": pb.CreateApiKeyRequest(tenant_id="acme"),
        "CreateAdminKey": pb.CreateAdminKeyRequest(key_id="escalate", role="write"),
        "RevokeAdminKey": pb.RevokeAdminKeyRequest(key_id="ro-auditor"),
        "DeleteTenant": pb.DeleteTenantRequest(tenant_id="acme", force=True),
    }
    for rpc, request in writes.items():
        with pytest.raises(grpc.RpcError) as refused:
            getattr(admin, rpc)(request, metadata=md)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED, rpc
        assert "role write" in (refused.value.details() or "") and "ro-auditor" in (
            refused.value.details() or ""
        )
    # Refused: nothing changed.
    assert not admin.GetTenant(pb.GetTenantRequest(tenant_id="acme"), metadata=md).tenant.suspended
    assert "escalate" not in {
        k.key_id for k in admin.ListAdminKeys(pb.ListAdminKeysRequest(), metadata=md).keys
    }
    # A read key is no tenant's either.
    assert (
        code_of(
            lambda: gw_stub(stack.gateway_targets[0]).ListGames(gateway_pb2.ListGamesRequest(), metadata=md)
        )
        == grpc.StatusCode.PERMISSION_DENIED
    )


def test_admin_keys_rotate_at_runtime_hashed_in_the_log_and_a_revoked_one_is_refused_everywhere(
    stack: Stack,
) -> None:
    made = admin_key(stack, "ops-rotating", "write", ttl_seconds=7 * 86400)
    key = made.api_key
    assert made.key.expires_ms - made.key.created_ms == 7 * 86400 * 1000 and made.key.source == "api"
    for target in stack.admin_targets:
        within(lambda t=target: lists_tenants(t, key))
    # The new write key works: it creates a tenant, and the log names it as the one that did.
    admin_stub(stack.admin_targets[1]).CreateTenant(
        pb.CreateTenantRequest(tenant_id="by-rotated"), metadata=bearer(key)
    )
    log = admin_stub(stack.admin_targets[0]).ListAdminLog(
        pb.ListAdminLogRequest(limit=1000), metadata=bearer(key)
    )
    actions = [(e.action, e.operator_key_id, e.tenant_id) for e in log.entries]
    assert ("create_admin_key", "stack-admin", ADMIN_KEYS_RECORD) in actions
    assert ("create_tenant", "ops-rotating", "by-rotated") in actions
    # Stored hashed: Redis and the log hold its sha256, never the key.
    client = redis.Redis.from_url(stack.redis_url)
    record = json.loads(client.hget(TENANTS_KEY, ADMIN_KEYS_RECORD))
    assert hash_key(key) in {k["sha256"] for k in record["keys"]}
    assert key not in json.dumps(record) and key not in json.dumps([e.after_json for e in log.entries])
    listed = (
        admin_stub(stack.admin_targets[0]).ListAdminKeys(pb.ListAdminKeysRequest(), metadata=bearer(key)).keys
    )
    sources = {k.key_id: k.source for k in listed}
    assert sources["ops-rotating"] == "api" and sources["stack-admin"] == "file"
    # Revoked through the admin API itself (by another admin key): refused on both replicas.
    admin_stub(stack.admin_targets[0]).RevokeAdminKey(
        pb.RevokeAdminKeyRequest(key_id="ops-rotating"), metadata=bearer(stack.admin_key)
    )
    started = time.monotonic()
    for target in stack.admin_targets:
        within(
            lambda t=target: (
                code_of(lambda: admin_stub(t).ListTenants(pb.ListTenantsRequest(), metadata=bearer(key)))
                == grpc.StatusCode.UNAUTHENTICATED
            )
        )
    print(f"admin key revocation applied by both replicas in {time.monotonic() - started:.3f} s")
    actions = [
        e.action
        for e in admin_stub(stack.admin_targets[1])
        .ListAdminLog(pb.ListAdminLogRequest(limit=1000), metadata=bearer(stack.admin_key))
        .entries
    ]
    assert "revoke_admin_key" in actions
    # The tenants file's keys are revoked in the file, not here; a taken id is refused.
    md = bearer(stack.admin_key)
    admin = admin_stub(stack.admin_targets[0])
    assert code_of(
        lambda: admin.RevokeAdminKey(pb.RevokeAdminKeyRequest(key_id="stack-admin"), metadata=md)
    ) == (grpc.StatusCode.FAILED_PRECONDITION)
    assert code_of(lambda: admin_key(stack, "stack-admin", "read")) == grpc.StatusCode.ALREADY_EXISTS


def test_bad_admin_key_requests_are_refused_and_change_nothing(stack: Stack) -> None:
    admin = admin_stub(stack.admin_targets[0])
    md = bearer(stack.admin_key)
    before = admin.ListAdminKeys(pb.ListAdminKeysRequest(), metadata=md).keys
    for request in (
        pb.CreateAdminKeyRequest(key_id="x", role="root"),
        pb.CreateAdminKeyRequest(key_id="bad id!", role="read"),
        pb.CreateAdminKeyRequest(key_id="short", role="read", ttl_seconds=60),
        pb.CreateAdminKeyRequest(key_id="forever", role="read", ttl_seconds=10 * 365 * 86400),
    ):
        assert (
            code_of(lambda r=request: admin.CreateAdminKey(r, metadata=md))
            == grpc.StatusCode.INVALID_ARGUMENT
        )
    assert code_of(lambda: admin.RevokeAdminKey(pb.RevokeAdminKeyRequest(key_id="nobody"), metadata=md)) == (
        grpc.StatusCode.NOT_FOUND
    )
    assert admin.ListAdminKeys(pb.ListAdminKeysRequest(), metadata=md).keys == before


def test_every_admin_call_is_logged_with_the_key_that_made_it(stack: Stack) -> None:
    admin_stub(stack.admin_targets[0]).GetTenant(
        pb.GetTenantRequest(tenant_id="acme"), metadata=bearer(stack.admin_key)
    )
    assert stack.work_dir is not None
    log = stack.work_dir / "logs" / "gateway-0.log"

    def logged() -> bool:
        lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
        return any(line.get("rpc") == "GetTenant" and line.get("key_id") == "stack-admin" for line in lines)

    within(logged, 5.0)
