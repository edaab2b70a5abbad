"""Every Builder's Hall tile: its action for whoever is assigned there and its owner's benefit
[SEED Salon del constructor, Propietario; FACTS 4]."""

from __future__ import annotations

from typing import Any

import pytest

from services.waterdeep.model import Decision
from tests.waterdeep.helpers import (
    INN,
    choose,
    complete,
    options,
    owes,
    place,
    put,
    res,
    seat,
    table,
    with_building,
)

Z = {"c": 0, "f": 0, "r": 0, "w": 0, "gold": 0, "vp": 0}

# tile, stock on it, (seat, option) answers in order, placer's gain, owner's gain
CASES: list[tuple[str, dict[str, int], list[tuple[int, str]], dict[str, int], dict[str, int]]] = [
    ("caravan_court", {"f": 2}, [], {"f": 2}, {"f": 1}),
    ("dragon_tower", {}, [], {"w": 1}, {}),
    ("fetlock_court", {}, [(1, "wizard")], {"f": 2, "w": 1}, {"w": 1}),
    ("the_golden_horn", {"gold": 4}, [], {"gold": 4}, {"gold": 2}),
    ("helmstar_warehouse", {}, [], {"r": 2, "gold": 2}, {"r": 1}),
    ("house_of_good_spirits", {}, [(0, "cleric")], {"f": 1, "c": 1}, {"f": 1}),
    ("house_of_heroes", {}, [(1, "cleric")], {"c": 1, "f": 2}, {"c": 1}),
    ("house_of_the_moon", {}, [(0, INN[0])], {"c": 1}, {"gold": 2}),
    ("house_of_wonder", {}, [(0, "cleric"), (0, "wizard")], {"gold": -2, "c": 1, "w": 1}, {"gold": 2}),
    ("jesters_court", {"r": 2}, [], {"r": 2}, {"r": 1}),
    ("new_olamn", {}, [(1, "rogue")], {"r": 2, "w": 1}, {"r": 1}),
    ("northgate", {}, [(0, "fighter")], {"f": 1, "gold": 2}, {"vp": 2}),
    ("the_skulkway", {}, [(1, "fighter")], {"f": 1, "r": 1, "gold": 2}, {"f": 1}),
    (
        "smugglers_dock",
        {},
        [(0, "fighter"), (0, "rogue"), (0, "rogue"), (0, "fighter")],
        {"gold": -2, "f": 2, "r": 2},
        {"gold": 2},
    ),
    ("spires_of_the_morning", {"c": 1}, [], {"c": 1}, {"vp": 2}),
    ("the_tower_of_luck", {}, [(1, "rogue")], {"c": 1, "r": 2}, {"r": 1}),
    ("tower_of_the_order", {"w": 1}, [], {"w": 1}, {}),
    ("the_waymoot", {"vp": 3}, [(0, INN[1])], {"vp": 3}, {"vp": 2}),
    ("the_yawning_portal", {}, [(1, "rogue"), (0, "wizard"), (0, "wizard")], {"w": 2}, {"r": 1}),
]


def _stock(stock: dict[str, int]) -> tuple[int, ...]:
    return tuple(stock.get(k, 0) for k in ("c", "f", "r", "w", "gold", "vp"))


@pytest.mark.parametrize(("tile", "stock", "answers", "placer", "owner"), CASES, ids=[c[0] for c in CASES])
def test_tile_action_and_owner_benefit(
    tile: str,
    stock: dict[str, int],
    answers: list[tuple[int, str]],
    placer: dict[str, int],
    owner: dict[str, int],
) -> None:
    state = with_building(seat(table(), 0, gold=2), tile, 1, _stock(stock))
    before = len(state.seats[1].intrigue), len(state.seats[0].intrigue)
    state = place(state, 0, tile)
    for who, option in answers:
        assert owes(state, who), f"seat {who} owes nothing before {option}"
        state = choose(state, who, option)
    assert res(state, 0) == {k: Z[k] + placer.get(k, 0) + (2 if k == "gold" else 0) for k in Z}
    assert res(state, 1) == Z | owner
    if tile in ("dragon_tower", "tower_of_the_order"):  # owner draws an intrigue card
        assert len(state.seats[1].intrigue) == before[0] + 1
    if tile == "dragon_tower":
        assert len(state.seats[0].intrigue) == before[1] + 1
    if stock:
        assert next(b for b in state.buildings if b.tile == tile).stock == (0,) * 6


def test_the_owner_gets_nothing_from_their_own_building() -> None:
    state = with_building(table(), "helmstar_warehouse", 0)
    state = place(state, 0, "helmstar_warehouse")
    assert res(state, 0) == Z | {"r": 2, "gold": 2}


def test_house_of_wonder_and_smugglers_dock_need_2_gold() -> None:
    state = with_building(with_building(table(), "house_of_wonder", 1), "smugglers_dock", 1)
    assert "house_of_wonder" not in options(state, 0) and "smugglers_dock" not in options(state, 0)


