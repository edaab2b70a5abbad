"""Each game's sampler (services/<game>/sampler.py) builds a full state from one seat's view
alone: every sample gives that seat exactly the view it had, and the hidden parts vary."""

from __future__ import annotations

import importlib

import pytest

from services.kernel import Rng
from services.registry import GAMES
from tests.bots.helpers import GAME_IDS, positions

SAMPLES = 4


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("game", GAME_IDS)
def test_samples_keep_the_seats_view_and_vary_the_hidden_parts(game: str, players: int) -> None:
    spec = GAMES[game]
    sampler = importlib.import_module(f"services.{game}.sampler")
    codec = spec.codec
    checked = varied = 0
    for seed in (1, 2):
        for state, seat in positions(game, players, seed, every=9, limit=12):
            observed = spec.view(state, seat)
            encodings = set()
            for k in range(SAMPLES):
                sampled = sampler.sample(observed, seat, Rng.from_seed(1000 * seed + k))
                assert spec.view(sampled, seat) == observed, f"{game} seed {seed}: the sample's view differs"
                encodings.add(codec.encode_state(sampled))
                checked += 1
            varied += len(encodings) > 1
    assert checked >= 40
    # Something is hidden at nearly every point of these games, so samples differ.
    assert varied >= checked // SAMPLES // 2


@pytest.mark.parametrize("game", GAME_IDS)
def test_a_sample_never_copies_the_servers_rng_key(game: str) -> None:
    spec = GAMES[game]
    sampler = importlib.import_module(f"services.{game}.sampler")
    state, seat = next(positions(game, 2, 3, every=5, limit=1))
    sampled = sampler.sample(spec.view(state, seat), seat, Rng.from_seed(7))
    assert sampled.rng.key != state.rng.key
