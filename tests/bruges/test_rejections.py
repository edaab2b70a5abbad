"""Bad actions get a precise Rejection and change nothing."""

from __future__ import annotations

import pytest

from services.bruges import GAME
from services.bruges.model import (
    Activate,
    BuyReputation,
    DrawCard,
    EndTurn,
    Options,
    PlayCard,
    StopDrawing,
)
from services.kernel import SetupConfig, SetupError
from tests.bruges.helpers import card, new_game, plain, playing, reject, seat


def test_only_the_seat_that_owes_a_decision_may_act() -> None:
    state = new_game(3)
    assert GAME.decide(state, 1, DrawCard(0)).code == "not_your_turn"
    assert GAME.decide(state, 9, DrawCard(0)).code == "unknown_player"


def test_an_action_of_the_wrong_kind_is_illegal_now() -> None:
    assert "Not now" in reject(new_game(2), 0, EndTurn()).message
    assert "Not now" in reject(new_game(2), 0, BuyReputation(True)).message


def test_you_stop_drawing_only_with_five_cards() -> None:
    assert "five" in reject(new_game(2), 0, StopDrawing()).message


def test_a_pile_is_0_or_1() -> None:
    assert "two draw piles" in reject(new_game(2), 0, DrawCard(2)).message


@pytest.mark.parametrize(
    ("action", "words"),
    [
        (PlayCard(10_000, "workers"), "not in your hand"),
        (PlayCard(-1, "workers"), "not in your hand"),
        ("dance", "Unknown action"),
        ("threat", "no red threat marker"),
        ("canal0", "next space of that section is blue"),
        ("canal7", "section 0 or 1"),
        ("recruit", "Recruit onto one of your houses"),
        ("workers_target", "takes no target"),
    ],
)
def test_card_plays_that_break_a_rule_are_refused_with_the_reason(action: object, words: str) -> None:
    red = plain("red", 0)
    state = seat(playing(2), 0, hand=[red, plain("blue", 0)], workers=(1, 1, 0, 1, 1))
    named = {
        "dance": PlayCard(red, "dance"),
        "threat": PlayCard(red, "threat"),
        "canal0": PlayCard(red, "canal", 0),
        "canal7": PlayCard(red, "canal", 7),
        "recruit": PlayCard(red, "recruit", 0),
        "workers_target": PlayCard(red, "workers", 1),
    }
    rejection = reject(state, 0, named.get(action, action))  # type: ignore[arg-type]
    assert words in rejection.message and rejection.code == "illegal_action"


def test_a_house_needs_a_worker_of_its_colour_and_a_person_its_price() -> None:
    red = plain("red", 0)
    state = seat(
        playing(2),
        0,
        hand=[red, card("King")],
        workers=(1, 1, 0, 1, 1),
        houses=[(plain("blue", 5), -1)],
        guilders=11,
    )
    assert "red worker" in reject(state, 0, PlayCard(red, "house")).message
    assert "costs 12 guilders" in reject(state, 0, PlayCard(card("King"), "recruit", 0)).message


def test_one_card_a_turn() -> None:
    from tests.bruges.helpers import play

    state = seat(
        playing(2),
        0,
        hand=[plain("red", 0), plain("red", 1)],
        houses=[(plain("blue", 5), card("Accountant"))],
    )
    state, _ = play(state, 0, PlayCard(plain("red", 0), "workers"))
    assert "played your card" in reject(state, 0, PlayCard(plain("red", 1), "workers")).message
    assert "no person" in reject(state, 0, Activate(3)).message


def test_a_rejection_changes_nothing() -> None:
    state = new_game(2)
    before = GAME.codec.encode_state(state)
    GAME.decide(state, 0, StopDrawing())
    assert GAME.codec.encode_state(state) == before


def test_setup_refuses_a_first_player_beyond_the_table() -> None:
    with pytest.raises(SetupError, match="first_player"):
        GAME.setup(2, 1, Options(first_player=3))
    with pytest.raises(SetupError):
        GAME.start(SetupConfig(players=5, seed=1))
