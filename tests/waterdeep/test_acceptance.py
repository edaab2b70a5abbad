"""The fact sheet's acceptance checks (shared/rules/lords_of_waterdeep.md 9.3) and the worked
examples of the rulebook [SEED], one test each."""

from __future__ import annotations

import msgspec
import pytest

from services.waterdeep import GAME
from services.waterdeep.model import OVER, Building, Decision, Options, State
from services.waterdeep.rules import RULES
from services.waterdeep.scoring import lord_bonus
from tests.waterdeep.helpers import (
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


def next_round(state: State) -> State:
    """Everybody is out of agents: reassignment (if any), then the next round starts."""
    state = put(state, pending=(), current=-1, seats=tuple(put(x, pool=0) for x in state.seats))
    return settle(state)[0]


@pytest.mark.parametrize(("players", "agents"), [(2, 4), (3, 3), (4, 2), (5, 2)])
def test_agents_per_player_count_and_one_more_from_round_5(players: int, agents: int) -> None:
    state = GAME.setup(players, 7, Options())
    assert all(x.agents == agents and x.pool == agents for x in state.seats)
    for _ in range(4):
        state = next_round(state)
        while state.pending:  # Defend the Tower of Luck cannot be owned yet; nothing is owed
            break
    assert state.round == 5
    assert all(x.agents == agents + 1 and x.pool == agents + 1 for x in state.seats)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_starting_gold_by_seat_from_the_first_player(players: int) -> None:
    for seed in range(4):
        state = GAME.setup(players, seed, Options())
        gold = [state.seats[(state.first + k) % players].gold for k in range(players)]
        assert gold == [4, 5, 6, 7, 8][:players]


def test_helmstar_warehouse_costs_3_gives_2_rogues_2_gold_and_its_owner_1_rogue() -> None:
    assert RULES.tiles["helmstar_warehouse"].cost == 3
    state = place(with_building(table(), "helmstar_warehouse", 1), 0, "helmstar_warehouse")
    assert res(state, 0) == Z | {"r": 2, "gold": 2}
    assert res(state, 1) == Z | {"r": 1}


def test_spy_on_the_house_of_light_pays_6_vp_and_6_gold_and_goes_to_completed_quests() -> None:
    state = seat(table(), 0, cubes=(0, 3, 2, 0), gold=2, quests=("spy_on_the_house_of_light",))
    state = complete(place(state, 0, "the_plinth"), 0, "spy_on_the_house_of_light")
    assert res(state, 0) == Z | {"vp": 6, "gold": 6, "c": 1}
    assert state.seats[0].completed == ("spy_on_the_house_of_light",) and state.seats[0].plots == ()


def test_lack_of_faith_against_2_0_and_1_clerics() -> None:
    state = table(players=4)
    for p, clerics in ((1, 2), (2, 0), (3, 1)):
        state = seat(state, p, cubes=(clerics, 0, 0, 0))
    state, c = give_card(state, 0, "lack_of_faith")
    state = choose(place(state, 0, "waterdeep_harbor_1"), 0, c)
    assert [x.cubes[0] for x in state.seats[1:]] == [1, 0, 0]
    assert res(state, 0)["vp"] == 2


def test_stamp_out_cultists_locks_its_target_until_paid() -> None:
    state = seat(table(), 1, cubes=(1, 4, 3, 0), quests=("raid_orc_stronghold",))
    state, c = give_card(state, 0, "stamp_out_cultists")
    state = choose(choose(place(state, 0, "waterdeep_harbor_1"), 0, c), 0, "1")
    assert c in state.seats[1].quests
    state = place(state, 1, "the_plinth")
    assert options(state, 1) == [c, "end_turn"]  # Raid Orc Stronghold is paid for but locked
    state = complete(state, 1, c)
    assert res(state, 1) == Z | {"vp": 2, "c": 1, "f": 3, "r": 2}
    assert c in state.intrigue_discard


def _lord_state(lord: str, completed: tuple[str, ...], tiles: int = 0) -> State:
    state = seat(table(), 0, lord=lord, completed=completed)
    for tile in ("helmstar_warehouse", "northgate", "dragon_tower")[:tiles]:
        state = with_building(state, tile, 0)
    return state


def test_khelben_scores_4_per_arcana_and_warfare_quest() -> None:
    completed = (
        "infiltrate_halasters_circle",
        "domesticate_owlbears",
        "study_the_illusk_arch",
        "raid_orc_stronghold",
        "repel_seawraiths",
        "create_a_shrine_to_oghma",
        "ally_with_house_thann",
        "prison_break",
        "quell_riots.1",
    )
    state = _lord_state("khelben_arunsun", completed)
    assert lord_bonus(RULES.catalog, state.seats[0], state, 0) == 20


def test_larissa_scores_6_per_building() -> None:
    state = _lord_state("larissa_neathal", (), tiles=3)
    assert lord_bonus(RULES.catalog, state.seats[0], state, 0) == 18


def test_final_scoring_adventurers_and_gold_and_the_gold_tie_break() -> None:
    state = seat(table(), 0, cubes=(1, 1, 1, 2), gold=9, vp=10, lord="larissa_neathal")
    state = seat(state, 1, gold=11, vp=14, lord="larissa_neathal")
    state = put(state, phase=OVER, pending=())
    outcome = GAME.outcome(state)
    assert outcome is not None
    first = outcome.results[0]
    assert first.breakdown["adventurers"] == 5 and first.breakdown["gold"] == 4 and first.score == 19
    assert outcome.results[1].score == 14 + 5  # tied on VP
    assert outcome.winners == (1,)  # more Gold


def test_harbor_agents_are_reassigned_in_space_order_never_to_the_harbor() -> None:
    state = table()
    state = put(state, seats=tuple(put(x, agents=2, pool=2) for x in state.seats))
    state = seat(state, 0, cubes=(0, 1, 0, 1), quests=("train_bladesingers",))
    state, c1 = give_card(state, 0, "spread_the_wealth")
    state, c2 = give_card(state, 0, "crime_wave")
    state = choose(choose(place(state, 0, "waterdeep_harbor_3"), 0, c1), 0, "1")
    state = place(state, 1, "aurora_realms_shop")
    state = choose(choose(place(state, 0, "waterdeep_harbor_1"), 0, c2), 0, "1")
    state = place(state, 1, "the_plinth")
    assert state.reassigning
    assert owes(state, 0) == "reassign" and state.pending[-1].items[0] == "waterdeep_harbor_1"
    assert not any(o.startswith("waterdeep_harbor") for o in options(state, 0))
    state = place(state, 0, "field_of_triumph")
    assert owes(state, 0) == "quest"  # a reassignment is a turn: one quest may follow
    state = complete(state, 0, "train_bladesingers")
    assert owes(state, 0) == "reassign" and state.pending[-1].items[0] == "waterdeep_harbor_3"
    state = place(state, 0, "blackstaff_tower")
    assert state.round == 2


def test_an_orb_agent_sharing_a_harbor_space_is_reassigned_right_after_its_occupant() -> None:
    state = table()
    state = put(state, seats=tuple(put(x, agents=2, pool=2) for x in state.seats))
    state = seat(state, 0, plots=("recover_the_magisters_orb",), completed=("recover_the_magisters_orb",))
    state, c1 = give_card(state, 1, "spread_the_wealth")
    state, c2 = give_card(state, 0, "crime_wave")
    state = place(state, 0, "the_plinth")
    state = choose(choose(place(state, 1, "waterdeep_harbor_1"), 1, c1), 1, "0")
    state = choose(choose(place(state, 0, "waterdeep_harbor_1"), 0, c2), 0, "1")
    state = place(state, 1, "aurora_realms_shop")
    assert owes(state, 1) == "reassign"
    state = place(state, 1, "field_of_triumph")
    assert owes(state, 0) == "reassign" and state.pending[-1].items[0] == "waterdeep_harbor_1"


def test_a_zoarstar_agent_copying_a_harbor_space_is_reassigned_right_after_its_occupant() -> None:
    state = with_building(table(), "the_zoarstar", 0)
    state = put(state, seats=tuple(put(x, agents=2, pool=2) for x in state.seats))
    state, c1 = give_card(state, 1, "spread_the_wealth")
    state, c2 = give_card(state, 0, "crime_wave")
    state = place(state, 0, "the_plinth")
    state = choose(choose(place(state, 1, "waterdeep_harbor_2"), 1, c1), 1, "0")
    state = choose(place(state, 0, "the_zoarstar"), 0, "waterdeep_harbor_2")
    state = choose(choose(state, 0, c2), 0, "1")
    state = place(state, 1, "aurora_realms_shop")
    state = place(state, 1, "field_of_triumph")
    assert owes(state, 0) == "reassign" and state.pending[-1].items == ("the_zoarstar", "waterdeep_harbor_2")
    assert "the_zoarstar" not in options(state, 0)  # it is still there while being reassigned
    state = place(state, 0, "castle_waterdeep")
    assert state.round == 2


def test_the_ambassador_is_assigned_first_next_round_without_its_own_owner_benefit() -> None:
    state = with_building(with_building(table(), "the_palace_of_waterdeep", 1), "helmstar_warehouse", 0)
    state = place(state, 0, "the_palace_of_waterdeep")
    assert state.ambassador == 0 and res(state, 1)["vp"] == 2
    state = place(state, 1, "castle_waterdeep")  # seat 1 is first next round
    state = next_round(state)
    assert state.first == 1
    assert owes(state, 0) == "ambassador" and owes(state, 1) == ""
    state = place(state, 0, "helmstar_warehouse")
    assert res(state, 0) == Z | {"r": 2, "gold": 2}  # no owner Rogue for the player who assigned it
    assert [(x.space, x.ambassador) for x in state.placed] == [("helmstar_warehouse", True)]
    assert owes(state, 1) == "place"
    assert state.seats[0].pool == state.seats[0].agents  # it is not one of seat 0's agents
    state = next_round(state)
    assert state.placed == () and state.ambassador == -1


def test_a_builders_hall_tile_face_up_for_3_round_starts_scores_3_vp() -> None:
    state = next_round(next_round(table()))
    assert state.round == 3 and state.hall_vp == (3, 3, 3)
    state = seat(state, state.current, gold=3)
    p = state.current
    state = choose(place(state, p, "builders_hall"), p, "dragon_tower")
    assert res(state, p)["vp"] == 3


def test_the_rulebook_lack_of_faith_takes_only_one_cleric() -> None:
    """SEED (Puerto de Waterdeep): "si un oponente tiene mas de 1 Clerigo, no puedes obligar a ese
    jugador a eliminar Clerigos adicionales con esta carta"."""
    state = seat(table(), 1, cubes=(3, 0, 0, 0))
    state, c = give_card(state, 0, "lack_of_faith")
    state = choose(place(state, 0, "waterdeep_harbor_2"), 0, c)
    assert res(state, 1)["c"] == 2 and res(state, 0)["vp"] == 0


def test_decisions_and_buildings_round_trip_the_state_codec() -> None:
    state = with_building(table(), "caravan_court", 1, (0, 2, 0, 0, 0, 0))
    state = put(state, pending=(*state.pending, Decision(1, "cube", ("cleric",), 1)))
    data = GAME.codec.encode_state(state)
    assert GAME.codec.decode_state(data) == state
    assert msgspec.json.decode(msgspec.json.encode(Building("x", 0)), type=Building) == Building("x", 0)
