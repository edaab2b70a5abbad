"""Issue 39 item 3: the client address a publishable key's per-address table bucket is kept for."""

from __future__ import annotations

import pytest

from gateway.api.peers import UNKNOWN, client_address, parse_networks

PROXIES = parse_networks("10.0.0.0/8, 127.0.0.1")


def test_without_trusted_proxies_the_peer_is_the_client_and_the_header_is_ignored() -> None:
    spoofed = [("x-forwarded-for", "198.51.100.7")]
    assert client_address("ipv4:203.0.113.5:4242", spoofed, ()) == "ip4:203.0.113.5"


def test_behind_a_trusted_proxy_the_rightmost_untrusted_address_is_the_client() -> None:
    # The client wrote the first entry itself; the ingress (10.1.2.3) appended the real one.
    forwarded = [("x-forwarded-for", "198.51.100.7, 203.0.113.5")]
    assert client_address("ipv4:10.1.2.3:80", forwarded, PROXIES) == "ip4:203.0.113.5"
    # Two trusted proxies in a row.
    chained = [("x-forwarded-for", "203.0.113.5, 10.9.9.9")]
    assert client_address("ipv4:10.1.2.3:80", chained, PROXIES) == "ip4:203.0.113.5"
    # An untrusted peer's header proves nothing.
    assert client_address("ipv4:203.0.113.9:80", forwarded, PROXIES) == "ip4:203.0.113.9"


def test_an_ipv6_client_counts_as_its_64_and_a_mapped_ipv4_as_its_address() -> None:
    one = client_address("ipv6:[2001:db8:1:2:aaaa::1]:443", [], ())
    other = client_address("ipv6:[2001:db8:1:2:bbbb::9]:443", [], ())
    assert one == other == "ip6:2001:db8:1:2::/64"
    assert client_address("ipv6:[::ffff:203.0.113.5]:1", [], ()) == "ip4:203.0.113.5"
    assert client_address("unix:/tmp/socket", [], ()) == UNKNOWN


def test_a_bad_trusted_proxies_setting_is_named() -> None:
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        parse_networks("10.0.0.0/8, nonsense")
