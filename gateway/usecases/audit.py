"""The audit use case: re-check a match from its stream, trusting nothing stored.

Decisions (question -> decision):
- How can an audit re-execute a stream of events? The action that caused an append is stored
  beside the chain on its first entry (`action`), and Validate on the re-executed state must
  give exactly the recorded events; a forgery re-signed with the gateway's own key still fails.
- A receipt signs the head of its append, which commits to every entry before it: a failure is
  pinned to the first entry after the last valid receipt.
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
import msgspec
from guildhall.rules.v1 import rules_pb2

from gateway.domain.match import (
    FINISHED,
    GATEWAY,
    GATEWAY_EVENT_DECODER,
    MATCH_CREATED,
    MATCH_ENDED,
    SNAPSHOT_DECODER,
    MatchCreated,
    MatchEnded,
    SeatResigned,
    SnapshotBody,
    actor_seat,
    resignation_outcome,
    should_end_by_resignation,
)
from gateway.domain.receipts import receipt_message, seed_matches, snapshot_message
from gateway.eventstore.base import GENESIS, MatchKey, StoredEvent, chain_hash
from gateway.eventstore.redis_store import MalformedEntry, decode_entry, match_keys
from gateway.rules_client import Status
from gateway.usecases.results import AuditResult
from gateway.usecases.store import Entries, MatchStore, is_game_event, receipt_of
from services.kernel import Rejection


class AuditUseCases(MatchStore):
    """The audit: everything about a match re-checked, the first bad version named."""

    async def audit(self, key: MatchKey) -> AuditResult:
        """Re-check everything about a match, trusting nothing stored: the chain entry by entry,
        every receipt's signature, the seed against its commitment, every action re-executed
        against the rules service (it must give exactly the recorded events), the end, and the
        snapshot against the re-executed state. Names the first version that does not hold."""
        loaded = await self.store.load(key)
        meta, source = await self._stream(key, loaded.meta)
        return await _Auditor(self, key, meta, loaded.snapshot, source).run()


class _Auditor:
    """One audit: the checks run in order; each finds its first bad version; the earliest wins."""

    def __init__(
        self,
        matches: MatchStore,
        key: MatchKey,
        meta: dict[str, str],
        snap: dict[str, bytes],
        source: Entries | None = None,
    ) -> None:
        self.source = source if source is not None else matches.store.raw_entries(key)
        self.live = source is None  # in Redis, with its command table (an archive has its own)
        self.matches = matches
        self.key = key
        self.meta = meta
        self.snap = snap
        self.bad: list[tuple[int, str, int]] = []

    def fail(self, version: int, reason: str = "", *, through: int | None = None) -> None:
        """Record a failure at `version`; `through` when it can only be pinned to a range (a
        receipt vouches for a whole append): another check naming a version inside wins."""
        self.bad.append((version, reason, through if through is not None else version))

    async def run(self) -> AuditResult:
        events = await self._chain()
        checked = len(events)
        if events:
            self._receipts(events)
            if self.live:
                await self._commands(events)
            try:
                await self._execute(events)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.INVALID_ARGUMENT:
                    raise
                self.fail(
                    self._executing, f"the rules service refuses the recorded events: {error.details()}"
                )
        else:
            self.fail(1, "the match has no events")
        if not self.bad:
            return AuditResult(True, checked)
        precise = [
            bad
            for bad in self.bad
            if bad[0] == bad[2]
            or not any(other[0] == other[2] and bad[0] <= other[0] <= bad[2] for other in self.bad)
        ]
        version, reason, _ = min(precise, key=lambda bad: bad[0])
        return AuditResult(False, max(version - 1, 0), version, reason)

    async def _commands(self, events: list[StoredEvent]) -> None:
        """The command table against the stream (issue 15): a planted id would hand its caller
        another append's result, and a removed one would let a retried command apply twice."""
        table = await self.matches.store.client.hgetall(match_keys(self.key).commands)
        runs: dict[str, tuple[int, int, str]] = {}
        for event in events:
            first, last, actor = runs.get(event.command_id, (event.version, event.version, event.actor))
            runs[event.command_id] = (first, event.version, actor)
        for raw_id, raw_value in table.items():
            command_id, value = raw_id.decode(errors="replace"), raw_value.decode(errors="replace")
            first_text, _, rest = value.partition(":")
            last_text, _, actor = rest.partition(":")
            run = runs.get(command_id)
            if not (first_text.isdigit() and last_text.isdigit()):
                self.fail(1, f"the command table entry of {command_id!r} does not parse: {value!r}")
            elif run is None or run[:2] != (int(first_text), int(last_text)) or (actor and actor != run[2]):
                # The first version where the table's range and the stream's run part ways.
                first, last = int(first_text), int(last_text)
                if run is None:
                    bad = first
                elif run[0] != first:
                    bad = min(run[0], first)
                else:
                    bad = min(run[1], last) + 1 if run[1] != last else first
                self.fail(
                    max(bad, 1),
                    f"command id {command_id!r} is recorded for {value!r}, not what the stream holds",
                )
        for command_id, (first, _, _) in runs.items():
            if command_id.encode() not in table:
                self.fail(
                    first, f"command id {command_id!r} of version {first} is missing from the command table"
                )

    async def _chain(self) -> list[StoredEvent]:
        """Entry ids, versions and hashes, in order; stops at the first broken link."""
        events: list[StoredEvent] = []
        head = GENESIS
        position = 0
        async for entry_id, fields in self.source:
            position += 1
            if entry_id != f"{position}-0".encode():
                self.fail(
                    position,
                    f"entry id {entry_id.decode()} where {position}-0 belongs: "
                    "an entry was inserted, removed or moved",
                )
                return events
            try:
                event = decode_entry(fields)
            except MalformedEntry as error:
                self.fail(position, str(error))
                return events
            if event.version != position:
                self.fail(
                    position, f"entry {position} says it is version {event.version}: entries were moved"
                )
                return events
            if event.prev_hash != head:
                self.fail(
                    position,
                    "prev_hash does not match the previous entry: an entry was removed, inserted or moved",
                )
                return events
            computed = chain_hash(
                event.prev_hash, event.version, event.type, event.actor, event.command_id,
                event.rules_version, event.time_ms, event.payload,
            )  # fmt: skip
            if computed != event.hash:
                self.fail(position, "the entry's contents do not match its hash: it was edited")
                return events
            head = event.hash
            events.append(event)
        recorded = int(self.meta.get("version", "0"))
        if len(events) != recorded:
            self.fail(
                min(len(events), recorded) + 1,
                f"the stream holds {len(events)} entries, the match records {recorded}",
            )
        elif self.meta.get("head_hash") != head:
            self.fail(max(len(events), 1), "the recorded head hash is not the stream's")
        return events

    def _receipts(self, events: Sequence[StoredEvent]) -> None:
        """Every receipt in the stream verifies, and the last entry of every append (a run of one
        command id) has one. A valid receipt at v vouches for every entry up to v, so a failure
        is pinned to the first entry after the last valid receipt."""
        keyring = self.matches.keyring
        covered = 0
        for index, event in enumerate(events):
            last_of_append = index + 1 == len(events) or events[index + 1].command_id != event.command_id
            if not event.receipt and not last_of_append:
                continue
            first_bad = covered + 1
            receipt = receipt_of(event)
            problem = ""
            if receipt is None:
                problem = (
                    f"the append ending at version {event.version} has no receipt (or an unreadable one)"
                )
            elif receipt.version != event.version or receipt.head_hash != event.hash:
                problem = f"the receipt at version {event.version} is for another version or head"
            else:
                message = receipt_message(
                    self.key.tenant, self.key.match_id, receipt.version, receipt.head_hash
                )
                if not keyring.verify(receipt.key_id, message, receipt.signature):
                    problem = (
                        f"the receipt at version {event.version} does not verify (key {receipt.key_id!r})"
                    )
            if problem:
                self.fail(first_bad, problem, through=event.version)
                return
            covered = event.version

    _executing = 1

    async def _execute(self, events: Sequence[StoredEvent]) -> None:
        """Re-run the match from its seed: setup, then every append's action through Validate."""
        first = events[0]
        if first.type != MATCH_CREATED or first.actor != GATEWAY:
            self.fail(1, "the stream does not open with the gateway's match_created")
            return
        try:
            created = msgspec.json.decode(first.payload, type=MatchCreated)
            seed = bytes.fromhex(self.meta.get("seed", ""))
        except (msgspec.DecodeError, ValueError):
            self.fail(1, "match_created or the stored seed does not decode")
            return
        if not seed_matches(seed, created.seed_commitment):
            self.fail(1, "the match's seed does not match the commitment published in match_created")
            return
        client = self.matches._client(created.game_id)
        state, status = await client.setup(created.players, seed, bytes(created.options))
        if state.rules_version != created.rules_version:
            self.fail(
                1,
                f"recorded under rules {created.rules_version}, the rules service runs {state.rules_version}",
            )
            return
        resigned: set[int] = set()
        ended, final = False, b""
        snapshot_version = int(self.snap["version"]) if self.snap.get("version", b"").isdigit() else None
        runs = _appends(events[1:])
        self._check_snapshot(1, snapshot_version, state, status, resigned, final, events[0])
        for run in runs:
            start = run[0].version
            self._executing = start
            if ended:
                self.fail(start, "entries after match_ended")
                return
            game_events = [e for e in run if is_game_event(e.type)]
            action = run[0].action
            if game_events or action:
                seat = actor_seat(run[0].actor)
                if not action or seat < 0:
                    self.fail(
                        start,
                        through=run[-1].version,
                        reason="game events without the action that caused them",
                    )
                    return
                decision = await client.validate(state, seat, action, return_redacted=False)
                if isinstance(decision, Rejection):
                    self.fail(
                        start,
                        through=run[-1].version,
                        reason=f"re-executing seat {seat}'s action is refused: {decision.code}",
                    )
                    return
                recorded = [(e.type, e.payload) for e in game_events]
                if [(e.type, e.json) for e in decision.events] != recorded:
                    self.fail(
                        start,
                        through=run[-1].version,
                        reason="re-executing the action does not give the recorded events",
                    )
                    return
                assert decision.state is not None and decision.status is not None
                state, status = decision.state, decision.status
            for event in run:
                if not is_game_event(event.type):
                    problem = self._gateway_event(event, created, seed, status, resigned)
                    if problem:
                        self.fail(event.version, problem)
                        return
                    if event.type == MATCH_ENDED:
                        ended = True
                        final = bytes(msgspec.json.decode(event.payload, type=MatchEnded).outcome)
            if status.finished and not ended:
                self.fail(
                    start,
                    through=run[-1].version,
                    reason="the game is over but the append does not end the match",
                )
                return
            self._check_snapshot(run[-1].version, snapshot_version, state, status, resigned, final, run[-1])

    def _gateway_event(
        self, event: StoredEvent, created: MatchCreated, seed: bytes, status: Status, resigned: set[int]
    ) -> str:
        try:
            decoded = GATEWAY_EVENT_DECODER.decode(event.payload)
        except msgspec.DecodeError:
            return f"{event.type} does not decode"
        if isinstance(decoded, MatchCreated):
            return "a second match_created"
        if isinstance(decoded, SeatResigned):
            if not 0 <= decoded.seat < created.players or decoded.seat in resigned:
                return f"seat {decoded.seat} cannot resign here"
            resigned.add(decoded.seat)
        elif isinstance(decoded, MatchEnded):
            if not seed_matches(
                bytes.fromhex(decoded.seed) if _is_hex(decoded.seed) else b"", created.seed_commitment
            ):
                return "the revealed seed does not match the commitment"
            if bytes.fromhex(decoded.seed) != seed:
                return "the revealed seed is not the match's seed"
            if decoded.reason == FINISHED:
                expected = status.outcome if status.finished else None
            else:
                ok = should_end_by_resignation(created.players, frozenset(resigned))
                expected = resignation_outcome(created.players, frozenset(resigned)) if ok else None
            if expected is None or bytes(decoded.outcome) != expected:
                return "match_ended does not state the re-executed outcome"
        return ""

    def _check_snapshot(
        self,
        version: int,
        snapshot_version: int | None,
        state: rules_pb2.GameState,
        status: Status,
        resigned: set[int],
        final: bytes,
        entry: StoredEvent,
    ) -> None:
        """The snapshot at `version` (if that is its version) is the re-executed state; `final`
        is the outcome match_ended stated, b"" while the match goes on."""
        if snapshot_version != version:
            return
        snap, key = self.snap, self.key
        try:
            message = snapshot_message(
                key.tenant,
                key.match_id,
                version,
                snap["head_hash"].decode(),
                snap["rules_version"].decode(),
                snap["state"],
            )
            signed = self.matches.keyring.check_mac(snap["key_id"].decode(), message, snap["mac"])
            body = SNAPSHOT_DECODER.decode(snap["state"])
        except (KeyError, ValueError, msgspec.DecodeError):
            signed, body = False, None
        if not signed or body is None:
            self.fail(
                version, f"the snapshot at version {version} is not this match's (its MAC does not verify)"
            )
            return
        if snap["head_hash"].decode() != entry.hash:
            self.fail(version, f"the snapshot at version {version} belongs to another chain")
            return
        ended = bool(final)
        outcome = final if ended else status.outcome
        expected = SnapshotBody(
            state.state, status.active_players, status.finished, outcome, tuple(sorted(resigned)), ended
        )
        if body != expected:
            self.fail(version, f"the snapshot at version {version} differs from the re-executed state")


def _appends(events: Sequence[StoredEvent]) -> list[list[StoredEvent]]:
    """Entries grouped by append (consecutive entries of one command id)."""
    runs: list[list[StoredEvent]] = []
    for event in events:
        if runs and runs[-1][-1].command_id == event.command_id:
            runs[-1].append(event)
        else:
            runs.append([event])
    return runs


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True