def test_heroes_garden_completes_the_quest_at_once_for_4_bonus_vp() -> None:
    state = with_building(table(), "heroes_garden", 1)
    state = seat(state, 0, cubes=(0, 4, 2, 0))
    state = place(state, 0, "heroes_garden")
    state = choose(state, 0, "raid_orc_stronghold")  # F4 R2 -> 8 VP, 4 Gold
    assert owes(state, 0) == "garden"
    state = choose(state, 0, "complete")
    assert res(state, 0) == Z | {"vp": 12, "gold": 4}
    assert res(state, 1) == Z | {"vp": 2}
    assert state.seats[0].completed == ("raid_orc_stronghold",)
    assert state.current == 1  # that was the turn's one quest


def test_heroes_garden_offers_nothing_to_complete_with_an_open_mandatory_quest() -> None:
    state = with_building(table(), "heroes_garden", 1)
    state = seat(state, 0, cubes=(0, 4, 2, 0), quests=("quell_riots.1",))
    state = choose(place(state, 0, "heroes_garden"), 0, "raid_orc_stronghold")
    assert owes(state, 0) != "garden"
    assert "raid_orc_stronghold" in state.seats[0].quests


def test_the_palace_gives_the_ambassador_and_its_owner_2_vp() -> None:
    state = with_building(table(), "the_palace_of_waterdeep", 1)
    state = place(state, 0, "the_palace_of_waterdeep")
    assert state.ambassador == 0
    assert res(state, 1)["vp"] == 2


def test_the_stone_house_pays_1_gold_per_building_in_play_itself_included() -> None:
    state = table()
    for tile in ("the_stone_house", "helmstar_warehouse", "northgate"):
        state = with_building(state, tile, 1)
    state = place(state, 0, "the_stone_house")
    assert res(state, 0)["gold"] == 3
    assert res(state, 1)["gold"] == 2


def test_the_three_pearls_returns_2_adventurers_then_takes_3() -> None:
    state = with_building(seat(table(), 0, cubes=(1, 1, 0, 0)), "the_three_pearls", 1)
    state = place(state, 0, "the_three_pearls")
    for option in ("cleric", "fighter", "wizard", "wizard", "rogue"):
        state = choose(state, 0, option)
    assert res(state, 0) == Z | {"w": 2, "r": 1}
    assert res(state, 1) == Z | {"gold": 2}


def test_the_three_pearls_needs_2_adventurers() -> None:
    state = with_building(seat(table(), 0, cubes=(1, 0, 0, 0)), "the_three_pearls", 1)
    assert "the_three_pearls" not in options(state, 0)


def test_the_zoarstar_copies_an_opponents_space_and_pays_its_owner() -> None:
    state = with_building(table(), "the_zoarstar", 1)
    state = place(state, 0, "aurora_realms_shop")
    state = place(state, 1, "field_of_triumph")
    assert "the_zoarstar" in options(state, 0)
    state = place(state, 0, "the_zoarstar")
    assert options(state, 0) == ["field_of_triumph"]  # not its own agent's space
    state = choose(state, 0, "field_of_triumph")
    assert res(state, 0) == Z | {"gold": 4, "f": 2}
    assert res(state, 1) == Z | {"f": 2, "vp": 2}


def test_the_zoarstar_is_closed_without_an_opponent_on_the_board() -> None:
    state = with_building(table(), "the_zoarstar", 1)
    assert "the_zoarstar" not in options(state, 0)


def test_accumulating_tiles_pile_up_each_round_until_taken() -> None:
    """Put on the tile when bought and again at each round start [FACTS 4]."""
    state = with_building(table(players=2), "the_golden_horn", 1, (0, 0, 0, 0, 4, 0))
    state = put(
        state, pending=(), current=-1, seats=tuple(put_pool(x) for x in state.seats), reassigning=True
    )
    from tests.waterdeep.helpers import settle

    state, _ = settle(state)
    assert state.round == 2
    assert state.buildings[0].stock == (0, 0, 0, 0, 8, 0)
    assert state.hall_vp == (2, 2, 2)


def put_pool(x: Any) -> Any:
    return put(x, pool=0)


def test_complete_after_tile_action_uses_what_it_gave() -> None:
    state = with_building(
        seat(table(), 0, quests=("train_bladesingers",), cubes=(0, 1, 0, 0)), "fetlock_court", 1
    )
    state = place(state, 0, "fetlock_court")
    state = choose(state, 1, "fighter")
    assert owes(state, 0) == "quest"
    state = complete(state, 0, "train_bladesingers")  # F3 W1 -> 4 VP, 1 F, 1 W
    assert res(state, 0) == Z | {"vp": 4, "f": 1, "w": 1}
    assert isinstance(state.pending[-1], Decision) and state.current == 1
