"""Bots through the client library: a greedy and a random bot queue for a game and play it out.

GUILDHALL_API_KEY=ghk_... python examples/greedy_vs_random.py [host:port] [game]
"""

import asyncio
import os
import sys

from guildhall_client import AsyncClient
from guildhall_client.bots.runner import queue_and_play


async def main(target: str, game: str) -> None:
    async with AsyncClient(target, api_key=os.environ["GUILDHALL_API_KEY"]) as gh:
        results = await asyncio.gather(*(queue_and_play(gh, game, 2, kind) for kind in ("greedy", "random")))
        for r in results:
            print(f"{r.kind:>6} bot, seat {r.seat} of {r.match_id}: {'won' if r.won else 'did not win'}")
        print(f"{game} over at version {results[0].final.version}")


asyncio.run(
    main(
        sys.argv[1] if len(sys.argv) > 1 else "localhost:50051",
        sys.argv[2] if len(sys.argv) > 2 else "rattus_cartus",
    )
)
