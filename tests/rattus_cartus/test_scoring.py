"""End-of-game scoring, the plague check and the winner."""

from __future__ import annotations

import msgspec

from services.rattus_cartus.model import CLASSES, FLUTE, GOLD, JOKER, OVER, PASS, SWORD, Options, State
from services.rattus_cartus.rules import gold_awards, influence_awards, majority_awards, outcome
from tests.rattus_cartus.helpers import scenario

QUIET_ROW = ("church:4", "magic:4", "royalty:4", "peasantry:4", "chivalry:4")  # 20 nuns


def finished(players: int, **changes: object) -> State:
    state = scenario(players, row=("treasury", "palace"), phase=OVER, nun_row=QUIET_ROW, hands={})
    empty = {"hands": tuple(() for _ in range(players))}
    return msgspec.structs.replace(state, **{**empty, **changes})


def with_track(state: State, track: str, values: tuple[int, ...], arrival: tuple[int, ...]) -> State:
    k = CLASSES.index(track)
    return msgspec.structs.replace(
        state,
        influence=tuple(values if i == k else row for i, row in enumerate(state.influence)),
        arrival=tuple(arrival if i == k else row for i, row in enumerate(state.arrival)),
    )


def test_influence_scores_ten_five_and_two_for_the_top_three() -> None:
    state = with_track(finished(4), "church", (3, 7, 5, 1), (1, 2, 3, 4))
    assert influence_awards(state, "church") == [2, 10, 5, 0]


def test_equal_influence_goes_to_the_marker_lower_in_the_stack() -> None:
    state = with_track(finished(3), "magic", (4, 4, 4), (9, 2, 5))
    assert influence_awards(state, "magic") == [2, 10, 5]


def test_zero_influence_scores_nothing_on_a_track() -> None:
    state = with_track(finished(4), "royalty", (0, 2, 0, 1), (0, 1, 0, 2))
    assert influence_awards(state, "royalty") == [0, 10, 0, 5]


def test_two_players_score_only_ten_and_five_for_influence() -> None:
    state = with_track(finished(2), "royalty", (3, 1), (1, 2))
    assert influence_awards(state, "royalty") == [10, 5]


def test_tied_majorities_score_one_each_and_a_lone_majority_two() -> None:
    assert majority_awards([3, 1, 0]) == [2, 0, 0]
    assert majority_awards([2, 2, 1]) == [1, 1, 0]
    assert majority_awards([0, 0, 0]) == [0, 0, 0]  # nobody scores by holding none


def test_gold_second_place_after_a_clear_first() -> None:
    assert gold_awards([5, 2, 1, 2], two_players=False) == [6, 1, 0, 1]
    assert gold_awards([5, 2, 1], two_players=False) == [6, 3, 0]
    assert gold_awards([5, 0, 0], two_players=False) == [6, 0, 0]


def test_gold_tie_for_first_with_two_players_splits_nine() -> None:
    assert gold_awards([2, 2], two_players=True) == [4, 4]


def test_end_scoring_breakdown_adds_up_every_source() -> None:
    hands = (
        ("church:0", "church:1", JOKER, SWORD, SWORD, GOLD, GOLD),  # 3 pop+Jokers, 2 Swords, 2 Gold
        ("magic:0", FLUTE, PASS, GOLD),
        (PASS, "royalty:3"),
    )
    state = finished(3, hands=hands, vp_tokens=(1, 3, 0), rats=(4, 5, 6), options=Options(vp_token_value=2))
    state = with_track(state, "church", (6, 2, 0), (1, 2, 0))
    result = outcome(state)
    assert result is not None
    first = result.results[0].breakdown
    assert first == {
        "influence_peasantry": 0,
        "influence_bourgeoisie": 0,
        "influence_church": 10,
        "influence_chivalry": 0,
        "influence_magic": 0,
        "influence_royalty": 0,
        "hand_majority": 2,
        "sword_majority": 2,
        "flute_majority": 0,
        "pass_majority": 0,
        "gold": 6,
        "vp_tokens": 2,
    }
    assert result.results[0].facts == {"rats": 4, "nuns": 20}
    assert result.results[0].score == sum(first.values()) == 10 + 2 + 2 + 6 + 2
    second = result.results[1].breakdown
    assert (second["influence_church"], second["flute_majority"], second["pass_majority"]) == (5, 2, 1)
    assert (second["gold"], second["vp_tokens"]) == (3, 6)
    assert result.results[1].score == 5 + 2 + 1 + 3 + 6
    assert result.results[2].score == 1  # tied Pass majority
    assert result.winners == (0,)


def test_the_plague_eliminates_a_high_scorer() -> None:
    state = finished(3, vp_tokens=(9, 1, 0), rats=(21, 20, 3))
    result = outcome(state)
    assert result is not None
    assert result.results[0].eliminated and result.results[0].note.startswith("Eliminated by the plague")
    assert result.winners == (1,)


def test_a_tie_on_points_goes_to_the_lower_rat_total() -> None:
    state = finished(3, vp_tokens=(4, 4, 1), rats=(7, 5, 0))
    result = outcome(state)
    assert result is not None and result.winners == (1,)


def test_a_tie_on_points_and_rats_is_a_shared_win() -> None:
    state = finished(3, vp_tokens=(4, 4, 1), rats=(5, 5, 0))
    result = outcome(state)
    assert result is not None and result.winners == (0, 1)


def test_if_the_plague_kills_everyone_everybody_loses() -> None:
    state = finished(3, vp_tokens=(4, 4, 1), rats=(25, 30, 21))
    result = outcome(state)
    assert result is not None and result.winners == ()
    assert all(r.eliminated for r in result.results)


def test_optional_rule_lowest_rat_total_wins_when_everyone_is_eliminated() -> None:
    options = Options(all_eliminated_lowest_rats_wins=True)
    state = finished(3, vp_tokens=(4, 4, 1), rats=(25, 30, 21), options=options)
    result = outcome(state)
    assert result is not None and result.winners == (2,)


def test_an_unfinished_game_has_no_outcome() -> None:
    assert outcome(scenario(3)) is None
