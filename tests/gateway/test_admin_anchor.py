"""Issue 39, the admin log anchored outside Redis, and tenant incarnations: each test on a stack
of its own (two gateway replicas, a Redis of the stack's own), because each one cuts, forges or
wipes what Redis holds."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis
import redis.asyncio
from guildhall.admin.v1 import admin_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2

from devstack.stack import Stack, TenantSpec
from gateway.admin.log import AdminLog
from gateway.auth import hash_key, new_api_key
from tests.gateway.test_admin import (
    GAME,
    admin_stub,
    bearer,
    create_tenant,
    gw_stub,
    lists_games,
    new_key,
    refused,
    within,
)
from tests.gateway.test_admin_trust import view_code

LOG, META, TENANTS = "gh:{admin}:log", "gh:{admin}:log:meta", "gh:{admin}:tenants"


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    with Stack(
        [GAME],
        gateways=2,
        tenants=[TenantSpec("acme")],
        work_dir=tmp_path,
        log_dir=tmp_path / "logs",
        redis_dir=tmp_path / "redis",  # its own: these tests cut, forge and wipe it
        gateway_env={"GRACE_SECONDS": "1"},
        start_timeout_s=60.0,
    ) as running:
        yield running


def verify(stack: Stack, checkpoint: pb.AdminLogCheckpoint | None = None) -> pb.VerifyAdminLogResponse:
    request = pb.VerifyAdminLogRequest(checkpoint=checkpoint) if checkpoint else pb.VerifyAdminLogRequest()
    return admin_stub(stack.admin_targets[1]).VerifyAdminLog(request, metadata=bearer(stack.admin_key))


def test_a_cut_or_rewritten_tail_is_found_against_a_kept_checkpoint(stack: Stack) -> None:
    client = redis.Redis.from_url(stack.redis_url)
    create_tenant(stack, "anchored")
    first = new_key(stack, "anchored", key_id="first")
    as_it_was = client.hget(TENANTS, "anchored")  # the record the entry of key "first" wrote
    late = new_key(stack, "anchored", key_id="late")
    within(lambda: lists_games(stack.gateway_targets[1], late))
    kept = admin_stub(stack.admin_targets[0]).GetAdminLogCheckpoint(
        pb.GetAdminLogCheckpointRequest(), metadata=bearer(stack.admin_key)
    )
    assert kept.key_id and len(kept.signature) == 64
    assert verify(stack, kept).ok

    # Cut the tail: the entry of key "late" removed, the head set back one, the record put back
    # as the entry before wrote it. On its own the log verifies and explains every record.
    version = int(client.hget(META, "version"))
    assert version == kept.length
    entries = client.xrange(LOG)
    previous = admin_stub(stack.admin_targets[0]).ListAdminLog(
        pb.ListAdminLogRequest(after_version=version - 2, limit=1), metadata=bearer(stack.admin_key)
    )
    pipe = client.pipeline(transaction=True)
    pipe.delete(LOG)  # the stream written again without its last entry (XDEL would keep its id)
    for entry_id, fields in entries[:-1]:
        pipe.xadd(LOG, fields, id=entry_id)
    pipe.hset(META, mapping={"version": version - 1, "head_hash": previous.entries[0].hash})
    pipe.hset(TENANTS, "anchored", as_it_was)
    pipe.execute()
    create_tenant(stack, "later")  # the log goes on from the cut; every replica reloads
    later_key = new_key(stack, "later")
    for target in stack.gateway_targets:
        within(lambda t=target: lists_games(t, later_key))
        assert refused(target, late) and lists_games(target, first)  # the revocation nobody made
    alone = verify(stack)
    assert alone.ok, alone.problems  # nothing in Redis alone tells
    cut = verify(stack, kept)
    assert not cut.ok and not cut.checkpoint_ok
    assert any("rewritten" in p or "cut" in p for p in cut.problems), cut.problems

    # A forged entry appended without the gateway's key (its chain hash right, no receipt) that
    # writes a key in: reported, not served, and not blessed by the next signed entry.
    forged_key = new_api_key()
    record = json.loads(as_it_was)
    record["body"]["keys"].append({"id": "forged", "sha256": hash_key(forged_key), "scopes": ["tenant"]})
    raw = json.dumps(record, separators=(",", ":"), sort_keys=True).encode()

    async def forge() -> None:
        aclient = redis.asyncio.Redis.from_url(stack.redis_url)
        try:
            await AdminLog(aclient).append(
                "stack-admin", "create_key", "anchored", None, None, writes={"anchored": raw}
            )
        finally:
            await aclient.aclose()

    asyncio.run(forge())
    create_tenant(stack, "after")  # a signed entry after the forged one
    after_key = new_key(stack, "after")
    for target in stack.gateway_targets:
        within(lambda t=target: lists_games(t, after_key))
        assert refused(target, forged_key)
    report = verify(stack)
    assert not report.ok and list(report.unsigned_versions) == [version + 2]
    assert {u.tenant_id for u in report.unexplained} == {"anchored"}
    assert "no valid receipt" in report.unexplained[0].problem
    with pytest.raises(grpc.RpcError) as refusal:  # no checkpoint vouches for a forged entry
        admin_stub(stack.admin_targets[0]).GetAdminLogCheckpoint(
            pb.GetAdminLogCheckpointRequest(), metadata=bearer(stack.admin_key)
        )
    assert refusal.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_after_redis_lost_everything_a_reseeded_tenant_refuses_the_old_tokens_in_a_repeated_match(
    stack: Stack,
) -> None:
    key = stack.api_keys["acme"]
    before = gw_stub(stack.gateway_targets[0]).CreateMatch(
        gateway_pb2.CreateMatchRequest(game_id=GAME, players=["ann", "bob"], match_id="m1"),
        metadata=bearer(key),
    )
    old_token = before.seats[0].token
    client = redis.Redis.from_url(stack.redis_url)
    client.flushall()  # every key gone: matches, tenants, the log
    # The gateways seed the tenants file again: the same tenant id and key, a new incarnation.
    within(lambda: client.hexists(TENANTS, "acme"), 5.0)
    gw_stub(stack.gateway_targets[1]).CreateMatch(  # the same match id again
        gateway_pb2.CreateMatchRequest(game_id=GAME, players=["ann", "bob"], match_id="m1"),
        metadata=bearer(key),
    )
    for target in stack.gateway_targets:
        within(lambda t=target: view_code(t, "m1", old_token) == grpc.StatusCode.UNAUTHENTICATED)
        with pytest.raises(grpc.RpcError) as refusal:
            gw_stub(target).SubmitAction(
                gateway_pb2.SubmitActionRequest(match_id="m1", command_id="old"), metadata=bearer(old_token)
            )
        assert refusal.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert "earlier tenant" in (refusal.value.details() or "")
    fresh = (
        gw_stub(stack.gateway_targets[0])
        .IssueToken(gateway_pb2.IssueTokenRequest(match_id="m1", seat=0), metadata=bearer(key))
        .token
    )
    assert view_code(stack.gateway_targets[1], "m1", fresh) == grpc.StatusCode.OK
