"""The score a table shows is always there, and at the end it is the outcome.

Every view (each seat's and the spectator's) gives every seat a score at every step of a seeded
random playout (`seats[i].score`: what the game's ScoreSheet says it means during play); once the
game is over, each of those scores equals the outcome's. The end screen reads in words: the game
data names every key of the outcome's breakdown and facts, the outcome says how the game ended,
and no note is an id.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
import pytest

from services.gamedata import game_data
from services.kernel import GameSpec
from services.kernel.testing import random_playout
from services.registry import GAMES

SEED = 7
CASES = [(spec.game_id, players) for spec in GAMES.values() for players in spec.player_counts]
_IDENTIFIER = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)+$")


def _scores(spec: GameSpec[Any], state: Any, viewer: int | None) -> list[Any]:
    view = msgspec.json.decode(spec.codec.encode_json(spec.view(state, viewer)))
    return [seat.get("score") for seat in view["seats"]]


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_every_view_shows_every_score_and_at_the_end_the_outcome(game_id: str, players: int) -> None:
    spec = GAMES[game_id]
    playout = random_playout(spec, players, SEED)
    state = spec.start(playout.config)
    for number, step in enumerate(playout.steps):
        for viewer in (*range(players), None):
            shown = _scores(spec, state, viewer)
            assert len(shown) == players and all(isinstance(s, int) for s in shown), (number, viewer, shown)
        state = spec.evolve(state, step.events)
    outcome = playout.outcome
    assert outcome is not None
    final = [r.score for r in sorted(outcome.results, key=lambda r: r.player)]
    for viewer in (*range(players), None):
        assert _scores(spec, state, viewer) == final, viewer


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_the_end_reads_in_words(game_id: str, players: int) -> None:
    spec = GAMES[game_id]
    sheet = game_data(spec).score
    assert sheet.during_play.strip(), "the game data says what the score means during play"
    outcome = random_playout(spec, players, SEED).outcome
    assert outcome is not None
    assert outcome.reason.strip().endswith("."), f"how the game ended, in a sentence: {outcome.reason!r}"
    for result in outcome.results:
        assert set(result.breakdown) <= set(sheet.breakdown), set(result.breakdown) - set(sheet.breakdown)
        assert set(result.facts) <= set(sheet.facts), set(result.facts) - set(sheet.facts)
        assert not _IDENTIFIER.match(result.note), f"a note is read by people, not an id: {result.note!r}"
