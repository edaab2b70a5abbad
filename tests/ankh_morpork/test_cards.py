"""Scroll effects of the player cards (FS 5), one or more tests per effect primitive."""

from __future__ import annotations

import pytest

from services.ankh_morpork.model import (
    TROLL,
    Build,
    CardsTaken,
    ChooseArea,
    ChooseCard,
    ChooseMinion,
    ChooseOption,
    ChoosePlayer,
    DiscardDrawn,
    HandShown,
    PersonalitySwapped,
    PlaceMinion,
    PlayCard,
    Scroll,
    Skip,
    TakeMoney,
)
from tests.ankh_morpork.helpers import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    dice,
    legal,
    minions_at,
    of_type,
    play,
    put,
    run,
    table,
    top,
)

F = ["groat", "dwarves", "ruby"]


def _scroll(card: str, players: int = 3, **kw: object):  # type: ignore[no-untyped-def]
    hands = {RED: [card, *F], **kw.pop("hands", {})}  # type: ignore[dict-item]
    state = table(players, hands=hands, **kw)  # type: ignore[arg-type]
    state, _ = play(state, RED, PlayCard(card))
    while Scroll() not in legal(state, RED):
        state, _ = play(state, RED, Skip())
    return play(state, RED, Scroll())


@pytest.mark.parametrize("card", ["mr_bent", "bank_of_ankh_morpork"])
def test_a_loan_pays_ten_and_stays_in_front_of_you(card: str) -> None:
    state, _ = _scroll(card, money=[0, 0, 0])
    state, _ = play(state, RED, Skip())
    assert state.money[RED] == 10 and state.loans[RED] == (card,) and card not in state.discard


@pytest.mark.parametrize("card", ["beggars_guild", "queen_molly"])
def test_the_chosen_player_gives_two_cards_of_their_choice(card: str) -> None:
    state, _ = _scroll(card, hands={YELLOW: ["hex", "modo", "errol"]}, minions={1: {RED: 1}})
    state, _ = run(
        state, (RED, ChoosePlayer(YELLOW)), (YELLOW, ChooseCard("modo")), (YELLOW, ChooseCard("hex"))
    )
    assert state.hands[YELLOW] == ("errol",) and {"modo", "hex"} <= set(state.hands[RED])


def test_sunshine_dragon_sanctuary_every_other_player_gives_a_dollar_or_a_card() -> None:
    state, _ = _scroll("sunshine_dragon_sanctuary", hands={YELLOW: ["hex"], GREEN: ["modo"]}, money=[0, 5, 0])
    assert legal(state, YELLOW) == [ChooseOption("money"), ChooseCard("hex")]
    state, _ = play(state, YELLOW, ChooseOption("money"))
    assert legal(state, GREEN) == [ChooseCard("modo")]
    state, _ = play(state, GREEN, ChooseCard("modo"))
    assert state.money[RED] == 1 and "modo" in state.hands[RED]


@pytest.mark.parametrize("card", ["seamstresses_guild", "rosie_palm"])
def test_give_a_card_and_take_two_dollars(card: str) -> None:
    state, _ = _scroll(card, money=[0, 5, 5], minions={1: {RED: 1}})
    state, _ = run(state, (RED, ChoosePlayer(GREEN)), (RED, ChooseCard("groat")))
    assert "groat" in state.hands[GREEN] and state.money[:3] == (2, 5, 3)


@pytest.mark.parametrize("card", ["dr_whiteface", "fools_guild"])
def test_pay_five_or_the_card_sits_in_front_of_you_and_counts_in_your_hand(card: str) -> None:
    state, _ = _scroll(card, money=[0, 5, 9], hands={YELLOW: ["hex", "modo"]})
    assert legal(state, RED) == [ChoosePlayer(YELLOW), ChoosePlayer(GREEN)]
    state, _ = run(state, (RED, ChoosePlayer(YELLOW)))
    assert legal(state, YELLOW) == [ChooseOption("pay"), ChooseOption("refuse")]
    state, _ = run(state, (YELLOW, ChooseOption("refuse")), (RED, Skip()))
    assert state.penalties[YELLOW] == (card,) and len(state.hands[RED]) == 5
    from services.ankh_morpork.engine import refill_count

    assert refill_count(state, YELLOW) == 2  # 5 - 2 cards in hand - 1 penalty card


def test_zorgo_swaps_your_personality_for_an_unused_one() -> None:
    state, events = _scroll("zorgo", personalities=["lord_rust", "lord_vetinari", "commander_vimes"])
    swapped = of_type(events, PersonalitySwapped)[0]
    assert swapped.old == "lord_rust" and state.personalities[RED] == swapped.new
    assert "lord_rust" in state.unused_personalities


