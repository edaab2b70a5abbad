"""The round: drawing card by card, the piles and the extra pile, the last round, turns of
phase 3, the start player passing, the end of the game."""

from __future__ import annotations

import pytest

from services.bruges import GAME
from services.bruges.model import (
    DRAW,
    OVER,
    PLAY,
    REPUTATION,
    Activate,
    BuyReputation,
    CardDrawn,
    DrawCard,
    GameEnded,
    HandLooked,
    LastRoundSet,
    PhaseStarted,
    PileReplaced,
    PlayCard,
    RoundStarted,
    TurnStarted,
)
from services.bruges.rules import RULES
from tests.bruges.helpers import card, new_game, of_type, plain, play, playing, put, seat, settle
from tests.bruges.test_worked_examples import roll


@pytest.mark.parametrize(("players", "piles", "extra"), [(2, 66, 99), (3, 99, 66), (4, 132, 33)])
def test_the_deck_is_one_of_five_stacks_per_player_and_the_rest_is_the_extra_pile(
    players: int, piles: int, extra: int
) -> None:
    state = GAME.setup(players, 7, GAME.options_type())
    assert len(state.piles[0]) + len(state.piles[1]) == piles and len(state.extra) == extra
    assert abs(len(state.piles[0]) - len(state.piles[1])) <= 1
    assert sorted(state.piles[0] + state.piles[1] + state.extra) == list(range(165))


def test_drawing_is_one_card_at_a_time_from_the_pile_of_your_choice_looked_at_when_done() -> None:
    state = new_game(2)
    tops = (state.piles[0][0], state.piles[1][0])
    state, events = play(state, 0, DrawCard(1))
    assert state.seats[0].hand == (tops[1],) and state.seats[0].unseen == 1
    assert GAME.view(state, 0).seats[0].hand == ()  # not looked at yet
    assert GAME.view(state, 0).seats[0].hand_colours == (RULES.colour[tops[1]],)
    for _ in range(4):
        state, events = play(state, 0, DrawCard(0))
    assert of_type(events, HandLooked) and state.seats[0].unseen == 0
    assert len(GAME.view(state, 0).seats[0].hand) == 5
    assert GAME.active_players(state) == (1,)


def test_phase_one_goes_from_the_start_player_clockwise() -> None:
    state = GAME.setup(3, 1, GAME.options_type(first_player=2))
    assert GAME.active_players(state) == (2,)
    for _ in range(5):
        state, _ = play(state, 2, DrawCard(0))
    assert GAME.active_players(state) == (0,)


def test_a_seat_keeping_a_card_draws_four() -> None:
    state = new_game(2)
    kept = plain("red")
    state = seat(state, 0, hand=[kept])
    for _ in range(4):
        state, _ = play(state, 0, DrawCard(0))
    assert len(state.seats[0].hand) == 5 and GAME.active_players(state) == (1,)


def test_an_empty_pile_takes_the_extra_pile_and_this_round_is_the_last() -> None:
    state = new_game(2)
    state = put(state, piles=(state.piles[0][:1], state.piles[1]), discard=state.piles[0][1:])
    state, events = play(state, 0, DrawCard(0))
    replaced = of_type(events, PileReplaced)[0]
    assert not replaced.split and state.extra_in and state.extra == ()
    assert len(state.piles[0]) == 99 and of_type(events, LastRoundSet) == [LastRoundSet(1)]


def test_once_the_extra_pile_is_in_an_empty_pile_splits_the_other() -> None:
    state = new_game(2)
    rest = state.piles[1] + state.extra
    state = put(
        state,
        piles=(state.piles[0][:1], rest[:9]),
        extra=(),
        extra_in=True,
        last_round=1,
        discard=state.piles[0][1:] + rest[9:],
    )
    state, events = play(state, 0, DrawCard(0))
    assert of_type(events, PileReplaced)[0].split
    assert (len(state.piles[0]), len(state.piles[1])) == (5, 4)


def test_the_extra_pile_coming_in_during_phase_three_makes_the_next_round_the_last() -> None:
    state = playing(2)
    state = seat(
        state, 0, hand=[plain("red", 5), plain("red", 6)], houses=[(plain("blue", 5), card("Servant"))]
    )
    state = put(state, piles=(state.piles[0][:1], state.piles[1]), discard=state.piles[0][1:])
    state, _ = play(state, 0, Activate(0))
    state, events = play(state, 0, DrawCard(0))
    assert of_type(events, LastRoundSet) == [LastRoundSet(2)]


def test_the_game_ends_after_the_last_round() -> None:
    state = put(playing(2), last_round=1, in_turn=False)
    state, events = settle(state)
    assert state.phase == OVER and of_type(events, GameEnded) == [GameEnded(1)]
    outcome = GAME.outcome(state)
    assert outcome is not None and not GAME.active_players(state)


def test_phase_four_passes_the_start_player_clockwise() -> None:
    state = put(playing(3), in_turn=False)
    state, events = settle(state)
    assert of_type(events, RoundStarted) == [RoundStarted(2, 1)]
    assert state.phase == DRAW and GAME.active_players(state) == (1,)


def test_phase_three_turns_run_clockwise_until_everyone_played_four_cards() -> None:
    state = playing(2)
    state = seat(state, 0, hand=[plain("red", 0), plain("red", 1)], plays_left=2)
    state = seat(state, 1, hand=[plain("blue", 0)], plays_left=4)
    state, events = play(state, 0, PlayCard(plain("red", 0), "workers"))
    assert of_type(events, TurnStarted) == [TurnStarted(1)]
    state, events = play(state, 1, PlayCard(plain("blue", 0), "workers"))
    assert of_type(events, TurnStarted) == [TurnStarted(0)]  # seat 1 has no card left
    state, events = play(state, 0, PlayCard(plain("red", 1), "workers"))
    assert state.phase == DRAW and state.round == 2  # everyone done: phase 4, next round


def test_reputation_is_offered_in_turn_order_to_those_who_can_pay() -> None:
    state = seat(put(new_game(3), queue=(), phase=DRAW), 1, guilders=2)
    state, _ = roll(state, (2, 1, 3, 3, 3))
    assert state.phase == REPUTATION and state.queue == (0, 2)
    state, _ = play(state, 0, BuyReputation(False))
    state, _ = play(state, 2, BuyReputation(True))
    assert [s.reputation for s in state.seats] == [0, 0, 1] and state.round == 2  # no cards: round over


def test_without_a_one_or_two_nobody_buys_reputation() -> None:
    state, events = roll(put(new_game(2), queue=(), phase=DRAW), (3, 4, 3, 4, 3))
    assert [e.phase for e in of_type(events, PhaseStarted)] == [REPUTATION, PLAY]
    assert of_type(events, PhaseStarted)[0].queue == ()


def test_reputation_stops_at_step_twelve() -> None:
    state = seat(put(new_game(2), queue=(), phase=DRAW), 0, reputation=12)
    state, _ = roll(state, (1, 3, 3, 3, 3))
    assert state.queue == (1,)


def test_draw_card_events_show_the_colour_of_the_back_only() -> None:
    state = new_game(2)
    state, events = play(state, 0, DrawCard(0))
    drawn = of_type(events, CardDrawn)[0]
    assert GAME.redact_event(drawn, 1).card == -1 and GAME.redact_event(drawn, 0).card == -1
    assert GAME.redact_event(drawn, 1).colour == drawn.colour
    assert state.phase == DRAW and PLAY != DRAW
