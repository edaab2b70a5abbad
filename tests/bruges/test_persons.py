"""Persons: each icon kind and each effect primitive of the data file, with the real persons the
rulebook describes where the data has one."""

from __future__ import annotations

import pytest

from services.bruges import GAME
from services.bruges.catalog import EFFECTS
from services.bruges.model import (
    DRAW,
    Activate,
    CardDrawn,
    DiscardCard,
    DrawCard,
    EndTurn,
    GiveWorker,
    PlayCard,
    RemoveCanal,
    ReturnThreat,
    StopDrawing,
    Task,
    TaskDropped,
    TurnEnded,
)
from services.bruges.rules import RULES
from services.bruges.scoring import laurel_points
from tests.bruges.helpers import (
    card,
    new_game,
    of_type,
    plain,
    play,
    playing,
    put,
    reject,
    seat,
    settle,
    with_effect,
)

COVERED = {
    "gain_guilders",
    "gain_points",
    "gain_workers",
    "guilders_per_house",
    "points_per_house",
    "gain_reputation",
    "draw_cards",
    "draw_and_discard",
    "return_threats",
    "opponents_lose_canal",
    "opponents_give_workers",
    "die_reward",
    "extra_play",
    "canal_without_card",
    "action_bonus",
    "recruit_discount",
    "hand_size",
    "reputation_points",
    "score_points",
    "score_per_workers",
    "score_per_group",
    "score_per_distinct_group",
    "score_per_house",
}


def test_every_effect_primitive_has_a_test_here() -> None:
    assert set(EFFECTS) == COVERED


def recruited(person: int, players: int = 2, **seat_changes):
    """Seat 0 recruits `person` onto an empty blue house (a spare red card stays in hand)."""
    house = plain("blue", 5)
    state = playing(players)
    changes = {"guilders": RULES.persons[person].price, **seat_changes}
    state = seat(state, 0, hand=[person, plain("red", 5)], houses=[(house, -1)], **changes)
    return play(state, 0, PlayCard(person, "recruit", 0))


def with_person(person: int, players: int = 2, dice=(3, 3, 3, 3, 3), hand=None, **changes):
    """Seat 0 on turn, before its card, with `person` in play on a blue house."""
    state = playing(players, dice=dice)
    hand = hand if hand is not None else [plain("red", 5), plain("red", 6)]
    return seat(state, 0, hand=hand, houses=[(plain("blue", 5), person)], **changes)


# -- icons -------------------------------------------------------------------------------


def test_an_arrow_person_acts_once_when_recruited_and_never_again() -> None:
    alchemist = card("Alchemist")
    state, _ = recruited(alchemist)
    assert state.seats[0].guilders == 6
    assert not [a for a in GAME.legal_actions(state, 0) if isinstance(a, Activate)]
    assert "not activated" in reject(state, 0, Activate(0)).message


def test_a_worker_person_costs_its_worker_and_is_rotated_until_the_round_ends() -> None:
    servant = card("Servant")
    state = with_person(servant, workers=(0, 0, 2, 0, 0))
    state, _ = play(state, 0, Activate(0))
    state, _ = play(state, 0, DrawCard(0))
    assert state.seats[0].workers == (0, 0, 1, 0, 0) and state.seats[0].houses[0].used
    assert "used this round" in reject(state, 0, Activate(0)).message
    state = put(seat(state, 0, plays_left=0), in_turn=False, current=1)
    state, _ = settle(state)  # nobody else holds cards: phase 4, next round
    assert not state.seats[0].houses[0].used


def test_a_worker_person_cannot_be_used_without_its_worker() -> None:
    state = with_person(card("Servant"), workers=(1, 1, 0, 1, 1))
    assert "red worker" in reject(state, 0, Activate(0)).message


def test_a_once_a_round_person_is_free_and_once_a_round() -> None:
    accountant = card("Accountant")
    state = with_person(accountant)
    state, _ = play(state, 0, Activate(0))
    assert state.seats[0].guilders == 7 and state.seats[0].workers == (1, 1, 1, 1, 1)
    reject(state, 0, Activate(0))


def test_a_permanent_person_is_never_activated_but_improves_its_action_every_time() -> None:
    lawyer = card("Lawyer")
    red = plain("red", 5)
    state = with_person(lawyer)
    reject(state, 0, Activate(0))
    state, _ = play(state, 0, PlayCard(red, "workers"))
    assert state.seats[0].workers == (1, 1, 4, 1, 1)  # 3 instead of 2


