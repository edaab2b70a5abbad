"""The keyed counter-mode PRNG: unpredictable to players, deterministic for replays, unbiased."""

from __future__ import annotations

import hashlib
from collections import Counter

import msgspec
import pytest

from services.kernel import Rng
from services.kernel.rng import RngCursor, derive_key


def test_an_output_is_keyed_blake2b_of_the_counter_so_auditors_can_recompute_it() -> None:
    # The documented format: key = BLAKE2b-256(seed as 32 big-endian bytes, person="guildhall-rng-v2"),
    # draw n = BLAKE2b-64 keyed with that key over n as 8 big-endian bytes, read big-endian.
    key = hashlib.blake2b((42).to_bytes(32, "big"), digest_size=32, person=b"guildhall-rng-v2").digest()
    expected = int.from_bytes(hashlib.blake2b((3).to_bytes(8, "big"), digest_size=8, key=key).digest(), "big")
    assert Rng.from_seed(42).at(3).cursor().next_u64() == expected


def test_the_same_seed_and_counter_draw_the_same_numbers() -> None:
    a, b = Rng.from_seed(99).at(5).cursor(), Rng.from_seed(99).at(5).cursor()
    assert [a.randbelow(1000) for _ in range(50)] == [b.randbelow(1000) for _ in range(50)]


def test_the_cursor_records_how_far_it_drew_so_state_can_resume() -> None:
    cursor = Rng.from_seed(7).cursor()
    first = [cursor.next_u64() for _ in range(3)]
    assert cursor.rng == Rng.from_seed(7).at(3)
    assert Rng.from_seed(7).at(2).cursor().next_u64() == first[2]


def test_consecutive_seeds_give_unrelated_streams() -> None:
    # SplitMix64 outputs of seeds s and s+1 were a fixed offset apart before mixing; a PRF's are not.
    a = [Rng.from_seed(1000).cursor().next_u64() for _ in range(1)]
    b = [Rng.from_seed(1001).cursor().next_u64() for _ in range(1)]
    assert a != b
    assert derive_key(1000) != derive_key(1001)


def test_seeds_outside_256_bits_are_refused() -> None:
    with pytest.raises(ValueError):
        Rng.from_seed(2**256)
    with pytest.raises(ValueError):
        Rng.from_seed(-1)


def test_shuffle_is_a_permutation_and_depends_on_the_seed() -> None:
    items = list(range(30))
    one = Rng.from_seed(1).cursor().shuffle(items)
    two = Rng.from_seed(2).cursor().shuffle(items)
    assert sorted(one) == items and sorted(two) == items
    assert one != two
    assert items == list(range(30))  # the input is not touched


def test_randbelow_stays_in_range_and_covers_it_evenly() -> None:
    cursor = Rng.from_seed(2024).cursor()
    counts = Counter(cursor.randbelow(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert all(800 < n < 1200 for n in counts.values())
    assert all(1 <= cursor.die(20) <= 20 for _ in range(200))


class _Scripted(RngCursor):
    """A cursor whose raw 64-bit outputs are given, to test the rejection step."""

    def __init__(self, outputs: list[int]) -> None:
        super().__init__(Rng.from_seed(0))
        self._outputs = iter(outputs)

    def next_u64(self) -> int:
        return next(self._outputs)


def test_randbelow_rejects_the_biased_tail_instead_of_folding_it() -> None:
    n = 3 * 2**62  # 2**64 mod n = 2**62: raw values >= 3 * 2**62 would favour 0 .. 2**62-1 under modulo
    assert _Scripted([2**64 - 1, 5]).randbelow(n) == 5
    assert _Scripted([n - 1]).randbelow(n) == n - 1


def test_the_rng_state_survives_msgpack() -> None:
    rng = Rng.from_seed(2**255 + 12345).at(12345)
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(rng), type=Rng) == rng
