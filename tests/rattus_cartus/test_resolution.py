"""Phase D step a and b: influence and rats from played cards, and who takes the premium action."""

from __future__ import annotations

from services.kernel import json_schemas
from services.rattus_cartus import GAME
from services.rattus_cartus.model import JOKER, ActionTaken, EnterBuilding, FinishEntering, PlayCard
from tests.rattus_cartus.helpers import MONK, WITCH, act, decide, enter, entering, influence, scenario


def test_each_population_card_or_joker_gives_one_influence_and_off_class_cards_a_rat() -> None:
    hands = {0: ("royalty:0", "royalty:4", MONK, WITCH, JOKER)}
    state = entering(scenario(3, row=("palace", "farm"), hands=hands))
    state = enter(state, 0, 0, ("royalty:0", "royalty:4", MONK, WITCH, JOKER))
    state = enter(state, 1, 1)
    state = enter(state, 2, 1)
    assert influence(state, 0, "royalty") == 5
    assert influence(state, 0, "church") == 0  # influence goes to the building's class only
    assert state.rats[0] == 10 + 2  # Monk and Witch; the Joker brings no rat


def test_the_premium_goes_to_the_most_population_cards_and_jokers_ties_to_the_first_in() -> None:
    hands = {0: (MONK, "sword"), 1: (MONK, "sword", "sword"), 2: (WITCH, JOKER)}
    state = entering(scenario(3, row=("palace", "farm"), hands=hands, start_player=0))
    state = enter(state, 0, 0, (MONK, "sword"))
    state = enter(state, 1, 0, (MONK, "sword", "sword"))  # Swords do not count for the premium
    state = act(state, 2, EnterBuilding(0))
    state = act(state, 2, PlayCard(WITCH))
    events = decide(state, 2, FinishEntering())
    taken = [(e.player, e.premium) for e in events if isinstance(e, ActionTaken)]
    # (Seat 2 lost the Sword duel but keeps 1 card: it owes nothing.)
    # Seat 2 played 1 (Witch) like seats 0 and 1: seat 0 entered first and acts first.
    assert taken == [(0, True), (1, False), (2, False)]


def test_a_premium_holder_acts_first_then_the_others_in_entry_order() -> None:
    hands = {0: (), 1: (MONK,), 2: ()}
    state = entering(scenario(3, row=("palace", "farm"), hands=hands, start_player=0))
    state = enter(state, 0, 0)
    state = enter(state, 1, 0, (MONK,))
    state = act(state, 2, EnterBuilding(0))
    events = decide(state, 2, FinishEntering())
    assert [e.player for e in events if isinstance(e, ActionTaken)] == [1, 0, 2]


def test_the_game_publishes_json_schemas_for_clients() -> None:
    schemas = json_schemas(GAME)
    published = {"options", "action", "event", "view", "outcome", "rejection", "decision", "description"}
    assert set(schemas) == published
    assert "choose_supply" in str(schemas["action"]) and "building_revealed" in str(schemas["event"])
