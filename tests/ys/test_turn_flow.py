"""Setup by player count, the phases of a turn, placement rules, counting details, the end."""

from __future__ import annotations

import msgspec
import pytest

from services.kernel import SetupConfig, SetupError
from services.kernel.testing import random_playout
from services.ys import GAME
from services.ys.model import (
    BID,
    OVER,
    PLACE,
    THRONE,
    Bid,
    Broker,
    BrokersReturned,
    CharacterDiscarded,
    CharacterWon,
    NeighbourhoodCounted,
    NeutralPlaced,
    Options,
    PlaceBroker,
    PlaceNeutral,
    SendToThrone,
    TakeGems,
    ThroneChosen,
)
from services.ys.rules import RULES
from services.ys.scoring import score_breakdowns
from services.ys.tables import BROKERS, EXPRESS_BROKERS, NEUTRAL_BROKERS
from tests.ys.helpers import broker, counting, drive, new_game, placing, play, put, reject, settle, ship_id


def start(players: int, **options: object) -> object:
    config = SetupConfig(players, 5, msgspec.Raw(msgspec.json.encode(options)))
    return GAME.start(config)


# -- setup by player count ------------------------------------------------------------------------


def test_four_players_eleven_brokers_four_neighbourhoods_order_cards_one_to_four() -> None:
    state = new_game(4)
    assert state.screens == (BROKERS,) * 4 and sum(BROKERS) == 22
    assert sorted(state.order_cards) == [1, 2, 3, 4]
    assert state.neighbourhoods == 4 and state.rounds == 4 and all(state.ports)
    assert state.market_gems[0] == "" and all(state.market_gems[1:])
    # Three yellow cards per neighbourhood, the top one revealed; three cards stay in the box.
    assert all(len(p) == 2 for p in state.piles) and len(state.unused) == 3
    assert len(state.ship_deck) == 24 - 5
    assert state.phase == BID and GAME.active_players(state) == (0, 1, 2, 3)


def test_four_player_market_white_on_row_one_else_the_large_gem() -> None:
    state = new_game(4)
    white = ship_id("blue", ("red", "white"))
    plain = ship_id("green", ("blue", "yellow"))
    event = RULES._turn_start(put(state, ship_deck=(*state.ship_deck[:4], white, *state.ship_deck[5:])), 2)
    assert event.market_gems == ("", "white", "blue", "red")
    event = RULES._turn_start(put(state, ship_deck=(*state.ship_deck[:4], plain, *state.ship_deck[5:])), 2)
    assert event.market_gems == ("", "green", "blue", "yellow")


def test_three_players_small_gems_only_on_rows_two_and_three_and_row_one_is_closed() -> None:
    state = new_game(3)
    assert state.market_gems[:2] == ("", "") and all(state.market_gems[2:])
    assert state.neighbourhoods == 4
    state = placing(3, seat=0)
    reject(state, 0, PlaceBroker(1, "m1.blue", True))
    reject(state, 0, PlaceBroker(1, "m0.blue", True))
    play(state, 0, PlaceBroker(1, "m2.blue", True))


def test_three_players_may_choose_three_neighbourhoods() -> None:
    state = new_game(3, Options(three_player_neighbourhoods=3))
    assert state.neighbourhoods == 3 and len(state.ports) == 3 and len(state.unused) == 6
    reject(
        placing(3, seat=0, options=Options(three_player_neighbourhoods=3)), 0, PlaceBroker(1, "n4.port", True)
    )


def test_three_players_a_port_offers_three_gems_first_takes_two_second_one_third_none() -> None:
    ship = ship_id("red", ("blue", "green"))
    board = [broker(0, 4, "n1.port"), broker(1, 3, "n1.port"), broker(2, 1, "n1.port")]
    state, _ = settle(counting(3, board=board, ports=(ship, *new_game(3).ports[1:])))
    assert state.port_pool == ("blue", "green", "red")
    assert [(g.party, g.count) for g in state.grants] == [(0, 2), (1, 1)]


