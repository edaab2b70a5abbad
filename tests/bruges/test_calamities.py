"""The third threat marker of a colour strikes its calamity [SEED phase 2, FS §5]."""

from __future__ import annotations

from services.bruges import GAME
from services.bruges.model import (
    CALAMITY,
    DRAW,
    CalamityStruck,
    House,
    PersonLost,
    SufferCalamity,
)
from tests.bruges.helpers import card, new_game, of_type, plain, play, put, reject, seat
from tests.bruges.test_worked_examples import roll


def threatened(players: int = 2, player: int = 0, **changes):
    return seat(put(new_game(players), queue=(), phase=DRAW), player, **changes)


def test_flood_blue_returns_every_worker() -> None:
    state, events = roll(threatened(threats=(2, 0, 0, 0, 0), workers=(3, 1, 0, 2, 1)), (6, 3, 3, 3, 3))
    assert state.seats[0].workers == (0, 0, 0, 0, 0) and state.seats[1].workers == (1, 1, 1, 1, 1)
    assert state.seats[0].threats == (0, 0, 0, 0, 0) and state.seats[1].threats == (1, 0, 0, 0, 0)


def test_raid_yellow_returns_every_guilder() -> None:
    state, _ = roll(threatened(threats=(0, 0, 0, 0, 2), guilders=14), (3, 3, 3, 3, 5))
    assert state.seats[0].guilders == 0


def test_intrigue_purple_costs_three_points_but_never_below_zero() -> None:
    state, _ = roll(threatened(threats=(0, 0, 0, 2, 0), score=7), (3, 3, 3, 6, 3))
    assert state.seats[0].score == 4
    state, _ = roll(threatened(threats=(0, 0, 0, 2, 0), score=2), (3, 3, 3, 6, 3))
    assert state.seats[0].score == 0


def test_plague_brown_discards_a_person_of_your_choice_and_the_house_stays() -> None:
    a, b = card("Alchemist"), card("King")
    state = threatened(threats=(0, 2, 0, 0, 0), houses=[(plain("blue", 5), a), (plain("red", 5), b)])
    state, _ = roll(state, (3, 6, 3, 3, 3))
    assert state.phase == CALAMITY and GAME.active_players(state) == (0,)
    state, events = play(state, 0, SufferCalamity("brown", house=1))
    assert of_type(events, PersonLost) == [PersonLost(0, 1, b, "plague")]
    assert state.seats[0].houses[1] == House(plain("red", 5)) and b in state.discard
    assert state.round == 2  # on to the reputation step and phase 3 (nobody holds a card here)


def test_plague_without_persons_costs_nothing() -> None:
    state, _ = roll(threatened(threats=(0, 2, 0, 0, 0), houses=[(plain("blue", 5), -1)]), (3, 6, 3, 3, 3))
    assert state.round == 2 and state.seats[0].houses == (House(plain("blue", 5)),)


def test_fire_red_takes_a_house_or_the_outermost_canal_token() -> None:
    state = threatened(threats=(0, 0, 2, 0, 0), canals=(3, 0), houses=[(plain("blue", 5), -1)])
    state, _ = roll(state, (3, 3, 5, 3, 3))
    assert set(GAME.legal_actions(state, 0)) == {
        SufferCalamity("red", house=0),
        SufferCalamity("red", section=0),
    }
    state, _ = play(state, 0, SufferCalamity("red", section=0))
    assert state.seats[0].canals == (2, 0) and len(state.seats[0].houses) == 1


def test_fire_keeps_a_statue_but_a_rebuilt_section_earns_no_second_one() -> None:
    state = threatened(threats=(0, 0, 2, 0, 0), canals=(5, 0), statues=(7,), statue_sections=(True, False))
    state, _ = roll(state, (3, 3, 5, 3, 3))  # one option only: resolved at once
    assert state.seats[0].canals == (4, 0) and state.seats[0].statues == (7,)


def test_a_person_burnt_out_of_its_house_is_known_to_be_in_that_hand() -> None:
    alchemist = card("Alchemist")
    state = threatened(threats=(0, 0, 2, 0, 0), houses=[(plain("blue", 5), alchemist)])
    state, _ = roll(state, (3, 3, 5, 3, 3))
    assert GAME.view(state, 1).seats[0].known_hand == (alchemist,)


def test_two_calamities_at_once_the_player_chooses_the_order() -> None:
    a, b = card("Alchemist"), card("King")
    state = threatened(threats=(0, 2, 2, 0, 0), houses=[(plain("blue", 5), a), (plain("red", 5), b)])
    state, _ = roll(state, (3, 5, 5, 3, 3))
    options = set(GAME.legal_actions(state, 0))
    assert SufferCalamity("brown", house=0) in options and SufferCalamity("red", house=1) in options
    # Fire first: the King's house burns, the King goes to hand; then the Plague has one person left.
    state, events = play(state, 0, SufferCalamity("red", house=1))
    assert of_type(events, PersonLost) == [PersonLost(0, 0, a, "plague")]
    assert b in state.seats[0].hand and state.seats[0].houses == (House(plain("blue", 5)),)


def test_seats_struck_at_the_same_time_choose_at_the_same_time() -> None:
    state = threatened(threats=(0, 0, 2, 0, 0), houses=[(plain("blue", 5), -1), (plain("blue", 6), -1)])
    state = seat(state, 1, threats=(0, 0, 2, 0, 0), houses=[(plain("red", 5), -1), (plain("red", 6), -1)])
    state, events = roll(state, (3, 3, 6, 3, 3))
    assert len(of_type(events, CalamityStruck)) == 2 and GAME.active_players(state) == (0, 1)
    state, _ = play(state, 1, SufferCalamity("red", house=0))
    assert GAME.active_players(state) == (0,)
    reject(state, 1, SufferCalamity("red", house=0))
    state, _ = play(state, 0, SufferCalamity("red", house=1))
    assert not state.tasks and state.round == 2


def test_returned_calamity_markers_give_no_points() -> None:
    state, _ = roll(threatened(threats=(0, 0, 0, 0, 2)), (3, 3, 3, 3, 6))
    assert state.seats[0].score == 5


def test_a_wrong_calamity_choice_is_rejected() -> None:
    state = threatened(threats=(0, 0, 2, 0, 0), houses=[(plain("blue", 5), -1), (plain("blue", 6), -1)])
    state, _ = roll(state, (3, 3, 6, 3, 3))
    assert reject(state, 0, SufferCalamity("brown", house=0)).code == "illegal_action"
    reject(state, 0, SufferCalamity("red", house=7))
    reject(state, 0, SufferCalamity("red", section=0))
