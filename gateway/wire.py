"""What the gateway's transports share about requests and answers: the size limits, the checks of
a request's fields (BadRequest / TooLarge name the field), and the use cases' results as protobuf.
"""

from __future__ import annotations

import json
import re
from typing import Any

import structlog
from guildhall.common.v1 import common_pb2
from guildhall.gateway.v1 import gateway_pb2

from gateway.auth import Principal, for_match
from gateway.eventstore.base import MatchKey

MAX_ACTION_BYTES = 64 * 1024
MAX_OPTIONS_BYTES = 64 * 1024
MAX_REQUEST_BYTES = 1024 * 1024  # the gateway's transport limit: actions and options are small
_COMMAND_ID = re.compile(r"[\x21-\x7e]{1,64}")  # printable ASCII, no spaces
_PLAYER_ID = re.compile(r"[^\x00-\x1f\x7f]{1,128}")
MATCH_ENDED = "match_ended"


class BadRequest(ValueError):
    """The request is malformed: INVALID_ARGUMENT, with a message naming the field."""


class TooLarge(ValueError):
    """A field over its size limit: RESOURCE_EXHAUSTED."""


# -- request checks ------------------------------------------------------------------------------


def match_key(principal: Principal, match_id: str) -> MatchKey:
    """The match this call names, within the caller's tenant; a token is held to its own match."""
    if not match_id:
        raise BadRequest("match_id is required")
    try:
        key = MatchKey(principal.tenant, match_id)
    except ValueError:
        raise BadRequest("match_id must be 1-64 of A-Z a-z 0-9 . _ -") from None
    for_match(principal, match_id)
    structlog.contextvars.bind_contextvars(match_id=match_id)
    return key


def command_id(text: str) -> str:
    if not _COMMAND_ID.fullmatch(text):
        raise BadRequest("command_id is required: 1-64 printable ASCII characters without spaces")
    return text


def player_id(text: str, name: str = "player_id") -> str:
    if not _PLAYER_ID.fullmatch(text):
        raise BadRequest(f"{name} must be 1-128 characters without control characters")
    return text


def options(data: bytes) -> bytes:
    if len(data) > MAX_OPTIONS_BYTES:
        raise TooLarge(f"options are at most {MAX_OPTIONS_BYTES} bytes")
    if not data:
        return b"{}"
    try:
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("options must be a JSON object") from None
    except RecursionError:  # issue 22: 10,000 nested arrays were an INTERNAL error
        raise BadRequest("options are nested too deeply") from None
    if not isinstance(parsed, dict):
        raise BadRequest("options must be a JSON object")
    return data


# -- wire conversion -----------------------------------------------------------------------------


def receipt_pb(receipt: Any, key: MatchKey) -> gateway_pb2.Receipt:
    return gateway_pb2.Receipt(
        key_id=receipt.key_id,
        version=receipt.version,
        head_hash=receipt.head_hash,
        signature=receipt.signature,
        tenant=key.tenant,
        match_id=key.match_id,
    )


def event_pb(event: Any, key: MatchKey) -> gateway_pb2.MatchEvent:
    out = gateway_pb2.MatchEvent(
        version=event.version,
        type=event.type,
        actor=event.actor,
        json=event.payload_json,
        time_ms=event.time_ms,
    )
    if getattr(event, "receipt", None) is not None:
        out.receipt.CopyFrom(receipt_pb(event.receipt, key))
    if event.description:
        out.description.MergeFromString(event.description)
    return out


def view_pb(view: Any, match_id: str) -> gateway_pb2.MatchView:
    out = gateway_pb2.MatchView(
        match_id=match_id,
        game_id=view.game,
        version=view.version,
        seat=-1 if view.seat is None else view.seat,
        view=view.view_json,
        legal_actions=list(view.legal_actions),
        active_seats=list(view.active_seats),
        finished=view.finished,
        outcome=view.outcome_json,
        bots=[gateway_pb2.BotSeat(seat=s, kind=k) for s, k in getattr(view, "bots", ())],
    )
    if view.decision:
        out.decision.MergeFromString(view.decision)
    return out


def submitted_pb(outcome: Any, key: MatchKey) -> gateway_pb2.SubmitActionResponse:
    if not outcome.accepted:
        rejection = outcome.rejection
        return gateway_pb2.SubmitActionResponse(
            rejection=common_pb2.Rejection(code=rejection.code, message=rejection.message)
        )
    accepted = gateway_pb2.Accepted(
        version=outcome.version,
        events=[event_pb(e, key) for e in outcome.events],
        repeated=bool(outcome.repeated),
    )
    if outcome.receipt is not None:
        accepted.receipt.CopyFrom(receipt_pb(outcome.receipt, key))
    return gateway_pb2.SubmitActionResponse(accepted=accepted)


def ended(outcome: Any) -> bool:
    return bool(outcome.accepted) and any(e.type == MATCH_ENDED for e in outcome.events)
