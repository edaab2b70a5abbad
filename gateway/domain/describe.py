"""The gateway's own events in words (issue 31): what a match log shows for match_created,
seat_resigned, turn_timed_out, seat_claimed, seat_away, seat_returned, rules_version_moved,
action_undone and match_ended, in the same shape as a game's descriptions
(services/kernel/present.py), players named "Player 1".."Player N" in `text` and `{player}` slots
in `template` (a client fills them with the names at its table)."""

from __future__ import annotations

import msgspec

from gateway.domain.match import (
    GATEWAY_EVENT_DECODER,
    RESIGNED,
    UNCLAIMED,
    ActionUndone,
    MatchCreated,
    MatchEnded,
    RulesVersionMoved,
    SeatAway,
    SeatClaimed,
    SeatResigned,
    SeatReturned,
    TurnTimedOut,
)
from gateway.domain.timers import FORFEIT, RANDOM_ACTION
from services.kernel.present import Description, arg, describe, seat_arg

_OUTCOME = msgspec.json.Decoder(dict)

# What the gateway did about a seat whose time ran out (TurnTimedOut.policy), as words.
_POLICIES = {RANDOM_ACTION: ": a move is played for them", FORFEIT: ""}


def describe_gateway_event(payload: bytes) -> Description | None:
    """The description of one of the gateway's events (None: not one the gateway reads)."""
    try:
        event = GATEWAY_EVENT_DECODER.decode(payload)
    except msgspec.DecodeError:
        return None
    if isinstance(event, MatchCreated):
        return describe(
            "gateway.match_created",
            "The match begins with {players} players",
            arg("players", event.players),
        )
    if isinstance(event, SeatResigned):
        # Issue 39: everyone is told what resigning means for the rest of the match.
        then = ": the platform makes their remaining moves, and they finish last"
        if event.forfeit:
            return describe(
                "gateway.seat_forfeited", "{player} forfeits" + then, seat_arg("player", event.seat)
            )
        return describe("gateway.seat_resigned", "{player} resigns" + then, seat_arg("player", event.seat))
    if isinstance(event, SeatClaimed):
        return describe("gateway.seat_claimed", "{player} takes a seat", seat_arg("player", event.seat))
    if isinstance(event, SeatAway):
        return describe(
            "gateway.seat_away",
            "{player} is away: a bot plays for them until they are back",
            seat_arg("player", event.seat),
        )
    if isinstance(event, SeatReturned):
        return describe("gateway.seat_returned", "{player} is back", seat_arg("player", event.seat))
    if isinstance(event, TurnTimedOut):
        then = _POLICIES.get(event.policy, "")
        return describe(
            "gateway.turn_timed_out", "{player}'s turn timed out" + then, seat_arg("player", event.seat)
        )
    if isinstance(event, ActionUndone):
        return describe(
            "gateway.action_undone", "{player} takes back their last move", seat_arg("player", event.seat)
        )
    if isinstance(event, RulesVersionMoved):
        return describe(
            "gateway.rules_version_moved",
            "The match plays on under rules version {version}: its whole history replays the same under it",
            arg("version", event.to_version),
        )
    return _ended(event)


def _ended(event: MatchEnded) -> Description:
    try:
        winners = [w for w in _OUTCOME.decode(event.outcome).get("winners", ()) if isinstance(w, int)]
    except msgspec.DecodeError:
        winners = []
    why = " (by resignation)" if event.reason == RESIGNED else ""
    if event.reason == UNCLAIMED:
        return describe("gateway.table_closed", "The table closes: its seats were not all taken in time")
    if not winners:
        return describe("gateway.match_ended", "The match ends without a winner" + why)
    args = [seat_arg(f"winner{i}", seat) for i, seat in enumerate(winners)]
    slots = ["{" + a.name + "}" for a in args]
    who = slots[0] if len(slots) == 1 else ", ".join(slots[:-1]) + " and " + slots[-1]
    verb = "wins" if len(slots) == 1 else "win"
    return describe("gateway.match_ended", f"The match ends: {who} {verb}{why}", *args)
