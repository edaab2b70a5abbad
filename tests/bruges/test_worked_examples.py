"""The rulebook's worked examples (shared/rules/bruges.md §12), each as a scenario."""

from __future__ import annotations

from typing import Any

import msgspec

from services.bruges import GAME
from services.bruges.model import (
    CALAMITY,
    DRAW,
    REPUTATION,
    BuyReputation,
    CalamityStruck,
    DiceRolled,
    House,
    PlayCard,
    Seat,
    State,
    SufferCalamity,
    ThreatTaken,
)
from services.bruges.rules import RULES
from services.bruges.scoring import breakdown
from services.kernel import EventLog
from tests.bruges.helpers import card, new_game, of_type, plain, play, playing, put, seat, settle

BLUE, BROWN, RED, PURPLE, YELLOW = range(5)


def roll(state: State, dice: tuple[int, ...]) -> tuple[State, list[Any]]:
    """Phase 2 with the dice fixed: the rules' own threat handout, calamities and what follows."""
    log = EventLog(RULES.apply, state)
    log.emit(DiceRolled(tuple(dice), state.rng.counter))
    RULES.hand_out_threats(log)
    RULES._advance(log)
    return log.state, log.events


def after_drawing(players=4):
    state = new_game(players)
    return put(state, queue=(), phase=DRAW)


def test_1_a_red_five_and_a_yellow_six_give_everyone_a_red_and_a_yellow_marker() -> None:
    state, events = roll(after_drawing(4), (3, 4, 5, 1, 6))
    assert [(e.player, e.colour) for e in of_type(events, ThreatTaken)] == [
        (0, "red"),
        (1, "red"),
        (2, "red"),
        (3, "red"),
        (0, "yellow"),
        (1, "yellow"),
        (2, "yellow"),
        (3, "yellow"),
    ]
    assert all(s.threats == (0, 0, 1, 0, 1) for s in state.seats)


def test_2_a_purple_one_and_a_blue_two_make_a_reputation_step_cost_three() -> None:
    state, _ = roll(after_drawing(4), (2, 3, 4, 1, 4))
    assert state.phase == REPUTATION and state.reputation_cost == 3
    state, _ = play(state, 0, BuyReputation(True))
    assert state.seats[0].reputation == 1 and state.seats[0].guilders == 2


def test_3_a_yellow_card_for_guilders_with_the_yellow_die_on_six_gives_six() -> None:
    yellow = plain("yellow")
    state = seat(playing(dice=(1, 2, 3, 4, 6)), 0, hand=[yellow, plain("red")])
    state, _ = play(state, 0, PlayCard(yellow, "guilders"))
    assert state.seats[0].guilders == 5 + 6


def test_4_a_red_card_for_workers_gives_two_red_workers() -> None:
    red = plain("red")
    state = seat(playing(), 0, hand=[red, plain("blue")])
    state, _ = play(state, 0, PlayCard(red, "workers"))
    assert state.seats[0].workers == (1, 1, 3, 1, 1)


def test_5_a_brown_card_gives_back_a_brown_threat_marker_for_a_point() -> None:
    brown = plain("brown")
    state = seat(playing(), 0, hand=[brown, plain("blue")], threats=(0, 2, 0, 0, 0))
    state, _ = play(state, 0, PlayCard(brown, "threat"))
    assert state.seats[0].threats == (0, 1, 0, 0, 0) and state.seats[0].score == 6


def test_6_a_blue_card_and_one_guilder_build_the_blue_canal_space_next_to_the_seal() -> None:
    blue = plain("blue")
    state = seat(playing(), 0, hand=[blue, plain("red")])
    assert RULES.canal_space(state, 0, 0) == "blue" and RULES.board.canal_costs[0] == 1
    state, _ = play(state, 0, PlayCard(blue, "canal", 0))
    assert state.seats[0].canals == (1, 0) and state.seats[0].guilders == 4


def test_7_a_purple_house_costs_a_purple_worker() -> None:
    purple = plain("purple")
    state = seat(playing(), 0, hand=[purple, plain("red")])
    state, _ = play(state, 0, PlayCard(purple, "house"))
    assert state.seats[0].workers == (1, 1, 1, 0, 1)
    assert state.seats[0].houses == (House(purple),)


def test_8_the_prince_costs_nine_guilders_scores_three_and_is_used_with_a_yellow_worker() -> None:
    prince = card("Prince")
    house = plain("blue")
    state = seat(playing(), 0, hand=[prince, plain("red")], houses=[(house, -1)], guilders=9)
    state, _ = play(state, 0, PlayCard(prince, "recruit", 0))
    assert state.seats[0].guilders == 0 and state.seats[0].houses[0].person == prince
    person = RULES.persons[prince]
    assert (person.price, person.points, person.icon, person.worker) == (9, 3, "worker", "yellow")


