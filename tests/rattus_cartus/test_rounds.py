"""The round structure: phases A-E, the 2-player premium, the final round, decks and supplies."""

from __future__ import annotations

from services.rattus_cartus import GAME
from services.rattus_cartus.model import (
    ENTER,
    JOKER,
    OVER,
    SUPPLIES,
    VP_TOKEN,
    BuildingsRevealed,
    CardsDrawn,
    ChooseSupply,
    DeckReshuffled,
    EnterBuilding,
    FinishEntering,
    LookAtNun,
    Options,
)
from services.rattus_cartus.rules import _draw_row, active_players, standing
from tests.rattus_cartus.helpers import (
    FARMER,
    MERCHANT,
    MONK,
    WITCH,
    act,
    card,
    decide,
    enter,
    entering,
    influence,
    rejected,
    scenario,
    supply_of,
)

# -- phase A ------------------------------------------------------------------------------------


def test_all_the_same_building_swaps_the_last_card_for_the_reserves_top_until_one_differs() -> None:
    farm1, farm2, farm3, farm4 = (card("farm", n) for n in (1, 2, 3, 4))
    palace = card("palace", 1)
    deck = (farm1, farm2, farm3, card("castle", 1))
    reserve = (farm4, palace, card("monastery", 2))
    row, rest, new_reserve, swaps = _draw_row(deck, reserve, 3)
    # farm3 -> bottom, farm4 comes; still all Farms: farm4 -> bottom, the Palace comes.
    assert row == (farm1, farm2, palace)
    assert rest == (card("castle", 1),)
    assert new_reserve == (card("monastery", 2), farm3, farm4)
    assert swaps == 2


def test_a_row_with_two_different_buildings_is_kept() -> None:
    deck = (card("farm", 1), card("farm", 2), card("castle", 1))
    row, _, reserve, swaps = _draw_row(deck, (card("palace", 1),), 3)
    assert row == deck and swaps == 0 and reserve == (card("palace", 1),)


def test_the_next_round_reveals_its_buildings_after_the_start_player_card_moves_left() -> None:
    farm1, farm2 = card("farm", 1), card("farm", 2)
    state = entering(
        scenario(
            2,
            row=("palace", "farm"),
            start_player=1,
            building_deck=(farm1, farm2, card("palace", 2), card("palace", 3)),
            reserve=(card("castle", 2), card("monastery", 1)),
        )
    )
    state = enter(state, 1, 0)
    state = act(state, 0, EnterBuilding(0))
    events = decide(state, 0, FinishEntering())
    revealed = [e for e in events if isinstance(e, BuildingsRevealed)]
    assert revealed == [BuildingsRevealed(2, (farm1, card("castle", 2)), 1)]
    state = GAME.evolve(state, events)
    assert state.round == 2 and state.phase == SUPPLIES
    assert state.start_player == 0
    assert state.reserve == (card("monastery", 1), farm2)
    assert state.building_deck == (card("palace", 2), card("palace", 3))


# -- phase B ----------------------------------------------------------------------------------


def test_supplies_are_chosen_simultaneously_by_default() -> None:
    state = scenario(3, row=("farm", "palace"))
    assert active_players(state) == (0, 1, 2)
    state = act(state, 2, ChooseSupply(1))
    assert active_players(state) == (0, 1)


def test_supplies_in_turn_order_from_the_start_player_when_not_simultaneous() -> None:
    look = card("fortune_tellers_tent", 3, draw=2, look=1)
    state = scenario(3, row=(look, "palace"), start_player=1, options=Options(simultaneous_supplies=False))
    assert active_players(state) == (1,)
    rejected(state, 0, ChooseSupply(0))
    state = act(state, 1, ChooseSupply(0))
    assert active_players(state) == (1,)  # the look comes before the next player's choice
    state = act(state, 1, LookAtNun(2))
    assert active_players(state) == (2,)
    state = act(state, 2, ChooseSupply(1))
    state = act(state, 0, ChooseSupply(1))
    assert state.phase == ENTER and state.enter_queue == (1, 2, 0)


def test_the_supply_action_is_independent_of_the_building_entered() -> None:
    state = scenario(2, row=(card("farm", 4, discard_rats=2), "palace"))
    state = act(state, 0, ChooseSupply(0))
    state = act(state, 1, ChooseSupply(0))
    state = enter(state, state.enter_queue[0], 1)
    assert state.phase == ENTER


# -- phase D: the 2-player premium ------------------------------------------------------------


def test_two_players_share_one_premium_action_even_in_different_buildings() -> None:
    state = entering(scenario(2, row=("palace", "marketplace"), hands={0: (MONK,), 1: (MONK, WITCH)}))
    state = enter(state, 0, 0, (MONK,))
    state = enter(state, 1, 1, (MONK, WITCH))
    assert state.vp_tokens == (1, 0)  # alone in the Palace, but only the standard action
    assert state.hands[1].count(JOKER) == 2  # the premium went to the most cards


def test_two_players_tie_for_the_premium_goes_to_who_entered_first() -> None:
    state = entering(
        scenario(2, row=("palace", "marketplace"), hands={0: (MONK,), 1: (MONK,)}, start_player=1)
    )
    state = enter(state, 1, 1, (MONK,))
    state = enter(state, 0, 0, (MONK,))
    assert state.hands[1].count(JOKER) == 2
    assert state.vp_tokens == (1, 0)