def test_rincewind_moves_your_minion_out_of_trouble_to_a_neighbour() -> None:
    state = table(hands={RED: ["rincewind", *F]}, minions={7: {RED: 1}, 1: {RED: 1}}, trouble=[7])
    state = put(state, events_deck=("fog", *[e for e in state.events_deck if e != "fog"]))
    state, _ = run(state, (RED, PlayCard("rincewind")), (RED, Scroll()))
    assert legal(state, RED) == [ChooseMinion(7, RED)]
    state, _ = run(state, (RED, ChooseMinion(7, RED)), (RED, ChooseArea(6)))
    assert minions_at(state, 6, RED) == 1 and not state.trouble[6]


@pytest.mark.parametrize("card", ["sacharissa_cripslock", "william_de_worde", "otto_chriek"])
def test_a_dollar_per_trouble_marker(card: str) -> None:
    state, _ = _scroll(card, trouble=[1, 5, 9], money=[0, 0, 0], minions={1: {RED: 1}})
    assert state.money[RED] == 3


@pytest.mark.parametrize(("card", "each"), [("shonky_shop", 1), ("harry_king", 2)])
def test_discard_any_number_of_cards_for_money(card: str, each: int) -> None:
    state, _ = _scroll(card, money=[0, 0, 0], minions={1: {RED: 1}})
    state, _ = run(state, (RED, ChooseCard("groat")), (RED, ChooseCard("ruby")), (RED, Skip()))
    assert state.money[RED] == 2 * each and "groat" in state.discard


@pytest.mark.parametrize("card", ["modo", "the_luggage"])
def test_discard_one_card_or_none(card: str) -> None:
    state, _ = _scroll(card, minions={1: {RED: 1}})
    assert Skip() in legal(state, RED)
    state, _ = play(state, RED, ChooseCard("dwarves"))
    assert "dwarves" in state.discard and "dwarves" not in state.hands[RED]


def test_nobby_nobbs_takes_three_from_a_player() -> None:
    state, _ = _scroll("nobby_nobbs", money=[0, 2, 9])
    state, _ = play(state, RED, ChoosePlayer(YELLOW))
    assert state.money == (2, 0, 9)


@pytest.mark.parametrize(("roll", "money"), [(7, 4), (12, 4), (4, 0)])
def test_cmot_dibbler_wins_four_from_the_bank_on_seven_or_more(roll: int, money: int) -> None:
    state = dice(table(hands={RED: ["cmot_dibbler", *F]}, money=[0, 0, 0]), roll)
    state, _ = run(state, (RED, PlayCard("cmot_dibbler")), (RED, Scroll()))
    assert state.money[RED] == money


def test_cmot_dibbler_on_a_one_pays_two_or_loses_a_minion() -> None:
    state = dice(table(hands={RED: ["cmot_dibbler", *F]}, money=[2, 0, 0], minions={5: {RED: 1}}), 1)
    state, _ = run(state, (RED, PlayCard("cmot_dibbler")), (RED, Scroll()))
    assert legal(state, RED) == [ChooseOption("pay"), ChooseMinion(5, RED)]
    state, _ = play(state, RED, ChooseOption("pay"))
    assert state.money[RED] == 0 and minions_at(state, 5, RED) == 1


def test_here_n_now_on_seven_takes_three_from_a_player() -> None:
    state = dice(table(hands={RED: ["here_n_now", *F]}, money=[0, 5, 5]), 9)
    state, _ = run(state, (RED, PlayCard("here_n_now")), (RED, Scroll()), (RED, ChoosePlayer(GREEN)))
    assert state.money == (3, 5, 2)


def test_errol_on_seven_removes_a_minion_from_a_troubled_area_not_yours() -> None:
    state = dice(
        table(hands={RED: ["errol", *F]}, minions={5: {RED: 1, YELLOW: 1}}, trolls={5: 1}, trouble=[5]), 7
    )
    state, _ = run(state, (RED, PlayCard("errol")), (RED, Scroll()))
    assert legal(state, RED) == [ChooseMinion(5, YELLOW), ChooseMinion(5, TROLL)]


