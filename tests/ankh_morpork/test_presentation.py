"""What a client shows a person (issue 31): decisions as named choice paths that lead to exactly
the legal action meant, events as log lines that reveal nothing hidden, the board's places."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.ankh_morpork import GAME, default_catalog
from services.ankh_morpork.model import (
    Assassinate,
    CardPlayed,
    CardsDrawn,
    ChooseOption,
    EndTurn,
    Frame,
    Interrupted,
    MinionPlaced,
    MinionRemoved,
    PersonalitySwapped,
    PlaceMinion,
    PlayCard,
    PlayInterrupt,
    RngAdvanced,
    Scroll,
    Skip,
    StackSet,
    UseAbility,
)
from services.ankh_morpork.present import PRESENTATION
from services.gamedata import game_data
from services.kernel.present import SEAT, Decision, Names, decision_faults
from services.kernel.testing import random_playout
from tests.ankh_morpork.helpers import BLUE, GREEN, RED, YELLOW, legal, play, run, table, top
from tests.conformance.presentation import presentation_faults

FILLER = ["ruby", "hex", "dwarves", "groat"]


def _decision(state: Any, seat: int) -> tuple[Decision, list[Any]]:
    actions = legal(state, seat)
    decision = PRESENTATION.decision(state, seat, actions)
    names = Names(game_data(GAME), state.players)
    assert decision_faults(decision, seat, len(actions), names) == []
    return decision, actions


def _follow(decision: Decision, actions: list[Any], *labels: str) -> Any:
    """The legal action a person reaches by picking these labels one after another."""
    found = [o for o in decision.options if tuple(c.label for c in o.choices) == labels]
    assert len(found) == 1, f"{labels} leads to {len(found)} options"
    return actions[found[0].action]


def _paths(decision: Decision) -> set[tuple[str, ...]]:
    return {tuple(c.label for c in o.choices) for o in decision.options}


# -- decisions --------------------------------------------------------------------------------------


def test_a_turn_asks_first_the_kind_of_move_then_the_card_or_the_city_area_card() -> None:
    state = table(hands={RED: ["queen_molly", *FILLER]}, buildings={3: RED}, minions={3: {RED: 1}})
    decision, actions = _decision(state, RED)
    assert decision.prompt.startswith("Your turn: play a card")
    assert decision.key == "turn" and not decision.simultaneous
    assert _follow(decision, actions, "Play a card", "Queen Molly") == PlayCard("queen_molly")
    ability = _follow(decision, actions, "Use a City Area card", "Dragon's Landing: take $2 from the bank")
    assert ability == UseAbility(3)
    steps = {c.step for o in decision.options for c in o.choices}
    assert steps == {"What do you do?", "Which card?", "Which City Area card?"}
    card = next(c for o in decision.options for c in o.choices if c.label == "Queen Molly")
    assert (card.kind, card.id) == ("card", "queen_molly")


def test_with_one_kind_of_move_the_turn_asks_only_which_card() -> None:
    state = table(hands={RED: ["queen_molly", *FILLER]})
    decision, actions = _decision(state, RED)
    assert all(len(o.choices) == 1 and o.choices[0].step == "Which card?" for o in decision.options)
    assert _follow(decision, actions, "Hex") == PlayCard("hex")


def test_a_place_a_minion_symbol_asks_where_and_skipping_says_what_is_skipped() -> None:
    state = table(hands={RED: ["queen_molly", *FILLER]}, minions={7: {RED: 1}, 1: {YELLOW: 1}})
    state, _ = play(state, RED, PlayCard("queen_molly"))
    decision, actions = _decision(state, RED)
    assert decision.prompt == "Queen Molly: place a minion, or skip it"
    assert _follow(decision, actions, "Place a minion", "Dimwell") == PlaceMinion(8)
    assert _follow(decision, actions, "Place no minion") == Skip()
    where = next(o.choices[1] for o in decision.options if len(o.choices) == 2)
    assert where.step == "Where?" and where.kind == "area"
    assert ("Place a minion", "Dolly Sisters") not in _paths(decision)  # not next to Red's minion


def test_declining_a_money_symbol_says_what_the_player_does_not_the_symbol_again() -> None:
    """Issue 41 item 8: "Skip: take $3" beside "Take $3 from the bank" read like two ways to
    take the money."""
    state = table(hands={RED: ["pink_pussy_cat_club", *FILLER]})
    state, _ = play(state, RED, PlayCard("pink_pussy_cat_club"))
    decision, actions = _decision(state, RED)
    assert decision.prompt == "Pink Pussy Cat Club: take $3, or skip it"
    labels = {o.choices[0].label for o in decision.options}
    assert labels == {"Take $3 from the bank", "Take no money"}
    assert _follow(decision, actions, "Take no money") == Skip()


def test_with_all_twelve_minions_out_placing_asks_which_minion_to_take_off() -> None:
    state = table(hands={RED: ["groat", *FILLER]}, minions={7: {RED: 11}, 8: {RED: 1}})
    state, _ = play(state, RED, PlayCard("groat"))
    decision, actions = _decision(state, RED)
    # one kind of move besides skipping: the area first, then the minion to take off
    assert _follow(decision, actions, "Place a minion", "The Scours", "The Shades") == PlaceMinion(5, 7)
    third = next(o.choices[2] for o in decision.options if len(o.choices) == 3)
    assert third.step == "All your minions are out: take one off which area?"


def test_the_scroll_option_names_the_card_and_its_text() -> None:
    state = table(hands={RED: ["queen_molly", *FILLER]}, minions={7: {RED: 1}})
    state, _ = run(state, (RED, PlayCard("queen_molly")), (RED, Skip()))
    decision, actions = _decision(state, RED)
    scroll = "Do the scroll of Queen Molly: a player of your choice gives you 2 cards of their choice"
    assert _follow(decision, actions, scroll) == Scroll()
    assert _follow(decision, actions, "Skip the scroll of Queen Molly") == Skip()
    assert "do its scroll (a player of your choice gives you 2 cards" in decision.prompt


def test_assassinating_asks_the_area_then_whose_minion_naming_trolls() -> None:
    state = table(
        hands={RED: ["mr_pin_and_mr_tulip", *FILLER]},
        minions={8: {YELLOW: 1, RED: 1}},
        trouble=[8],
        trolls={8: 1},
    )
    state, _ = play(state, RED, PlayCard("mr_pin_and_mr_tulip"))
    decision, actions = _decision(state, RED)
    assert _follow(decision, actions, "Assassinate", "Dimwell", "Player 2") == Assassinate(8, YELLOW)
    assert _follow(decision, actions, "Assassinate", "Dimwell", "a troll") == Assassinate(8, -1)
    whose = {
        o.choices[2].label: (o.choices[2].kind, o.choices[2].id)
        for o in decision.options
        if len(o.choices) == 3
    }
    assert whose == {"Player 2": (SEAT, "1"), "a troll": ("owner", "-1")}


def test_an_interrupt_window_is_one_seats_decision_not_a_simultaneous_one() -> None:
    state = table(
        hands={RED: ["mr_pin_and_mr_tulip", *FILLER], YELLOW: ["susan", "gaspode", "hex"]},
        minions={8: {YELLOW: 1, RED: 1}},
        trouble=[8],
    )
    state, _ = run(state, (RED, PlayCard("mr_pin_and_mr_tulip")), (RED, Assassinate(8, YELLOW)))
    decision, actions = _decision(state, YELLOW)
    assert decision.seat == YELLOW and decision.key == "interrupt" and decision.simultaneous is False
    assert decision.prompt == (
        "Player 1's card removes your minion from Dimwell: answer with an interrupt card, or let it happen?"
    )
    assert _follow(decision, actions, "Play an interrupt card", "Susan") == PlayInterrupt("susan")
    assert _follow(decision, actions, "Let it happen (no interrupt)") == Skip()


def test_paying_or_refusing_a_penalty_names_the_player_and_the_card() -> None:
    stack = (
        Frame(kind="turn", player=RED, step=1),
        Frame(kind="penalty", player=YELLOW, target=RED, card="dr_whiteface", count=5),
    )
    state = table(stack=stack)
    decision, actions = _decision(state, YELLOW)
    assert decision.prompt == "Pay Player 1 $5 or take Dr Whiteface in front of you for good"
    assert _follow(decision, actions, "Pay $5 to Player 1") == ChooseOption("pay")
    assert _follow(decision, actions, "Refuse: Dr Whiteface stays in front of you") == ChooseOption("refuse")


def test_ending_the_turn_is_its_own_first_choice() -> None:
    state = table(hands={RED: ["susan"]}, buildings={3: RED}, minions={3: {RED: 1}})
    decision, actions = _decision(state, RED)
    assert _follow(decision, actions, "End your turn (refill your hand to five cards)") == EndTurn()
    assert decision.prompt == "Your turn: use a City Area card or end your turn"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_decision_is_simultaneous_and_only_one_seat_is_asked(players: int) -> None:
    playout = random_playout(GAME, players, 11)
    state = GAME.start(playout.config)
    for step in playout.steps:
        active = GAME.active_players(state)
        assert len(active) <= 1
        for seat in active:
            assert not PRESENTATION.decision(state, seat, legal(state, seat)).simultaneous
        state = GAME.evolve(state, step.events)


# -- descriptions -----------------------------------------------------------------------------------


def test_a_placed_minion_reads_as_a_log_line_with_named_arguments() -> None:
    d = PRESENTATION.describe(MinionPlaced(RED, 7, from_area=1, trouble=True), None)
    assert (
        d.text == "Player 1 places a minion in The Shades (taken off Dolly Sisters); trouble breaks out there"
    )
    assert d.key == "minion_placed" and not d.internal
    assert [(a.name, a.kind, a.id) for a in d.args] == [
        ("owner", SEAT, "0"),
        ("area", "area", "7"),
        ("from_area", "area", "1"),
    ]
    assert d.template.startswith("{owner} places a minion in {area}")


def test_trolls_and_demons_are_named_not_numbered() -> None:
    d = PRESENTATION.describe(MinionPlaced(-2, 4, trouble=True), None)
    assert d.text == "A demon arrives in Small Gods; trouble breaks out there"
    removed = PRESENTATION.describe(MinionRemoved(-1, 8, by=GREEN), None)
    assert removed.text == "Player 3 removes a troll from Dimwell"


def test_cards_drawn_by_another_seat_describe_only_how_many() -> None:
    event = CardsDrawn(YELLOW, 2, ("hex", "groat"))
    other = PRESENTATION.describe(GAME.redact_event(event, RED), RED)
    assert other.text == "Player 2 draws 2 cards"
    assert all(a.kind != "card" for a in other.args)
    own = PRESENTATION.describe(GAME.redact_event(event, YELLOW), YELLOW)
    assert own.text == "Player 2 draws 2 cards: Hex, Groat"
    assert [a.id for a in own.args if a.kind == "card"] == ["hex", "groat"]


def test_a_personality_swap_seen_by_another_seat_names_no_personality() -> None:
    event = PersonalitySwapped(BLUE, "lord_rust", "lord_vetinari")
    hidden = PRESENTATION.describe(GAME.redact_event(event, RED), RED)
    assert hidden.text == "Player 4 swaps their personality for an unused one"
    assert "Rust" not in hidden.text and not any(a.kind == "personality" for a in hidden.args)
    seen = PRESENTATION.describe(event, BLUE)
    assert seen.text == "Player 4 swaps Lord Rust for the unused personality Lord Vetinari"


def test_engine_bookkeeping_is_internal_and_plays_are_not() -> None:
    assert PRESENTATION.describe(StackSet(()), None).internal
    assert PRESENTATION.describe(RngAdvanced(3), None).internal
    played = PRESENTATION.describe(CardPlayed(RED, "mr_bent"), None)
    assert not played.internal and played.text == "Player 1 plays Mr Bent"


def test_an_interrupt_names_the_card_and_what_it_stopped() -> None:
    d = PRESENTATION.describe(Interrupted(YELLOW, "susan", "remove"), None)
    assert d.text == "Player 2 stops the removal of a minion with Susan"
    gods = PRESENTATION.describe(Interrupted(YELLOW, "small_gods", "building"), None)
    assert gods.text == "Player 2 pays $3 with Small Gods (City Area card) to ignore the loss of a building"
    assert ("reaction", "small_gods") in {(a.kind, a.id) for a in gods.args}


# -- the board --------------------------------------------------------------------------------------


def _places() -> dict[str, Any]:
    return {p.id: p for p in game_data(GAME).places}


def test_the_board_has_twelve_numbered_areas_and_the_off_board_places() -> None:
    places = _places()
    areas = [p for p in places.values() if p.kind == "area"]
    assert len(places) == 17 and len(areas) == 12
    assert [p.id for p in areas] == [str(k) for k in range(1, 13)]
    assert places["0"].kind == "supply"
    assert places["11"].name == "Seven Sleepers" and places["11"].values["cost"] == 18


def test_area_neighbours_follow_the_bridges_and_borders_of_the_rules() -> None:
    places = _places()
    assert set(places["10"].neighbours) == {"2", "4", "5", "9", "11"}  # Isle of Gods, across water
    assert set(places["1"].neighbours) == {"2", "3", "12"}
    for area in default_catalog().areas:
        assert set(places[str(area.number)].neighbours) == {str(b) for b in area.adjacent}
    edges = {frozenset((p.id, q)) for p in places.values() for q in p.neighbours}
    assert len(edges) == 23  # FS 2 edge list


def test_only_dragons_landing_and_the_hippo_are_off_the_river() -> None:
    places = _places()
    assert {p.id for p in places.values() if p.group == "dry"} == {"3", "6"}


def test_places_do_not_overlap_in_the_schematic() -> None:
    points = [(p.x, p.y) for p in _places().values()]
    for i, (x, y) in enumerate(points):
        for u, v in points[i + 1 :]:
            assert (x - u) ** 2 + (y - v) ** 2 > 0.1**2


# -- ids and conformance ----------------------------------------------------------------------------


def test_every_owner_and_reaction_id_has_a_name() -> None:
    names = {(c.kind, c.id): c.name for c in game_data(GAME).components}
    assert names[("owner", "-2")] == "Demon" and names[("owner", "-1")] == "Troll"
    assert names[("reaction", "small_gods")] == "Small Gods (City Area card)"
    assert names[("reaction", "susan")] == "Susan"
    assert sum(kind == "card" for kind, _ in names) == 101


def test_a_view_names_its_sections_and_hides_the_pending_stack_in_the_engine_section() -> None:
    view = msgspec.json.decode(GAME.codec.encode_json(GAME.view(table(), RED)))
    assert set(view) == set(PRESENTATION.view_sections)
    assert PRESENTATION.view_sections["pending"] == "engine"
    assert PRESENTATION.view_sections["shown_hand"] == "self"


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [7, 21])
def test_conformance_every_id_named_and_every_decision_maps_onto_the_legal_actions(
    players: int, seed: int
) -> None:
    faults = presentation_faults(GAME, players, seed)
    assert not faults, "\n".join(faults[:12])


def test_the_decision_follows_the_top_pending_step() -> None:
    state = table(hands={RED: ["queen_molly", *FILLER]})
    assert top(state).kind == "turn"
    assert PRESENTATION.decision(state, RED, legal(state, RED)).key == "turn"


def test_every_effect_a_data_file_may_name_has_a_text() -> None:
    """A replacement data file gets player-facing card texts for any effect the rules know."""
    from services.ankh_morpork import catalog
    from services.ankh_morpork import game_data as texts

    assert set(texts.SCROLL_TEXT) == set(catalog.EFFECTS)
    assert set(texts.INTERRUPT_TEXT) == set(catalog.INTERRUPTS)
    assert set(texts.GAMBLE_TEXT) == set(catalog.GAMBLE_WINS) | set(catalog.GAMBLE_LOSSES)
    assert set(texts.ABILITY_TEXT) == set(catalog.ABILITIES)
    assert set(texts.EVENT_TEXT) == set(catalog.EVENT_EFFECTS)
    assert set(texts.GOAL_TEXT) == set(catalog.GOALS)
