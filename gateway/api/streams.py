"""Caps on the Play, Watch and WatchTicket streams one replica holds open (issue 30, item 2).

One seat token opened 1,500 idle Play streams in 1.6 s, none refused, each ~40 KiB of the
gateway's memory. A stream now takes a place under its credential's cap and its tenant's cap
(gRPC and Connect alike: both run the same servicer) and gives it back however it ends: the
client closing it or going away, an error, the gateway draining (the `hold` block's exit).

What counts as one credential: a seat token's seat (every token of one seat of one match
shares the cap, so asking for fresh tokens does not reset it) and a spectator token's match (a
tenant hands one spectator token to everyone watching, so it has a cap of its own). An API key
is the tenant's own backend, which may follow many matches and tickets: only the tenant cap
holds it.
The caps are per replica: a client spread over N replicas holds at most N times as many.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from gateway.api.wire import CapReached
from gateway.auth import Principal

# A seat needs a Play stream (or Watch + unary calls) and maybe a few tabs or a reconnect that
# overlaps the stream it replaces: 8 leaves room for that and refuses a loop opening streams.
DEFAULT_PER_TOKEN = 8
# Everyone watching one match through its spectator token, on one replica.
DEFAULT_PER_SPECTATOR_TOKEN = 1000
# One replica holds 10,000 open Watch streams (README, Figures): one tenant may take half of it,
# so a tenant that leaks streams cannot refuse every other tenant of the replica.
DEFAULT_PER_TENANT = 5000


class StreamLimits:
    """The open Play and Watch streams of this replica, by credential and by tenant."""

    def __init__(
        self,
        per_token: int = DEFAULT_PER_TOKEN,
        per_tenant: int = DEFAULT_PER_TENANT,
        per_spectator_token: int = DEFAULT_PER_SPECTATOR_TOKEN,
    ) -> None:
        self.per_token = per_token
        self.per_tenant = per_tenant
        self.per_spectator_token = per_spectator_token
        # Only credentials and tenants with a stream open have an entry: a count back at 0 is
        # deleted, so the maps are as large as what is open, never as what was ever seen.
        self.by_credential: dict[Any, int] = {}
        self.by_tenant: dict[str, int] = {}

    @staticmethod
    def credential(principal: Principal) -> tuple[Any, ...]:
        return (principal.tenant, principal.match_id, principal.seat)

    @contextlib.contextmanager
    def hold(self, principal: Principal, rpc: str) -> Iterator[None]:
        """One open stream of `principal` for the block; CapReached (RESOURCE_EXHAUSTED) if a cap
        is reached. Released when the block exits, whatever ends it."""
        credential = self.credential(principal) if principal.is_token else None
        spectator = principal.seat is None
        per_credential = self.per_spectator_token if spectator else self.per_token
        if credential is not None and self.by_credential.get(credential, 0) >= per_credential:
            what = "spectator token" if spectator else "seat token"
            setting = "MAX_STREAMS_PER_SPECTATOR_TOKEN" if spectator else "MAX_STREAMS_PER_TOKEN"
            raise CapReached(
                f"{rpc} refused: this {what} already has {per_credential} Play/Watch streams open on "
                f"this gateway, the most allowed ({setting}); close one first"
            )
        tenant = principal.tenant
        if self.by_tenant.get(tenant, 0) >= self.per_tenant:
            raise CapReached(
                f"{rpc} refused: the tenant already has {self.per_tenant} Play/Watch streams open on "
                "this gateway, the most allowed (MAX_STREAMS_PER_TENANT); close one first"
            )
        if credential is not None:
            self.by_credential[credential] = self.by_credential.get(credential, 0) + 1
        self.by_tenant[tenant] = self.by_tenant.get(tenant, 0) + 1
        try:
            yield
        finally:
            if credential is not None:
                _release(self.by_credential, credential)
            _release(self.by_tenant, tenant)

    @property
    def open_streams(self) -> int:
        return sum(self.by_tenant.values())


def _release(counts: dict[Any, int], key: Any) -> None:
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]
