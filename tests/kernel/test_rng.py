"""The counter-based PRNG: deterministic, unbiased in range, and portable."""

from __future__ import annotations

from collections import Counter

import msgspec

from services.kernel import Rng


def test_the_first_output_matches_the_splitmix64_reference() -> None:
    # SplitMix64 seeded with 0 yields 0xE220A8397B1DCDAF first (Vigna's reference code).
    assert Rng(0).cursor().next_u64() == 0xE220A8397B1DCDAF


def test_the_same_seed_and_counter_draw_the_same_numbers() -> None:
    a, b = Rng(99, 5).cursor(), Rng(99, 5).cursor()
    assert [a.randbelow(1000) for _ in range(50)] == [b.randbelow(1000) for _ in range(50)]


def test_the_cursor_records_how_far_it_drew_so_state_can_resume() -> None:
    cursor = Rng(7).cursor()
    first = [cursor.next_u64() for _ in range(3)]
    assert cursor.rng == Rng(7, 3)
    resumed = Rng(7, 2).cursor()
    assert resumed.next_u64() == first[2]


def test_shuffle_is_a_permutation_and_depends_on_the_seed() -> None:
    items = list(range(30))
    one = Rng(1).cursor().shuffle(items)
    two = Rng(2).cursor().shuffle(items)
    assert sorted(one) == items and sorted(two) == items
    assert one != two
    assert items == list(range(30))  # the input is not touched


def test_randbelow_stays_in_range_and_covers_it_evenly() -> None:
    cursor = Rng(2024).cursor()
    counts = Counter(cursor.randbelow(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert all(800 < n < 1200 for n in counts.values())
    assert all(1 <= cursor.die(20) <= 20 for _ in range(200))


def test_the_rng_state_survives_msgpack_as_two_integers() -> None:
    rng = Rng(2**64 - 1, 12345)
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(rng), type=Rng) == rng
