"""Webhooks against hostile endpoints (issue 30): an endpoint at a loopback, private, link-local or
other non-global address is refused when the gateway starts and again when connecting (a public
name may resolve to a private address); one attempt has one deadline however slowly the receiver
trickles bytes; one tenant's hanging receivers never delay another tenant's deliveries.

Traffic only ever goes to receivers on 127.0.0.1. Every other address is checked with a stubbed
resolver and, where a connection could follow, a stubbed connector that records instead of
connecting."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import httpcore
import httpx
import msgspec
import pytest

from gateway.auth import Tenant
from gateway.bootstrap import _check_webhook_urls
from gateway.settings import parse_args
from gateway.webhooks.address import AddressPolicy, guarded_backend, guarded_transport
from gateway.webhooks.config import parse_webhooks
from gateway.webhooks.dispatch import Webhooks
from gateway.webhooks.outbox import DELIVERY, SHARDS, Delivery, shard_of

SECRET = "whsec_security_test_secret_1"
LOCAL = AddressPolicy.from_setting("127.0.0.0/8,::1/128")  # what WEBHOOK_ALLOW_NETWORKS gives tests

# Every kind of address a webhook must not reach, IPv4 and IPv6, plain and hidden in IPv6 forms.
REFUSED = [
    "127.0.0.1",  # loopback
    "127.8.9.10",
    "::1",
    "169.254.169.254",  # link-local: the cloud metadata service
    "fe80::1",
    "fd00:ec2::254",  # unique-local (fc00::/7): AWS's IPv6 metadata address
    "fc00::1",
    "10.0.0.5",  # private
    "172.16.0.10",
    "172.31.255.254",
    "192.168.1.10",
    "100.64.0.1",  # carrier-grade NAT
    "100.127.255.254",
    "224.0.0.1",  # multicast
    "239.255.255.250",
    "ff02::1",
    "0.0.0.0",  # unspecified
    "::",
    "240.0.0.1",  # reserved
    "255.255.255.255",
    "192.0.0.8",  # IETF protocol assignments
    "198.18.0.1",  # benchmarking
    "fec0::1",  # site-local
    "::ffff:127.0.0.1",  # IPv4-mapped IPv6
    "::ffff:169.254.169.254",
    "::ffff:10.0.0.5",
    "::ffff:192.168.1.10",
    "::7f00:1",  # IPv4-compatible (deprecated)
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "2002:a00:5::1",  # 6to4 of 10.0.0.5
]
GLOBAL = ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "64:ff9b::808:808"]


def _url(address: str, path: str = "/admin") -> str:
    host = f"[{address}]" if ":" in address else address
    return f"https://{host}:8443{path}"


def _tenants(url: str, tenant: str = "acme", **hooks: Any) -> dict[str, Tenant]:
    config = parse_webhooks(
        {"secrets": [SECRET], "endpoints": [{"id": "main", "url": url, "events": ["*"]}], **hooks}, tenant
    )
    return {tenant: Tenant(tenant, (), webhooks=config)}


# -- configuration time ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [_url(a) for a in REFUSED]
    + [
        "https://localhost:8443/admin",
        "https://LOCALHOST./x",
        "https://hooks.localhost/x",
        "https://127.1/x",  # the resolver's shorthands for 127.0.0.1
        "https://2130706433/x",
        "https://0x7f000001/x",
        "https://0177.0.0.1/x",
        "https://[fe80::1%25eth0]/x",
    ],
)
def test_the_gateway_refuses_to_start_with_an_endpoint_at_a_non_global_address(url: str) -> None:
    assert AddressPolicy().url_refusal(url)
    with pytest.raises(SystemExit, match="tenant 'acme' webhook endpoint 'main'"):
        _check_webhook_urls(_tenants(url), allow_http=False)


@pytest.mark.parametrize("url", [_url(a) for a in GLOBAL] + ["https://hooks.example.com/x"])
def test_global_addresses_and_names_pass_the_configuration_check(url: str) -> None:
    assert AddressPolicy().url_refusal(url) is None
    _check_webhook_urls(_tenants(url), allow_http=False)  # names are checked again when connecting


def test_the_operator_allows_ranges_for_development_and_only_those() -> None:
    config = parse_args([], {"RULES_YS": "127.0.0.1:1", "WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8, ::1/128"})
    policy = AddressPolicy.from_setting(config.webhook_allow_networks)
    for url in (
        "https://127.0.0.1:8443/x",
        "https://localhost/x",
        "https://[::1]/x",
        _url("::ffff:127.0.0.1"),
    ):
        assert policy.url_refusal(url) is None, url
        _check_webhook_urls(_tenants(url), allow_http=False, policy=policy)
    for address in ("10.0.0.5", "169.254.169.254", "::ffff:10.0.0.5"):
        assert policy.url_refusal(_url(address)), address
    with pytest.raises(SystemExit):
        parse_args([], {"RULES_YS": "127.0.0.1:1", "WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/33"})
    assert parse_args([], {"RULES_YS": "127.0.0.1:1"}).webhook_allow_networks == ""  # production


# -- connect time (stubbed resolver and connector: nothing leaves this process) -------------------


class Recorder:
    """An httpcore network backend that records where it was asked to connect, and whose streams
    record the TLS server name, then stop: a connection that never happens."""

    def __init__(self) -> None:
        self.connects: list[tuple[str, int]] = []
        self.server_names: list[str | None] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: Any = None,
        socket_options: Any = None,
    ) -> Any:
        self.connects.append((host, port))
        recorder = self

        class Stream(httpcore.AsyncNetworkStream):
            async def start_tls(
                self, ssl_context: Any, server_hostname: str | None = None, timeout: Any = None
            ) -> Any:
                recorder.server_names.append(server_hostname)
                raise httpcore.ConnectError("the test stops at TLS")

            async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
                raise httpcore.ReadError("no network in this test")

            async def write(self, buffer: bytes, timeout: float | None = None) -> None:
                raise httpcore.WriteError("no network in this test")

            async def aclose(self) -> None:
                pass

        return Stream()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def resolver(answers: Mapping[str, Sequence[str]]) -> Callable[[str, int], Awaitable[list[Any]]]:
    async def resolve(host: str, port: int) -> list[Any]:
        return [ipaddress.ip_address(a) for a in answers[host]]

    return resolve


@pytest.mark.parametrize("address", REFUSED)
def test_a_name_resolving_to_a_non_global_address_is_never_connected_to(address: str) -> None:
    recorder = Recorder()
    backend = guarded_backend(AddressPolicy(), resolver({"hooks.example.com": [address]}), recorder)
    with pytest.raises(httpcore.ConnectError, match="refused"):
        asyncio.run(backend.connect_tcp("hooks.example.com", 443))
    assert recorder.connects == []


def test_one_non_global_address_among_public_ones_refuses_the_name() -> None:
    recorder = Recorder()
    answers = {"hooks.example.com": ["8.8.8.8", "2606:4700:4700::1111", "10.0.0.5"]}
    backend = guarded_backend(AddressPolicy(), resolver(answers), recorder)
    with pytest.raises(httpcore.ConnectError, match="10.0.0.5 is private"):
        asyncio.run(backend.connect_tcp("hooks.example.com", 443))
    assert recorder.connects == []


def test_the_connection_goes_to_the_checked_address_and_tls_verifies_the_urls_name() -> None:
    recorder = Recorder()
    calls: list[str] = []

    async def resolve(host: str, port: int) -> list[Any]:
        calls.append(host)
        return [ipaddress.ip_address("8.8.8.8")]

    async def post() -> None:
        transport = guarded_transport(AddressPolicy(), max_connections=4, resolve=resolve, inner=recorder)
        async with httpx.AsyncClient(transport=transport) as client:
            with pytest.raises(httpx.ConnectError, match="stops at TLS"):
                await client.post("https://hooks.example.com:8443/x", content=b"{}")

    asyncio.run(post())
    assert calls == ["hooks.example.com"]  # resolved once, by the guard
    assert recorder.connects == [("8.8.8.8", 8443)]  # the address checked, not a fresh resolution
    assert recorder.server_names == ["hooks.example.com"]  # SNI and certificate: the URL's name


# -- the dispatcher, against receivers on 127.0.0.1 ----------------------------------------------


class Receivers:
    """A tiny HTTP/1.1 server on 127.0.0.1, in the test's loop. Paths: /ok answers 204; /hang holds
    the request until released; /trickle answers one header byte at a time; /redirect answers 307
    to /ok. Records each request's path and Host header."""

    TRICKLE_BYTES = 400
    TRICKLE_GAP_S = 0.1  # 40 s for the whole answer

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.hanging = 0
        self.release = asyncio.Event()
        self.trickled = 0
        self._handlers: set[asyncio.Task[Any]] = set()
        self._server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> Receivers:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release.set()
        assert self._server is not None
        self._server.close()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def paths(self) -> list[str]:
        return [p for p, _ in self.requests]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            fields = dict(line.split(": ", 1) for line in head[1:] if ": " in line)
            await reader.readexactly(int(fields.get("Content-Length", "0")))
            path = head[0].split(" ")[1]
            self.requests.append((path, fields.get("Host", "")))
            if path == "/hang":
                self.hanging += 1
                await self.release.wait()
                writer.write(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
            elif path == "/trickle":
                writer.write(b"HTTP/1.1 204 No Content\r\nX-Slow: ")
                for _ in range(self.TRICKLE_BYTES):
                    await writer.drain()
                    await asyncio.sleep(self.TRICKLE_GAP_S)
                    writer.write(b"a")
                    self.trickled += 1
                writer.write(b"\r\nConnection: close\r\n\r\n")
            elif path == "/redirect":
                writer.write(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: /ok\r\nContent-Length: 0\r\n\r\n")
            else:
                writer.write(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the gateway hung up: what a deadline does
        finally:
            writer.close()
            self._handlers.discard(task)


def with_redis(redis_url: str, body: Callable[[Any], Awaitable[None]]) -> None:
    import redis.asyncio as aioredis

    async def main() -> None:
        client = aioredis.Redis.from_url(redis_url)
        await client.flushdb()
        try:
            await body(client)
        finally:
            await client.aclose()

    asyncio.run(main())


async def queued(hooks: Webhooks, tenant: str, number: int, *, due_in_ms: int = 0) -> Delivery:
    """A delivery of `tenant`'s endpoint `main`, queued in the outbox as the deriver leaves it."""
    shard = shard_of(tenant, f"m{number}")
    event = f"evt_{tenant}_{number}"
    delivery = Delivery(
        f"dlv_{tenant}_{number}", tenant, "main", event, "match.ended",
        msgspec.json.encode({"id": event}).decode(), hooks.outbox.now_ms(), shard,
    )  # fmt: skip
    await hooks.outbox.enqueue(shard, [delivery], hooks.outbox.now_ms() + due_in_ms)
    return delivery


async def stored(client: Any, delivery: Delivery) -> tuple[Delivery, float]:
    """The delivery as the outbox holds it now, and when it is due next (ms)."""
    raw = await client.hget(f"gh:wh:{{s{delivery.shard}}}:items", delivery.delivery_id)
    due = await client.zscore(f"gh:wh:{{s{delivery.shard}}}:due", delivery.delivery_id)
    return DELIVERY.decode(raw), due


async def until(check: Callable[[], Any], timeout_s: float = 20.0) -> None:
    """A bounded wait, only so that a failure ends instead of hanging."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("the condition never held")
        await asyncio.sleep(0.02)


def test_production_defaults_refuse_a_loopback_receiver_when_connecting(redis_url: str) -> None:
    async def body(client: Any) -> None:
        async with Receivers() as rx:
            hooks = Webhooks(client, _tenants(rx.url("/ok")))  # no WEBHOOK_ALLOW_NETWORKS
            delivery = await queued(hooks, "acme", 1)
            assert await hooks.send(delivery) is False
            await hooks.close()
            after, due = await stored(client, delivery)
            assert after.attempts == 1 and "127.0.0.1 is loopback" in after.last_error
            assert due > hooks.outbox.now_ms()  # retried later, like any failed attempt
            assert rx.requests == []

    with_redis(redis_url, body)


def test_a_public_name_resolving_to_loopback_is_refused_and_allowed_only_by_the_allow_list(
    redis_url: str,
) -> None:
    async def body(client: Any) -> None:
        async with Receivers() as rx:
            url = rx.url("/ok", host="hooks.example.com")
            resolve = resolver({"hooks.example.com": ["127.0.0.1"]})  # DNS pointing inside
            strict = Webhooks(client, _tenants(url), resolve=resolve)
            delivery = await queued(strict, "acme", 1)
            assert await strict.send(delivery) is False
            await strict.close()
            assert "loopback" in (await stored(client, delivery))[0].last_error
            assert rx.requests == []
            # The same name with loopback allowed (development): delivered to the address the
            # guard checked (no real DNS for the name), with the URL's name as the Host header.
            allowed = Webhooks(client, _tenants(url), resolve=resolve, policy=LOCAL)
            assert await allowed.send(delivery) is True
            await allowed.close()
            assert rx.requests == [("/ok", f"hooks.example.com:{rx.port}")]

    with_redis(redis_url, body)


def test_redirects_are_not_followed(redis_url: str) -> None:
    async def body(client: Any) -> None:
        async with Receivers() as rx:
            hooks = Webhooks(client, _tenants(rx.url("/redirect")), policy=LOCAL)
            delivery = await queued(hooks, "acme", 1)
            assert await hooks.send(delivery) is False
            await hooks.close()
            assert (await stored(client, delivery))[0].last_error == "HTTP 307"
            assert rx.paths() == ["/redirect"]  # /ok never asked

    with_redis(redis_url, body)


def test_a_trickling_receiver_cannot_hold_an_attempt_past_its_deadline(redis_url: str) -> None:
    async def body(client: Any) -> None:
        async with Receivers() as rx:
            # Each byte comes well within the timeout: only a deadline on the whole attempt ends it.
            hooks = Webhooks(client, _tenants(rx.url("/trickle")), policy=LOCAL, timeout_s=1.0)
            delivery = await queued(hooks, "acme", 1)
            sent = await asyncio.wait_for(hooks.send(delivery), 30)  # only so a failure ends
            await hooks.close()
            after, due = await stored(client, delivery)
            assert sent is False
            assert after.attempts == 1 and after.last_error.startswith("timed out"), after.last_error
            assert due > hooks.outbox.now_ms()  # a retry is scheduled
            assert rx.trickled < Receivers.TRICKLE_BYTES  # the gateway hung up mid-answer

    with_redis(redis_url, body)


def test_one_tenants_hanging_receiver_never_delays_another_tenants_delivery(redis_url: str) -> None:
    async def body(client: Any) -> None:
        async with Receivers() as rx:
            tenants = {
                **_tenants(rx.url("/hang"), "wedged"),
                **_tenants(rx.url("/ok"), "acme"),
            }
            hooks = Webhooks(client, tenants, policy=LOCAL, concurrency=8, timeout_s=120, poll_s=0.05)
            for number in range(24):  # three times the whole pool, all stuck
                await queued(hooks, "wedged", number)
            stop = asyncio.Event()
            loop = asyncio.create_task(hooks.run(stop))
            try:
                await until(lambda: rx.hanging >= 2)
                await asyncio.sleep(0.3)  # several passes of the loop over wedged's backlog
                held = rx.hanging
                delivery = await queued(hooks, "acme", 1)
                await until(lambda: "/ok" in rx.paths())
                # acme's delivery went through while every one of wedged's was still held, and
                # wedged never held more than its share of the pool.
                assert not rx.release.is_set() and rx.hanging == held
                assert held == 2 < 8
                assert (await client.hget(f"gh:wh:{{s{delivery.shard}}}:items", delivery.delivery_id)) is None
                # wedged's backlog waits in the queue, its attempts unspent.
                waiting = await queued_attempts(client, "wedged")
                assert len(waiting) == 24 and set(waiting) == {0}
            finally:
                rx.release.set()
                stop.set()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(loop, 30)

    with_redis(redis_url, body)


async def queued_attempts(client: Any, tenant: str) -> list[int]:
    """The attempts spent on each of a tenant's queued deliveries."""
    out = []
    for shard in range(SHARDS):
        for raw in (await client.hgetall(f"gh:wh:{{s{shard}}}:items")).values():
            delivery = DELIVERY.decode(raw)
            if delivery.tenant == tenant:
                out.append(delivery.attempts)
    return out
