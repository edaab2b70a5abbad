"""The audit use case: re-check a match from what the store holds, trusting nothing stored.

The checks themselves are gateway/domain/audit.py's, shared with the offline verification of an
exported file; here they run on what Redis (or the archive) holds, with the rules service for
re-execution, plus the evidence only the store has: the MAC'd snapshot, the meta hash and the
command table, and the receipts a client brings.

Decisions (question -> decision):
- How can an audit re-execute a stream of events? The action that caused an append is stored
  beside the chain on its first entry (`action`), and Validate on the re-executed state must
  give exactly the recorded events; a forgery re-signed with the gateway's own key still fails.
- Evidence the store holds is evidence the audit weighs (issue 22): a snapshot is checked
  whatever version it claims (one the gateway MAC'd past the stream's end shows a rollback; one
  whose MAC fails is another match's), and meta's `finished` must agree with the stream.
- What the audit reads it reads in one transaction (stream, meta, snapshot, command table), so
  an append landing meanwhile cannot look like tampering.
- A client's receipts (AuditRequest.receipts) are compared with the stream's head at their
  versions: the gateway signed what the client holds, so a stream that differs forked.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import msgspec

from gateway.domain.audit import (
    CHAIN,
    COMMANDS,
    META,
    SNAPSHOT,
    Findings,
    HeldReceipt,
    Replayed,
    RulesOf,
    RulesRefusal,
    RulesUnavailable,
    check_chain,
    check_head,
    check_held_receipts,
    check_receipts,
    check_rules_versions,
    ended_at,
    match_created,
    re_execute,
    verdict,
    whole_appends,
)
from gateway.domain.match import SNAPSHOT_DECODER, MatchCreated, SnapshotBody
from gateway.domain.receipts import snapshot_message
from gateway.eventstore.async_redis import unavailable_on_store_faults
from gateway.eventstore.base import DIGEST_SEPARATOR, MatchKey, StoredEvent, action_digest
from gateway.eventstore.entries import EntryDecoder, MalformedEntry
from gateway.eventstore.redis_store import match_keys
from gateway.rules_bundles import GAME_ID
from gateway.rules_client import AsyncRulesClient
from gateway.usecases.results import AuditResult, BundleNotFound, InvalidRequest, MatchNotFound
from gateway.usecases.store import MatchStore
from services.bundles import Bundle, BundleError, BundleRules, RunnerError
from services.kernel.version import VERSION

MAX_CLIENT_RECEIPTS = 4096


@dataclass(frozen=True)
class MatchRecord:
    """Everything the store holds of one match, read at one instant."""

    key: MatchKey
    meta: dict[str, str]
    snapshot: dict[str, bytes]
    commands: dict[str, str]
    entries: list[tuple[bytes, dict[bytes, bytes]]]  # (stream entry id, fields)
    source: str  # "live" (Redis) or "archive"


# One read-only script: an atomic read of the match's four keys (they share one hash tag, so this
# holds on Redis Cluster too). Not MULTI: a full Redis refuses every command queued in a
# transaction, reads included, and an audit must work when Redis is full.
_READ_RECORD = """
return {redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3]),
        redis.call('XRANGE', KEYS[4], '-', '+')}
