"""The webhook outbox against a real Redis and a real HTTP receiver, in process: a replica dying
between an append and its derivation loses nothing, a derivation repeated after a crash sends
nothing twice and rates nothing twice, and the signature verifies with the client's helper."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from gateway.auth import Tenant
from gateway.domain.match import JSON, MatchCreated, MatchEnded, SeatResigned
from gateway.eventstore.base import GENESIS, MatchKey, NewEvent
from gateway.ratings import Ratings
from gateway.webhooks.address import AddressPolicy
from gateway.webhooks.config import parse_webhooks
from gateway.webhooks.dispatch import HookedEventStore, Webhooks
from gateway.webhooks.outbox import SHARDS
from gateway.webhooks.signing import signature_header
from guildhall_client.webhooks import WebhookError, WebhookEvent, receiver, sign, verify
from services.kernel import Outcome, PlayerResult

SECRET, OLD_SECRET = "whsec_outbox_test_secret_1", "whsec_outbox_test_secret_0"
# The receivers here are on this machine: allowed explicitly, as WEBHOOK_ALLOW_NETWORKS does.
LOCAL = AddressPolicy.from_setting("127.0.0.0/8,::1/128")


@pytest.fixture
def inbox() -> Iterator[tuple[str, list[WebhookEvent]]]:
    got: list[WebhookEvent] = []
    server = receiver(got.append, [SECRET])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hooks", got
    finally:
        server.shutdown()
        server.server_close()


def tenants(url: str) -> dict[str, Tenant]:
    config = parse_webhooks(
        {"secrets": [SECRET], "endpoints": [{"id": "main", "url": url, "events": ["*"]}]}, "acme"
    )
    return {"acme": Tenant("acme", (), webhooks=config)}


async def play_a_match(store: Any, key: MatchKey) -> None:
    """match_created, then seat 1 resigns and the match ends: the appends the gateway makes."""
    created = MatchCreated("ys", "r1", 2, "00" * 32, msgspec.Raw(b"{}"), ("ann", "bob"))
    meta = {"game": "ys", "players": '["ann","bob"]', "seed": "00", "finished": "0", "bots": "{}"}
    first = await store.append(
        key, 0, GENESIS, [NewEvent("match_created", JSON.encode(created))],
        actor="gateway", command_id="gw create", rules_version="r1", time_ms=int(time.time() * 1000),
        meta=meta,
    )  # fmt: skip
    outcome = msgspec.json.encode(
        Outcome((0,), (PlayerResult(0, 1), PlayerResult(1, 0, eliminated=True, note="resigned")))
    )
    ending = [
        NewEvent("seat_resigned", JSON.encode(SeatResigned(1))),
        NewEvent("match_ended", JSON.encode(MatchEnded("resigned", msgspec.Raw(outcome), "00"))),
    ]
    await store.append(
        key, 1, first.hashes[-1], ending,
        actor="seat:1", command_id="r1", rules_version="r1", time_ms=int(time.time() * 1000),
        meta={"finished": "1"},
    )  # fmt: skip


async def received(got: list[WebhookEvent], kind: str, timeout_s: float = 15.0) -> list[WebhookEvent]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = [e for e in got if e.type == kind]
        if found:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {kind} arrived; got {[e.type for e in got]}")


def run(redis_url: str, body: Any) -> None:
    import redis.asyncio as aioredis

    async def main() -> None:
        client = aioredis.Redis.from_url(redis_url)
        await client.flushdb()
        try:
            await body(client)
        finally:
            await client.aclose()

    asyncio.run(main())


def test_a_replica_dying_between_the_append_and_the_derivation_loses_nothing(
    redis_url: str, inbox: tuple[str, list[WebhookEvent]]
) -> None:
    url, got = inbox

    async def body(client: Any) -> None:
        ratings = Ratings(client)
        dying = Webhooks(client, tenants(url), ratings=ratings, grace_s=0.3, lease_s=5, policy=LOCAL)
        dying.appended = lambda key, score: None  # type: ignore[method-assign]  # died right after
        key = MatchKey("acme", "m1")
        await play_a_match(HookedEventStore(client, dying), key)
        assert await dying.outbox.pending() == 0 and not got  # nothing derived, nothing sent
        # Another replica's loop, once the intents are due.
        other = Webhooks(client, tenants(url), ratings=ratings, grace_s=0.3, lease_s=5, policy=LOCAL)
        await asyncio.sleep(0.4)
        await other.run_once()
        ended = (await received(got, "match.ended"))[0]
        await other.close()
        assert {e.type for e in got} == {"match.created", "seat.resigned", "match.ended"}
        assert [p["rank"] for p in ended.data["players"]] == [1, 2]
        assert ended.data["players"][1]["left"] is True
        assert [r["player_id"] for r in ended.data["ratings"]] == ["ann", "bob"]
        assert ended.data["ratings"][0]["mu_after"] > ended.data["ratings"][0]["mu_before"]
        for shard in range(SHARDS):
            assert await client.zcard(f"gh:wh:{{s{shard}}}:intents") == 0

    run(redis_url, body)


def test_a_derivation_repeated_after_a_crash_sends_and_rates_nothing_twice(
    redis_url: str, inbox: tuple[str, list[WebhookEvent]]
) -> None:
    url, got = inbox

    async def body(client: Any) -> None:
        ratings = Ratings(client)
        hooks = Webhooks(client, tenants(url), ratings=ratings, policy=LOCAL)
        key = MatchKey("acme", "m2")
        await play_a_match(HookedEventStore(client, hooks), key)
        ended = (await received(got, "match.ended"))[0]
        await hooks.close()
        await client.hdel("gh:{acme:m2}:webhooks", "cursor")  # as if the cursor never moved
        assert await hooks.derive(key) == []  # every delivery is known as sent: none again
        (ann,) = await ratings.get("acme", "ys", ["ann"])
        assert ann.matches == 1 and ann.mu == ended.data["ratings"][0]["mu_after"]
        assert len([e for e in got if e.type == "match.ended"]) == 1

    run(redis_url, body)


def test_an_intent_whose_append_never_happened_is_cleared_quietly(
    redis_url: str, inbox: tuple[str, list[WebhookEvent]]
) -> None:
    url, got = inbox

    async def body(client: Any) -> None:
        hooks = Webhooks(client, tenants(url), grace_s=0.1, policy=LOCAL)
        await hooks.intend(MatchKey("acme", "never"))
        await asyncio.sleep(0.2)
        await hooks.run_once()
        await hooks.close()
        assert sum([await client.zcard(f"gh:wh:{{s{n}}}:intents") for n in range(SHARDS)]) == 0
        assert not got

    run(redis_url, body)


def test_an_append_that_owes_nothing_writes_no_intent(redis_url: str) -> None:
    async def body(client: Any) -> None:
        hooks = Webhooks(client, {"acme": Tenant("acme", ())})
        assert not hooks.owes("acme", [NewEvent("moved", b"{}")])
        assert not hooks.owes("acme", [NewEvent("match_created", b"{}")])  # nobody subscribes
        assert hooks.owes("acme", [NewEvent("match_ended", b"{}")])  # ratings, always

    run(redis_url, body)


def test_the_signature_verifies_with_any_current_secret_and_refuses_edits_and_replays() -> None:
    body = b'{"id":"evt_1","type":"match.ended","api_version":1,"created_ms":1,"tenant":"acme","data":{}}'
    now = int(time.time())
    header = signature_header([SECRET, OLD_SECRET], now, body)
    assert verify(body, header, [OLD_SECRET]).id == "evt_1"  # a receiver still on the old secret
    assert verify(body, header, [SECRET]).type == "match.ended"
    with pytest.raises(WebhookError):
        verify(body.replace(b"ended", b"endex"), header, [SECRET])
    with pytest.raises(WebhookError):
        verify(body, header, ["whsec_somebody_elses_secret"])
    with pytest.raises(WebhookError):
        verify(body, signature_header([SECRET], now - 3600, body), [SECRET])  # captured an hour ago
    assert verify(body, sign(body, SECRET), [SECRET]).tenant == "acme"  # the helper for receivers