def test_a_laurel_person_only_scores_at_the_end() -> None:
    state = with_person(card("Fresco Painter"))
    reject(state, 0, Activate(0))
    assert laurel_points(RULES, state.seats[0], RULES.persons[card("Fresco Painter")]) == 3


def test_a_person_recruited_this_turn_may_be_used_at_once() -> None:
    accountant = card("Accountant")
    state, _ = recruited(accountant)
    assert Activate(0) in GAME.legal_actions(state, 0)


# -- effect primitives -------------------------------------------------------------------


def test_gain_guilders_alchemist_gives_six_on_recruiting() -> None:
    state, _ = recruited(card("Alchemist"))
    assert state.seats[0].guilders == 6


def test_gain_points_king() -> None:
    state, _ = recruited(card("King"))
    assert state.seats[0].score == 5 + 4


def test_gain_workers() -> None:
    person = with_effect("gain_workers", icon="arrow")
    spec = RULES.persons[person]
    state, _ = recruited(person)
    assert (
        state.seats[0].workers[("blue", "brown", "red", "purple", "yellow").index(spec.param_colour)]
        == 1 + spec.amount
    )


def test_guilders_per_house_councilman_counts_yellow_houses() -> None:
    councilman = card("Councilman")
    state = playing()
    houses = [(plain("yellow", 5), -1), (plain("yellow", 6), -1), (plain("blue", 5), -1)]
    state = seat(state, 0, hand=[councilman, plain("red", 5)], houses=houses, guilders=3)
    state, _ = play(state, 0, PlayCard(councilman, "recruit", 2))
    assert state.seats[0].guilders == 2


def test_points_per_house_vicar() -> None:
    vicar = card("Vicar")
    state = playing()
    houses = [(plain("yellow", 5), -1), (plain("brown", 5), -1)]
    state = seat(state, 0, hand=[vicar, plain("red", 5)], houses=houses, guilders=6)
    state, _ = play(state, 0, PlayCard(vicar, "recruit", 0))
    assert state.seats[0].score == 5 + 2


def test_gain_reputation_and_the_reputation_trigger() -> None:
    gatekeeper = card("Gatekeeper")
    state = playing()
    houses = [(plain("yellow", 5), gatekeeper), (plain("brown", 5), -1)]
    bard = card("Bard")
    state = seat(state, 0, hand=[bard, plain("red", 5)], houses=houses, guilders=6)
    state, _ = play(state, 0, PlayCard(bard, "recruit", 1))
    assert state.seats[0].reputation == 1 and state.seats[0].score == 5 + 1


def test_reputation_points_fire_on_a_bought_step_too() -> None:
    from tests.bruges.test_worked_examples import roll

    state = new_game(2)
    state = seat(state, 0, houses=[(plain("yellow", 5), card("Gatekeeper"))])
    state, _ = roll(put(state, queue=(), phase=DRAW), (1, 3, 3, 3, 3))
    from services.bruges.model import BuyReputation

    state, _ = play(state, 0, BuyReputation(True))
    assert (state.seats[0].reputation, state.seats[0].guilders, state.seats[0].score) == (1, 4, 6)


def test_draw_cards_servant_draws_one_card_seen_at_once() -> None:
    state = with_person(card("Servant"))
    state, _ = play(state, 0, Activate(0))
    assert set(GAME.legal_actions(state, 0)) == {DrawCard(0), DrawCard(1)}
    top = state.piles[1][0]
    state, events = play(state, 0, DrawCard(1))
    assert top in state.seats[0].hand and state.seats[0].unseen == 0
    assert of_type(events, CardDrawn)[0].seen


def test_draw_and_discard_mathematician_draws_four_then_discards_four() -> None:
    state, _ = recruited(card("Mathematician"))
    for _ in range(4):
        state, _ = play(state, 0, DrawCard(0))
    assert len(state.seats[0].hand) == 5
    assert all(isinstance(a, DiscardCard) for a in GAME.legal_actions(state, 0))
    for _ in range(4):
        state, _ = play(state, 0, DiscardCard(state.seats[0].hand[0]))
    assert len(state.seats[0].hand) == 1 and not state.tasks


def test_return_threats_jailer_gives_a_point_per_marker() -> None:
    state = with_person(card("Jailer"), threats=(2, 0, 1, 0, 0))
    state, _ = play(state, 0, Activate(0))
    assert set(GAME.legal_actions(state, 0)) == {ReturnThreat("blue"), ReturnThreat("red")}
    state, _ = play(state, 0, ReturnThreat("red"))
    assert state.seats[0].threats == (2, 0, 0, 0, 0) and state.seats[0].score == 6


