"""Bad actions get a precise Rejection and change nothing."""

from __future__ import annotations

import msgspec
import pytest

from services.waterdeep import GAME
from services.waterdeep.model import Choose, CompleteQuest, Decision, EndTurn, PlaceAgent
from tests.waterdeep.helpers import place, reject, table


def test_only_the_seat_on_turn_may_act() -> None:
    state = table()
    result = GAME.decide(state, 1, PlaceAgent("the_plinth"))
    assert not isinstance(result, list) and result.code == "not_your_turn"


def test_an_occupied_or_unknown_space_is_refused() -> None:
    state = place(table(), 0, "the_plinth")
    assert "cannot assign" in reject(state, 1, PlaceAgent("the_plinth")).message
    assert reject(state, 1, PlaceAgent("nowhere")).code == "illegal_action"


def test_the_answer_must_fit_the_decision() -> None:
    state = table()
    assert "assign an agent" in reject(state, 0, Choose("cleric")).message
    assert reject(state, 0, EndTurn()).code == "illegal_action"
    state = place(table(), 0, "cliffwatch_inn_1")
    assert "not an option" in reject(state, 0, Choose("no_such_quest")).message
    assert reject(state, 0, CompleteQuest("expose_red_wizards_spies")).code == "illegal_action"


def test_a_finished_game_refuses_everything() -> None:
    from services.kernel.testing import random_playout

    final = random_playout(GAME, 2, 4).final
    result = GAME.decide(final, 0, EndTurn())
    assert not isinstance(result, list) and result.code == "game_over"


def test_a_forged_state_is_named_by_check_state() -> None:
    state = table()
    assert GAME.check_state is not None
    GAME.check_state(state)
    forged = [
        msgspec.structs.replace(state, seats=state.seats[:1]),
        msgspec.structs.replace(state, first=7),
        msgspec.structs.replace(state, inn=("dragon_hunt", "", "", "")),
        msgspec.structs.replace(state, pending=(Decision(0, "teleport"),)),
        msgspec.structs.replace(state, pending=(Decision(0, "favor", source="ambush.1"),)),
        msgspec.structs.replace(state, intrigue_deck=("no_card.1",)),
    ]
    for bad in forged:
        with pytest.raises(ValueError):
            GAME.check_state(bad)
