"""Each of the 15 plot quests and its lasting effect [FACTS 6.2 #46-60 and the plot-trigger
interpretation recorded in docs/rules/waterdeep.md]."""

from __future__ import annotations

from typing import Any

import pytest

from services.waterdeep.model import RoundStarted
from tests.waterdeep.helpers import (
    INN,
    choose,
    complete,
    end_turn,
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


def plotted(plot: str, **changes: Any) -> Any:
    state = table()
    return seat(state, 0, plots=(plot,), completed=(plot,), **changes)


def test_explore_ahghairons_tower_draws_an_intrigue_card_with_each_action_giving_wizards() -> None:
    state = place(plotted("explore_ahghairons_tower"), 0, "blackstaff_tower")
    assert res(state, 0)["w"] == 1
    assert len(state.seats[0].intrigue) == 1


def test_explore_ahghairons_tower_fires_once_per_action_even_for_two_wizards() -> None:
    state = with_building(plotted("explore_ahghairons_tower"), "the_yawning_portal", 1)
    state = place(state, 0, "the_yawning_portal")
    state = choose(state, 1, "cleric")
    state = choose(choose(state, 0, "wizard"), 0, "wizard")
    assert res(state, 0)["w"] == 2
    assert len(state.seats[0].intrigue) == 1


def test_plot_effects_do_not_fire_on_quest_rewards() -> None:
    state = plotted(
        "explore_ahghairons_tower", cubes=(0, 1, 1, 2), gold=4, quests=("recruit_for_blackstaff_academy",)
    )
    state = place(state, 0, "the_plinth")
    state = complete(state, 0, "recruit_for_blackstaff_academy")  # rewards 3 Wizards
    assert res(state, 0)["w"] == 3 and state.seats[0].intrigue == ()


def test_recover_the_magisters_orb_shares_an_occupied_space_once_a_round() -> None:
    state = place(plotted("recover_the_magisters_orb"), 0, "the_plinth")
    state = place(state, 1, "field_of_triumph")
    assert "field_of_triumph" in options(state, 0)
    assert "the_plinth" not in options(state, 0)  # its own agent is there, not an opponent's
    state = place(state, 0, "field_of_triumph")
    assert res(state, 0)["f"] == 2 and state.seats[0].orb_used
    state = place(state, 1, "grinning_lion_tavern")
    assert "grinning_lion_tavern" not in options(state, 0)


@pytest.mark.parametrize(
    ("plot", "quest", "cubes", "gold", "vp"),
    [
        ("study_the_illusk_arch", "domesticate_owlbears", (1, 0, 0, 2), 0, 10),
        ("establish_new_merchant_guild", "spy_on_the_house_of_light", (0, 3, 2, 0), 2, 8),
        ("protect_the_house_of_wonder", "form_an_alliance_with_the_rashemi", (2, 0, 0, 1), 0, 12),
        ("install_a_spy_in_castle_waterdeep", "expose_cult_corruption", (1, 0, 4, 0), 0, 6),
        ("quell_mercenary_uprising", "raid_orc_stronghold", (0, 4, 2, 0), 0, 10),
    ],
)
def test_typed_plot_quests_add_2_vp_to_each_later_quest_of_their_type(
    plot: str, quest: str, cubes: tuple[int, ...], gold: int, vp: int
) -> None:
    state = plotted(plot, cubes=cubes, gold=gold, quests=(quest,))
    state = complete(place(state, 0, "aurora_realms_shop"), 0, quest)
    assert res(state, 0)["vp"] == vp


def test_a_typed_plot_quest_does_not_count_its_own_completion() -> None:
    state = seat(table(), 0, cubes=(1, 0, 0, 2), quests=("study_the_illusk_arch",))
    state = complete(place(state, 0, "aurora_realms_shop"), 0, "study_the_illusk_arch")
    assert res(state, 0)["vp"] == 8
    assert state.seats[0].plots == ("study_the_illusk_arch",)


def test_bribe_the_shipwrights_adds_a_rogue_to_each_action_giving_gold() -> None:
    state = place(plotted("bribe_the_shipwrights"), 0, "aurora_realms_shop")
    assert res(state, 0) == Z | {"gold": 4, "r": 1}


def test_infiltrate_builders_hall_scores_4_vp_per_purchase_but_not_for_free_buildings() -> None:
    state = plotted("infiltrate_builders_hall", gold=3)
    state = choose(place(state, 0, "builders_hall"), 0, "dragon_tower")
    assert res(state, 0)["vp"] == 1 + 4
    state = seat(
        plotted("infiltrate_builders_hall", cubes=(1, 1, 1, 0), gold=2),
        0,
        quests=("lure_artisans_of_mirabar",),
    )
    state = complete(place(state, 0, "the_plinth"), 0, "lure_artisans_of_mirabar")
    state = choose(state, 0, "dragon_tower")
    assert res(state, 0)["vp"] == 4 + 1  # the quest and the tile's VP token, no plot bonus


def test_defend_the_tower_of_luck_gives_an_adventurer_at_each_round_start() -> None:
    state = plotted("defend_the_tower_of_luck")
    state = put(
        state, pending=(), current=-1, reassigning=True, seats=tuple(put(x, pool=0) for x in state.seats)
    )
    state, events = settle(state)
    assert any(isinstance(e, RoundStarted) for e in events)
    assert owes(state, 0) == "cube" and owes(state, 1) == ""
    state = choose(state, 0, "rogue")
    assert res(state, 0)["r"] == 1
    assert owes(state, 0) == "place"


def test_produce_a_miracle_swaps_an_adventurer_for_a_cleric_once_a_round() -> None:
    state = place(plotted("produce_a_miracle_for_the_masses", cubes=(0, 0, 1, 0)), 0, "the_plinth")
    assert owes(state, 0) == "miracle" and options(state, 0) == ["rogue", "skip"]
    state = choose(state, 0, "rogue")
    assert res(state, 0) == Z | {"c": 2}
    state = place(state, 1, "field_of_triumph")
    with_plinth = with_building(state, "the_tower_of_luck", 1)
    state = place(with_plinth, 0, "the_tower_of_luck")
    state = choose(state, 1, "cleric")
    assert owes(state, 0) != "miracle"  # used this round


def test_fence_goods_for_duke_of_darkness_adds_2_gold_to_each_action_giving_rogues() -> None:
    state = place(plotted("fence_goods_for_duke_of_darkness"), 0, "grinning_lion_tavern")
    assert res(state, 0) == Z | {"r": 2, "gold": 2}


def test_place_a_sleeper_agent_in_skullport_scores_2_vp_per_intrigue_card_played() -> None:
    state, c = give_card(plotted("place_a_sleeper_agent_in_skullport"), 0, "spread_the_wealth")
    state = choose(place(state, 0, "waterdeep_harbor_1"), 0, c)
    assert res(state, 0)["vp"] == 2 and res(state, 0)["gold"] == 4


def test_bolster_griffon_cavalry_adds_a_fighter_to_each_action_giving_fighters() -> None:
    state = place(plotted("bolster_griffon_cavalry"), 0, "field_of_triumph")
    assert res(state, 0) == Z | {"f": 3}


def test_recruit_lieutenant_adds_an_agent_for_the_rest_of_the_game() -> None:
    state = seat(table(), 0, cubes=(1, 5, 1, 1), quests=("recruit_lieutenant",))
    state = complete(place(state, 0, "aurora_realms_shop"), 0, "recruit_lieutenant")
    x = state.seats[0]
    assert x.lieutenant and x.agents == 5 and x.pool == 4  # 2 players: 4 agents, one assigned
    assert res(state, 0)["vp"] == 0


def test_a_plot_quest_stays_face_up_with_the_completed_quests() -> None:
    state = seat(table(), 0, cubes=(0, 4, 0, 0), gold=4, quests=("bolster_griffon_cavalry",))
    state = complete(place(state, 0, "aurora_realms_shop"), 0, "bolster_griffon_cavalry")
    assert state.seats[0].plots == ("bolster_griffon_cavalry",)
    assert state.seats[0].completed == ("bolster_griffon_cavalry",)
    assert res(state, 0)["vp"] == 6
    _ = (INN, end_turn)
