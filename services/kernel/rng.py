"""A counter-based PRNG whose whole state is two integers kept in the game state.

Rules code never touches `random`: Validate draws from the state's `Rng`, writes
what it drew (a shuffled order, a die face) into the event, and records the
advanced counter there too, so Apply only reads the event. The generator is
SplitMix64 indexed by a counter, so the n-th draw of a seed is a pure function
of (seed, n) and replays identically on every machine and Python version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import msgspec

T = TypeVar("T")

_MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def _splitmix64(seed: int, counter: int) -> int:
    z = (seed + (counter + 1) * _GAMMA) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


class Rng(msgspec.Struct, frozen=True):
    """Seeded generator state: the `counter`-th output of `seed` comes next."""

    seed: int
    counter: int = 0

    def cursor(self) -> RngCursor:
        """A scratch cursor for a run of draws inside one Validate call."""
        return RngCursor(self)


class RngCursor:
    """Draws from an `Rng` and remembers how far it got; `.rng` is the advanced state.

    It is a local helper for one Validate call and never stored: the state keeps
    only the frozen `Rng` (put `cursor.rng` into the event that used the draws).
    """

    __slots__ = ("_seed", "_counter")

    def __init__(self, rng: Rng) -> None:
        self._seed = rng.seed & _MASK64
        self._counter = rng.counter

    @property
    def rng(self) -> Rng:
        return Rng(self._seed, self._counter)

    def next_u64(self) -> int:
        value = _splitmix64(self._seed, self._counter)
        self._counter += 1
        return value

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n), without modulo bias."""
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            value = self.next_u64()
            if value < limit:
                return value % n

    def die(self, sides: int = 6) -> int:
        """One roll of a die numbered 1..sides."""
        return 1 + self.randbelow(sides)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.randbelow(len(items))]

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """A Fisher-Yates shuffled copy of `items`."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.randbelow(i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out)

    def sample(self, items: Sequence[T], k: int) -> tuple[T, ...]:
        """`k` distinct items in random order."""
        return self.shuffle(items)[:k]
