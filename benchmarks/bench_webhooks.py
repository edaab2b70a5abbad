"""Webhooks (issue 23): how long a delivery takes, and whether the action path notices them.

One stack (gateway, Rattus Cartus rules service, Redis with AOF always) and two tenants: one
with no webhooks, one subscribed to every event type, its endpoint a receiver in this process.
- The action path: SubmitAction at 8 always-busy matches (bench_path's driver: whole matches
  played to the end and started again, so matches are created and end all along, each end a
  derivation, a rating update and deliveries), for each tenant in turn, twice: accepted
  actions/s and the p50/p99 of SubmitAction, with webhooks beside without.
- Delivery latency: from each event's append (its `created_ms`) to the receiver's arrival, over
  every delivery of that load; and, with the gateway idle, from a Resign's answer to the
  match.ended it caused arriving.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from benchmarks.bench_path import _Cpu, _submit_load
from benchmarks.report import Figure, Report, percentiles
from devstack.stack import Stack
from gateway.auth import hash_key, new_api_key

SECTION = "webhooks"
SECRET = "whsec_bench_secret_00000000"
MATCHES = 8


class _Receiver:
    def __init__(self) -> None:
        self.arrivals: list[tuple[float, dict[str, Any]]] = []  # (arrival time, envelope)
        self.lock = threading.Lock()
        me = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                arrived = time.time()
                self.send_response(204)
                self.end_headers()
                with me.lock:
                    me.arrivals.append((arrived, json.loads(body)))

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def since(self, start: int) -> list[tuple[float, dict[str, Any]]]:
        with self.lock:
            return list(self.arrivals[start:])


async def _resign_to_delivery(target: str, key: str, receiver: _Receiver, count: int) -> list[float]:
    from guildhall_client.aio import AsyncClient

    latencies = []
    async with AsyncClient(target, api_key=key) as gh:
        for _ in range(count):
            created = await gh.create_match("rattus_cartus", ["a", "b"])
            seat = gh.seat(created.match_id, created.seats[1].token)
            await seat.resign()
            answered = time.time()
            deadline = answered + 10
            while time.time() < deadline:
                ended = [
                    t
                    for t, e in receiver.since(0)
                    if e["type"] == "match.ended" and e["data"]["match_id"] == created.match_id
                ]
                if ended:
                    latencies.append(ended[0] - answered)
                    break
                await asyncio.sleep(0.002)
    return latencies


def run(report: Report, redis_url: str, quick: bool) -> None:
    seconds = 2.0 if quick else 10.0
    receiver = _Receiver()
    keys = {"plain": new_api_key(), "hooked": new_api_key()}
    quotas = {"open_tickets": 100_000, "active_matches": 100_000, "actions_per_second": 100_000,
              "reads_per_second": 1_000_000}  # fmt: skip
    document = {
        "tenants": {
            name: {
                "keys": [{"id": "k", "sha256": hash_key(key), "scopes": ["tenant"]}],
                "quotas": quotas,
                **(
                    {"webhooks": {"secrets": [SECRET], "endpoints": [{"id": "e", "url": receiver.url}]}}
                    if name == "hooked"
                    else {}
                ),
            }
            for name, key in keys.items()
        }
    }
    previous = os.environ.get("REDIS_URL")
    os.environ["REDIS_URL"] = redis_url
    try:
        with Stack(
            ["rattus_cartus"],
            gateways=1,
            tenants=document,
            log_dir=Path("var/bench-logs"),
            gateway_env={"WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8"},  # the receiver is in this process
        ) as stack:
            target = stack.gateway_targets[0]
            rates: dict[str, list[float]] = {"plain": [], "hooked": []}
            calls: dict[str, list[float]] = {"plain": [], "hooked": []}
            # Warm up (connections, caches, the first matches' creation), then alternate the
            # tenants so neither always runs on a fresher or more loaded machine.
            asyncio.run(_submit_load([target], keys["plain"], "rattus_cartus", 2, MATCHES, 1.0, _Cpu({})))
            first = len(receiver.since(0))
            for order in (("plain", "hooked"), ("hooked", "plain"))[: 1 if quick else 2]:
                for name in order:
                    rate, latencies, _, _ = asyncio.run(
                        _submit_load([target], keys[name], "rattus_cartus", 2, MATCHES, seconds, _Cpu({}))
                    )
                    rates[name].append(rate)
                    calls[name] += latencies
            time.sleep(1.0)  # the last deliveries of the load
            delivered = [
                arrived - envelope["created_ms"] / 1000 for arrived, envelope in receiver.since(first)
            ]
            idle = asyncio.run(_resign_to_delivery(target, keys["hooked"], receiver, 10 if quick else 50))
    finally:
        if previous is None:
            os.environ.pop("REDIS_URL", None)
        else:
            os.environ["REDIS_URL"] = previous
        receiver.server.shutdown()
    plain_rate, hooked_rate = (
        sum(rates["plain"]) / len(rates["plain"]),
        sum(rates["hooked"]) / len(rates["hooked"]),
    )
    name = f"accepted actions/s, {MATCHES} matches, webhooks on"
    report.add(Figure(SECTION, name, hooked_rate, "actions/s", "webhooks off", plain_rate))
    (p50_on, p99_on), (p50_off, p99_off) = percentiles(calls["hooked"]), percentiles(calls["plain"])
    report.add(
        Figure(SECTION, "SubmitAction p50, webhooks on", p50_on * 1000, "ms", "webhooks off", p50_off * 1000)
    )
    report.add(
        Figure(SECTION, "SubmitAction p99, webhooks on", p99_on * 1000, "ms", "webhooks off", p99_off * 1000)
    )
    if delivered:
        p50, p99 = percentiles(delivered)
        note = f"{len(delivered)} deliveries during the load"
        report.add(Figure(SECTION, "delivery latency p50, append to receiver", p50 * 1000, "ms", note=note))
        report.add(Figure(SECTION, "delivery latency p99, append to receiver", p99 * 1000, "ms", note=note))
    if idle:
        p50, p99 = percentiles(idle)
        note = f"{len(idle)} matches, gateway otherwise idle"
        report.add(
            Figure(SECTION, "Resign answered to match.ended received, p50", p50 * 1000, "ms", note=note)
        )
        report.add(
            Figure(SECTION, "Resign answered to match.ended received, p99", p99 * 1000, "ms", note=note)
        )
