"""Audits: an untouched match passes; every kind of tampering with what Redis holds fails the
audit at the first version that does not hold, with the reason."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
import redis

from gateway.domain.receipts import Receipt, decode_receipt, encode_receipt, receipt_message
from gateway.eventstore.base import MatchKey
from gateway.eventstore.redis_store import match_keys
from gateway.signing import KeyRing
from gateway.usecases import AuditResult
from tests.gateway.gwcore_support import SHARED_KEYS, entries_of, gateway, rewrite_stream
from tests.kernel.toy_game import GAME
from tests.rules_service import serving

NIM = GAME.game_id
SEED = bytes(range(32))
KEY = MatchKey("acme", "m1")
TAKE_ONE = b'{"type": "take", "count": 1}'


@pytest.fixture(scope="module")
def targets() -> Iterator[dict[str, str]]:
    with serving(GAME) as client:
        yield {NIM: client.target}


@pytest.fixture
def played(redis_url: str, redis_client: redis.Redis, targets: dict[str, str]) -> int:
    """Match m1 after a few actions: v1 created, v2-v3 seat 0 plays a card (and draws one),
    v4-v8 single takes; m2, its twin of the same seed, at the same version. Returns m1's version."""

    async def scenario() -> int:
        async with gateway(redis_url, targets) as matches:
            await matches.create("acme", NIM, ["x", "y"], match_id="m1", seed=SEED)
            await matches.create("acme", NIM, ["x", "y"], match_id="m2", seed=SEED)  # a twin to steal from
            view = await matches.get_view(KEY, 0)
            card = min(json.loads(view.view_json)["hand"])
            play = json.dumps({"type": "play_card", "value": card}).encode()
            assert (await matches.submit(KEY, 0, play, command_id="c0")).accepted
            for turn in range(1, 6):
                assert (await matches.submit(KEY, turn % 2, TAKE_ONE, command_id=f"c{turn}")).accepted
            other = MatchKey("acme", "m2")
            for turn in range(7):  # to the same version as m1
                assert (await matches.submit(other, turn % 2, TAKE_ONE, command_id=f"c{turn}")).accepted
            return (await matches.get_view(KEY, None)).version

    return asyncio.run(scenario())


def audit(redis_url: str, targets: dict[str, str], keyring: KeyRing = SHARED_KEYS) -> AuditResult:
    async def scenario() -> AuditResult:
        async with gateway(redis_url, targets, keyring) as matches:  # a fresh replica: nothing cached
            return await matches.audit(KEY)

    return asyncio.run(scenario())


def _forge_count(fields: dict[bytes, bytes], count: int) -> dict[bytes, bytes]:
    body = json.loads(fields[b"payload"])
    body["count"] = count
    return {**fields, b"payload": json.dumps(body, separators=(",", ":")).encode()}


def test_an_untouched_match_passes_every_check(redis_url: str, targets: dict[str, str], played: int) -> None:
    result = audit(redis_url, targets)
    assert result.ok and result.checked_versions == played == 8 and result.first_bad_version is None


