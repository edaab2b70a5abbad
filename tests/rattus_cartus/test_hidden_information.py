"""Views and events never show a seat what it may not see."""

from __future__ import annotations

import msgspec

from services.kernel import Rng
from services.kernel.testing import random_playout
from services.rattus_cartus import GAME
from services.rattus_cartus.model import (
    OVER,
    BuildingRevealed,
    CardGiven,
    CardPlayed,
    CardsDrawn,
    ChooseSupply,
    DeckReshuffled,
    EnterBuilding,
    FinishEntering,
    LookAtNun,
    NunLooked,
    PlayCard,
    ResolutionStarted,
    State,
)
from services.rattus_cartus.rules import redact_event, resample_hidden, view
from tests.rattus_cartus.helpers import MONK, WITCH, act, card, decide, enter, entering, scenario


def test_a_seat_sees_its_own_hand_but_only_the_size_of_others() -> None:
    state = scenario(3, rats=(10, 7, 12))
    seen = view(state, 1)
    assert seen.hand == state.hands[1]
    assert [s.hand_size for s in seen.seats] == [5, 5, 5]
    spectator = view(state, None)
    assert spectator.hand is None
    assert b"rng" not in GAME.codec.encode_json(seen)


def test_a_seat_sees_only_the_nun_row_cards_it_looked_at_and_in_place() -> None:
    state = scenario(3, row=(card("fortune_tellers_tent", 3, draw=2, look=1), "palace"))
    state = act(state, 0, ChooseSupply(0))
    state = act(state, 0, LookAtNun(3))
    assert view(state, 0).nun_row == (None, None, None, state.nun_row[3], None)
    assert view(state, 1).nun_row == (None,) * 5
    assert view(state, 1).seats[0].nun_looked == (3,)  # who looked where is public
    assert view(state, None).nun_row == (None,) * 5


def test_a_spectator_sees_the_nun_row_cards_every_seat_has_looked_at() -> None:
    """Who looked where is public, so a card every seat has seen is known to the whole table."""
    state = scenario(3)
    state = msgspec.structs.replace(state, nun_seen=((1, 3), (3,), (0, 3)))
    assert [view(state, seat).nun_row[3] for seat in range(3)] == [state.nun_row[3]] * 3
    assert view(state, None).nun_row == (None, None, None, state.nun_row[3], None)


def test_everything_is_revealed_once_the_game_is_over() -> None:
    state = scenario(3, phase=OVER)
    seen = view(state, 2)
    assert seen.nun_row == state.nun_row
    assert [s.rats for s in seen.seats] == list(state.rats)


def test_played_cards_stay_face_down_until_their_building_resolves() -> None:
    state = entering(scenario(3, row=("palace", "farm"), hands={0: (MONK, WITCH)}))
    state = act(state, 0, EnterBuilding(0))
    state = act(state, 0, PlayCard(MONK))
    assert view(state, 0).my_played == (MONK,)
    assert view(state, 1).my_played == () and view(state, 1).seats[0].played == 1
    assert view(state, 1).revealed_cards == ((), (), ())


def test_events_are_redacted_for_those_who_may_not_see_them() -> None:
    drawn = CardsDrawn(0, 2, (MONK, WITCH))
    assert redact_event(drawn, 0) == drawn
    assert redact_event(drawn, 1) == CardsDrawn(0, 2, ())
    assert redact_event(drawn, None) == CardsDrawn(0, 2, ())
    shuffled = DeckReshuffled(2, (MONK, WITCH), 77)
    assert redact_event(shuffled, 0) == DeckReshuffled(2, (), 0)
    looked = NunLooked(1, 3, MONK)
    assert redact_event(looked, 1) == looked and redact_event(looked, 0).card is None  # type: ignore[union-attr]
    played = CardPlayed(2, WITCH)
    assert redact_event(played, 2) == played and redact_event(played, 0) == CardPlayed(2, None)
    given = CardGiven(0, 1, MONK)
    assert redact_event(given, 0) == given and redact_event(given, 1) == given
    assert redact_event(given, 2) == CardGiven(0, 1, None)


def test_resampling_hidden_cards_leaves_every_view_unchanged() -> None:
    state = entering(scenario(4, row=("palace", "farm", "castle"), hands={0: (MONK, WITCH)}))
    state = act(state, 0, EnterBuilding(0))
    state = act(state, 0, PlayCard(MONK))
    for viewer in range(4):
        other = resample_hidden(state, viewer, Rng.from_seed(viewer + 5))
        assert GAME.codec.encode_json(view(other, viewer)) == GAME.codec.encode_json(view(state, viewer))
        assert sorted(other.deck + tuple(c for h in other.hands for c in h)) != [] and other != state


def test_resampling_keeps_the_card_counts() -> None:
    state = scenario(5)
    other = resample_hidden(state, 2, Rng.from_seed(3))

    def everything(s: State) -> list[str]:
        return sorted([*s.deck, *s.nun_row, *(c for h in s.hands for c in h)])

    assert everything(other) == everything(state)
    assert other.hands[2] == state.hands[2]


def test_who_takes_a_premium_action_stays_secret_until_that_building_is_revealed() -> None:
    hands = {0: (MONK,), 1: (WITCH, "sword"), 2: (MONK, MONK), 3: ()}
    state = entering(scenario(4, row=("palace", "farm", "castle"), hands=hands))
    state = enter(state, 0, 0, (MONK,))
    state = enter(state, 1, 1, (WITCH, "sword"))
    state = enter(state, 2, 1)
    events = decide(state, 3, EnterBuilding(2))
    state = GAME.evolve(state, events)
    events = decide(state, 3, FinishEntering())
    started = next(e for e in events if isinstance(e, ResolutionStarted))
    assert started.premium == (0, 1, 3)
    assert all(redact_event(started, viewer) == ResolutionStarted() for viewer in (0, 1, 2, 3, None))
    revealed = [e for e in events if isinstance(e, BuildingRevealed)]
    assert [e.premium for e in revealed] == [0, 1]  # public at each reveal
    # Seat 1's Sword duel with seat 2 pauses the game in the Farm; the Castle is not revealed yet.
    state = GAME.evolve(state, events)
    assert state.resolving == 1 and state.revealed
    assert view(state, 0).premium == (0, 1, -1)


def test_rat_totals_are_public_because_perfect_memory_of_the_table_rebuilds_them() -> None:
    # Every rat gained or lost is a visible value-1 token and everyone starts with 10, so a
    # player who remembers the table knows every total: the view shows them to everyone,
    # rather than hiding what the redacted events give away (seat 0 rebuilt them in every step).
    playout = random_playout(GAME, 4, seed=11)
    state = GAME.start(playout.config)
    for step in playout.steps:
        state = GAME.evolve(state, step.events)
        for viewer in (0, 3, None):
            assert [s.rats for s in view(state, viewer).seats] == list(state.rats)
