"""A state's fit is checked once per process that did not make it (issue 45): the gateway sends
back the state the last Validate returned, and the game's check of a state made by the same
process's rules was a tenth of a Rattus Cartus Validate. A state from anywhere else (another
process, a forged one) is checked as before (tests/services/test_hostile_input.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from guildhall.rules.v1 import rules_pb2

from services.rattus_cartus import GAME
from services.server import _RAISING, RulesServicer


def _counting() -> tuple[RulesServicer, list[Any]]:
    checked: list[Any] = []
    assert GAME.check_state is not None
    check = GAME.check_state

    def counted(state: Any) -> None:
        checked.append(state)
        check(state)

    return RulesServicer(dataclasses.replace(GAME, check_state=counted)), checked


def _opening(servicer: RulesServicer, seed: int) -> Any:
    request = rules_pb2.SetupRequest(game_id=GAME.game_id, players=3, seed=seed.to_bytes(32, "big"))
    return servicer.Setup(request, _RAISING).state


def test_a_state_this_process_made_is_not_checked_again_one_made_elsewhere_is() -> None:
    here, checked_here = _counting()
    elsewhere, checked_elsewhere = _counting()
    mine, theirs = _opening(here, 5), _opening(elsewhere, 6)  # (equal bytes would be the same state)
    for state in (mine, theirs):
        here.LegalActions(rules_pb2.LegalActionsRequest(state=state, player=0), _RAISING)
    assert len(checked_here) == 1  # theirs only
    # A Validate's next state is made here too: sent back, it is not checked.
    legal = here.LegalActions(rules_pb2.LegalActionsRequest(state=mine, player=0), _RAISING).actions
    accepted = here.Validate(
        rules_pb2.ValidateRequest(state=mine, player=0, action=legal[0], return_state=True), _RAISING
    ).accepted
    here.View(rules_pb2.ViewRequest(state=accepted.state, player=1), _RAISING)
    assert len(checked_here) == 1
    assert checked_elsewhere == []