@pytest.mark.parametrize(
    ("card", "count"),
    [("hex", 3), ("leonard_of_quirm", 4), ("librarian", 4), ("professor_of_recent_runes", 2),
     ("moist_von_lipwig", 2), ("sergeant_cheery_littlebottom", 2), ("the_clacks", 2)],
)  # fmt: skip
def test_draw_cards(card: str, count: int) -> None:
    state = table(hands={RED: [card, *F]}, minions={1: {RED: 1}})
    state = put(state, events_deck=("fog", *[e for e in state.events_deck if e != "fog"]))
    deck = state.deck
    state, _ = play(state, RED, PlayCard(card))
    while Scroll() not in legal(state, RED):
        state, _ = play(state, RED, Skip())
    deck = state.deck
    state, _ = play(state, RED, Scroll())
    assert state.hands[RED][-count:] == deck[:count]


def test_the_clacks_takes_two_dollars_after_drawing() -> None:
    state, _ = _scroll("the_clacks", money=[0, 0, 0])
    state, _ = play(state, RED, TakeMoney())
    assert state.money[RED] == 2


def test_history_monks_draw_four_at_random_from_the_discard_pile() -> None:
    pile = ("hex", "modo", "errol", "hubert", "dorfl", "carcer")
    state, events = _scroll("history_monks", discard=pile)
    drawn = of_type(events, DiscardDrawn)[0].cards
    assert len(drawn) == 4 and set(drawn) <= set(pile) and len(state.discard) == 2


@pytest.mark.parametrize("card", ["the_duckman", "foul_ole_ron", "canting_crew"])
def test_move_another_players_minion_to_a_neighbouring_area(card: str) -> None:
    state, _ = _scroll(card, minions={12: {YELLOW: 1}, 1: {RED: 1}})
    assert legal(state, RED) == [ChooseMinion(12, YELLOW)]
    state, _ = play(state, RED, ChooseMinion(12, YELLOW))
    assert legal(state, RED) == [ChooseArea(1), ChooseArea(2), ChooseArea(11)]
    state, _ = play(state, RED, ChooseArea(1))
    assert minions_at(state, 1, YELLOW) == 1 and state.trouble[0]


def test_the_fire_brigade_pay_five_or_lose_a_building() -> None:
    state, _ = _scroll("fire_brigade", buildings={3: YELLOW, 9: YELLOW}, money=[0, 4, 0])
    state, _ = run(state, (RED, ChoosePlayer(YELLOW)))
    assert legal(state, YELLOW) == [ChooseOption("refuse")]
    state, _ = play(state, YELLOW, ChooseOption("refuse"))
    assert legal(state, RED) == [ChooseArea(3), ChooseArea(9)]
    state, _ = play(state, RED, ChooseArea(9))
    assert state.buildings[8] == -1 and state.buildings[2] == YELLOW


def test_ponder_stibbons_plays_two_more_cards() -> None:
    state = table(hands={RED: ["ponder_stibbons", "groat", "dwarves"]}, minions={1: {RED: 1}})
    state = put(state, events_deck=("fog", *[e for e in state.events_deck if e != "fog"]))
    state, _ = run(state, (RED, PlayCard("ponder_stibbons")), (RED, Scroll()))
    assert top(state).kind == "play_two" and legal(state, RED) == [
        PlayCard("groat"),
        PlayCard("dwarves"),
        Skip(),
    ]


def test_sybil_vimes_buys_out_a_building_in_a_calm_area() -> None:
    state = table(
        hands={RED: ["sybil_vimes", *F]}, buildings={3: YELLOW, 9: GREEN}, trouble=[9], money=[9, 0, 0]
    )
    state, _ = run(state, (RED, PlayCard("sybil_vimes")), (RED, TakeMoney()), (RED, Scroll()))  # $9 + $3
    assert legal(state, RED) == [ChooseArea(3)]
    state, _ = play(state, RED, ChooseArea(3))
    assert state.buildings[2] == RED and state.money[:2] == (0, 12)


def test_reacher_gilt_buys_out_a_building_in_a_troubled_area() -> None:
    state, _ = _scroll("reacher_gilt", buildings={3: YELLOW, 9: GREEN}, trouble=[9], money=[20, 0, 0])
    assert legal(state, RED) == [ChooseArea(9)]
    state, _ = play(state, RED, ChooseArea(9))
    assert state.buildings[8] == RED and state.money[GREEN] == 12 and state.money[RED] == 8


def test_wee_mad_arthur_builds_at_half_price() -> None:
    state, _ = _scroll("wee_mad_arthur", minions={2: {RED: 1}}, trouble=[], money=[9, 0, 0])
    assert legal(state, RED) == [Build(2)]
    state, _ = play(state, RED, Build(2))
    assert state.money[RED] == 0 and state.buildings[1] == RED


def test_willikins_places_a_minion_where_you_have_a_building() -> None:
    state, _ = _scroll("willikins", buildings={9: RED, 3: YELLOW}, minions={})
    assert legal(state, RED) == [PlaceMinion(9)]


