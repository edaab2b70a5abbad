"""Issue 24, end to end: bot matches of every game through two gateway replicas on a real Redis
Cluster (3 primaries, one replica each, AOF always) while the primary serving a match in play is
first SIGSTOPped past its failover, then SIGKILLed. With REDIS_WAIT_REPLICAS=1 no acknowledged
action may be lost, forked or applied twice, no client may see INTERNAL, every match must pass its
audit, and the spectator on the other replica must get every acknowledged version. The soak's
cluster mode (`make soak CLUSTER=1`) runs the same faults many times; this is its bounded run."""

from __future__ import annotations

import asyncio
from pathlib import Path

from devstack.stack import Stack, TenantSpec
from soak.harness import Soak

PLAY_S = 30.0  # at least: the play goes on until the scheduled faults are over


def test_no_acknowledged_action_is_lost_or_forked_when_a_primary_stalls_or_dies(tmp_path: Path) -> None:
    with Stack.for_faults(
        tmp_path, gateways=2, tenants=(TenantSpec("acme"),), cluster_primaries=3, wait_replicas=1
    ) as stack:
        # One stall, then one kill, while the bots play (the soak's random faults stay off).
        schedule = ((6.0, "primary_stall"), (3.0, "primary_kill"))
        soak = Soak(
            stack, duration_s=PLAY_S, concurrency=5, fault_interval_s=0, seed=24, fault_schedule=schedule
        )
        asyncio.run(soak.run())
    report = soak.report
    print("\n" + report.markdown())  # the figures, for the log

    assert report.cluster and report.wait_replicas == 1
    # The stall lasted past the failover: its replica was promoted while it stood still.
    assert report.faults == {"primary_stall": 1, "primary_stall_failed_over": 1, "primary_kill": 1}
    assert report.matches_started >= 5 and report.actions_accepted > 0
    assert report.lost_acknowledged == 0
    assert report.forked == 0
    assert report.duplicated == 0
    assert report.contract_violations == 0, report.errors  # no INTERNAL or UNKNOWN answer
    assert not report.audits_failed and report.audited == report.matches_started
    assert not report.mismatches
    # Every version acknowledged to a seat reached the spectator on the other replica.
    for ledger in soak.ledgers:
        missing = set(ledger.acked_at) - set(ledger.seen_at)
        assert not missing, f"{ledger.match_id}: versions {sorted(missing)[:5]} never reached the spectator"
    assert report.watch_delay_ms["max"] > 0
