"""Verify an exported match (a `.ghx` file, `guildhall export`) on your own machine, with nothing
but this package: no gateway, Redis or rules service.

    from guildhall_client.ghx import verify_export
    report = verify_export(Path("match.ghx").read_bytes())            # the file's own keys
    report = verify_export(data, keys=published)                      # and the operator's
    report.ok, report.first_bad_version, report.evidence, report.reason

The checks are the gateway's audit (gateway/domain/audit.py), run here: the file reads whole;
the chain, entry by entry; every receipt against the keys in the file and, when given, the
operator's published keys; the header against the stream; the seed against its commitment;
every action re-executed with the game's rules in process (this installation's
`services.<game>`), each stored event and the outcome compared. The first version that does not
hold is named with its evidence and reason. A file recorded under rules this installation does
not have is refused, naming what it needs (`report.refused`, `report.needs`).

The file format is gateway/domain/ghx.py (JSON Schema: schemas/export/ghx_line.schema.json).

Decisions (question -> decision):
- Whose keys? The file carries the exporting gateway's keys, so on its own it proves the file is
  self-consistent; against the operator's published keys (`keys`) it proves the receipts are the
  operator's. A key of the file that differs from the published one of the same id is a finding.
- A match in play has no seed in its file (it would reveal every card still to come): its chain,
  receipts and header are checked, and `executed` says the actions were not re-executed.
"""

from __future__ import annotations

