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

Issue 39: a spectator token a publishable key obtained (a web table's: anyone with the page can
get one) has a budget of its own, per table and per tenant, outside the tenant's cap: a visitor
opening tables and spectating them can fill only that budget, never refuse a real player's Watch
or feed. (A web table's seat tokens are its players': they count like any seat's.)
The caps are per replica: a client spread over N replicas holds at most N times as many.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from gateway.api.wire import CapReached
from gateway.auth import BY_PUBLISHABLE, Principal

# A seat needs a Play stream (or Watch + unary calls) and maybe a few tabs or a reconnect that
# overlaps the stream it replaces: 8 leaves room for that and refuses a loop opening streams.
DEFAULT_PER_TOKEN = 8
# Everyone watching one match through its spectator token, on one replica.
DEFAULT_PER_SPECTATOR_TOKEN = 1000
# One replica holds 10,000 open Watch streams (docs/figures.md): one tenant may take half of it,
# so a tenant that leaks streams cannot refuse every other tenant of the replica.
DEFAULT_PER_TENANT = 5000
# Issue 39: spectators of one web table, and of all a tenant's web tables, per replica: a table of
# friends has a few; a visitor's flood is held to this, apart from the players' 5,000.
DEFAULT_WEB_SPECTATORS_PER_TABLE = 50
DEFAULT_WEB_SPECTATORS_PER_TENANT = 500


class StreamLimits:
    """The open Play and Watch streams of this replica, by credential and by tenant."""

    def __init__(
        self,
        per_token: int = DEFAULT_PER_TOKEN,
        per_tenant: int = DEFAULT_PER_TENANT,
        per_spectator_token: int = DEFAULT_PER_SPECTATOR_TOKEN,
        web_spectators_per_table: int = DEFAULT_WEB_SPECTATORS_PER_TABLE,
        web_spectators_per_tenant: int = DEFAULT_WEB_SPECTATORS_PER_TENANT,
    ) -> None:
        self.per_token = per_token
        self.per_tenant = per_tenant
        self.per_spectator_token = per_spectator_token
        self.web_spectators_per_table = web_spectators_per_table
        self.web_spectators_per_tenant = web_spectators_per_tenant
        # Only credentials and tenants with a stream open have an entry: a count back at 0 is
        # deleted, so the maps are as large as what is open, never as what was ever seen.
        self.by_credential: dict[Any, int] = {}
        self.by_tenant: dict[str, int] = {}
        self.web_by_tenant: dict[str, int] = {}  # web tables' spectators (their credential: by_credential)

    @staticmethod
    def credential(principal: Principal) -> tuple[Any, ...]:
        return (principal.tenant, principal.match_id, principal.seat)

    @contextlib.contextmanager
    def hold(self, principal: Principal, rpc: str) -> Iterator[None]:
        """One open stream of `principal` for the block; CapReached (RESOURCE_EXHAUSTED) if a cap
        is reached. Released when the block exits, whatever ends it."""
        if principal.seat is None and principal.origin == BY_PUBLISHABLE:
            with self._web_spectator(principal, rpc):
                yield
            return
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

    @contextlib.contextmanager
    def _web_spectator(self, principal: Principal, rpc: str) -> Iterator[None]:
        """A web table's spectator: its table's budget and its tenant's web budget, not the
        tenant's players' cap."""
        table, tenant = self.credential(principal), principal.tenant
        full = [
            (cap, what, setting)
            for open_now, cap, what, setting in (
                (self.by_credential.get(table, 0), self.web_spectators_per_table, "this table",
                 "MAX_WEB_SPECTATORS_PER_TABLE"),
                (self.web_by_tenant.get(tenant, 0), self.web_spectators_per_tenant, "the tenant's web tables",
                 "MAX_WEB_SPECTATORS_PER_TENANT"),
            )
            if open_now >= cap
        ]  # fmt: skip
        if full:
            cap, what, setting = full[0]
            raise CapReached(
                f"{rpc} refused: {what} already have {cap} spectator streams open on this gateway, the "
                f"most allowed for web tables ({setting}); players' streams are not affected"
            )
        self.by_credential[table] = self.by_credential.get(table, 0) + 1
        self.web_by_tenant[tenant] = self.web_by_tenant.get(tenant, 0) + 1
        try:
            yield
        finally:
            _release(self.by_credential, table)
            _release(self.web_by_tenant, tenant)

    @property
    def open_streams(self) -> int:
        return sum(self.by_tenant.values()) + sum(self.web_by_tenant.values())


def _release(counts: dict[Any, int], key: Any) -> None:
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]
