"""legal_actions is exact: every listed action is accepted and every probed unlisted one is
rejected, in every kind of decision met while playing whole games."""

from __future__ import annotations

import pytest

from services.bruges import GAME
from services.kernel import Rejection
from services.kernel.testing import random_playout


@pytest.mark.parametrize("players", [2, 3, 4])
def test_listed_actions_are_accepted_and_probes_outside_the_list_rejected(players: int) -> None:
    playout = random_playout(GAME, players, 100 + players)
    state = GAME.start(playout.config)
    for number, step in enumerate(playout.steps):
        if number % 3 == 0:
            listed = GAME.legal_actions(state, step.player)
            encoded = {GAME.codec.encode_json(a) for a in listed}
            for action in listed:
                assert not isinstance(GAME.decide(state, step.player, action), Rejection)
            assert GAME.probe_actions is not None
            for action in GAME.probe_actions(state, step.player):
                if GAME.codec.encode_json(action) not in encoded:
                    assert isinstance(GAME.decide(state, step.player, action), Rejection), action
        state = GAME.evolve(state, step.events)
    assert GAME.outcome(state) == playout.outcome


def test_a_finished_game_has_no_decision() -> None:
    playout = random_playout(GAME, 2, 3)
    assert all(not GAME.legal_actions(playout.final, p) for p in range(2))
    assert (
        GAME.decide(playout.final, 0, GAME.legal_actions(GAME.start(playout.config), 0)[0]).code
        == "game_over"
    )
