"""What a seat may take back in Lords of Waterdeep (docs/rules/waterdeep.md, "What can be undone")."""

from __future__ import annotations

from services.kernel.testing import find_move
from services.waterdeep import GAME


def test_an_agent_placed_for_resources_may_be_taken_back() -> None:
    move = find_move(
        GAME,
        2,
        lambda m: m.kind == "place_agent" and m.event_kinds == {"agent_placed", "decision_done", "gained"},
    )
    assert move.undoable(GAME)


def test_a_quest_completed_may_be_taken_back() -> None:
    move = find_move(GAME, 2, lambda m: m.kind == "complete_quest" and "intrigue_drawn" not in m.event_kinds)
    assert move.undoable(GAME)


def test_an_agent_placed_where_an_intrigue_card_is_drawn_is_never_taken_back() -> None:
    move = find_move(GAME, 2, lambda m: m.kind == "place_agent" and "intrigue_drawn" in m.event_kinds)
    assert not move.undoable(GAME)


def test_a_quest_taken_from_cliffwatch_inn_is_never_taken_back_the_inn_refills_from_the_deck() -> None:
    move = find_move(
        GAME, 2, lambda m: any(e.__struct_config__.tag == "quest_taken" and e.slot >= 0 for e in m.events)
    )
    assert "inn_refilled" in move.event_kinds and not move.undoable(GAME)


def test_a_building_bought_is_never_taken_back_the_hall_refills_from_the_stack() -> None:
    move = find_move(GAME, 2, lambda m: "building_bought" in m.event_kinds)
    assert not move.undoable(GAME)
