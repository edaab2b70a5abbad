"""A match as the gateway sees it, independent of gRPC and Redis: the events the gateway itself
writes into a match's stream, the snapshot it caches beside it, and who acted.

The rules services know nothing of these events; the gateway folds them itself and never sends
them to a rules service. They are public: every viewer may see them as stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import msgspec

from gateway.domain.ranking import ranks
from services.kernel import Outcome, PlayerResult

MATCH_CREATED = "match_created"
MATCH_ENDED = "match_ended"
SEAT_RESIGNED = "seat_resigned"
TURN_TIMED_OUT = "turn_timed_out"
ACTION_UNDONE = "action_undone"  # issue 41: a seat took back its own last move
SEAT_CLAIMED = "seat_claimed"  # issue 39: a private table's seat was claimed
SEAT_AWAY = "seat_away"  # issue 41: a seat's timer ran out; the platform's bot plays it meanwhile
SEAT_RETURNED = "seat_returned"  # ... and its player took it back
RULES_VERSION_MOVED = "rules_version_moved"  # issue 40: the match plays on under another version
GATEWAY_EVENTS = frozenset(
    {
        MATCH_CREATED,
        MATCH_ENDED,
        SEAT_RESIGNED,
        TURN_TIMED_OUT,
        SEAT_CLAIMED,
        SEAT_AWAY,
        SEAT_RETURNED,
        RULES_VERSION_MOVED,
        ACTION_UNDONE,
    }
)

# Who appended: a seat ("seat:2"), the gateway itself (creation, timeouts that forfeit, the end),
# or the gateway acting on a seat's behalf ("gateway:seat:2": a timed-out or resigned seat's
# move, chosen by a generator keyed from the match seed).
GATEWAY = "gateway"

# Why a match ended.
FINISHED = "finished"  # the rules say the game is over
RESIGNED = "resigned"  # every seat but one (or all) resigned or forfeited
UNCLAIMED = "unclaimed"  # a private table's seats were not all claimed in time: nobody played

# The gateway's match policy, recorded in match_created (`policy`) so that a match is judged by
# the policy it began under, as it is by its rules version:
#   0  before issue 39: the rules' outcome is the match's outcome, whoever resigned;
#   1  issue 39: a seat that resigned, or whose player was away at the end (a bot playing for
#      them), finishes after every seat that stayed and never wins (`standing_outcome`).
POLICY = 1


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
    # Issue 39: a private table's seats that wait for a player; nobody acts and no clock runs
    # until each of them is claimed (`seat_claimed`).
    awaiting: tuple[int, ...] = ()
    policy: int = 0  # the gateway's match policy (POLICY above)


class SeatResigned(msgspec.Struct, frozen=True, tag=SEAT_RESIGNED):
    """A seat left the match; the gateway plays its remaining decisions for it."""

    seat: int
    forfeit: bool = False  # resigned by its turn timer, not by the player


class SeatClaimed(msgspec.Struct, frozen=True, tag=SEAT_CLAIMED):
    """A private table's seat was claimed by its player (who it is stays with the table)."""

    seat: int


class SeatAway(msgspec.Struct, frozen=True, tag=SEAT_AWAY):
    """A seat's turn timer ran out: the platform's bot of `kind` plays it until its player is back."""

    seat: int
    kind: str


class SeatReturned(msgspec.Struct, frozen=True, tag=SEAT_RETURNED):
    """The player of an away seat took it back (by acting, or by saying so)."""

    seat: int


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


class RulesVersionMoved(msgspec.Struct, frozen=True, tag=RULES_VERSION_MOVED):
    """The match plays on under another rules version from this entry on (an operator's
    MoveMatch, issue 40): its whole history re-executed under `to_version` gave every recorded
    event and the same state. The entries before it were recorded under `from_version`."""

    from_version: str
    to_version: str


class SnapshotBody(msgspec.Struct, frozen=True):
    """The cached state after some version, with its status, so a load costs no rules call."""

    state: bytes  # the rules service's GameState.state (msgpack of the game's state)
    active_players: tuple[int, ...]
    finished: bool
    outcome: bytes = b""
    resigned: tuple[int, ...] = ()
    ended: bool = False  # match_ended is in the stream
    away: tuple[int, ...] = ()  # issue 41
    unclaimed: tuple[int, ...] = ()  # issue 39