def test_9_majorities_need_a_sole_leader() -> None:
    # People: Blue 6, Yellow 5, Red 4, Green 4 -> Blue. Reputation: Red and Yellow tied on top ->
    # nobody. Canals: Green 7, Red 6, another 2, Blue 0 -> Green. Seats: Blue 0, Yellow 1, Red 2, Green 3.
    state = new_game(4)
    free = list(state.piles[0] + state.piles[1])

    def houses(n):
        return tuple(House(free.pop(), free.pop()) for _ in range(n))

    seats = (
        Seat(houses=houses(6), reputation=2, canals=(0, 0)),
        Seat(houses=houses(5), reputation=4, canals=(1, 1)),
        Seat(houses=houses(4), reputation=4, canals=(3, 3)),
        Seat(houses=houses(4), reputation=1, canals=(4, 3)),
    )
    used = {c for s in seats for h in s.houses for c in (h.card, h.person)}
    state = put(
        state,
        seats=seats,
        piles=tuple(tuple(c for c in p if c not in used) for p in state.piles),
        phase="play",
        current=3,
        in_turn=False,
        last_round=1,
    )
    state, _ = settle(state)
    assert [s.majorities for s in state.seats] == [
        (False, True, False),
        (False, False, False),
        (False, False, False),
        (False, False, True),
    ]


def test_10_the_final_scoring_example_adds_thirty_six_points() -> None:
    # Persons Mayor, Councilman, Vicar, Powderman, Beggar (3+1+2+0+2 = 8) in six houses (6), the
    # Mayor with 2 Bureaucrats (4), two majority markers (8), a token on a space 3 (3), reputation
    # step 6 (7): 36 points added to the running score.
    names = ("Mayor", "Councilman", "Vicar", "Powderman", "Beggar")
    state = new_game(2)
    free = [c for c in state.piles[0] if RULES.persons[c].stand_in and RULES.persons[c].icon != "laurel"]
    houses = [(free[k], card(n)) for k, n in enumerate(names)] + [(free[5], -1)]
    state = seat(
        state, 0, houses=houses, majorities=(True, False, True), canals=(3, 1), reputation=6, score=0
    )
    parts = breakdown(RULES, state.seats[0])
    assert parts == {
        "running": 0,
        "persons": 8,
        "houses": 6,
        "laurels": 4,
        "majorities": 8,
        "canals": 3,
        "statues": 0,
        "reputation": 7,
    }
    assert sum(parts.values()) == 36


def test_11_the_double_calamity_fire_then_raid() -> None:
    # 2 red + 2 yellow markers, the roll shows red 5 and yellow 6: Fire (no canal token, so a house
    # with its person back to hand) and Raid (every guilder); the markers go back for no points.
    state = after_drawing(2)
    house_a, house_b, person = plain("blue"), plain("brown"), card("Alchemist")
    state = seat(state, 0, threats=(0, 0, 2, 0, 2), guilders=9, houses=[(house_a, person), (house_b, -1)])
    state, events = roll(state, (3, 3, 5, 3, 6))
    assert state.phase == CALAMITY and GAME.active_players(state) == (0,)
    assert state.seats[0].guilders == 0 and state.seats[0].threats == (0, 0, 0, 0, 0)
    assert state.seats[0].score == 5
    assert [e.colour for e in of_type(events, CalamityStruck)] == ["red", "yellow"]
    assert set(GAME.legal_actions(state, 0)) == {
        SufferCalamity("red", house=0),
        SufferCalamity("red", house=1),
    }
    state, _ = play(state, 0, SufferCalamity("red", house=0))
    assert state.seats[0].houses == (House(house_b),)
    assert person in state.seats[0].hand and house_a in state.discard


def test_12_start_state() -> None:
    state = new_game(3)
    for s in state.seats:
        assert (s.score, s.guilders, s.workers, s.hand[: len(s.hand) - s.unseen], s.reputation) == (
            5,
            5,
            (1, 1, 1, 1, 1),
            (),
            0,
        )
        assert s.majorities == (False, False, False)
    assert state.statues == (7, 6, 5, 4, 3, 2)


def test_a_round_is_phases_one_to_four() -> None:
    state = new_game(2)
    assert state.phase == DRAW and GAME.active_players(state) == (0,)
    assert msgspec.json.encode(GAME.view(state, 0))
