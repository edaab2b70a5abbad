"""Webhooks at work: the hook on the append path, and every replica's delivery loop.

On the action path the only cost is the intent (one ZADD) written before an append that owes a
derivation (it ends the match, or the tenant subscribes to its event; most appends owe none).
Deriving, rating and sending happen after the append has answered, in tasks of their own, and
HTTP never runs on the caller's time. Each replica's loop claims due intents (derivations a
dead replica owed) and due deliveries (retries, and sends a dead replica had leased), shard by
shard, and sends with bounded concurrency.

Issue 30: every connection goes through the address policy (address.py: global addresses only,
checked when connecting, the checked address is the one connected to); an attempt has one
deadline for all of it (connect, send, answer), so a receiver trickling bytes cannot hold a send
past WEBHOOK_TIMEOUT_SECONDS; and one tenant holds at most its share of the sends in flight
(WEBHOOK_TENANT_CONCURRENCY of WEBHOOK_CONCURRENCY), so its stuck receivers never delay another
tenant's deliveries: past its share a delivery goes back to the queue, due a little later,
without spending an attempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import structlog
from prometheus_client import Counter, Histogram

from gateway.eventstore.async_redis import OK, AppendOutcome, AsyncRedisEventStore
from gateway.eventstore.base import MatchKey, NewEvent
from gateway.ratings import Ratings
from gateway.webhooks import config as hooks
from gateway.webhooks.address import AddressPolicy, Resolve, guarded_transport, resolve_all
from gateway.webhooks.derive import Deriver, ResolvePlayers, deliveries, ticket_matched
from gateway.webhooks.outbox import SHARDS, Delivery, Outbox, shard_of
from gateway.webhooks.signing import SIGNATURE_HEADER, signature_header

_log = structlog.get_logger("webhooks")

DELIVERIES = Counter(
    "guildhall_webhook_deliveries_total", "Webhook delivery attempts, by outcome", ["outcome"]
)
DELIVERY_LATENCY = Histogram(
    "guildhall_webhook_delivery_seconds",
    "From the event's append to the receiver's 2xx answer",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 15.0, 60.0, 300.0),
)
_STREAM_TYPES = frozenset(hooks.FROM_STREAM)


class Webhooks:
    """The outbox's producer and consumer for one replica (bootstrap builds one)."""

    def __init__(
        self,
        redis: Any,
        tenants: Mapping[str, Any],
        *,
        ratings: Ratings | None = None,
        resolve_players: ResolvePlayers | None = None,
        timeout_s: float = 5.0,
        grace_s: float = 30.0,
        lease_s: float = 30.0,
        poll_s: float = 1.0,
        concurrency: int = 32,
        tenant_concurrency: int = 0,
        policy: AddressPolicy | None = None,
        resolve: Resolve = resolve_all,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.outbox = Outbox(redis, clock=clock)
        self.reader = AsyncRedisEventStore(redis)  # reads only: the streams deliveries come from
        self.tenants = tenants
        self.usage: Any = None  # issue 34: gateway.admin.usage.UsageMeter, set by bootstrap
        self.deriver = Deriver(ratings, resolve_players)
        self.timeout_s = timeout_s
        self.grace_ms = int(grace_s * 1000)
        self.lease_ms = int(lease_s * 1000)
        self.poll_s = poll_s
        self.clock = clock
        self._limit = asyncio.Semaphore(concurrency)
        self._concurrency = concurrency
        # A tenant's share of the sends in flight (0: a quarter of the pool): below the pool, so
        # one tenant's hanging receivers can never take every slot.
        self._tenant_limit = max(1, min(tenant_concurrency or concurrency // 4, concurrency))
        self._busy: dict[str, int] = {}  # tenant -> its sends in flight
        self.policy = policy if policy is not None else AddressPolicy()  # production: no allowances
        self._resolve = resolve
        self._tasks: set[asyncio.Task[Any]] = set()
        self._deriving: dict[MatchKey, asyncio.Lock] = {}
        self._http: Any = None

    def _config(self, tenant: str) -> hooks.WebhookConfig | None:
        entry = self.tenants.get(tenant)
        return getattr(entry, "webhooks", None) if entry is not None else None

    def _spawn(self, coro: Any, name: str) -> None:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the append path ----------------------------------------------------------------------

    def owes(self, tenant: str, events: Sequence[NewEvent]) -> bool:
        """Whether an append of these events owes a derivation: it ends the match (ratings, and
        match.ended), or the tenant subscribes to one of its events."""
        types = {e.type for e in events} & _STREAM_TYPES
        if not types:
            return False
        if "match_ended" in types:
            return True
        config = self._config(tenant)
        return config is not None and any(config.wants(hooks.FROM_STREAM[t]) for t in types)

    async def intend(self, key: MatchKey) -> int:
        return await self.outbox.intend(key.tenant, key.match_id, self.outbox.now_ms() + self.grace_ms)

    def appended(self, key: MatchKey, score: int) -> None:
        """After the append: derive and send in the background, then clear the intent."""
        self._spawn(self._derive_and_send(key, score), f"webhooks {key}")

    # -- deriving -----------------------------------------------------------------------------

    async def derive(self, key: MatchKey) -> list[Delivery]:
        """Turn the match's stream after its cursor into deliveries (leased to the caller, to send
        at once) and move the cursor; an ended match's ratings are applied on the way."""
        lock = self._deriving.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                return await self._derive(key)
        finally:
            if not lock.locked() and self._deriving.get(key) is lock:
                del self._deriving[key]

    async def _derive(self, key: MatchKey) -> list[Delivery]:
        tenant, match_id = key.tenant, key.match_id
        start = await self.outbox.cursor(tenant, match_id)
        entries = await self.reader.read(key, after_version=start)
        if not entries:
            return []
        meta = await self.reader.meta(key)
        if not meta:
            return []  # archived or removed: nothing left to say
        config = self._config(tenant)
        whole: list[Any] = []

        async def read_whole() -> list[Any]:
            if not whole:
                whole.extend(entries if start == 0 else await self.reader.read(key))
            return whole

        events = await self.deriver.events(
            key, meta, entries, read_whole, lambda kind: config is not None and config.wants(kind)
        )
        found = deliveries(tenant, config, events, (tenant, match_id))
        new = await self.outbox.enqueue(
            shard_of(tenant, match_id), found, self.outbox.now_ms() + self.lease_ms
        )
        await self.outbox.advance(tenant, match_id, start, entries[-1].version)
        return new

    async def _derive_and_send(self, key: MatchKey, score: int) -> None:
        try:
            new = await self.derive(key)
            await self.outbox.clear_intent(key.tenant, key.match_id, score)
        except asyncio.CancelledError:
            raise
        except Exception:  # the intent stays: it comes due and is derived again
            _log.exception("deriving webhooks failed; the intent will retry", match=str(key))
            return
        await asyncio.gather(*(self.send(d) for d in new))

    async def ticket_matched(self, pairing: Any) -> None:
        """Matchmaking seated tickets in a match: one ticket.matched per ticket, if subscribed.
        Called before the pairing completes, so a replica dying here leaves the pairing to be
        claimed and created again, and this called again (same ids: no second delivery)."""
        config = self._config(pairing.tenant)
        if config is None or not config.wants(hooks.TICKET_MATCHED):
            return
        now = self.outbox.now_ms()
        events = [
            ticket_matched(
                pairing.tenant, pairing.game, pairing.match_id, ticket, seat, player, pairing.players, now
            )
            for ticket, seat, player in pairing.seats
            if not ticket.startswith("bot:")
        ]
        found = deliveries(pairing.tenant, config, events, (pairing.tenant, pairing.match_id))
        new = await self.outbox.enqueue(
            shard_of(pairing.tenant, pairing.match_id), found, now + self.lease_ms
        )
        for delivery in new:
            self._spawn(self.send(delivery), f"webhook {delivery.delivery_id}")

    # -- sending ------------------------------------------------------------------------------

    def _client(self) -> Any:
        if self._http is None:
            import httpx

            self._http = httpx.AsyncClient(
                timeout=self.timeout_s,  # per step; the attempt's own deadline is in send()
                follow_redirects=False,  # a redirect would skip the configuration-time check
                trust_env=False,  # no proxy from the environment: it would resolve names unchecked
                transport=guarded_transport(
                    self.policy, max_connections=self._concurrency, resolve=self._resolve
                ),
                headers={"User-Agent": "Guildhall-Webhooks/1"},
            )
        return self._http

    async def send(self, delivery: Delivery) -> bool:
        """One attempt; then sent, retried later with backoff, or buried as a dead letter. A
        tenant already using its share of the pool gets the delivery back in the queue instead."""
        tenant = delivery.tenant
        if self._busy.get(tenant, 0) >= self._tenant_limit:
            await self._defer(delivery)
            return False
        self._busy[tenant] = self._busy.get(tenant, 0) + 1
        try:
            async with self._limit:
                return await self._attempt(delivery)
        finally:
            self._busy[tenant] -= 1
            if not self._busy[tenant]:
                del self._busy[tenant]

    async def _defer(self, delivery: Delivery) -> None:
        """Back to the queue, due after a pass or two, its attempts unspent. Waiting here instead
        would keep the claim loop's room (and Redis leases) filled with one tenant's backlog."""
        delay_s = max(self.poll_s, 0.5) * random.uniform(2.0, 4.0)
        try:
            await self.outbox.retry(delivery.shard, delivery, self.outbox.now_ms() + int(delay_s * 1000))
            DELIVERIES.labels("deferred").inc()
        except asyncio.CancelledError:
            raise
        except Exception:  # Redis down: the lease runs out and a replica tries again
            _log.exception("deferring a webhook delivery failed", id=delivery.delivery_id)

    async def _attempt(self, delivery: Delivery) -> bool:
        import httpx

        config = self._config(delivery.tenant)
        endpoint = config.endpoint(delivery.endpoint_id) if config is not None else None
        try:
            if config is None or endpoint is None:
                _log.warning(
                    "dropping a delivery to an endpoint no longer configured", id=delivery.delivery_id
                )
                await self.outbox.drop(delivery.shard, delivery.delivery_id)
                return False
            payload = delivery.body.encode()
            headers = {
                "Content-Type": "application/json",
                SIGNATURE_HEADER: signature_header(config.secrets, int(self.clock()), payload),
                "Guildhall-Event-Id": delivery.event_id,
                "Guildhall-Event-Type": delivery.event_type,
                "Guildhall-Delivery-Id": delivery.delivery_id,
                "Guildhall-Attempt": str(delivery.attempts + 1),
            }
            try:
                # One deadline for the whole attempt: httpx's timeout is per step (each
                # read), so a receiver sending a byte at a time would never hit it.
                async with asyncio.timeout(self.timeout_s):
                    async with self._client().stream(
                        "POST", endpoint.url, content=payload, headers=headers
                    ) as r:
                        error = "" if 200 <= r.status_code < 300 else f"HTTP {r.status_code}"
            except TimeoutError:
                error = f"timed out: no complete answer within {self.timeout_s:g} s"
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"[:300] or type(exc).__name__
            if not error:
                await self.outbox.sent(delivery.shard, delivery.delivery_id)
                if self.usage is not None:  # issue 34: counted in memory (gateway/admin/usage.py)
                    self.usage.count(delivery.tenant, "webhook_deliveries")
                DELIVERIES.labels("ok").inc()
                DELIVERY_LATENCY.observe(max(self.clock() - delivery.created_ms / 1000, 0.0))
                return True
            delivery.attempts += 1
            delivery.last_error = error
            if delivery.attempts >= config.max_attempts:
                delivery.failed_ms = self.outbox.now_ms()
                await self.outbox.bury(delivery.shard, delivery)
                DELIVERIES.labels("dead").inc()
                _log.warning("webhook delivery dead", id=delivery.delivery_id, error=error)
            else:
                delay = hooks.backoff_s(config, delivery.attempts) * random.uniform(0.8, 1.2)
                await self.outbox.retry(delivery.shard, delivery, self.outbox.now_ms() + int(delay * 1000))
                DELIVERIES.labels("retry").inc()
            return False
        except asyncio.CancelledError:
            raise
        except Exception:  # Redis down: the lease runs out and a replica tries again
            _log.exception("webhook delivery bookkeeping failed", id=delivery.delivery_id)
            return False

    # -- every replica's loop -----------------------------------------------------------------

    async def run_once(self) -> None:
        """Claim what is due in every shard: derivations owed, then deliveries."""
        for shard in range(SHARDS):
            for tenant, match_id, score in await self.outbox.claim_intents(shard, self.lease_ms):
                with contextlib.suppress(ValueError):  # never expected: ids are checked on the way in
                    key = MatchKey(tenant, match_id)
                    self._spawn(self._derive_and_send(key, score), f"webhooks {key}")
            room = max(0, 2 * self._concurrency - len(self._tasks))
            if room:
                for delivery in await self.outbox.claim(shard, self.lease_ms, room):
                    self._spawn(self.send(delivery), f"webhook {delivery.delivery_id}")

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                _log.exception("a webhook pass failed; retrying")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.poll_s)
        await self.close()

    async def close(self) -> None:
        """Let sends in flight finish briefly; what is cut short is leased and sent again later."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=3.0)
        for task in list(self._tasks):
            task.cancel()
        if self._http is not None:
            with contextlib.suppress(Exception):
                await self._http.aclose()
            self._http = None


class HookedEventStore(AsyncRedisEventStore):
    """The event store with the webhook outbox's intent around the append (bootstrap wires it)."""

    def __init__(self, client: Any, webhooks: Webhooks, **kwargs: Any) -> None:
        super().__init__(client, **kwargs)
        self.webhooks = webhooks

    async def append(
        self,
        key: MatchKey,
        expected_version: int,
        expected_head: str,
        events: Sequence[NewEvent],
        **kwargs: Any,
    ) -> AppendOutcome:
        owes = self.webhooks.owes(key.tenant, events)
        score = await self.webhooks.intend(key) if owes else 0
        result = await super().append(key, expected_version, expected_head, events, **kwargs)
        if owes and result.status == OK:
            self.webhooks.appended(key, score)
        return result
