"""A keyed, counter-based PRNG whose whole state is a key and a counter kept in the game state.

Rules code never touches `random`: Validate draws from the state's `Rng`, writes what
it drew (a shuffled order, a die face) into the event, and records the advanced
counter there too, so Apply only reads the event.

The n-th output is BLAKE2b keyed with the match key over the counter n: a pseudorandom
function, so seeing any number of draws (a player sees their own hand, dice, shuffled
rows) tells nothing about the next draw or about the key. SplitMix64, used before,
is invertible: one view was enough to brute-force a small seed and read every hand.
It is still a pure function of (key, n), so replays are identical on every machine.

Seeds: the gateway draws a 256-bit seed from the OS CSPRNG (`secrets`); the key is
derived from it, so a seed chosen by a test (a small int) is fine for reproducible
matches and never weakens a server-chosen one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

import msgspec

T = TypeVar("T")

SEED_BITS = 256
_KEY_PERSON = b"guildhall-rng-v2"  # domain separation: this key is used for nothing else


def _check_seed(seed: int) -> int:
    if not 0 <= seed < 1 << SEED_BITS:
        raise ValueError(f"a seed is an integer in [0, 2**{SEED_BITS})")
    return seed


def derive_key(seed: int) -> bytes:
    """The 32-byte PRF key of a seed."""
    return hashlib.blake2b(
        _check_seed(seed).to_bytes(SEED_BITS // 8, "big"), digest_size=32, person=_KEY_PERSON
    ).digest()


class Rng(msgspec.Struct, frozen=True):
    """Generator state: draw number `counter` of `key` comes next."""

    key: bytes
    counter: int = 0

    @classmethod
    def from_seed(cls, seed: int) -> Rng:
        return cls(derive_key(seed), 0)

    def at(self, counter: int) -> Rng:
        """The same generator moved to `counter` (events record the counter they advanced to)."""
        return Rng(self.key, counter)

    def cursor(self) -> RngCursor:
        """A scratch cursor for a run of draws inside one Validate call."""
        return RngCursor(self)


class RngCursor:
    """Draws from an `Rng` and remembers how far it got; `.rng` is the advanced state.

    It is a local helper for one Validate call and never stored: the state keeps
    only the frozen `Rng` (put `cursor.rng` or its counter into the event that used the draws).
    """

    __slots__ = ("_key", "_counter", "_keyed")

    def __init__(self, rng: Rng) -> None:
        if len(rng.key) != 32:
            raise ValueError("an Rng key is 32 bytes")
        self._key = rng.key
        self._counter = rng.counter
        # The keyed hash state before any message: copying it is cheaper than keying anew.
        self._keyed = hashlib.blake2b(digest_size=8, key=rng.key)

    @property
    def rng(self) -> Rng:
        return Rng(self._key, self._counter)

    def next_u64(self) -> int:
        mac = self._keyed.copy()
        mac.update(self._counter.to_bytes(8, "big"))
        self._counter += 1
        return int.from_bytes(mac.digest(), "big")

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n): rejection sampling, so no modulo bias."""
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        if n > 1 << 64:
            raise ValueError("randbelow draws below 2**64 only")
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
