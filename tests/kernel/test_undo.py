"""What the kernel lets a seat take back (services/kernel/undo.py): only what the game declares,
never an action that drew randomness or ended the game."""

from __future__ import annotations

import dataclasses

import msgspec

from services.kernel import SetupConfig, UndoRule
from services.kernel.testing import find_move
from services.kernel.undo import draws
from tests.kernel.toy_game import GAME, CountersTaken, State, Take


def test_taking_counters_may_be_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: m.kind == "take" and GAME.outcome(m.after) is None)
    assert move.undoable(GAME)


def test_an_action_that_draws_is_never_undoable_even_when_the_game_calls_its_events_quiet() -> None:
    careless = dataclasses.replace(GAME, undoable=UndoRule(frozenset({"counters_taken", "card_dealt"})))
    move = find_move(careless, 2, lambda m: m.kind == "play_card" and careless.outcome(m.after) is None)
    assert draws(move.state) != draws(move.after)
    assert careless.undoable is not None and careless.undoable(
        move.state, move.player, move.action, move.events
    )
    assert not move.undoable(careless)


def test_the_move_that_ends_the_game_is_never_undoable() -> None:
    move = find_move(GAME, 2, lambda m: m.kind == "take" and GAME.outcome(m.after) is not None)
    assert not move.undoable(GAME)


def test_a_game_that_declares_nothing_lets_nothing_be_taken_back() -> None:
    silent = dataclasses.replace(GAME, undoable=None)
    move = find_move(silent, 2, lambda m: m.kind == "take" and silent.outcome(m.after) is None)
    assert not move.undoable(silent)


def test_an_event_kind_the_game_does_not_list_makes_the_action_not_undoable() -> None:
    state = GAME.start(SetupConfig(2, 1))
    rule = UndoRule(frozenset({"card_dealt"}))
    assert not rule(state, 0, Take(1), [CountersTaken(0, 1)])
    assert UndoRule(frozenset({"counters_taken"}))(state, 0, Take(1), [CountersTaken(0, 1)])


def test_a_kinds_check_sees_the_event_and_the_acting_seat() -> None:
    state = GAME.start(SetupConfig(2, 1))
    someone_elses = UndoRule(
        frozenset({"counters_taken"}), {"counters_taken": lambda e, seat: e.player != seat}
    )
    assert someone_elses(state, 0, Take(1), [CountersTaken(0, 1)])
    assert not someone_elses(state, 0, Take(1), [CountersTaken(1, 1)])


def test_draws_reads_every_generator_of_a_state() -> None:
    state: State = GAME.start(SetupConfig(2, 1))
    moved = msgspec.structs.replace(state, rng=state.rng.at(state.rng.counter + 1))
    assert draws(state) == (state.rng.counter,) and draws(moved) == (state.rng.counter + 1,)
