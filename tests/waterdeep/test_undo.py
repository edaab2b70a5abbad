"""What a seat may take back in Lords of Waterdeep (docs/rules/waterdeep.md, "What can be undone")."""

from __future__ import annotations

from services.kernel.testing import Move, find_move
from services.waterdeep import GAME


def tag(value: object) -> str:
    return str(type(value).__struct_config__.tag)  # type: ignore[attr-defined]


def kinds(move: Move) -> set[str]:
    return {tag(e) for e in move.events}


def test_an_agent_placed_for_resources_may_be_taken_back() -> None:
    move = find_move(
        GAME,
        2,
        lambda m: tag(m.action) == "place_agent" and kinds(m) == {"agent_placed", "decision_done", "gained"},
    )
    assert move.undoable(GAME)


def test_a_quest_completed_may_be_taken_back() -> None:
    move = find_move(
        GAME, 2, lambda m: tag(m.action) == "complete_quest" and "intrigue_drawn" not in kinds(m)
    )
    assert move.undoable(GAME)


def test_an_agent_placed_where_an_intrigue_card_is_drawn_is_never_taken_back() -> None:
    move = find_move(GAME, 2, lambda m: tag(m.action) == "place_agent" and "intrigue_drawn" in kinds(m))
    assert not move.undoable(GAME)


def test_a_quest_taken_from_cliffwatch_inn_is_never_taken_back_the_inn_refills_from_the_deck() -> None:
    move = find_move(GAME, 2, lambda m: any(tag(e) == "quest_taken" and e.slot >= 0 for e in m.events))
    assert "inn_refilled" in kinds(move) and not move.undoable(GAME)


def test_a_building_bought_is_never_taken_back_the_hall_refills_from_the_stack() -> None:
    move = find_move(GAME, 2, lambda m: "building_bought" in kinds(m))
    assert not move.undoable(GAME)
