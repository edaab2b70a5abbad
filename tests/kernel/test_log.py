"""EventLog: each event is applied as it is emitted; the cursor draws from the starting Rng."""

from __future__ import annotations

import msgspec

from services.kernel import EventLog, Rng


class _State(msgspec.Struct, frozen=True):
    total: int
    rng: Rng


def _add(state: _State, amount: int) -> _State:
    return _State(state.total + amount, state.rng)


def test_emit_applies_in_order_and_keeps_the_events() -> None:
    start = _State(0, Rng.from_seed(7))
    log: EventLog[_State, int] = EventLog(_add, start)
    log.emit(2)
    log.emit(3)
    assert log.events == [2, 3]
    assert log.state.total == 5
    assert start.total == 0  # the starting state is untouched


def test_the_cursor_starts_at_the_states_rng() -> None:
    start = _State(0, Rng.from_seed(7).at(4))
    log: EventLog[_State, int] = EventLog(_add, start)
    assert log.cursor.rng == start.rng
    drawn = log.cursor.die()
    assert drawn == start.rng.cursor().die()
    assert log.cursor.rng.counter > 4
