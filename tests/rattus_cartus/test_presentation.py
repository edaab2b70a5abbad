"""What a client shows a person: decisions in words, events as log lines, the table's places."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
import pytest

from services.gamedata import game_data
from services.kernel.present import SEAT, Decision, Names, decision_faults, description_faults
from services.rattus_cartus import GAME
from services.rattus_cartus.model import (
    CLASSES,
    FLUTE,
    GOLD,
    JOKER,
    PASS,
    SWORD,
    BuildingCleared,
    BuildingEntered,
    CardGiven,
    CardPlayed,
    CardsDrawn,
    ChooseSupply,
    ChooseVictim,
    DeckReshuffled,
    DiscardForRat,
    DuelLost,
    EnterBuilding,
    FinishEntering,
    GiveCard,
    NunLooked,
    Options,
    PlayCard,
    PlayPass,
    ResolutionStarted,
    State,
    StopDiscarding,
    SuppliesTaken,
)
from services.rattus_cartus.present import PRESENTATION
from services.rattus_cartus.rules import legal_actions
from tests.conformance.test_presentation import presentation_faults
from tests.rattus_cartus.helpers import (
    FARMER,
    KNIGHT,
    MERCHANT,
    MONK,
    WITCH,
    act,
    card,
    enter,
    entering,
    scenario,
)

DATA = game_data(GAME)
NAMES = Names(DATA, 4)


def ask(state: State, seat: int) -> tuple[Decision, list[Any]]:
    legal = legal_actions(state, seat)
    made = PRESENTATION.decision(state, seat, legal)
    assert decision_faults(made, seat, len(legal), NAMES) == []
    return made, legal


def follow(made: Decision, legal: Sequence[Any], *labels: str) -> Any:
    """The legal action a person reaches by picking these labels step after step."""
    options = [o for o in made.options if tuple(c.label for c in o.choices) == labels]
    assert len(options) == 1, f"{labels} leads to {len(options)} options"
    return legal[options[0].action]


def first_steps(made: Decision) -> list[str]:
    return list(dict.fromkeys(o.choices[0].label for o in made.options))


def names_of(kind: str) -> Mapping[str, str]:
    return {c.id: c.name for c in DATA.components if c.kind == kind}


# -- decisions --------------------------------------------------------------------------------

MONASTERY_DRAW = card("monastery", 1, draw=4)
MONASTERY_RATS = card("monastery", 4, discard_rats=2)
TENT_LOOK = card("fortune_tellers_tent", 3, draw=2, look=1)


def test_choosing_a_supply_names_the_building_and_what_supplying_it_does() -> None:
    state = scenario(4, row=(TENT_LOOK, MONASTERY_DRAW, MONASTERY_RATS))
    made, legal = ask(state, 2)
    assert made.simultaneous and made.key == "choose_supply"
    labels = [o.choices[0].label for o in made.options]
    assert labels == [
        "Fortune-teller's Tent (1st building): draw 2 population cards and look at 1 Nun-row card",
        "Monastery (2nd building): draw 4 population cards",
        "Monastery (3rd building): discard 2 rats",
    ]
    assert [(o.choices[0].kind, o.choices[0].id) for o in made.options] == [
        ("building_slot", "0"),
        ("building_slot", "1"),
        ("building_slot", "2"),
    ]
    assert follow(made, legal, labels[2]) == ChooseSupply(2)
    assert "building 0" not in str(labels)


def test_supplies_in_turn_order_are_not_a_simultaneous_decision() -> None:
    state = scenario(4, row=("farm", "castle"), options=Options(simultaneous_supplies=False))
    made, _ = ask(state, 0)
    assert not made.simultaneous


def test_a_nun_row_look_names_the_card_by_its_place_in_the_row() -> None:
    state = scenario(4, row=(TENT_LOOK, "farm"))
    state = act(state, 1, ChooseSupply(0))
    made, legal = ask(state, 1)
    assert made.key == "look_at_nun" and made.simultaneous
    assert [o.choices[0].id for o in made.options] == ["0", "1", "2", "3", "4"]
    assert made.options[0].choices[0].label == "Nun-row card 1 (the 1st from the left)"
    assert names_of("nun_position")["4"] == "Nun-row card 5"


def test_entering_asks_what_to_do_then_which_building_and_a_pass_is_its_own_answer() -> None:
    state = entering(scenario(4, row=("castle", "palace"), hands={0: (PASS, MONK, KNIGHT)}))
    made, legal = ask(state, 0)
    assert not made.simultaneous and made.key == "enter_building"
    assert first_steps(made) == ["Enter a building", "Play a Pass and enter later"]
    assert {o.choices[-1].step for o in made.options if len(o.choices) == 2} == {"Which building?"}
    palace = next(o.choices[1].label for o in made.options if o.choices[-1].id == "1")
    assert palace.startswith("Palace (2nd building), space 1: premium take 2 victory-point tokens")
    assert follow(made, legal, "Enter a building", palace) == EnterBuilding(1)
    assert follow(made, legal, "Play a Pass and enter later") == PlayPass()


def test_the_entry_space_in_the_label_follows_who_entered_before() -> None:
    state = entering(scenario(4, row=("castle", "palace")))
    state = enter(state, 0, 0, ())
    made, _ = ask(state, 1)
    castle = next(o.choices[1].label for o in made.options if o.choices[-1].id == "0")
    assert castle.startswith("Castle (1st building), space 2:")


def test_placing_cards_asks_play_or_stop_then_which_card() -> None:
    state = entering(scenario(4, row=("castle", "palace"), hands={0: (MONK, JOKER, GOLD, SWORD)}))
    state = act(state, 0, EnterBuilding(0))
    state = act(state, 0, PlayCard(MONK))
    made, legal = ask(state, 0)
    assert made.prompt == "Play cards face down into the Castle (1st building) (1 card played so far)"
    assert first_steps(made) == ["Play a card face down", "Stop: enter with 1 card"]
    cards = [o.choices[1].label for o in made.options if len(o.choices) == 2]
    assert cards == ["Joker", "Sword"]  # Gold can never be played; the Monk is down already
    assert follow(made, legal, "Play a card face down", "Sword") == PlayCard(SWORD)
    assert follow(made, legal, "Stop: enter with 1 card") == FinishEntering()


PREMIUM, STANDARD, ELSEWHERE, ELSEWHERE_TOO = 0, 1, 2, 3


def visit(
    building: str, premium: tuple[str, ...], standard: tuple[str, ...], hands: dict[int, tuple[str, ...]]
) -> State:
    """Seats 0 and 1 enter `building` (0 with more cards), seats 2 and 3 the Palace."""
    state = entering(scenario(4, row=(building, "palace"), hands=hands))
    state = enter(state, PREMIUM, 0, premium)
    state = enter(state, STANDARD, 0, standard)
    state = enter(state, ELSEWHERE, 1)
    return enter(state, ELSEWHERE_TOO, 1)


def test_guard_tower_tributes_are_simultaneous_decisions_naming_the_receiver() -> None:
    hands = {
        PREMIUM: (KNIGHT, KNIGHT, "church:0"),
        STANDARD: (KNIGHT, MERCHANT),
        ELSEWHERE: (MERCHANT, WITCH),
        ELSEWHERE_TOO: (MERCHANT,),
    }
    state = visit("guard_tower", (KNIGHT, KNIGHT), (KNIGHT,), hands)
    for seat in (ELSEWHERE, ELSEWHERE_TOO):
        made, legal = ask(state, seat)
        assert made.simultaneous and made.key == "give_card"
        assert made.prompt.startswith("Give Player 1 a card of your choice")
    made, legal = ask(state, ELSEWHERE)
    assert [o.choices[0].label for o in made.options] == ["Bourgeoisie (3 nuns)", "Magic (0 nuns)"]
    assert follow(made, legal, "Magic (0 nuns)") == GiveCard(WITCH)


def test_a_single_giver_after_a_lost_sword_duel_is_not_simultaneous() -> None:
    hands = {PREMIUM: (SWORD, FARMER), STANDARD: (FARMER, MONK, WITCH, MERCHANT, KNIGHT)}
    state = visit("farm", (SWORD, FARMER), (FARMER,), hands)
    made, _ = ask(state, STANDARD)
    assert made.key == "give_card" and not made.simultaneous


def test_the_duel_winner_chooses_a_tied_loser_by_player_name() -> None:
    hands = {PREMIUM: (SWORD, FARMER), STANDARD: (FARMER, MONK), ELSEWHERE: (), ELSEWHERE_TOO: ()}
    state = entering(scenario(4, row=("farm", "palace"), hands=hands))
    state = enter(state, PREMIUM, 0, (SWORD, FARMER))
    state = enter(state, STANDARD, 0, (FARMER,))
    state = enter(state, ELSEWHERE, 0)
    state = enter(state, ELSEWHERE_TOO, 1)
    made, legal = ask(state, PREMIUM)
    assert made.key == "choose_victim"
    assert [(c.label, c.kind, c.id) for o in made.options for c in o.choices] == [
        ("Player 2", SEAT, "1"),
        ("Player 3", SEAT, "2"),
    ]
    assert follow(made, legal, "Player 3") == ChooseVictim(2)


def test_the_hospital_asks_discard_or_stop_then_which_card() -> None:
    hands = {PREMIUM: ("church:0", "church:1", GOLD, KNIGHT), STANDARD: ("church:2",)}
    state = visit("hospital", ("church:0", "church:1"), ("church:2",), hands)
    made, legal = ask(state, PREMIUM)
    assert made.prompt.endswith("(up to 3 cards more)")
    assert first_steps(made) == ["Discard a card and a rat", "Stop discarding"]
    assert follow(made, legal, "Discard a card and a rat", "Gold") == DiscardForRat(GOLD)
    assert follow(made, legal, "Stop discarding") == StopDiscarding()


# -- descriptions -----------------------------------------------------------------------------


def described(event: Any, viewer: int | None) -> Any:
    shown = GAME.redact_event(event, viewer)
    made = PRESENTATION.describe(shown, viewer)
    assert description_faults(made, NAMES) == []
    return made


def test_entering_a_building_reads_as_a_log_line_with_named_arguments() -> None:
    made = described(BuildingEntered(2, 1, 3), 0)
    assert made.text == "Player 3 enters the 2nd building (space 3)"
    assert made.template == "{player} enters {building} (space 3)"
    assert [(a.name, a.kind, a.id) for a in made.args] == [
        ("player", SEAT, "2"),
        ("building", "building_slot", "1"),
    ]
    assert not made.internal


def test_a_face_down_card_is_described_without_naming_it_to_the_others() -> None:
    event = CardPlayed(1, WITCH)
    assert described(event, 1).text == "Player 2 plays Magic (0 nuns) face down"
    for viewer in (0, None):
        made = described(event, viewer)
        assert made.text == "Player 2 plays a card face down"
        assert "magic" not in msgspec.json.encode(made).decode().lower()


def test_drawn_cards_are_listed_only_to_the_drawer() -> None:
    event = CardsDrawn(0, 2, (MONK, KNIGHT))
    assert described(event, 0).text == "Player 1 draws 2 population cards: Church (1 nun), Chivalry (4 nuns)"
    assert described(event, 3).text == "Player 1 draws 2 population cards"


def test_cards_given_and_nun_row_looks_stay_hidden_from_third_parties() -> None:
    assert described(CardGiven(2, 0, GOLD), 0).text == "Player 3 gives Gold to Player 1"
    assert described(CardGiven(2, 0, GOLD), 1).text == "Player 3 gives a card to Player 1"
    assert described(NunLooked(1, 3, MONK), 1).text == "Player 2 looks at Nun-row card 4: Church (1 nun)"
    assert described(NunLooked(1, 3, MONK), 2).text == "Player 2 looks at Nun-row card 4"


def test_duels_name_the_winner_and_the_loser() -> None:
    assert (
        described(DuelLost(SWORD, 0, 2, 3), None).text
        == "Player 1 wins the Sword duel against Player 3, who owes Player 1 3 cards"
    )
    assert described(DuelLost(FLUTE, 1, 0), None).key == "flute_duel_won"


def test_supplies_taken_name_the_item() -> None:
    made = described(SuppliesTaken(3, PASS, 2), None)
    assert made.text == "Player 4 takes 2 Passes"
    assert made.args[-1].kind == "special" and made.args[-1].id == PASS


def test_clearing_a_building_is_bookkeeping_and_the_rest_is_not() -> None:
    assert described(BuildingCleared(0), None).internal
    assert not described(DeckReshuffled(30), None).internal
    assert not described(ResolutionStarted(), None).internal


def test_every_event_of_a_playout_has_a_distinct_key_per_kind() -> None:
    from services.kernel.testing import random_playout

    playout = random_playout(GAME, 3, 11)
    keys = {PRESENTATION.describe(GAME.redact_event(e, 0), 0).key for s in playout.steps for e in s.events}
    assert {
        "supply_chosen",
        "building_entered",
        "building_revealed",
        "round_ended",
        "buildings_revealed",
    } <= keys
    assert all(k == k.lower() and " " not in k for k in keys)


# -- the table ---------------------------------------------------------------------------------


def test_the_table_has_sixteen_places_without_adjacency() -> None:
    places = {p.id: p for p in DATA.places}
    assert len(places) == 16
    # Rattus Cartus has no map: rats never spread between places, so no place has neighbours.
    assert all(not p.neighbours for p in places.values())
    assert [p.id for p in DATA.places if p.kind == "building_slot"] == ["0", "1", "2"]
    assert [p.id for p in DATA.places if p.kind == "influence_track"] == list(CLASSES)
    assert places["church"].values["buildings"] == ["monastery", "hospital"]


def test_the_building_row_is_drawn_left_to_right_above_the_influence_board() -> None:
    places = {p.id: p for p in DATA.places}
    assert places["0"].x < places["1"].x < places["2"].x
    assert places["0"].y == places["1"].y < places["nun_row"].y < places["peasantry"].y
    positions = {(round(p.x, 3), round(p.y, 3)) for p in DATA.places}
    assert len(positions) == len(DATA.places)  # no two places drawn on the same spot


def test_every_card_and_building_has_a_name() -> None:
    cards = names_of("card")
    assert cards["church:3"] == "Church (3 nuns)" and cards[JOKER] == "Joker" and cards[GOLD] == "Gold"
    assert len([c for c in cards if ":" in c]) == 30
    buildings = names_of("building")
    assert buildings["fortune_tellers_tent"] == "Fortune-teller's Tent" and len(buildings) == 12
    assert names_of("building_action")["final_round_bonus"] == "Final-round bonus"
    assert set(names_of("phase")) == {"draw", "supplies", "enter", "resolve", "over"}


# -- conformance --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", GAME.player_counts)
def test_every_id_has_a_name_and_every_decision_maps_onto_the_legal_actions(players: int) -> None:
    assert presentation_faults(GAME, players, 7) == []