def test_an_edited_entry_fails_at_its_version(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    entries = entries_of(redis_client, KEY)
    entries[4] = _forge_count(entries[4], 3)  # version 5
    rewrite_stream(redis_client, KEY, entries, rechain=False)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 5 and "edited" in result.reason


def test_a_consistent_rewrite_with_the_chain_recomputed_fails_at_the_forged_version(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    """The old hole: a forged event with every hash after it recomputed passed the audit."""
    entries = entries_of(redis_client, KEY)
    entries[4] = _forge_count(entries[4], 3)
    rewrite_stream(redis_client, KEY, entries, rechain=True)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 5 and "receipt" in result.reason


def test_a_rewrite_re_signed_with_the_gateways_own_key_fails_on_re_execution(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    """Even an insider holding the signing key cannot make a forged event follow from the action."""
    entries = entries_of(redis_client, KEY)
    entries[4] = _forge_count(entries[4], 3)
    rewrite_stream(redis_client, KEY, entries, rechain=True)
    resigned = []
    for fields in entries_of(redis_client, KEY):
        if b"receipt" in fields:
            version, head = int(fields[b"version"]), fields[b"hash"].decode()
            key_id, signature = SHARED_KEYS.sign(receipt_message("acme", "m1", version, head))
            fields = {**fields, b"receipt": encode_receipt(Receipt(key_id, version, head, signature))}
        resigned.append(fields)
    rewrite_stream(redis_client, KEY, resigned, rechain=False)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 5
    assert "re-executing the action does not give the recorded events" in result.reason


def test_a_deleted_entry_fails_at_its_version(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    redis_client.xdel(match_keys(KEY).events, "4-0")

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 4


def test_an_inserted_entry_fails_at_its_position_even_with_the_chain_recomputed(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    entries = entries_of(redis_client, KEY)
    forged = _forge_count(entries[3], 2)
    entries.insert(4, forged)
    renumbered = [{**fields, b"version": str(n).encode()} for n, fields in enumerate(entries, start=1)]
    rewrite_stream(redis_client, KEY, renumbered, rechain=True)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 5


def test_reordered_entries_fail_at_the_first_moved_one(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    entries = entries_of(redis_client, KEY)
    entries[4], entries[5] = entries[5], entries[4]
    rewrite_stream(redis_client, KEY, entries, rechain=False)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 5 and "moved" in result.reason


def test_a_bad_receipt_fails_at_its_version(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    entries = entries_of(redis_client, KEY)
    receipt = decode_receipt(entries[5][b"receipt"])  # version 6
    flipped = bytes([receipt.signature[0] ^ 1]) + receipt.signature[1:]
    entries[5] = {
        **entries[5],
        b"receipt": encode_receipt(Receipt(receipt.key_id, 6, receipt.head_hash, flipped)),
    }
    rewrite_stream(redis_client, KEY, entries, rechain=False)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 6 and "does not verify" in result.reason


def test_a_receipt_removed_or_signed_by_an_unknown_key_fails(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    entries = entries_of(redis_client, KEY)
    entries[6] = {k: v for k, v in entries[6].items() if k != b"receipt"}  # version 7
    rewrite_stream(redis_client, KEY, entries, rechain=False)
    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 7 and "no receipt" in result.reason

    stranger = KeyRing.generate("stranger")
    version, head = 7, entries[6][b"hash"].decode()
    key_id, signature = stranger.sign(receipt_message("acme", "m1", version, head))
    entries[6] = {**entries[6], b"receipt": encode_receipt(Receipt(key_id, version, head, signature))}
    rewrite_stream(redis_client, KEY, entries, rechain=False)
    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 7 and "stranger" in result.reason


def test_a_receipt_of_the_right_key_for_another_match_fails(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    ours = entries_of(redis_client, KEY)
    theirs = entries_of(redis_client, MatchKey("acme", "m2"))
    ours[1] = {**ours[1], b"receipt": theirs[1][b"receipt"]}
    rewrite_stream(redis_client, KEY, ours, rechain=False)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 2


def test_a_swapped_snapshot_fails_the_audit_and_is_never_played_on(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    """A snapshot copied from another match (same game, same version) is refused: the match is
    replayed from its events instead, and the audit names the snapshot's version."""
    snapshot = redis_client.hgetall(match_keys(MatchKey("acme", "m2")).snapshot)
    assert int(snapshot[b"version"]) == played
    redis_client.delete(match_keys(KEY).snapshot)
    redis_client.hset(match_keys(KEY).snapshot, mapping=snapshot)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == played and "snapshot" in result.reason

    async def views() -> tuple[bytes, bytes]:
        async with gateway(redis_url, targets) as matches:
            live = await matches.get_view(KEY, 0)
            replayed = await matches.replay(KEY, played, 0)
            return live.view_json, replayed.view_json

    live, replayed = asyncio.run(views())
    assert live == replayed  # the live state came from the events, not the stolen snapshot


def test_a_stored_seed_that_does_not_match_the_commitment_fails_at_version_1(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    redis_client.hset(match_keys(KEY).meta, "seed", bytes(32).hex())

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 1 and "commitment" in result.reason


def test_a_finished_match_audits_with_its_revealed_seed(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    async def resign() -> None:
        async with gateway(redis_url, targets) as matches:
            assert (await matches.resign(KEY, 1, command_id="bye")).accepted

    asyncio.run(resign())
    assert audit(redis_url, targets).ok
    last = entries_of(redis_client, KEY)[-1]
    forged = json.loads(last[b"payload"])
    forged["outcome"]["winners"] = [1]
    entries = entries_of(redis_client, KEY)
    entries[-1] = {**last, b"payload": json.dumps(forged).encode()}
    rewrite_stream(redis_client, KEY, entries, rechain=True)
    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == len(entries)
