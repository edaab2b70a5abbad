"""Offline verification of an exported match (`guildhall verify`, guildhall_client.ghx): how long a
1,000-event match takes, beside the bare re-execution of the same actions (decide + apply, no
checks) measured in the same run.

The match is built in memory as the gateway writes one (one append per action: the action on its
first entry, the receipt on its last, match_created first and match_ended in the last append),
from a seeded random playout, so no Redis, gateway or rules service is needed; the verifier must
find it whole, which also checks this builder against the real format.

Usage: python -m benchmarks.bench_verify [--quick]
"""

from __future__ import annotations

import argparse
import random
import secrets
import time
from typing import Any

import msgspec

from benchmarks.report import Figure, Report
from gateway.domain import ghx
from gateway.domain.match import FINISHED, GATEWAY, JSON, MATCH_CREATED, MATCH_ENDED, MatchCreated, MatchEnded
from gateway.domain.receipts import Receipt, encode_receipt, receipt_message, seed_commitment
from gateway.eventstore.base import GENESIS, StoredEvent, chain_hash
from gateway.signing import KeyRing
from guildhall_client.ghx import verify_export
from services.kernel import GameSpec, Rejection, SetupConfig
from services.observability import configure_logging
from services.registry import GAMES

SECTION = "verify"
GAME, EVENTS = "waterdeep", 1000  # the game with the longest matches: one match holds 1,000 events


class _Builder:
    """Entries as the gateway appends them, chained and signed."""

    def __init__(self, spec: GameSpec[Any], keyring: KeyRing) -> None:
        self.spec, self.keyring = spec, keyring
        self.entries: list[StoredEvent] = []
        self.head = GENESIS
        self.time_ms = 1_800_000_000_000

    def append(
        self, events: list[tuple[str, bytes]], actor: str, command_id: str, action: bytes = b""
    ) -> None:
        self.time_ms += 1000
        rules_version = self.spec.rules_version
        for index, (kind, payload) in enumerate(events):
            version = len(self.entries) + 1
            digest = chain_hash(
                self.head, version, kind, actor, command_id, rules_version, self.time_ms, payload
            )
            self.entries.append(
                StoredEvent(version, kind, actor, command_id, payload, rules_version, self.time_ms,
                            self.head, digest, action if index == 0 else b"")
            )  # fmt: skip
            self.head = digest
        last = self.entries[-1]
        key_id, signature = self.keyring.sign(receipt_message("bench", "m1", last.version, last.hash))
        receipt = encode_receipt(Receipt(key_id, last.version, last.hash, signature))
        self.entries[-1] = msgspec.structs.replace(last, receipt=receipt)


def build_export(spec: GameSpec[Any], players: int, seed: int, keyring: KeyRing) -> tuple[bytes, list[Any]]:
    """A finished match of `spec` as a .ghx file, and its (state, seat, action) steps."""
    match_seed = secrets.token_bytes(32)
    bots = random.Random(seed)
    codec = spec.codec
    state = spec.start(SetupConfig(players, int.from_bytes(match_seed, "big")))
    builder = _Builder(spec, keyring)
    ids = tuple(f"p{n}" for n in range(players))
    created = MatchCreated(
        spec.game_id, spec.rules_version, players, seed_commitment(match_seed), msgspec.Raw(b"{}"), ids
    )
    builder.append([(MATCH_CREATED, JSON.encode(created))], GATEWAY, "gw create")
    steps = []
    while spec.outcome(state) is None:
        seat = bots.choice(list(spec.active_players(state)))
        action = bots.choice(list(spec.legal_actions(state, seat)))
        steps.append((state, seat, action))
        decided = spec.decide(state, seat, action)
        assert not isinstance(decided, Rejection), decided  # a listed action is always accepted
        events = [(e.__struct_config__.tag, codec.encode_json(e)) for e in decided]
        state = spec.evolve(state, decided)
        final = spec.outcome(state)
        if final is not None:
            ended = MatchEnded(FINISHED, msgspec.Raw(codec.encode_json(final)), match_seed.hex())
            events.append((MATCH_ENDED, JSON.encode(ended)))
        builder.append(events, f"seat:{seat}", f"c{len(steps)}", codec.encode_json(action))
    entries = builder.entries
    header = ghx.Header(
        format=ghx.FORMAT, format_version=ghx.FORMAT_VERSION, tenant="bench", match_id="m1",
        game_id=spec.game_id, rules_version=spec.rules_version,
        edition=spec.rules_version.partition("+")[0], data_digest=spec.rules_version.partition("+")[2],
        players=list(ids), seed_commitment=created.seed_commitment, seed=match_seed.hex(), created_ms=0,
        finished=True, version=len(entries), head_hash=builder.head, match_version=len(entries),
        source="live", exported_ms=0,
        public_keys=[ghx.PublicKeyLine(k.key_id, k.public_key.hex()) for k in keyring.public_keys()],
    )  # fmt: skip
    data = ghx.encode(header, [ghx.event_line(e) for e in entries], ghx.EndLine(len(entries), builder.head))
    return data, steps


def run(report: Report, quick: bool) -> None:
    spec = GAMES[GAME]
    keyring = KeyRing.generate("bench")
    players = max(spec.player_counts)
    seed = 0
    while True:  # a match of at least EVENTS events
        data, steps = build_export(spec, players, seed, keyring)
        events = data.count(b"\n") - 2
        if events >= EVENTS:
            break
        seed += 1
    rounds = 2 if quick else 5
    verify_s, bare_s = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        verified = verify_export(data)
        verify_s.append(time.perf_counter() - t0)
        assert verified.ok and verified.executed, verified.reason
        t0 = time.perf_counter()
        for state, seat, action in steps:  # the same actions, re-executed bare
            spec.evolve(state, spec.decide(state, seat, action))  # type: ignore[arg-type]
        bare_s.append(time.perf_counter() - t0)
    per_1000 = 1000 / events
    report.add(
        Figure(SECTION, "offline verify of a 1,000-event match", min(verify_s) * per_1000 * 1e3, "ms",
               "bare re-execution of its actions", min(bare_s) * per_1000 * 1e3,
               f"{GAME}, {players} players, {events} events ({len(steps)} actions, {len(data):,} bytes) "
               f"scaled to 1,000; chain, receipts, seed, re-execution; best of {rounds}")
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    configure_logging("bench", "warning")
    report = Report(quick=args.quick)
    run(report, args.quick)


if __name__ == "__main__":
    main()
