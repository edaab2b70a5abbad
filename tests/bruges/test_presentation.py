"""What a client shows a person (issue 31): decisions as steps in words, events as log lines,
the board's places, and every id a client receives named (services/kernel/present.py)."""

from __future__ import annotations

import typing
from typing import Any

import msgspec
import pytest

from services.bruges import GAME
from services.bruges.describe import Describer
from services.bruges.model import (
    CALAMITY,
    DRAW,
    REPUTATION,
    Activate,
    BuyReputation,
    CardDrawn,
    CardPlayed,
    DrawCard,
    EndTurn,
    Event,
    GiveWorker,
    HandLooked,
    HouseLost,
    MajoritiesChecked,
    PlayCard,
    StopDrawing,
    SufferCalamity,
    Task,
    TaskDropped,
    TasksAdded,
    WorkerGiven,
)
from services.gamedata import game_data
from services.kernel.present import (
    Decision,
    Names,
    decision_faults,
    description_faults,
)
from tests.bruges.helpers import RULES, card, new_game, plain, playing, put, seat
from tests.bruges.test_worked_examples import roll
from tests.conformance.presentation import presentation_faults

PRESENTATION = GAME.presentation
assert PRESENTATION is not None
DATA = game_data(GAME)
PLACES = {p.id: p for p in DATA.places}


def names(players: int = 2) -> Names:
    return Names(DATA, players)


def decision(state: Any, player: int) -> tuple[Decision, list[Any]]:
    legal = list(GAME.legal_actions(state, player))
    made = PRESENTATION.decision(state, player, legal)
    assert decision_faults(made, player, len(legal), names(state.players)) == []
    return made, legal


def follow(made: Decision, *labels: str) -> int:
    """Answer the steps one after another as a client would; the legal action's index."""
    options = list(made.options)
    for depth, label in enumerate(labels):
        offered = {o.choices[depth].label for o in options if len(o.choices) > depth}
        assert label in offered, f"{label!r} not offered at step {depth + 1}: {sorted(offered)}"
        options = [o for o in options if len(o.choices) > depth and o.choices[depth].label == label]
    assert len(options) == 1 and len(options[0].choices) == len(labels), [o.choices for o in options]
    return options[0].action


def steps_of(made: Decision, action_index: int) -> list[str]:
    return [c.step for c in next(o for o in made.options if o.action == action_index).choices]


# -- decisions ------------------------------------------------------------------------------


def test_playing_a_card_for_a_canal_asks_for_the_card_then_the_action_then_the_canal_space() -> None:
    blue = plain("blue")
    state = seat(playing(), 0, hand=[blue], guilders=5)
    made, legal = decision(state, 0)
    assert made.key == "turn" and not made.simultaneous and made.prompt == "Play a card"
    index = follow(
        made,
        f"{RULES.persons[blue].name} (blue)",
        "Build 1 canal token",
        "Left section, space 1 (blue, 1 guilder)",
    )
    assert legal[index] == PlayCard(blue, "canal", 0)
    assert steps_of(made, index) == ["Which card?", "Which action?", "Which canal space?"]
    space = made.options[index].choices[2]
    assert (space.kind, space.id) == ("place", "canal.0.left.1") and PLACES[space.id].values[
        "colour"
    ] == "blue"


def test_a_seat_with_several_kinds_of_move_first_chooses_the_kind() -> None:
    acrobat, blue = card("Acrobat"), plain("blue")
    state = seat(playing(), 0, hand=[blue], guilders=10, houses=[(plain("red"), acrobat)])
    state = put(state, played=0)
    made, legal = decision(state, 0)
    assert {o.choices[0].label for o in made.options} == {"Play a card", "Use a person"}
    assert made.prompt == "Play a card, use a person or end your turn"
    index = follow(made, "Use a person", "Acrobat (House 1)", "Right section, space 1 (purple, 2 guilders)")
    assert legal[index] == Activate(0, 1)
    assert steps_of(made, index) == ["What do you do?", "Which person?", "Which canal space?"]


def test_ending_the_turn_is_its_own_first_choice_not_the_start_of_a_longer_path() -> None:
    blue = plain("blue")
    state = put(seat(playing(), 0, hand=[blue, plain("blue", 1)]), played=1, allowed=2)
    made, legal = decision(state, 0)
    index = follow(made, "End your turn")
    assert legal[index] == EndTurn() and len(made.options[index].choices) == 1
    assert "card 2 of 2" in made.prompt


def test_recruiting_names_the_house_never_its_index() -> None:
    king = card("King")
    state = seat(
        playing(),
        0,
        hand=[king],
        guilders=12,
        workers=(0, 0, 0, 0, 0),
        houses=[(plain("red"), -1), (plain("brown"), -1)],
    )
    made, legal = decision(state, 0)
    index = follow(made, "King (blue)", "Recruit 1 person (price 12)", "House 2 (brown)")
    assert legal[index] == PlayCard(king, "recruit", 1)
    house = made.options[index].choices[-1]
    assert (house.step, house.kind, house.id) == ("Onto which house?", "house_slot", "1")
    labels = [c.label for o in made.options for c in o.choices]
    assert not any("-1" in text or "target" in text for text in labels)


