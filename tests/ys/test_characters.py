"""One scenario per character card [SEED p.10-12], the card limit and when cards may be played."""

from __future__ import annotations

from typing import Any

from services.ys import GAME
from services.ys.model import (
    COUNTING_END,
    COUNTING_START,
    PLACE,
    PLACEMENT_START,
    WINDOW,
    BrokerPeeked,
    CharacterWon,
    NeighbourhoodCounted,
    Options,
    Pass,
    Peek,
    PlaceBroker,
    PlayCharacter,
    ReplaceFront,
    State,
    TakeGems,
)
from services.ys.views import redact_event
from tests.ys.helpers import broker, counting, drive, placing, play, put, reject, settle


def window(name: str, seat: int, hands: dict[int, tuple[str, ...]], **changes: Any) -> State:
    state = placing(4, seat=seat, **changes)
    full = tuple(hands.get(p, ()) for p in range(4))
    return put(state, phase=WINDOW, window=name, queue=(seat,), hands=full)


def palace_win(card: str, players: int = 4) -> tuple[State, list[Any]]:
    """Seat 0 alone in neighbourhood 1's palace, which offers `card`."""
    state = counting(players, board=[broker(0, 1, "n1.palace")])
    offered = (card,) + state.offered[1:]
    state, events = settle(put(state, offered=offered))
    state, more = play(state, 0, GAME.legal_actions(state, 0)[0])  # seat 0's two port gems
    return state, events + more


# -- cards that act when won ----------------------------------------------------------------


def test_king_pays_five_gold_at_once_and_never_enters_the_hand() -> None:
    state, events = palace_win("king")
    assert CharacterWon(1, 0, "king", 5) in events
    assert state.scores[0] == 5 and state.vp_characters[0] == 5
    assert "king" not in state.new_cards[0] and state.played[0] == 0


def test_prince_pays_four_gold_at_once() -> None:
    state, events = palace_win("prince")
    assert state.scores[0] == 4 and "prince" not in state.new_cards[0]


def test_blue_card_gives_a_coloured_gem_of_the_winners_choice() -> None:
    state, _ = palace_win("blue1")
    legal = GAME.legal_actions(state, 0)
    assert legal == [TakeGems(("white",), c) for c in ("blue", "green", "yellow", "red")]
    state, _ = play(state, 0, TakeGems(("white",), "yellow"))
    assert state.gems[0][2] == 1 and state.played[0] == 0


def test_a_yellow_card_won_is_playable_only_from_the_next_turn() -> None:
    state, _ = palace_win("jeweler")
    assert state.new_cards[0] == ("jeweler",) and state.hands[0] == ()


# -- clock: end of the counting phase -------------------------------------------------------


def test_jeweler_takes_two_gems_of_one_colour_not_black() -> None:
    state = window(COUNTING_END, 1, {1: ("jeweler",)})
    assert PlayCharacter("jeweler", colours=("black",)) not in GAME.legal_actions(state, 1)
    state, _ = play(state, 1, PlayCharacter("jeweler", colours=("red",)))
    assert state.gems[1] == (0, 0, 0, 2, 0) and state.hands[1] == ()


def test_alchemist_swaps_one_of_your_gems_for_another_colour() -> None:
    state = window(COUNTING_END, 2, {2: ("alchemist",)}, gems=((0,) * 5, (0,) * 5, (1, 0, 0, 0, 3), (0,) * 5))
    legal = GAME.legal_actions(state, 2)
    assert PlayCharacter("alchemist", colours=("blue", "red")) in legal
    assert all(a.colours[0] == "blue" for a in legal if isinstance(a, PlayCharacter))  # black cannot go
    state, _ = play(state, 2, PlayCharacter("alchemist", colours=("blue", "red")))
    assert state.gems[2] == (0, 0, 0, 1, 3)


def test_alchemist_is_optional_a_holder_may_pass() -> None:
    state = window(COUNTING_END, 2, {2: ("alchemist",)}, gems=((0,) * 5, (0,) * 5, (1, 0, 0, 0, 0), (0,) * 5))
    state, _ = play(state, 2, Pass())
    assert state.hands[2] == ("alchemist",)


def test_banker_moves_one_quotation_up_and_another_down_within_the_scale() -> None:
    state = window(COUNTING_END, 0, {0: ("banker",)}, prices=(0, 8, 0, -8))
    assert PlayCharacter("banker", colours=("red", "red")) not in GAME.legal_actions(state, 0)
    state, _ = play(state, 0, PlayCharacter("banker", colours=("green", "red")))
    assert state.prices == (0, 8, 0, -8)  # both already at the ends of the scale
    state = window(COUNTING_END, 0, {0: ("banker",)})
    state, _ = play(state, 0, PlayCharacter("banker", colours=("yellow", "blue")))
    assert state.prices == (-1, 0, 1, 0)


