"""The rules kernel: pure (stdlib + msgspec). Every game is a GameSpec built from these parts."""

from services.kernel.data import data_digest, packaged_data, parse_data, read_data
from services.kernel.log import EventLog
from services.kernel.rejection import (
    CODES,
    GAME_OVER,
    ILLEGAL_ACTION,
    NOT_YOUR_TURN,
    RULES_CODES,
    STALE_VERSION,
    UNKNOWN_ACTION,
    UNKNOWN_MATCH,
    UNKNOWN_PLAYER,
    WRONG_GAME,
    Rejection,
    SetupError,
    illegal,
)
from services.kernel.replay import replay, replay_steps
from services.kernel.rng import Rng, RngCursor
from services.kernel.schema import json_schemas
from services.kernel.spec import Codec, GameSpec, Outcome, PlayerResult, SetupConfig
from services.kernel.tuples import put, seats_from, shift, without
from services.kernel.undo import UndoRule
from services.kernel.version import rules_version

__all__ = [
    "GAME_OVER",
    "CODES",
    "ILLEGAL_ACTION",
    "NOT_YOUR_TURN",
    "RULES_CODES",
    "STALE_VERSION",
    "UNKNOWN_ACTION",
    "UNKNOWN_MATCH",
    "UNKNOWN_PLAYER",
    "WRONG_GAME",
    "Codec",
    "EventLog",
    "GameSpec",
    "Outcome",
    "PlayerResult",
    "Rejection",
    "Rng",
    "RngCursor",
    "SetupConfig",
    "SetupError",
    "UndoRule",
    "data_digest",
    "illegal",
    "json_schemas",
    "packaged_data",
    "parse_data",
    "put",
    "read_data",
    "rules_version",
    "replay",
    "replay_steps",
    "seats_from",
    "shift",
    "without",
]