@pytest.mark.parametrize(("card", "count"), [("senior_wrangler", 1), ("archchancellor_ridcully", 2)])
def test_the_wizards_place_minions_in_or_next_to_unreal_estate(card: str, count: int) -> None:
    state = table(hands={RED: [card, *F]}, minions={7: {RED: 1}})
    state = put(state, events_deck=("fog", *[e for e in state.events_deck if e != "fog"]))
    state, _ = run(state, (RED, PlayCard(card)), (RED, Scroll()))
    assert [a.area for a in legal(state, RED)] == [1, 2, 3, 4, 10, 11, 12]
    state, _ = play(state, RED, PlaceMinion(4))
    if count == 2:
        assert Skip() in legal(state, RED)
        state, _ = play(state, RED, PlaceMinion(10))
    assert minions_at(state, 4, RED) == 1 and minions_at(state, 10, RED) == count - 1


@pytest.mark.parametrize("card", ["mr_shine", "deep_dwarves"])
def test_place_a_minion_anywhere_without_trouble(card: str) -> None:
    state, _ = _scroll(card, minions={11: {YELLOW: 1}})
    state, _ = play(state, RED, PlaceMinion(11))
    assert minions_at(state, 11, RED) == 1 and not state.trouble[10]


def test_the_smoking_gnu_places_in_an_area_with_trouble() -> None:
    state, _ = _scroll("smoking_gnu", minions={11: {YELLOW: 1}}, trouble=[11, 6])
    assert legal(state, RED) == [PlaceMinion(6), PlaceMinion(11)]


def test_stanley_takes_two_random_cards_keeps_one_and_gives_one_back() -> None:
    state, _ = _scroll("stanley", hands={YELLOW: ["hex", "modo", "errol"]})
    state, events = play(state, RED, ChoosePlayer(YELLOW))
    taken = of_type(events, CardsTaken)[0].cards
    assert len(taken) == 2 and legal(state, RED) == [ChooseCard(c) for c in taken]
    state, _ = play(state, RED, ChooseCard(taken[0]))
    assert taken[0] in state.hands[RED] and taken[1] in state.hands[YELLOW] and len(state.hands[YELLOW]) == 2


@pytest.mark.parametrize("card", ["post_office", "sir_charles_lavatory"])
def test_a_dollar_per_building_on_the_board(card: str) -> None:
    state, _ = _scroll(card, buildings={1: RED, 2: YELLOW, 3: GREEN}, money=[0, 0, 0])
    assert state.money[RED] == 3


def test_the_mob_adds_trouble_next_to_trouble_where_a_minion_stands() -> None:
    state, _ = _scroll("the_mob", minions={5: {YELLOW: 1}, 9: {GREEN: 1}, 1: {RED: 1}}, trouble=[7])
    assert legal(state, RED) == [ChooseArea(5)]


def test_gargoyles_draw_one_card_per_building_of_yours() -> None:
    state = table(hands={RED: ["gargoyles", *F]}, buildings={1: RED, 3: RED, 5: YELLOW})
    deck = state.deck
    state, _ = run(state, (RED, PlayCard("gargoyles")), (RED, Scroll()))
    assert state.hands[RED][-2:] == deck[:2]


def test_doctor_hix_puts_trouble_in_an_occupied_area() -> None:
    state = table(hands={RED: ["doctor_hix", *F]}, minions={5: {YELLOW: 1}, 7: {RED: 1}}, trouble=[7])
    state = put(state, events_deck=("fog", *[e for e in state.events_deck if e != "fog"]))
    state, _ = run(state, (RED, PlayCard("doctor_hix")), (RED, Scroll()))
    assert legal(state, RED) == [ChooseArea(5)]


def test_hobsons_livery_stable_pays_two_then_moves_your_minion_anywhere() -> None:
    state, _ = _scroll("hobsons_livery_stable", minions={1: {RED: 1}}, money=[2, 0, 0])
    state, _ = run(state, (RED, ChoosePlayer(GREEN)), (RED, ChooseMinion(1, RED)), (RED, ChooseArea(9)))
    assert state.money[:3] == (0, 0, 2) and minions_at(state, 9, RED) == 1


def test_hubert_makes_one_player_give_another_three_dollars() -> None:
    state, _ = _scroll("hubert", players=4, money=[0, 5, 0, 0])
    assert legal(state, RED) == [ChoosePlayer(YELLOW), ChoosePlayer(GREEN), ChoosePlayer(BLUE)]
    state, _ = run(state, (RED, ChoosePlayer(YELLOW)))
    assert legal(state, RED) == [ChoosePlayer(GREEN), ChoosePlayer(BLUE)]
    state, _ = play(state, RED, ChoosePlayer(BLUE))
    assert state.money == (0, 2, 0, 3)


