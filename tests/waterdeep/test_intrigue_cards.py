"""Each intrigue card [FACTS 7]: attacks, utilities, cards where opponents choose (several seats
owe a decision at once) and the six Mandatory Quests."""

from __future__ import annotations

from typing import Any

import pytest

from services.waterdeep import GAME
from services.waterdeep.model import CompleteQuest, State
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
    reject,
    res,
    seat,
    table,
    with_building,
)

Z = {"c": 0, "f": 0, "r": 0, "w": 0, "gold": 0, "vp": 0}


def play_card(state: State, p: int, name: str, space: str = "waterdeep_harbor_1") -> State:
    state, c = give_card(state, p, name)
    state = place(state, p, space)
    assert owes(state, p) == "intrigue"
    return choose(state, p, c)


def three(**changes: Any) -> State:
    return table(players=3, **changes)


@pytest.mark.parametrize(
    ("name", "cube", "bonus"),
    [("ambush", 1, {"f": 1}), ("assassination", 2, {"gold": 2}), ("lack_of_faith", 0, {"vp": 2})],
)
def test_attacks_take_one_adventurer_from_each_opponent_and_pay_for_each_who_had_none(
    name: str, cube: int, bonus: dict[str, int]
) -> None:
    state = seat(three(), 1, cubes=tuple(2 if i == cube else 0 for i in range(4)))
    state = play_card(state, 0, name)
    assert state.seats[1].cubes[cube] == 1  # only one, however many they had
    assert state.seats[2].cubes[cube] == 0
    assert res(state, 0) == Z | bonus


def test_arcane_mishap_draws_an_intrigue_card_per_opponent_without_a_wizard() -> None:
    state = seat(three(), 1, cubes=(0, 0, 0, 1))
    state = play_card(state, 0, "arcane_mishap")
    assert state.seats[1].cubes[3] == 0
    assert len(state.seats[0].intrigue) == 1


def test_bribe_agent_pays_2_gold_and_resolves_a_space_holding_an_opponent() -> None:
    state = place(seat(table(), 0, gold=2), 0, "the_plinth")
    state = place(state, 1, "grinning_lion_tavern")
    state = play_card(state, 0, "bribe_agent")
    assert options(state, 0) == ["grinning_lion_tavern"]
    state = choose(state, 0, "grinning_lion_tavern")
    assert res(state, 0) == Z | {"c": 1, "r": 2}


def test_bribe_agent_is_unplayable_without_2_gold() -> None:
    state = place(table(), 0, "the_plinth")
    state = place(state, 1, "grinning_lion_tavern")
    state, _ = give_card(state, 0, "bribe_agent")
    assert not any(o.startswith("waterdeep_harbor") for o in options(state, 0))


def test_free_drinks_takes_an_adventurer_from_an_opponents_tavern() -> None:
    state = seat(three(), 2, cubes=(0, 0, 3, 0))
    state = play_card(state, 0, "free_drinks")
    assert options(state, 0) == ["2:rogue"]
    state = choose(state, 0, "2:rogue")
    assert res(state, 0)["r"] == 1 and res(state, 2)["r"] == 2


def test_accelerate_plans_returns_a_harbor_agent_and_assigns_two_agents() -> None:
    state = play_card(table(), 0, "accelerate_plans")
    assert options(state, 0) == ["waterdeep_harbor_1"]
    state = choose(state, 0, "waterdeep_harbor_1")
    assert state.seats[0].pool == 4
    state = place(state, 0, "field_of_triumph")
    assert owes(state, 0) == "place_extra"
    state = place(state, 0, "the_plinth")
    assert res(state, 0) == Z | {"f": 2, "c": 1}
    assert state.seats[0].pool == 2 and state.current == 1


def test_bidding_war_passes_the_revealed_quests_to_the_left() -> None:
    state = three()
    drawn = state.quest_deck[:3]
    state = play_card(state, 0, "bidding_war")
    assert state.revealed == drawn
    state = choose(state, 0, drawn[2])
    assert owes(state, 1) == "bidding"
    state = choose(state, 1, drawn[0])
    state = choose(state, 2, drawn[1])
    assert [x.quests for x in state.seats] == [(drawn[2],), (drawn[0],), (drawn[1],)]
    assert state.revealed == ()


