"""Interrupt cards are pending decisions of the player at stake, asked before the step resolves
(FS 6): one test per interrupt card, and the windows a forced self-removal still opens."""

from __future__ import annotations

from services.ankh_morpork.model import (
    Assassinate,
    CardFinished,
    ChooseArea,
    ChooseMinion,
    ChoosePlayer,
    EndTurn,
    Interrupted,
    PlaceMinion,
    PlayCard,
    PlayInterrupt,
    Scroll,
    Skip,
    TakeMoney,
    UseAbility,
)
from services.kernel import NOT_YOUR_TURN
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
    reject,
    run,
    table,
    top,
)

FILLER = ["groat", "dwarves", "ruby", "hex"]


def _assassination(victim_hand: list[str]) -> tuple:
    state = table(
        hands={RED: ["mr_pin_and_mr_tulip", *FILLER], YELLOW: victim_hand},
        minions={8: {YELLOW: 1, RED: 1}},
        trouble=[8],
    )
    state, _ = run(state, (RED, PlayCard("mr_pin_and_mr_tulip")), (RED, Assassinate(8, YELLOW)))
    return state


def test_the_victim_of_an_assassination_is_asked_before_it_resolves() -> None:
    state = _assassination(["susan", "gaspode", "hex"])
    assert top(state).kind == "interrupt" and state.stack[-1].player == YELLOW
    assert legal(state, YELLOW) == [PlayInterrupt("susan"), PlayInterrupt("gaspode"), Skip()]
    assert reject(state, RED, TakeMoney()).code == NOT_YOUR_TURN


def test_declining_lets_the_assassination_happen() -> None:
    state = _assassination(["susan", "hex"])
    state, _ = play(state, YELLOW, Skip())
    assert minions_at(state, 8, YELLOW) == 0 and state.hands[YELLOW] == ("susan", "hex")


def test_gaspode_stops_an_assassination() -> None:
    state = _assassination(["gaspode", "hex"])
    state, events = play(state, YELLOW, PlayInterrupt("gaspode"))
    assert minions_at(state, 8, YELLOW) == 1 and "gaspode" in state.discard
    assert of_type(events, Interrupted)[0].what == "remove"
    assert top(state).player == RED  # back to the $1 symbol


def test_susan_stops_an_assassination() -> None:
    state = _assassination(["susan"])
    state, _ = play(state, YELLOW, PlayInterrupt("susan"))
    assert minions_at(state, 8, YELLOW) == 1 and state.trouble[7]


def test_fresh_start_club_places_the_minion_in_a_different_area() -> None:
    state = _assassination(["fresh_start_club"])
    state, _ = play(state, YELLOW, PlayInterrupt("fresh_start_club"))
    assert minions_at(state, 8, YELLOW) == 0 and not state.trouble[7]
    assert top(state).player == YELLOW
    assert {a.area for a in legal(state, YELLOW)} == set(range(1, 13)) - {8}
    state, _ = play(state, YELLOW, PlaceMinion(11))
    assert minions_at(state, 11, YELLOW) == 1


def test_igor_works_like_fresh_start_club_even_against_a_random_event() -> None:
    state = table(
        hands={RED: ["rincewind", *FILLER], YELLOW: ["igor", "hex"]}, minions={5: {YELLOW: 1}, 1: {RED: 1}}
    )
    state = put(state, events_deck=("the_dragon", *[e for e in state.events_deck if e != "the_dragon"]))
    state = dice(state, 5)
    state, _ = play(state, RED, PlayCard("rincewind"))
    assert legal(state, YELLOW) == [PlayInterrupt("igor"), Skip()]
    state, _ = run(state, (YELLOW, PlayInterrupt("igor")), (YELLOW, PlaceMinion(12)))
    assert minions_at(state, 12, YELLOW) == 1 and minions_at(state, 5, YELLOW) == 0


def test_gaspode_does_not_answer_a_random_event() -> None:
    state = table(
        hands={RED: ["rincewind", *FILLER], YELLOW: ["gaspode", "hex"]}, minions={5: {YELLOW: 1}, 1: {RED: 1}}
    )
    state = put(state, events_deck=("the_dragon", *[e for e in state.events_deck if e != "the_dragon"]))
    state = dice(state, 5)
    state, _ = play(state, RED, PlayCard("rincewind"))
    assert minions_at(state, 5, YELLOW) == 0 and top(state).player == RED


def test_gaspode_stops_another_players_move() -> None:
    state = table(hands={RED: ["the_duckman", *FILLER], YELLOW: ["gaspode"]}, minions={5: {YELLOW: 1}})
    state, _ = run(
        state,
        (RED, PlayCard("the_duckman")),
        (RED, Scroll()),
        (RED, ChooseMinion(5, YELLOW)),
        (RED, ChooseArea(4)),
    )
    assert legal(state, YELLOW) == [PlayInterrupt("gaspode"), Skip()]
    state, _ = play(state, YELLOW, PlayInterrupt("gaspode"))
    assert minions_at(state, 5, YELLOW) == 1 and minions_at(state, 4, YELLOW) == 0


