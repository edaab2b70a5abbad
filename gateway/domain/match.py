"""A match's opening event and the snapshot the gateway caches beside its stream."""

from __future__ import annotations

import msgspec

MATCH_CREATED = "match_created"


class MatchCreated(msgspec.Struct, frozen=True, tag=MATCH_CREATED):
    """The first event of every match: all a replay needs to rebuild the opening state.

    The seed decides every hidden card, so this event is for the server and
    auditors only; players get filtered views, never raw stream entries.
    """

    game_id: str
    rules_version: str
    players: int
    seed: int
    options: msgspec.Raw  # the game's options as JSON


class SnapshotBody(msgspec.Struct, frozen=True):
    """The cached state after some version, with its status, so a load costs no rules call."""

    state: bytes  # the rules service's GameState.state (msgpack of the game's state)
    active_players: tuple[int, ...]
    finished: bool
    outcome: bytes = b""


ENCODER = msgspec.msgpack.Encoder()
CREATED_DECODER = msgspec.json.Decoder(MatchCreated)
SNAPSHOT_DECODER = msgspec.msgpack.Decoder(SnapshotBody)