@pytest.mark.parametrize("card", ["dorfl", "adora_belle_dearheart"])
def test_move_one_of_your_minions_to_any_other_area(card: str) -> None:
    state, _ = _scroll(card, minions={1: {RED: 1}})
    state, _ = play(state, RED, ChooseMinion(1, RED))
    assert len(legal(state, RED)) == 11
    state, _ = play(state, RED, ChooseArea(8))
    assert minions_at(state, 8, RED) == 1


def test_cosmo_lavish_pays_two_and_the_player_removes_a_minion_not_yours() -> None:
    state, _ = _scroll(
        "cosmo_lavish",
        players=4,
        minions={5: {RED: 1, GREEN: 1}, 1: {RED: 1}},
        trouble=[5],
        money=[2, 0, 0, 0],
    )
    state, _ = play(state, RED, ChoosePlayer(YELLOW))
    assert state.money[YELLOW] == 2 and legal(state, YELLOW) == [ChooseMinion(5, GREEN)]


def test_the_dean_removes_a_minion_from_unreal_estate() -> None:
    state = table(hands={RED: ["the_dean", *F]}, minions={2: {YELLOW: 1}, 1: {RED: 1}})
    state = put(state, events_deck=("fog", *[e for e in state.events_deck if e != "fog"]))
    state, _ = run(state, (RED, PlayCard("the_dean")), (RED, Scroll()), (RED, ChooseMinion(2, YELLOW)))
    assert minions_at(state, 2, YELLOW) == 0


def test_cable_street_particulars_look_at_a_hand_and_discard_one_card() -> None:
    state, _ = _scroll("cable_street_particulars", hands={YELLOW: ["hex", "modo"]})
    state, events = play(state, RED, ChoosePlayer(YELLOW))
    assert of_type(events, HandShown)[0].cards == ("hex", "modo")
    state, _ = play(state, RED, ChooseCard("modo"))
    assert state.hands[YELLOW] == ("hex",) and state.discard[-1] == "modo"


def test_carcer_rolls_twice_and_removes_a_minion_from_each_area_trouble_or_not() -> None:
    state = dice(table(hands={RED: ["carcer", *F]}, minions={5: {YELLOW: 1}, 8: {GREEN: 1}}), 5, 8)
    state, _ = run(state, (RED, PlayCard("carcer")), (RED, Scroll()), (RED, ChooseMinion(5, YELLOW)))
    state, _ = play(state, RED, ChooseMinion(8, GREEN))
    assert minions_at(state, 5, YELLOW) == minions_at(state, 8, GREEN) == 0


def test_the_chair_of_indefinite_studies_swaps_hands() -> None:
    state = table(hands={RED: ["chair_of_indefinite_studies", "hex"], YELLOW: ["modo", "errol", "dorfl"]})
    state = put(state, events_deck=("fog", *[e for e in state.events_deck if e != "fog"]))
    state, _ = run(
        state, (RED, PlayCard("chair_of_indefinite_studies")), (RED, Scroll()), (RED, ChoosePlayer(YELLOW))
    )
    assert state.hands[YELLOW] == ("hex",) and state.hands[RED][:3] == ("modo", "errol", "dorfl")


def test_the_alchemists_guild_discards_up_to_three_then_refills_to_five() -> None:
    state, _ = _scroll("alchemists_guild", minions={})
    state, _ = run(state, (RED, ChooseCard("groat")), (RED, ChooseCard("ruby")), (RED, Skip()))
    assert len(state.hands[RED]) == 5 and "groat" not in state.hands[RED]


def test_burleigh_and_stronginthearm_pay_two_then_assassinate() -> None:
    state, _ = _scroll("burleigh_and_stronginthearm", minions={5: {YELLOW: 1}}, trouble=[5], money=[2, 0, 0])
    state, _ = play(state, RED, ChoosePlayer(GREEN))
    state, _ = play(state, RED, legal(state, RED)[0])
    assert state.money[:3] == (0, 0, 2) and minions_at(state, 5, YELLOW) == 0


def test_the_auditors_make_every_other_player_remove_one_of_their_minions() -> None:
    state, _ = _scroll("the_auditors", minions={5: {YELLOW: 1}, 6: {YELLOW: 1}, 1: {RED: 1}})
    assert top(state).player == YELLOW and legal(state, YELLOW) == [
        ChooseMinion(5, YELLOW),
        ChooseMinion(6, YELLOW),
    ]
