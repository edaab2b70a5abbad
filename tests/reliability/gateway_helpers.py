"""Driving a real gateway stack from tests: clients per replica, random play, waiting."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from devstack.stack import Stack
from guildhall_client import AsyncClient
from guildhall_client.types import Accepted, MatchView

GIVE_UP_S = 60.0  # only so a broken gateway fails a test instead of hanging it


def both_replicas(stack: Stack) -> str:
    """One gRPC target naming both replicas, as a Kubernetes Service would: pick_first uses the
    first and moves to the other when it goes away."""
    return "ipv4:" + ",".join(stack.gateway_targets)


def tenant_clients(stack: Stack, tenant: str = "acme", retries: int = 0) -> list[AsyncClient]:
    """A tenant-key client per replica; retries=0 so a test sees each failure itself."""
    return [AsyncClient(t, api_key=stack.api_keys[tenant], retries=retries) for t in stack.gateway_targets]


async def close_all(*clients: AsyncClient) -> None:
    for client in clients:
        await client.close()


@dataclass
class Table:
    """A match and one client per seat (all sharing the tenant client's channel)."""

    match_id: str
    game: str
    tenant: AsyncClient
    seats: list[AsyncClient]
    spectator_token: str
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    commands: int = 0

    @classmethod
    async def create(cls, tenant: AsyncClient, game: str, players: int, seed: int = 7) -> Table:
        created = await tenant.create_match(game, [f"p{n}" for n in range(players)])
        by_seat = {s.seat: s.token for s in created.seats}
        seats = [tenant.for_token(by_seat[n]) for n in range(players)]
        return cls(created.match_id, game, tenant, seats, created.spectator_token, random.Random(seed))

    async def next_move(self) -> tuple[int, MatchView] | None:
        """(an active seat, its view with legal actions), or None once the match is finished."""
        public = await self.tenant.get_view(self.match_id)
        if public.finished:
            return None
        seat = self.rng.choice(list(public.active_seats))
        return seat, await self.seats[seat].get_view(self.match_id)

    async def play(self, actions: int) -> list[Accepted]:
        """Up to `actions` random legal actions (fewer if the match ends)."""
        accepted: list[Accepted] = []
        for _ in range(actions):
            move = await self.next_move()
            if move is None:
                break
            seat, view = move
            action = self.rng.choice(view.raw_legal_actions)
            accepted.append(await self.submit(seat, action))
        return accepted

    async def submit(
        self, seat: int, action: bytes, command_id: str | None = None, **kwargs: Any
    ) -> Accepted:
        if command_id is None:
            command_id = f"s{seat}-{self.commands}"
            self.commands += 1
        return await self.seats[seat].submit(self.match_id, action, command_id=command_id, **kwargs)


async def eventually(check: Callable[[], Awaitable[Any]], what: str) -> Any:
    """Call `check` until it returns without raising (a restart settling), then its value."""
    deadline = time.monotonic() + GIVE_UP_S
    while True:
        try:
            return await check()
        except Exception as error:
            if time.monotonic() > deadline:
                raise AssertionError(f"gave up waiting for {what}: {error}") from error
            await asyncio.sleep(0.05)


def settle(stack: Stack, calls: int = 64) -> None:
    """Make each replica answer a round of `calls` concurrent Redis-backed calls, so tests that
    check single calls precisely start once every process answers again after a fault."""
    import grpc
    from guildhall.gateway.v1 import gateway_pb2 as pb
    from guildhall.gateway.v1 import gateway_pb2_grpc as pb_grpc

    credentials = (("authorization", f"Bearer {stack.api_keys['acme']}"),)
    for target in stack.gateway_targets:
        with grpc.insecure_channel(target) as channel:
            stub = pb_grpc.GatewayServiceStub(channel)
            deadline = time.monotonic() + GIVE_UP_S
            while True:  # rounds of concurrent calls, so every pooled connection gets used
                request = pb.ListMatchesRequest(limit=1)
                futures = [
                    stub.ListMatches.future(request, metadata=credentials, timeout=5) for _ in range(calls)
                ]
                failed = [f for f in futures if f.exception() is not None]
                if not failed:
                    break
                if time.monotonic() > deadline:
                    raise AssertionError(f"{target} keeps failing: {failed[0].exception()}")
                time.sleep(0.05)
