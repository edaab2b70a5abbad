"""Typed errors: a rule saying no and a call failing are different things, each with a class.

- `Rejected` (and one subclass per stable rejection code) is the gateway answering "no" to an
  action: the match did not change. Switch on the class or on `.code`.
- `GatewayError` subclasses are gRPC statuses: bad credentials, a missing match, a quota, a
  draining gateway. The client never lets a raw `grpc.RpcError` out.

The codes are the one list in `services/kernel/rejection.py`; a test checks every code there
has its own class here.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import grpc


class GuildhallError(Exception):
    """Base of every error the client raises."""


# -- rejections: answers, not faults ------------------------------------------------------------


class Rejected(GuildhallError):
    """The gateway refused the action; nothing was written. `code` is stable, `message` is for people."""

    code = ""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class NotYourTurn(Rejected):
    code = "not_your_turn"


class IllegalAction(Rejected):
    code = "illegal_action"


class GameOver(Rejected):
    code = "game_over"


class UnknownPlayer(Rejected):
    code = "unknown_player"


class UnknownAction(Rejected):
    code = "unknown_action"


class StaleVersion(Rejected):
    code = "stale_version"


class UnknownMatch(Rejected):
    code = "unknown_match"


class WrongGame(Rejected):
    code = "wrong_game"


class CommandIdInUse(Rejected):
    code = "command_id_in_use"


class SeatTaken(Rejected):
    code = "seat_taken"


class BadInvite(Rejected):
    code = "bad_invite"


class CannotUndo(Rejected):
    code = "cannot_undo"


# The codes this client knows; `Rejected.code` stays a plain `str`, since v1 may add codes (a
# newer one comes as a plain Rejected with its message). The TypeScript client has the same union.
KnownRejectionCode: TypeAlias = Literal[
    "not_your_turn",
    "illegal_action",
    "game_over",
    "unknown_player",
    "unknown_action",
    "stale_version",
    "unknown_match",
    "wrong_game",
    "command_id_in_use",
    "seat_taken",
    "bad_invite",
    "cannot_undo",
]

REJECTIONS: dict[str, type[Rejected]] = {
    cls.code: cls
    for cls in (
        NotYourTurn,
        IllegalAction,
        GameOver,
        UnknownPlayer,
        UnknownAction,
        StaleVersion,
        UnknownMatch,
        WrongGame,
        CommandIdInUse,
        SeatTaken,
        BadInvite,
        CannotUndo,
    )
}


def rejection(code: str, message: str) -> Rejected:
    """The exception for a rejection code; a code this client does not know yet is a plain Rejected."""
    cls = REJECTIONS.get(code)
    return cls(message) if cls is not None else Rejected(message, code)


# -- gRPC statuses: the call failed ---------------------------------------------------------------


class GatewayError(GuildhallError):
    """A call failed with a gRPC status (`status`, `details`)."""

    def __init__(self, status: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{status.name}: {details}")
        self.status = status
        self.details = details


class Unauthenticated(GatewayError):
    """Missing, malformed, unknown, expired or badly signed credentials."""


class PermissionDenied(GatewayError):
    """The credential is valid but its scope may not do this (or it is for another match or seat)."""


class NotFound(GatewayError):
    """No such match, ticket or table for this tenant."""


class InvalidArgument(GatewayError):
    """The request was malformed; the details say which field."""


class QuotaExceeded(GatewayError):
    """Over a tenant quota or a size limit; `retry_after_s` is the gateway's hint (None if none)."""

    def __init__(self, status: grpc.StatusCode, details: str, retry_after_s: float | None = None) -> None:
        super().__init__(status, details)
        self.retry_after_s = retry_after_s


class Conflict(GatewayError):
    """ABORTED: the match kept changing under the call; retrying is safe."""


class Unavailable(GatewayError):
    """UNAVAILABLE: the gateway is draining or unreachable, or a rules service is down."""


class DeadlineExceeded(GatewayError):
    """No answer within the call's deadline (the call may still have happened)."""


class ReceiptInvalid(GuildhallError):
    """A receipt the gateway returned does not verify with its published keys."""


_STATUS_CLASSES: dict[grpc.StatusCode, type[GatewayError]] = {
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.ABORTED: Conflict,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
}

# Statuses after which the same call may simply be sent again (with the same command id).
TRANSIENT = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED, grpc.StatusCode.DEADLINE_EXCEEDED}
)

# What gRPC's own core reports, as INTERNAL, when the connection under a stream is torn down
# (a gateway stopping mid-stream): the transport broke, the server said nothing. Our servers'
# INTERNAL reads "internal error in <rpc>; ...", never these.
_TRANSPORT_BREAKS = ("Internal error from Core", "RST_STREAM", "Stream removed")


def stream_broken(error: grpc.aio.AioRpcError) -> bool:
    """Whether a stream ended because its connection broke: safe to open again and resume."""
    if error.code() in TRANSIENT:
        return True
    details = error.details() or ""
    return error.code() == grpc.StatusCode.INTERNAL and any(mark in details for mark in _TRANSPORT_BREAKS)


def _retry_after(error: grpc.RpcError) -> float | None:
    trailing = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    for key, value in trailing or ():
        if key == "retry-after-ms":
            try:
                return int(value) / 1000.0
            except (TypeError, ValueError):
                return None
    return None


def from_rpc_error(error: grpc.RpcError) -> GatewayError:
    """The typed error for a failed call."""
    status = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = (error.details() if hasattr(error, "details") else "") or ""
    return from_status(status, details, _retry_after(error))


_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


def from_status(
    status: grpc.StatusCode | int, details: str, retry_after_s: float | None = None
) -> GatewayError:
    """The typed error for a status (or its number, as a Play stream's fault carries it)."""
    if isinstance(status, int):
        status = _BY_NUMBER.get(status, grpc.StatusCode.UNKNOWN)
    if status == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return QuotaExceeded(status, details, retry_after_s)
    return _STATUS_CLASSES.get(status, GatewayError)(status, details)
