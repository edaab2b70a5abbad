"""Issue 32: each seat's name as its player chose it at a private table, in every MatchView.

The names live beside the table (gateway/tables.py `names`); every view a viewer gets (GetView,
SubmitAction's return_view, Watch, Play, Replay) carries them as `seat_names`. A replica keeps a
match's names for COMPLETE_REFRESH_S once they are settled (a seat's name changes only if its
player claims again with another name); until then it reads them at most every REFRESH_S, so a
Watch sees a friend's name within a second of the claim without a Redis read per update.

Settled: every seat is named, or the view read them with shows no seat waiting for a claim. A
claim names its seat before the match learns of the claim (gateway/api/tables_rpc.py), so once no
seat waits, a read finds every name there will be: a match not made by a table (CreateMatch,
matchmaking), whose seats are never named, or a table with bot seats. Issue 45: those matches were
read every second, one Redis round trip per action at 1,000 paced matches (5% of the gateway's
samples).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from guildhall.gateway.v1 import gateway_pb2

from gateway.api import wire
from gateway.eventstore.base import MatchKey

REFRESH_S = 1.0
COMPLETE_REFRESH_S = 60.0  # a full table's names, read again now and then (a player renamed)
_KEPT = 20_000  # matches whose names a replica remembers


class SeatNames:
    """The names of a match's seats, read from the tables and remembered per replica."""

    def __init__(self, tables: Any, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._tables = tables
        self._clock = clock
        self._known: OrderedDict[tuple[str, str], tuple[list[str], float, bool]] = OrderedDict()

    async def of(self, key: MatchKey, seats: int, *, settled: bool = False) -> list[str]:
        """One name per seat, "" where nobody chose one. `settled`: no seat of the match waits for a
        claim any more (the view shows none), so the names read now are every name there will be."""
        if self._tables is None or seats <= 0:
            return []
        cache_key = (key.tenant, key.match_id)
        known = self._known.get(cache_key)
        now = self._clock()
        if known is not None and now - known[1] < (COMPLETE_REFRESH_S if known[2] else REFRESH_S):
            return known[0]
        named = await self._tables.names(key.tenant, key.match_id)
        names = [named.get(seat, "") for seat in range(seats)]
        self._known[cache_key] = (names, now, settled or all(names))
        self._known.move_to_end(cache_key)
        while len(self._known) > _KEPT:
            self._known.popitem(last=False)
        return names

    def forget(self, key: MatchKey) -> None:
        """A seat was (re)named here: the next view reads the names again."""
        self._known.pop((key.tenant, key.match_id), None)


def seat_count(view: Any) -> int:
    players = getattr(view, "players", None)
    if players is not None:
        return len(players)
    return int(getattr(view, "seat_count", 0) or 0)


async def fill_view(
    ports: Any, out: gateway_pb2.MatchView, view: Any, key: MatchKey
) -> gateway_pb2.MatchView:
    """wire.fill_view with the seats' names (ports: gateway.api.server.Ports)."""
    wire.fill_view(out, view, key.match_id)
    names = getattr(ports, "names", None)
    if names is not None:
        out.seat_names.extend(await names.of(key, seat_count(view), settled=not view.unclaimed))
    return out


async def view_pb(ports: Any, view: Any, key: MatchKey) -> gateway_pb2.MatchView:
    return await fill_view(ports, gateway_pb2.MatchView(), view, key)