ENCODER = msgspec.msgpack.Encoder()
JSON = msgspec.json.Encoder()
SNAPSHOT_DECODER = msgspec.msgpack.Decoder(SnapshotBody)
GatewayEvent = (
    MatchCreated
    | SeatResigned
    | TurnTimedOut
    | MatchEnded
    | SeatClaimed
    | SeatAway
    | SeatReturned
    | RulesVersionMoved
    | ActionUndone
)
GATEWAY_EVENT_DECODER = msgspec.json.Decoder(GatewayEvent)


class Seating(NamedTuple):
    """Who may act, as the gateway's own events left it: seats that resigned, seats a bot plays
    while their player is away, and a private table's seats not claimed yet."""

    resigned: frozenset[int] = frozenset()
    away: frozenset[int] = frozenset()
    unclaimed: frozenset[int] = frozenset()

    @property
    def ready(self) -> bool:
        """Every seat of the table is claimed: play (and every clock) may start."""
        return not self.unclaimed

    @property
    def left(self) -> frozenset[int]:
        """Seats that finish after every other (POLICY 1): resigned, or away."""
        return self.resigned | self.away

    def after(self, event: object) -> Seating:
        """The seating once `event` (a decoded gateway event) is in the stream."""
        if isinstance(event, SeatResigned):
            return self._replace(resigned=self.resigned | {event.seat}, away=self.away - {event.seat})
        if isinstance(event, SeatAway):
            return self._replace(away=self.away | {event.seat})
        if isinstance(event, SeatReturned):
            return self._replace(away=self.away - {event.seat})
        if isinstance(event, SeatClaimed):
            return self._replace(unclaimed=self.unclaimed - {event.seat})
        return self

    def problem(self, event: object, players: int) -> str:
        """Why `event` cannot follow this seating ("" when it can)."""
        seat = getattr(event, "seat", -1)
        if isinstance(event, SeatResigned) and (not 0 <= seat < players or seat in self.resigned):
            return f"seat {seat} cannot resign here"
        if isinstance(event, SeatClaimed) and seat not in self.unclaimed:
            return f"seat {seat} was not waiting to be claimed"
        if isinstance(event, SeatAway) and (not 0 <= seat < players or seat in self.left or not self.ready):
            return f"seat {seat} cannot be away here"
        if isinstance(event, SeatReturned) and seat not in self.away:
            return f"seat {seat} was not away"
        return ""


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


def seating_of(entries: Iterable[tuple[str, bytes]], awaiting: Iterable[int] = ()) -> Seating:
    """The seating a stream's (type, payload) entries leave, from match_created on."""
    seating = Seating(unclaimed=frozenset(awaiting))
    for event_type, payload in entries:
        if event_type in GATEWAY_EVENTS and event_type not in (MATCH_CREATED, MATCH_ENDED):
            seating = seating.after(GATEWAY_EVENT_DECODER.decode(payload))
    return seating


_OUTCOME = msgspec.json.Decoder(Outcome)


def standing_outcome(outcome_json: bytes, players: int, seating: Seating) -> bytes:
    """POLICY 1: the rules' outcome with the seats that left (resigned, or away at the end) after
    every seat that stayed. They never win: when every winner by the rules left, the best of the
    others win (ranked as ratings rank them: gateway/domain/ranking.py). Scores stand as played,
    and each such seat's note says why it finished behind."""
    left = seating.left
    if not left or not outcome_json:
        return outcome_json
    outcome = _OUTCOME.decode(outcome_json)
    winners = tuple(seat for seat in outcome.winners if seat not in left)
    if outcome.winners and not winners:
        places = ranks(outcome_json, players, left)
        winners = tuple(s for s in range(players) if s not in left and places[s] == 1)

    def behind(result: PlayerResult) -> PlayerResult:
        why = "resigned" if result.player in seating.resigned else "away: a bot played for them"
        return msgspec.structs.replace(result, note="; ".join(filter(None, (result.note, why))))

    results = tuple(behind(r) if r.player in left else r for r in outcome.results)
    return JSON.encode(Outcome(winners, results))


UNCLAIMED_REASON = "The table closed before every seat was taken: nobody played, nobody wins."


def unclaimed_outcome() -> bytes:
    """A table closed before its seats were claimed: nobody played, nobody wins."""
    return JSON.encode(Outcome((), (), reason=UNCLAIMED_REASON))
