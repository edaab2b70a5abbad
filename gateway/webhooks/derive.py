"""From a match's stream to webhook events: what each one says, and the ratings of an ended match.

Everything a webhook says comes from the stream and the match's meta (written by the same append
scripts), so deriving again gives the same events with the same ids and bodies; only the
rating changes come from elsewhere, and the ratings store answers an applied match's changes
again instead of applying it twice (gateway/ratings.py).

`data` of each event type (the envelope is gateway/webhooks/signing.py's):

    match.created   match_id, game_id, version, created_ms, players[{seat, player_id, bot}], options
    seat.resigned   match_id, game_id, version, seat, player_id, forfeit
    seat.timed_out  match_id, game_id, version, seat, player_id, policy
    match.ended     match_id, game_id, version, reason, ended_ms, winners,
                    players[{seat, player_id, bot, rank, left}], outcome (the game's JSON),
                    ratings[{seat, player_id, rank, mu_before, sigma_before, ordinal_before,
                             mu_after, sigma_after, ordinal_after}]
    ticket.matched  ticket_id, player_id, match_id, game_id, seat, players
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from gateway.domain.match import (
    TURN_TIMED_OUT,
    MatchEnded,
    SeatResigned,
    TurnTimedOut,
    acting_seat,
    seating_of,
)
from gateway.domain.ranking import abandoned, ranks
from gateway.eventstore.base import MatchKey, StoredEvent
from gateway.ratings import Ratings, Seat
from gateway.webhooks import config as hooks
from gateway.webhooks.outbox import Delivery, shard_of
from gateway.webhooks.signing import body, delivery_id, event_id

# (match key, the players of its meta) -> each seat's player id, None where nobody is known (a
# private table's seat that was never claimed).
ResolvePlayers = Callable[[MatchKey, Sequence[str]], Awaitable[list[str | None]]]
_BOTS = msgspec.json.Decoder(dict[int, str])


async def _as_is(key: MatchKey, players: Sequence[str]) -> list[str | None]:
    return list(players)


@dataclass(frozen=True)
class WebhookEvent:
    event_id: str
    event_type: str
    created_ms: int
    data: dict[str, Any]


class Deriver:
    """Turns stream entries into webhook events; applies an ended match's ratings."""

    def __init__(self, ratings: Ratings | None, resolve_players: ResolvePlayers | None = None) -> None:
        self.ratings = ratings
        self.resolve = resolve_players or _as_is

    async def events(
        self,
        key: MatchKey,
        meta: Mapping[str, str],
        entries: Sequence[StoredEvent],
        whole: Callable[[], Awaitable[Sequence[StoredEvent]]],
        wanted: Callable[[str], bool],
    ) -> list[WebhookEvent]:
        """The webhook events of `entries` that `wanted` asks for; an ended match's ratings are
        applied whether or not its webhook is wanted. `whole` reads the match's whole stream."""
        game = meta.get("game", "")
        players = await self.resolve(key, msgspec.json.decode(meta.get("players", "[]"), type=list[str]))
        bots = _BOTS.decode(meta["bots"]) if meta.get("bots") else {}
        out = []
        for entry in entries:
            kind = hooks.FROM_STREAM.get(entry.type)
            if kind is None or (kind != hooks.MATCH_ENDED and not wanted(kind)):
                continue
            base: dict[str, Any] = {"match_id": key.match_id, "game_id": game, "version": entry.version}
            if kind == hooks.MATCH_CREATED:
                created = msgspec.json.decode(entry.payload)
                base |= {
                    "created_ms": entry.time_ms,
                    "players": _seats(players, bots),
                    "options": created.get("options", {}),
                }
            elif kind == hooks.SEAT_RESIGNED:
                resigned = msgspec.json.decode(entry.payload, type=SeatResigned)
                base |= {"seat": resigned.seat, "player_id": _at(players, resigned.seat)}
                base["forfeit"] = resigned.forfeit
            elif kind == hooks.SEAT_TIMED_OUT:
                timed_out = msgspec.json.decode(entry.payload, type=TurnTimedOut)
                base |= {"seat": timed_out.seat, "player_id": _at(players, timed_out.seat)}
                base["policy"] = timed_out.policy
            else:
                base |= await self._ended(key, game, entry, await whole(), players, bots)
                if not wanted(kind):
                    continue
            out.append(
                WebhookEvent(
                    event_id(key.tenant, key.match_id, str(entry.version), kind), kind, entry.time_ms, base
                )
            )
        return out

    async def _ended(
        self,
        key: MatchKey,
        game: str,
        entry: StoredEvent,
        stream: Sequence[StoredEvent],
        players: Sequence[str | None],
        bots: Mapping[int, str],
    ) -> dict[str, Any]:
        ended = msgspec.json.decode(entry.payload, type=MatchEnded)
        seats = len(players)
        # Resigned, or away at the end (a bot playing for them: issue 41), or abandoned.
        seating = seating_of((e.type, e.payload) for e in stream)
        timed_out = [
            (msgspec.json.decode(e.payload, type=TurnTimedOut).seat, e.version)
            for e in stream
            if e.type == TURN_TIMED_OUT
        ]
        acted = [(acting_seat(e.actor), e.version) for e in stream if acting_seat(e.actor) >= 0]
        left = seating.left | abandoned(seats, timed_out, acted)
        places = ranks(bytes(ended.outcome), seats, left)
        outcome = msgspec.json.decode(bytes(ended.outcome)) if bytes(ended.outcome) else {}
        changes = []
        if self.ratings is not None:
            rated = [
                Seat(seat, player or "", places[seat], rated=player is not None and seat not in bots)
                for seat, player in enumerate(players)
            ]
            changes = await self.ratings.apply(key.tenant, game, key.match_id, rated)
        return {
            "reason": ended.reason,
            "ended_ms": entry.time_ms,
            "winners": list(outcome.get("winners", [])) if isinstance(outcome, dict) else [],
            "players": [
                {**seat, "rank": places[seat["seat"]], "left": seat["seat"] in left}
                for seat in _seats(players, bots)
            ],
            "outcome": msgspec.Raw(bytes(ended.outcome) or b"null"),
            "ratings": [
                {
                    "seat": c.seat,
                    "player_id": c.player_id,
                    "rank": c.rank,
                    "mu_before": c.mu_before,
                    "sigma_before": c.sigma_before,
                    "ordinal_before": c.ordinal_before,
                    "mu_after": c.mu_after,
                    "sigma_after": c.sigma_after,
                    "ordinal_after": c.ordinal_after,
                }
                for c in changes
            ],
        }