def test_call_for_adventurers_then_every_opponent_chooses_at_once() -> None:
    state = play_card(three(), 0, "call_for_adventurers")
    state = choose(choose(state, 0, "rogue"), 0, "wizard")
    assert GAME.active_players(state) == (1, 2)
    state = choose(state, 2, "cleric")
    assert GAME.active_players(state) == (1,)
    state = choose(state, 1, "fighter")
    assert [x.cubes for x in state.seats] == [(0, 0, 1, 1), (0, 1, 0, 0), (1, 0, 0, 0)]


def test_call_in_a_favor_offers_its_five_choices() -> None:
    state = play_card(table(), 0, "call_in_a_favor")
    assert options(state, 0) == ["gold=4", "f=2", "r=2", "w=1", "c=1"]
    state = choose(state, 0, "r=2")
    assert res(state, 0) == Z | {"r": 2}


def test_change_of_plans_scores_6_and_lets_each_opponent_discard_for_3() -> None:
    state = seat(three(), 0, quests=("quell_riots.1", "bolster_city_guard"))
    state = seat(state, 1, quests=("raid_orc_stronghold",))
    state = seat(state, 2, quests=("repel_seawraiths",))
    state = play_card(state, 0, "change_of_plans")
    state = choose(state, 0, "quell_riots.1")  # a Mandatory Quest may go
    assert res(state, 0)["vp"] == 6 and "quell_riots.1" in state.intrigue_discard
    assert GAME.active_players(state) == (1, 2)
    state = choose(choose(state, 1, "raid_orc_stronghold"), 2, "keep")
    assert res(state, 1)["vp"] == 3 and res(state, 2)["vp"] == 0
    assert "raid_orc_stronghold" in state.quest_discard and state.seats[2].quests == ("repel_seawraiths",)


@pytest.mark.parametrize(
    ("name", "mine", "theirs"),
    [
        ("conscription", {"f": 2}, {"f": 1}),
        ("crime_wave", {"r": 2}, {"r": 1}),
        ("good_faith", {"c": 2}, {"c": 1}),
        ("graduation_day", {"w": 2}, {"w": 1}),
        ("spread_the_wealth", {"gold": 4}, {"gold": 2}),
    ],
)
def test_gifts_to_one_chosen_opponent(name: str, mine: dict[str, int], theirs: dict[str, int]) -> None:
    state = play_card(three(), 0, name)
    assert options(state, 0) == ["1", "2"]
    state = choose(state, 0, "2")
    assert res(state, 0) == Z | mine and res(state, 2) == Z | theirs and res(state, 1) == Z


def test_real_estate_deal_swaps_an_unoccupied_building_for_a_hall_tile() -> None:
    state = with_building(table(), "helmstar_warehouse", 0)
    state = play_card(state, 0, "real_estate_deal")
    assert options(state, 0) == ["helmstar_warehouse"]
    state = choose(state, 0, "helmstar_warehouse")
    state = choose(state, 0, HALL[2])  # The Zoarstar, free, with its VP token
    assert [(b.tile, b.owner) for b in state.buildings] == [(HALL[2], 0)]
    assert res(state, 0) == Z | {"vp": 1}


def test_recall_agent_returns_an_assigned_agent_to_the_pool() -> None:
    state = place(table(), 0, "the_plinth")
    state = place(state, 1, "field_of_triumph")
    state = play_card(state, 0, "recall_agent")
    assert options(state, 0) == ["the_plinth", "waterdeep_harbor_1"]
    state = choose(state, 0, "the_plinth")
    assert state.seats[0].pool == 3 and "the_plinth" in options(put(state), 1)


@pytest.mark.parametrize(
    ("name", "mine", "give", "vp"),
    [
        ("recruit_spies", {"r": 2}, {"r": 1}, 3),
        ("request_assistance", {"f": 2}, {"f": 1}, 3),
        ("research_agreement", {"w": 1}, {"w": 1}, 5),
        ("summon_the_faithful", {"c": 1}, {"c": 1}, 5),
        ("tax_collection", {"gold": 4}, {"gold": 4}, 4),
    ],
)
def test_offers_each_opponent_may_take_once(
    name: str, mine: dict[str, int], give: dict[str, int], vp: int
) -> None:
    stock = (give.get("c", 0), give.get("f", 0), give.get("r", 0), give.get("w", 0))
    state = seat(
        seat(three(), 1, cubes=stock, gold=give.get("gold", 0)), 2, cubes=stock, gold=give.get("gold", 0)
    )
    state = play_card(state, 0, name)
    assert GAME.active_players(state) == (1, 2)
    state = choose(choose(state, 1, "yes"), 2, "no")
    assert res(state, 0) == Z | {k: mine.get(k, 0) + give.get(k, 0) for k in mine | give}
    assert res(state, 1) == Z | {"vp": vp}
    assert res(state, 2) == Z | give


