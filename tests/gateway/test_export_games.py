"""Every registered game, played to the end by random bots through the match use cases, exported
and verified offline: every action re-executed in process with the game's rules gives exactly
the recorded events and outcome, and the story names the game's cards from its data."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
import redis

from gateway.eventstore.base import MatchKey
from guildhall_client.ghx import verify_export
from guildhall_client.story import story_lines
from services.gamedata import game_data
from services.registry import GAMES
from tests.gateway.gwcore_support import SHARED_KEYS, gateway, play_random
from tests.rules_service import serving

PUBLISHED = {k.key_id: k.public_key for k in SHARED_KEYS.public_keys()}


@pytest.fixture(scope="module", params=sorted(GAMES))
def game(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    with serving(GAMES[request.param]) as client:
        yield request.param, client.target


def test_an_exported_match_of_every_game_verifies_offline_and_tells_its_story(
    game: tuple[str, str], redis_url: str, redis_client: redis.Redis
) -> None:
    game_id, target = game
    seats = max(GAMES[game_id].player_counts)
    key = MatchKey("acme", f"{game_id}-x")

    async def scenario() -> tuple[bytes, int]:
        async with gateway(redis_url, {game_id: target}) as matches:
            await matches.create("acme", game_id, [f"p{n}" for n in range(seats)], match_id=key.match_id)
            spectator = await play_random(matches, key, 11)
            return (await matches.export(key)).data, spectator.version

    data, version = asyncio.run(scenario())
    report = verify_export(data, keys=PUBLISHED)
    assert report.ok and report.executed, report.reason
    assert report.checked_versions == version and report.game is GAMES[game_id]

    story = story_lines(report)
    assert story[-1] == "VERIFIED" and not any("✗" in line for line in story)
    names = {c.name for c in game_data(GAMES[game_id]).components}
    told = "\n".join(story)
    assert sum(1 for name in names if name in told) >= 3, "the story names no cards"
    assert "match ended (finished): won by" in told

    # One event rewritten anywhere in the match fails there, whatever the game.
    lines = data.splitlines()
    middle = len(lines) // 2
    record = json.loads(lines[middle])
    record["payload"] = record["payload"].replace(":", ": ", 1)
    lines[middle] = json.dumps(record).encode()
    tampered = verify_export(b"\n".join(lines) + b"\n", keys=PUBLISHED)
    assert not tampered.ok and tampered.first_bad_version == record["version"]
