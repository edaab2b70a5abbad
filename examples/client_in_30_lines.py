"""A Guildhall client in 30 lines: queue two players, play to the end, check the match yourself.

GUILDHALL_API_KEY=ghk_... python examples/client_in_30_lines.py [host:port]
"""

import asyncio
import os
import random
import sys

from guildhall_client import AsyncClient


async def play(seat):  # one seat: whenever it may act, pick any legal action
    async for _update in seat.watch():  # wakes us at every change of the match
        view = await seat.view()  # the newest view: updates that queued while we acted are old
        while view.my_turn:
            await seat.submit(random.choice(view.legal_actions))  # command id + retries built in
            view = await seat.view()
        if view.finished:
            return view


async def main(target: str) -> None:
    async with AsyncClient(target, api_key=os.environ["GUILDHALL_API_KEY"]) as gh:
        queued = [gh.enqueue_and_wait("rattus_cartus", seats=2, player_id=p) for p in ("alice", "bob")]
        alice, bob = await asyncio.gather(*queued)
        final, _ = await asyncio.gather(play(alice), play(bob))
        print(f"match {final.match_id} over at version {final.version}; winners: {list(final.winners)}")
        check = await gh.verify_match(final.match_id)  # receipts and the seed, checked here
        print(f"{check.receipts_checked} receipts verified, seed matches commitment: {check.seed_ok}")
        print(f"gateway audit: {await gh.audit(final.match_id)}")


asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "localhost:50051"))