def test_two_players_three_neighbourhoods_a_neutral_party_and_order_cards_one_and_two() -> None:
    state = new_game(2)
    assert state.neighbourhoods == 3 and state.parties == 3
    assert sorted(state.order_cards) == [1, 2]
    assert state.neutral_pool == (NEUTRAL_BROKERS, NEUTRAL_BROKERS)


def test_ys_express_nine_brokers_three_rounds_no_white_ship() -> None:
    state = new_game(4, Options(express=True))
    assert state.screens[0] == EXPRESS_BROKERS and state.rounds == 3
    ships = {s.id: s for s in RULES.catalog.ships}
    assert not any(ships[s].has_white for s in (*state.ship_deck, *state.ports))


def test_variants_need_three_or_four_players_unless_allowed_with_two() -> None:
    with pytest.raises(SetupError):
        start(2, express=True)
    with pytest.raises(SetupError):
        start(2, kings_favor=True)
    start(2, express=True, variants_with_two=True)


def test_out_of_range_options_are_a_setup_error() -> None:
    with pytest.raises(SetupError):
        start(4, price_limit=0)
    with pytest.raises(SetupError):
        start(3, three_player_neighbourhoods=5)
    with pytest.raises(SetupError):
        start(5)


# -- bidding and placement ------------------------------------------------------------------------


def test_bids_are_two_brokers_from_behind_the_screen() -> None:
    state = new_game(4)
    reject(state, 0, Bid((4,)))
    reject(state, 0, Bid((4, 4, 4)))
    reject(state, 0, Bid((2, 2)))  # only one '2'
    state, _ = play(state, 0, Bid((4, 4)))
    assert state.screens[0] == (0, 0, 1, 1, 1, 2, 3, 3, 3)


def test_market_square_holds_one_broker_and_pays_one_gold_at_once() -> None:
    state = placing(seat=0)
    state, _ = play(state, 0, PlaceBroker(1, "m1.red", True))
    assert state.scores[0] == 1 and state.vp_market[0] == 1
    state, _ = play(state, 0, PlaceBroker(3, "n1.port", False))
    reject(state, 1, PlaceBroker(1, "m1.red", False))


def test_four_rounds_then_the_leftover_joins_the_bid_in_front_of_the_screen() -> None:
    state = new_game(4)
    state, _ = drive(state, until=lambda s: s.phase not in (BID, "order", "window", PLACE))
    assert all(len(f) == 3 for f in state.front) and all(s == () for s in state.screens)


def test_two_players_place_a_neutral_broker_each_round_unseen() -> None:
    state = placing(2, seat=0, neutral_pool=(NEUTRAL_BROKERS, NEUTRAL_BROKERS))
    state, _ = play(state, 0, PlaceBroker(1, "n1.port", True))
    state, _ = play(state, 0, PlaceBroker(3, "n2.port", False))
    assert state.queue[0] == 0  # the neutral broker is still owed
    state, events = play(state, 0, PlaceNeutral("n3.palace"))
    placed = next(e for e in events if isinstance(e, NeutralPlaced))
    assert placed.value in NEUTRAL_BROKERS and len(state.neutral_pool[0]) == 3
    assert GAME.view(state, 0).board[-1].value is None and GAME.view(state, 1).board[-1].value is None
    assert GAME.redact_event(placed, 0).value == -1
    assert state.queue[0] == 1


def test_neutral_player_wins_every_tie_it_is_part_of() -> None:
    board = [broker(0, 3, "n1.commercial"), Broker(2, 3, "n1.commercial", True, 0, 0)]
    state, events = settle(counting(2, board=board, front=[(4, 4), (0, 0)]))
    counted = next(e for e in events if isinstance(e, NeighbourhoodCounted))
    assert counted.commercial == 2 and state.scores[2] == 3


