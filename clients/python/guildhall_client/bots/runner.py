"""Bots playing through the client library, exactly as a third-party client would."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from guildhall_client.aio import AsyncClient, Seat
from guildhall_client.bots import Bot, data, make_bot
from guildhall_client.types import MatchView, WatchUpdate


def chooser(bot: Bot) -> Callable[[MatchView], int]:
    def choose(view: MatchView) -> int:
        assert view.seat is not None
        return bot.choose(view.view, view.legal_actions, view.seat)

    return choose


async def play_seat(
    seat: Seat, bot: Bot, on_update: Callable[[WatchUpdate], None] | None = None
) -> MatchView:
    """Play this seat to the end of its match with `bot`; the final view."""
    return await seat.play(chooser(bot), on_update=on_update)


@dataclass(frozen=True)
class BotResult:
    match_id: str
    seat: int
    kind: str
    players: int
    won: bool
    final: MatchView


async def queue_and_play(
    client: AsyncClient,
    game: str,
    seats: int,
    kind: str,
    *,
    seed: int | None = None,
    options: object = None,
    player_id: str | None = None,
    timeout_s: float | None = None,
) -> BotResult:
    """One bot: queue through matchmaking, play the match it lands in, report how it went."""
    await data.fetch(client, game)
    bot = make_bot(kind, game, seed)
    player = player_id or f"bot-{kind}-{uuid.uuid4().hex[:8]}"
    seat = await client.enqueue_and_wait(
        game, seats=seats, player_id=player, options=options, timeout_s=timeout_s
    )
    try:
        final = await play_seat(seat, bot)
    finally:
        await seat.client.close()
    number = final.seat if final.seat is not None else -1
    players = len(seat.ticket.players) if seat.ticket is not None else seats
    return BotResult(seat.match_id, number, kind, players, number in final.winners, final)


async def claim_and_play(
    client: AsyncClient, game: str, invite: str, kind: str, *, seed: int | None = None
) -> BotResult:
    """One bot: take a seat at a private table with its invite code and play it to the end."""
    await data.fetch(client, game)
    seat = await client.claim_seat(invite, f"bot-{kind}-{uuid.uuid4().hex[:8]}")
    try:
        final = await play_seat(seat, make_bot(kind, game, seed))
    finally:
        await seat.client.close()
    number = final.seat if final.seat is not None else -1
    return BotResult(
        seat.match_id,
        number,
        kind,
        len(final.view.get("seats", ())) if isinstance(final.view, dict) else 0,
        number in final.winners,
        final,
    )


async def fill_seats(
    client: AsyncClient,
    game: str,
    seats: int,
    count: int,
    kind: str,
    *,
    options: object = None,
    invite: str | None = None,
) -> list[asyncio.Task[BotResult]]:
    """Start `count` bots queueing for `game`, or taking seats at the table `invite` (they play
    in the background)."""
    if invite:
        return [
            asyncio.create_task(claim_and_play(client, game, invite, kind), name=f"bot-{i}")
            for i in range(count)
        ]
    return [
        asyncio.create_task(queue_and_play(client, game, seats, kind, options=options), name=f"bot-{i}")
        for i in range(count)
    ]