def test_with_three_players_each_building_has_its_own_premium() -> None:
    state = entering(scenario(3, row=("palace", "marketplace"), hands={0: (MONK,), 1: (MONK, WITCH), 2: ()}))
    state = enter(state, 0, 0, (MONK,))
    state = enter(state, 1, 1, (MONK, WITCH))
    state = enter(state, 2, 1)
    assert state.vp_tokens == (2, 0, 0)
    assert state.hands[1].count(JOKER) == 2 and state.hands[2].count(JOKER) == 1


def test_a_player_who_played_nothing_takes_the_premium_if_nobody_played_population_or_jokers() -> None:
    state = entering(scenario(3, row=("palace", "farm"), hands={0: (), 1: ("sword",)}))
    state = enter(state, 0, 0)
    state = enter(state, 1, 0, ("sword",))  # a Sword does not count for the premium
    state = enter(state, 2, 1)
    assert state.vp_tokens == (2, 1, 0)


# -- the final round -------------------------------------------------------------------------


def test_final_round_has_no_actions_and_the_premium_holder_gains_one_influence() -> None:
    state = entering(scenario(3, row=("palace", "farm"), hands={0: (KING := "royalty:0",), 1: ()}, round=9))
    deck_before = state.deck
    state = enter(state, 0, 0, (KING,))
    state = enter(state, 1, 0)
    state = enter(state, 2, 1)
    assert state.phase == OVER
    assert state.vp_tokens == (0, 0, 0)  # no Palace actions
    assert state.deck == deck_before  # no Farm draws
    assert influence(state, 0, "royalty") == 1 + 1
    assert influence(state, 2, "peasantry") == 1  # alone in the Farm: premium holder there


def test_final_round_bonus_goes_to_only_one_player_with_two_players() -> None:
    state = entering(scenario(2, row=("palace", "farm"), hands={0: (MONK,), 1: ()}, round=10))
    state = enter(state, 0, 0, (MONK,))
    state = enter(state, 1, 1)
    assert state.phase == OVER
    assert influence(state, 0, "royalty") == 2
    assert influence(state, 1, "peasantry") == 0


def test_final_round_still_settles_swords() -> None:
    state = entering(scenario(2, row=("palace", "farm"), hands={0: ("sword",), 1: (MONK, WITCH)}, round=10))
    state = enter(state, 0, 0, ("sword",))
    state = enter(state, 1, 0)
    assert state.phase != OVER and active_players(state) == (1,)


def test_the_game_lasts_ten_nine_eight_and_eight_rounds() -> None:
    for players, rounds in ((2, 10), (3, 9), (4, 8), (5, 8)):
        assert GAME.setup(players, 3, Options()).rounds == rounds


# -- population deck and supplies ------------------------------------------------------------


def test_an_empty_deck_is_replaced_by_the_shuffled_discard_pile() -> None:
    discard = ("royalty:0", "royalty:1", "royalty:2", "royalty:3", "royalty:4")
    state = entering(
        scenario(3, row=("farm", "palace"), deck=("magic:1",), discard=discard, hands={0: (FARMER,)})
    )
    state = enter(state, 0, 0, (FARMER,))
    state = enter(state, 1, 1)
    state = act(state, 2, EnterBuilding(1))
    events = decide(state, 2, FinishEntering())
    shuffles = [e for e in events if isinstance(e, DeckReshuffled)]
    draws = [e for e in events if isinstance(e, CardsDrawn)]
    assert len(shuffles) == 1 and sorted(shuffles[0].order) == sorted(discard)
    assert draws[0].cards == ("magic:1", *shuffles[0].order[:3])  # the old deck's card comes first
    state = GAME.evolve(state, events)
    assert len(state.hands[0]) == 4
    assert state.rng.counter == shuffles[0].rng_counter
    # The played Farmer reached the discard pile after the draws.
    assert state.discard == (FARMER,)


def test_drawing_stops_when_deck_and_discard_pile_are_both_empty() -> None:
    state = entering(scenario(3, row=("farm", "palace"), deck=("magic:1",), discard=(), hands={0: ()}))
    state = enter(state, 0, 0)
    state = enter(state, 1, 1)
    state = enter(state, 2, 1)
    assert state.hands[0] == ("magic:1",)
    assert state.deck == ()


def test_an_exhausted_supply_gives_what_is_left() -> None:
    state = entering(scenario(3, row=("marketplace", "palace"), supply={JOKER: 2, VP_TOKEN: 1}))
    state = enter(state, 0, 0)
    state = enter(state, 1, 0)
    state = enter(state, 2, 1)
    assert state.hands[0].count(JOKER) == 2  # premium first
    assert state.hands[1].count(JOKER) == 0
    assert state.vp_tokens == (0, 0, 1)
    assert supply_of(state, JOKER) == 0


def test_played_population_cards_are_discarded_and_jokers_go_back_to_the_supply() -> None:
    state = entering(scenario(3, row=("palace", "farm"), hands={0: (JOKER, MERCHANT)}, discard=()))
    before = supply_of(state, JOKER)
    state = enter(state, 0, 0, (JOKER, MERCHANT))
    state = enter(state, 1, 1)
    state = enter(state, 2, 1)
    assert state.discard == (MERCHANT,)
    assert supply_of(state, JOKER) == before + 1


def test_influence_ties_are_broken_by_stack_order() -> None:
    state = entering(scenario(3, row=("palace", "farm"), hands={0: ("royalty:0",), 1: ("royalty:1",)}))
    state = enter(state, 0, 0, ("royalty:0",))
    state = enter(state, 1, 0, ("royalty:1",))
    state = enter(state, 2, 1)
    # Both at 1 Royalty influence: seat 0 arrived first, so it is lower in the stack and ahead.
    assert influence(state, 0, "royalty") == influence(state, 1, "royalty") == 1
    assert standing(state, "royalty") == (0, 1)
