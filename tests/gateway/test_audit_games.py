"""Every registered game, played to the end through the match use cases by random bots: the
audit re-executes every action against the rules service and must find exactly the recorded
events (Validate is deterministic given the state), the seed revealed at the end opens the
commitment, and a replay of the last version shows the live view."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from gateway.domain.receipts import seed_matches
from gateway.eventstore.base import MatchKey
from services.registry import GAMES
from tests.gateway.gwcore_support import gateway, play_random
from tests.rules_service import serving


@pytest.fixture(scope="module", params=sorted(GAMES))
def game(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    with serving(GAMES[request.param]) as client:
        yield request.param, client.target


def test_a_random_match_of_every_game_audits_clean(
    game: tuple[str, str], redis_url: str, redis_client: redis.Redis
) -> None:
    game_id, target = game
    seats = min(GAMES[game_id].player_counts)
    key = MatchKey("acme", f"{game_id}-1")

    async def scenario() -> dict[str, Any]:
        async with gateway(redis_url, {game_id: target}) as matches:
            await matches.create("acme", game_id, [f"p{n}" for n in range(seats)], match_id=key.match_id)
            spectator = await play_random(matches, key, 7)
            audit = await matches.audit(key)
            assert audit.ok, audit
            assert audit.checked_versions == spectator.version
            replayed = await matches.replay(key, spectator.version, None)
            assert (
                replayed.view_json == spectator.view_json and replayed.outcome_json == spectator.outcome_json
            )
            (created,) = await matches.events_since(key, None, 0, limit=1)
            ended = (await matches.events_since(key, None, spectator.version - 1))[-1]
            return {"created": json.loads(created.payload_json), "ended": json.loads(ended.payload_json)}

    stream = asyncio.run(scenario())
    assert stream["ended"]["reason"] == "finished"
    assert seed_matches(bytes.fromhex(stream["ended"]["seed"]), stream["created"]["seed_commitment"])