# -- coin: start of the counting phase --------------------------------------------------------


def test_captain_swaps_two_ship_cards_in_the_ports() -> None:
    state = window(COUNTING_START, 3, {3: ("captain",)})
    ports = state.ports
    state, _ = play(state, 3, PlayCharacter("captain", ports=(1, 4)))
    assert state.ports == (ports[3], ports[1], ports[2], ports[0])


def test_merchant_makes_every_commercial_majority_pay_five_to_whoever_wins_it() -> None:
    state = counting(board=[broker(1, 2, "n1.commercial"), broker(2, 0, "n2.commercial")])
    state = put(state, queue=(0,), hands=(("merchant",), (), (), ()))
    state, _ = play(state, 0, PlayCharacter("merchant"))
    state, _ = drive(state, until=lambda s: s.counting == s.neighbourhoods)
    assert state.scores[1] == 5 and state.scores[2] == 5 and state.scores[0] == 0


def test_without_the_merchant_a_commercial_majority_pays_three() -> None:
    state, _ = settle(counting(board=[broker(1, 0, "n3.commercial")]))
    assert state.scores[1] == 3 and state.vp_commercial[1] == 3


def test_intriguer_wins_every_tie_of_the_counting() -> None:
    # Seat 0 has the lower tie-break value (0 against 8) but holds the Intriguer.
    board = [broker(0, 3, "n1.port"), broker(1, 3, "n1.port")]
    state = counting(board=board, front=[(0, 0), (4, 4), (0, 0), (0, 0)])
    state = put(state, queue=(0,), hands=(("intriguer",), (), (), ()))
    state, _ = play(state, 0, PlayCharacter("intriguer"))  # the window then closes by itself
    assert state.gems[0][4] == 1 and state.gems[1][4] == 0  # the port's black gem


def test_intriguer_holder_orders_columns_tied_on_value_and_brokers() -> None:
    board = [broker(1, 2, "m2.blue"), broker(2, 2, "m2.green")]
    state = counting(board=board, front=[(0, 0), (0, 0), (0, 0), (4, 4)], market_gems=("", "", "", ""))
    state = put(state, queue=(0,), hands=(("intriguer",), (), (), ()))
    state, _ = play(state, 0, PlayCharacter("intriguer"))  # the window then closes by itself
    assert state.deciding == 0  # not seat 3, whose tie-break value is highest


# -- person: start of the placement phase -------------------------------------------------------


def test_bishop_lets_both_brokers_of_a_round_go_face_down() -> None:
    state = window(PLACEMENT_START, 0, {0: ("bishop",)})
    state, _ = play(state, 0, PlayCharacter("bishop"))
    assert state.phase == PLACE and state.queue[0] == 0
    state, _ = play(state, 0, PlaceBroker(3, "n1.port", False))
    assert PlaceBroker(4, "n1.port", False) in GAME.legal_actions(state, 0)
    state, _ = play(state, 0, PlaceBroker(4, "n1.port", False))
    assert state.queue[0] == 1


def test_without_the_bishop_one_broker_goes_face_up_and_one_face_down() -> None:
    state = placing(seat=0)
    state, _ = play(state, 0, PlaceBroker(3, "n1.port", False))
    reject(state, 0, PlaceBroker(4, "n1.port", False))
    assert all(a.face_up for a in GAME.legal_actions(state, 0) if isinstance(a, PlaceBroker))


def test_conjurer_places_a_tie_break_broker_and_replaces_it_face_up_from_behind_the_screen() -> None:
    state = placing(seat=0, front=((0, 4), (0, 0), (0, 0), (0, 0)), screens=((1, 3),) + ((1, 3),) * 3)
    state = put(state, from_front=(True, False, False, False))
    state, _ = play(state, 0, PlaceBroker(4, "n2.palace", True, from_front=True))
    assert GAME.legal_actions(state, 0) == [ReplaceFront(1), ReplaceFront(3)]
    state, _ = play(state, 0, ReplaceFront(3))
    assert state.front[0] == (0, 3) and state.screens[0] == (1,)


def test_conjurer_must_be_played_to_place_from_the_front() -> None:
    state = placing(seat=0, front=((0, 4),) * 4)
    reject(state, 0, PlaceBroker(4, "n2.palace", True, from_front=True))


