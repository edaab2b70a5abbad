"""One decision at a time per match on this replica (issue 45).

Seats that choose at once (Rattus Cartus's gifts and Nun-row looks, Ys's bids) used to be decided
side by side: both actions went to the rules service on the same version, both were signed and
sent to Redis, and the second append was refused as a conflict. At 128 busy Rattus Cartus
matches that was one action in ten: a rules call, a signature and an append each, for a refusal.
Taking turns, the second action is decided on the state the first left: its stale
`expected_version` is refused before any rules call, and an action sent without one is decided
once, on the latest state, instead of conflicting and being decided again.

Only this replica's submits take turns; replicas racing on one match are still settled by the
append's version check (a conflict, then the loop in `PlayUseCases.submit`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from types import TracebackType


class MatchTurns:
    """`async with turns.turn(key):` one holder per key at a time, the others waiting in order.
    A key's lock lives only while someone holds it or waits for it."""

    __slots__ = ("_locks",)

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[asyncio.Lock, int]] = {}  # key -> (lock, holders + waiters)

    def turn(self, key: Hashable) -> _Turn:
        return _Turn(self, key)

    def __len__(self) -> int:
        """Keys held or waited for now."""
        return len(self._locks)

    def _join(self, key: Hashable) -> asyncio.Lock:
        lock, users = self._locks.get(key) or (asyncio.Lock(), 0)
        self._locks[key] = (lock, users + 1)
        return lock

    def _leave(self, key: Hashable) -> None:
        lock, users = self._locks[key]
        if users == 1:
            del self._locks[key]
        else:
            self._locks[key] = (lock, users - 1)


class _Turn:
    __slots__ = ("_key", "_lock", "_turns")

    def __init__(self, turns: MatchTurns, key: Hashable) -> None:
        self._turns, self._key = turns, key
        self._lock: asyncio.Lock | None = None

    async def __aenter__(self) -> None:
        lock = self._turns._join(self._key)
        try:
            await lock.acquire()
        except BaseException:  # cancelled while waiting: no longer a user
            self._turns._leave(self._key)
            raise
        self._lock = lock

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        assert self._lock is not None
        self._lock.release()
        self._turns._leave(self._key)
