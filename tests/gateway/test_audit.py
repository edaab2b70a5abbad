"""Audits: an untouched match passes; every kind of tampering with what Redis holds fails the
audit at the first version that does not hold, with the reason."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis

from gateway.domain.audit import HeldReceipt
from gateway.domain.receipts import Receipt, decode_receipt, encode_receipt, receipt_message
from gateway.eventstore.base import MatchKey
from gateway.eventstore.redis_store import match_keys
from gateway.signing import KeyRing
from gateway.usecases import AuditResult
from tests.gateway.gwcore_support import SHARED_KEYS, entries_of, re_sign, rewrite_stream
from tests.gateway.gwcore_support import gateway as _gateway
from tests.kernel.toy_game import GAME

NIM = GAME.game_id


def gateway(*args: Any, **options: Any) -> Any:
    """A replica that writes the snapshot with every append (SNAPSHOT_EVERY=1): these tests
    tamper with the snapshot at the match's latest version (tests/gateway/test_snapshot_every.py
    audits a snapshot written every K versions)."""
    return _gateway(*args, **{"snapshot_every": 1, **options})


SEED = bytes(range(32))
KEY = MatchKey("acme", "m1")
TAKE_ONE = b'{"type": "take", "count": 1}'


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
    re_sign(redis_client, KEY)

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


# -- issue 22: the audit's blind spots, found from outside ----------------------------------------


def _submit(redis_url: str, targets: dict[str, str], key: MatchKey, turns: range) -> list[Receipt]:
    """Single takes at `key` by the seat whose turn it is; the receipts the players were given."""

    async def scenario() -> list[Receipt]:
        receipts = []
        async with gateway(redis_url, targets) as matches:
            for turn in turns:
                view = await matches.get_view(key, None)
                outcome = await matches.submit(key, view.active_seats[0], TAKE_ONE, command_id=f"x{turn}")
                assert outcome.accepted and outcome.receipt is not None
                receipts.append(outcome.receipt)
        return receipts

    return asyncio.run(scenario())


def _roll_back(redis_client: redis.Redis, key: MatchKey, to_version: int) -> None:
    """Remove the entries after `to_version`, rewind meta and the command table to match: what
    an attacker with write access would do to make the last appends never have happened."""
    keys = match_keys(key)
    entries = entries_of(redis_client, key)
    for number in range(to_version + 1, len(entries) + 1):
        redis_client.xdel(keys.events, f"{number}-0")
        redis_client.hdel(keys.commands, entries[number - 1][b"command_id"])
    redis_client.hset(
        keys.meta, mapping={"version": to_version, "head_hash": entries[to_version - 1][b"hash"]}
    )


def test_a_snapshot_of_another_match_claiming_a_later_version_fails_the_audit(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    """Fault 1: only a snapshot at one of this match's versions used to be checked."""
    other = MatchKey("acme", "m2")
    _submit(redis_url, targets, other, range(4))
    snapshot = redis_client.hgetall(match_keys(other).snapshot)
    assert int(snapshot[b"version"]) == played + 4
    redis_client.delete(match_keys(KEY).snapshot)
    redis_client.hset(match_keys(KEY).snapshot, mapping=snapshot)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == played + 1 and result.evidence == "snapshot"
    assert f"claiming version {played + 4}" in result.reason and "MAC" in result.reason


