"""Golden playthroughs: a text trace per game, player count and seed, diffed line by line.

A difference means the rules now play differently. If that is intended, run
`make golden` and review the diff of tests/golden/data/ before committing it.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from services.kernel.testing import random_playout, render_trace
from services.registry import GAMES

DATA = Path(__file__).parent / "data"
SEED = 20121347


def _counts(player_counts: tuple[int, ...]) -> list[int]:
    """The smallest count and 4 (or the largest), which between them use every rule path."""
    return sorted({min(player_counts), 4 if 4 in player_counts else max(player_counts)})


CASES = [(game, n) for game, spec in GAMES.items() for n in _counts(spec.player_counts)]


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_playthrough_matches_its_golden_trace(game: str, players: int) -> None:
    spec = GAMES[game]
    trace = render_trace(spec, random_playout(spec, players, SEED))
    path = DATA / game / f"{players}p-seed{SEED}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(trace)
    assert path.exists(), f"no golden trace {path}; run `make golden` to record it"
    expected = path.read_text()
    if trace != expected:
        diff = "".join(
            list(difflib.unified_diff(expected.splitlines(True), trace.splitlines(True), "golden", "now"))[
                :60
            ]
        )
        pytest.fail(f"{game} {players}p plays differently from its golden trace:\n{diff}")
