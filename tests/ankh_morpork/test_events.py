"""The 12 random events (FS 4), each drawn by Rincewind with the die pinned."""

from __future__ import annotations

from services.ankh_morpork.model import (
    DEMON,
    TROLL,
    ChooseArea,
    ChooseMinion,
    ChooseOption,
    DeckDiscarded,
    DieRolled,
    Interrupted,
    MoveMinion,
    PlayCard,
    State,
    UseAbility,
)
from tests.ankh_morpork.helpers import (
    GREEN,
    RED,
    YELLOW,
    dice,
    legal,
    minions_at,
    of_type,
    play,
    put,
    run,
    table,
    top,
)

HAND = ["rincewind", "groat", "dwarves", "ruby", "hex"]


def _draw(event: str, rolls: tuple[int, ...], **board: object) -> tuple[State, list]:
    state = table(hands={RED: HAND, **board.pop("hands", {})}, **board)  # type: ignore[arg-type]
    state = put(state, events_deck=(event, *[e for e in state.events_deck if e != event]))
    state = dice(state, *rolls)
    return play(state, RED, PlayCard("rincewind"))


def test_the_dragon_clears_the_rolled_area() -> None:
    state, events = _draw(
        "the_dragon",
        (5,),
        minions={5: {RED: 1, YELLOW: 2}, 1: {RED: 1}},
        trouble=[5],
        buildings={5: GREEN},
        trolls={5: 1},
    )
    assert of_type(events, DieRolled)[0].value == 5
    assert state.minions[4] == (0, 0, 0) and state.trolls[4] == 0 and state.buildings[4] == -1
    assert not state.trouble[4] and minions_at(state, 1, RED) == 1


def test_flood_spares_areas_off_the_river_and_keeps_minions_out_of_rolled_areas() -> None:
    state, _ = _draw("flood", (3, 5), minions={3: {RED: 1}, 5: {YELLOW: 1}})
    assert top(state).player == YELLOW  # Dragon's Landing (3) does not flood
    assert legal(state, YELLOW) == [
        MoveMinion(5, 4),
        MoveMinion(5, 6),
        MoveMinion(5, 7),
        MoveMinion(5, 8),
        MoveMinion(5, 10),
    ]


def test_fire_spreads_to_adjacent_buildings_and_stops_at_the_first_miss() -> None:
    state, _ = _draw("fire", (5, 10, 3), buildings={5: YELLOW, 10: GREEN, 3: RED, 6: RED})
    assert state.buildings[4] == -1 and state.buildings[9] == -1  # 5 burns, then 10 next to it
    assert state.buildings[2] == RED and state.buildings[5] == RED  # 3 is not next to 10: stop


def test_small_gods_saves_a_burning_building_off_turn() -> None:
    state, _ = _draw("fire", (5, 4, 9), buildings={5: YELLOW, 4: GREEN}, money=[0, 0, 3])
    assert top(state).player == GREEN and legal(state, GREEN)[0] == UseAbility(4)
    state, _ = play(state, GREEN, UseAbility(4))
    assert state.buildings[3] == GREEN and state.money[GREEN] == 0


def test_fog_discards_the_top_five_cards() -> None:
    state = table(hands={RED: HAND})
    top_five = state.deck[:5]
    state = put(state, events_deck=("fog", *[e for e in state.events_deck if e != "fog"]))
    state, events = play(state, RED, PlayCard("rincewind"))
    assert of_type(events, DeckDiscarded) == [DeckDiscarded(top_five)]
    assert state.discard[-5:] == top_five


def test_riots_end_the_game_on_points_with_eight_trouble_markers() -> None:
    trouble = [1, 2, 3, 4, 5, 6, 7, 8]
    minions = {a: {YELLOW: 1} for a in trouble}
    state, _ = _draw("riots", (), minions={**minions, 9: {RED: 1}}, trouble=trouble, money=[0, 0, 50])
    assert state.over and state.end_reason == "riots" and state.winners == (GREEN,)


def test_explosion_removes_the_building_in_the_rolled_area() -> None:
    state, _ = _draw("explosion", (12,), buildings={12: YELLOW, 11: YELLOW})
    assert state.buildings[11] == -1 and state.buildings[10] == YELLOW


def test_mysterious_murders_each_player_rolls_and_removes_a_minion_of_their_choice() -> None:
    state, _ = _draw("mysterious_murders", (5, 2, 9), minions={5: {YELLOW: 1, GREEN: 1}, 9: {RED: 1}})
    assert legal(state, RED) == [ChooseMinion(5, YELLOW), ChooseMinion(5, GREEN)]  # no trouble needed
    state, _ = play(state, RED, ChooseMinion(5, GREEN))
    # Yellow rolled 2 (empty); Green rolled 9 and must take Red's minion there
    assert legal(state, GREEN) == [ChooseMinion(9, RED)]
    state, _ = play(state, GREEN, ChooseMinion(9, RED))
    assert minions_at(state, 9, RED) == 0 and minions_at(state, 5, GREEN) == 0


