"""The rulebook's worked examples [SEED p.6, p.8, p.9, p.13] as scenarios."""

from __future__ import annotations

from services.ys import GAME
from services.ys.model import (
    COUNT,
    ORDER,
    Bid,
    BidsRevealed,
    ChooseOrderCard,
    ColumnsRanked,
    GemsTaken,
    MarketCounted,
    MoveQuotation,
    NeighbourhoodCounted,
    QuotationMoved,
    RankColumns,
    TakeGems,
)
from services.ys.scoring import majority_points, score_breakdowns, shared_points
from services.ys.tables import GEM_TABLE, THRONE_POINTS
from tests.ys.helpers import (
    BLUE,
    ORANGE,
    PURPLE,
    YELLOW,
    broker,
    counting,
    new_game,
    play,
    put,
    settle,
    ship_id,
)


def test_bidding_example_highest_bid_chooses_first_and_ties_go_to_the_lower_previous_card() -> None:
    # Bids: blue 1, orange 5, purple 6, yellow 5; orange held order card 2, lower than yellow's 3.
    state = put(new_game(4), order_cards=(1, 2, 4, 3))
    for seat, bid in ((BLUE, (0, 1)), (ORANGE, (1, 4)), (PURPLE, (3, 3)), (YELLOW, (1, 4))):
        state, events = play(state, seat, Bid(bid))
    revealed = next(e for e in events if isinstance(e, BidsRevealed))
    assert revealed.choosing_order == (PURPLE, ORANGE, YELLOW, BLUE)
    assert state.phase == ORDER and state.queue[0] == PURPLE
    state, _ = play(state, PURPLE, ChooseOrderCard(4))
    state, _ = play(state, ORANGE, ChooseOrderCard(1))
    state, _ = play(state, YELLOW, ChooseOrderCard(3))
    # Blue gets the last card without a decision.
    assert state.order_cards == (2, 1, 4, 3)
    assert state.previous_order == (1, 2, 4, 3)
    # The bid brokers stay face up in front of the screens as tie-breakers.
    assert state.front == ((0, 1), (1, 4), (3, 3), (1, 4))


def _neighbourhood_example():
    board = [
        broker(BLUE, 3, "n1.port"),
        broker(BLUE, 4, "n1.palace"),
        broker(BLUE, 2, "n1.palace", face_up=False),
        broker(ORANGE, 4, "n1.commercial"),
        broker(ORANGE, 1, "n1.port", face_up=False),
        broker(PURPLE, 3, "n1.port"),
        broker(PURPLE, 3, "n1.palace"),
        broker(YELLOW, 4, "n1.port"),
        broker(YELLOW, 4, "n1.commercial", face_up=False),
    ]
    ports = (ship_id("blue", ("red", "green")),) + new_game(4).ports[1:]
    state = counting(
        board=board,
        front=[(1, 4), (1, 4), (3, 4), (2, 4)],  # tie-break values 5, 5, 7, 6
        order_cards=(2, 1, 4, 3),
        ports=ports,
    )
    return settle(state)


def test_neighbourhood_example_ranks_by_total_and_awards_the_areas() -> None:
    # Totals: blue 4+3+2 = 9, orange 4+1 = 5, purple 3+3 = 6, yellow 4+4 = 8.
    state, events = _neighbourhood_example()
    counted = next(e for e in events if isinstance(e, NeighbourhoodCounted))
    assert counted.ranking == (BLUE, YELLOW, PURPLE, ORANGE)
    assert counted.port == YELLOW  # 4 against 3, 3 and 1: a black gem
    assert counted.commercial == YELLOW  # 4-4 with orange; tie-break 6 beats 5: 3 gold
    assert counted.palace == BLUE
    assert {i for i, _ in counted.revealed} == {2, 4, 8}  # the face-down brokers turn up
    assert state.gems[YELLOW][4] == 1 and state.scores[YELLOW] == 3
    # Blue, first, chooses two of the four gems (the large blue counts twice).
    assert state.phase == COUNT and state.port_pool == ("blue", "blue", "green", "red")
    assert tuple(GAME.active_players(state)) == (BLUE,)


def test_neighbourhood_example_gem_choices_go_down_the_ranking_and_the_last_gem_is_automatic() -> None:
    state, _ = _neighbourhood_example()
    state, _ = play(state, BLUE, TakeGems(("blue", "red")))
    assert tuple(GAME.active_players(state)) == (YELLOW,)
    state, events = play(state, YELLOW, TakeGems(("blue",)))
    # Purple, third, takes the green that is left without a choice; orange gets nothing.
    taken = [e for e in events if isinstance(e, GemsTaken)]
    assert taken[-1] == GemsTaken(PURPLE, "port", ("green",))
    assert state.gems[BLUE][:4] == (1, 0, 0, 1)
    assert state.gems[YELLOW][:4] == (1, 0, 0, 0)
    assert state.gems[PURPLE][:4] == (0, 1, 0, 0)
    assert state.gems[ORANGE] == (0, 0, 0, 0, 0)
    # Blue took the palace's character card into its hand (playable from next turn).
    assert len(state.new_cards[BLUE]) == 1


