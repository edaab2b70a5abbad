"""Every worked example of the rulebook (SEED pp. 3-5) and the fact sheet (§9)."""

from __future__ import annotations

import msgspec

from services.rattus_cartus.model import (
    OVER,
    RESOLVE,
    SWORD,
    ChooseSupply,
    GiveCard,
    LookAtNun,
    NunLooked,
    State,
)
from services.rattus_cartus.rules import gold_awards, influence_awards, outcome
from tests.rattus_cartus.helpers import (
    KING,
    MONK,
    WITCH,
    act,
    card,
    decide,
    enter,
    entering,
    influence,
    scenario,
)

RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3
TENT = card("fortune_tellers_tent", 3, draw=2, look=1)
MONASTERY_1 = card("monastery", 1, draw=4)
MONASTERY_2 = card("monastery", 4, discard_rats=2)

GREEN_HAND = ("bourgeoisie:0", "bourgeoisie:1", "peasantry:2", "peasantry:3", "royalty:4", "gold")


def example_round() -> State:
    """Round 1 of a 4-player game: Tent, Monastery, Monastery; red starts, then yellow, green, blue."""
    return scenario(
        4,
        row=(TENT, MONASTERY_1, MONASTERY_2),
        start_player=RED,
        hands={
            RED: (MONK, KING, WITCH, WITCH, "peasantry:1"),
            YELLOW: (WITCH, WITCH, MONK, "chivalry:0"),
            GREEN: GREEN_HAND,
            BLUE: (SWORD, "church:2"),
        },
    )


def test_phase_b_each_player_chooses_one_revealed_cards_supply_action() -> None:
    state = example_round()
    deck = state.deck

    tent = act(state, RED, ChooseSupply(0))
    assert len(tent.hands[RED]) == 5 + 2
    assert tent.looks_owed[RED] == 1

    monastery_1 = act(state, YELLOW, ChooseSupply(1))
    assert monastery_1.hands[YELLOW] == tuple(sorted((WITCH, WITCH, MONK, "chivalry:0", *deck[:4])))

    monastery_2 = act(state, GREEN, ChooseSupply(2))
    assert monastery_2.rats[GREEN] == 10 - 2


def test_phase_b_several_players_may_choose_the_same_card() -> None:
    state = example_round()
    for seat in (RED, YELLOW, GREEN, BLUE):
        state = act(state, seat, ChooseSupply(2))
    assert state.rats == (8, 8, 8, 8)


def test_phases_c_and_d_of_the_rulebook_example() -> None:
    state = entering(example_round())
    state = enter(state, RED, 1, (MONK, KING, WITCH, WITCH))
    state = enter(state, YELLOW, 0, (WITCH, WITCH, MONK))
    state = enter(state, GREEN, 2, ())
    assert state.entries == ((YELLOW,), (RED,), (GREEN,))
    state = enter(state, BLUE, 2, (SWORD,))
    assert state.entries[2] == (GREEN, BLUE)  # blue on space 2 of the second Monastery

    # Tent: yellow alone, +3 Magic, +1 rat for the off-class Monk, premium: look at 2 Nun-row cards.
    assert state.phase == RESOLVE and state.resolving == 0
    assert influence(state, YELLOW, "magic") == 3
    assert state.rats[YELLOW] == 11
    assert state.looks_owed[YELLOW] == 2
    state = act(state, YELLOW, LookAtNun(0))
    events = decide(state, YELLOW, LookAtNun(3))
    assert NunLooked(YELLOW, 3, state.nun_row[3]) in events
    state = act(state, YELLOW, LookAtNun(3))
    assert state.nun_seen[YELLOW] == (0, 3)

    # Monastery 1: red alone, +4 Church, +3 rats (King, Witch, Witch), premium: discard 2 rats.
    assert influence(state, RED, "church") == 4
    assert state.rats[RED] == 10 + 3 - 2

    # Monastery 2: green played nothing, blue a Sword: no influence, no rats; green (0 Swords)
    # gives half her hand, rounded down, to blue (1 Sword), choosing the cards herself.
    assert influence(state, GREEN, "church") == 0 and influence(state, BLUE, "church") == 0
    assert state.resolving == 2
    assert [(g.giver, g.receiver, g.count) for g in state.gifts] == [(GREEN, BLUE, 3)]
    for given in ("gold", "royalty:4", "peasantry:3"):
        state = act(state, GREEN, GiveCard(given))
    assert state.hands[GREEN] == ("bourgeoisie:0", "bourgeoisie:1", "peasantry:2")
    assert state.hands[BLUE] == tuple(sorted(("church:2", "gold", "royalty:4", "peasantry:3")))

    # Both played 0 population cards and Jokers; green entered first: premium (discard 2 rats),
    # blue standard (discard 1 rat).
    assert state.rats[GREEN] == 8
    assert state.rats[BLUE] == 9
    assert state.round == 2  # the round is over


def test_gold_example_tie_for_first_splits_nine_rounded_down() -> None:
    assert gold_awards([3, 3, 1], two_players=False) == [4, 4, 0]


def test_gold_example_tie_for_second_splits_three_rounded_down() -> None:
    assert gold_awards([4, 2, 2], two_players=False) == [6, 1, 1]


def test_gold_example_two_players_have_no_second_place() -> None:
    assert gold_awards([3, 1], two_players=True) == [6, 0]


def test_influence_example_a_lone_player_on_a_track_scores_ten_and_nobody_else_scores() -> None:
    state = scenario(4, phase=OVER)
    k = 4  # magic
    state = msgspec.structs.replace(
        state,
        influence=tuple((0, 7, 0, 0) if i == k else row for i, row in enumerate(state.influence)),
    )
    assert influence_awards(state, "magic") == [0, 10, 0, 0]


def test_plague_example_ten_nuns_let_ten_rats_survive_and_kill_eleven() -> None:
    row = ("church:4", "magic:0", "royalty:2", "peasantry:1", "chivalry:3")  # 4+0+2+1+3 = 10 nuns
    state = scenario(2, phase=OVER, nun_row=row, rats=(10, 11))
    result = outcome(state)
    assert result is not None
    assert [r.eliminated for r in result.results] == [False, True]
    assert [r.facts for r in result.results] == [{"rats": 10, "nuns": 10}, {"rats": 11, "nuns": 10}]
    assert result.winners == (0,)
