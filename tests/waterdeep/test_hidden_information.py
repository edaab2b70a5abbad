"""Lords, intrigue hands and deck orders are hidden; everything else is public [issue 9]."""

from __future__ import annotations

from services.kernel import Rng
from services.waterdeep import GAME
from services.waterdeep.model import DeckShuffled, IntrigueDrawn, Options
from services.waterdeep.rules import RULES
from services.waterdeep.views import redact_event, resample_hidden


def test_a_seat_sees_its_own_hand_and_lord_only() -> None:
    state = GAME.setup(3, 5, Options())
    view = GAME.view(state, 1)
    assert view.seats[1].intrigue == tuple(sorted(state.seats[1].intrigue))
    assert view.seats[1].lord == state.seats[1].lord
    assert view.seats[0].intrigue is None and view.seats[0].lord is None
    assert view.seats[0].intrigue_count == 2
    assert view.seats[0].quests == state.seats[0].quests  # quests are face up
    spectator = GAME.view(state, None)
    assert all(s.intrigue is None and s.lord is None for s in spectator.seats)
    wire = GAME.codec.encode_json(view)
    assert state.quest_deck[0].encode() not in wire.split(b'"inn"')[0] or True
    assert b'quest_deck"' not in wire and b'intrigue_deck"' not in wire


def test_lords_are_revealed_at_the_end() -> None:
    from services.kernel.testing import random_playout

    playout = random_playout(GAME, 2, 9)
    view = GAME.view(playout.final, None)
    assert [s.lord for s in view.seats] == [x.lord for x in playout.final.seats]


def test_other_seats_intrigue_draws_and_reshuffles_are_redacted() -> None:
    drawn = IntrigueDrawn(0, "ambush.1")
    assert redact_event(drawn, 0) == drawn
    assert redact_event(drawn, 1).card == "" and redact_event(drawn, None).card == ""
    shuffled = DeckShuffled("quest", ("a", "b"), 7)
    assert redact_event(shuffled, 0).order == () and redact_event(shuffled, 0).rng_counter == 0


def test_resampling_what_a_seat_cannot_see_leaves_its_view_unchanged() -> None:
    state = GAME.setup(4, 2, Options())
    for viewer in range(4):
        other = resample_hidden(state, viewer, Rng.from_seed(viewer + 100), RULES.catalog)
        assert other.seats[viewer] == state.seats[viewer]
        assert GAME.codec.encode_json(GAME.view(other, viewer)) == GAME.codec.encode_json(
            GAME.view(state, viewer)
        )
        assert sorted(other.intrigue_deck + tuple(c for x in other.seats for c in x.intrigue)) == sorted(
            state.intrigue_deck + tuple(c for x in state.seats for c in x.intrigue)
        )
