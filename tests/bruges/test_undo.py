"""What a seat may take back in Bruges (docs/rules/bruges.md, "What can be undone")."""

from __future__ import annotations

from services.bruges import GAME
from services.kernel.testing import Move, find_move


def test_a_card_played_for_guilders_or_workers_may_be_taken_back() -> None:
    def played_for(action: str) -> Move:
        return find_move(GAME, 2, lambda m: m.kind == "play_card" and m.action.action == action)

    assert played_for("guilders").undoable(GAME) and played_for("workers").undoable(GAME)


def test_a_card_drawn_is_never_taken_back() -> None:
    move = find_move(GAME, 2, lambda m: m.kind == "draw_card")
    assert not move.undoable(GAME)


def test_what_leads_to_the_dice_is_never_taken_back() -> None:
    move = find_move(GAME, 2, lambda m: "dice_rolled" in m.event_kinds)
    assert not move.undoable(GAME)
