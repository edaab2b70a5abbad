"""Small pure helpers every game uses on its frozen state: tuples updated by copy, and the
order of the seats around the table.

Game state is immutable (frozen msgspec Structs holding tuples), so changing one seat's count
or taking a card out of a hand builds a new tuple; these are the few ways every game does it.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def put(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """`values` with the entry at `index` (0 <= index < len) replaced by `value`."""
    return (*values[:index], value, *values[index + 1 :])


def shift(values: tuple[int, ...], index: int, delta: int) -> tuple[int, ...]:
    """`values` with `delta` added to the number at `index` (0 <= index < len)."""
    return (*values[:index], values[index] + delta, *values[index + 1 :])


def without(values: tuple[T, ...], *removed: T) -> tuple[T, ...]:
    """`values` less one occurrence (the first) of each item of `removed`, order kept; a
    missing item raises ValueError (a caller that removes what is not there has a bug)."""
    out = list(values)
    for item in removed:
        out.remove(item)
    return tuple(out)


def seats_from(first: int, players: int) -> tuple[int, ...]:
    """Every seat once, in turn order (clockwise, by seat number), starting with `first`."""
    return tuple((first + k) % players for k in range(players))
