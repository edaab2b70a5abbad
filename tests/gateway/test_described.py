"""What the gateway hands a client to draw the table (issue 31): every event it sends described,
the gateway's own events described by the gateway, every view with legal actions carrying the
seat's decision over them, through the caches and the fan-out. Over real Redis and the toy
game's rules service."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgspec
import pytest
from guildhall.common.v1 import common_pb2
from guildhall.gateway.v1 import gateway_pb2

from gateway.api import wire
from gateway.domain.describe import describe_gateway_event
from gateway.domain.match import JSON, TurnTimedOut
from gateway.eventstore.base import MatchKey
from gateway.settings import parse_args
from gateway.usecases import GameMatches
from tests.gateway.gwcore_support import gateway
from tests.kernel.toy_game import GAME

NIM = GAME.game_id
SEED = bytes(range(32))


@pytest.fixture
def url(redis_url: str, redis_client: Any) -> str:
    return redis_url  # redis_client flushed the database


def _description(event: Any) -> common_pb2.Description:
    return common_pb2.Description.FromString(event.description)


async def _play_a_card(matches: GameMatches, key: MatchKey) -> Any:
    seat = (await matches.get_view(key, None)).active_seats[0]
    hand = json.loads((await matches.get_view(key, seat)).view_json)["hand"]
    action = json.dumps({"type": "play_card", "value": min(hand)}).encode()
    outcome = await matches.submit(key, seat, action, command_id="card")
    assert outcome.accepted, outcome.rejection
    return outcome


@pytest.mark.parametrize("watched", [True, False], ids=["fan-out", "per-viewer"])
def test_every_viewer_gets_the_events_described_and_the_seat_to_act_its_decision(
    url: str, targets: dict[str, str], watched: bool
) -> None:
    async def scenario() -> tuple[Any, dict[Any, list[Any]], Any, Any]:
        async with gateway(url, targets) as matches:
            matches.viewers = lambda key: frozenset({0, 1, None}) if watched else frozenset()
            created = await matches.create("acme", NIM, ["ann", "bob"], b"", match_id="d1", seed=SEED)
            outcome = await _play_a_card(matches, created.key)
            seen = {viewer: await matches.events_since(created.key, viewer, 0) for viewer in (0, 1, None)}
            return (
                outcome,
                seen,
                await matches.get_view(created.key, 1),
                await matches.get_view(created.key, 0),
            )

    outcome, seen, to_act, waiting = asyncio.run(scenario())
    assert [_description(e).key for e in outcome.events] == ["nim.card_played", "nim.card_dealt_to_you"]
    for viewer, events in seen.items():
        described = [_description(e) for e in events]
        assert described[0].key == "gateway.match_created"
        assert described[0].text == "The match begins with 2 players"
        assert described[1].text.startswith("Player 1 plays a ")
        assert described[2].internal
        assert described[2].key == ("nim.card_dealt_to_you" if viewer == 0 else "nim.card_dealt")
    decision = common_pb2.Decision.FromString(to_act.decision)
    assert decision.seat == 1 and len(decision.options) == len(to_act.legal_actions) > 0
    taken = [o for o in decision.options if decision.choices[o.choice_indexes[0]].label == "Take counters"]
    assert {json.loads(to_act.legal_actions[o.action])["type"] for o in taken} == {"take"}
    assert not waiting.legal_actions and not waiting.decision


def test_a_resignation_and_the_end_are_described_by_the_gateway(url: str, targets: dict[str, str]) -> None:
    async def scenario() -> Any:
        async with gateway(url, targets) as matches:
            created = await matches.create("acme", NIM, ["ann", "bob", "cy"], b"", match_id="d2", seed=SEED)
            await matches.resign(created.key, 1, command_id="r1")
            return await matches.resign(created.key, 2, command_id="r2")

    outcome = asyncio.run(scenario())
    texts = [(e.type, _description(e).text) for e in outcome.events]
    assert texts == [
        ("seat_resigned", "Player 3 resigns: the platform makes their remaining moves, and they finish last"),
        ("match_ended", "The match ends: Player 1 wins (by resignation)"),
    ]
    ended = _description(outcome.events[-1])
    assert [(a.name, a.kind, a.id) for a in ended.args] == [("winner0", "seat", "0")]


def test_a_timed_out_turn_names_the_seat() -> None:
    timed_out = describe_gateway_event(JSON.encode(TurnTimedOut(seat=2, version=7, policy="random_action")))
    assert timed_out is not None
    assert timed_out.text == "Player 3's turn timed out: a move is played for them"
    assert describe_gateway_event(b"not json") is None


def test_the_wire_carries_the_description_and_the_decision(url: str, targets: dict[str, str]) -> None:
    async def scenario() -> tuple[Any, Any]:
        async with gateway(url, targets) as matches:
            created = await matches.create("acme", NIM, ["ann", "bob"], b"", match_id="d3", seed=SEED)
            return created.key, await matches.get_view(created.key, 0)

    key, view = asyncio.run(scenario())
    message = wire.fill_view(gateway_pb2.MatchView(), view, key.match_id)
    assert len(message.decision.options) == len(message.legal_actions) > 0
    assert msgspec.json.decode(message.legal_actions[message.decision.options[0].action])


@pytest.mark.parametrize("shape", ["table", "both"])
def test_decision_shape_both_also_carries_each_options_choices_inline(
    url: str, targets: dict[str, str], shape: str
) -> None:
    """Issue 45: a decision lists each distinct choice once and options name theirs by index; with
    DECISION_SHAPE=both every option also carries its choices inline, as clients read them before,
    and the two agree."""

    async def scenario() -> Any:
        async with gateway(url, targets) as matches:
            matches.inline_choices = shape == "both"
            created = await matches.create("acme", NIM, ["ann", "bob"], b"", match_id="d3", seed=SEED)
            await _play_a_card(matches, created.key)
            return await matches.get_view(created.key, 1)

    decision = common_pb2.Decision.FromString(asyncio.run(scenario()).decision)
    assert decision.choices and all(o.choice_indexes for o in decision.options)
    for option in decision.options:
        if shape == "both":
            assert list(option.choices) == [decision.choices[i] for i in option.choice_indexes]
        else:
            assert not option.choices


def test_decision_shape_is_table_or_both(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_args([], {"RULES_YS": "h:1"}).decision_shape == "table"
    assert parse_args([], {"RULES_YS": "h:1", "DECISION_SHAPE": "both"}).decision_shape == "both"
    with pytest.raises(SystemExit):
        parse_args([], {"RULES_YS": "h:1", "DECISION_SHAPE": "inline"})
    assert "DECISION_SHAPE must be table or both, got 'inline'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_args(["--decision-shape", "inline"], {"RULES_YS": "h:1"})
    assert "invalid choice: 'inline'" in capsys.readouterr().err
