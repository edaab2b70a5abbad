"""What the gateway's transports share about requests and answers: the size limits, the checks of
a request's fields (BadRequest / TooLarge name the field), and the use cases' results as protobuf.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import structlog
from guildhall.common.v1 import common_pb2
from guildhall.gateway.v1 import gateway_pb2

from gateway.auth import SEAT, Principal, denied, for_match
from gateway.domain.names import BadName, check_name
from gateway.eventstore.base import MatchKey

MAX_ACTION_BYTES = 64 * 1024
MAX_OPTIONS_BYTES = 64 * 1024
MAX_REQUEST_BYTES = 1024 * 1024  # the gateway's transport limit: actions and options are small
# What a compressed HTTP request may inflate to (gateway/api/inflate.py): the same as an uncompressed
# one, since the message it holds has the same limit; checked while inflating, not after.
MAX_INFLATED_BYTES = MAX_REQUEST_BYTES
_COMMAND_ID = re.compile(r"[\x21-\x7e]{1,64}")  # printable ASCII, no spaces
_PLAYER_ID = re.compile(r"[^\x00-\x1f\x7f]{1,128}")
MATCH_ENDED = "match_ended"


class BadRequest(ValueError):
    """The request is malformed: INVALID_ARGUMENT, with a message naming the field."""


class TooLarge(ValueError):
    """A field over its size limit: RESOURCE_EXHAUSTED (over HTTP 413: sent again as it is, it
    never fits)."""


class CapReached(ValueError):
    """A cap on what may be open at once (streams): RESOURCE_EXHAUSTED (over HTTP 429: it fits
    once something closes)."""


# -- request checks ------------------------------------------------------------------------------


def seat_of(principal: Principal) -> int:
    """The seat a seat token acts for; PERMISSION_DENIED for any other credential."""
    if SEAT not in principal.scopes or principal.seat is None:
        raise denied("only a seat token may act")
    return principal.seat


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


def display_name(text: str) -> tuple[str, str]:
    """A name chosen at a table (issues 32, 39): the name as shown and its key; BadRequest says
    why it cannot be one (gateway/domain/names.py)."""
    try:
        return check_name(text)
    except BadName as error:
        raise BadRequest(str(error)) from None


# A page cursor is one this gateway issued (issue 30 item 4: "99999999999999999999" reached ZREVRANGE
# as an out-of-range integer, INTERNAL / HTTP 500). Offsets past this are no page anyone reads.
MAX_OFFSET_CURSOR = 10**9
_BAD_CURSOR = (
    "cursor is not one this gateway issued: pass the previous page's next_cursor, or none for the first page"
)


def offset_cursor(text: str) -> int:
    """A cursor issued as an offset into a sorted list (leaderboards, dead letters); '' is 0.

    Strict: ASCII digits without a leading zero, at most MAX_OFFSET_CURSOR (str.isdigit alone lets
    "²" and 20-digit numbers through), so what reaches Redis is always a small integer."""
    if not text:
        return 0
    if (
        not (text.isascii() and text.isdigit())
        or text[0] == "0"
        or len(text) > 10
        or int(text) > MAX_OFFSET_CURSOR
    ):
        raise BadRequest(_BAD_CURSOR)
    return int(text)


def match_cursor(text: str) -> tuple[int, str] | None:
    """ListMatches' cursor, `<created_ms>:<match_id>` as issued; None for the first page."""
    if not text:
        return None
    created, _, match = text.partition(":")
    if not (created.isascii() and created.isdigit()) or len(created) > 15:  # ms: beyond year 30000
        raise BadRequest(_BAD_CURSOR)
    try:
        MatchKey("t", match)
    except ValueError:
        raise BadRequest(_BAD_CURSOR) from None
    return int(created), match


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


# The fill_* functions write into a message in place: a protobuf message given to another's
# constructor, or to CopyFrom, is copied (upb serializes and parses it again), which on the Play
# path was the largest part of building an update (issue 45).


def fill_receipt(out: gateway_pb2.Receipt, receipt: Any, key: MatchKey) -> gateway_pb2.Receipt:
    out.key_id = receipt.key_id
    out.version = receipt.version
    out.head_hash = receipt.head_hash
    out.signature = receipt.signature
    out.tenant = key.tenant
    out.match_id = key.match_id
    return out


def fill_event(out: gateway_pb2.MatchEvent, event: Any, key: MatchKey) -> gateway_pb2.MatchEvent:
    out.version = event.version
    out.type = event.type
    out.actor = event.actor
    out.json = event.payload_json
    out.time_ms = event.time_ms
    if getattr(event, "receipt", None) is not None:
        fill_receipt(out.receipt, event.receipt, key)
    if event.description:
        out.description.MergeFromString(event.description)
    return out


def fill_events(out: Any, events: Sequence[Any], key: MatchKey) -> None:
    """Append `events` to a repeated MatchEvent field (an update's `events`)."""
    for event in events:
        fill_event(out.add(), event, key)


def fill_view(out: gateway_pb2.MatchView, view: Any, match_id: str) -> gateway_pb2.MatchView:
    out.match_id = match_id
    out.game_id = view.game
    out.version = view.version
    out.seat = -1 if view.seat is None else view.seat
    out.view = view.view_json
    out.legal_actions.extend(view.legal_actions)
    out.active_seats.extend(view.active_seats)
    out.finished = view.finished
    out.outcome = view.outcome_json
    for seat, kind in getattr(view, "bots", ()):
        out.bots.add(seat=seat, kind=kind)
    out.resigned_seats.extend(getattr(view, "resigned", ()))
    out.away_seats.extend(getattr(view, "away", ()))
    out.unclaimed_seats.extend(getattr(view, "unclaimed", ()))
    out.rules_version = getattr(view, "rules_version", "")
    out.undo_available = bool(getattr(view, "undo_available", False))
    if view.decision:
        out.decision.MergeFromString(view.decision)
    return out


def submitted_pb(outcome: Any, key: MatchKey) -> gateway_pb2.SubmitActionResponse:
    if not outcome.accepted:
        rejection = outcome.rejection
        return gateway_pb2.SubmitActionResponse(
            rejection=common_pb2.Rejection(code=rejection.code, message=rejection.message)
        )
    response = gateway_pb2.SubmitActionResponse()
    accepted = response.accepted
    accepted.SetInParent()  # present even were every field its default
    accepted.version = outcome.version
    accepted.repeated = bool(outcome.repeated)
    fill_events(accepted.events, outcome.events, key)
    if outcome.receipt is not None:
        fill_receipt(accepted.receipt, outcome.receipt, key)
    return response


def ended(outcome: Any) -> bool:
    return bool(outcome.accepted) and any(e.type == MATCH_ENDED for e in outcome.events)


def finished(updates: Sequence[Any]) -> bool:
    """Whether these Watch or Play updates deliver the view of a finished match: nothing follows
    it, so the stream ends there (issue 39 item 12), as the SSE feed does."""
    return any(u.HasField("view") and u.view.finished for u in updates)
