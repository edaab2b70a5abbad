"""Where a call comes from (issue 39): the client address a per-address quota is kept for.

The address is the connection's peer. Behind a reverse proxy (the ingress), every connection
comes from the proxy, and the proxy names the client in `X-Forwarded-For`; but a client can send
that header too, so it is believed only from proxies the operator lists (TRUSTED_PROXIES, CIDRs;
none by default: the header is ignored). Each proxy appends the address its connection came from,
so the client is the rightmost address, counting the peer last, that is not a trusted proxy:
entries further left were written by the client and prove nothing.

An IPv6 client counts as its /64 (one subscriber's devices share one prefix and can pick any
address in it); an IPv4 client as its address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
UNKNOWN = "unknown"  # a peer that is no IP address (a Unix socket): one bucket for all of them


def parse_networks(text: str) -> tuple[Network, ...]:
    """TRUSTED_PROXIES: comma-separated CIDRs (a bare address is its /32 or /128)."""
    try:
        return tuple(
            ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip()
        )
    except ValueError as error:
        raise ValueError(f"TRUSTED_PROXIES: {error}") from None


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address from a peer ("ipv4:1.2.3.4:5", "ipv6:[::1]:5", "1.2.3.4:5") or a header entry."""
    text = text.strip()
    for prefix in ("ipv4:", "ipv6:"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    if text.startswith("["):  # [v6]:port
        text = text[1 : text.find("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped if mapped is not None else address


def client_address(peer: str, metadata: Sequence[tuple[str, Any]], trusted: Sequence[Network]) -> str:
    """The bucket name of the client behind this call (see the module's docstring)."""
    chain: list[str] = []
    for key, value in metadata:
        if key.lower() == "x-forwarded-for":
            text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
            chain += [part for part in text.split(",") if part.strip()]
    hops = [_ip(part) for part in chain] + [_ip(peer)]
    client = None
    for hop in reversed(hops):
        client = hop
        if hop is None or not any(hop in network for network in trusted):
            break
    if client is None:
        return UNKNOWN
    if client.version == 6:
        return f"ip6:{ipaddress.ip_network(f'{client}/64', strict=False).network_address}/64"
    return f"ip4:{client}"
