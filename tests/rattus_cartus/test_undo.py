"""What a seat may take back in Rattus Cartus (docs/rules/rattus_cartus.md, "What can be undone")."""

from __future__ import annotations

from services.kernel.testing import Move, find_move
from services.rattus_cartus import GAME


def tag(value: object) -> str:
    return str(type(value).__struct_config__.tag)  # type: ignore[attr-defined]


def kinds(move: Move) -> set[str]:
    return {tag(e) for e in move.events}


def test_entering_a_building_may_be_taken_back() -> None:
    move = find_move(
        GAME, 3, lambda m: tag(m.action) == "enter_building" and kinds(m) == {"building_entered"}
    )
    assert move.undoable(GAME)


def test_a_card_put_face_down_may_be_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: tag(m.action) == "play_card")
    assert move.undoable(GAME)


def test_a_look_at_a_nun_row_card_is_never_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: tag(m.action) == "look_at_nun")
    assert not move.undoable(GAME)


def test_the_last_entry_that_turns_up_the_buildings_cards_is_never_taken_back() -> None:
    move = find_move(
        GAME, 3, lambda m: tag(m.action) == "finish_entering" and "building_revealed" in kinds(m)
    )
    assert not move.undoable(GAME)


def test_a_card_given_to_another_seat_is_never_taken_back_its_receiver_has_seen_it() -> None:
    move = find_move(GAME, 3, lambda m: tag(m.action) == "give_card")
    assert not move.undoable(GAME)
