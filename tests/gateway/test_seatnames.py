"""Seat names are read from the tables once they are settled, not every second (issue 45: every
match not made by a table was read every second, one Redis round trip per action at 1,000 paced
matches)."""

from __future__ import annotations

import asyncio

from gateway.api.seatnames import COMPLETE_REFRESH_S, REFRESH_S, SeatNames
from gateway.eventstore.base import MatchKey

KEY = MatchKey("acme", "m1")


class Tables:
    """The tables' names, counting reads."""

    def __init__(self, named: dict[int, str]) -> None:
        self.named = named
        self.reads = 0

    async def names(self, tenant: str, match_id: str) -> dict[int, str]:
        self.reads += 1
        return dict(self.named)


def _reads_over(tables: Tables, seconds: float, *, settled: bool) -> tuple[int, list[str]]:
    """Reads made by a view asked for every 0.1 s (clock time) over `seconds`."""
    now = [0.0]
    names = SeatNames(tables, clock=lambda: now[0])

    async def ask() -> list[str]:
        seen: list[str] = []
        while now[0] < seconds:
            seen = await names.of(KEY, 2, settled=settled)
            now[0] += 0.1
        return seen

    seen = asyncio.run(ask())
    return tables.reads, seen


def test_a_match_whose_seats_wait_for_no_claim_is_read_once_per_long_refresh() -> None:
    reads, seen = _reads_over(Tables({}), 10.0, settled=True)  # a CreateMatch match: no names, ever
    assert (reads, seen) == (1, ["", ""])
    reads, _ = _reads_over(Tables({}), COMPLETE_REFRESH_S + 1, settled=True)
    assert reads == 2  # read again now and then: a player renamed by claiming again


def test_a_table_still_waiting_for_a_claim_is_read_every_refresh() -> None:
    tables = Tables({0: "Ann"})
    reads, seen = _reads_over(tables, 10.0, settled=False)
    assert seen == ["Ann", ""]
    assert reads >= 10.0 / REFRESH_S - 1  # a friend's name shows within a second of the claim


def test_every_seat_named_is_settled_whatever_the_view_says() -> None:
    reads, seen = _reads_over(Tables({0: "Ann", 1: "Bob"}), 10.0, settled=False)
    assert (reads, seen) == (1, ["Ann", "Bob"])
