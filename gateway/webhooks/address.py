"""Where a webhook may connect: the one place of the address policy (issue 30, SSRF).

A webhook URL is a tenant's data, and the gateway runs inside the operator's network: without a
check a tenant could make the gateway POST to its Redis, its rules services, the cloud's metadata
service (169.254.169.254) or anything else only the cluster can reach. So only *global* unicast
addresses are allowed: loopback, private (RFC 1918, fc00::/7), link-local, carrier-grade NAT
(100.64.0.0/10), multicast, unspecified, reserved, site-local, documentation and the other
special-purpose ranges are refused, including when they hide inside an IPv6 form (IPv4-mapped
::ffff:a.b.c.d, IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16).

The check runs twice:

- at configuration time (`url_refusal`), for what the URL says by itself: an IP literal (any
  spelling the resolver would accept, 0x7f.1 or 2130706433 too) or `localhost`;
- at connect time (`GuardedBackend`), for every address the name resolves to: DNS is the
  tenant's too, and a public name may point at a private address, or change after the check.
  The connection goes to an address that was checked, never to a fresh resolution (no
  rebinding window); TLS still verifies the certificate against the URL's name (SNI and the Host
  header come from the URL, not from the address).

Development and tests deliver to receivers on this machine: WEBHOOK_ALLOW_NETWORKS (CIDRs, comma
separated, e.g. `127.0.0.0/8,::1/128`) allows those ranges explicitly. Production leaves it empty.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
# A name and port -> every address it resolves to (tests stub it: no real DNS, no real traffic).
Resolve = Callable[[str, int], Awaitable[Sequence[IPAddress]]]

# Special-purpose ranges the standard library's flags miss (or, depending on the Python
# version, call global): each is refused by name.
_EXTRA: tuple[tuple[IPNetwork, str], ...] = (
    (ipaddress.ip_network("100.64.0.0/10"), "carrier-grade NAT"),
    (ipaddress.ip_network("192.0.0.0/24"), "IETF protocol assignments"),
    (ipaddress.ip_network("64:ff9b:1::/48"), "local-use NAT64"),
    (ipaddress.ip_network("fec0::/10"), "site-local"),
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_LOCALHOST = (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))


class AddressRefused(ValueError):
    """A webhook endpoint's address is not one the gateway may connect to (the message says why)."""


def _embedded(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries, where the packet would really go."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def why_not_global(address: IPAddress) -> str | None:
    """Why a webhook may not connect to this address (None: a global unicast address)."""
    inner = _embedded(address)
    if inner is not None:
        reason = why_not_global(inner)
        return f"{reason} (inside {address})" if reason else None
    for network, name in _EXTRA:
        if address.version == network.version and address in network:
            return name
    checks = (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),  # 169.254.169.254: cloud metadata
        ("multicast", address.is_multicast),
        ("private", address.is_private),  # RFC 1918, fc00::/7, documentation, benchmarking
        ("reserved", address.is_reserved),
        ("not globally routable", not address.is_global),
    )
    return next((name for name, hit in checks if hit), None)


def _literal(host: str) -> IPAddress | None:
    """The address a URL's host names by itself, in any spelling the resolver would accept."""
    host = host.rstrip(".").split("%", 1)[0]
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    # inet_aton's shorthands (127.1, 0x7f000001, 2130706433, 017700000001): the resolver takes
    # them as addresses, so the configuration check must too.
    if host and all(c in "0123456789abcdefx." for c in host.lower()) and host[0].isdigit():
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


