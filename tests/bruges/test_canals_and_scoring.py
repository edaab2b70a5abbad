"""Canals and statues, majorities over rounds, and the final result."""

from __future__ import annotations

import msgspec

from services.bruges import GAME
from services.bruges.model import House, MajoritiesChecked, PlayCard, StatueTaken
from services.bruges.rules import RULES
from services.bruges.scoring import breakdown
from tests.bruges.helpers import new_game, of_type, plain, play, playing, put, seat, settle


def builder(tokens: tuple[int, int], **changes):
    """Seat 0 on turn holding a card of the colour of section 0's next space."""
    state = seat(playing(2), 0, canals=tokens, guilders=20, **changes)
    space = RULES.canal_space(state, 0, 0)
    cards = [plain(space, 0), plain("red", 3) if space != "red" else plain("blue", 3)]
    return seat(state, 0, hand=cards), cards[0]


def test_the_canal_cost_grows_with_the_distance_from_the_seal() -> None:
    state, card_id = builder((3, 0))
    state, _ = play(state, 0, PlayCard(card_id, "canal", 0))
    assert state.seats[0].guilders == 20 - RULES.board.canal_costs[3] and state.seats[0].canals == (4, 0)


def test_a_completed_section_takes_the_top_statue() -> None:
    state, card_id = builder((4, 0))
    state, events = play(state, 0, PlayCard(card_id, "canal", 0))
    assert of_type(events, StatueTaken) == [StatueTaken(0, 0, 7)]
    assert state.statues == (6, 5, 4, 3, 2) and state.seats[0].statues == (7,)


def test_no_third_statue_and_none_from_an_empty_pile() -> None:
    state, card_id = builder((4, 0), statues=(7, 6), statue_sections=(False, True))
    state, events = play(state, 0, PlayCard(card_id, "canal", 0))
    assert not of_type(events, StatueTaken) and state.seats[0].statues == (7, 6)
    state, card_id = builder((4, 0))
    state, events = play(put(state, statues=()), 0, PlayCard(card_id, "canal", 0))
    assert not of_type(events, StatueTaken)


def test_a_complete_section_offers_no_canal_play() -> None:
    state = seat(
        playing(2), 0, canals=(5, 0), guilders=20, hand=[plain(c, 0) for c in ("blue", "brown", "red")]
    )
    assert RULES.canal_space(state, 0, 0) == ""
    assert not [a for a in GAME.legal_actions(state, 0) if a.action == "canal" and a.target == 0]


def test_space_three_scores_three_per_section() -> None:
    parts = breakdown(RULES, msgspec.structs.replace(new_game(2).seats[0], canals=(3, 5), statues=(7, 5)))
    assert parts["canals"] == 6 and parts["statues"] == 12


def test_a_majority_marker_stays_flipped_once_the_lead_is_lost() -> None:
    state = put(playing(2), in_turn=False)
    state = seat(state, 0, reputation=3, majorities=(False, True, False))
    state, events = settle(state)
    assert of_type(events, MajoritiesChecked) == [MajoritiesChecked((0, -1, -1))]
    assert state.seats[0].majorities == (True, True, False)


def test_both_seats_may_end_with_the_same_marker() -> None:
    state = put(playing(2), in_turn=False)
    state = seat(state, 0, majorities=(True, False, False))
    state = seat(state, 1, reputation=1)
    state, _ = settle(state)
    assert state.seats[1].majorities[0] and state.seats[0].majorities[0]


def over(seats_changes: list[dict]) -> object:
    state = put(playing(len(seats_changes)), in_turn=False, last_round=1)
    for player, changes in enumerate(seats_changes):
        state = seat(state, player, **changes)
    state, _ = settle(state)
    return GAME.outcome(state)


def test_the_most_points_win_with_a_breakdown_that_sums_to_the_score() -> None:
    outcome = over([{"score": 20}, {"score": 12, "houses": [(plain("blue", 4), -1)]}])
    assert outcome.winners == (0,)
    for result in outcome.results:
        assert sum(result.breakdown.values()) == result.score


def test_a_tie_goes_to_the_most_guilders_and_then_is_shared() -> None:
    assert over([{"score": 20, "guilders": 3}, {"score": 20, "guilders": 4}]).winners == (1,)
    assert over([{"score": 20, "guilders": 4}, {"score": 20, "guilders": 4}]).winners == (0, 1)


def test_houses_score_one_each_occupied_or_not() -> None:
    seat_state = msgspec.structs.replace(new_game(2).seats[0], houses=(House(1), House(2, 3)))
    assert breakdown(RULES, seat_state)["houses"] == 2
