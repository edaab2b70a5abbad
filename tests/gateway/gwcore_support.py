"""Helpers for the match use-case tests: a gateway (GameMatches) over real Redis and real rules
services on loopback, run inside one event loop per test (asyncio.run)."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio

from gateway.domain.receipts import Receipt, encode_receipt, receipt_message
from gateway.eventstore.base import GENESIS, MatchKey, chain_hash
from gateway.eventstore.entries import decode_entries, fields_of
from gateway.eventstore.redis_store import match_keys
from gateway.rules_client import AsyncRulesClient
from gateway.signing import KeyRing
from gateway.usecases import GameMatches, MatchView

# Every replica of one deployment loads the same SIGNING_KEYS_DIR: the tests' replicas share a ring.
SHARED_KEYS = KeyRing.generate("test-key")


@asynccontextmanager
async def gateway(
    redis_url: str, targets: Mapping[str, str], keyring: KeyRing | None = None, **options: Any
) -> AsyncIterator[GameMatches]:
    """A GameMatches on its own connections (as one replica), closed afterwards."""
    client = redis.asyncio.Redis.from_url(redis_url)
    rules = {game: AsyncRulesClient(game, target) for game, target in targets.items()}
    try:
        yield GameMatches(client, rules, keyring or SHARED_KEYS, **options)
    finally:
        for rules_client in rules.values():
            await rules_client.close()
        await client.aclose()


async def play_first_legal(matches: GameMatches, key: MatchKey, *, limit: int = 500) -> MatchView:
    """Every turn, the waiting seat plays its first legal action, to the end."""
    prefix = uuid.uuid4().hex[:8]
    for turn in range(limit):
        spectator = await matches.get_view(key, None)
        if spectator.finished:
            return spectator
        seat = spectator.active_seats[0]
        view = await matches.get_view(key, seat)
        outcome = await matches.submit(key, seat, view.legal_actions[0], command_id=f"{prefix}-{turn}")
        assert outcome.accepted, outcome.rejection
    raise AssertionError("the match did not end")


async def play_random(matches: GameMatches, key: MatchKey, seed: int, *, limit: int = 5000) -> MatchView:
    """Random seats play random legal actions (seeded) to the end; the final spectator view."""
    bots = random.Random(seed)
    for turn in range(limit):
        spectator = await matches.get_view(key, None)
        if spectator.finished:
            return spectator
        seat = bots.choice(spectator.active_seats)
        view = await matches.get_view(key, seat, min_version=spectator.version)
        outcome = await matches.submit(key, seat, bots.choice(view.legal_actions), command_id=f"c{turn}")
        assert outcome.accepted, outcome.rejection
    raise AssertionError("the match did not end")


def rewrite_stream(client: Any, key: MatchKey, entries: list[dict[bytes, bytes]], *, rechain: bool) -> None:
    """Replace a match's stream with `entries` (named fields, entry format 1, as `entries_of`
    gives them: as an attacker with write access would), ids `<n>-0`; with `rechain`, recompute
    every prev_hash and hash and the recorded head, so the chain alone looks consistent."""
    keys = match_keys(key)
    head = GENESIS
    client.delete(keys.events)
    for number, fields in enumerate(entries, start=1):
        fields = dict(fields)
        if rechain:
            fields[b"prev_hash"] = head.encode()
            head = chain_hash(
                head,
                int(fields[b"version"]),
                fields[b"type"].decode(),
                fields[b"actor"].decode(),
                fields[b"command_id"].decode(),
                fields[b"rules_version"].decode(),
                int(fields[b"time_ms"]),
                fields[b"payload"],
            )
            fields[b"hash"] = head.encode()
        client.xadd(keys.events, fields, id=f"{number}-0")
    if rechain:
        client.hset(keys.meta, mapping={"head_hash": head, "version": len(entries)})


def re_sign(client: Any, key: MatchKey, keyring: KeyRing = SHARED_KEYS) -> None:
    """Sign every receipt of a rewritten stream again with the gateway's own key, as an insider
    holding it would: only re-execution can tell the forgery then."""
    signed = []
    for fields in entries_of(client, key):
        if b"receipt" in fields:
            version, head = int(fields[b"version"]), fields[b"hash"].decode()
            key_id, signature = keyring.sign(receipt_message(key.tenant, key.match_id, version, head))
            fields = {**fields, b"receipt": encode_receipt(Receipt(key_id, version, head, signature))}
        signed.append(fields)
    rewrite_stream(client, key, signed, rechain=False)


def entries_of(client: Any, key: MatchKey) -> list[dict[bytes, bytes]]:
    """A match's entries as named fields (entry format 1, whatever format they are stored in):
    what the tampering tests edit and `rewrite_stream` writes back (format 1 still reads)."""
    return [fields_of(event, format=1) for event in decode_entries(client.xrange(match_keys(key).events))]


def payload(fields: Mapping[bytes, bytes]) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(fields[b"payload"])
    return decoded
