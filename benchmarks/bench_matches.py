"""Whole-path benchmark: one accepted action through the gateway's use case (load the match from
Redis, Validate over gRPC, append with the Lua script), against a baseline of the bare work it
cannot avoid: the same Validate RPC plus one bare XADD of the same events, in the same run.

Usage: python benchmarks/bench_matches.py [--matches N] [--players N]
"""

from __future__ import annotations

import argparse
import random
import time
import uuid

import redis

from gateway.eventstore import MatchKey
from gateway.eventstore.local_redis import local_redis
from gateway.eventstore.redis_store import RedisEventStore
from gateway.handlers import Matches, Submitted
from gateway.rules_client import Accepted, RulesClient
from services.observability import configure_logging
from services.rattus_cartus import GAME
from services.server import build_server


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    configure_logging("bench", "WARNING")
    server, port, _ = build_server(GAME)
    server.start()
    rules = RulesClient(GAME.game_id, f"127.0.0.1:{port}")
    with local_redis() as url:
        client = redis.Redis.from_url(url)
        matches = Matches(RedisEventStore(client), {GAME.game_id: rules})
        bots = random.Random(1)
        submit_s = baseline_s = 0.0
        actions = 0
        for number in range(args.matches):
            key = MatchKey("bench", f"m{number}-{uuid.uuid4().hex[:6]}")
            match = matches.create(key, GAME.game_id, args.players, number, command_id=uuid.uuid4().hex)
            while not match.status.finished:
                seat = bots.choice(match.status.active_players)
                action = bots.choice(rules.legal_actions(match.state, seat))
                # Baseline: the unavoidable work, bare.
                t0 = time.perf_counter()
                decision = rules.validate(match.state, seat, action)
                assert isinstance(decision, Accepted)
                for event in decision.events:
                    client.xadd("bench:baseline", {"type": event.type, "payload": event.json})
                t1 = time.perf_counter()
                result = matches.submit(key, seat, action, command_id=uuid.uuid4().hex)
                t2 = time.perf_counter()
                assert isinstance(result, Submitted)
                match = result.match
                baseline_s += t1 - t0
                submit_s += t2 - t1
                actions += 1
        client.close()
    rules.close()
    server.stop(None)
    print(f"{actions} actions over {args.matches} Rattus Cartus matches, {args.players} players")
    print(f"{'':<44}{'actions/s':>10}{'per action':>13}")
    for label, seconds in (
        ("baseline: bare Validate RPC + bare XADDs", baseline_s),
        ("Matches.submit (load + Validate + append)", submit_s),
    ):
        print(f"{label:<44}{actions / seconds:>10,.0f}{seconds / actions * 1e6:>10,.0f} us")
    print(f"ratio submit / baseline: {submit_s / baseline_s:.2f}x")


if __name__ == "__main__":
    main()
