"""Tamper evidence beyond the stream itself (the stream's edits, deletions, insertions, moves,
consistent rewrites and swapped snapshots are tests/gateway/test_audit.py): the command table
and the snapshot, edited in Redis behind the gateway's back, fail the Audit RPC at the first bad
version. A planted command id would hand its caller another append's result; a removed one
would let a retried command apply twice."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from devstack.stack import Stack
from gateway.eventstore.base import MatchKey
from gateway.eventstore.redis_store import match_keys
from guildhall_client.types import AuditReport
from tests.reliability.gateway_helpers import Table, close_all, tenant_clients


@pytest.fixture
def played(healthy: Stack) -> Iterator[tuple[Stack, str, list[str]]]:
    """A fresh match with a few actions: (stack, match id, command id of each version)."""

    async def play() -> tuple[str, list[str]]:
        (a, b) = tenant_clients(healthy, retries=3)
        try:
            table = await Table.create(a, "rattus_cartus", 2, seed=41)
            await table.play(6)
            assert (await a.audit(table.match_id)).ok
            return table.match_id, [e.command_id for e in await a.read_events(table.match_id)]
        finally:
            await close_all(a, b)

    match_id, commands = asyncio.run(play())
    yield healthy, match_id, commands


def audit(stack: Stack, match_id: str) -> AuditReport:
    async def run() -> AuditReport:
        (a, b) = tenant_clients(stack, retries=3)
        try:
            return await a.audit(match_id)
        finally:
            await close_all(a, b)

    return asyncio.run(run())


def test_a_planted_command_id_fails_the_audit_at_the_version_it_points_to(
    played: tuple[Stack, str, list[str]],
) -> None:
    stack, match_id, commands = played
    keys = match_keys(MatchKey("acme", match_id))
    client = stack.redis.client()
    victim_version = next(v for v, c in enumerate(commands, start=1) if c and v > 2)
    client.hset(keys.commands, "planted-by-seat-1", f"{victim_version}:{victim_version}:seat:1")
    result = audit(stack, match_id)
    assert not result.ok and result.first_bad_version == victim_version, result
    assert "planted-by-seat-1" in result.reason


def test_a_removed_command_id_fails_the_audit_at_its_version(
    played: tuple[Stack, str, list[str]],
) -> None:
    stack, match_id, commands = played
    keys = match_keys(MatchKey("acme", match_id))
    client = stack.redis.client()
    version = max(v for v, c in enumerate(commands, start=1) if c.startswith("s"))
    first = commands.index(commands[version - 1]) + 1
    client.hdel(keys.commands, commands[version - 1])
    result = audit(stack, match_id)
    assert not result.ok and result.first_bad_version == first, result


def test_an_edited_snapshot_fails_the_audit(played: tuple[Stack, str, list[str]]) -> None:
    stack, match_id, _ = played
    keys = match_keys(MatchKey("acme", match_id))
    client = stack.redis.client()
    state = client.hget(keys.snapshot, "state")
    assert isinstance(state, bytes) and state
    client.hset(keys.snapshot, "state", state[:-1] + bytes([state[-1] ^ 1]))
    result = audit(stack, match_id)
    assert not result.ok, result
