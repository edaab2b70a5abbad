"""Views and redacted events show what a seat with perfect memory of the table knows, no more."""

from __future__ import annotations

from services.kernel import Rng
from services.kernel.testing import random_playout
from services.ys import GAME
from services.ys.model import BID, Bid, BidPlaced, BrokerPlaced, Options, PlaceBroker
from services.ys.views import resample_hidden
from tests.ys.helpers import broker, drive, new_game, placing, play, put


def test_only_the_owner_sees_behind_a_screen() -> None:
    state = new_game(4)
    assert GAME.view(state, 0).seats[0].screen == state.screens[0]
    assert GAME.view(state, 0).seats[1].screen is None
    assert GAME.view(state, None).seats[0].screen is None
    assert GAME.view(state, 1).seats[0].screen_size == 11


def test_a_bid_is_secret_until_every_bid_is_in() -> None:
    state = new_game(4)
    state, events = play(state, 2, Bid((3, 4)))
    assert GAME.view(state, 2).seats[2].bid == (3, 4)
    assert GAME.view(state, 0).seats[2].bid is None and GAME.view(state, 0).seats[2].has_bid
    assert GAME.redact_event(events[0], 0) == BidPlaced(2, ())
    assert GAME.redact_event(events[0], 2) == BidPlaced(2, (3, 4))


def test_face_down_brokers_are_hidden_from_the_others_and_shown_to_their_owner() -> None:
    state = placing(seat=0)
    state, events = play(state, 0, PlaceBroker(4, "n1.port", False))
    assert GAME.view(state, 0).board[0].value == 4
    assert GAME.view(state, 1).board[0].value is None and GAME.view(state, None).board[0].value is None
    placed = next(e for e in events if isinstance(e, BrokerPlaced))
    assert GAME.redact_event(placed, 1).value == -1 and GAME.redact_event(placed, 0).value == 4


def test_experts_may_not_look_at_their_own_face_down_brokers() -> None:
    state = placing(seat=0, options=Options(see_own_face_down=False))
    state, events = play(state, 0, PlaceBroker(4, "n1.port", False))
    assert GAME.view(state, 0).board[0].value is None
    placed = next(e for e in events if isinstance(e, BrokerPlaced))
    assert GAME.redact_event(placed, 0).value == -1


def test_character_hands_are_public_because_every_card_is_won_face_up() -> None:
    state = new_game(4)
    state = put(state, hands=(("spy",), (), (), ()))
    assert GAME.view(state, 3).seats[0].hand == ("spy",)


def test_deck_order_and_face_down_character_piles_are_not_in_any_view() -> None:
    state = new_game(4)
    view = GAME.view(state, 0)
    visible = {*view.ports, *view.offered, *(c for seat in view.seats for c in seat.hand)}
    assert not visible & set(state.ship_deck)
    assert not visible & {c for pile in state.piles for c in pile}
    assert view.ship_deck_size == len(state.ship_deck) and view.pile_sizes == (2, 2, 2, 2)


def test_resampling_what_a_seat_cannot_see_never_changes_its_view() -> None:
    for players, options in (
        (4, Options()),
        (2, Options()),
        (3, Options(kings_favor=True, see_own_face_down=False)),
    ):
        playout = random_playout(GAME, players, 3, options)
        # Replay to a few points of the game and resample there.
        state = GAME.start(playout.config)
        for n, step in enumerate(playout.steps):
            state = GAME.evolve(state, step.events)
            if n % 37 == 0:
                for viewer in range(players):
                    other = resample_hidden(state, viewer, Rng.from_seed(n + viewer))
                    assert GAME.codec.encode_json(GAME.view(other, viewer)) == GAME.codec.encode_json(
                        GAME.view(state, viewer)
                    )


def test_resampling_really_moves_hidden_brokers() -> None:
    state, _ = drive(new_game(4), until=lambda s: s.phase != BID and s.round == 3)
    moved = False
    for seed in range(5):
        other = resample_hidden(state, 0, Rng.from_seed(seed))
        moved |= other.screens[1] != state.screens[1] or other.board != state.board
    assert moved


def test_a_spectator_sees_a_tie_break_broker_that_left_the_front_of_a_screen() -> None:
    """Every seat saw the Conjurer's broker leave the front of the screen: so does a spectator."""
    state = placing(seat=0, front=((0, 4), (0, 0), (0, 0), (0, 0)), screens=((1, 3),) * 4)
    state = put(state, from_front=(True, False, False, False))
    state, _ = play(state, 0, PlaceBroker(4, "n2.palace", False, from_front=True))
    assert [GAME.view(state, seat).board[0].value for seat in range(4)] == [4, 4, 4, 4]
    assert GAME.view(state, None).board[0].value == 4


def test_a_spectator_sees_a_face_down_broker_only_once_every_seat_knows_it() -> None:
    known_to_owner = broker(0, 3, "n1.port", face_up=False, known=0b01)
    known_to_both = broker(1, 2, "n1.palace", face_up=False, known=0b11)  # the owner, and a Spy's look
    state = put(new_game(2), board=(known_to_owner, known_to_both))
    spectator = GAME.view(state, None)
    assert spectator.board[0].value is None and GAME.view(state, 1).board[0].value is None
    assert spectator.board[1].value == 2
