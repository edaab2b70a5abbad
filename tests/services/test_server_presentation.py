"""The rules service hands each viewer its events described and each seat owing a decision its
decision (issue 31), over the toy game's presentation."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import grpc
import msgspec
import pytest
from guildhall.rules.v1 import rules_pb2, rules_pb2_grpc

from services.kernel.present import render
from tests.kernel.toy_game import GAME
from tests.rules_service import serving


@pytest.fixture(scope="module")
def stub() -> Iterator[rules_pb2_grpc.RulesServiceStub]:
    with serving(GAME) as client, grpc.insecure_channel(client.target) as channel:
        yield rules_pb2_grpc.RulesServiceStub(channel)


def _opening(stub: rules_pb2_grpc.RulesServiceStub, seed: int = 7) -> rules_pb2.GameState:
    return stub.Setup(
        rules_pb2.SetupRequest(game_id=GAME.game_id, players=3, seed=seed.to_bytes(32, "big"))
    ).state


def _play_card(stub: rules_pb2_grpc.RulesServiceStub) -> tuple[rules_pb2.GameState, rules_pb2.Accepted]:
    state = _opening(stub)
    card = GAME.codec.decode_state(state.state).hands[0][0]
    request = rules_pb2.ValidateRequest(
        state=state,
        player=0,
        action=msgspec.json.encode({"type": "play_card", "value": card}),
        return_state=True,
        return_redacted=True,
        return_every_view=True,
    )
    return state, stub.Validate(request).accepted


def test_every_viewer_gets_each_event_described_as_it_sees_it(stub: rules_pb2_grpc.RulesServiceStub) -> None:
    _, accepted = _play_card(stub)
    assert not any(e.HasField("description") for e in accepted.events), "the store's events carry none"
    by_viewer = {(v.player if v.HasField("player") else None): v.events for v in accepted.seat_events}
    assert set(by_viewer) == {0, 1, 2, None}
    for viewer, events in by_viewer.items():
        played, dealt = events
        assert played.description.key == "nim.card_played"
        assert played.description.text.startswith("Player 1 plays a ")
        assert render(played.description.template, played.description.args) == played.description.text
        assert dealt.description.internal
        if viewer == 0:  # only the receiver is told which card it drew
            assert dealt.description.key == "nim.card_dealt_to_you"
        else:
            assert dealt.description.key == "nim.card_dealt"
            assert dealt.description.text == "Player 1 draws a card"
    assert [e.description for e in accepted.redacted_events] == [e.description for e in by_viewer[0]]


def test_only_seats_owing_a_decision_get_one_over_their_own_legal_actions(
    stub: rules_pb2_grpc.RulesServiceStub,
) -> None:
    _, accepted = _play_card(stub)
    views = {v.player: v for v in accepted.views}
    assert accepted.status.active_players == [1]
    assert not views[0].HasField("decision") and not views[2].HasField("decision")
    decision = views[1].decision
    assert decision.seat == 1 and decision.prompt.startswith("Take from the pile")
    assert sorted(o.action for o in decision.options) == list(range(len(views[1].legal_actions)))
    for option in decision.options:
        action = msgspec.json.decode(views[1].legal_actions[option.action])
        assert not option.choices, "the choices are the table's, not inline"
        how, amount = (decision.choices[i] for i in option.choice_indexes)
        if action["type"] == "take":
            assert (how.label, amount.label.split()[0]) == ("Take counters", str(action["count"]))
        else:
            assert (how.label, amount.label) == ("Play a card", f"Card {action['value']}")


def test_a_decision_lists_each_distinct_choice_once(stub: rules_pb2_grpc.RulesServiceStub) -> None:
    """Issue 45: options name their choices by index into one table, so a choice shared by many
    options ("Take counters") travels once."""
    _, accepted = _play_card(stub)
    decision = next(v.decision for v in accepted.views if v.player == 1)
    table = [(c.step, c.label, c.kind, c.id) for c in decision.choices]
    assert len(set(table)) == len(table)
    used = [i for o in decision.options for i in o.choice_indexes]
    assert sorted(set(used)) == list(range(len(table))), "every listed choice is used, none is missing"
    assert len(used) > len(table)  # "Take counters" and "Play a card" are shared by several options
    assert sum(1 for c in table if c[1] == "Take counters") == 1


def test_view_describes_its_events_and_gives_the_decision_with_legal_actions(
    stub: rules_pb2_grpc.RulesServiceStub,
) -> None:
    state, accepted = _play_card(stub)
    seen = stub.View(rules_pb2.ViewRequest(state=accepted.state, player=2, events=accepted.events))
    assert [e.description.key for e in seen.events] == ["nim.card_played", "nim.card_dealt"]
    assert not seen.HasField("decision"), "no decision without legal actions asked for"
    asked = stub.View(rules_pb2.ViewRequest(state=state, player=0, include_legal_actions=True))
    assert len(asked.decision.options) == len(asked.legal_actions) > 0
    waiting = stub.View(rules_pb2.ViewRequest(state=state, player=1, include_legal_actions=True))
    assert not waiting.legal_actions and not waiting.HasField("decision")


def test_a_game_without_presentation_sends_no_descriptions_or_decisions() -> None:
    plain = dataclasses.replace(GAME, presentation=None)
    with serving(plain) as client, grpc.insecure_channel(client.target) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        _, accepted = _play_card(stub)
        assert accepted.seat_events and accepted.views
        assert not any(e.HasField("description") for v in accepted.seat_events for e in v.events)
        assert not any(v.HasField("decision") for v in accepted.views)
