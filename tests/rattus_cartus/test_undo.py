"""What a seat may take back in Rattus Cartus (docs/rules/rattus_cartus.md, "What can be undone")."""

from __future__ import annotations

from services.kernel.testing import find_move
from services.rattus_cartus import GAME


def test_entering_a_building_may_be_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: m.kind == "enter_building" and m.event_kinds == {"building_entered"})
    assert move.undoable(GAME)


def test_a_card_put_face_down_may_be_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: m.kind == "play_card")
    assert move.undoable(GAME)


def test_a_look_at_a_nun_row_card_is_never_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: m.kind == "look_at_nun")
    assert not move.undoable(GAME)


def test_the_last_entry_that_turns_up_the_buildings_cards_is_never_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: m.kind == "finish_entering" and "building_revealed" in m.event_kinds)
    assert not move.undoable(GAME)


def test_a_card_given_to_another_seat_is_never_taken_back_its_receiver_has_seen_it() -> None:
    move = find_move(GAME, 3, lambda m: m.kind == "give_card")
    assert not move.undoable(GAME)