def _at(players: Sequence[str | None], seat: int) -> str | None:
    return players[seat] if 0 <= seat < len(players) else None


def _seats(players: Sequence[str | None], bots: Mapping[int, str]) -> list[dict[str, Any]]:
    return [{"seat": n, "player_id": p, "bot": bots.get(n)} for n, p in enumerate(players)]


def ticket_matched(
    tenant: str,
    game: str,
    match_id: str,
    ticket_id: str,
    seat: int,
    player_id: str,
    players: Sequence[str],
    when_ms: int,
) -> WebhookEvent:
    data = {
        "ticket_id": ticket_id,
        "player_id": player_id,
        "match_id": match_id,
        "game_id": game,
        "seat": seat,
        "players": list(players),
    }
    return WebhookEvent(
        event_id(tenant, ticket_id, match_id, hooks.TICKET_MATCHED), hooks.TICKET_MATCHED, when_ms, data
    )


def deliveries(
    tenant: str, config: hooks.WebhookConfig | None, events: Sequence[WebhookEvent], shard_ids: Sequence[str]
) -> list[Delivery]:
    """One delivery per event and endpoint that subscribes to it."""
    if config is None:
        return []
    shard = shard_of(*shard_ids)
    out = []
    for event in events:
        payload = body(event.event_id, event.event_type, event.created_ms, tenant, event.data).decode()
        for endpoint in config.endpoints_for(event.event_type):
            out.append(
                Delivery(
                    delivery_id(tenant, endpoint.endpoint_id, event.event_id),
                    tenant,
                    endpoint.endpoint_id,
                    event.event_id,
                    event.event_type,
                    payload,
                    event.created_ms,
                    shard,
                )
            )
    return out
