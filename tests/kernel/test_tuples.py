"""The kernel's tuple helpers: frozen state changes by copy, and seat order around the table."""

from __future__ import annotations

import pytest

from services.kernel import put, seats_from, shift, without


def test_put_replaces_one_entry_and_leaves_the_original_alone() -> None:
    values = (1, 2, 3)
    assert put(values, 1, 9) == (1, 9, 3)
    assert put(values, 0, 9) == (9, 2, 3) and put(values, 2, 9) == (1, 2, 9)
    assert values == (1, 2, 3)


def test_shift_adds_to_one_number() -> None:
    assert shift((5, 5, 5), 2, -3) == (5, 5, 2)


def test_without_removes_the_first_occurrence_of_each_item_and_keeps_the_order() -> None:
    assert without(("a", "b", "a", "c"), "a") == ("b", "a", "c")
    assert without((4, 1, 4, 2), 4, 4) == (1, 2)
    assert without((1, 2), *()) == (1, 2)


def test_without_refuses_to_remove_what_is_not_there() -> None:
    with pytest.raises(ValueError):
        without(("a",), "b")


def test_seats_go_round_the_table_from_the_first() -> None:
    assert seats_from(2, 4) == (2, 3, 0, 1)
    assert seats_from(0, 3) == (0, 1, 2)
