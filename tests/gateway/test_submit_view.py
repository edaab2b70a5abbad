"""SubmitAction with return_view: an accepted answer carries the caller's next view, so a bot
acting again needs no GetView (issue 14, round 2). Over the fake use cases: the seat, version
and legal actions of the attached view, nothing attached unless asked or when rejected, and an
action that stands (no error status) when its view cannot be had. The real path (rules memo,
Redis) is played by the client library's Seat.play in tests/clients and test_e2e.py."""

from __future__ import annotations

from typing import Any

import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb

from tests.gateway.conftest import InProcess, bearer
from tests.gateway.test_server import new_match, stub


def _submit(gw: InProcess, created: Any, seat: int, command: str, **fields: Any) -> Any:
    request = pb.SubmitActionRequest(
        match_id=created.match_id, action=b'{"type":"move"}', command_id=command, **fields
    )
    return stub(gw).SubmitAction(request, metadata=bearer(created.seats[seat].token), timeout=10)


def test_the_accepted_answer_carries_the_callers_view_when_asked(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway)
    first = _submit(fake_gateway, created, 0, "v1", return_view=True)
    assert first.accepted.version == 2 and first.accepted.HasField("view")
    view = first.accepted.view
    # Seat 0's own view at the new version: seat 1 is to move, so seat 0 has no legal action.
    assert (view.match_id, view.seat, view.version) == (created.match_id, 0, 2)
    assert list(view.active_seats) == [1] and not view.legal_actions
    # It is the view GetView answers at that version, byte for byte.
    fetched = stub(fake_gateway).GetView(
        pb.GetViewRequest(match_id=created.match_id), metadata=bearer(created.seats[0].token), timeout=10
    )
    assert fetched == view
    second = _submit(fake_gateway, created, 1, "v2", return_view=True)
    assert (second.accepted.view.seat, second.accepted.view.version) == (1, 3)


def test_no_view_unless_asked_and_none_with_a_rejection(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway)
    plain = _submit(fake_gateway, created, 0, "p1")
    assert plain.HasField("accepted") and not plain.accepted.HasField("view")
    refused = _submit(fake_gateway, created, 0, "p2", return_view=True)  # seat 1 is to move
    assert refused.rejection.code == "not_your_turn" and not refused.HasField("accepted")


def test_a_repeated_command_answers_the_view_as_the_match_is_now(fake_gateway: InProcess) -> None:
    created = new_match(fake_gateway)
    _submit(fake_gateway, created, 0, "r1")
    _submit(fake_gateway, created, 1, "r2")
    again = _submit(fake_gateway, created, 0, "r1", return_view=True)
    assert again.accepted.repeated and again.accepted.version == 2
    assert again.accepted.view.version == 3 and list(again.accepted.view.legal_actions)


def test_the_action_stands_when_its_view_cannot_be_had(
    fake_gateway: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gateway.eventstore.base import EventStoreUnavailable

    created = new_match(fake_gateway)
    matches = fake_gateway.matches
    real = matches.get_view

    async def unavailable_after_submit(key: Any, seat: Any, *, min_version: int = 0) -> Any:
        if min_version:
            raise EventStoreUnavailable("down for the test")
        return await real(key, seat, min_version=min_version)

    monkeypatch.setattr(matches, "get_view", unavailable_after_submit)
    answer = _submit(fake_gateway, created, 0, "u1", return_view=True)
    assert answer.accepted.version == 2 and not answer.accepted.HasField("view")
    monkeypatch.undo()
    view = stub(fake_gateway).GetView(
        pb.GetViewRequest(match_id=created.match_id), metadata=bearer(created.seats[1].token), timeout=10
    )
    assert view.version == 2 and list(view.legal_actions)
