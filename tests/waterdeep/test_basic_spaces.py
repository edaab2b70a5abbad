"""Every action space of the nine basic buildings [SEED Edificios; FACTS 3]."""

from __future__ import annotations

import pytest

from tests.waterdeep.helpers import (
    HALL,
    INN,
    choose,
    give_card,
    options,
    owes,
    place,
    put,
    res,
    seat,
    table,
)


@pytest.mark.parametrize(
    ("space", "gained"),
    [
        ("aurora_realms_shop", {"gold": 4}),
        ("blackstaff_tower", {"w": 1}),
        ("field_of_triumph", {"f": 2}),
        ("grinning_lion_tavern", {"r": 2}),
        ("the_plinth", {"c": 1}),
    ],
)
def test_resource_spaces_give_their_resources(space: str, gained: dict[str, int]) -> None:
    state = place(table(), 0, space)
    expected = {"c": 0, "f": 0, "r": 0, "w": 0, "gold": 0, "vp": 0} | gained
    assert res(state, 0) == expected
    assert state.current == 1  # nothing to complete: the turn passed on


def test_castle_waterdeep_takes_the_first_player_marker_for_next_round_and_an_intrigue_card() -> None:
    state = place(table(), 0, "castle_waterdeep")
    assert len(state.seats[0].intrigue) == 1
    assert state.first == 0
    state = place(table(), 0, "aurora_realms_shop")
    state = place(state, 1, "castle_waterdeep")
    assert state.first == 1
    assert state.current == 0  # this round's order is unchanged


def test_cliffwatch_inn_space_1_takes_a_quest_and_2_gold_and_refills_the_slot() -> None:
    state = place(table(), 0, "cliffwatch_inn_1")
    assert owes(state, 0) == "inn_quest"
    top = state.quest_deck[0]
    state = choose(state, 0, INN[2])
    assert state.seats[0].quests == (INN[2],)
    assert res(state, 0)["gold"] == 2
    assert state.inn[2] == top


def test_cliffwatch_inn_space_2_takes_a_quest_and_an_intrigue_card() -> None:
    state = choose(place(table(), 0, "cliffwatch_inn_2"), 0, INN[0])
    assert state.seats[0].quests == (INN[0],)
    assert len(state.seats[0].intrigue) == 1
    assert res(state, 0)["gold"] == 0


def test_cliffwatch_inn_space_3_deals_four_new_quests_then_takes_one_without_gold() -> None:
    state = table()
    new = state.quest_deck[:4]
    state = place(state, 0, "cliffwatch_inn_3")
    assert state.inn == new
    assert set(INN) <= set(state.quest_discard)
    state = choose(state, 0, new[1])
    assert state.seats[0].quests == (new[1],)
    assert res(state, 0)["gold"] == 0


def test_builders_hall_buys_a_tile_scores_its_vp_and_refills_the_hall() -> None:
    state = seat(table(hall_vp=(1, 2, 3)), 0, gold=5)
    assert "builders_hall" in options(state, 0)
    top = state.stack[0]
    state = place(state, 0, "builders_hall")
    assert options(state, 0) == ["dragon_tower", "the_golden_horn"]  # The Zoarstar costs 8
    state = choose(state, 0, "the_golden_horn")
    assert res(state, 0)["gold"] == 1 and res(state, 0)["vp"] == 2
    assert state.hall == (HALL[0], top, HALL[2]) and state.hall_vp == (1, 0, 3)
    assert [(b.tile, b.owner) for b in state.buildings] == [("the_golden_horn", 0)]
    assert state.buildings[0].stock[4] == 4  # its first 4 Gold are put on it when bought


def test_builders_hall_needs_gold_for_one_of_the_tiles() -> None:
    state = seat(table(), 0, gold=2)
    assert "builders_hall" not in options(state, 0)


@pytest.mark.parametrize("space", ["waterdeep_harbor_1", "waterdeep_harbor_2", "waterdeep_harbor_3"])
def test_each_harbor_space_plays_an_intrigue_card(space: str) -> None:
    state, c = give_card(table(), 0, "spread_the_wealth")
    state = place(state, 0, space)
    assert owes(state, 0) == "intrigue"
    state = choose(state, 0, c)
    assert res(state, 0)["gold"] == 4
    assert c in state.intrigue_discard


def test_a_player_without_intrigue_cards_may_not_enter_the_harbor() -> None:
    assert not any(o.startswith("waterdeep_harbor") for o in options(table(), 0))


def test_an_occupied_space_is_closed_to_everybody() -> None:
    state = place(table(), 0, "the_plinth")
    assert "the_plinth" not in options(state, 1)
    state = place(state, 1, "field_of_triumph")
    assert "the_plinth" not in options(state, 0) and "field_of_triumph" not in options(state, 0)


def test_cliffwatch_inn_spaces_may_all_hold_agents_of_one_player() -> None:
    state = table(players=2)
    state = choose(place(state, 0, "cliffwatch_inn_1"), 0, INN[0])
    state = place(state, 1, "the_plinth")
    state = choose(place(state, 0, "cliffwatch_inn_2"), 0, INN[1])
    assert [(x.player, x.space) for x in state.placed][::2] == [
        (0, "cliffwatch_inn_1"),
        (0, "cliffwatch_inn_2"),
    ]
    assert put(state) == state