def test_return_threats_cannot_be_activated_without_markers() -> None:
    state = with_person(card("Jailer"))
    assert "no effect" in reject(state, 0, Activate(0)).message


def test_opponents_lose_canal_troublemaker_every_other_seat_chooses_at_once() -> None:
    state = playing(3)
    state = seat(state, 1, canals=(2, 1))
    state = seat(state, 2, canals=(0, 3))
    troublemaker = card("Troublemaker")
    state = seat(
        state,
        0,
        hand=[troublemaker, plain("red", 5)],
        houses=[(plain("blue", 5), -1)],
        guilders=6,
        canals=(2, 0),
    )
    state, _ = play(state, 0, PlayCard(troublemaker, "recruit", 0))
    # seat 2 has one section only: done for it; seat 1 chooses
    assert state.seats[2].canals == (0, 2)
    assert GAME.active_players(state) == (1,)
    state, _ = play(state, 1, RemoveCanal(0))
    assert state.seats[1].canals == (1, 1) and state.seats[0].canals == (2, 0)
    assert GAME.active_players(state) == (0,)


def test_opponents_give_workers_beggar_takes_two_from_each_or_fewer() -> None:
    state = playing(3)
    state = seat(state, 1, workers=(0, 0, 0, 0, 1))
    state = seat(state, 2, workers=(1, 0, 0, 2, 0))
    beggar = card("Beggar")
    state = seat(state, 0, hand=[beggar, plain("red", 5)], houses=[(plain("blue", 5), -1)], guilders=6)
    state, _ = play(state, 0, PlayCard(beggar, "recruit", 0))
    assert state.seats[1].workers == (0, 0, 0, 0, 0)
    assert GAME.active_players(state) == (2,)
    assert set(GAME.legal_actions(state, 2)) == {GiveWorker("blue"), GiveWorker("purple")}
    state, _ = play(state, 2, GiveWorker("purple"))
    state, _ = play(state, 2, GiveWorker("blue"))
    assert state.seats[2].workers == (0, 0, 0, 1, 0)
    assert state.seats[0].workers == (2, 1, 1, 2, 2) and GAME.active_players(state) == (0,)


def test_die_reward_powderman_needs_the_brown_die_on_five_or_six() -> None:
    powderman = card("Powderman")
    state = with_person(powderman, dice=(3, 5, 3, 3, 3))
    state, _ = play(state, 0, Activate(0))
    assert state.seats[0].guilders == 6
    reject(with_person(powderman, dice=(3, 4, 3, 3, 3)), 0, Activate(0))


def test_extra_play_coachman_plays_a_fifth_card_and_ends_the_round_with_none() -> None:
    coachman = card("Coachman")
    state = with_person(
        coachman, hand=[plain("red", 5), plain("red", 6)], workers=(0, 0, 0, 0, 1), plays_left=1
    )
    state, _ = play(state, 0, PlayCard(plain("red", 5), "workers"))
    state, _ = play(state, 0, Activate(0))
    state, _ = play(state, 0, PlayCard(plain("red", 6), "workers"))
    assert state.seats[0].hand == () and state.seats[0].plays_left == 0
    assert state.seats[0].workers == (0, 0, 4, 0, 0)


def test_canal_without_card_acrobat_pays_double() -> None:
    acrobat = card("Acrobat")
    state = with_person(acrobat, guilders=2)
    assert set(a for a in GAME.legal_actions(state, 0) if isinstance(a, Activate)) == {
        Activate(0, 0),
        Activate(0, 1),
    }
    state, _ = play(state, 0, Activate(0, 1))
    assert state.seats[0].canals == (0, 1) and state.seats[0].guilders == 0
    assert len(state.seats[0].hand) == 2


def test_action_bonus_spice_merchant_adds_a_guilder() -> None:
    state = with_person(card("Spice Merchant"), dice=(3, 3, 4, 3, 3))
    state, _ = play(state, 0, PlayCard(plain("red", 5), "guilders"))
    assert state.seats[0].guilders == 5 + 4 + 1


def test_action_bonus_on_the_threat_action_adds_points() -> None:
    person = with_effect("action_bonus", param_action="threat")
    state = with_person(person, threats=(0, 0, 1, 0, 0))
    state, _ = play(state, 0, PlayCard(plain("red", 5), "threat"))
    assert state.seats[0].score == 5 + 1 + RULES.persons[person].amount


