"""The strong bot: it sees only its seat (a marker planted in hidden cards changes nothing), its
budget stops the search, and a forced decision costs nothing."""

from __future__ import annotations

import itertools
from typing import Any

import msgspec
import pytest

from guildhall_client.bots import GREEDY, make_bot
from guildhall_client.bots.strong import StrongBot
from services.kernel import Rng
from services.registry import GAMES
from tests.bots.helpers import GAME_IDS, positions


def _client_side(spec: Any, state: Any, seat: int) -> tuple[Any, list[Any]]:
    """What a client gets: the JSON view and the JSON legal actions, decoded."""
    codec = spec.codec
    view = msgspec.json.decode(codec.encode_json(spec.view(state, seat)))
    legal = [msgspec.json.decode(codec.encode_json(a)) for a in spec.legal_actions(state, seat)]
    return view, legal


@pytest.mark.parametrize("game", GAME_IDS)
def test_hidden_values_of_other_seats_do_not_change_its_choices(game: str) -> None:
    """Plant a marker: deal every card the seat cannot see anew (the true state changes, the
    seat's view does not); with fixed seeds the bot chooses the same at every point."""
    spec = GAMES[game]
    assert spec.resample_hidden is not None
    compared = changed = 0
    for state, seat in positions(game, 3, 4, every=11, limit=6):
        marked = spec.resample_hidden(state, seat, Rng.from_seed(99))
        assert spec.view(marked, seat) == spec.view(state, seat)
        view, legal = _client_side(spec, state, seat)
        if len(legal) < 2:
            continue
        changed += marked != state
        choices = []
        for true_state in (state, marked):
            bot = StrongBot(game, 5, rounds=3)
            choices.append(bot.choose(*_client_side(spec, true_state, seat), seat))
        assert choices[0] == choices[1]
        compared += 1
    assert compared >= 2
    assert changed >= 1, "the marker changed nothing hidden"


@pytest.mark.parametrize("game", GAME_IDS)
def test_the_budget_stops_the_search(game: str) -> None:
    """A clock that advances 1 ms a reading: a 200 ms budget runs a few rounds and stops within
    a reading or two of the budget, deterministically (real timings: make bench-bots)."""
    spec = GAMES[game]
    ticks = itertools.count()
    bot = StrongBot(game, 1, budget_s=0.2, clock=lambda: next(ticks) * 0.001)
    decided = 0
    for state, seat in positions(game, 2, 6, every=7, limit=4):
        view, legal = _client_side(spec, state, seat)
        before = len(bot.decisions)
        choice = bot.choose(view, legal, seat)
        assert 0 <= choice < len(legal)
        if len(legal) == 1:
            assert len(bot.decisions) == before  # answered without a search
            continue
        decided += 1
        last = bot.decisions[-1]
        assert last.rounds >= 1
        # In clock ticks: the budget, plus the readings before the search and the last ones.
        assert last.seconds <= 0.2 + 0.005
    assert decided >= 1


@pytest.mark.parametrize("game", GAME_IDS)
def test_a_budget_too_small_for_a_round_answers_the_greedy_favourite(game: str) -> None:
    """A core too busy for one round of playouts: the answer is still on time, and it is the
    choice the greedy evaluation ranks first."""
    spec = GAMES[game]
    ticks = itertools.count()
    bot = StrongBot(game, 1, budget_s=0.002, clock=lambda: next(ticks) * 0.001)
    decided = 0
    for state, seat in positions(game, 2, 6, every=7, limit=4):
        view, legal = _client_side(spec, state, seat)
        if len(legal) < 2:
            continue
        choice = bot.choose(view, legal, seat)
        scores = [GREEDY[game](view, action, seat) for action in legal]
        assert bot.decisions[-1].rounds == 0
        assert scores[choice] == pytest.approx(max(scores))
        decided += 1
    assert decided >= 1


def test_a_forced_decision_costs_nothing() -> None:
    bot = make_bot("strong", "rattus_cartus", 1)
    assert bot.choose({}, [{"type": "finish_entering"}], 0) == 0
    assert isinstance(bot, StrongBot) and bot.decisions == []
