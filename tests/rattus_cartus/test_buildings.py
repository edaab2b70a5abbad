"""The 12 buildings: premium action for the most population cards + Jokers, standard for the rest."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from services.rattus_cartus.model import (
    FLUTE,
    GOLD,
    JOKER,
    PASS,
    SWORD,
    DiscardForRat,
    GiveCard,
    LookAtNun,
    State,
    StopDiscarding,
)
from services.rattus_cartus.rules import active_players, legal_actions
from tests.rattus_cartus.helpers import (
    FARMER,
    KNIGHT,
    MERCHANT,
    WITCH,
    act,
    enter,
    entering,
    rejected,
    scenario,
    supply_of,
)

PREMIUM, STANDARD, ELSEWHERE, ELSEWHERE_TOO = 0, 1, 2, 3


def visit(
    building: str,
    premium_cards: tuple[str, ...] = (FARMER, FARMER),
    standard_cards: tuple[str, ...] = (FARMER,),
    other: str = "palace",
    hands: Mapping[int, tuple[str, ...]] | None = None,
    **changes: object,
) -> State:
    """Seats 0 and 1 enter `building` (0 with more cards), seats 2 and 3 the other building."""
    base_hands = {
        PREMIUM: (*premium_cards, MERCHANT),
        STANDARD: (*standard_cards, MERCHANT),
        ELSEWHERE: (MERCHANT,),
        ELSEWHERE_TOO: (MERCHANT,),
    }
    base_hands.update(hands or {})
    state = entering(scenario(4, row=(building, other), hands=base_hands, **changes))  # type: ignore[arg-type]
    state = enter(state, PREMIUM, 0, premium_cards)
    state = enter(state, STANDARD, 0, standard_cards)
    state = enter(state, ELSEWHERE, 1)
    return enter(state, ELSEWHERE_TOO, 1)


def test_farm_premium_draws_four_and_standard_draws_two() -> None:
    deck = ("church:0", "church:1", "church:2", "church:3", "royalty:0", "royalty:1", "magic:0")
    state = visit("farm", deck=deck)
    assert state.hands[PREMIUM] == tuple(sorted((MERCHANT, *deck[:4])))
    assert state.hands[STANDARD] == tuple(sorted((MERCHANT, *deck[4:6])))
    assert state.deck == deck[6:]


def test_brewery_draws_one_card_per_influence_this_round_and_standard_one_per_two() -> None:
    deck = tuple(f"church:{n}" for n in range(5)) + ("magic:0",) * 5
    state = visit(
        "brewery", premium_cards=(FARMER, FARMER, JOKER), standard_cards=(FARMER, FARMER, FARMER), deck=deck
    )
    # Equal cards: seat 0 entered first and takes the premium. Jokers score influence too.
    assert len(state.hands[PREMIUM]) == 1 + 3
    assert len(state.hands[STANDARD]) == 1 + 1  # 3 influence // 2


def test_marketplace_premium_takes_two_jokers_and_standard_one() -> None:
    state = visit("marketplace")
    assert state.hands[PREMIUM].count(JOKER) == 2
    assert state.hands[STANDARD].count(JOKER) == 1
    assert supply_of(state, JOKER) == 15 - 3


@pytest.mark.parametrize(
    ("building", "kind"),
    [("office", PASS), ("castle", SWORD), ("pipers_hut", FLUTE), ("treasury", GOLD)],
)
def test_special_card_buildings_give_two_to_the_premium_and_one_to_the_standard(
    building: str, kind: str
) -> None:
    state = visit(building)
    assert state.hands[PREMIUM].count(kind) == 2
    assert state.hands[STANDARD].count(kind) == 1
    assert state.hands[ELSEWHERE].count(kind) == 0


def test_palace_premium_takes_two_vp_tokens_and_standard_one() -> None:
    state = visit("palace", other="farm")
    assert state.vp_tokens == (2, 1, 0, 0)


def test_monastery_premium_discards_two_rats_and_standard_one() -> None:
    # Both play Church cards, so neither takes rats for off-class cards.
    state = visit("monastery", premium_cards=("church:0", "church:1"), standard_cards=("church:2",))
    assert state.rats[PREMIUM] == 8
    assert state.rats[STANDARD] == 9


def test_hospital_premium_discards_a_rat_then_up_to_three_cards_for_a_rat_each() -> None:
    hands = {PREMIUM: ("church:0", "church:1", GOLD, KNIGHT, WITCH, MERCHANT)}
    state = visit(
        "hospital", premium_cards=("church:0", "church:1"), standard_cards=("church:2",), hands=hands
    )
    assert state.hospital is not None and state.hospital.player == PREMIUM and state.hospital.cards == 3
    assert state.rats[PREMIUM] == 9
    state = act(state, PREMIUM, DiscardForRat(GOLD))  # Gold may be discarded at the Hospital
    state = act(state, PREMIUM, DiscardForRat(KNIGHT))
    assert state.rats[PREMIUM] == 7
    assert supply_of(state, GOLD) == 1  # back to its supply (empty before: no Treasury in this game)
    assert KNIGHT in state.discard
    state = act(state, PREMIUM, StopDiscarding())
    assert state.hands[PREMIUM] == (MERCHANT, WITCH)
    # Standard: up to 2 cards, no free rat.
    assert state.hospital is not None and state.hospital.player == STANDARD and state.hospital.cards == 2
    assert state.rats[STANDARD] == 10


def test_hospital_standard_stops_after_two_cards() -> None:
    hands = {STANDARD: ("church:2", FARMER, WITCH, KNIGHT)}
    state = visit(
        "hospital", premium_cards=("church:0", "church:1"), standard_cards=("church:2",), hands=hands
    )
    state = act(state, PREMIUM, StopDiscarding())
    state = act(state, STANDARD, DiscardForRat(FARMER))
    state = act(state, STANDARD, DiscardForRat(WITCH))
    assert state.hospital is None
    assert state.rats[STANDARD] == 8
    assert state.hands[STANDARD] == (KNIGHT,)


def test_guard_tower_premium_takes_three_cards_from_everyone_unprotected_with_at_least_as_many() -> None:
    hands = {
        PREMIUM: (KNIGHT, KNIGHT, "church:0", "church:1"),  # 2 left after playing
        STANDARD: (KNIGHT, "church:2", "church:3", "church:4"),
        ELSEWHERE: (MERCHANT, MERCHANT, WITCH, GOLD, FARMER),  # 5 cards: gives 3
        ELSEWHERE_TOO: (MERCHANT,),  # 1 card < 2: keeps it
    }
    state = visit("guard_tower", premium_cards=(KNIGHT, KNIGHT), standard_cards=(KNIGHT,), hands=hands)
    # The standard visitor is protected; only seat 2 owes cards and chooses them.
    assert [(g.giver, g.receiver, g.count) for g in state.gifts] == [(ELSEWHERE, PREMIUM, 3)]
    assert {a.card for a in legal_actions(state, ELSEWHERE)} == {MERCHANT, WITCH, GOLD, FARMER}  # type: ignore[union-attr]
    for given in (GOLD, WITCH, MERCHANT):
        state = act(state, ELSEWHERE, GiveCard(given))
    assert state.hands[PREMIUM] == tuple(sorted(("church:0", "church:1", GOLD, WITCH, MERCHANT)))
    assert state.hands[ELSEWHERE] == tuple(sorted((MERCHANT, FARMER)))
    assert state.hands[STANDARD] == ("church:2", "church:3", "church:4")


def test_guard_tower_player_with_fewer_than_three_cards_but_enough_gives_all() -> None:
    hands = {
        PREMIUM: (KNIGHT, KNIGHT, "church:0"),  # 1 left after playing
        ELSEWHERE: (MERCHANT, WITCH),  # 2 >= 1: gives both
        ELSEWHERE_TOO: (MERCHANT,),  # 1 >= 1: gives it
    }
    state = visit("guard_tower", premium_cards=(KNIGHT, KNIGHT), standard_cards=(KNIGHT,), hands=hands)
    assert sorted((g.giver, g.count) for g in state.gifts) == [(ELSEWHERE, 2), (ELSEWHERE_TOO, 1)]
    # Both givers owe cards at once.
    assert active_players(state) == (ELSEWHERE, ELSEWHERE_TOO)
    state = act(state, ELSEWHERE_TOO, GiveCard(MERCHANT))
    state = act(state, ELSEWHERE, GiveCard(WITCH))
    state = act(state, ELSEWHERE, GiveCard(MERCHANT))
    assert state.hands[ELSEWHERE] == () and state.hands[ELSEWHERE_TOO] == ()
    assert len(state.hands[PREMIUM]) == 4


def test_guard_tower_standard_action_is_only_protection() -> None:
    hands = {
        PREMIUM: (KNIGHT, KNIGHT),
        STANDARD: (KNIGHT, "church:2", "church:3"),
        ELSEWHERE: (),
        ELSEWHERE_TOO: (),
    }
    state = visit("guard_tower", premium_cards=(KNIGHT, KNIGHT), standard_cards=(KNIGHT,), hands=hands)
    assert state.gifts == ()
    assert state.hands[STANDARD] == ("church:2", "church:3")


def test_fortune_tellers_tent_premium_looks_at_two_nun_row_cards_and_standard_at_one() -> None:
    state = visit("fortune_tellers_tent")
    assert state.looks_owed[PREMIUM] == 2
    state = act(state, PREMIUM, LookAtNun(4))
    rejected(state, PREMIUM, LookAtNun(4))  # already seen
    state = act(state, PREMIUM, LookAtNun(2))
    assert state.looks_owed[STANDARD] == 1
    state = act(state, STANDARD, LookAtNun(4))
    assert state.nun_seen[PREMIUM] == (2, 4) and state.nun_seen[STANDARD] == (4,)


def test_fortune_tellers_tent_gives_nothing_to_look_at_once_every_nun_card_was_seen() -> None:
    state = visit("fortune_tellers_tent", nun_seen=((0, 1, 2, 3), (0, 1, 2, 3, 4), (), ()))
    assert state.looks_owed[PREMIUM] == 1  # only one unseen card left
    state = act(state, PREMIUM, LookAtNun(4))
    assert state.looks_owed[STANDARD] == 0
    assert state.round == 2