def _market_example():
    board = [
        broker(BLUE, 4, "m1.blue"),
        broker(ORANGE, 4, "m1.green", face_up=False),
        broker(YELLOW, 0, "m2.blue"),
        broker(YELLOW, 2, "m2.yellow"),
        broker(YELLOW, 1, "m2.red", face_up=False),
        broker(PURPLE, 3, "m3.red"),
    ]
    state = counting(
        board=board,
        front=[(1, 4), (1, 4), (3, 4), (2, 4)],  # tie-break values: blue 5, orange 5, purple 7, yellow 6
        order_cards=(2, 1, 4, 3),
        market_gems=("", "white", "yellow", "red"),
    )
    return settle(state)


def test_market_example_rows_go_to_the_highest_total_and_ties_to_the_lower_order_card() -> None:
    state, events = _market_example()
    market = next(e for e in events if isinstance(e, MarketCounted))
    # Row 1: blue 4 and orange 4, tie-break values 5 and 5: orange's order card 1 beats 2.
    assert market.rows == (-1, ORANGE, YELLOW, PURPLE)
    assert market.column_values == (4, 4, 2, 4) and market.column_brokers == (2, 1, 1, 2)
    # Orange exchanges the white gem for a coloured gem of its choice.
    assert tuple(GAME.active_players(state)) == (ORANGE,)
    state, events = play(state, ORANGE, TakeGems(("white",), "green"))
    assert state.gems[ORANGE][:4] == (0, 1, 0, 0)
    assert state.gems[YELLOW][:4] == (0, 0, 1, 0) and state.gems[PURPLE][:4] == (0, 0, 0, 1)


def test_market_example_tied_columns_go_by_brokers_then_the_highest_tie_break_decides() -> None:
    state, _ = _market_example()
    state, _ = play(state, ORANGE, TakeGems(("white",), "green"))
    # Blue, green and red total 4; blue and red have two brokers; purple (tie-break 7) orders them.
    assert state.deciding == PURPLE and tuple(GAME.active_players(state)) == (PURPLE,)
    assert {tuple(a.order) for a in GAME.legal_actions(state, PURPLE)} == {
        ("blue", "red", "green", "yellow"),
        ("red", "blue", "green", "yellow"),
    }
    state, events = play(state, PURPLE, RankColumns(("blue", "red", "green", "yellow")))
    ranked = next(e for e in events if isinstance(e, ColumnsRanked))
    assert ranked.moves == (2, -1, -2, 1)  # blue +2, green -1, yellow -2, red +1
    # Biggest contributor: orange 4 and blue 4 tie; orange wins on the order card.
    assert tuple(GAME.active_players(state)) == (ORANGE,)
    state, events = play(state, ORANGE, MoveQuotation("green", 1))
    assert QuotationMoved(ORANGE, "green", 1, 1) in events
    assert state.prices == (2, 0, -2, 1)


def test_end_scoring_example_equal_quotations_rank_the_leftmost_gem_first() -> None:
    # Blue and red level at the top: blue ranks first (24/18/12/6), red second (20/15/10/5).
    state = put(
        new_game(4),
        prices=(3, 0, -1, 3),
        gems=((6, 0, 0, 1, 0), (5, 0, 0, 3, 0), (5, 0, 0, 0, 0), (3, 0, 0, 0, 0)),
    )
    sheets = score_breakdowns(state)
    # Players A 6, B 5, C 5, D 3 blue gems: 24, 12, 12, 6 (the tied players drop a place).
    assert [s["gems_blue"] for s in sheets] == [24, 12, 12, 6]
    assert [s["gems_red"] for s in sheets] == [15, 20, 0, 0]


def test_tied_players_take_the_lower_place_and_the_higher_one_is_lost() -> None:
    assert majority_points([6, 5, 5, 3], GEM_TABLE[0]) == [24, 12, 12, 6]
    assert majority_points([2, 2, 2, 2], GEM_TABLE[3]) == [3, 3, 3, 3]
    assert majority_points([0, 4, 0, 1], GEM_TABLE[1]) == [0, 20, 0, 15]


def test_kings_favor_example_tied_players_share_the_points_of_their_places() -> None:
    # Two players tie for first: (12 + 7) / 2 = 9 each; the third scores 3.
    assert shared_points([8, 8, 5, 2], THRONE_POINTS) == [9, 9, 3, 0]
    assert shared_points([4, 4, 4, 4], THRONE_POINTS) == [5, 5, 5, 5]  # 22 / 4 rounded down
