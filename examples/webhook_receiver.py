"""A Guildhall webhook receiver in a page: verify, deduplicate, answer fast, work afterwards.

    GUILDHALL_WEBHOOK_SECRET=whsec_... .venv/bin/python examples/webhook_receiver.py 8080

Point a tenant's endpoint at http://<this host>:8080/ (TENANTS_FILE `webhooks`; plain http needs
WEBHOOK_ALLOW_HTTP=1 on the gateway, and a receiver on a loopback or private address needs its
range in WEBHOOK_ALLOW_NETWORKS, e.g. 127.0.0.0/8: development only). Each verified event is
handed to a worker thread; the receiver answers 204 at once, so Guildhall never waits on your work
(a slow answer would count as a failure and be retried).
"""

from __future__ import annotations

import os
import queue
import sys
import threading

from guildhall_client.webhooks import WebhookEvent, receiver

seen: set[str] = set()  # use your database in production: deliveries come at least once
work: queue.Queue[WebhookEvent] = queue.Queue()


def accept(event: WebhookEvent) -> None:
    if event.id not in seen:
        seen.add(event.id)
        work.put(event)


def worker() -> None:
    while True:
        event = work.get()
        data = event.data
        if event.type == "match.ended":
            places = ", ".join(f"{p['player_id']} #{p['rank']}" for p in data["players"])
            moved = ", ".join(
                f"{r['player_id']} {r['ordinal_after'] - r['ordinal_before']:+.2f}" for r in data["ratings"]
            )
            ended = f"{data['game_id']} {data['match_id']} ended ({data['reason']})"
            print(f"{ended}: {places}; ratings {moved or '-'}")
        else:
            print(f"{event.type}: {data}")


if __name__ == "__main__":
    secret = os.environ.get("GUILDHALL_WEBHOOK_SECRET", "")
    if not secret:
        sys.exit("set GUILDHALL_WEBHOOK_SECRET to the tenant's webhook secret")
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    threading.Thread(target=worker, daemon=True).start()
    server = receiver(accept, [secret], host="0.0.0.0", port=port)
    print(f"listening on :{server.server_address[1]}", flush=True)
    server.serve_forever()