def test_neutral_player_discards_a_won_card_for_the_top_quoted_gem_but_keeps_king_points() -> None:
    board = [Broker(2, 0, "n1.palace", True, 0, 0)]
    state = counting(2, board=board, prices=(0, 0, 3, 0))
    state, events = settle(put(state, offered=("jeweler", *state.offered[1:])))
    assert CharacterWon(1, 2, "jeweler", 0, "yellow") in events and state.gems[2][2] >= 1
    state = counting(2, board=board)
    state, events = settle(put(state, offered=("king", *state.offered[1:])))
    assert state.scores[2] == 5


# -- counting ----------------------------------------------------------------------------------------


def test_an_empty_palace_discards_its_card_and_an_empty_neighbourhood_gives_nothing() -> None:
    state, events = settle(counting(4, board=[broker(1, 0, "n2.port")]))
    assert CharacterDiscarded(1, new_game(4).offered[0]) in events
    assert state.gems[1][4] == 1  # a lone 0 broker wins its area


def test_a_white_gem_in_a_port_is_exchanged_at_once_for_a_colour_of_choice() -> None:
    ship = ship_id("green", ("red", "white"))
    board = [broker(0, 1, "n1.port")]
    state, _ = settle(counting(4, board=board, ports=(ship, *new_game(4).ports[1:])))
    legal = GAME.legal_actions(state, 0)
    assert TakeGems(("green", "white"), "red") in legal and TakeGems(("green", "green")) in legal
    state, events = play(state, 0, TakeGems(("red", "white"), "yellow"))
    assert state.gems[0][:4] == (0, 0, 1, 1)


def test_brokers_go_back_behind_the_screen_after_their_neighbourhood() -> None:
    board = [broker(0, 4, "n1.port"), broker(0, 3, "m2.red")]
    state, events = drive(counting(4, board=board), until=lambda s: s.phase == BID)
    assert BrokersReturned("n1") in events and BrokersReturned("market") in events
    assert 4 in state.screens[0] and 3 in state.screens[0]


# -- the King's Favor --------------------------------------------------------------------------------


def test_kings_favor_one_tie_break_broker_to_the_throne_and_a_two_behind_the_screen() -> None:
    state = counting(4, board=[], front=[(0, 1, 4)] * 4, options=Options(kings_favor=True), twos=(3,) * 4)
    state, _ = drive(state, until=lambda s: s.phase == THRONE)
    assert GAME.active_players(state) == (0, 1, 2, 3)
    reject(state, 0, SendToThrone(2))
    state, events = play(state, 0, SendToThrone(4))
    assert GAME.redact_event(next(e for e in events if isinstance(e, ThroneChosen)), 1).value == -1
    for seat in (1, 2, 3):
        state, _ = play(state, seat, SendToThrone(0))
    assert [b.value for b in state.throne[0]] == [4]
    assert state.screens[0] == (0, 1, 2) and state.twos[0] == 2 and state.turn == 2


def test_kings_favor_throne_scores_twelve_seven_three_zero() -> None:
    state = put(new_game(4, Options(kings_favor=True)), phase=OVER)
    thrones = [[4, 4], [3, 1], [2], [0]]
    state = put(
        state,
        throne=tuple(tuple(Broker(p, v, "throne", False, 1 << p) for v in t) for p, t in enumerate(thrones)),
    )
    assert [s["throne"] for s in score_breakdowns(state)] == [12, 7, 3, 0]


# -- the end -----------------------------------------------------------------------------------------


def test_black_gems_score_by_the_table() -> None:
    state = put(new_game(4), gems=((0, 0, 0, 0, 1), (0, 0, 0, 0, 3), (0, 0, 0, 0, 7), (0, 0, 0, 0, 9)))
    assert [s["black_gems"] for s in score_breakdowns(state)] == [1, 8, 24, 24]


