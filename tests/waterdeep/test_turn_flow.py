"""Rounds, turns, passing, the one-quest limit and the end of the game [SEED Como se Juega; FACTS 2]."""

from __future__ import annotations

import pytest

from services.kernel.testing import random_playout
from services.waterdeep import GAME
from services.waterdeep.model import (
    OVER,
    CompleteQuest,
    GameEnded,
    Options,
    Placed,
    PlacementPassed,
    RoundStarted,
)
from tests.waterdeep.helpers import (
    complete,
    end_turn,
    options,
    owes,
    place,
    put,
    reject,
    res,
    seat,
    settle,
    table,
    with_building,
)


@pytest.mark.parametrize("players", [2, 5])
def test_a_game_is_eight_rounds_then_final_scoring(players: int) -> None:
    playout = random_playout(GAME, players, 3)
    events = [e for step in playout.steps for e in step.events]
    assert [e.round for e in events if isinstance(e, RoundStarted)] == list(range(2, 9))  # round 1 at setup
    assert isinstance(events[-1], GameEnded)
    assert playout.final.phase == OVER and playout.outcome is not None


def test_setup_deals_two_quests_two_intrigue_cards_and_fills_the_inn_and_hall() -> None:
    state = GAME.setup(4, 11, Options())
    assert all(len(x.quests) == 2 and len(x.intrigue) == 2 for x in state.seats)
    assert all(state.inn) and len(state.inn) == 4
    assert all(state.hall) and state.hall_vp == (1, 1, 1)  # round 1 put a VP token on each
    assert len(state.stack) == 21 and len(state.quest_deck) == 60 - 8 - 4
    assert len({x.lord for x in state.seats}) == 4
    assert GAME.active_players(state) == (state.first,)


def test_turns_go_clockwise_from_the_first_player_and_skip_seats_without_agents() -> None:
    state = table(players=3)
    state = seat(state, 1, pool=0)
    state = place(state, 0, "the_plinth")
    assert GAME.active_players(state) == (2,)
    state = place(state, 2, "field_of_triumph")
    assert GAME.active_players(state) == (0,)


def test_only_one_quest_per_turn() -> None:
    state = seat(table(), 0, quests=("raid_orc_stronghold", "train_bladesingers"), cubes=(0, 8, 4, 1))
    state = place(state, 0, "the_plinth")
    assert options(state, 0) == ["raid_orc_stronghold", "train_bladesingers", "end_turn"]
    state = complete(state, 0, "raid_orc_stronghold")
    assert state.current == 1  # the turn is over: no second completion
    assert "train_bladesingers" in state.seats[0].quests


def test_end_turn_declines_the_completion() -> None:
    state = seat(table(), 0, cubes=(0, 4, 2, 0), quests=("raid_orc_stronghold",))
    state = place(state, 0, "the_plinth")
    state = end_turn(state, 0)
    assert state.seats[0].quests == ("raid_orc_stronghold",) and state.current == 1


def test_a_seat_with_no_legal_space_passes() -> None:
    """Passing is allowed only when no placement is legal [SEED Asignar agente]."""
    state = table(players=2)
    blocked = tuple(Placed(1, space) for space in options(state, 0))
    state, events = settle(put(state, placed=blocked, pending=(), current=-1))
    assert [e.player for e in events if isinstance(e, PlacementPassed)] == [0, 1]
    assert state.round == 2  # nobody could place: the round is over


def test_a_seat_that_passes_completes_no_quest() -> None:
    state = seat(table(players=2), 0, cubes=(0, 4, 2, 0), quests=("raid_orc_stronghold",))
    blocked = tuple(Placed(1, space) for space in options(state, 0))
    state, events = settle(put(state, placed=blocked, pending=(), current=-1))
    assert any(isinstance(e, PlacementPassed) and e.player == 0 for e in events)
    assert state.seats[0].quests == ("raid_orc_stronghold",)


def test_the_round_5_agent_and_the_first_player_marker_carry_over() -> None:
    state = place(table(), 0, "aurora_realms_shop")
    state = place(state, 1, "castle_waterdeep")
    assert state.first == 1 and GAME.active_players(state) == (0,)


def test_completing_a_quest_pays_requirements_and_takes_the_reward() -> None:
    state = seat(table(), 0, cubes=(1, 1, 2, 2), gold=2, quests=("expose_red_wizards_spies",))
    state = complete(place(state, 0, "the_plinth"), 0, "expose_red_wizards_spies")
    assert res(state, 0) == {"c": 1, "f": 0, "r": 0, "w": 0, "gold": 0, "vp": 20}
    assert len(state.seats[0].intrigue) == 1


def test_a_quest_short_of_adventurers_is_refused() -> None:
    state = seat(table(), 0, cubes=(0, 3, 2, 0), quests=("raid_orc_stronghold",))
    state = place(state, 0, "the_plinth")  # no Fighter there: still one short
    assert owes(state, 0) == ""
    state = seat(table(), 0, cubes=(0, 3, 2, 0), quests=("raid_orc_stronghold",))
    state = place(state, 0, "field_of_triumph")
    assert reject(state, 0, CompleteQuest("bolster_city_guard")).code == "illegal_action"
    assert options(state, 0) == ["raid_orc_stronghold", "end_turn"]


def test_adventurers_are_limited_to_the_25_of_each_type() -> None:
    """A gain takes only what the supply has left, accumulating tiles too [SEED Preparar; FACTS 0]."""
    state = seat(table(), 1, cubes=(0, 0, 0, 24))
    state = place(state, 0, "blackstaff_tower")
    assert res(state, 0)["w"] == 1
    state = place(state, 1, "the_plinth")
    state = with_building(state, "tower_of_the_order", 0)
    state = put(state, pending=(), current=-1, seats=tuple(put(x, pool=0) for x in state.seats))
    state, _ = settle(state)
    assert state.buildings[0].stock[3] == 0  # no Wizard left to pile up


def test_the_without_larissa_variant_never_deals_larissa() -> None:
    variant = GAME.variants["without_larissa"]
    dealt = {x.lord for seed in range(12) for x in GAME.setup(5, seed, variant).seats}
    assert "larissa_neathal" not in dealt and len(dealt) > 5
    standard = {x.lord for seed in range(12) for x in GAME.setup(5, seed, Options()).seats}
    assert "larissa_neathal" in standard
