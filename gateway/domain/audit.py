"""What an audit checks, wherever it runs: the gateway's `Audit` (gateway/usecases/audit.py: the
rules over gRPC, with the store's snapshot, meta and command table beside the stream) and the
offline verification of an exported file (guildhall_client/ghx.py: the game's rules in process).

Pure (stdlib + msgspec + the kernel): both run exactly these checks on the same entries.

Decisions (question -> decision):
- One error or every finding? Every check records what it found, with its evidence (chain,
  receipt, re-execution, seed, snapshot, meta, command record, ...) and the versions it can be
  pinned to; the first bad version is the earliest finding.
- A finding that can only be pinned to a range (a receipt vouches for a whole append, a missing
  receipt may be a removed receipt or a moved append end) yields to a precise finding inside
  its range: the chain or the re-execution then says which entry it was.
- The chain breaks at v: the append before v may be cut short, so it is neither checked for a
  receipt nor re-executed (issue 22: an edit of an append's second entry was blamed on the
  untouched first one, for lacking the receipt the edited entry's append ends with).
- Re-execution compares event by event and names the first recorded entry that differs from
  what the action gives (or where an event is missing), not the append it belongs to.
- A take-back (action_undone, gateway/domain/undo.py) is re-executed too: it must take back the
  top of the undo stack the re-execution keeps (the seat's own last moves the rules call
  undoable, nobody else appending since), and the state is again the one before them; the
  snapshot check and the next actions then show whether the gateway restored exactly that.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from gateway.domain.match import (
    ACTION_UNDONE,
    FINISHED,
    GATEWAY,
    GATEWAY_EVENT_DECODER,
    GATEWAY_EVENTS,
    MATCH_CREATED,
    MATCH_ENDED,
    RESIGNED,
    RULES_VERSION_MOVED,
    UNCLAIMED,
    ActionUndone,
    MatchCreated,
    MatchEnded,
    RulesVersionMoved,
    Seating,
    actor_seat,
    resignation_outcome,
    should_end_by_resignation,
    standing_outcome,
    unclaimed_outcome,
)
from gateway.domain.receipts import decode_receipt, receipt_message, seed_matches
from gateway.domain.undo import NOTHING, UndoStack, players_own, undo_problem
from gateway.eventstore.base import GENESIS, StoredEvent, chain_hash
from services.kernel import Rejection
from services.kernel.runner import Refused

# What a finding rests on (AuditResponse.evidence; a verifier's check names).
CHAIN = "chain"
RECEIPT = "receipt"
EXECUTION = "re-execution"
SEED = "seed"
RULES = "rules version"
SNAPSHOT = "snapshot"
META = "meta"
COMMANDS = "command record"
CLIENT_RECEIPT = "client receipt"
FILE = "file"
KEYS = "keys"


@dataclass(frozen=True)
class Finding:
    """Something that does not hold: at `version`, or somewhere in `version`..`through`."""

    version: int
    evidence: str
    reason: str
    through: int

    @property
    def precise(self) -> bool:
        return self.version == self.through


class Findings:
    """What the checks found, in the order they found it."""

    def __init__(self) -> None:
        self.items: list[Finding] = []

    def add(self, version: int, evidence: str, reason: str, *, through: int | None = None) -> None:
        version = max(version, 0)
        self.items.append(Finding(version, evidence, reason, max(through or version, version)))

    def __bool__(self) -> bool:
        return bool(self.items)

    def first(self) -> Finding | None:
        """The earliest finding; a range finding with a precise one inside it is left out."""
        kept = [
            f
            for f in self.items
            if f.precise or not any(o.precise and f.version <= o.version <= f.through for o in self.items)
        ]
        if not kept:
            return None
        order = {id(f): n for n, f in enumerate(self.items)}
        return min(kept, key=lambda f: (f.version, not f.precise, order[id(f)]))

    def sorted(self) -> tuple[Finding, ...]:
        return tuple(sorted(self.items, key=lambda f: (f.version, f.through)))


@dataclass(frozen=True)
class Verdict:
    """The outcome of the checks: ok, or the first bad version with its evidence and reason."""

    ok: bool
    checked_versions: int
    first: Finding | None = None
    findings: tuple[Finding, ...] = ()
    executed: bool = False  # whether the actions were re-executed (an unrevealed seed: not)
    chain_through: int = 0  # the last version of the intact chain
    receipts_through: int = 0  # the last version a valid receipt vouches for
    executed_through: int = 0  # the last version re-executed without a finding

    @property
    def first_bad_version(self) -> int | None:
        return self.first.version if self.first is not None else None

    @property
    def reason(self) -> str:
        return self.first.reason if self.first is not None else ""

    @property
    def evidence(self) -> str:
        return self.first.evidence if self.first is not None else ""


def verdict(findings: Findings, versions: int, **progress: Any) -> Verdict:
    first = findings.first()
    if first is None:
        return Verdict(True, versions, None, (), **progress)
    return Verdict(False, max(first.version - 1, 0), first, findings.sorted(), **progress)


# -- the chain ---------------------------------------------------------------------------------


def check_chain(events: Sequence[StoredEvent], findings: Findings, *, start: int = 1) -> list[StoredEvent]:
    """Versions in order from `start`, each entry chained to the one before and hashing to its
    `hash`: the intact prefix (the first broken link is a finding)."""
    head = GENESIS
    intact: list[StoredEvent] = []
    for position, event in enumerate(events, start=start):
        if event.version != position:
            findings.add(
                position, CHAIN, f"entry {position} says it is version {event.version}: entries were moved"
            )
            break
        if event.prev_hash != head:
            findings.add(
                position,
                CHAIN,
                "prev_hash does not match the previous entry: an entry was removed, inserted or moved",
            )
            break
        computed = chain_hash(
            event.prev_hash, event.version, event.type, event.actor, event.command_id,
            event.rules_version, event.time_ms, event.payload,
        )  # fmt: skip
        if computed != event.hash:
            findings.add(position, CHAIN, "the entry's contents do not match its hash: it was edited")
            break
        head = event.hash
        intact.append(event)
    return intact


def check_head(
    events: Sequence[StoredEvent],
    version: int,
    head: str,
    findings: Findings,
    *,
    evidence: str = META,
    who: str = "the match records",
) -> None:
    """The recorded version and chain head (meta, a file's header) are the intact chain's."""
    if len(events) != version:
        findings.add(
            min(len(events), version) + 1,
            evidence,
            f"the stream holds {len(events)} intact entries, {who} {version}",
        )
    elif (events[-1].hash if events else GENESIS) != head:
        findings.add(max(len(events), 1), evidence, f"{who} another head hash than the stream's")


def whole_appends(events: list[StoredEvent], complete: bool) -> list[StoredEvent]:
    """The entries whose append is wholly there: a stream cut short (a broken chain, a truncated
    file) loses the entries after its last receipt, whose append may go on past the cut."""
    if complete:
        return events
    for index in range(len(events) - 1, -1, -1):
        if events[index].receipt:
            return events[: index + 1]
    return []


def appends(events: Sequence[StoredEvent]) -> list[list[StoredEvent]]:
    """Entries grouped by append (consecutive entries of one command id)."""
    runs: list[list[StoredEvent]] = []
    for event in events:
        if runs and runs[-1][-1].command_id == event.command_id:
            runs[-1].append(event)
        else:
            runs.append([event])
    return runs


def is_game_event(event_type: str) -> bool:
    return event_type not in GATEWAY_EVENTS


# -- receipts ----------------------------------------------------------------------------------

# (key id, signed message, signature) -> "" when it verifies, else why not.
SignatureCheck = Callable[[str, bytes, bytes], str]


def check_receipts(
    events: Sequence[StoredEvent],
    tenant: str,
    match_id: str,
    verify: SignatureCheck,
    findings: Findings,
) -> int:
    """Every receipt verifies and the last entry of every append has one. A valid receipt at v
    vouches for every entry up to v, so a failure is pinned to the entries after the last valid
    receipt. Returns the last version a valid receipt vouches for."""
    covered = 0
    for index, event in enumerate(events):
        following = events[index + 1] if index + 1 < len(events) else None
        last_of_append = following is None or following.command_id != event.command_id
        if not event.receipt and not last_of_append:
            continue
        problem = ""
        through = event.version
        if not event.receipt:
            # The receipt was removed, or this append's end moved (an entry after it edited or
            # removed): the entry after it is as suspect as this one.
            problem = f"the append ending at version {event.version} has no receipt"
            through = event.version + 1
        else:
            try:
                receipt = decode_receipt(event.receipt)
            except (msgspec.DecodeError, ValueError):
                receipt = None
            if receipt is None:
                problem = f"the receipt at version {event.version} does not decode"
            elif receipt.version != event.version or receipt.head_hash != event.hash:
                problem = f"the receipt at version {event.version} is for another version or head"
            else:
                message = receipt_message(tenant, match_id, receipt.version, receipt.head_hash)
                why = verify(receipt.key_id, message, receipt.signature)
                if why:
                    problem = f"the receipt at version {event.version} {why}"
        if problem:
            findings.add(covered + 1, RECEIPT, problem, through=through)
            return covered
        covered = event.version
    return covered


@dataclass(frozen=True)
class HeldReceipt:
    """A receipt as a client holds it (AuditRequest.receipts, `guildhall verify --receipts`)."""

    tenant: str
    match_id: str
    key_id: str
    version: int
    head_hash: str
    signature: bytes


def check_held_receipts(
    intact: Sequence[StoredEvent],
    complete: bool,
    held: Sequence[HeldReceipt],
    tenant: str,
    match_id: str,
    verify: SignatureCheck,
    findings: Findings,
) -> tuple[int, int]:
    """The receipts a client holds that the gateway really signed, against the stream's head at
    their versions: the first version where the two differ (a head the gateway signed that the
    stream does not have there, or a version past the stream's end) is a fork, somewhere after
    the last receipt that agrees (a match rolled back, or rewritten and re-signed). Returns
    (compared, refused): a receipt that is not the gateway's signature for this match is no
    evidence."""
    valid: list[HeldReceipt] = []
    for r in held:
        ours = r.tenant == tenant and r.match_id == match_id and r.version >= 1
        message = receipt_message(tenant, match_id, r.version, r.head_hash)
        if ours and not verify(r.key_id, message, r.signature):
            valid.append(r)
    agreed = 0
    for r in sorted(valid, key=lambda r: r.version):
        if r.version > len(intact):
            if not complete:
                break  # past a broken chain: the chain check names that break
            findings.add(
                len(intact) + 1,
                CLIENT_RECEIPT,
                f"a client holds the gateway's receipt for version {r.version}, the stream ends at "
                f"{len(intact)}: the match forked after version {agreed} (the last receipt that "
                f"agrees) and by version {len(intact) + 1}",
            )
            break
        if intact[r.version - 1].hash != r.head_hash:
            findings.add(
                r.version,
                CLIENT_RECEIPT,
                f"the gateway signed another head at version {r.version} for a client than the "
                f"stream holds: the match forked after version {agreed} (the last receipt that "
                f"agrees) and by version {r.version}",
            )
            break
        agreed = r.version
    return len(valid), len(held) - len(valid)


def moved_to(event: StoredEvent) -> RulesVersionMoved | None:
    """The move an entry records (the gateway's rules_version_moved), if it is one that decodes."""
    if event.type != RULES_VERSION_MOVED:
        return None
    try:
        return msgspec.json.decode(event.payload, type=RulesVersionMoved)
    except msgspec.DecodeError:
        return None


def check_rules_versions(events: Sequence[StoredEvent], created: MatchCreated, findings: Findings) -> None:
    """Every entry was recorded under the match's rules version: match_created's, then from each
    rules_version_moved entry on (that entry included), the version it moved to."""
    expected = created.rules_version
    for event in events:
        move = moved_to(event)
        if move is not None:
            expected = move.to_version
        if event.rules_version != expected:
            findings.add(
                event.version,
                RULES,
                f"version {event.version} was recorded under rules {event.rules_version!r}, "
                f"the match was under {expected!r} there",
            )
            return


def rules_versions(events: Sequence[StoredEvent], created: MatchCreated) -> list[str]:
    """The rules versions a re-execution of these entries needs, in order of use."""
    versions = [created.rules_version]
    for event in events:
        move = moved_to(event)
        if move is not None and move.to_version not in versions:
            versions.append(move.to_version)
    return versions


# -- re-execution ------------------------------------------------------------------------------


# The rules refuse a recorded action, event or state as malformed: a finding, not a crash. One
# exception wherever the rules run (a rules service's INVALID_ARGUMENT, in process, a bundle).
RulesRefusal = Refused


class StatusLike(Protocol):
    @property
    def active_players(self) -> Sequence[int]: ...

    @property
    def finished(self) -> bool: ...

    @property
    def outcome(self) -> bytes: ...


class RulesPort(Protocol):
    """One rules version as an audit needs it: a rules service (gateway), the game's GameSpec
    in process or a rules bundle's runner (offline, or a version no longer deployed). States
    are opaque here but for `rules_version` and their bytes."""

    async def setup(self, players: int, seed: bytes, options: bytes) -> tuple[Any, Any]: ...

    async def decide(self, state: Any, player: int, action: bytes) -> Any:
        """A Rejection, or the decision: `.events` (each with `.type` and `.json`), `.state`,
        `.status`, `.undoable` (the seat may take it back: services/kernel/undo.py); raises
        RulesRefusal for an action the rules cannot even read."""
        ...

    def state_bytes(self, state: Any) -> bytes:
        """The state as the rules service encodes it (GameState.state)."""
        ...


class RulesUnavailable(Exception):
    """No rules of this version here (not deployed, no bundle): the match cannot be re-executed,
    which says nothing about the match itself."""

    def __init__(self, game: str, version: str, message: str = "") -> None:
        super().__init__(
            message or f"rules {version} of {game} are neither deployed nor kept as a bundle here"
        )
        self.game = game
        self.version = version


# The rules of one version of the match's game (raises RulesUnavailable when there are none).
RulesOf = Callable[[str], Awaitable[RulesPort]]


@dataclass
class Replayed:
    """Where the re-execution stands after an append (what a snapshot must equal)."""

    version: int
    state: Any
    status: Any
    seating: Seating = Seating()  # who resigned, is away, or is not claimed yet
    final: bytes = b""  # the outcome match_ended stated; b"" while the match goes on
    created: MatchCreated | None = None
    # What a seat may take back here (gateway/domain/undo.py), and the state and status before
    # each of those appends, which a take-back restores.
    undo: UndoStack = NOTHING
    before: list[tuple[Any, Any]] = field(default_factory=list)

    def appended(self, actor: str, first: int, last: int, undoable: bool, before: tuple[Any, Any]) -> None:
        """An append other than a take-back held: the undo stack follows it."""
        self.undo = self.undo.after(actor, first, last, undoable and not self.final)
        held = len(self.undo.appends)  # `before` stays in step with the stack (it may restart)
        self.before = [*self.before, before][-held:] if held else []

    def take_back(self) -> None:
        """The take-back of the top of the undo stack: the state before that append again."""
        self.state, self.status = self.before.pop()
        self.undo = self.undo.popped()


# Called after match_created and after each append that holds: (replayed, last entry).
VersionHook = Callable[[Replayed, StoredEvent], None]


def match_created(events: Sequence[StoredEvent], findings: Findings) -> MatchCreated | None:
    """The stream's first entry, the gateway's match_created; None (a finding) if it is not."""
    if not events:
        return None
    first = events[0]
    if first.type != MATCH_CREATED or first.actor != GATEWAY:
        findings.add(1, EXECUTION, "the stream does not open with the gateway's match_created")
        return None
    try:
        return msgspec.json.decode(first.payload, type=MatchCreated)
    except msgspec.DecodeError:
        findings.add(1, EXECUTION, "match_created does not decode")
        return None


async def _start(
    created: MatchCreated, seed: bytes, rules: RulesPort, version: str, findings: Findings
) -> Replayed | None:
    """The match set up under `rules`, which must be rules `version` (None: a finding)."""
    try:
        state, status = await rules.setup(created.players, seed, bytes(created.options))
    except RulesRefusal as refusal:
        findings.add(1, EXECUTION, f"the rules refuse the match's setup: {refusal}")
        return None
    if state.rules_version != version:
        findings.add(1, RULES, f"recorded under rules {version}, the rules here are {state.rules_version}")
        return None
    return Replayed(1, state, status, Seating(unclaimed=frozenset(created.awaiting)), created=created)


async def re_execute(
    events: Sequence[StoredEvent],
    created: MatchCreated,
    seed: bytes,
    rules: RulesOf,
    findings: Findings,
    *,
    on_version: VersionHook | None = None,
    version: str | None = None,
) -> int:
    """Re-run the match from its seed: setup, then every append's action, each giving exactly
    the recorded events, the gateway's own events in their places, and the end where the rules
    say the game is over; each part under its own rules version (match_created's, then the one
    each rules_version_moved names, whose move must hold: `_check_move`). `version`: re-run it
    all under that version instead, ignoring moves (a candidate version's replay check).
    Returns the last version re-executed without a finding; RulesUnavailable when a version
    it needs is not to be had."""
    if not seed_matches(seed, created.seed_commitment):
        findings.add(1, SEED, "the match's seed does not match the commitment published in match_created")
        return 0
    current = version or created.rules_version
    port = await rules(current)
    replayed = await _start(created, seed, port, current, findings)
    if replayed is None:
        return 0
    if on_version is not None:
        on_version(replayed, events[0])
    done = 1
    for run in appends(events[1:]):
        start = run[0].version
        if replayed.final:
            findings.add(start, EXECUTION, "entries after match_ended")
            return done
        move = moved_to(run[0]) if version is None else None
        if move is not None:
            problem = await _check_move(events[: start - 1], move, current, port, replayed, seed, rules)
            if problem:
                findings.add(start, RULES, problem)
                return done
            current, port = move.to_version, await rules(move.to_version)
        if not await _run(run, replayed, seed, created, port, findings):
            return done
        replayed.version = run[-1].version
        if on_version is not None:
            on_version(replayed, run[-1])
        done = run[-1].version
    return done


async def replay_under(
    events: Sequence[StoredEvent], created: MatchCreated, seed: bytes, rules: RulesPort, version: str
) -> tuple[Replayed | None, Finding | None]:
    """The entries re-executed under one rules version, moves ignored: where it ends (None when
    setup already fails) and the first finding (None: every recorded event reproduced)."""
    findings = Findings()

    async def only(_: str) -> RulesPort:
        return rules

    replayed: Replayed | None = None

    def keep(state: Replayed, _: StoredEvent) -> None:
        nonlocal replayed
        replayed = state

    await re_execute(events, created, seed, only, findings, on_version=keep, version=version)
    return replayed, findings.first()


async def _check_move(
    before: Sequence[StoredEvent],
    move: RulesVersionMoved,
    current: str,
    port: RulesPort,
    replayed: Replayed,
    seed: bytes,
    rules: RulesOf,
) -> str:
    """Why a move does not hold ("" if it does): it must leave the version the match was on, and
    every entry before it, re-executed under the new version, must give what was recorded and
    end in the same state. On success `replayed` continues with the new version's state."""
    if move.from_version != current or move.to_version == current:
        return (
            f"the match moves from rules {move.from_version} to {move.to_version}, but it was under {current}"
        )
    created = replayed.created
    assert created is not None
    target = await rules(move.to_version)
    trial, finding = await replay_under(before, created, seed, target, move.to_version)
    if finding is not None:
        return (
            f"the move to rules {move.to_version} does not hold: re-executed under it, version "
            f"{finding.version} differs ({finding.reason})"
        )
    assert trial is not None
    same = (tuple(trial.status.active_players), trial.status.finished, bytes(trial.status.outcome)) == (
        tuple(replayed.status.active_players),
        replayed.status.finished,
        bytes(replayed.status.outcome),
    )
    if not same or target.state_bytes(trial.state) != port.state_bytes(replayed.state):
        return f"the move to rules {move.to_version} does not hold: its re-execution ends in another state"
    replayed.state, replayed.status = trial.state, trial.status
    return ""


async def _run(
    run: list[StoredEvent],
    replayed: Replayed,
    seed: bytes,
    created: MatchCreated,
    rules: RulesPort,
    findings: Findings,
) -> bool:
    """One append re-executed into `replayed`; False (with a finding) where it does not hold."""
    start = run[0].version
    game_entries = [e for e in run if is_game_event(e.type)]
    action = run[0].action
    before, undoable = (replayed.state, replayed.status), False
    takes_back = any(e.type == ACTION_UNDONE for e in run)
    if takes_back and len(run) > 1:
        findings.add(start, EXECUTION, "a take-back (action_undone) shares its append with other entries")
        return False
    if game_entries or action:
        seat = actor_seat(run[0].actor)
        if not action or seat < 0:
            findings.add(start, EXECUTION, "game events without the action that caused them")
            return False
        if not replayed.seating.ready:
            findings.add(start, EXECUTION, f"seat {seat} acted before every seat of the table was claimed")
            return False
        try:
            decision = await rules.decide(replayed.state, seat, action)
        except RulesRefusal as refusal:
            findings.add(start, EXECUTION, f"the rules refuse the recorded action or state: {refusal}")
            return False
        if isinstance(decision, Rejection):
            findings.add(start, EXECUTION, f"re-executing seat {seat}'s action is refused: {decision.code}")
            return False
        given = [(e.type, bytes(e.json)) for e in decision.events]
        for index in range(max(len(given), len(game_entries))):
            if index >= len(game_entries):
                after = game_entries[-1].version if game_entries else start - 1
                findings.add(
                    after + 1,
                    EXECUTION,
                    f"re-executing the action gives {len(given)} events, the append records "
                    f"{len(game_entries)}: {given[index][0]} is missing after version {after}",
                )
                return False
            entry = game_entries[index]
            if index >= len(given) or (entry.type, entry.payload) != given[index]:
                findings.add(
                    entry.version,
                    EXECUTION,
                    "re-executing the action does not give the recorded events "
                    f"(version {entry.version}, {entry.type})",
                )
                return False
        bot_seats = {bot.seat for bot in created.bots}
        undoable = bool(getattr(decision, "undoable", False)) and players_own(
            seat, replayed.seating.away, bot_seats
        )
        replayed.state, replayed.status = decision.state, decision.status
    for event in run:
        if not is_game_event(event.type):
            problem = gateway_event_problem(event, created, seed, replayed)
            if problem:
                findings.add(event.version, EXECUTION, problem)
                return False
    if replayed.status.finished and not replayed.final:
        findings.add(
            run[-1].version + 1,
            EXECUTION,
            f"the game is over at version {run[-1].version} but match_ended does not follow",
        )
        return False
    if not takes_back:
        replayed.appended(run[0].actor, start, run[-1].version, undoable, before)
    return True


def gateway_event_problem(event: StoredEvent, created: MatchCreated, seed: bytes, replayed: Replayed) -> str:
    """What is wrong with one of the gateway's own events at this point of the match ("" if
    nothing); folds it into `replayed`."""
    try:
        decoded = GATEWAY_EVENT_DECODER.decode(event.payload)
    except msgspec.DecodeError:
        return f"{event.type} does not decode"
    if decoded.__struct_config__.tag != event.type:
        return f"the entry's type {event.type} is not its payload's"
    if isinstance(decoded, MatchCreated):
        return "a second match_created"
    if isinstance(decoded, RulesVersionMoved):
        return "" if event.actor == GATEWAY else "a rules version move not made by the gateway"
    if isinstance(decoded, ActionUndone):
        problem = undo_problem(replayed.undo, event.actor, decoded)
        if problem:
            return f"an undo that may not be: {problem}"
        replayed.take_back()
        return ""
    seating = replayed.seating
    if isinstance(decoded, MatchEnded):
        problem = _end_problem(decoded, created, seed, replayed)
        if problem:
            return problem
        replayed.final = bytes(decoded.outcome)
        return ""
    problem = seating.problem(decoded, created.players)
    replayed.seating = seating.after(decoded)
    return problem


def _end_problem(ended: MatchEnded, created: MatchCreated, seed: bytes, replayed: Replayed) -> str:
    """What is wrong with match_ended here: the seed it reveals, or the outcome it states (the
    rules' when the game is over, under the match's policy; the seats left by resignation; no
    one when a table closed unclaimed)."""
    try:
        revealed = bytes.fromhex(ended.seed)
    except ValueError:
        revealed = b""
    if not seed_matches(revealed, created.seed_commitment):
        return "the revealed seed does not match the commitment"
    if revealed != seed:
        return "the revealed seed is not the match's seed"
    status, seating = replayed.status, replayed.seating
    expected: bytes | None = None
    if ended.reason == FINISHED and status.finished:
        expected = bytes(status.outcome)
        if created.policy >= 1:
            expected = standing_outcome(expected, created.players, seating)
    elif ended.reason == UNCLAIMED and not seating.ready:
        expected = unclaimed_outcome()
    elif ended.reason == RESIGNED and should_end_by_resignation(created.players, seating.resigned):
        expected = resignation_outcome(created.players, seating.resigned)
    if expected is None or bytes(ended.outcome) != expected:
        return "match_ended does not state the re-executed outcome"
    return ""


def ended_at(events: Sequence[StoredEvent]) -> int | None:
    """The version of match_ended in `events`, if the match ended."""
    for event in events:
        if event.type == MATCH_ENDED:
            return event.version
    return None