def test_recruit_discount_biologist_lowers_later_prices() -> None:
    alchemist = card("Alchemist")
    state = playing()
    houses = [(plain("blue", 5), card("Biologist")), (plain("blue", 6), -1)]
    state = seat(
        state,
        0,
        hand=[alchemist, plain("red", 5)],
        houses=houses,
        guilders=RULES.persons[alchemist].price - 1,
    )
    state, _ = play(state, 0, PlayCard(alchemist, "recruit", 1))
    assert state.seats[0].guilders == 6


def test_hand_size_inventor_may_draw_a_sixth_card() -> None:
    state = new_game(2)
    state = seat(state, 0, houses=[(plain("blue", 5), card("Inventor"))])
    for _ in range(5):
        state, _ = play(state, 0, DrawCard(0))
    assert set(GAME.legal_actions(state, 0)) == {DrawCard(0), DrawCard(1), StopDrawing()}
    state, _ = play(state, 0, DrawCard(1))
    assert len(state.seats[0].hand) == 6 and GAME.active_players(state) == (1,)


def test_hand_size_the_inventor_owner_may_stop_at_five() -> None:
    state = new_game(2)
    state = seat(state, 0, houses=[(plain("blue", 5), card("Inventor"))])
    for _ in range(5):
        state, _ = play(state, 0, DrawCard(0))
    state, _ = play(state, 0, StopDrawing())
    assert len(state.seats[0].hand) == 5 and state.seats[0].unseen == 0


@pytest.mark.parametrize(
    ("name", "seat_changes", "expected"),
    [
        ("Bishop", {"workers": (2, 1, 1, 1, 0)}, 2),  # 5 workers: 2 pairs
        ("Engraver", {}, 2 * 2),  # artist (itself) + the other person's group
        ("Fresco Painter", {}, 3),
        ("Mayor", {}, 2 * 1),  # itself
    ],
)
def test_laurel_primitives(name: str, seat_changes: dict, expected: int) -> None:
    other = card("Alchemist")  # scholar
    state = seat(
        new_game(2), 0, houses=[(plain("blue", 5), card(name)), (plain("blue", 6), other)], **seat_changes
    )
    assert laurel_points(RULES, state.seats[0], RULES.persons[card(name)]) == expected


def test_laurel_score_per_house_and_per_group() -> None:
    person = with_effect("score_per_house")
    spec = RULES.persons[person]
    houses = [
        (plain(spec.param_colour, 5), person),
        (plain(spec.param_colour, 6), -1),
        (plain("blue" if spec.param_colour != "blue" else "red", 5), -1),
    ]
    state = seat(new_game(2), 0, houses=houses)
    assert laurel_points(RULES, state.seats[0], spec) == 2 * spec.amount
    group_person = with_effect("score_per_group", stand_in=True)
    g = RULES.persons[group_person]
    state = seat(new_game(2), 0, houses=[(plain("blue", 5), group_person)])
    assert laurel_points(RULES, state.seats[0], g) == g.amount * 1


def test_a_task_a_seat_cannot_carry_out_is_dropped() -> None:
    state = playing(2)
    state = seat(state, 1, workers=(0, 0, 0, 0, 0))
    state = put(state, tasks=(Task(1, "give_workers", 2, 0),))
    state, events = settle(state)
    assert not state.tasks and of_type(events, TaskDropped) == [TaskDropped(1, "give_workers")]


def test_end_turn_only_after_the_card() -> None:
    state = with_person(card("Accountant"))
    assert "Play a card" in reject(state, 0, EndTurn()).message
    state, _ = play(state, 0, PlayCard(plain("red", 5), "workers"))
    assert EndTurn() in GAME.legal_actions(state, 0)
    state, events = play(state, 0, EndTurn())
    assert of_type(events, TurnEnded) == [TurnEnded(0)]
    assert state.seats[0].plays_left == 3  # seat 1 holds no card: seat 0 is on turn again


def test_a_house_counts_by_its_own_colour_not_by_its_persons() -> None:
    councilman = card("Councilman")
    yellow_person = plain("yellow", 7)
    houses = [(plain("blue", 5), yellow_person), (plain("yellow", 5), -1)]
    state = seat(playing(), 0, hand=[councilman, plain("red", 5)], houses=houses, guilders=3)
    state, _ = play(state, 0, PlayCard(councilman, "recruit", 1))
    assert state.seats[0].guilders == 1  # one yellow house: the blue one holds a yellow person