def test_wallace_sonky_protects_only_its_holder_from_scroll_text() -> None:
    state = table(hands={RED: ["thieves_guild", *FILLER], YELLOW: ["wallace_sonky"]}, money=[0, 5, 5])
    state, _ = run(state, (RED, PlayCard("thieves_guild")), (RED, Scroll()))
    assert top(state).player == YELLOW
    state, _ = play(state, YELLOW, PlayInterrupt("wallace_sonky"))
    assert state.money == (2, 5, 3)


def test_wallace_sonky_does_not_answer_a_symbol() -> None:
    state = _assassination(["wallace_sonky", "hex"])
    assert minions_at(state, 8, YELLOW) == 0  # no window: Sonky only answers scroll text


def test_an_interrupt_is_never_the_card_played_for_the_turn() -> None:
    state = table(hands={RED: ["gaspode", "susan"]})
    assert legal(state, RED) == [EndTurn()]
    reject(state, RED, PlayCard("gaspode"))


def test_a_forced_removal_of_your_own_minion_still_opens_your_window() -> None:
    """Here'n'Now rolls 1: you remove one of your own minions, and may play Susan."""
    state = table(hands={RED: ["here_n_now", "susan", *FILLER[:3]]}, minions={1: {RED: 1}, 2: {RED: 1}})
    state = dice(state, 1)
    state, _ = run(state, (RED, PlayCard("here_n_now")), (RED, Scroll()))
    assert legal(state, RED) == [ChooseMinion(1, RED), ChooseMinion(2, RED)]
    state, _ = play(state, RED, ChooseMinion(2, RED))
    assert legal(state, RED) == [PlayInterrupt("susan"), Skip()]
    state, _ = play(state, RED, PlayInterrupt("susan"))
    assert minions_at(state, 2, RED) == 1


def test_the_auditors_victims_may_answer_their_forced_removal() -> None:
    state = table(
        hands={RED: ["the_auditors", *FILLER], YELLOW: ["fresh_start_club"]},
        minions={5: {YELLOW: 1}, 7: {GREEN: 1}, 1: {RED: 1}},
    )
    state, _ = run(state, (RED, PlayCard("the_auditors")), (RED, Scroll()), (YELLOW, ChooseMinion(5, YELLOW)))
    assert legal(state, YELLOW) == [PlayInterrupt("fresh_start_club"), Skip()]
    state, _ = run(state, (YELLOW, PlayInterrupt("fresh_start_club")), (YELLOW, PlaceMinion(3)))
    state, _ = play(state, GREEN, ChooseMinion(7, GREEN))
    assert minions_at(state, 3, YELLOW) == 1 and minions_at(state, 7, GREEN) == 0


def test_doctor_mossy_lawn_ends_the_turn_and_the_card_goes_back_to_hand() -> None:
    state = table(
        hands={RED: ["moist_von_lipwig", "doctor_mossy_lawn", "hex"]}, minions={1: {RED: 1}}, money=[0, 0, 0]
    )
    state, _ = run(state, (RED, PlayCard("moist_von_lipwig")), (RED, PlaceMinion(2)), (RED, TakeMoney()))
    assert PlayInterrupt("doctor_mossy_lawn") in legal(state, RED)
    deck_top = state.deck[:3]
    state, events = play(state, RED, PlayInterrupt("doctor_mossy_lawn"))
    assert CardFinished(RED, "moist_von_lipwig", "hand") in events
    assert state.hands[RED] == ("hex", "moist_von_lipwig", *deck_top)
    assert "doctor_mossy_lawn" in state.discard and state.current == YELLOW


def test_doctor_mossy_lawn_needs_a_card_of_yours_on_the_table() -> None:
    state = table(hands={RED: ["doctor_mossy_lawn", "hex"]})
    assert PlayInterrupt("doctor_mossy_lawn") not in legal(state, RED)
    assert UseAbility(1) not in legal(state, RED)


def test_a_sonky_answer_to_a_chosen_player_leaves_the_others_alone() -> None:
    state = table(hands={RED: ["nobby_nobbs", *FILLER], YELLOW: ["wallace_sonky"]}, money=[0, 5, 5])
    state, _ = run(state, (RED, PlayCard("nobby_nobbs")), (RED, Scroll()), (RED, ChoosePlayer(GREEN)))
    assert state.money == (3, 5, 2)


def test_doctor_mossy_lawn_may_follow_the_cards_last_symbol() -> None:
    state = table(hands={RED: ["pink_pussy_cat_club", "doctor_mossy_lawn"]}, money=[0, 0, 0])
    state, _ = run(state, (RED, PlayCard("pink_pussy_cat_club")), (RED, TakeMoney()))
    assert legal(state, RED) == [PlayInterrupt("doctor_mossy_lawn"), Skip()]  # 'play another': none
    state, _ = play(state, RED, PlayInterrupt("doctor_mossy_lawn"))
    assert "pink_pussy_cat_club" in state.hands[RED] and state.money[RED] == 3 and state.current == YELLOW


def test_doctor_mossy_lawn_is_not_offered_off_turn() -> None:
    state = _assassination(["doctor_mossy_lawn", "hex"])
    assert minions_at(state, 8, YELLOW) == 0 and top(state).player == RED