def test_demons_arrive_with_a_trouble_marker_even_in_an_empty_area() -> None:
    state, _ = _draw("demons_from_the_dungeon_dimensions", (3, 3, 12, 6), minions={1: {RED: 1}})
    assert state.demons[2] == 2 and state.demons[11] == 1 and state.demons[5] == 1
    assert state.trouble[2] and state.trouble[11] and state.trouble[5]


def test_small_gods_keeps_a_demon_out_for_three_dollars() -> None:
    state, _ = _draw(
        "demons_from_the_dungeon_dimensions",
        (7, 1, 2, 3),
        minions={7: {YELLOW: 1}},
        buildings={4: YELLOW},
        money=[5, 9, 5],
    )
    assert top(state).player == YELLOW and legal(state, YELLOW)[0] == UseAbility(4)
    state, events = play(state, YELLOW, UseAbility(4))
    assert state.demons[6] == 0 and state.money[YELLOW] == 6
    assert of_type(events, Interrupted)[0].card == "small_gods"


def test_subsidence_pay_two_per_building_or_give_them_up() -> None:
    state, _ = _draw("subsidence", (), buildings={1: RED, 5: YELLOW, 7: YELLOW}, money=[1, 4, 0])
    assert legal(state, RED) == [ChooseArea(1)]  # $1 cannot pay for one building
    state, _ = play(state, RED, ChooseArea(1))
    assert legal(state, YELLOW) == [ChooseOption("pay"), ChooseArea(5), ChooseArea(7)]
    state, _ = play(state, YELLOW, ChooseOption("pay"))
    assert state.money[YELLOW] == 0 and state.buildings[0] == -1 and state.buildings[4] == YELLOW


def test_bloody_stupid_johnson_sets_the_card_aside_and_the_owner_loses_a_minion_there() -> None:
    state, _ = _draw("bloody_stupid_johnson", (11,), minions={11: {YELLOW: 2}}, buildings={11: YELLOW})
    assert state.lost_cards[10] and state.buildings[10] == YELLOW and minions_at(state, 11, YELLOW) == 1


def test_trolls_arrive_and_cause_trouble_in_occupied_areas() -> None:
    state, _ = _draw("trolls", (5, 9, 9), minions={5: {YELLOW: 1}})
    assert state.trolls[4] == 1 and state.trouble[4]
    assert state.trolls[8] == 2 and state.trouble[8]  # the second troll found the first


def test_earthquake_removes_buildings_in_both_rolled_areas() -> None:
    state, _ = _draw("earthquake", (2, 10), buildings={2: YELLOW, 10: RED, 4: GREEN})
    assert state.buildings[1] == -1 and state.buildings[9] == -1 and state.buildings[3] == GREEN


def test_each_event_happens_once() -> None:
    state, _ = _draw("fog", ())
    assert "fog" in state.events_done and "fog" not in state.events_deck


def test_trolls_and_demons_count_against_control_and_can_be_assassinated() -> None:
    from services.ankh_morpork.board import controller
    from services.ankh_morpork.model import Assassinate

    state = table(
        hands={RED: ["mr_pin_and_mr_tulip", *HAND[1:]]}, minions={5: {RED: 1}}, trolls={5: 1}, trouble=[5]
    )
    assert controller(state, 5) == -1
    state, _ = run(state, (RED, PlayCard("mr_pin_and_mr_tulip")), (RED, Assassinate(5, TROLL)))
    assert controller(state, 5) == RED
    state = table(minions={6: {RED: 3}}, demons={6: 1})
    assert controller(state, 6) == -1 and DEMON == -2


def test_small_gods_keeps_a_minion_where_it_stands_in_a_flood() -> None:
    state, _ = _draw("flood", (5, 3), minions={5: {YELLOW: 2}}, buildings={4: YELLOW}, money=[0, 3, 0])
    assert legal(state, YELLOW)[-1] == UseAbility(4)
    state, _ = play(state, YELLOW, UseAbility(4))
    state, _ = play(state, YELLOW, MoveMinion(5, 10))
    assert (
        minions_at(state, 5, YELLOW) == 1 and minions_at(state, 10, YELLOW) == 1 and state.money[YELLOW] == 0
    )


def test_small_gods_saves_a_minion_from_the_dragon_and_the_card_from_bsj() -> None:
    state, _ = _draw("the_dragon", (8,), minions={8: {YELLOW: 1}}, buildings={4: YELLOW}, money=[0, 3, 0])
    state, _ = play(state, YELLOW, UseAbility(4))
    assert minions_at(state, 8, YELLOW) == 1
    state, _ = _draw("bloody_stupid_johnson", (4,), buildings={4: YELLOW}, minions={}, money=[0, 3, 0])
    state, _ = play(state, YELLOW, UseAbility(4))
    assert not state.lost_cards[3]


def test_wallace_sonky_and_gaspode_do_not_answer_events() -> None:
    state, _ = _draw(
        "the_dragon", (8,), minions={8: {YELLOW: 1}}, hands={YELLOW: ["wallace_sonky", "gaspode"]}
    )
    assert minions_at(state, 8, YELLOW) == 0 and state.hands[YELLOW] == ("wallace_sonky", "gaspode")
