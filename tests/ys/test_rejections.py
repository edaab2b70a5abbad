"""Bad actions are refused with a reason and change nothing."""

from __future__ import annotations

import msgspec
import pytest

from services.kernel import NOT_YOUR_TURN
from services.ys import GAME
from services.ys.model import (
    Bid,
    ChooseOrderCard,
    MoveQuotation,
    Pass,
    PlaceBroker,
    PlayCharacter,
    TakeGems,
)
from tests.ys.helpers import new_game, placing, reject


def test_a_seat_not_on_turn_is_told_so() -> None:
    state = placing(seat=2)
    assert reject(state, 0, PlaceBroker(1, "n1.port", True)).code == NOT_YOUR_TURN


def test_an_action_of_another_phase_is_refused_and_the_state_is_unchanged() -> None:
    state = new_game(4)
    before = GAME.codec.encode_state(state)
    for action in (ChooseOrderCard(1), PlaceBroker(1, "n1.port", True), Pass(), TakeGems(("blue",))):
        assert "bid two brokers" in reject(state, 0, action).message
    assert GAME.codec.encode_state(state) == before


def test_unknown_places_and_brokers_you_do_not_have_are_refused() -> None:
    state = placing(seat=0)
    reject(state, 0, PlaceBroker(1, "n9.port", True))
    reject(state, 0, PlaceBroker(1, "harbour", True))
    reject(state, 0, PlaceBroker(0, "n1.port", True))  # no 0 left behind this screen
    reject(state, 0, PlayCharacter("king"))
    reject(state, 0, MoveQuotation("blue", 1))


def test_cards_not_in_hand_are_refused() -> None:
    state = placing(seat=0)
    assert "no 'queen'" in reject(state, 0, PlayCharacter("queen", place="n1.port")).message


@pytest.mark.parametrize(
    "payload",
    [
        b'{"type":"bid","values":[5,0]}',
        b'{"type":"choose_order_card","card":7}',
        b'{"type":"move_quotation","colour":"blue","step":2}',
        b'{"type":"place_broker","value":1,"place":"n1.port","face_up":true,"extra":1}',
    ],
)
def test_out_of_range_or_unknown_fields_do_not_decode(payload: bytes) -> None:
    with pytest.raises(msgspec.ValidationError):
        GAME.codec.decode_action(payload)


def test_bid_refuses_brokers_you_do_not_hold() -> None:
    state = new_game(4)
    assert "behind your screen" in reject(state, 1, Bid((2, 2))).message


def test_a_bid_lists_its_values_lowest_first_so_each_bid_has_one_spelling() -> None:
    state = new_game(4)
    assert "lowest first" in reject(state, 0, Bid((4, 1))).message
    assert Bid((1, 4)) in GAME.legal_actions(state, 0) and Bid((4, 1)) not in GAME.legal_actions(state, 0)