"""


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return dict(zip(flat[::2], flat[1::2], strict=True))


async def load_record(matches: MatchStore, key: MatchKey) -> MatchRecord:
    """The match's stream, meta, snapshot and command table read at one instant, else its
    archive; MatchNotFound if neither."""
    keys = match_keys(key)
    with unavailable_on_store_faults():
        reply = await matches.store.client.eval(
            _READ_RECORD, 4, keys.meta, keys.snapshot, keys.commands, keys.events
        )
    meta_raw, snapshot_raw, commands_raw = (_pairs(flat) for flat in reply[:3])
    entries = [(entry_id, _pairs(fields)) for entry_id, fields in reply[3]]
    if meta_raw:
        return MatchRecord(
            key,
            {k.decode(): v.decode(errors="replace") for k, v in meta_raw.items()},
            {k.decode(): v for k, v in snapshot_raw.items()},
            {k.decode(errors="replace"): v.decode(errors="replace") for k, v in commands_raw.items()},
            list(entries),
            "live",
        )
    archived = await matches.archive(key) if matches.archive is not None else None
    if archived is None:
        raise MatchNotFound(f"no match {key.match_id!r}")
    numbered = [
        (f"{n}-0".encode(), {name.encode(): value for name, value in fields.items()})
        for n, fields in enumerate(archived.entries, start=1)
    ]
    return MatchRecord(key, dict(archived.meta), {}, dict(archived.commands), numbered, "archive")


def decode_entries(record: MatchRecord, findings: Findings) -> tuple[list[StoredEvent], bool]:
    """The entries in order while their ids are `<n>-0` and they decode; and whether all did."""
    events: list[StoredEvent] = []
    decoder = EntryDecoder()  # format 1 or 2 (gateway/eventstore/entries.py), in stream order
    for position, (entry_id, fields) in enumerate(record.entries, start=1):
        if entry_id != f"{position}-0".encode():
            findings.add(
                position,
                CHAIN,
                f"entry id {entry_id.decode(errors='replace')} where {position}-0 belongs: "
                "an entry was inserted, removed or moved",
            )
            return events, False
        try:
            events.append(decoder.decode(entry_id, fields))
        except MalformedEntry as error:
            findings.add(position, CHAIN, str(error))
            return events, False
    return events, True


class AuditUseCases(MatchStore):
    """The audit: everything about a match re-checked, the first bad version named."""

    async def audit(self, key: MatchKey, receipts: Sequence[HeldReceipt] = ()) -> AuditResult:
        """Re-check everything about a match, trusting nothing stored: the chain entry by entry,
        every receipt's signature, the seed against its commitment, every action re-executed
        against the match's own rules version (it must give exactly the recorded events), the
        end, the snapshot, meta and the command table, and the receipts a client holds. Names
        the first version that does not hold and the evidence that shows it. RulesUnavailable
        (FAILED_PRECONDITION) when a rules version it needs is neither deployed nor stored."""
        record = await load_record(self, key)
        async with self.replay_rules(record.meta.get("game", "")) as rules:
            return await _Auditor(self, record, receipts, rules).run()

    @contextlib.asynccontextmanager
    async def replay_rules(self, game: str) -> AsyncIterator[RulesOf]:
        """Each rules version of the game for a re-execution (issue 40): a target answering with
        it, else its bundle from the archive, started here and released afterwards."""
        started: dict[str, Any] = {}

        async def rules_of(version: str) -> Any:
            if version in started:
                return started[version]
            try:
                if not self.rules.answering(game, version):  # down now: its bundle does the audit
                    raise self.rules.unavailable(game, version)
                port: Any = RulesOverGrpc(self.rules.client(game, version))
            except RulesUnavailable as missing:
                port = await self._bundle_rules(game, version, missing)
            started[version] = port
            return port

        try:
            yield rules_of
        finally:
            for port in started.values():
                if isinstance(port, BundleRules) and self.bundles is not None:
                    await self.bundles.release(port)

    async def rules_bundle(self, game: str, version: str) -> Bundle:
        """A rules version's stored bundle, checked (its files re-hash to the version):
        BundleNotFound when none is kept (a game or version never served here, or no archive)."""
        if not GAME_ID.fullmatch(game) or not VERSION.fullmatch(version):
            raise InvalidRequest(f"{game[:64]!r} {version[:80]!r} is no game id and rules version")
        if self.bundles is None:
            raise BundleNotFound(f"no bundle of rules {version} of {game} is kept here (no archive)")
        try:
            bundle = await self.bundles.load(game, version)
        except BundleError as error:
            raise RulesUnavailable(
                game, version, f"the stored bundle of rules {version} is refused: {error}"
            ) from None
        if bundle is None:
            raise BundleNotFound(f"no bundle of rules {version[:80]!r} of {game[:64]!r} is kept here")
        return bundle

    async def _bundle_rules(self, game: str, version: str, missing: RulesUnavailable) -> BundleRules:
        if self.bundles is None:
            raise RulesUnavailable(game, version, f"{missing}; no archive keeps bundles here")
        try:
            port = await self.bundles.rules(game, version)
        except (BundleError, RunnerError) as error:
            raise RulesUnavailable(
                game, version, f"{missing}; its stored bundle is refused: {error}"
            ) from None
        if port is None:
            raise RulesUnavailable(game, version, f"{missing}; and no bundle of it is stored")
        return port


class RulesOverGrpc:
    """A rules service as the shared checks' RulesPort."""

    def __init__(self, client: AsyncRulesClient) -> None:
        self.client = client

    def state_bytes(self, state: Any) -> bytes:
        return bytes(state.state)

    async def setup(self, players: int, seed: bytes, options: bytes) -> tuple[Any, Any]:
        try:
            return await self.client.setup(players, seed, options)
        except grpc.aio.AioRpcError as error:
            raise _refusal(error) from None

    async def decide(self, state: Any, player: int, action: bytes) -> Any:
        try:
            return await self.client.validate(state, player, action, return_redacted=False)
        except grpc.aio.AioRpcError as error:
            raise _refusal(error) from None


