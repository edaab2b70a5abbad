"""The rules kernel: pure (stdlib + msgspec). Every game is a GameSpec built from these parts."""

from services.kernel.rejection import (
    BAD_PAYLOAD,
    GAME_OVER,
    ILLEGAL_ACTION,
    NOT_YOUR_TURN,
    STALE_VERSION,
    UNKNOWN_ACTION,
    UNKNOWN_MATCH,
    UNKNOWN_PLAYER,
    WRONG_GAME,
    WRONG_TENANT,
    Rejection,
    SetupError,
    illegal,
)
from services.kernel.replay import replay, replay_steps
from services.kernel.rng import Rng, RngCursor
from services.kernel.schema import json_schemas
from services.kernel.spec import Codec, GameSpec, Outcome, PlayerResult, SetupConfig

__all__ = [
    "BAD_PAYLOAD",
    "GAME_OVER",
    "ILLEGAL_ACTION",
    "NOT_YOUR_TURN",
    "STALE_VERSION",
    "UNKNOWN_ACTION",
    "UNKNOWN_MATCH",
    "UNKNOWN_PLAYER",
    "WRONG_GAME",
    "WRONG_TENANT",
    "Codec",
    "GameSpec",
    "Outcome",
    "PlayerResult",
    "Rejection",
    "Rng",
    "RngCursor",
    "SetupConfig",
    "SetupError",
    "illegal",
    "json_schemas",
    "replay",
    "replay_steps",
]
