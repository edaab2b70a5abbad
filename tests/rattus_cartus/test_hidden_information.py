"""Views and events never show a seat what it may not see."""

from __future__ import annotations

import msgspec
import pytest

from services.kernel import Rng
from services.kernel.testing import random_playout
from services.rattus_cartus import GAME
from services.rattus_cartus.model import (
    BUILDING_CLASS,
    OVER,
    BuildingRevealed,
    CardDiscardedForRat,
    CardGiven,
    CardPlayed,
    CardsDrawn,
    ChooseSupply,
    DeckReshuffled,
    DuelLost,
    EnterBuilding,
    FinishEntering,
    LookAtNun,
    NunLooked,
    PlayCard,
    RatsDiscarded,
    ResolutionStarted,
    State,
    card_class,
    is_population,
)
from services.rattus_cartus.rules import STARTING_RATS, redact_event, resample_hidden, view
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


class RatMemory:
    """A player who remembers the table: every seat starts with 10 rats [SEED setup 3], and every
    rat taken or given back is a value-1 token in view of all [SEED "Nota"]: off-class cards
    turned up in a building, discards, Flutes and the Hospital. It reads only the events as its
    viewer receives them."""

    def __init__(self, players: int) -> None:
        self.rats = [STARTING_RATS] * players

    def lose(self, player: int, count: int) -> None:
        self.rats[player] = max(0, self.rats[player] - count)

    def see(self, event: object) -> None:
        if isinstance(event, BuildingRevealed):
            klass = BUILDING_CLASS[event.name]
            for player, cards, gained in zip(event.entrants, event.cards, event.rats, strict=True):
                off_class = sum(1 for c in cards if is_population(c) and card_class(c) != klass)
                assert off_class == gained  # the rats follow from the cards everyone sees
                self.rats[player] += off_class
        elif isinstance(event, RatsDiscarded):
            self.lose(event.player, event.count)
        elif isinstance(event, CardDiscardedForRat):
            self.lose(event.player, 1)
        elif isinstance(event, DuelLost) and event.kind == "flute":
            self.lose(event.winner, 1)
            self.rats[event.loser] += 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_rat_totals_are_public_because_a_seat_rebuilds_them_from_what_it_sees(players: int) -> None:
    """The view shows every seat's rat total (docs/rules/rattus_cartus.md, "Are rat totals
    secret?"): a seat and a spectator rebuild each total, at every step, from the events as they
    receive them (redacted) and the rules alone, so the view tells them nothing they do not know."""
    for seed in (11, 12):
        playout = random_playout(GAME, players, seed=seed)
        state = GAME.start(playout.config)
        viewers = (0, players - 1, None)
        memories = {viewer: RatMemory(players) for viewer in viewers}
        for step in playout.steps:
            for viewer, memory in memories.items():
                for event in step.events:
                    memory.see(redact_event(event, viewer))
            state = GAME.evolve(state, step.events)
            for viewer, memory in memories.items():
                assert memory.rats == list(state.rats), (seed, viewer)
                assert [s.rats for s in view(state, viewer).seats] == memory.rats
