"""Rejections: a rule said no. They are answers to the player, never exceptions."""

from __future__ import annotations

import msgspec

# Stable codes: clients switch on these, so never rename one. This is the one list: the proto
# comments, the published rejection schema (an enum of CODES) and docs/rules-contract.md name the same.
# Given by every rules service:
NOT_YOUR_TURN = "not_your_turn"  # the seat owes no decision now
ILLEGAL_ACTION = "illegal_action"  # the rules forbid this action now (the message says why)
GAME_OVER = "game_over"  # the match has ended
UNKNOWN_PLAYER = "unknown_player"  # no such seat in this match
UNKNOWN_ACTION = "unknown_action"  # the game has no action of this type
# Added by the gateway:
STALE_VERSION = "stale_version"  # the client named a version that is no longer the latest
UNKNOWN_MATCH = "unknown_match"  # no such match (for this tenant)
WRONG_GAME = "wrong_game"  # the match is of another game than the call names
COMMAND_ID_IN_USE = "command_id_in_use"  # another seat of the match already used this command id
SEAT_TAKEN = "seat_taken"  # every seat of the private table is already claimed
BAD_INVITE = "bad_invite"  # no private table has this invite code (for this tenant)
CANNOT_UNDO = "cannot_undo"  # the seat has no move it may take back now (the message says why)

RULES_CODES = (NOT_YOUR_TURN, ILLEGAL_ACTION, GAME_OVER, UNKNOWN_PLAYER, UNKNOWN_ACTION)
GATEWAY_CODES = (
    STALE_VERSION,
    UNKNOWN_MATCH,
    WRONG_GAME,
    COMMAND_ID_IN_USE,
    SEAT_TAKEN,
    BAD_INVITE,
    CANNOT_UNDO,
)
CODES = RULES_CODES + GATEWAY_CODES


class Rejection(msgspec.Struct, frozen=True):
    """Why an action was refused: a stable `code` and a message a player understands."""

    code: str
    message: str


def illegal(message: str) -> Rejection:
    return Rejection(ILLEGAL_ACTION, message)


class SetupError(ValueError):
    """The match options or player count cannot start a game."""
