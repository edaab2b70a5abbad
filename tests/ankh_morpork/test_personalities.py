"""The 7 personalities, checked at the start of their owner's turn (Vimes at deck-out), the end
by an empty draw pile, and the points count with its breakdown and tie-break (FS 3)."""

from __future__ import annotations

import pytest

from services.ankh_morpork import GAME
from services.ankh_morpork.model import EndTurn, Options, PlayCard, Scroll, TakeMoney
from tests.ankh_morpork.helpers import BLUE, GREEN, RED, YELLOW, play, run, table

PEOPLE = ("lord_rust", "lord_selachii", "lord_de_worde", "commander_vimes")


def _next_turn_starts(state):  # type: ignore[no-untyped-def]
    """Red plays Pink Pussy Cat Club and ends; Yellow's turn starts (its goal checked)."""
    state, _ = run(state, (RED, PlayCard("pink_pussy_cat_club")), (RED, TakeMoney()))
    return state


def _at_turn_end(players: int, personality: str, **board: object):  # type: ignore[no-untyped-def]
    people = [personality if p == YELLOW else PEOPLE[p] for p in range(players)]
    if personality in people[:YELLOW] + people[YELLOW + 1 :]:
        people = [
            personality if p == YELLOW else "commander_vimes" if p == 0 else "lord_rust"
            for p in range(players)
        ]
    hands = {RED: ["pink_pussy_cat_club"]}
    return table(players, hands=hands, personalities=people, **board)  # type: ignore[arg-type]


def _spread(count: int) -> dict[int, dict[int, int]]:
    return {a: {YELLOW: 1} for a in range(1, count + 1)}


@pytest.mark.parametrize(("players", "areas"), [(2, 11), (3, 10), (4, 9)])
def test_vetinari_wins_with_minions_in_enough_areas_at_the_start_of_his_turn(
    players: int, areas: int
) -> None:
    state = _next_turn_starts(_at_turn_end(players, "lord_vetinari", minions=_spread(areas)))
    assert state.over and state.winners == (YELLOW,) and state.end_reason == "personality"
    state = _next_turn_starts(_at_turn_end(players, "lord_vetinari", minions=_spread(areas - 1)))
    assert not state.over


def test_vetinari_areas_must_be_free_of_demons() -> None:
    state = _next_turn_starts(_at_turn_end(3, "lord_vetinari", minions=_spread(10), demons={1: 1}))
    assert not state.over


@pytest.mark.parametrize(("players", "areas"), [(2, 7), (3, 5), (4, 4)])
@pytest.mark.parametrize("lord", ["lord_selachii", "lord_rust", "lord_de_worde"])
def test_the_lords_win_by_controlling_enough_areas(players: int, areas: int, lord: str) -> None:
    state = _next_turn_starts(_at_turn_end(players, lord, minions=_spread(areas)))
    assert state.over and state.winners == (YELLOW,)
    state = _next_turn_starts(_at_turn_end(players, lord, minions=_spread(areas - 1)))
    assert not state.over


def test_control_needs_more_pieces_than_every_other_player_and_the_trolls() -> None:
    minions = {1: {YELLOW: 1}, 2: {YELLOW: 2, RED: 2}, 3: {YELLOW: 1}, 4: {YELLOW: 1}, 5: {YELLOW: 1}}
    state = _next_turn_starts(_at_turn_end(3, "lord_rust", minions=minions, buildings={2: YELLOW}))
    assert state.over  # the building breaks the tie in area 2
    state = _next_turn_starts(
        _at_turn_end(3, "lord_rust", minions=minions, buildings={2: YELLOW}, trolls={2: 3})
    )
    assert not state.over


def test_dragon_king_of_arms_wins_with_eight_trouble_markers() -> None:
    trouble = list(range(1, 9))
    state = _next_turn_starts(_at_turn_end(3, "dragon_king_of_arms", minions=_spread(8), trouble=trouble))
    assert state.over and state.winners == (YELLOW,)
    state = _next_turn_starts(_at_turn_end(3, "dragon_king_of_arms", minions=_spread(8), trouble=trouble[:7]))
    assert not state.over


def test_chrysoprase_counts_cash_and_buildings_less_twelve_per_loan() -> None:
    board = {"minions": {1: {YELLOW: 1}}, "buildings": {2: YELLOW, 4: YELLOW}}
    state = _next_turn_starts(_at_turn_end(3, "chrysoprase", money=[0, 14, 0], **board))
    assert state.over and state.winners == (YELLOW,)  # 14 + 18 + 18 = 50
    loans = ((), ("mr_bent",), ())
    state = _next_turn_starts(_at_turn_end(3, "chrysoprase", money=[0, 25, 0], loans=loans, **board))
    assert not state.over  # 25 + 36 - 12 = 49