def test_spy_looks_at_three_hidden_brokers_and_only_the_spy_learns_their_values() -> None:
    hidden = [broker(1, 4, "n1.port", False), broker(2, 0, "n2.port", False), broker(3, 3, "m2.red", False)]
    hidden.append(broker(1, 1, "n4.palace", False))
    state = window(PLACEMENT_START, 0, {0: ("spy",)}, board=tuple(hidden))
    state, _ = play(state, 0, PlayCharacter("spy"))
    assert state.peeks[0] == 3
    state, events = play(state, 0, Peek(broker=0))
    peeked = next(e for e in events if isinstance(e, BrokerPeeked))
    assert peeked.value == 4 and redact_event(peeked, 1).value == -1
    assert GAME.view(state, 0).board[0].value == 4 and GAME.view(state, 2).board[0].value is None
    state, _ = play(state, 0, Peek(broker=1))
    state, _ = play(state, 0, Peek(broker=2))
    assert state.peeks[0] == 0
    assert not any(isinstance(a, Peek) for a in GAME.legal_actions(state, 0))


def test_two_character_cards_per_turn_at_most() -> None:
    state = window(PLACEMENT_START, 0, {0: ("bishop", "conjurer", "spy")})
    state, _ = play(state, 0, PlayCharacter("bishop"))
    state, _ = play(state, 0, PlayCharacter("spy"))
    assert state.played[0] == 2
    reject(state, 0, PlayCharacter("conjurer"))


# -- person with a star: during your placement ---------------------------------------------------


def test_queen_closes_a_city_area_for_everyone_for_the_rest_of_the_turn() -> None:
    state = placing(seat=0, hands=(("queen",), (), (), ()))
    state, _ = play(state, 0, PlayCharacter("queen", place="n2.port"))
    assert state.closed == ("n2.port",)
    reject(state, 0, PlaceBroker(3, "n2.port", True))
    state, _ = play(state, 0, PlaceBroker(3, "n1.port", True))
    reject(state, 0, PlayCharacter("queen", place="n3.port"))  # only before placing


def test_queen_cannot_close_a_market_square() -> None:
    state = placing(seat=0, hands=(("queen",), (), (), ()))
    reject(state, 0, PlayCharacter("queen", place="m2.blue"))


def test_mercenary_marks_a_broker_just_placed_and_it_counts_five() -> None:
    state = placing(seat=0, hands=(("mercenary",), (), (), ()))
    state, _ = play(state, 0, PlaceBroker(1, "n1.palace", True))
    state, _ = play(state, 0, PlaceBroker(1, "n1.port", False))
    legal = [a for a in GAME.legal_actions(state, 0) if isinstance(a, PlayCharacter)]
    assert {a.brokers for a in legal} == {(0,), (1,)}
    state, _ = play(state, 0, PlayCharacter("mercenary", brokers=(0,)))
    assert state.board[0].mercenary
    other = broker(1, 4, "n1.palace")
    state = counting(board=[state.board[0], other], front=[(0, 0), (4, 4), (0, 0), (0, 0)])
    state, events = settle(state)
    counted = next(e for e in events if isinstance(e, NeighbourhoodCounted))
    assert counted.palace == 0 and counted.ranking == (0, 1)  # 5 beats 4


def test_magician_swaps_two_of_your_brokers_but_not_in_the_queens_area() -> None:
    board = (broker(0, 4, "n1.port"), broker(0, 0, "m2.blue", False), broker(0, 2, "n3.palace"))
    state = placing(seat=0, hands=(("magician",), (), (), ()), board=board, closed=("n3.palace",))
    state, _ = play(state, 0, PlaceBroker(1, "n4.port", True))
    state, _ = play(state, 0, PlaceBroker(1, "n4.port", False))
    legal = [a.brokers for a in GAME.legal_actions(state, 0) if isinstance(a, PlayCharacter)]
    assert (0, 1) in legal and all(2 not in pair for pair in legal)
    state, _ = play(state, 0, PlayCharacter("magician", brokers=(0, 1)))
    assert state.board[0].place == "m2.blue" and state.board[1].place == "n1.port"
    assert state.board[0].face_up and not state.board[1].face_up  # faces are kept
    assert state.scores[0] == 0  # no market gold for a swap


