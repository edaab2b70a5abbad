"""legal_actions is exact: every listed action is accepted, every probed action it leaves out is
rejected and changes nothing (one seeded game per end of the player range)."""

from __future__ import annotations

import pytest

from services.kernel import Rejection, Rng
from services.waterdeep import GAME
from services.waterdeep.model import Options


@pytest.mark.parametrize(("players", "seed"), [(2, 21), (5, 22)])
def test_listed_actions_are_accepted_and_the_rest_refused(players: int, seed: int) -> None:
    state = GAME.setup(players, seed, Options())
    bots = Rng.from_seed(seed).cursor()
    assert GAME.probe_actions is not None
    while GAME.outcome(state) is None:
        before = GAME.codec.encode_state(state)
        active = GAME.active_players(state)
        for p in range(players):
            listed = list(GAME.legal_actions(state, p))
            assert bool(listed) == (p in active)
            for action in listed:
                assert not isinstance(GAME.decide(state, p, action), Rejection)
            wire = {GAME.codec.encode_json(a) for a in listed}
            for action in GAME.probe_actions(state, p):
                if GAME.codec.encode_json(action) not in wire:
                    assert isinstance(GAME.decide(state, p, action), Rejection), action
        assert GAME.codec.encode_state(state) == before
        p = bots.choice(list(active))
        events = GAME.decide(state, p, bots.choice(list(GAME.legal_actions(state, p))))
        assert not isinstance(events, Rejection)
        state = GAME.evolve(state, events)