def test_most_gold_wins_and_a_tie_goes_to_the_most_gems() -> None:
    state = put(
        new_game(4),
        phase=OVER,
        scores=(10, 10, 0, 0),
        vp_market=(10, 10, 0, 0),
        gems=((0, 0, 0, 0, 0), (0, 0, 0, 0, 0), (0, 0, 0, 0, 0), (0, 0, 0, 0, 0)),
    )
    assert GAME.outcome(state).winners == (0, 1)  # shared
    state = put(
        state,
        gems=((0, 0, 0, 0, 0), (0, 0, 0, 0, 0), (0, 0, 0, 0, 0), (0, 0, 0, 0, 0)),
        vp_market=(11, 10, 0, 0),
    )
    assert GAME.outcome(state).winners == (0,)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_game_lasts_four_turns_and_breakdowns_sum_to_scores(players: int) -> None:
    playout = random_playout(GAME, players, 11)
    assert playout.final.turn == 4 and playout.final.phase == OVER
    for result in playout.outcome.results:
        assert sum(result.breakdown.values()) == result.score
    assert set(playout.outcome.winners) <= set(range(players))


def test_two_players_a_neutral_biggest_contributor_moves_no_quotation() -> None:
    board = [Broker(2, 4, "m2.blue", True, 0, 0), broker(0, 1, "m3.red")]
    state, events = drive(
        counting(2, board=board, market_gems=("", "", "", "")), until=lambda s: s.phase == BID
    )
    from services.ys.model import NoContributor

    assert NoContributor(2) in events


def test_three_players_score_the_first_three_places_of_the_gem_table() -> None:
    state = put(new_game(3), gems=((3, 0, 0, 0, 0), (2, 0, 0, 0, 0), (1, 0, 0, 0, 0)))
    assert [s["gems_blue"] for s in score_breakdowns(state)] == [24, 18, 12]


def test_kings_favor_no_two_is_taken_after_the_last_turn() -> None:
    state = counting(
        4, board=[], front=[(0, 1, 4)] * 4, options=Options(kings_favor=True), twos=(0,) * 4, turn=4
    )
    state, _ = drive(state, until=lambda s: s.phase == THRONE)
    for seat in range(4):
        state, events = play(state, seat, SendToThrone(1))
    assert state.phase == OVER and state.screens[0] == (0, 4)
    assert GAME.outcome(state).results[0].breakdown["throne"] == 5  # a four-way tie: 22 // 4


def test_cards_won_this_turn_join_the_hand_at_the_end_of_the_turn() -> None:
    state = counting(4, board=[broker(0, 1, "n1.palace")])
    state = put(state, offered=("spy", *state.offered[1:]))
    state, _ = drive(state, until=lambda s: s.phase == BID)
    assert state.hands[0] == ("spy",) and state.new_cards[0] == () and state.turn == 2


def test_three_players_a_white_small_gem_goes_on_its_row_like_any_other() -> None:
    state = new_game(3)
    white = ship_id("blue", ("red", "white"))
    event = RULES._turn_start(put(state, ship_deck=(*state.ship_deck[:4], white, *state.ship_deck[5:])), 2)
    assert event.market_gems == ("", "", "red", "white")


def test_two_players_may_agree_that_the_placer_chooses_the_neutral_broker() -> None:
    options = Options(neutral_chosen=True)
    state = placing(2, seat=0, options=options, neutral_pool=(NEUTRAL_BROKERS, NEUTRAL_BROKERS))
    reject(state, 0, PlaceNeutral("n3.palace"))  # a value must be chosen
    reject(state, 0, PlaceNeutral("n3.palace", 3))  # there is no neutral 3
    state, events = play(state, 0, PlaceNeutral("n3.palace", 4))
    placed = next(e for e in events if isinstance(e, NeutralPlaced))
    assert state.neutral_pool[0] == (0, 1, 2)
    assert GAME.view(state, 0).board[-1].value == 4 and GAME.view(state, 1).board[-1].value is None
    assert GAME.redact_event(placed, 0).value == 4 and GAME.redact_event(placed, 1).value == -1
    assert GAME.view(state, 0).seats[0].neutral_pool == (0, 1, 2)
    assert GAME.view(state, 1).seats[0].neutral_pool is None


def test_an_unseen_neutral_broker_takes_no_value_from_its_placer() -> None:
    state = placing(2, seat=0, neutral_pool=(NEUTRAL_BROKERS, NEUTRAL_BROKERS))
    reject(state, 0, PlaceNeutral("n3.palace", 4))
