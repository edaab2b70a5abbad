"""A match as the gateway sees it, independent of gRPC and Redis: the events the gateway itself
writes into a match's stream, the snapshot it caches beside it, and who acted.

The rules services know nothing of these events; the gateway folds them itself and never sends
them to a rules service. They are public: every viewer may see them as stored.
"""

from __future__ import annotations

import msgspec

from services.kernel import Outcome, PlayerResult

MATCH_CREATED = "match_created"
MATCH_ENDED = "match_ended"
SEAT_RESIGNED = "seat_resigned"
TURN_TIMED_OUT = "turn_timed_out"
ACTION_UNDONE = "action_undone"
GATEWAY_EVENTS = frozenset({MATCH_CREATED, MATCH_ENDED, SEAT_RESIGNED, TURN_TIMED_OUT, ACTION_UNDONE})

# Who appended: a seat ("seat:2"), the gateway itself (creation, timeouts that forfeit, the end),
# or the gateway acting on a seat's behalf ("gateway:seat:2": a timed-out or resigned seat's
# move, chosen by a generator keyed from the match seed).
GATEWAY = "gateway"

# Why a match ended.
FINISHED = "finished"  # the rules say the game is over
RESIGNED = "resigned"  # every seat but one (or all) resigned or forfeited


class TurnTimerSpec(msgspec.Struct, frozen=True):
    """The match's turn timer as recorded at creation (seconds 0 = none)."""

    seconds: float
    policy: str


class BotSeat(msgspec.Struct, frozen=True):
    """A seat played by the platform's bot worker (issue 23), of a named kind."""

    seat: int
    kind: str


class MatchCreated(msgspec.Struct, frozen=True, tag=MATCH_CREATED):
    """The first event of every match: what was set up, and a commitment to the seed.

    The seed itself decides every hidden card, so only its commitment,
    sha256(b"guildhall-seed-v1" + seed) in hex, is published here; the seed is revealed by
    `match_ended`, and anyone can then check it and re-run the match.
    """

    game_id: str
    rules_version: str
    players: int
    seed_commitment: str
    options: msgspec.Raw  # the game's options as JSON
    player_ids: tuple[str, ...] = ()
    turn_timer: TurnTimerSpec | None = None
    bots: tuple[BotSeat, ...] = ()  # seats the platform's bots play; ratings leave them out


class SeatResigned(msgspec.Struct, frozen=True, tag=SEAT_RESIGNED):
    """A seat left the match; the gateway plays its remaining decisions for it."""

    seat: int
    forfeit: bool = False  # resigned by its turn timer, not by the player


class TurnTimedOut(msgspec.Struct, frozen=True, tag=TURN_TIMED_OUT):
    """A seat's time ran out at `version`; `policy` says what the gateway did about it."""

    seat: int
    version: int
    policy: str


class ActionUndone(msgspec.Struct, frozen=True, tag=ACTION_UNDONE):
    """A seat took back its own move (gateway/domain/undo.py): the entries `first_version` to
    `last_version`, one append of that seat, no longer count, and the match is again as it was
    before them. Nothing is deleted: the taken-back entries stay in the stream."""

    seat: int
    first_version: int
    last_version: int
    # When the decisions it gives back were first asked (Unix ms): their turn clocks run from
    # then, so taking moves back never buys time.
    asked_ms: int = 0


class MatchEnded(msgspec.Struct, frozen=True, tag=MATCH_ENDED):
    """The last event: the outcome, and the seed revealed (hex of its 32 bytes)."""

    reason: str
    outcome: msgspec.Raw
    seed: str


class SnapshotBody(msgspec.Struct, frozen=True):
    """The cached state after some version, with its status, so a load costs no rules call."""

    state: bytes  # the rules service's GameState.state (msgpack of the game's state)
    active_players: tuple[int, ...]
    finished: bool
    outcome: bytes = b""
    resigned: tuple[int, ...] = ()
    ended: bool = False  # match_ended is in the stream


ENCODER = msgspec.msgpack.Encoder()
JSON = msgspec.json.Encoder()
SNAPSHOT_DECODER = msgspec.msgpack.Decoder(SnapshotBody)
GATEWAY_EVENT_DECODER = msgspec.json.Decoder(
    MatchCreated | SeatResigned | TurnTimedOut | ActionUndone | MatchEnded
)


def seat_actor(seat: int) -> str:
    return f"seat:{seat}"


def on_behalf_actor(seat: int) -> str:
    return f"{GATEWAY}:seat:{seat}"


def actor_seat(actor: str) -> int:
    """The seat whose decision an append carries, -1 for the gateway's own appends."""
    head, _, number = actor.rpartition("seat:")
    if number.isdigit() and head in ("", f"{GATEWAY}:"):
        return int(number)
    return -1


def acting_seat(actor: str) -> int:
    """The seat an entry is shown as coming from: -1 when the gateway wrote it, even on a seat's behalf."""
    return int(actor[5:]) if actor.startswith("seat:") and actor[5:].isdigit() else -1


def resignation_outcome(players: int, resigned: frozenset[int]) -> bytes:
    """The outcome when every seat but one (or all) resigned: the seats left in win."""
    winners = tuple(seat for seat in range(players) if seat not in resigned)
    results = tuple(
        PlayerResult(
            seat,
            1 if seat in winners else 0,
            eliminated=seat in resigned,
            note="resigned" if seat in resigned else "",
        )
        for seat in range(players)
    )
    return JSON.encode(Outcome(winners, results))


def should_end_by_resignation(players: int, resigned: frozenset[int]) -> bool:
    return players - len(resigned) <= 1