def _refusal(error: grpc.aio.AioRpcError) -> Exception:
    """INVALID_ARGUMENT is the rules refusing what is recorded; anything else is the service's."""
    if error.code() == grpc.StatusCode.INVALID_ARGUMENT:
        return RulesRefusal(error.details() or "invalid")
    return error  # type: ignore[no-any-return]


class _Auditor:
    """One audit of one record."""

    def __init__(
        self, matches: MatchStore, record: MatchRecord, held: Sequence[HeldReceipt], rules: RulesOf
    ) -> None:
        self.matches = matches
        self.rules = rules
        self.record = record
        self.key = record.key
        self.held = held
        self.findings = Findings()
        self.snapshot_version: int | None = None  # set when the snapshot is ours and on the chain

    def _verify(self, key_id: str, message: bytes, signature: bytes) -> str:
        if self.matches.keyring.verify(key_id, message, signature):
            return ""
        return f"does not verify (key {key_id!r})"

    async def run(self) -> AuditResult:
        findings, meta = self.findings, self.record.meta
        events, decoded = decode_entries(self.record, findings)
        intact = check_chain(events, findings)
        complete = decoded and len(intact) == len(events)
        check_head(intact, _int(meta.get("version")), meta.get("head_hash", ""), findings)
        usable = whole_appends(intact, complete)
        covered = check_receipts(usable, self.key.tenant, self.key.match_id, self._verify, findings)
        created = match_created(usable, findings)
        if created is not None:
            check_rules_versions(usable, created, findings)
            self._meta(created, intact, complete)
        self._commands(intact)
        self._snapshot(intact, complete, covered)
        compared, refused = check_held_receipts(
            intact, complete, self.held, self.key.tenant, self.key.match_id, self._verify, findings
        )
        executed = 0
        if created is not None:
            seed = _hex(meta.get("seed", ""))
            executed = await re_execute(
                usable, created, seed, self.rules, findings, on_version=self._at_version
            )
        if not events:
            findings.add(1, CHAIN, "the match has no events")
        result = verdict(
            findings,
            len(intact),
            chain_through=len(intact),
            receipts_through=covered,
            executed_through=executed,
        )
        return AuditResult.of(result, compared, refused)

    # -- what only the store holds -------------------------------------------------------------

    def _meta(self, created: MatchCreated, intact: list[StoredEvent], complete: bool) -> None:
        """Meta says what match_created says, and that the match ended iff the stream ended it."""
        meta = self.record.meta
        recorded = {
            "game": created.game_id,
            "seed_commitment": created.seed_commitment,
            "seats": str(created.players),
        }
        if created.player_ids:
            recorded["players"] = msgspec.json.encode(list(created.player_ids)).decode()
        for name, value in recorded.items():
            if name in meta and meta[name] != value:
                self.findings.add(1, META, f"meta's {name} is not what match_created says")
                return
        if not complete:
            return
        ended = ended_at(intact)
        finished = meta.get("finished") == "1"
        if finished and ended is None:
            self.findings.add(
                len(intact) + 1,
                META,
                f"meta records the match as finished, but its stream stops at version {len(intact)} "
                "without match_ended: entries were removed",
            )
        elif ended is not None and meta.get("finished") == "0":
            self.findings.add(
                ended, META, f"meta records the match in play, the stream ended it at version {ended}"
            )

    def _commands(self, events: list[StoredEvent]) -> None:
        """The command table against the stream (issue 15): a planted id would hand its caller
        another append's result, and a removed one would let a retried command apply twice."""
        table = self.record.commands
        runs: dict[str, tuple[int, int, str]] = {}
        for event in events:
            first, last, actor = runs.get(event.command_id, (event.version, event.version, event.actor))
            runs[event.command_id] = (first, event.version, actor)
        for command_id, value in table.items():
            first_text, _, rest = value.partition(":")
            last_text, _, actor = rest.partition(":")
            actor, _, digest = actor.partition(DIGEST_SEPARATOR)  # the digest: issue 39 item 11
            run = runs.get(command_id)
            if not (first_text.isdigit() and last_text.isdigit()):
                self.findings.add(
                    1, COMMANDS, f"the command record of {command_id!r} does not parse: {value!r}"
                )
                continue
            first, last = int(first_text), int(last_text)
            if first > len(events) and run is None:
                # A command of versions the stream does not hold (past a break: the chain
                # check names that), or removed with them: a rollback.
                self.findings.add(
                    len(events) + 1,
                    COMMANDS,
                    f"command id {command_id!r} is recorded for versions {first}-{last}, "
                    f"past the stream's end at {len(events)}",
                )
            elif run is None or run[:2] != (first, last) or (actor and actor != run[2]):
                # The first version where the table's range and the stream's run part ways.
                if run is None:
                    bad = first
                elif run[0] != first:
                    bad = min(run[0], first)
                else:
                    bad = min(run[1], last) + 1 if run[1] != last else first
                self.findings.add(
                    max(bad, 1),
                    COMMANDS,
                    f"command id {command_id!r} is recorded for {value!r}, not what the stream holds",
                )
            elif (
                digest
                and events[first - 1].action
                and digest != action_digest("action", events[first - 1].action)
            ):
                # A planted digest would refuse the seat's own retry as another action.
                self.findings.add(
                    first,
                    COMMANDS,
                    f"command id {command_id!r} is recorded for another action than the stream's",
                )
        for command_id, (first, _, _) in runs.items():
            if command_id not in table:
                self.findings.add(
                    first,
                    COMMANDS,
                    f"command id {command_id!r} of version {first} is missing from the command record",
                )

    def _snapshot(self, intact: list[StoredEvent], complete: bool, covered: int) -> None:
        """Whatever version it claims: a snapshot is this match's (its MAC), on this chain, and
        not past the stream's end (the gateway wrote it after the last append: a rollback)."""
        snap, key, length = self.record.snapshot, self.key, len(intact)
        if not snap:
            return
        try:
            version = int(snap["version"])
            head = snap["head_hash"].decode()
            message = snapshot_message(
                key.tenant, key.match_id, version, head, snap["rules_version"].decode(), snap["state"]
            )
            ours = self.matches.keyring.check_mac(snap["key_id"].decode(), message, snap["mac"])
            SNAPSHOT_DECODER.decode(snap["state"])
        except (KeyError, ValueError, msgspec.DecodeError):
            self.findings.add(length + 1, SNAPSHOT, "the snapshot does not parse")
            return
        if not ours:
            self.findings.add(
                max(1, min(version, length + 1)),
                SNAPSHOT,
                f"the snapshot (claiming version {version}) is not this match's: its MAC does not verify",
            )
        elif version > length:
            if complete:
                self.findings.add(
                    length + 1,
                    SNAPSHOT,
                    f"the gateway's own snapshot is at version {version}, the stream ends at "
                    f"{length}: versions {length + 1} to {version} were removed",
                )
        elif version < 1 or intact[version - 1].hash != head:
            self.findings.add(
                max(1, min(covered + 1, version)),
                SNAPSHOT,
                f"the gateway's snapshot at version {version} belongs to another chain: "
                "the stream was rewritten",
                through=max(version, 1),
            )
        else:
            self.snapshot_version = version

    def _at_version(self, replayed: Replayed, entry: StoredEvent) -> None:
        """The snapshot, at its version, is the re-executed state."""
        if replayed.version != self.snapshot_version:
            return
        body = SNAPSHOT_DECODER.decode(self.record.snapshot["state"])
        status, final, seating = replayed.status, replayed.final, replayed.seating
        expected = SnapshotBody(
            replayed.state.state,
            tuple(status.active_players),
            status.finished,
            final if final else status.outcome,
            tuple(sorted(seating.resigned)),
            bool(final),
            tuple(sorted(seating.away)),
            tuple(sorted(seating.unclaimed)),
        )
        if body != expected:
            version = replayed.version
            self.findings.add(
                version, SNAPSHOT, f"the snapshot at version {version} differs from the re-executed state"
            )


def _int(text: str | None) -> int:
    return int(text) if text is not None and text.isdigit() else 0


def _hex(text: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        return b""
