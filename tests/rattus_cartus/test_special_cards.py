"""Sword, Flute, Pass and Gold cards."""

from __future__ import annotations

import msgspec

from services.rattus_cartus.model import (
    FLUTE,
    GOLD,
    OVER,
    PASS,
    SWORD,
    ChooseVictim,
    EnterBuilding,
    GiveCard,
    PlayCard,
    PlayPass,
    State,
)
from services.rattus_cartus.rules import active_players, legal_actions, outcome
from tests.rattus_cartus.helpers import (
    MERCHANT,
    MONK,
    WITCH,
    act,
    enter,
    entering,
    rejected,
    scenario,
    supply_of,
)

FILLER = ("bourgeoisie:0", "bourgeoisie:1", "bourgeoisie:2", "bourgeoisie:3", "bourgeoisie:4")


def three_in_the_monastery(played: dict[int, tuple[str, ...]], hands: dict[int, tuple[str, ...]]) -> State:
    """3 players all enter the Monastery (seat 0 first) and play the given cards."""
    full_hands = {seat: (*played.get(seat, ()), *hands.get(seat, ())) for seat in range(3)}
    state = entering(scenario(3, row=("monastery", "palace"), hands=full_hands))
    for seat in range(3):
        state = enter(state, seat, 0, played.get(seat, ()))
    return state


# -- Sword ----------------------------------------------------------------------------------------


def test_fewest_swords_gives_half_their_hand_rounded_down_to_the_most_swords() -> None:
    state = three_in_the_monastery({0: (SWORD,), 2: (SWORD,)}, {1: FILLER})
    # Seat 1 (0 Swords) owes 5 // 2 = 2 cards to seat 0 (tied for most with seat 2 but entered first).
    assert [(g.giver, g.receiver, g.count) for g in state.gifts] == [(1, 0, 2)]
    assert active_players(state) == (1,)
    state = act(state, 1, GiveCard("bourgeoisie:4"))
    state = act(state, 1, GiveCard("bourgeoisie:0"))
    assert state.hands[0] == ("bourgeoisie:0", "bourgeoisie:4")
    assert len(state.hands[1]) == 3


def test_hand_size_for_the_sword_is_counted_after_the_played_cards_left_the_hand() -> None:
    state = three_in_the_monastery({0: (SWORD, SWORD), 1: (MONK, MONK, MONK), 2: (SWORD,)}, {1: FILLER[:3]})
    # Seat 1 keeps 3 cards after playing 3: owes 1.
    assert [(g.giver, g.count) for g in state.gifts] == [(1, 1)]


def test_sword_winner_chooses_which_tied_loser_gives() -> None:
    state = three_in_the_monastery({2: (SWORD,)}, {0: FILLER[:4], 1: FILLER})
    assert active_players(state) == (2,)
    assert legal_actions(state, 2) == [ChooseVictim(0), ChooseVictim(1)]
    rejected(state, 2, ChooseVictim(2))
    state = act(state, 2, ChooseVictim(1))
    assert [(g.giver, g.receiver, g.count) for g in state.gifts] == [(1, 2, 2)]


def test_equal_swords_do_nothing() -> None:
    state = three_in_the_monastery({0: (SWORD,), 1: (SWORD,), 2: (SWORD,)}, {0: FILLER, 1: FILLER, 2: FILLER})
    assert state.gifts == () and state.round == 2
    assert [len(h) for h in state.hands] == [5, 5, 5]


def test_a_player_alone_in_a_building_triggers_no_sword() -> None:
    state = entering(scenario(2, row=("monastery", "palace"), hands={0: (SWORD, *FILLER), 1: FILLER}))
    state = enter(state, 0, 0, (SWORD,))
    state = enter(state, 1, 1)
    assert state.gifts == () and state.round == 2
    assert len(state.hands[1]) == 5


def test_a_sword_duel_loser_with_one_card_gives_nothing() -> None:
    state = three_in_the_monastery({0: (SWORD,), 1: (SWORD,)}, {2: (MONK,)})
    assert state.gifts == ()
    assert state.hands[2] == (MONK,)


def test_swords_return_to_their_supply_after_the_building_resolves() -> None:
    state = three_in_the_monastery({0: (SWORD,), 1: (SWORD,)}, {})
    assert state.round == 2
    assert supply_of(state, SWORD) == 12 + 2  # the Castle's 12, plus the two played


# -- Flute ------------------------------------------------------------------------------------


def test_fewest_flutes_receives_a_rat_from_the_most_flutes() -> None:
    state = three_in_the_monastery({0: (FLUTE, FLUTE), 1: (FLUTE,), 2: ()}, {})
    # Monastery actions also discard rats: premium (seat 0) 2, the others 1.
    assert state.rats == (10 - 1 - 2, 10 - 1, 10 + 1 - 1)


def test_flute_winner_chooses_which_tied_loser_receives_the_rat() -> None:
    state = three_in_the_monastery({1: (FLUTE,)}, {})
    assert active_players(state) == (1,)
    state = act(state, 1, ChooseVictim(2))
    assert state.rats == (10 - 2, 10 - 1 - 1, 10 + 1 - 1)


