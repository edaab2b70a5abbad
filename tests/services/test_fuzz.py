"""Malformed and hostile actions against the real Rattus Cartus service: every answer is an
acceptance, a Rejection or INVALID_ARGUMENT, never a crash, and a refused action changes nothing."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from gateway.rules_client import Accepted, RulesClient
from services.kernel import Rejection
from services.rattus_cartus import GAME
from tests.rules_service import serving

WEIRD_VALUES: list[Any] = [
    -1,
    0,
    7,
    2**31,
    2**63,
    -(2**63),
    2**70,
    1.5,
    "",
    "church:9",
    "x" * 5000,
    None,
    True,
    [],
    {},
    [1, 2],
]


@pytest.fixture(scope="module")
def client() -> Iterator[RulesClient]:
    with serving(GAME) as rules:
        yield rules


def _mutations(action: dict[str, Any], rng: random.Random) -> Iterator[bytes]:
    for field in [k for k in action if k != "type"]:
        for value in rng.sample(WEIRD_VALUES, 4):
            yield json.dumps({**action, field: value}).encode()
        yield json.dumps({k: v for k, v in action.items() if k != field}).encode()
    yield json.dumps({**action, "extra": 1}).encode()
    yield json.dumps({**action, "type": action["type"].upper()}).encode()
    yield json.dumps(action).encode()[: rng.randrange(1, 10)]


def test_no_payload_crashes_the_service_or_changes_the_state(client: RulesClient) -> None:
    rng = random.Random(1347)
    answers = {"accepted": 0, "rejected": 0, "invalid": 0}
    for seed in range(3):
        state, status = client.setup(4, seed)
        for _ in range(60):
            if status.finished:
                break
            seat = rng.choice(status.active_players)
            listed = client.legal_actions(state, seat)
            for payload in _mutations(json.loads(rng.choice(listed)), rng):
                for player in (seat, (seat + 1) % 4):
                    try:
                        decision = client.validate(state, player, payload)
                    except grpc.RpcError as error:
                        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (payload, error.details())
                        answers["invalid"] += 1
                        continue
                    if isinstance(decision, Rejection):
                        assert decision.code in {"illegal_action", "not_your_turn", "unknown_action"}
                        assert decision.message
                        answers["rejected"] += 1
                    else:
                        assert payload in listed or json.loads(payload) in [json.loads(a) for a in listed]
                        answers["accepted"] += 1
            decision = client.validate(state, seat, rng.choice(listed))
            assert isinstance(decision, Accepted) and decision.state and decision.status
            state, status = decision.state, decision.status
    assert all(answers.values()), answers  # every kind of answer was exercised
