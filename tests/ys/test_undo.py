"""What a seat may take back in Ys (docs/rules/ys.md, "What can be undone")."""

from __future__ import annotations

from services.kernel.testing import find_move
from services.ys import GAME


def test_a_broker_placed_before_the_reveal_may_be_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: m.kind == "place_broker" and m.event_kinds == {"broker_placed"})
    assert move.undoable(GAME)


def test_a_secret_bid_may_be_taken_back_until_the_last_bid_reveals_them_all() -> None:
    early = find_move(GAME, 3, lambda m: m.kind == "bid" and m.event_kinds == {"bid_placed"})
    last = find_move(GAME, 3, lambda m: m.kind == "bid" and "bids_revealed" in m.event_kinds)
    assert early.undoable(GAME) and not last.undoable(GAME)


def test_a_spys_look_at_a_face_down_broker_is_never_taken_back() -> None:
    move = find_move(GAME, 3, lambda m: m.kind == "peek")
    assert not move.undoable(GAME)


def test_a_neutral_broker_drawn_unseen_is_never_taken_back() -> None:
    move = find_move(GAME, 2, lambda m: m.kind == "place_neutral" and m.action.value == -1)
    assert not move.undoable(GAME)
