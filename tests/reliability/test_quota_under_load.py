"""A tenant flooding SubmitAction from many loops: its quota holds across both replicas (refused
with RESOURCE_EXHAUSTED and a retry hint beyond its rate), and another tenant acting at the same
time is never refused. Latency under flood is a figure of `make soak`, not asserted here."""

from __future__ import annotations

import asyncio
import random
import time

from devstack.stack import Stack
from soak.flood import _match_loop
from tests.reliability.conftest import FLOOD_QUOTA
from tests.reliability.gateway_helpers import close_all, tenant_clients

LOOPS = 12
SECONDS = 3.0


def test_a_flooding_tenant_is_held_to_its_quota_and_another_tenant_is_not_refused(healthy: Stack) -> None:
    async def scenario() -> tuple[dict[str, int], dict[str, int], float]:
        flood = tenant_clients(healthy, "flood")  # one client per replica: the quota is shared
        victim = tenant_clients(healthy, "rival")
        flood_counts = {"accepted": 0, "refused": 0, "rejected": 0}
        victim_counts = {"accepted": 0, "refused": 0, "rejected": 0}
        stop = asyncio.Event()
        started = time.monotonic()
        try:
            tasks = [
                asyncio.create_task(
                    _match_loop(flood[n % 2], "rattus_cartus", 2, stop, None, flood_counts, random.Random(n))
                )
                for n in range(LOOPS)
            ]
            tasks += [
                asyncio.create_task(
                    _match_loop(victim[n], "rattus_cartus", 2, stop, None, victim_counts, random.Random(-n))
                )
                for n in range(2)
            ]
            await asyncio.sleep(SECONDS)
            stop.set()
            await asyncio.gather(*tasks)
        finally:
            await close_all(*flood, *victim)
        return flood_counts, victim_counts, time.monotonic() - started

    flood_counts, victim_counts, elapsed = asyncio.run(scenario())
    assert flood_counts["refused"] > 0, flood_counts
    # The bucket holds one second's worth, refills at the quota, and each replica may hold one
    # leased token: nothing beyond that is accepted, however hard the tenant pushes.
    assert flood_counts["accepted"] <= FLOOD_QUOTA * (1 + elapsed) + len(healthy.gateways), flood_counts
    assert victim_counts["refused"] == 0 and victim_counts["accepted"] > 0, victim_counts
    assert flood_counts["rejected"] == victim_counts["rejected"] == 0