@dataclass(frozen=True)
class AddressPolicy:
    """Global unicast addresses only, plus the ranges the operator allowed for development."""

    allowed: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_setting(cls, text: str) -> AddressPolicy:
        """WEBHOOK_ALLOW_NETWORKS: comma-separated CIDRs (a bare address is its /32 or /128)."""
        try:
            return cls(tuple(ipaddress.ip_network(p.strip()) for p in text.split(",") if p.strip()))
        except ValueError as error:
            raise ValueError(f"WEBHOOK_ALLOW_NETWORKS: {error}") from None

    def refusal(self, address: IPAddress) -> str | None:
        """Why the gateway must not connect to `address` (None: it may)."""
        for candidate in (address, _embedded(address)):
            if candidate is not None and any(
                candidate.version == n.version and candidate in n for n in self.allowed
            ):
                return None
        reason = why_not_global(address)
        return f"{address} is {reason}" if reason else None

    def check(self, host: str, addresses: Iterable[IPAddress]) -> list[IPAddress]:
        """Every address `host` resolved to, if all are allowed; else AddressRefused. One bad
        address refuses the name: a resolver answering several may hand out any of them."""
        found = list(dict.fromkeys(addresses))
        if not found:
            raise AddressRefused(f"{host} resolved to no address")
        for address in found:
            reason = self.refusal(address)
            if reason:
                raise AddressRefused(
                    f"webhook host {host} refused: {reason} "
                    "(only global addresses; WEBHOOK_ALLOW_NETWORKS allows ranges in development)"
                )
        return found

    def url_refusal(self, url: str) -> str | None:
        """The configuration-time check: what the URL's host says without DNS (None: fine so far;
        names are checked again, address by address, at every connection)."""
        try:
            host = urlsplit(url).hostname or ""
        except ValueError as error:
            return f"the URL does not parse: {error}"
        name = host.rstrip(".").lower()
        literal = _literal(host)
        if literal is not None:
            candidates: tuple[IPAddress, ...] = (literal,)
        elif name == "localhost" or name.endswith(".localhost"):  # RFC 6761: always loopback
            candidates = _LOCALHOST
        else:
            return None
        try:
            self.check(host, candidates)
        except AddressRefused as refused:
            return str(refused)
        return None


async def resolve_all(host: str, port: int) -> list[IPAddress]:
    """Every address of `host` (A and AAAA), as the system resolver answers."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


def guarded_backend(policy: AddressPolicy, resolve: Resolve = resolve_all, inner: Any = None) -> Any:
    """An httpcore network backend that connects only to checked addresses (see the module)."""
    import httpcore

    class GuardedBackend(httpcore.AsyncNetworkBackend):
        def __init__(self) -> None:
            self.inner = inner if inner is not None else httpcore.AnyIOBackend()

        async def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> Any:
            try:
                addresses = policy.check(host, await resolve(host, port))
            except (OSError, AddressRefused) as error:  # httpx reports it as a ConnectError
                raise httpcore.ConnectError(str(error)) from error
            last: Exception | None = None
            for address in addresses:  # each one checked; the first that answers
                try:
                    return await self.inner.connect_tcp(
                        str(address), port, timeout, local_address, socket_options
                    )
                except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                    last = error
            assert last is not None
            raise last

        async def connect_unix_socket(
            self, path: str, timeout: float | None = None, socket_options: Any = None
        ) -> Any:
            raise httpcore.ConnectError("webhooks never use unix sockets")

        async def sleep(self, seconds: float) -> None:
            await self.inner.sleep(seconds)

    return GuardedBackend()


def guarded_transport(
    policy: AddressPolicy,
    *,
    max_connections: int,
    resolve: Resolve = resolve_all,
    inner: Any = None,
    ssl_context: Any = None,
) -> Any:
    """An httpx transport over the guarded backend: no proxies from the environment (a proxy
    would resolve the name itself, unchecked), TLS verified against the URL's name."""
    import httpcore
    import httpx

    class GuardedTransport(httpx.AsyncHTTPTransport):
        def __init__(self) -> None:
            super().__init__(trust_env=False)
            # httpx builds its pool without a way to pass a network backend: build it again,
            # the same, with ours (httpx 0.27 and 0.28 keep it in `_pool`).
            self._pool = httpcore.AsyncConnectionPool(
                ssl_context=ssl_context if ssl_context is not None else httpx.create_ssl_context(),
                max_connections=max_connections,
                max_keepalive_connections=max_connections,
                keepalive_expiry=5.0,
                network_backend=guarded_backend(policy, resolve, inner),
            )

    return GuardedTransport()