def test_magician_may_swap_with_a_throne_broker_in_the_kings_favor() -> None:
    from services.ys.model import Broker

    state = placing(seat=0, hands=(("magician",), (), (), ()), options=Options(kings_favor=True))
    state = put(state, throne=((Broker(0, 4, "throne", False, 1),), (), (), ()))
    state, _ = play(state, 0, PlaceBroker(3, "n4.port", True))
    state, _ = play(state, 0, PlaceBroker(1, "n4.port", False))
    state, _ = play(state, 0, PlayCharacter("magician", brokers=(0, -1)))
    assert state.throne[0][0].value == 3 and state.board[0].value == 4 and not state.board[0].face_up


def test_herald_moves_a_broker_city_to_market_earns_one_gold_market_to_city_none() -> None:
    state = placing(seat=0, hands=(("herald",), (), (), ()))
    state, _ = play(state, 0, PlaceBroker(1, "n1.palace", True))
    state, _ = play(state, 0, PlaceBroker(3, "m3.green", False))
    assert state.scores[0] == 1
    state, _ = play(state, 0, PlayCharacter("herald", brokers=(0,), place="m2.red"))
    assert state.board[0].place == "m2.red" and state.scores[0] == 2
    assert state.board[0].face_up  # the face is kept
    state = placing(seat=0, hands=(("herald",), (), (), ()), board=(broker(0, 3, "m3.green", False),))
    state, _ = play(state, 0, PlaceBroker(1, "n1.palace", True))
    state, _ = play(state, 0, PlaceBroker(1, "n1.port", False))
    reject(state, 0, PlayCharacter("herald", brokers=(0,), place="m3.green"))  # it is already there
    state, _ = play(state, 0, PlayCharacter("herald", brokers=(0,), place="n2.port"))
    assert state.scores[0] == 0


def test_herald_obeys_the_placement_rules() -> None:
    state = placing(seat=0, hands=(("herald",), (), (), ()), board=(broker(1, 3, "m3.green"),))
    state, _ = play(state, 0, PlaceBroker(1, "n1.palace", True))
    state, _ = play(state, 0, PlaceBroker(1, "n1.port", False))
    reject(state, 0, PlayCharacter("herald", brokers=(1,), place="m3.green"))  # taken square
    reject(state, 0, PlayCharacter("herald", brokers=(0,), place="m1.green"))  # not your broker
    reject(state, 0, PlayCharacter("herald", brokers=(1,), place="m0.green"))  # row 0 is never used
    legal = [a for a in GAME.legal_actions(state, 0) if isinstance(a, PlayCharacter)]
    assert all(a.brokers[0] in (1, 2) for a in legal)  # only your own brokers


def test_a_tie_break_broker_placed_face_down_by_the_conjurer_is_known_to_everyone() -> None:
    state = placing(seat=0, front=((0, 4), (0, 0), (0, 0), (0, 0)), screens=((1, 3),) * 4)
    state = put(state, from_front=(True, False, False, False))
    state, events = play(state, 0, PlaceBroker(4, "n2.palace", False, from_front=True))
    assert GAME.view(state, 2).board[0].value == 4  # it left the front of the screen in sight
    assert GAME.redact_event(events[0], 2).value == 4


def test_spy_may_look_into_the_throne_in_the_kings_favor() -> None:
    from services.ys.model import Broker

    state = window(PLACEMENT_START, 0, {0: ("spy",)}, options=Options(kings_favor=True))
    state = put(state, throne=((), (Broker(1, 3, "throne", False, 1 << 1),), (), ()))
    state, _ = play(state, 0, PlayCharacter("spy"))
    assert Peek(throne_seat=1, throne_slot=0) in GAME.legal_actions(state, 0)
    state, events = play(state, 0, Peek(throne_seat=1, throne_slot=0))
    assert next(e for e in events if isinstance(e, BrokerPeeked)).value == 3
    assert state.throne[1][0].known & 1


def test_herald_cannot_move_into_or_out_of_the_queens_area() -> None:
    board = (broker(0, 3, "n2.port"), broker(0, 2, "n1.port"))
    state = placing(seat=0, hands=(("herald",), (), (), ()), board=board, closed=("n2.port",))
    state, _ = play(state, 0, PlaceBroker(1, "n4.palace", True))
    state, _ = play(state, 0, PlaceBroker(1, "n4.port", False))
    reject(state, 0, PlayCharacter("herald", brokers=(0,), place="n3.port"))  # out of it
    reject(state, 0, PlayCharacter("herald", brokers=(1,), place="n2.port"))  # into it
    play(state, 0, PlayCharacter("herald", brokers=(1,), place="n3.port"))
