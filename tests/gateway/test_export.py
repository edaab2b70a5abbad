"""ExportMatch and offline verification: a match exported by the gateway verifies on its own
(guildhall_client.ghx, no gateway, Redis or rules service), and every way of tampering with the
file fails at the first version that does not hold, with the evidence and the reason."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio

from gateway.archive import DirectoryArchive, archive_match, load_async
from gateway.domain.audit import HeldReceipt
from gateway.domain.receipts import receipt_message, seed_commitment
from gateway.eventstore.base import GENESIS, MatchKey, chain_hash
from gateway.signing import KeyRing
from gateway.usecases import InvalidRequest
from guildhall_client.ghx import ExportReport, load_keys, verify_export
from tests.gateway.gwcore_support import SHARED_KEYS, gateway, play_first_legal
from tests.kernel.toy_game import GAME

NIM = GAME.game_id
KEY = MatchKey("acme", "m1")
TAKE_ONE = b'{"type": "take", "count": 1}'
PUBLISHED = {k.key_id: k.public_key for k in SHARED_KEYS.public_keys()}


def _play(redis_url: str, targets: dict[str, str], *, finish: bool) -> None:
    """m1: v1 created, v2-v3 seat 0 plays a card (and is dealt one), then single takes."""

    async def scenario() -> None:
        async with gateway(redis_url, targets) as matches:
            await matches.create("acme", NIM, ["ann", "bob"], match_id="m1", seed=bytes(range(32)))
            view = await matches.get_view(KEY, 0)
            card = min(json.loads(view.view_json)["hand"])
            play = json.dumps({"type": "play_card", "value": card}).encode()
            assert (await matches.submit(KEY, 0, play, command_id="c0")).accepted
            for turn in range(1, 6):
                assert (await matches.submit(KEY, turn % 2, TAKE_ONE, command_id=f"c{turn}")).accepted
            if finish:
                await play_first_legal(matches, KEY)

    asyncio.run(scenario())


@pytest.fixture
def finished(redis_url: str, redis_client: redis.Redis, targets: dict[str, str]) -> bytes:
    _play(redis_url, targets, finish=True)
    return export(redis_url, targets)


@pytest.fixture
def in_play(redis_url: str, redis_client: redis.Redis, targets: dict[str, str]) -> bytes:
    # Afresh, also after `finished` played m1 in this test: the same command ids with the actions
    # of another state would be refused (a command id names one action).
    redis_client.flushdb()
    _play(redis_url, targets, finish=False)
    return export(redis_url, targets)


def export(redis_url: str, targets: dict[str, str], up_to: int | None = None, **options: Any) -> bytes:
    async def scenario() -> bytes:
        async with gateway(redis_url, targets, **options) as matches:
            return (await matches.export(KEY, up_to)).data

    return asyncio.run(scenario())


def verify(data: bytes, **kwargs: Any) -> ExportReport:
    return verify_export(data, games=[GAME], **kwargs)


# -- editing a file as an attacker would ---------------------------------------------------------


def lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines()]


def joined(records: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in records)


def rechained(records: list[dict[str, Any]], resign: KeyRing | None = None) -> bytes:
    """Every hash recomputed (and the header and end line made to agree), optionally every
    receipt re-signed: a consistent rewrite, as someone able to write the file would make it."""
    head = GENESIS
    header, *events, end = records
    for event in events:
        event["prev_hash"] = head
        head = chain_hash(
            head, event["version"], event["type"], event["actor"], event["command_id"],
            event["rules_version"], event["time_ms"], event["payload"].encode(),
        )  # fmt: skip
        event["hash"] = head
        if event.get("receipt") is not None and resign is not None:
            message = receipt_message(header["tenant"], header["match_id"], event["version"], head)
            key_id, signature = resign.sign(message)
            event["receipt"] = {
                "key_id": key_id,
                "version": event["version"],
                "head_hash": head,
                "signature": signature.hex(),
            }
    header["head_hash"] = end["head_hash"] = head
    header["version"] = end["events"] = len(events)
    return joined([header, *events, end])


def with_count(event: dict[str, Any], count: int) -> None:
    body = json.loads(event["payload"])
    body["count"] = count
    event["payload"] = json.dumps(body, separators=(",", ":"))


def failed(report: ExportReport, version: int, evidence: str | tuple[str, ...], *words: str) -> bool:
    evidences = (evidence,) if isinstance(evidence, str) else evidence
    assert not report.ok, "the tampered file verified"
    assert report.first_bad_version == version, (report.first_bad_version, report.reason)
    assert report.evidence in evidences, (report.evidence, report.reason)
    for word in words:
        assert word in report.reason, (word, report.reason)
    return True


# -- an untouched export -------------------------------------------------------------------------


def test_a_finished_match_exports_and_verifies_offline_against_the_published_keys(finished: bytes) -> None:
    header = lines(finished)[0]
    assert header["format"] == "guildhall-match-export" and header["finished"] is True
    assert header["seed"] == bytes(range(32)).hex()
    assert header["rules_version"] == GAME.rules_version == header["edition"] and not header["data_digest"]
    assert header["players"] == ["ann", "bob"]
    assert {k["key_id"]: bytes.fromhex(k["ed25519"]) for k in header["public_keys"]} == PUBLISHED

    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("offline verification opened a connection")

    original = socket.socket.connect
    socket.socket.connect = no_network  # type: ignore[method-assign]
    try:
        report = verify(finished, keys=PUBLISHED)
    finally:
        socket.socket.connect = original  # type: ignore[method-assign]
    assert report.ok and report.executed and not report.refused, report.reason
    assert report.checked_versions == header["version"] == len(lines(finished)) - 2
    assert all(passed for _, passed, _ in report.checks()), report.checks()


def test_a_match_in_play_exports_without_its_seed_and_is_checked_all_but_re_executed(in_play: bytes) -> None:
    header = lines(in_play)[0]
    assert header["seed"] is None and not header["finished"] and header["version"] == 8
    assert bytes(range(32)).hex().encode() not in in_play
    report = verify(in_play, keys=PUBLISHED)
    assert report.ok and not report.executed and report.checked_versions == 8
    assert dict((name, passed) for name, passed, _ in report.checks())["re-execution"] is None


def test_an_export_stops_at_the_end_of_an_append_and_nowhere_else(
    redis_url: str, targets: dict[str, str], in_play: bytes
) -> None:
    with pytest.raises(InvalidRequest, match="inside the append of versions 2 to 3: export up to 1 or 3"):
        export(redis_url, targets, up_to=2)
    with pytest.raises(InvalidRequest, match="versions 1 to 8"):
        export(redis_url, targets, up_to=2**64 - 1)
    partial = export(redis_url, targets, up_to=3)
    assert len(lines(partial)) == 5 and lines(partial)[0]["match_version"] == 8
    assert verify(partial).ok


def test_an_archived_match_exports_from_the_archive(
    redis_url: str, targets: dict[str, str], finished: bytes, redis_client: redis.Redis, tmp_path: Path
) -> None:
    archive = DirectoryArchive(tmp_path)
    archive_match(redis_client, archive, KEY)
    assert not redis_client.exists(f"gh:{{{KEY.tenant}:{KEY.match_id}}}:events")

    async def scenario() -> bytes:
        client = redis.asyncio.Redis.from_url(redis_url)
        try:
            options = {"archive": lambda key: load_async(client, archive, key)}
            async with gateway(redis_url, targets, **options) as matches:
                return (await matches.export(KEY)).data
        finally:
            await client.aclose()

    archived = asyncio.run(scenario())
    assert lines(archived)[0]["source"] == "archive"
    assert lines(archived)[1:] == lines(finished)[1:]
    assert verify(archived, keys=PUBLISHED).ok


# -- tampering -----------------------------------------------------------------------------------


def test_an_edited_payload_fails_at_its_version_on_the_chain(finished: bytes) -> None:
    records = lines(finished)
    with_count(records[5], 3)  # version 5
    assert failed(verify(joined(records)), 5, "chain", "edited")


def test_a_consistent_rewrite_fails_at_the_forged_version(finished: bytes) -> None:
    records = lines(finished)
    with_count(records[5], 3)
    assert failed(verify(rechained(records)), 5, ("receipt", "re-execution"))


def test_a_rewrite_of_an_appends_second_entry_names_that_entry_not_the_first(finished: bytes) -> None:
    """Version 3 is the card dealt in the append of versions 2-3: the append's receipt cannot
    say which entry changed, re-execution can."""
    records = lines(finished)
    dealt = json.loads(records[3]["payload"])
    assert records[3]["type"] == "card_dealt" and records[2]["command_id"] == records[3]["command_id"]
    dealt["value"] = 9 if dealt["value"] != 9 else 8
    records[3]["payload"] = json.dumps(dealt, separators=(",", ":"))
    assert failed(verify(rechained(records, resign=SHARED_KEYS)), 3, "re-execution", "version 3")


def test_a_swapped_receipt_fails_at_the_entry_that_carries_it(finished: bytes) -> None:
    records = lines(finished)
    records[5]["receipt"] = records[7]["receipt"]  # version 7's receipt on version 5
    assert failed(verify(joined(records)), 5, "receipt", "another version or head")


def test_a_key_swapped_in_the_file_fails_and_a_self_signed_file_fails_the_published_keys(
    finished: bytes,
) -> None:
    stranger = KeyRing.generate("test-key")  # the operator's key id, another key
    records = lines(finished)
    records[0]["public_keys"] = [
        {"key_id": "test-key", "ed25519": stranger.public_keys()[0].public_key.hex()}
    ]
    assert failed(verify(joined(records)), 1, "receipt", "does not verify")

    forged = rechained(records, resign=stranger)
    assert verify(forged).ok  # consistent with its own keys: the file alone cannot tell
    assert failed(verify(forged, keys=PUBLISHED), 1, "receipt", "not the operator's")


def test_a_wrong_seed_fails_at_version_1(finished: bytes) -> None:
    records = lines(finished)
    records[0]["seed"] = bytes(32).hex()
    assert failed(verify(joined(records)), 1, "seed", "commitment")


def test_a_wrong_rules_version_in_the_header_fails_at_version_1(finished: bytes) -> None:
    records = lines(finished)
    records[0]["rules_version"] = "9.9+000000000000"
    assert failed(verify(joined(records)), 1, "file", "rules version")


def test_an_entry_recorded_under_other_rules_fails_at_its_version_even_re_signed(finished: bytes) -> None:
    records = lines(finished)
    records[6]["rules_version"] = "9.9"  # version 6
    assert failed(verify(rechained(records, resign=SHARED_KEYS)), 6, "rules version", "9.9")


def test_rules_this_installation_does_not_have_are_refused_naming_what_is_needed(finished: bytes) -> None:
    records = lines(finished)
    unknown = "9.9+abcdef012345"
    created = json.loads(records[1]["payload"])
    created["rules_version"] = unknown
    records[1]["payload"] = json.dumps(created, separators=(",", ":"))
    for record in records[1:-1]:
        record["rules_version"] = unknown
    records[0].update(rules_version=unknown, edition="9.9", data_digest="abcdef012345")
    signer = KeyRing.generate("later")
    records[0]["public_keys"] = [{"key_id": "later", "ed25519": signer.public_keys()[0].public_key.hex()}]
    report = verify(rechained(records, resign=signer))
    assert not report.ok and report.refused and report.first_bad_version is None
    assert f"{NIM} rules {unknown}" in report.needs and "--bundle" in report.needs
    assert GAME.rules_version in report.needs  # what this installation has


def test_a_file_cut_short_fails_at_the_first_version_it_lost(finished: bytes) -> None:
    raw = finished.splitlines(keepends=True)
    cut = b"".join(raw[:6]) + raw[6][: len(raw[6]) // 2]  # inside version 6's line
    assert failed(verify(cut), 6, "file", "cut short inside version 6")
    without_end = b"".join(raw[:-1])
    last = len(raw) - 2
    assert failed(verify(without_end), last + 1, "file", "without its end line")


def test_a_malformed_file_fails_at_the_malformed_line(finished: bytes) -> None:
    raw = finished.splitlines(keepends=True)
    raw[4] = b'{"kind":"event","version":"four"}\n'
    assert failed(verify(b"".join(raw)), 4, "file", "line 5 (version 4) is malformed")
    assert failed(verify(b"not a match\n"), 0, "file", "header")
    assert failed(verify(b""), 0, "file", "empty")


def test_a_file_cut_back_to_an_earlier_version_fails_against_a_receipt_the_player_holds(
    in_play: bytes,
) -> None:
    records = lines(in_play)
    removed = records[7]  # version 7 (and 8) removed, the file made to agree
    held = removed["receipt"]
    cut = rechained([*records[:7], records[-1]])
    assert verify(cut).ok  # nothing in the file itself shows it
    receipt = {**held, "signature": bytes.fromhex(held["signature"])}
    given = [
        HeldReceipt("acme", "m1", **receipt),
        HeldReceipt("acme", "m1", **{**receipt, "signature": b"x" * 64}),
    ]
    report = verify(cut, receipts=given)
    assert failed(report, 7, "client receipt", "forked after version 0", "by version 7")
    assert report.receipts_compared == 1 and report.receipts_refused == 1


def test_published_keys_load_from_what_guildhall_keys_public_prints() -> None:
    document = {"keys": [{"key_id": k, "ed25519": v.hex()} for k, v in PUBLISHED.items()]}
    assert load_keys(document) == PUBLISHED == load_keys({k: v.hex() for k, v in PUBLISHED.items()})
    for bad in ([], {"keys": [{"key_id": "k"}]}, {"k": "abcd"}):
        with pytest.raises(ValueError):
            load_keys(bad)


def test_the_commitment_in_the_file_is_the_seeds(finished: bytes) -> None:
    header = lines(finished)[0]
    assert header["seed_commitment"] == seed_commitment(bytes.fromhex(header["seed"]))


def test_every_line_of_an_export_follows_the_published_schema(finished: bytes, in_play: bytes) -> None:
    """Anyone can write a verifier from schemas/export/ghx_line.schema.json alone."""
    import jsonschema

    from services.kernel.schema import SCHEMAS_DIR as ROOT

    schema = json.loads((ROOT / "export" / "ghx_line.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for data in (finished, in_play):
        for record in lines(data):
            validator.validate(record)
    bad = {**lines(finished)[1], "extra": 1}
    assert not validator.is_valid(bad) and not validator.is_valid({**lines(finished)[0], "kind": "other"})


def test_a_match_on_a_redis_cluster_exports_and_audits_from_one_transaction(
    local_cluster: Any, redis_cluster_client: Any, targets: dict[str, str]
) -> None:
    from redis.asyncio.cluster import RedisCluster

    from gateway.rules_client import AsyncRulesClient
    from gateway.usecases import GameMatches

    async def scenario() -> tuple[bytes, Any]:
        client = RedisCluster.from_url(local_cluster.url)
        rules = {NIM: AsyncRulesClient(NIM, targets[NIM])}
        try:
            matches = GameMatches(client, rules, SHARED_KEYS)
            await matches.create("acme", NIM, ["ann", "bob"], match_id="m1")
            for turn in range(3):
                assert (await matches.submit(KEY, turn % 2, TAKE_ONE, command_id=f"c{turn}")).accepted
            return (await matches.export(KEY)).data, await matches.audit(KEY)
        finally:
            await rules[NIM].close()
            await client.aclose()

    data, audited = asyncio.run(scenario())
    assert audited.ok and audited.checked_versions == 4
    report = verify(data, keys=PUBLISHED)
    assert report.ok and report.checked_versions == 4 and not report.executed  # in play: no seed
