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


class _Moved(msgspec.Struct, frozen=True):
    counter: int


def _record(state: _State, event: _Moved) -> _State:
    return _State(state.total + 1, state.rng.at(event.counter))


def test_the_cursor_is_taken_at_the_first_draw_and_recorded_draws_keep_it_in_step() -> None:
    log: EventLog[_State, _Moved] = EventLog(_record, _State(0, Rng.from_seed(3)))
    assert not log.drew
    log.emit(_Moved(9))  # an event moved the Rng before anything was drawn
    first = log.cursor.die()
    assert log.drew
    assert first == Rng.from_seed(3).at(9).cursor().die()
    log.emit(_Moved(log.cursor.rng.counter))
    assert log.cursor.rng == log.state.rng
