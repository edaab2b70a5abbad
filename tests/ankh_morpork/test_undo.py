"""What a seat may take back in Discworld: Ankh-Morpork (docs/rules/ankh_morpork.md, "What can
be undone")."""

from __future__ import annotations

from services.ankh_morpork import GAME
from services.kernel.testing import find_move


def test_a_minion_placed_on_the_open_board_may_be_taken_back() -> None:
    move = find_move(
        GAME, 3, lambda m: m.kind == "place_minion" and m.event_kinds == {"minion_placed", "stack_set"}
    )
    assert move.undoable(GAME)


def test_the_move_that_refills_the_hand_is_never_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: "cards_drawn" in m.event_kinds)
    assert not move.undoable(GAME)


def test_an_assassination_is_never_taken_back_its_victims_interrupts_would_show() -> None:
    """Whether the minion goes at once or its owner may answer shows whether their hand holds
    Gaspode or the Fresh Start Club: either way it revealed something."""
    at_once = find_move(GAME, 3, lambda m: m.kind == "assassinate" and "minion_removed" in m.event_kinds)
    waits = find_move(GAME, 3, lambda m: m.kind == "assassinate" and "minion_removed" not in m.event_kinds)
    assert not at_once.undoable(GAME) and not waits.undoable(GAME)


def test_a_random_event_is_never_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: "event_drawn" in m.event_kinds)
    assert not move.undoable(GAME)
