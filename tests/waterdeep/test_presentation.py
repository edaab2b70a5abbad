"""What a client shows a person (services/waterdeep/present.py): decisions as questions with named
answers that lead to the intended legal action, events as log lines, the board's places and the
ids of the JSON resolving to names."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.gamedata import game_data
from services.kernel.present import Names, decision_faults, description_faults
from services.waterdeep import GAME
from services.waterdeep.model import (
    AgentPlaced,
    Choose,
    CompleteQuest,
    DecisionDone,
    EndTurn,
    Gained,
    IntrigueDrawn,
    PlaceAgent,
    QuestCompleted,
)
from services.waterdeep.present import make_presentation
from services.waterdeep.rules import RULES
from services.waterdeep.views import redact_event
from tests.waterdeep.helpers import (
    choose,
    give_card,
    place,
    put,
    seat,
    table,
    with_building,
)

PRESENTATION = make_presentation(RULES.catalog)  # the one GAME carries, typed
DATA = game_data(GAME)


def names(players: int = 2) -> Names:
    return Names(DATA, players)


def asked(state: Any, p: int) -> tuple[Any, list[Any]]:
    legal = list(GAME.legal_actions(state, p))
    decision = PRESENTATION.decision(state, p, legal)
    assert decision_faults(decision, p, len(legal), names(state.players)) == []
    return decision, legal


def follow(decision: Any, legal: list[Any], *labels: str) -> Any:
    """The legal action reached by answering each step with these labels, as a client does."""
    options = list(decision.options)
    for depth, label in enumerate(labels):
        options = [o for o in options if len(o.choices) > depth and o.choices[depth].label == label]
        assert options, f"no option {labels[: depth + 1]}"
    assert len(options) == 1, f"{labels} leaves {len(options)} options"
    return legal[options[0].action]


def paths(decision: Any) -> list[tuple[str, ...]]:
    return [tuple(c.label for c in o.choices) for o in decision.options]


# -- decisions ------------------------------------------------------------------------------


def test_assigning_an_agent_asks_for_the_building_then_the_space_of_cliffwatch_inn() -> None:
    state = with_building(table(), "the_golden_horn", owner=1)
    decision, legal = asked(state, 0)
    assert decision.prompt == "Assign an agent: choose a building to send it to"
    assert not decision.simultaneous
    steps = {c.step for o in decision.options for c in o.choices[:1]}
    assert steps == {"Which building?"}
    firsts = {o.choices[0].label for o in decision.options}
    assert {"Cliffwatch Inn", "Field of Triumph", "The Golden Horn"} <= firsts
    assert "Builder's Hall" not in firsts  # no Gold for a tile: not a legal space
    inn = [o for o in decision.options if o.choices[0].label == "Cliffwatch Inn"]
    assert [o.choices[1].label for o in inn] == [
        "Space 1: take a face-up quest from Cliffwatch Inn; take 2 Gold",
        "Space 2: take a face-up quest from Cliffwatch Inn; draw 1 Intrigue card",
        "Space 3: discard the quests at Cliffwatch Inn and deal 4 new ones; take a face-up quest from"
        " Cliffwatch Inn",
    ]
    assert (inn[1].choices[1].kind, inn[1].choices[1].id) == ("place", "cliffwatch_inn_2")
    golden = next(o for o in decision.options if o.choices[0].label == "The Golden Horn").choices[0]
    assert (golden.kind, golden.id) == ("building", "the_golden_horn")
    assert follow(decision, legal, "Cliffwatch Inn", inn[1].choices[1].label) == PlaceAgent(
        "cliffwatch_inn_2"
    )
    assert follow(decision, legal, "Field of Triumph") == PlaceAgent("field_of_triumph")


def test_the_building_then_asks_its_own_question_in_the_words_of_the_building() -> None:
    state = place(
        put(table(), hall=("house_of_wonder", "the_golden_horn", "the_zoarstar")), 0, "cliffwatch_inn_1"
    )
    decision, legal = asked(state, 0)
    assert decision.key == "inn_quest"
    assert decision.prompt == "Cliffwatch Inn (space 1): take a face-up quest from Cliffwatch Inn"
    assert [c.step for o in decision.options for c in o.choices] == ["Which quest?"] * 4
    assert follow(decision, legal, "Raid Orc Stronghold") == Choose("raid_orc_stronghold")


def test_completing_a_quest_asks_first_whether_to_complete_one_then_which() -> None:
    state = seat(table(), 0, quests=("raid_orc_stronghold",), cubes=(0, 4, 2, 0))
    state = place(state, 0, "aurora_realms_shop")
    decision, legal = asked(state, 0)
    assert decision.prompt == "Complete one quest, or end your turn"
    assert sorted(paths(decision)) == [
        ("Complete a quest", "Raid Orc Stronghold"),
        ("End the turn",),
    ]
    assert follow(decision, legal, "Complete a quest", "Raid Orc Stronghold") == CompleteQuest(
        "raid_orc_stronghold"
    )
    assert follow(decision, legal, "End the turn") == EndTurn()


def test_an_intrigue_card_forcing_a_choice_on_opponents_names_who_played_it_and_is_simultaneous() -> None:
    state = table(players=3)
    state, card = give_card(state, 0, "call_for_adventurers")
    state = choose(place(state, 0, "waterdeep_harbor_1"), 0, card)
    for _ in range(2):  # the player's own two adventurers first
        decision, legal = asked(state, 0)
        assert decision.prompt.startswith("Call for Adventurers: take")
        assert not decision.simultaneous
        state = choose(state, 0, "wizard")
    for p in (1, 2):
        decision, legal = asked(state, p)
        assert decision.simultaneous
        assert decision.prompt == (
            "Player 1's Call for Adventurers: take 1 adventurer (of any type), one at a time"
        )
        assert sorted(paths(decision)) == [("Cleric",), ("Fighter",), ("Rogue",), ("Wizard",)]
        choice = decision.options[0].choices[0]
        assert (choice.step, choice.kind) == ("Which adventurer?", "resource")
        assert follow(decision, legal, "Rogue") == Choose("rogue")


def test_free_drinks_asks_for_the_opponent_then_the_adventurer() -> None:
    state = seat(seat(table(players=3), 1, cubes=(0, 0, 1, 0)), 2, cubes=(1, 0, 1, 0))
    state, card = give_card(state, 0, "free_drinks")
    state = choose(place(state, 0, "waterdeep_harbor_1"), 0, card)
    decision, legal = asked(state, 0)
    assert decision.key == "steal"
    assert sorted(paths(decision)) == [("Player 2", "Rogue"), ("Player 3", "Cleric"), ("Player 3", "Rogue")]
    first = decision.options[0].choices[0]
    assert (first.step, first.kind, first.id) == ("From which opponent?", "seat", "1")
    assert follow(decision, legal, "Player 3", "Cleric") == Choose("2:cleric")


def test_an_owners_benefit_is_the_owners_decision_naming_the_building_and_the_visitor() -> None:
    state = with_building(table(), "fetlock_court", owner=1)
    state = place(state, 0, "fetlock_court")
    decision, legal = asked(state, 1)
    assert decision.prompt.startswith("Owner of Fetlock Court (assigned by Player 1): take 1 adventurer")
    assert sorted(paths(decision)) == [("Fighter",), ("Wizard",)]


def test_two_copies_of_a_card_in_hand_get_distinct_labels() -> None:
    state = table()
    state, first = give_card(state, 0, "ambush")
    state, second = give_card(state, 0, "ambush")
    state = place(state, 0, "waterdeep_harbor_1")
    decision, legal = asked(state, 0)
    assert sorted(paths(decision)) == [("Ambush",), ("Ambush (copy 2)",)]
    assert {o.choices[0].id for o in decision.options} == {first, second}


# -- descriptions ---------------------------------------------------------------------------


def test_placing_an_agent_reads_as_a_log_line_with_the_player_and_the_building() -> None:
    d = PRESENTATION.describe(AgentPlaced(1, "the_golden_horn"), None)
    assert d.text == "Player 2 assigns an agent to The Golden Horn"
    assert d.key == "agent_placed"
    assert [(a.name, a.kind, a.id) for a in d.args] == [
        ("player", "seat", "1"),
        ("space", "building", "the_golden_horn"),
    ]
    assert not d.internal
    assert description_faults(d, names()) == []


def test_gains_and_payments_name_what_and_why() -> None:
    paid = PRESENTATION.describe(Gained(0, (0, 0, 0, 0, -2, 0), "house_of_wonder"), 0)
    assert paid.text == "Player 1 pays 2 Gold (House of Wonder)"
    spent = PRESENTATION.describe(Gained(0, (0, -4, -2, 0, 0, 0), "quest:raid_orc_stronghold"), 0)
    assert spent.text == "Player 1 spends 4 Fighters and 2 Rogues (Raid Orc Stronghold)"
    assert spent.args[-1].kind == "quest"
    owner = PRESENTATION.describe(Gained(1, (0, 0, 0, 0, 2, 0), "owner:the_golden_horn"), None)
    assert owner.text == "Player 2 gains 2 Gold (The Golden Horn)"
    done = PRESENTATION.describe(QuestCompleted(0, "raid_orc_stronghold", False, 8), None)
    assert done.text == "Player 1 completes Raid Orc Stronghold for 8 VP"
    for d in (paid, spent, owner, done):
        assert description_faults(d, names()) == []


def test_engine_bookkeeping_is_marked_internal() -> None:
    assert PRESENTATION.describe(DecisionDone(3), None).internal
    assert not PRESENTATION.describe(AgentPlaced(0, "field_of_triumph"), None).internal


def test_a_redacted_intrigue_draw_names_no_card() -> None:
    event = IntrigueDrawn(0, "ambush.1")
    own = PRESENTATION.describe(redact_event(event, 0), 0)
    assert own.text == "Player 1 draws Ambush"
    for viewer in (1, None):
        other = PRESENTATION.describe(redact_event(event, viewer), viewer)
        assert other.text == "Player 1 draws an intrigue card"
        assert "ambush" not in msgspec.json.encode(other).decode().lower()
        assert description_faults(other, names()) == []


# -- board and ids ----------------------------------------------------------------------------


def test_the_board_has_its_spaces_hall_inn_lots_decks_round_track_and_taverns() -> None:
    places = {p.id: p for p in DATA.places}
    kinds: dict[str, int] = {}
    for p in DATA.places:
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
    assert kinds == {
        "round_space": 8,
        "basic_building": 2,
        "action_space": 13,
        "inn_slot": 4,
        "hall_slot": 3,
        "building_lot": 10,
        "deck": 3,
        "discard_pile": 2,
        "quest_row": 1,
        "supply": 1,
        "tavern": 5,
    }
    assert len(places) == 52
    assert places["waterdeep_harbor_2"].group == "waterdeep_harbor"
    assert places["round.5"].neighbours == ("round.4", "round.6")
    assert places["round.1"].neighbours == ("round.2",)
    assert places["castle_waterdeep"].neighbours == ()  # adjacency plays no part elsewhere
    spots = {(round(p.x, 3), round(p.y, 3)) for p in DATA.places}
    assert len(spots) == len(places), "no two places drawn on the same spot"


@pytest.mark.parametrize("copy", ["ambush.2", "fend_off_bandits.1", ""])
def test_every_intrigue_copy_id_the_engine_uses_has_a_name(copy: str) -> None:
    assert names().resolves("intrigue_copy", copy)


def test_a_mandatory_quest_given_to_a_player_resolves_as_a_quest_of_that_name() -> None:
    found = {(c.kind, c.id): c.name for c in DATA.components}
    assert found[("quest", "fend_off_bandits.1")] == "Fend Off Bandits"
    assert found[("space", "the_zoarstar")] == "The Zoarstar"
    assert found[("hall_position", "2")] == "Builder's Hall, tile 3"


def test_the_pending_stack_is_engine_state_and_seats_are_the_players_section() -> None:
    sections = PRESENTATION.view_sections
    assert sections["pending"] == "engine"
    assert sections["seats"] == "players"
    assert sections["inn"] == "board"


def test_every_effect_primitive_a_data_file_may_name_has_a_text() -> None:
    """A replacement data file gets player-facing card texts for any primitive the rules know."""
    from services.waterdeep import game_data as texts
    from services.waterdeep.catalog import OPS

    assert set(texts.OP_TEXT) == set(OPS)
