"""Rejections: a rule said no. They are answers to the player, never exceptions."""

from __future__ import annotations

import msgspec

# Stable codes: clients switch on these, so never rename one.
NOT_YOUR_TURN = "not_your_turn"
ILLEGAL_ACTION = "illegal_action"
GAME_OVER = "game_over"
UNKNOWN_PLAYER = "unknown_player"
STALE_VERSION = "stale_version"
UNKNOWN_ACTION = "unknown_action"
BAD_PAYLOAD = "bad_payload"
WRONG_GAME = "wrong_game"
UNKNOWN_MATCH = "unknown_match"
WRONG_TENANT = "wrong_tenant"


class Rejection(msgspec.Struct, frozen=True):
    """Why an action was refused: a stable `code` and a message a player understands."""

    code: str
    message: str


def illegal(message: str) -> Rejection:
    return Rejection(ILLEGAL_ACTION, message)


class SetupError(ValueError):
    """The match options or player count cannot start a game."""
