"""Quests whose reward does more than pay resources (once, on completion) [FACTS 6.2 note], and
the Ambassador's finer points [FACTS 3.3]."""

from __future__ import annotations

from services.waterdeep import GAME
from services.waterdeep.model import State
from tests.waterdeep.helpers import (
    HALL,
    INN,
    choose,
    complete,
    give_card,
    options,
    owes,
    place,
    put,
    res,
    seat,
    settle,
    table,
    with_building,
)

Z = {"c": 0, "f": 0, "r": 0, "w": 0, "gold": 0, "vp": 0}


def done(quest: str, cubes: tuple[int, ...], gold: int = 0, players: int = 2) -> State:
    """Seat 0 takes Aurora's Realms Shop, then completes `quest`."""
    state = seat(table(players=players), 0, cubes=cubes, gold=gold, quests=(quest,))
    return complete(place(state, 0, "aurora_realms_shop"), 0, quest)


def test_loot_the_crypt_draws_the_top_quest_of_the_deck() -> None:
    state = seat(table(), 0, cubes=(1, 0, 3, 0), gold=2, quests=("loot_the_crypt_of_chauntea",))
    top = state.quest_deck[0]
    state = complete(place(state, 0, "the_plinth"), 0, "loot_the_crypt_of_chauntea")
    assert state.seats[0].quests == (top,)
    assert res(state, 0)["vp"] == 7 and len(state.seats[0].intrigue) == 1


def test_lure_artisans_puts_a_hall_tile_into_play_free() -> None:
    state = done("lure_artisans_of_mirabar", (1, 1, 1, 0), gold=2)
    assert owes(state, 0) == "buy_free" and options(state, 0) == list(HALL)
    state = choose(state, 0, "the_zoarstar")
    assert [(b.tile, b.owner) for b in state.buildings] == [("the_zoarstar", 0)]
    assert res(state, 0)["gold"] == 4 and res(state, 0)["vp"] == 4 + 1


def test_placate_the_walking_statue_takes_the_top_of_the_stack_free() -> None:
    state = table()
    top = state.stack[0]
    state = done("placate_the_walking_statue", (2, 0, 2, 0), gold=4)
    assert [(b.tile, b.owner) for b in state.buildings] == [(top, 0)]
    assert res(state, 0) == Z | {"vp": 10, "gold": 4}


def test_send_aid_to_the_harpers_gives_a_chosen_opponent_4_gold() -> None:
    state = done("send_aid_to_the_harpers", (1, 1, 1, 0), gold=4, players=3)
    assert options(state, 0) == ["1", "2"]
    state = choose(state, 0, "2")
    assert res(state, 2)["gold"] == 4 and res(state, 0)["vp"] == 15


def test_convert_a_noble_takes_a_quest_from_cliffwatch_inn() -> None:
    state = done("convert_a_noble_to_lathander", (2, 1, 0, 0))
    state = choose(state, 0, INN[3])
    assert state.seats[0].quests == (INN[3],) and res(state, 0)["vp"] == 8


def test_establish_harpers_safe_house_scores_2_per_building() -> None:
    state = with_building(with_building(table(), "northgate", 0), "dragon_tower", 0)
    state = seat(state, 0, cubes=(0, 2, 3, 0), gold=2, quests=("establish_harpers_safe_house",))
    state = complete(place(state, 0, "aurora_realms_shop"), 0, "establish_harpers_safe_house")
    assert res(state, 0)["vp"] == 8 + 4


def test_research_chronomancy_during_reassignment_assigns_the_agent_again_at_once() -> None:
    state = table()
    state = put(state, seats=tuple(put(x, agents=2, pool=2) for x in state.seats))
    state = seat(state, 0, cubes=(0, 0, 0, 2), quests=("research_chronomancy",))
    state, c = give_card(state, 0, "crime_wave")
    state = place(state, 0, "the_plinth")
    state = place(state, 1, "castle_waterdeep")
    state = choose(choose(place(state, 0, "waterdeep_harbor_1"), 0, c), 0, "1")
    state = place(state, 1, "field_of_triumph")
    assert owes(state, 0) == "reassign"
    state = place(state, 0, "aurora_realms_shop")
    state = complete(state, 0, "research_chronomancy")
    assert options(state, 0) == ["the_plinth", "aurora_realms_shop"]
    state = choose(state, 0, "the_plinth")
    assert owes(state, 0) == "place_now"
    assert not any(o.startswith("waterdeep_harbor") for o in options(state, 0))
    state = place(state, 0, "blackstaff_tower")
    assert state.round == 2


def test_the_ambassador_holder_with_the_first_player_marker_assigns_it_then_plays_first() -> None:
    state = with_building(table(), "the_palace_of_waterdeep", 1)
    state = place(state, 0, "the_palace_of_waterdeep")
    state = put(state, pending=(), current=-1, seats=tuple(put(x, pool=0) for x in state.seats))
    state, _ = settle(state)
    assert state.first == 0 and owes(state, 0) == "ambassador"
    state = place(state, 0, "the_plinth")
    assert owes(state, 0) == "place"  # then the normal first placement
    assert res(state, 1)["vp"] == 2


def test_the_palace_takes_the_ambassador_off_its_space() -> None:
    state = with_building(table(), "the_palace_of_waterdeep", 1)
    state = place(state, 0, "the_palace_of_waterdeep")
    state = put(state, pending=(), current=-1, seats=tuple(put(x, pool=0) for x in state.seats))
    state, _ = settle(state)
    state = place(state, 0, "field_of_triumph")  # the Ambassador
    state = place(state, 0, "the_plinth")
    assert "field_of_triumph" not in options(state, 1)
    state = place(state, 1, "the_palace_of_waterdeep")  # the owner, so no owner VP
    assert state.ambassador == 1 and all(not x.ambassador for x in state.placed)
    assert "field_of_triumph" in options(state, 0)
    assert res(state, 1)["vp"] == 2


def test_the_ambassador_taken_in_round_8_does_nothing() -> None:
    state = with_building(table(round=8), "the_palace_of_waterdeep", 1)
    state = place(state, 0, "the_palace_of_waterdeep")
    assert state.ambassador == -1 and res(state, 1)["vp"] == 2
    assert GAME.outcome(state) is None
