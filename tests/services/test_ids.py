"""Ids typed from the game data (issue 42 item 3): schemas/<game>/ids.json stays what the code
exports, and every action, event and view the rules produce over random playouts is valid against
the schemas with those ids typed, so the clients' stricter types never refuse a real value."""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest
from jsonschema import Draft202012Validator

from guildhall_client.games.generate import with_ids
from services.export_ids import TYPED, rendered
from services.kernel import SetupConfig
from services.kernel.schema import SCHEMAS_DIR
from services.registry import GAMES


def test_the_committed_ids_match_the_code() -> None:
    stale = [str(p) for p, text in rendered().items() if (SCHEMAS_DIR / p).read_text() != text]
    assert not stale, f"stale: {stale} (make schemas)"


def _validators(game: str) -> dict[str, Draft202012Validator]:
    ids = json.loads((SCHEMAS_DIR / game / "ids.json").read_text())
    found = {}
    for kind in TYPED:
        document = json.loads((SCHEMAS_DIR / game / f"{kind}.schema.json").read_text())
        typed = with_ids(document, ids, kind)
        assert typed != document, (game, kind)  # some field of each is typed
        found[kind] = Draft202012Validator(typed)
    return found


@pytest.mark.parametrize("game", sorted(g for g in GAMES if (SCHEMAS_DIR / g / "ids.json").is_file()))
def test_every_action_event_and_view_of_random_playouts_is_valid_with_ids_typed(game: str) -> None:
    spec = GAMES[game]
    validators = _validators(game)
    encode = spec.codec.encode_json
    checked = {kind: 0 for kind in TYPED}

    def valid(kind: str, value: Any) -> None:
        errors = list(validators[kind].iter_errors(msgspec.json.decode(encode(value))))
        assert not errors, (game, kind, errors[0].json_path, errors[0].message)
        checked[kind] += 1

    for seed in (1, 2):
        rng = random.Random(seed)
        players = rng.choice(spec.player_counts)
        state = spec.start(SetupConfig(players=players, seed=seed))
        steps = 0
        while spec.outcome(state) is None and steps < 400:
            seat = rng.choice(list(spec.active_players(state)))
            legal = spec.legal_actions(state, seat)
            if steps % 5 == 0:
                for each in range(players):
                    valid("view", spec.view(state, each))
                for action in legal:
                    valid("action", action)
            events = spec.decide(state, seat, rng.choice(legal))
            assert isinstance(events, list | tuple), events
            for event in events:
                valid("event", event)
            state = spec.evolve(state, events)
            steps += 1
    assert all(checked.values()), checked


def test_a_wrong_id_is_invalid_once_typed() -> None:
    """The point of it: the docs' own `place: "harbour"` is no Ys place."""
    action = _validators("ys")["action"]
    assert action.is_valid({"type": "place_broker", "place": "n1.port", "value": 2, "face_up": True})
    assert not action.is_valid({"type": "place_broker", "place": "harbour", "value": 2, "face_up": True})