def test_drawing_asks_for_the_pile_by_the_colour_on_top_and_stopping_is_a_choice_of_its_own() -> None:
    state = new_game(2)
    state = seat(put(state, phase=DRAW, queue=(0, 1)), 0, hand=[plain("red", k) for k in range(5)])
    legal = [DrawCard(0), DrawCard(1), StopDrawing()]  # as if the Inventor let the seat draw a sixth
    made = PRESENTATION.decision(state, 0, legal)
    assert decision_faults(made, 0, 3, names()) == []
    top = RULES.colour[state.piles[1][0]]
    assert legal[follow(made, f"Draw pile 2 ({top} card on top)")] == DrawCard(1)
    assert legal[follow(made, "Stop drawing (keep five cards)")] == StopDrawing()
    assert made.options[1].choices[0].id == "pile.1" and made.key == "draw"


def test_the_reputation_step_asks_whether_to_pay_this_rounds_price() -> None:
    state = put(new_game(2), phase=REPUTATION, queue=(0, 1), reputation_cost=3)
    made, legal = decision(state, 0)
    assert made.prompt == "Buy a reputation step for 3 guilders?"
    assert legal[follow(made, "Advance one step for 3 guilders")] == BuyReputation(True)
    assert legal[follow(made, "Decline")] == BuyReputation(False)


def _struck(both_seats: bool) -> Any:
    state = seat(
        put(new_game(2), queue=(), phase=DRAW),
        0,
        threats=(0, 0, 2, 0, 0),
        houses=[(plain("blue", 5), card("King")), (plain("blue", 6), -1)],
    )
    if both_seats:
        state = seat(state, 1, threats=(0, 0, 2, 0, 0), houses=[(plain("red", 5), -1), (plain("red", 6), -1)])
    state, _ = roll(state, (3, 3, 6, 3, 3))
    assert state.phase == CALAMITY
    return state


def test_seats_struck_by_a_calamity_at_once_decide_simultaneously() -> None:
    made, legal = decision(_struck(both_seats=True), 0)
    assert made.simultaneous and made.key == "calamity"
    assert made.prompt == "Fire: lose a house or a canal token"
    index = follow(made, "House 1 (blue; King goes back to your hand)")
    assert legal[index] == SufferCalamity("red", house=0)
    assert made.options[index].choices[0].kind == "house_slot"
    alone, _ = decision(_struck(both_seats=False), 0)
    assert not alone.simultaneous


def test_two_calamities_at_once_ask_which_comes_first() -> None:
    state = seat(
        put(new_game(2), queue=(), phase=DRAW),
        0,
        threats=(0, 2, 2, 0, 0),
        canals=(2, 0),
        houses=[(plain("blue", 5), card("King"))],
    )
    state, _ = roll(state, (3, 5, 5, 3, 3))
    made, legal = decision(state, 0)
    assert {o.choices[0].label for o in made.options} == {"Plague", "Fire"}
    assert legal[follow(made, "Plague", "King (House 1)")] == SufferCalamity("brown", house=0)
    index = follow(made, "Fire", "The token on the left section, space 2")
    assert legal[index] == SufferCalamity("red", section=0)
    assert made.options[index].choices[1].id == "canal.0.left.2"


def test_giving_a_worker_names_the_receiver_in_the_prompt() -> None:
    state = put(
        seat(new_game(3), 2, workers=(1, 0, 2, 0, 0)),
        phase=CALAMITY,
        tasks=(Task(2, "give_workers", 2, other=0),),
    )
    made, legal = decision(state, 2)
    assert made.prompt == "Give a worker to Player 1 (2 to go)"
    assert legal[follow(made, "Red worker")] == GiveWorker("red")


# -- descriptions ---------------------------------------------------------------------------


def text(event: Any, viewer: int | None = None) -> Any:
    shown = GAME.redact_event(event, viewer)
    made = PRESENTATION.describe(shown, viewer)
    assert description_faults(made, names(4)) == []
    return made


def test_recruiting_reads_as_a_log_line_with_the_player_as_an_argument() -> None:
    king = card("King")
    made = text(CardPlayed(1, king, "blue", "recruit", target=0, cost=12))
    assert made.text == "Player 2 recruits King onto house 1 for 12 guilders"
    assert made.template == "{player} recruits {card} onto {house} for {cost}"
    args = {a.name: a for a in made.args}
    assert (args["player"].kind, args["player"].id) == ("seat", "1")
    assert (args["card"].kind, args["card"].id) == ("person", str(king))
    assert (args["house"].kind, args["house"].id) == ("house_slot", "0")


def test_a_house_built_face_down_names_its_card_only_to_its_builder() -> None:
    king = card("King")
    event = CardPlayed(0, king, "blue", "house", worker="blue")
    assert text(event, 0).text == "Player 1 builds a blue house with King"
    for viewer in (1, None):
        hidden = text(event, viewer)
        assert hidden.text == "Player 1 builds a blue house" and "King" not in str(hidden.args)