def test_the_goal_is_checked_at_the_start_of_the_turn_not_the_end() -> None:
    state = _at_turn_end(3, "dragon_king_of_arms", minions=_spread(8), trouble=list(range(1, 9)), seat=YELLOW)
    state = table(
        3,
        seat=YELLOW,
        hands={YELLOW: ["pink_pussy_cat_club"]},
        personalities=state.personalities,
        minions=_spread(8),
        trouble=list(range(1, 9)),
    )
    state, _ = run(state, (YELLOW, PlayCard("pink_pussy_cat_club")), (YELLOW, TakeMoney()))
    assert not state.over and state.current == GREEN


def test_commander_vimes_wins_when_the_draw_pile_runs_out() -> None:
    state = table(
        3,
        hands={RED: ["hex", "groat"]},
        personalities=["lord_rust", "commander_vimes", "lord_selachii"],
        deck=["ruby", "dwarves"],
    )
    state, _ = run(state, (RED, PlayCard("hex")), (RED, Scroll()))
    assert state.over and state.end_reason == "deck_out" and state.winners == (YELLOW,)
    assert GAME.outcome(state) is not None and not GAME.legal_actions(state, RED)


def test_an_empty_draw_pile_without_vimes_is_decided_by_points() -> None:
    state = table(
        3,
        hands={RED: ["pink_pussy_cat_club"]},
        personalities=["lord_rust", "lord_vetinari", "lord_selachii"],
        deck=["ruby"],
        money=[0, 30, 0],
        minions={1: {RED: 1}},
    )
    state, _ = run(state, (RED, PlayCard("pink_pussy_cat_club")), (RED, TakeMoney()))
    assert state.over and state.end_reason == "deck_out" and state.winners == (YELLOW,)


def test_points_breakdown_minions_buildings_money_and_loans() -> None:
    state = table(
        3,
        hands={RED: ["hex"]},
        personalities=list(PEOPLE[:3]),
        deck=["ruby"],
        minions={1: {RED: 2}, 5: {RED: 1}, 6: {RED: 1}},
        demons={6: 1},
        buildings={2: RED, 6: RED},
        money=[13, 0, 0],
        loans=(("mr_bent", "bank_of_ankh_morpork"), (), ()),
    )
    state, _ = run(state, (RED, PlayCard("hex")), (RED, Scroll()))
    result = GAME.outcome(state).results[RED]  # type: ignore[union-attr]
    # 3 minions outside the demon's area, Unreal Estate's 18 (not The Hippo's), $13, repay 12 then -15
    assert result.breakdown == {"minions": 15, "buildings": 18, "money": 13, "loans": -27}
    assert result.score == 19


def test_pieces_beside_a_demon_count_with_that_option() -> None:
    state = table(
        3,
        hands={RED: ["hex"]},
        personalities=list(PEOPLE[:3]),
        deck=["ruby"],
        minions={6: {RED: 1}},
        demons={6: 1},
        buildings={6: RED},
        money=[0, 0, 0],
        options=Options(demons_void_scoring=False),
    )
    state, _ = run(state, (RED, PlayCard("hex")), (RED, Scroll()))
    assert GAME.outcome(state).results[RED].score == 5 + 12  # type: ignore[union-attr]


def test_a_points_tie_goes_to_the_most_valuable_city_area_card_then_is_shared() -> None:
    base = {"hands": {RED: ["hex"]}, "personalities": list(PEOPLE[:3]), "deck": ["ruby"], "minions": {}}
    state = table(3, buildings={2: YELLOW, 3: GREEN, 9: GREEN}, money=[0, 6, 0], **base)  # type: ignore[arg-type]
    state, _ = run(state, (RED, PlayCard("hex")), (RED, Scroll()))
    assert state.winners == (YELLOW,)  # 24 each; Unreal Estate ($18) beats $12 cards
    state = table(3, buildings={3: YELLOW, 9: GREEN}, money=[0, 0, 0], **base)  # type: ignore[arg-type]
    state, _ = run(state, (RED, PlayCard("hex")), (RED, Scroll()))
    assert state.winners == (YELLOW, GREEN)


def test_two_players_play_without_chrysoprase_hubert_and_cosmo_lavish() -> None:
    for seed in range(6):
        state = GAME.setup(2, seed, Options())
        cards = {c for h in state.hands for c in h} | set(state.deck)
        assert len(cards) == 99 and not {"hubert", "cosmo_lavish"} & cards
        assert "chrysoprase" not in (*state.personalities, *state.unused_personalities)
        assert len(state.unused_personalities) == 4


__all__ = ["BLUE", "EndTurn", "play"]