def test_a_rollback_of_the_last_append_fails_on_the_snapshot_the_gateway_signed(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    """Fault 2: entries, meta and the command record rewound; the untouched snapshot still names
    the removed version."""
    _roll_back(redis_client, KEY, played - 1)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == played and result.evidence == "snapshot"
    assert f"versions {played} to {played} were removed" in result.reason


def test_an_edit_of_an_appends_second_entry_is_blamed_on_that_entry(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    """Fault 3: versions 2-3 are one append (a card played, a card dealt); editing version 3 was
    blamed on version 2, for lacking the receipt the edited entry carries."""
    entries = entries_of(redis_client, KEY)
    assert entries[1][b"command_id"] == entries[2][b"command_id"] and b"receipt" in entries[2]
    dealt = json.loads(entries[2][b"payload"])
    dealt["value"] = 9 if dealt["value"] != 9 else 8
    entries[2] = {**entries[2], b"payload": json.dumps(dealt).encode()}
    rewrite_stream(redis_client, KEY, entries, rechain=False)

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 3 and result.evidence == "chain"
    assert "edited" in result.reason


def test_the_audit_reports_every_finding_with_its_evidence(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    redis_client.hset(match_keys(KEY).meta, "seed", bytes(32).hex())  # the seed: version 1
    _roll_back(redis_client, KEY, played - 1)  # and a rollback: the snapshot shows it

    result = audit(redis_url, targets)
    assert result.first_bad_version == 1 and result.evidence == "seed"
    assert [(f.version, f.evidence) for f in result.findings] == [(1, "seed"), (played, "snapshot")]


def test_a_finished_match_rolled_back_fails_on_meta_and_the_snapshot(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    async def resign() -> None:
        async with gateway(redis_url, targets) as matches:
            assert (await matches.resign(KEY, 1, command_id="bye")).accepted

    asyncio.run(resign())
    end = len(entries_of(redis_client, KEY))
    _roll_back(redis_client, KEY, played)  # the resignation and the end removed

    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == played + 1
    assert {(f.version, f.evidence) for f in result.findings} >= {
        (played + 1, "meta"),
        (played + 1, "snapshot"),
    }
    assert end == played + 2


# -- issue 24: the receipts a client holds name a fork -------------------------------------------


def audit_with(redis_url: str, targets: dict[str, str], receipts: list[HeldReceipt]) -> AuditResult:
    async def scenario() -> AuditResult:
        async with gateway(redis_url, targets) as matches:
            return await matches.audit(KEY, receipts)

    return asyncio.run(scenario())


def held(receipt: Receipt, **changes: object) -> HeldReceipt:
    fields = dict(
        tenant="acme",
        match_id="m1",
        key_id=receipt.key_id,
        version=receipt.version,
        head_hash=receipt.head_hash,
        signature=receipt.signature,
    )
    fields.update(changes)
    return HeldReceipt(**fields)  # type: ignore[arg-type]


def test_a_rollback_with_no_trace_in_the_store_fails_on_a_receipt_a_client_holds(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    receipts = _submit(redis_url, targets, KEY, range(3))  # versions played+1 .. played+3
    _roll_back(redis_client, KEY, played + 1)
    redis_client.delete(match_keys(KEY).snapshot)  # and the snapshot: the store keeps no trace
    assert audit(redis_url, targets).ok

    forged = held(receipts[2], signature=bytes(64))
    result = audit_with(redis_url, targets, [held(r) for r in receipts] + [forged])
    assert not result.ok and result.first_bad_version == played + 2
    assert result.evidence == "client receipt" and f"forked after version {played + 1}" in result.reason
    assert result.receipts_compared == 3 and result.receipts_refused == 1


def test_receipts_that_agree_with_the_stream_pass_and_others_matches_receipts_are_refused(
    redis_url: str, targets: dict[str, str], played: int
) -> None:
    receipts = _submit(redis_url, targets, KEY, range(2))
    theirs = held(receipts[0], match_id="m2")
    result = audit_with(redis_url, targets, [held(r) for r in receipts] + [theirs])
    assert result.ok and result.receipts_compared == 2 and result.receipts_refused == 1


def test_a_rewrite_re_signed_with_the_gateways_key_differs_from_the_clients_receipt(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    """An insider who re-signs a rewritten history (here: the same events, other times) passes
    every check of the store; the receipt the player was given at the time still names it."""
    receipts = _submit(redis_url, targets, KEY, range(2))
    entries = entries_of(redis_client, KEY)
    last = len(entries)
    entries[last - 1] = {**entries[last - 1], b"time_ms": b"1"}
    rewrite_stream(redis_client, KEY, entries, rechain=True)
    version, head = last, entries_of(redis_client, KEY)[-1][b"hash"].decode()
    key_id, signature = SHARED_KEYS.sign(receipt_message("acme", "m1", version, head))
    resigned = entries_of(redis_client, KEY)
    resigned[-1] = {**resigned[-1], b"receipt": encode_receipt(Receipt(key_id, version, head, signature))}
    rewrite_stream(redis_client, KEY, resigned, rechain=False)
    redis_client.delete(match_keys(KEY).snapshot)
    assert audit(redis_url, targets).ok

    result = audit_with(redis_url, targets, [held(r) for r in receipts])
    assert not result.ok and result.first_bad_version == last and result.evidence == "client receipt"


def test_a_command_record_naming_another_action_fails_the_audit(
    redis_url: str, targets: dict[str, str], played: int, redis_client: redis.Redis
) -> None:
    """Issue 39 item 11: the digest kept with a command id is the digest of the action its append
    holds; a planted one (which would refuse the seat's own retry as another action) is found."""
    commands = match_keys(KEY).commands
    record = redis_client.hget(commands, "c3")
    assert record is not None and record.startswith(b"6:6:seat:1\x1f")
    redis_client.hset(commands, "c3", b"6:6:seat:1\x1f" + b"0" * 32)
    result = audit(redis_url, targets)
    assert not result.ok and result.first_bad_version == 6 and result.evidence == "command record"
    assert "another action" in result.reason