def test_a_draw_in_phase_one_shows_only_the_back_colour_even_to_the_drawer() -> None:
    prince = card("Prince")
    event = CardDrawn(0, 1, "purple", prince, seen=False)
    for viewer in (0, 1, None):
        made = text(event, viewer)
        assert made.text == "Player 1 draws a purple card from draw pile 2" and "Prince" not in made.text
    assert (
        text(CardDrawn(0, 1, "purple", prince, seen=True), 0).text == "Player 1 draws Prince from draw pile 2"
    )
    assert text(HandLooked(0, (prince,)), 1).text == "Player 1 looks at the hand"


def test_pending_decisions_are_bookkeeping_and_the_moves_are_not() -> None:
    assert text(TasksAdded((Task(1, "give_workers", 2, other=0),))).internal
    assert (
        text(TasksAdded((Task(1, "give_workers", 2, other=0),))).text
        == "Player 2 must give a worker (2 times)"
    )
    assert text(TaskDropped(1, "lose_canal")).internal
    worker = text(WorkerGiven(1, 0, "red", "give_workers"))
    assert not worker.internal and worker.text == "Player 2 gives a red worker to Player 1"


def test_fire_names_the_burnt_house_and_the_person_going_back_to_hand() -> None:
    made = text(HouseLost(2, 1, plain("red"), card("King"), "fire"))
    assert made.text.startswith("Fire: Player 3 loses house 2 (") and made.text.endswith(
        "); King goes back to the hand"
    )


def test_majorities_name_only_the_sole_leaders() -> None:
    made = text(MajoritiesChecked((2, -1, 0)))
    assert (
        made.text == "Majorities: Player 3 leads the reputation majority; Player 1 leads the canal majority"
    )
    assert text(MajoritiesChecked((-1, -1, -1))).text == "Majorities: nobody leads alone"


def test_every_event_type_has_its_own_description() -> None:
    described = set(Describer._describers)
    assert described == set(typing.get_args(Event))


# -- the board and the names ----------------------------------------------------------------


def test_the_board_has_the_town_hall_and_twelve_steps_four_guard_houses_and_forty_canal_spaces() -> None:
    kinds: dict[str, int] = {}
    for place in DATA.places:
        kinds[place.kind] = kinds.get(place.kind, 0) + 1
    assert kinds["reputation_step"] == 13 and kinds["guard_house"] == 4 and kinds["canal_space"] == 40
    assert kinds["threat_space"] == 15 and kinds["die"] == 5 and kinds["draw_pile"] == 3
    assert len(DATA.places) == 83
    assert PLACES["reputation.6"].values["points"] == 7 and PLACES["reputation.0"].name == "Town hall"


def test_canal_spaces_run_outward_from_the_seal_with_the_board_datas_colours_and_costs() -> None:
    assert set(PLACES["guard_house.2"].neighbours) == {"canal.2.left.1", "canal.2.right.1"}
    assert set(PLACES["canal.2.left.3"].neighbours) == {"canal.2.left.2", "canal.2.left.4"}
    assert PLACES["canal.2.right.5"].neighbours == ("canal.2.right.4",)
    house = RULES.board.guard_houses[3]
    for n in range(1, 6):
        assert PLACES[f"canal.3.right.{n}"].values["colour"] == house.right[n - 1]
        assert PLACES[f"canal.3.left.{n}"].values["cost"] == RULES.board.canal_costs[n - 1]
    assert PLACES["canal.0.left.1"].stand_in and PLACES["canal.0.left.1"].source


def test_the_engines_vocabularies_and_houses_have_names() -> None:
    known = names(4)
    assert known.resolves("card_action", "canal") and known.resolves("calamity", "brown")
    assert known.resolves("house_slot", 164) and known.resolves("task", "plague")
    assert known.resolves("majority", "people") and known.resolves("draw_pile", 1)
    assert not known.resolves("card_action", "dance")
    components = {(c.kind, c.id): c.name for c in DATA.components}
    assert (
        components[("calamity", "red")] == "Fire"
        and components[("canal_section", "0")] == "Left canal section"
    )
    assert components[("person", str(card("Prince")))] == "Prince"


def test_every_view_field_has_a_section() -> None:
    view = msgspec.json.decode(GAME.codec.encode_json(GAME.view(new_game(3), 0)))
    assert set(view) == set(PRESENTATION.view_sections)
    assert (
        PRESENTATION.view_sections["tasks"] == "engine" and PRESENTATION.view_sections["seats"] == "players"
    )


def _json(value: Any) -> Any:
    return msgspec.json.decode(GAME.codec.encode_json(value))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_game_is_presentable_at_every_player_count(players: int) -> None:
    for seed in (3, 11):
        assert presentation_faults(GAME, players, seed) == []


def test_every_person_effect_and_icon_a_data_file_may_name_has_a_text() -> None:
    """A replacement data file gets player-facing person texts for any effect the rules know."""
    from services.bruges import game_data as texts
    from services.bruges.catalog import EFFECT_ICONS

    assert set(texts.EFFECT_TEXT) == set(EFFECT_ICONS)
    icons = {icon for allowed in EFFECT_ICONS.values() for icon in allowed}
    assert icons - {"worker", "trigger"} <= set(texts.WHEN_TEXT)