def test_a_flute_winner_without_rats_still_hands_the_loser_a_rat_from_the_supply() -> None:
    state = entering(scenario(2, row=("palace", "farm"), hands={0: (FLUTE,), 1: ()}, rats=(0, 3)))
    state = enter(state, 0, 0, (FLUTE,))
    state = enter(state, 1, 0)
    assert state.rats == (0, 4)


def test_sword_is_settled_before_flute_in_the_same_building() -> None:
    state = three_in_the_monastery({0: (SWORD,), 1: (FLUTE,)}, {0: FILLER, 1: FILLER, 2: FILLER})
    # Sword: seats 1 and 2 tie for fewest, seat 0 chooses first; the Flute choice (seat 1) waits.
    assert active_players(state) == (0,)
    state = act(state, 0, ChooseVictim(2))
    assert active_players(state) == (2,)
    state = act(state, 2, GiveCard(FILLER[0]))
    state = act(state, 2, GiveCard(FILLER[1]))
    assert active_players(state) == (1,)
    assert legal_actions(state, 1) == [ChooseVictim(0), ChooseVictim(2)]


# -- Pass --------------------------------------------------------------------------------------


def test_a_pass_lets_everyone_else_enter_first_then_it_is_your_turn_again() -> None:
    state = entering(scenario(3, row=("monastery", "palace"), hands={0: (PASS, MONK)}))
    assert state.enter_queue == (0, 1, 2)
    state = act(state, 0, PlayPass())
    assert state.enter_queue == (1, 2, 0)
    assert PASS not in state.hands[0]
    state = enter(state, 1, 0)
    assert active_players(state) == (2,)
    state = enter(state, 2, 0)
    assert active_players(state) == (0,)
    state = enter(state, 0, 0, (MONK,))
    assert state.round == 2  # resolved; seat 0 entered third but played the most cards
    assert state.vp_tokens == (0, 0, 0)  # (the Monastery gives no tokens)


def test_a_player_may_pass_again_when_the_turn_comes_back() -> None:
    state = entering(scenario(3, row=("monastery", "palace"), hands={0: (PASS, PASS), 1: (PASS,)}))
    state = act(state, 0, PlayPass())
    state = act(state, 1, PlayPass())
    assert state.enter_queue == (2, 0, 1)
    state = enter(state, 2, 1)
    state = act(state, 0, PlayPass())
    assert state.enter_queue == (1, 0)


def test_used_passes_go_back_to_their_supply() -> None:
    state = entering(scenario(3, row=("office", "palace"), hands={0: (PASS,)}))
    before = supply_of(state, PASS)
    state = act(state, 0, PlayPass())
    assert supply_of(state, PASS) == before + 1


def test_a_pass_is_only_played_at_the_start_of_your_turn_and_only_if_you_hold_one() -> None:
    state = entering(scenario(3, row=("monastery", "palace"), hands={0: (PASS, MONK), 1: (MONK,)}))
    assert "hold" not in rejected(state, 1, PlayPass()).message  # not seat 1's turn
    state = act(state, 0, EnterBuilding(0))
    assert "Not now" in rejected(state, 0, PlayPass()).message
    assert rejected(state, 0, PlayCard(PASS)).message.startswith("Only population cards")
    other = entering(scenario(3, row=("monastery", "palace"), hands={0: (MONK,)}))
    assert rejected(other, 0, PlayPass()).message == "You have no Pass card."


def test_a_pass_changes_who_entered_first_in_a_two_player_tie() -> None:
    state = entering(scenario(2, row=("palace", "farm"), hands={0: (PASS, MONK), 1: (WITCH,)}))
    state = act(state, 0, PlayPass())
    state = enter(state, 1, 0, (WITCH,))
    state = enter(state, 0, 0, (MONK,))
    # Equal cards; seat 1 put its disc down first this round: premium.
    assert state.vp_tokens == (1, 2)


# -- Gold -------------------------------------------------------------------------------------


def test_gold_can_never_be_played() -> None:
    state = entering(scenario(3, row=("treasury", "palace"), hands={0: (GOLD, MONK)}))
    state = act(state, 0, EnterBuilding(0))
    assert PlayCard(GOLD) not in legal_actions(state, 0)
    assert rejected(state, 0, PlayCard(GOLD)).message.startswith("Only population cards")


def test_gold_scores_only_if_the_treasury_was_among_the_games_buildings() -> None:
    hands = {0: (GOLD, GOLD), 1: (GOLD,), 2: ()}
    with_treasury = scenario(3, row=("treasury", "palace"), hands=hands, phase=OVER, rats=(0, 0, 0))
    without = msgspec.structs.replace(with_treasury, buildings_in_game=("farm", "palace"))
    scored = outcome(with_treasury)
    unscored = outcome(without)
    assert scored is not None and unscored is not None
    assert [r.breakdown["gold"] for r in scored.results] == [6, 3, 0]
    assert [r.breakdown["gold"] for r in unscored.results] == [0, 0, 0]


def test_gold_can_be_taken_by_a_sword() -> None:
    state = three_in_the_monastery({0: (SWORD,), 1: (SWORD,)}, {2: (GOLD, MERCHANT)})
    assert GiveCard(GOLD) in legal_actions(state, 2)
    state = act(state, 2, GiveCard(GOLD))
    assert state.hands[0] == (GOLD,)
