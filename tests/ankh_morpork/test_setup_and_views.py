"""Setup (SEED Preparar), hidden information (views, redacted events, resampling) and
rejections that change nothing."""

from __future__ import annotations

import msgspec
import pytest

from services.ankh_morpork import GAME
from services.ankh_morpork.model import (
    CardsDrawn,
    ChooseCard,
    ChoosePlayer,
    Frame,
    Options,
    PersonalitySwapped,
    PlayCard,
    PlayInterrupt,
    Scroll,
    StackSet,
    TakeMoney,
)
from services.ankh_morpork.rules import RULES
from services.kernel import GAME_OVER, NOT_YOUR_TURN, Rng
from tests.ankh_morpork.helpers import RED, YELLOW, play, put, reject, run, table

GREEN_IDS = {c.id for c in RULES.catalog.cards if c.deck == "green"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_places_one_minion_per_colour_in_the_shades_the_scours_and_dolly_sisters(players: int) -> None:
    state = GAME.setup(players, 3, Options())
    for area in range(1, 13):
        expected = 1 if area in (1, 5, 7) else 0
        assert state.minions[area - 1] == (expected,) * players
        assert state.trouble[area - 1] == bool(expected)
    assert state.money == (10,) * players and all(len(h) == 5 for h in state.hands)
    assert len(set(state.personalities)) == players
    assert len(state.events_deck) == 12 and state.stack == (Frame(kind="turn", player=state.current),)


def test_the_green_pile_is_dealt_from_on_top_of_the_brown_pile() -> None:
    state = GAME.setup(4, 5, Options())
    dealt = [c for h in state.hands for c in h]
    assert set(dealt) <= GREEN_IDS
    greens_left = 48 - 20
    assert set(state.deck[:greens_left]) <= GREEN_IDS and not set(state.deck[greens_left:]) & GREEN_IDS


def test_the_first_player_is_random() -> None:
    assert {GAME.setup(3, seed, Options()).current for seed in range(30)} == {0, 1, 2}


def test_a_view_shows_your_hand_and_personality_only() -> None:
    state = table(hands={RED: ["hex", "groat"]})
    mine = GAME.view(state, RED)
    assert (
        mine.seats[RED].hand == ("hex", "groat") and mine.seats[RED].personality == state.personalities[RED]
    )
    assert mine.seats[YELLOW].hand is None and mine.seats[YELLOW].personality is None
    spectator = GAME.view(state, None)
    assert all(s.hand is None and s.personality is None for s in spectator.seats)
    assert spectator.deck_size == len(state.deck) and spectator.events_left == 12


def test_personalities_are_revealed_when_the_game_ends() -> None:
    state = table(hands={RED: ["hex"]}, deck=["ruby"])
    state, _ = run(state, (RED, PlayCard("hex")), (RED, Scroll()))
    assert state.over and [s.personality for s in GAME.view(state, None).seats] == list(state.personalities)


def test_drawn_cards_are_blanked_for_everyone_but_the_drawer() -> None:
    event = CardsDrawn(RED, 2, ("hex", "groat"))
    assert GAME.redact_event(event, RED) == event
    assert GAME.redact_event(event, YELLOW) == CardsDrawn(RED, 2, ())
    assert GAME.redact_event(event, None) == CardsDrawn(RED, 2, ())
    swap = PersonalitySwapped(RED, "lord_rust", "lord_vetinari")
    assert GAME.redact_event(swap, YELLOW) == PersonalitySwapped(RED, "", "")


def test_stanleys_cards_are_seen_by_the_taker_only() -> None:
    state = table(hands={RED: ["stanley", "groat"], YELLOW: ["hex", "modo", "errol"]}, minions={1: {RED: 1}})
    state, events = run(state, (RED, PlayCard("stanley")), (RED, Scroll()), (RED, ChoosePlayer(YELLOW)))
    stack = [e for e in events if isinstance(e, StackSet)][-1]
    assert stack.stack[-1].cards
    assert not GAME.redact_event(stack, YELLOW).stack[-1].cards  # type: ignore[attr-defined]
    assert GAME.view(state, RED).pending[-1].cards and not GAME.view(state, None).pending[-1].cards
    _views_survive_resampling(state)


def test_cable_street_shows_the_inspected_hand_to_the_inspector_only() -> None:
    state = table(hands={RED: ["cable_street_particulars", "groat"], YELLOW: ["hex", "modo"]})
    state, _ = run(
        state, (RED, PlayCard("cable_street_particulars")), (RED, Scroll()), (RED, ChoosePlayer(YELLOW))
    )
    assert GAME.view(state, RED).shown_hand == ("hex", "modo")
    assert GAME.view(state, 2).shown_hand is None
    _views_survive_resampling(state)
    state, _ = play(state, RED, ChooseCard("hex"))
    assert GAME.view(state, RED).shown_hand is None


def _views_survive_resampling(state) -> None:  # type: ignore[no-untyped-def]
    codec = GAME.codec
    for viewer in range(state.players):
        wire = codec.encode_json(GAME.view(state, viewer))
        for k in range(4):
            other = RULES.resample_hidden(state, viewer, Rng.from_seed(k))
            assert codec.encode_json(GAME.view(other, viewer)) == wire
        assert state.rng.key.hex().encode() not in wire


def test_views_survive_resampling_at_the_start() -> None:
    _views_survive_resampling(GAME.setup(4, 11, Options()))


def test_another_seat_is_told_it_is_not_its_turn() -> None:
    state = table(hands={RED: ["hex"]})
    assert reject(state, YELLOW, PlayCard("hex")).code == NOT_YOUR_TURN


def test_a_card_you_do_not_hold_an_interrupt_or_the_wrong_step_is_refused_with_a_reason() -> None:
    state = table(hands={RED: ["hex", "gaspode"]})
    assert "play a card from your hand" in reject(state, RED, PlayCard("groat")).message
    reject(state, RED, PlayCard("gaspode"))
    reject(state, RED, PlayInterrupt("gaspode"))
    reject(state, RED, TakeMoney())
    reject(state, RED, PlayCard("no_such_card"))


def test_nothing_is_accepted_once_the_game_is_over() -> None:
    state = table(hands={RED: ["hex"]}, deck=["ruby"])
    state, _ = run(state, (RED, PlayCard("hex")), (RED, Scroll()))
    assert GAME.decide(state, RED, PlayCard("ruby")) == GAME.decide(state, YELLOW, TakeMoney())
    assert GAME.decide(state, RED, TakeMoney()).code == GAME_OVER  # type: ignore[union-attr]


def test_states_that_do_not_fit_the_game_are_refused() -> None:
    state = table()
    RULES.check_state(state)
    for bad in (
        put(state, money=(1, 2)),
        put(state, hands=(("nonsense",), (), ())),
        put(state, minions=state.minions[:5]),
        put(state, personalities=("x", "y", "z")),
        put(state, stack=(Frame(kind="bogus", player=0),)),
        put(state, stack=(Frame(kind="choose_area", player=0, mode="move_to", areas=(99,)),)),
        put(state, stack=(Frame(kind="card", player=0, card="no_such_card"),)),
        put(state, trolls=(-1,) * 12),
    ):
        with pytest.raises(ValueError):
            RULES.check_state(bad)


def test_states_and_events_round_trip_through_their_codecs() -> None:
    state = table(hands={RED: ["hex"]})
    state2, events = run(state, (RED, PlayCard("hex")), (RED, Scroll()))
    assert GAME.codec.decode_state(GAME.codec.encode_state(state2)) == state2
    for event in events:
        assert GAME.codec.decode_event(GAME.codec.encode_json(event)) == event
    assert msgspec.json.decode(GAME.codec.encode_json(GAME.view(state2, RED)))