def test_an_opponent_who_cannot_pay_is_not_asked() -> None:
    state = play_card(three(), 0, "tax_collection")
    assert GAME.active_players(state) == (1,)  # seat 1 places next; nobody can pay 4 Gold
    assert res(state, 0)["gold"] == 4


def test_sample_wares_uses_a_hall_tile_with_a_second_agent_and_no_owner() -> None:
    state = play_card(table(), 0, "sample_wares")
    # The Zoarstar has no opponent to copy; the Golden Horn may be sampled, for nothing.
    assert options(state, 0) == ["dragon_tower", "the_golden_horn"]
    state = choose(state, 0, "dragon_tower")
    assert res(state, 0)["w"] == 1 and len(state.seats[0].intrigue) == 1
    assert state.seats[0].pool == 2
    assert "dragon_tower" in {x.space for x in state.placed}


def test_special_assignment_reveals_until_the_named_type() -> None:
    state = three()
    state = play_card(state, 0, "special_assignment")
    deck = state.quest_deck
    first_warfare = next(i for i, q in enumerate(deck) if q in WARFARE)
    state = choose(state, 0, "warfare")
    assert state.seats[0].quests == (deck[first_warfare],)
    assert state.quest_discard[-first_warfare:] == deck[:first_warfare] if first_warfare else True


WARFARE = {
    "ambush_artor_morlin",
    "bolster_city_guard",
    "confront_the_xanathar",
    "defeat_uprising_from_undermountain",
    "deliver_an_ultimatum",
    "deliver_weapons_to_selunes_temple",
    "raid_orc_stronghold",
    "repel_seawraiths",
    "train_bladesingers",
    "bolster_griffon_cavalry",
    "quell_mercenary_uprising",
    "recruit_lieutenant",
}


@pytest.mark.parametrize(
    ("name", "cubes", "vp"),
    [
        ("fend_off_bandits", (0, 2, 0, 1), 2),
        ("foil_the_zhentarim", (0, 1, 1, 1), 2),
        ("placate_angry_merchants", (1, 1, 0, 1), 4),
        ("quell_riots", (2, 1, 0, 0), 4),
        ("repel_drow_invaders", (1, 0, 2, 0), 2),
        ("stamp_out_cultists", (1, 1, 1, 0), 2),
    ],
)
def test_mandatory_quests_block_other_quests_until_done(name: str, cubes: tuple[int, ...], vp: int) -> None:
    state = seat(three(), 2, cubes=(1, 4, 2, 1), quests=("raid_orc_stronghold",))
    state = play_card(state, 0, name)
    state = choose(state, 0, "2")
    card = next(q for q in state.seats[2].quests if q.startswith(name))
    state = place(state, 1, "the_plinth")
    state = seat(state, 2, cubes=tuple(a + b for a, b in zip(cubes, (0, 4, 2, 0), strict=True)))
    state = place(state, 2, "aurora_realms_shop")
    assert reject(state, 2, CompleteQuest("raid_orc_stronghold")).code == "illegal_action"
    state = complete(state, 2, card)
    assert res(state, 2)["vp"] == vp
    assert card in state.intrigue_discard and card not in state.seats[2].completed
    assert res(state, 2)["f"] == 4 and res(state, 2)["r"] == 2


def test_prison_break_plays_an_intrigue_card_without_an_agent() -> None:
    state = seat(table(), 0, cubes=(0, 0, 4, 2), gold=2, quests=("prison_break",))
    state, c = give_card(state, 0, "spread_the_wealth")
    state = complete(place(state, 0, "the_plinth"), 0, "prison_break")
    assert owes(state, 0) == "intrigue_optional" and options(state, 0) == [c, "skip"]
    state = choose(choose(state, 0, c), 0, "1")
    assert res(state, 0) == Z | {"vp": 14, "f": 2, "gold": 4, "c": 1}
    _ = INN