from collections.abc import Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from gateway.domain import ghx
from gateway.domain.audit import (
    CHAIN,
    CLIENT_RECEIPT,
    EXECUTION,
    FILE,
    RECEIPT,
    RULES,
    SEED,
    Finding,
    Findings,
    HeldReceipt,
    RulesRefusal,
    Verdict,
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
from gateway.domain.match import MATCH_ENDED, MatchCreated, MatchEnded
from gateway.eventstore.base import StoredEvent
from services.kernel import Rejection

__all__ = ["ExportReport", "load_keys", "verify_export"]

T = TypeVar("T")

# The checks a report names, in the order a person reads them.
CHECKS = (FILE, CHAIN, RECEIPT, CLIENT_RECEIPT, SEED, RULES, EXECUTION)


@dataclass
class ExportReport:
    """What verifying one file found."""

    ok: bool
    refused: bool = False  # not checked to the end: the rules version is not installed here
    needs: str = ""  # when refused: the rules it needs
    verdict: Verdict | None = None
    header: ghx.Header | None = None
    events: list[StoredEvent] = field(default_factory=list)
    keys_checked_against: str = "the file's keys"
    game: Any = None  # the GameSpec it was re-executed with (None: not re-executed)
    created: MatchCreated | None = None
    # The receipts given (`receipts`): compared with the file, and refused (not signed by the
    # keys in use for this match).
    receipts_compared: int = 0
    receipts_refused: int = 0

    @property
    def first_bad_version(self) -> int | None:
        return self.verdict.first_bad_version if self.verdict is not None else None

    @property
    def reason(self) -> str:
        if self.refused and self.verdict is not None and self.verdict.ok:
            return self.needs
        return self.verdict.reason if self.verdict is not None else ""

    @property
    def evidence(self) -> str:
        return self.verdict.evidence if self.verdict is not None else ""

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.verdict.findings if self.verdict is not None else ()

    @property
    def executed(self) -> bool:
        return self.verdict is not None and self.verdict.executed

    @property
    def checked_versions(self) -> int:
        return self.verdict.checked_versions if self.verdict is not None else 0

    def checks(self) -> list[tuple[str, bool | None, str]]:
        """(check, passed (None: not made), what it says): one line per check."""
        v = self.verdict
        if v is None:
            return []
        found = {f.evidence: f for f in reversed(v.findings)}  # the first finding of each kind
        header = self.header
        versions = len(self.events)
        receipts = sum(1 for e in self.events if e.receipt)
        lines: list[tuple[str, bool | None, str]] = []
        for name in CHECKS:
            finding = found.get(name)
            if finding is not None:
                lines.append((name, False, f"version {finding.version}: {finding.reason}"))
            elif name == FILE:
                lines.append((name, True, f"{versions} versions, format {ghx.FORMAT_VERSION}"))
            elif name == CHAIN:
                lines.append((name, True, f"{v.chain_through} entries chained"))
            elif name == CLIENT_RECEIPT:
                if not self.receipts_compared:
                    continue
                lines.append((name, True, f"{self.receipts_compared} receipts you hold agree with the file"))
            elif name == RECEIPT:
                lines.append(
                    (name, True, f"{receipts} receipts verified against {self.keys_checked_against}")
                )
            elif name == SEED:
                if header is not None and header.seed is None and not ended_at(self.events):
                    lines.append((name, None, "not revealed yet: the match is in play"))
                else:
                    lines.append((name, True, "matches its commitment"))
            elif name == RULES:
                rules = header.rules_version if header is not None else "?"
                lines.append((name, None if self.refused else True, self.needs or rules))
            elif name == EXECUTION:
                if v.executed and not self.refused:
                    lines.append(
                        (name, True, f"every action re-executed in process ({v.executed_through} versions)")
                    )
                else:
                    why = self.needs or "the seed is revealed when the match ends: export it again then"
                    lines.append((name, None, f"not re-executed: {why}"))
        return lines


def verify_export(
    data: bytes,
    *,
    keys: Mapping[str, bytes] | None = None,
    games: Iterable[Any] = (),
    receipts: Iterable[HeldReceipt] = (),
) -> ExportReport:
    """Check one .ghx file end to end, offline. `keys`: the operator's published keys (id -> raw
    32-byte Ed25519 public key), else the file's own are used. `games`: GameSpecs to consider
    besides the installed ones (e.g. `services.<game>.load_game(real_data_file)`). `receipts`:
    receipts you were given while the match was played; a file that differs from one (a match
    cut back or rewritten) fails at the first version that may have changed."""
    findings = Findings()
    parsed = ghx.parse(data)
    header = parsed.header
    if header is None:
        assert parsed.problem is not None
        findings.add(parsed.problem.version, FILE, parsed.problem.reason)
        return ExportReport(False, verdict=verdict(findings, 0))
    events = [ghx.stored_event(line) for line in parsed.events]
    if parsed.problem is not None:
        findings.add(parsed.problem.version, FILE, parsed.problem.reason)
    if parsed.end is not None and parsed.end.incomplete:
        findings.add(len(events) + 1, CHAIN, f"the exporting store's {parsed.end.incomplete}")
    intact = check_chain(events, findings)
    whole_file = parsed.problem is None and parsed.end is not None and not parsed.end.incomplete
    complete = whole_file and len(intact) == len(events)
    check_head(
        intact, header.version, header.head_hash, findings, evidence=FILE, who="the file's header says"
    )
    usable = whole_appends(intact, complete)
    file_keys = _file_keys(header, findings)
    checker = _SignatureChecker(file_keys, keys)
    covered = check_receipts(usable, header.tenant, header.match_id, checker, findings)
    held = list(receipts)
    compared, _ = check_held_receipts(
        intact, complete, held, header.tenant, header.match_id, checker, findings
    )
    created = match_created(usable, findings)
    report = ExportReport(
        False,
        header=header,
        events=events,
        keys_checked_against="the operator's published keys" if keys is not None else "the file's keys",
        created=created,
        receipts_compared=compared,
        receipts_refused=len(held) - compared,
    )
    executed_through, executed = 0, False
    if created is not None:
        check_rules_versions(usable, created, findings)
        _header_claims(header, created, intact, complete, findings)
        seed = _seed(header, intact, findings)
        spec = _find_game(created, games)
        if spec is None:
            report.refused = True
            report.needs = _needs(created)
        elif seed is not None:
            report.game = spec
            executed = True
            executed_through = _drive(re_execute(usable, created, seed, InProcessRules(spec), findings))
    report.verdict = verdict(
        findings,
        len(intact),
        executed=executed,
        chain_through=len(intact),
        receipts_through=covered,
        executed_through=executed_through,
    )
    report.ok = report.verdict.ok and not report.refused
    return report


# -- keys ----------------------------------------------------------------------------------------


class _SignatureChecker:
    """Receipts against the file's keys, and the operator's published keys when given."""

    def __init__(self, file_keys: Mapping[str, bytes], published: Mapping[str, bytes] | None) -> None:
        self.file_keys = file_keys
        self.published = published
        self._loaded: dict[bytes, Ed25519PublicKey | None] = {}

    def __call__(self, key_id: str, message: bytes, signature: bytes) -> str:
        raw = self.file_keys.get(key_id)
        if self.published is not None:
            official = self.published.get(key_id)
            if official is None:
                return f"is signed by key {key_id!r}, which the operator does not publish"
            if raw is not None and raw != official:
                return f"is signed by key {key_id!r}, and the file's key of that id is not the operator's"
            raw = official
        if raw is None:
            return f"is signed by key {key_id!r}, which the file does not carry"
        public = self._public(raw)
        if public is None:
            return f"names key {key_id!r}, which is not an Ed25519 public key"
        try:
            public.verify(signature, message)
        except InvalidSignature:
            return f"does not verify (key {key_id!r})"
        return ""

    def _public(self, raw: bytes) -> Ed25519PublicKey | None:
        if raw not in self._loaded:
            try:
                self._loaded[raw] = Ed25519PublicKey.from_public_bytes(raw)
            except ValueError:
                self._loaded[raw] = None
        return self._loaded[raw]


def _file_keys(header: ghx.Header, findings: Findings) -> dict[str, bytes]:
    keys: dict[str, bytes] = {}
    for key in header.public_keys:
        try:
            keys[key.key_id] = bytes.fromhex(key.ed25519)
        except ValueError:
            findings.add(0, FILE, f"the header's key {key.key_id[:64]!r} is not hex")
    return keys


def load_keys(document: Any) -> dict[str, bytes]:
    """Published keys from JSON: `{"keys": [{"key_id": ..., "ed25519": hex}]}` (what
    `guildhall keys public --json` prints) or `{key_id: hex}`. ValueError when it is neither."""
    if isinstance(document, dict) and isinstance(document.get("keys"), list):
        pairs = [(k.get("key_id"), k.get("ed25519")) for k in document["keys"] if isinstance(k, dict)]
    elif isinstance(document, dict):
        pairs = list(document.items())
    else:
        raise ValueError('keys are {"keys": [{"key_id": ..., "ed25519": hex}, ...]} or {key_id: hex}')
    keys: dict[str, bytes] = {}
    for key_id, raw in pairs:
        if not isinstance(key_id, str) or not isinstance(raw, str):
            raise ValueError("every key needs a key_id and a hex ed25519 public key")
        keys[key_id] = bytes.fromhex(raw)
        if len(keys[key_id]) != 32:
            raise ValueError(f"key {key_id!r} is not a 32-byte Ed25519 public key")
    return keys


# -- what the header claims ---------------------------------------------------------------------


def _header_claims(
    header: ghx.Header, created: MatchCreated, intact: list[StoredEvent], complete: bool, findings: Findings
) -> None:
    """The header says what match_created says, and that the match ended iff the file ends it."""
    claims = (
        ("game", header.game_id, created.game_id),
        ("rules version", header.rules_version, created.rules_version),
        ("seed commitment", header.seed_commitment, created.seed_commitment),
        (
            "edition and data digest",
            "+".join(filter(None, (header.edition, header.data_digest))),
            created.rules_version,
        ),
    )
    for name, said, recorded in claims:
        if said != recorded:
            findings.add(1, FILE, f"the header names {name} {said[:80]!r}, match_created {recorded[:80]!r}")
            return
    if created.player_ids and tuple(header.players) != tuple(created.player_ids):
        findings.add(1, FILE, "the header's players are not match_created's")
        return
    ended = ended_at(intact)
    if complete and header.finished and ended is None:
        findings.add(len(intact) + 1, FILE, "the header says the match ended, the file holds no match_ended")
    elif ended is not None and not header.finished:
        findings.add(ended, FILE, f"the header says the match is in play, version {ended} ends it")


def _seed(header: ghx.Header, intact: list[StoredEvent], findings: Findings) -> bytes | None:
    """The match seed: the header's, else the one match_ended reveals; None while in play."""
    text = header.seed
    if text is None:
        for event in intact:
            if event.type == MATCH_ENDED:
                try:
                    text = msgspec.json.decode(event.payload, type=MatchEnded).seed
                except msgspec.DecodeError:
                    return None  # re-execution names the undecodable match_ended
    if text is None:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        findings.add(1, SEED, "the file's seed is not hex")
        return None


# -- the rules, in process ------------------------------------------------------------------------


def _find_game(created: MatchCreated, extra: Iterable[Any]) -> Any:
    """The installed (or given) GameSpec of the match's game at its exact rules version."""
    from services.registry import GAMES

    for spec in (*extra, *GAMES.values()):
        if spec.game_id == created.game_id and spec.rules_version == created.rules_version:
            return spec
    return None


def _needs(created: MatchCreated) -> str:
    from services.registry import GAMES

    edition, _, digest = created.rules_version.partition("+")
    installed = GAMES.get(created.game_id)
    have = (
        f"this installation has {installed.rules_version}"
        if installed is not None
        else "this installation has no such game"
    )
    return (
        f"the match needs {created.game_id[:64]} rules {created.rules_version[:80]} (edition "
        f"{edition[:32]}, data digest {digest[:32]}); {have}: install the Guildhall release with "
        "those rules, or give the game's data file with that digest (--data GAME=FILE)"
    )


class _State(msgspec.Struct, frozen=True):
    rules_version: str
    state: Any


class _Event(msgspec.Struct, frozen=True):
    type: str
    json: bytes


class _Status(msgspec.Struct, frozen=True):
    active_players: tuple[int, ...]
    finished: bool
    outcome: bytes


class _Decision(msgspec.Struct, frozen=True):
    events: tuple[_Event, ...]
    state: _State
    status: _Status
    undoable: bool = False


# What a rules function raises on a recorded action or event that does not fit (the rules
# service answers INVALID_ARGUMENT for the same).
_MISFIT = (IndexError, KeyError, ValueError, TypeError, AttributeError)


class InProcessRules:
    """A game's GameSpec as the audit's RulesPort: what its rules service does, in process."""

    def __init__(self, spec: Any) -> None:
        self.spec = spec
        self.codec = spec.codec

    def _status(self, state: Any) -> _Status:
        outcome = self.spec.outcome(state)
        encoded = self.codec.encode_json(outcome) if outcome is not None else b""
        return _Status(tuple(self.spec.active_players(state)), outcome is not None, encoded)

    async def setup(self, players: int, seed: bytes, options: bytes) -> tuple[_State, _Status]:
        from services.kernel import SetupConfig, SetupError

        try:
            config = SetupConfig(players, int.from_bytes(seed, "big"), msgspec.Raw(options or b"{}"))
            state = self.spec.start(config)
        except SetupError as error:
            raise RulesRefusal(str(error)) from None
        return _State(self.spec.rules_version, state), self._status(state)

    async def decide(self, state: _State, player: int, action: bytes) -> Any:
        try:
            decoded = self.codec.decode_action(action)
        except msgspec.DecodeError as error:  # ValidationError included
            raise RulesRefusal(f"the recorded action does not decode: {str(error)[:160]}") from None
        try:
            result = self.spec.decide(state.state, player, decoded)
            if isinstance(result, Rejection):
                return result
            after = self.spec.evolve(state.state, result)
        except _MISFIT as error:
            raise RulesRefusal(f"the action does not fit the state: {type(error).__name__}") from None
        events = tuple(_Event(e.__struct_config__.tag, self.codec.encode_json(e)) for e in result)
        undoable = self.spec.may_take_back(state.state, player, decoded, result, after)
        return _Decision(events, _State(state.rules_version, after), self._status(after), undoable)


def _drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never waits (the rules in process): no event loop needed, so the
    library call works inside one too."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("offline verification waited on something: it must run without I/O")
