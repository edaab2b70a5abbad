"""What a client shows for Ys without knowing the engine (services/ys/present.py): decisions in
steps, events as log lines, the board's named places, and every id resolving (the conformance
check of tests/conformance/test_presentation.py, here over the variants too)."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from services.gamedata import game_data
from services.kernel.present import (
    Decision,
    Names,
    Presentation,
    decision_faults,
)
from services.ys import GAME
from services.ys.describe import _DESCRIBERS
from services.ys.model import (
    BID,
    PLACE,
    THRONE,
    BidPlaced,
    BrokerPlaced,
    BrokersReturned,
    CharacterWon,
    Event,
    NeighbourhoodCounted,
    Options,
    Pass,
    PlaceBroker,
    PlacementFinished,
    PlaceNeutral,
    PlayCharacter,
    State,
)
from services.ys.rules import VARIANTS
from services.ys.tables import open_places
from tests.conformance.presentation import presentation_faults
from tests.ys.helpers import new_game, play, put


def _presentation() -> Presentation:
    assert GAME.presentation is not None, "Ys has a presentation"
    return GAME.presentation


PRESENTATION = _presentation()


def decision_for(state: State, seat: int) -> tuple[Decision, list[Any]]:
    legal = list(GAME.legal_actions(state, seat))
    return PRESENTATION.decision(state, seat, legal), legal


def follow(decision: Decision, *labels: str) -> int:
    """The action index reached by answering each step with these labels, in order."""
    options = list(decision.options)
    for depth, label in enumerate(labels):
        offered = {o.choices[depth].label for o in options if len(o.choices) > depth}
        assert label in offered, f"{label!r} not among {sorted(offered)}"
        options = [o for o in options if len(o.choices) > depth and o.choices[depth].label == label]
    assert len(options) == 1, f"{len(options)} options left after {labels}"
    assert len(options[0].choices) == len(labels), "the path goes on"
    return options[0].action


def to_placement(players: int = 4, options: Options | None = None) -> State:
    """A real game played (first legal action each time) up to the first placement decision."""
    state = new_game(players, options)
    while not (state.phase == PLACE and GAME.active_players(state)):
        seat = GAME.active_players(state)[0]
        state, _ = play(state, seat, GAME.legal_actions(state, seat)[0])  # bids 0 and 0
    return state


# -- decisions --------------------------------------------------------------------------------


def test_placing_a_broker_asks_for_the_broker_then_the_face_then_the_place() -> None:
    state = to_placement()
    seat = GAME.active_players(state)[0]
    decision, legal = decision_for(state, seat)
    assert "which one, then where" in decision.prompt
    assert not decision.simultaneous
    first = decision.options[0].choices
    assert [c.step for c in first] == ["Which broker?", "Face up or face down?", "Where?"]
    assert {o.choices[0].label for o in decision.options} == {f"Broker {v}" for v in set(state.screens[seat])}
    index = follow(decision, "Broker 3", "face up", "Neighbourhood 1 palace")
    assert legal[index] == PlaceBroker(3, "n1.palace", True)
    where = decision.options[index].choices[-1]
    assert (where.kind, where.id) == ("place", "n1.palace")
    market = follow(decision, "Broker 1", "face down", "Market row 2, blue column")
    assert legal[market] == PlaceBroker(1, "m2.blue", False)


def test_after_the_face_up_broker_only_the_place_and_value_are_asked() -> None:
    state = to_placement()
    seat = GAME.active_players(state)[0]
    state, _ = play(state, seat, PlaceBroker(4, "n2.port", True))
    decision, legal = decision_for(state, seat)
    steps = {tuple(c.step for c in o.choices) for o in decision.options}
    assert steps == {("Which broker?", "Where?")}
    assert legal[follow(decision, "Broker 1", "Neighbourhood 2 port")] == PlaceBroker(1, "n2.port", False)


def test_a_card_in_hand_makes_the_kind_of_move_the_first_step_and_the_queen_asks_for_an_area() -> None:
    state = to_placement()
    seat = GAME.active_players(state)[0]
    state = put(state, hands=tuple(("queen",) if p == seat else h for p, h in enumerate(state.hands)))
    decision, legal = decision_for(state, seat)
    assert {o.choices[0].label for o in decision.options} == {"Place one of your brokers", "Play the Queen"}
    queen = follow(decision, "Play the Queen", "Neighbourhood 2 palace")
    assert legal[queen] == PlayCharacter("queen", place="n2.palace")
    card = decision.options[queen].choices[0]
    assert (card.kind, card.id) == ("character", "queen")
    placed = follow(decision, "Place one of your brokers", "Broker 3", "face down", "Neighbourhood 4 port")
    assert legal[placed] == PlaceBroker(3, "n4.port", False)


def test_two_players_place_the_neutral_broker_as_its_own_kind_of_move() -> None:
    state = to_placement(2)
    seat = GAME.active_players(state)[0]
    decision, legal = decision_for(state, seat)
    assert "Place a neutral broker (face down)" in {o.choices[0].label for o in decision.options}
    index = follow(decision, "Place a neutral broker (face down)", "Neighbourhood 3 commercial area")
    assert legal[index] == PlaceNeutral("n3.commercial")


def test_finishing_a_turn_is_its_own_option_not_the_start_of_another() -> None:
    state = to_placement()
    seat = GAME.active_players(state)[0]
    state = put(state, hands=tuple(("herald",) if p == seat else h for p, h in enumerate(state.hands)))
    state, _ = play(state, seat, PlaceBroker(4, "n2.port", True))
    state, _ = play(state, seat, PlaceBroker(1, "n3.port", False))
    decision, legal = decision_for(state, seat)
    assert decision.key == "after_placing"
    assert legal[follow(decision, "Finish your turn")] == Pass()
    herald = follow(
        decision,
        "Play the Herald",
        "Your 4, face up, in the Neighbourhood 2 port",
        "Market row 1, red column",
    )
    assert legal[herald] == PlayCharacter("herald", brokers=(len(state.board) - 2,), place="m1.red")
    assert not decision_faults(decision, seat, len(legal), Names(game_data(GAME), 4))


def test_the_bid_is_a_simultaneous_secret_decision_of_two_brokers() -> None:
    state = new_game(3)
    assert state.phase == BID
    decision, legal = decision_for(state, 1)
    assert decision.simultaneous and "secret" in decision.prompt
    assert legal[follow(decision, "1 and 3 (total 4)")].values == (1, 3)


def test_the_throne_is_a_simultaneous_secret_decision() -> None:
    state = new_game(3, Options(kings_favor=True))
    state = put(state, phase=THRONE, throne_pick=(-1, -1, -1), front=((0, 2, 3), (1, 1, 4), (0, 0, 2)))
    decision, legal = decision_for(state, 0)
    assert decision.simultaneous and decision.key == "throne"
    assert legal[follow(decision, "Broker 3")].value == 3


def test_choosing_an_order_card_is_not_simultaneous() -> None:
    state = new_game(3)
    for seat in range(3):
        state, _ = play(state, seat, GAME.legal_actions(state, seat)[0])
    seat = GAME.active_players(state)[0]
    decision, legal = decision_for(state, seat)
    assert decision.key == "order" and not decision.simultaneous
    chosen = follow(decision, "Order card 1")
    assert legal[chosen].card == 1
    assert (decision.options[chosen].choices[0].kind, decision.options[chosen].choices[0].id) == (
        "order_card",
        "1",
    )


# -- descriptions -----------------------------------------------------------------------------


def test_every_event_type_has_a_description() -> None:
    assert set(get_args(Event)) == set(_DESCRIBERS)


def test_a_face_up_broker_reads_with_its_value_and_place() -> None:
    event = BrokerPlaced(0, "n1.palace", True, 3)
    d = PRESENTATION.describe(event, 1)
    assert d.text == "Player 1 places a broker (value 3) face up in the Neighbourhood 1 palace"
    assert d.key == "broker_placed" and not d.internal
    assert {(a.name, a.kind, a.id) for a in d.args} == {
        ("player", "seat", "0"),
        ("value", "broker", "3"),
        ("place", "place", "n1.palace"),
    }


def test_a_redacted_face_down_broker_or_bid_describes_nothing_hidden() -> None:
    event = BrokerPlaced(2, "m2.red", False, 4, gold=1)
    shown = GAME.redact_event(event, 0)
    d = PRESENTATION.describe(shown, 0)
    assert d.text == "Player 3 places a face-down broker in the Market row 2, red column (+1 gold)"
    assert "4" not in d.text and all(a.name != "value" for a in d.args)
    own = PRESENTATION.describe(GAME.redact_event(event, 2), 2)
    assert "value 4" in own.text
    bid = PRESENTATION.describe(GAME.redact_event(BidPlaced(1, (0, 4)), 0), 0)
    assert bid.text == "Player 2 places a secret bid"


def test_bookkeeping_events_are_internal_and_counting_is_not() -> None:
    assert PRESENTATION.describe(PlacementFinished(1), None).internal
    assert PRESENTATION.describe(BrokersReturned("n2"), None).internal
    counted = PRESENTATION.describe(NeighbourhoodCounted(2, (), (1, 0), 1, 0, -1, 3), None)
    assert not counted.internal
    assert counted.text == (
        "Neighbourhood 2 is counted: port Player 2, commercial area Player 1 (+3 gold), palace nobody"
    )


def test_the_neutral_player_trading_a_card_for_a_gem_is_named_so() -> None:
    d = PRESENTATION.describe(CharacterWon(1, 2, "queen", neutral_gem="red"), 0)
    assert d.text == "The neutral player wins the Queen in Neighbourhood 1, discards it and takes a red gem"
    assert ("party", "2") in {(a.kind, a.id) for a in d.args}


# -- the board and the data -------------------------------------------------------------------


def test_the_board_has_forty_two_places_every_engine_place_among_them() -> None:
    places = {p.id: p for p in game_data(GAME).places}
    assert len(places) == 42
    for players, options in ((4, None), (3, Options(three_player_neighbourhoods=4)), (2, None)):
        assert set(open_places(new_game(players, options))) <= set(places)
    assert {"n1", "n4", "market", "throne", "m3", "scale.red"} <= set(places)
    assert places["n2.palace"].name == "Neighbourhood 2 palace"
    assert places["m1.yellow"].name == "Market row 1, yellow column"


def test_the_three_areas_of_a_neighbourhood_are_neighbours_and_no_other_places_are() -> None:
    places = {p.id: p for p in game_data(GAME).places}
    assert set(places["n1.port"].neighbours) == {"n1.commercial", "n1.palace"}
    assert set(places["n3.palace"].neighbours) == {"n3.port", "n3.commercial"}
    assert not places["m2.blue"].neighbours and not places["n1"].neighbours


def test_every_character_ship_and_gem_has_a_name() -> None:
    document = game_data(GAME)
    named = {(c.kind, c.id): c.name for c in document.components}
    assert named[("character", "queen")] == "Queen"
    assert named[("ship", "s01")] == "Ship 01"
    assert named[("gem", "white")] == "white gem"
    assert named[("order_card", "3")] == "Order card 3"
    for card in document.catalog.characters:
        assert ("character", card.id) in named


# -- conformance over the variants --------------------------------------------------------------


CASES = [
    (name, players) for name in ("default", *VARIANTS, "neutral_chosen") for players in GAME.player_counts
]
_OPTIONS = {"default": None, "neutral_chosen": Options(neutral_chosen=True), **VARIANTS}


@pytest.mark.parametrize(("variant", "players"), CASES, ids=[f"{v}-{n}p" for v, n in CASES])
def test_every_id_has_a_name_and_every_decision_maps_onto_the_legal_actions(
    variant: str, players: int
) -> None:
    faults = presentation_faults(GAME, players, 3, _OPTIONS[variant])
    assert not faults, faults[:10]


def test_every_character_effect_and_window_a_data_file_may_name_has_a_text() -> None:
    """A replacement data file gets player-facing card texts for any effect the rules know."""
    from services.ys import game_data as texts
    from services.ys.model import EFFECTS, WINDOWS

    assert set(texts.EFFECT_TEXT) == set(EFFECTS)
    assert set(texts.WINDOW_WHEN) == set(WINDOWS)
