"""Conformance over the registry: seeded random playouts to the end for every game,
player count and variant, with every invariant of ARCHITECTURE.md checked at every step
(see services.kernel.testing.check_conformance for the list)."""

from __future__ import annotations

from typing import Any

import pytest

from services.kernel.testing import check_conformance
from services.registry import GAMES

SEEDS = (1, 2, 3)

CASES = [
    pytest.param(game, players, seed, None, id=f"{game}-{players}p-seed{seed}")
    for game, spec in GAMES.items()
    for players in spec.player_counts
    for seed in SEEDS
] + [
    pytest.param(game, players, 7, options, id=f"{game}-{variant}-{players}p")
    for game, spec in GAMES.items()
    for variant, options in spec.variants.items()
    for players in spec.player_counts
]


@pytest.mark.parametrize(("game", "players", "seed", "options"), CASES)
def test_random_playout_keeps_every_invariant(game: str, players: int, seed: int, options: Any) -> None:
    playout = check_conformance(GAMES[game], players, seed, options)
    assert playout.outcome is not None and len(playout.outcome.results) == players
