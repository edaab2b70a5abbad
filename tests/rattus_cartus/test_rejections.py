"""Illegal actions are answered with a Rejection that says why, and change nothing."""

from __future__ import annotations

from services.kernel import GAME_OVER, ILLEGAL_ACTION, NOT_YOUR_TURN, UNKNOWN_PLAYER
from services.rattus_cartus.model import (
    OVER,
    ChooseSupply,
    ChooseVictim,
    DiscardForRat,
    EnterBuilding,
    FinishEntering,
    GiveCard,
    LookAtNun,
    PlayCard,
    StopDiscarding,
)
from tests.rattus_cartus.helpers import MONK, act, entering, rejected, scenario


def test_acting_out_of_turn_is_refused() -> None:
    state = entering(scenario(3, row=("palace", "farm")))
    assert rejected(state, 1, EnterBuilding(0)).code == NOT_YOUR_TURN


def test_a_seat_that_does_not_exist_is_refused() -> None:
    assert rejected(scenario(3), 7, ChooseSupply(0)).code == UNKNOWN_PLAYER


def test_a_finished_game_refuses_every_action() -> None:
    assert rejected(scenario(3, phase=OVER), 0, ChooseSupply(0)).code == GAME_OVER


def test_an_action_for_another_phase_says_what_is_expected_now() -> None:
    state = scenario(3, row=("palace", "farm"))
    rejection = rejected(state, 0, EnterBuilding(0))
    assert rejection.code == ILLEGAL_ACTION
    assert rejection.message == "Not now: you must choose the supply action of one of this round's buildings."
    for action in (FinishEntering(), GiveCard(MONK), ChooseVictim(1), DiscardForRat(MONK), StopDiscarding()):
        assert rejected(state, 0, action).message.startswith("Not now")


def test_a_building_that_is_not_in_the_row_is_refused() -> None:
    state = scenario(3, row=("palace", "farm"))
    assert rejected(state, 0, ChooseSupply(2)).message == "There is no building 2 this round; choose 0 to 1."
    assert "no building -1" in rejected(entering(state), 0, EnterBuilding(-1)).message


def test_a_card_you_do_not_hold_cannot_be_played() -> None:
    state = entering(scenario(3, row=("palace", "farm"), hands={0: ("royalty:0",)}))
    state = act(state, 0, EnterBuilding(0))
    assert rejected(state, 0, PlayCard(MONK)).message == "You have no 'church:1' card in your hand."


def test_a_nun_row_position_outside_the_row_is_refused() -> None:
    state = scenario(3, looks_owed=(1, 0, 0), supply_choice=(0, -1, -1))
    assert rejected(state, 0, LookAtNun(5)).message == "The Nun-row has positions 0 to 4."
