"""City Area cards: once a turn, any time in your turn, never in the turn the card was gained,
dead with a demon in the area or once Bloody Stupid Johnson set it aside (SEED, FS 2)."""

from __future__ import annotations

import pytest

from services.ankh_morpork.model import (
    AbilityUsed,
    Build,
    ChooseArea,
    ChooseCard,
    EndTurn,
    PlaceMinion,
    PlayCard,
    Scroll,
    Skip,
    TakeMoney,
    UseAbility,
)
from tests.ankh_morpork.helpers import (
    GREEN,
    RED,
    YELLOW,
    legal,
    minions_at,
    of_type,
    play,
    reject,
    run,
    table,
    top,
)

HAND = ["pink_pussy_cat_club", "groat", "dwarves"]


@pytest.mark.parametrize(("area", "income"), [(3, 2), (6, 2), (9, 1), (11, 3), (12, 1)])
def test_income_cards_pay_once_a_turn(area: int, income: int) -> None:
    state = table(hands={RED: HAND}, buildings={area: RED}, money=[0, 0, 0])
    state, events = play(state, RED, UseAbility(area))
    assert state.money[RED] == income and of_type(events, AbilityUsed) == [AbilityUsed(RED, area)]
    assert UseAbility(area) not in legal(state, RED)
    reject(state, RED, UseAbility(area))


def test_abilities_can_be_used_between_symbols_and_after_the_card() -> None:
    state = table(hands={RED: HAND}, buildings={11: RED, 12: RED}, money=[0, 0, 0])
    state, _ = play(state, RED, PlayCard("pink_pussy_cat_club"))
    assert UseAbility(11) in legal(state, RED)  # before the money symbol
    state, _ = run(state, (RED, UseAbility(11)), (RED, TakeMoney()), (RED, Skip()))
    assert top(state).kind == "turn" and legal(state, RED) == [UseAbility(12), EndTurn()]
    state, _ = play(state, RED, UseAbility(12))
    assert state.money[RED] == 7 and state.current == YELLOW


def test_a_card_gained_this_turn_cannot_be_used_until_the_next() -> None:
    state = table(hands={RED: ["the_watch", *HAND]}, minions={11: {RED: 1}}, trouble=[1], money=[20, 0, 0])
    state, _ = run(state, (RED, PlayCard("the_watch")), (RED, Build(11)))
    assert UseAbility(11) not in legal(state, RED) and 11 in state.gained


def test_a_demon_in_the_area_blocks_its_card() -> None:
    state = table(hands={RED: HAND}, buildings={11: RED}, demons={11: 1})
    assert UseAbility(11) not in legal(state, RED)


def test_a_card_set_aside_by_bloody_stupid_johnson_is_lost() -> None:
    lost = tuple(a == 10 for a in range(12))
    state = table(hands={RED: HAND}, buildings={11: RED}, lost_cards=lost)
    assert UseAbility(11) not in legal(state, RED)


def test_abilities_are_only_for_the_seat_on_turn() -> None:
    state = table(hands={RED: HAND}, buildings={11: YELLOW})
    assert UseAbility(11) not in legal(state, RED)
    reject(state, YELLOW, UseAbility(11))


def test_dolly_sisters_pays_three_to_place_a_minion_there_or_next_door() -> None:
    state = table(hands={RED: HAND}, buildings={1: RED}, minions={9: {RED: 1}}, money=[3, 0, 0])
    state, _ = play(state, RED, UseAbility(1))
    assert state.money[RED] == 0
    assert [a.area for a in legal(state, RED)] == [1, 2, 3, 12]  # the named area, not the usual rule
    state, _ = play(state, RED, PlaceMinion(3))
    assert minions_at(state, 3, RED) == 1


def test_dimwell_needs_three_dollars() -> None:
    state = table(hands={RED: HAND}, buildings={8: RED}, money=[2, 0, 0])
    assert UseAbility(8) not in legal(state, RED)
    state = table(hands={RED: HAND}, buildings={8: RED}, money=[3, 0, 0])
    state, _ = play(state, RED, UseAbility(8))
    assert [a.area for a in legal(state, RED)] == [5, 7, 8, 9]


def test_the_scours_discards_a_card_for_two_dollars() -> None:
    state = table(hands={RED: HAND}, buildings={5: RED}, money=[0, 0, 0])
    state, _ = run(state, (RED, UseAbility(5)), (RED, ChooseCard("groat")))
    assert state.money[RED] == 2 and state.discard[-1] == "groat"


def test_unreal_estate_draws_then_discards() -> None:
    state = table(hands={RED: HAND}, buildings={2: RED})
    drawn = state.deck[0]
    state, _ = play(state, RED, UseAbility(2))
    assert state.hands[RED][-1] == drawn and top(state).mode == "discard"
    state, _ = play(state, RED, ChooseCard("dwarves"))
    assert "dwarves" not in state.hands[RED]


def test_the_shades_puts_trouble_in_an_occupied_area_nearby() -> None:
    state = table(
        hands={RED: HAND},
        buildings={7: RED},
        minions={5: {YELLOW: 1}, 6: {RED: 1}, 8: {GREEN: 1}},
        trouble=[8],
    )
    state, _ = play(state, RED, UseAbility(7))
    assert legal(state, RED) == [ChooseArea(5), ChooseArea(6)]
    state, _ = play(state, RED, ChooseArea(5))
    assert state.trouble[4]


def test_isle_of_gods_pays_two_to_remove_a_trouble_marker() -> None:
    state = table(hands={RED: HAND}, buildings={10: RED}, minions={1: {RED: 1}}, trouble=[1], money=[2, 0, 0])
    state, _ = run(state, (RED, UseAbility(10)), (RED, ChooseArea(1)))
    assert not state.trouble[0] and state.money[RED] == 0


def test_small_gods_has_no_use_on_your_own_turn() -> None:
    state = table(hands={RED: HAND}, buildings={4: RED}, money=[9, 0, 0])
    assert UseAbility(4) not in legal(state, RED)


def test_abilities_can_be_used_between_drumknotts_two_cards() -> None:
    state = table(hands={RED: ["drumknott", "groat", "dwarves"]}, buildings={9: RED}, minions={1: {RED: 1}})
    state, _ = run(state, (RED, PlayCard("drumknott")), (RED, Scroll()))
    assert top(state).kind == "play_two" and UseAbility(9) in legal(state, RED)
