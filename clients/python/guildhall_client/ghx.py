"""Verify an exported match (a `.ghx` file, `guildhall export`) on your own machine, with nothing
but this package: no gateway, Redis or rules service.

    from guildhall_client.ghx import verify_export
    report = verify_export(Path("match.ghx").read_bytes())            # the file's own keys
    report = verify_export(data, keys=published)                      # and the operator's
    report.ok, report.first_bad_version, report.evidence, report.reason

The checks are the gateway's audit (gateway/domain/audit.py), run here: the file reads whole;
the chain, entry by entry; every receipt against the keys in the file and, when given, the
operator's published keys; the header against the stream; the seed against its commitment;
every action re-executed with the match's own rules version (this installation's
`services.<game>` when it is that version, else the version's rules bundle, checked and run in a
child process: `bundles=`), each stored event and the outcome compared; a match moved to another
version re-executes each part under its own, and the move is checked. The first version that
does not hold is named with its evidence and reason. A file recorded under rules neither
installed nor given as a bundle is refused, naming what it needs (`report.refused`,
`report.needs`).

The file format is gateway/domain/ghx.py (JSON Schema: schemas/export/ghx_line.schema.json).

Decisions (question -> decision):
- Whose keys? The file carries the exporting gateway's keys, so on its own it proves the file is
  self-consistent; against the operator's published keys (`keys`) it proves the receipts are the
  operator's. A key of the file that differs from the published one of the same id is a finding.
- A match in play has no seed in its file (it would reveal every card still to come): its chain,
  receipts and header are checked, and `executed` says the actions were not re-executed.
"""

from __future__ import annotations

import tempfile
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
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
    RulesUnavailable,
    Verdict,
    check_chain,
    check_head,
    check_held_receipts,
    check_receipts,
    check_rules_versions,
    ended_at,
    match_created,
    re_execute,
    rules_versions,
    verdict,
    whole_appends,
)
from gateway.domain.match import MATCH_ENDED, MatchCreated, MatchEnded
from gateway.eventstore.base import StoredEvent
from services.bundles import (
    BundleError,
    BundleRules,
    BundleRunner,
    RulesDecision,
    RulesEvent,
    RulesState,
    RunnerError,
    find_bundle,
    read_bundle,
)
from services.kernel import Rejection
from services.kernel.runner import Replayer

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
    # Each rules version re-executed with and how: "in process" or "with bundle <file>".
    rules_used: dict[str, str] = field(default_factory=dict)

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
                    how = ", ".join(f"{kind} ({version})" for version, kind in self.rules_used.items())
                    if set(self.rules_used.values()) == {"in process"}:
                        how = "in process"
                    lines.append(
                        (name, True, f"every action re-executed {how} ({v.executed_through} versions)")
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
    bundles: Iterable[Path] = (),
) -> ExportReport:
    """Check one .ghx file end to end, offline. `keys`: the operator's published keys (id -> raw
    32-byte Ed25519 public key), else the file's own are used. `games`: GameSpecs to consider
    besides the installed ones (e.g. `services.<game>.load_game(real_data_file)`). `receipts`:
    receipts you were given while the match was played; a file that differs from one (a match
    cut back or rewritten) fails at the first version that may have changed. `bundles`: rules
    bundle files or directories of them (`<game>-<version>.zip`, services/bundles.py) for the
    rules versions this installation does not have; each is checked before it runs."""
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
        with _OfflineRules(created.game_id, games, bundles) as rules:
            missing = rules.missing(rules_versions(usable, created))
            if missing:
                report.refused = True
                report.needs = _needs(created.game_id, missing)
            elif seed is not None:
                try:
                    executed_through = _drive(re_execute(usable, created, seed, rules.of, findings))
                    executed = True
                except (RulesUnavailable, BundleError, RunnerError) as error:
                    report.refused, report.needs = True, f"the rules cannot be run here: {error}"
                report.game = rules.installed
                report.rules_used = dict(rules.used)
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


def _needs(game: str, missing: Sequence[str]) -> str:
    from services.registry import GAMES

    installed = GAMES.get(game)
    have = (
        f"this installation has {installed.rules_version}"
        if installed is not None
        else "this installation has no such game"
    )
    versions = ", ".join(v[:80] for v in missing)
    return (
        f"the match needs {game[:64]} rules {versions}; {have}: give the bundle of each "
        f"(--bundle FILE or --bundles DIR: `<game>-<version>.zip`, from `guildhall get-bundle` "
        "or the operator's archive), or the game's data file if only the data differs (--data GAME=FILE)"
    )


class InProcessRules:
    """A game's GameSpec as the audit's RulesPort: what its rules service does, in process."""

    def __init__(self, spec: Any) -> None:
        self.spec = spec
        self.replayer = Replayer(spec)

    async def setup(self, players: int, seed: bytes, options: bytes) -> tuple[RulesState, Any]:
        state, status = self.replayer.setup(players, seed, options)
        return RulesState(self.spec.rules_version, state), status

    async def decide(self, state: RulesState, player: int, action: bytes) -> Any:
        decided = self.replayer.decide(state.state, player, action)
        if isinstance(decided, Rejection):
            return decided
        events = tuple(RulesEvent(kind, json) for kind, json in decided.events)
        after = RulesState(state.rules_version, decided.state)
        return RulesDecision(events, after, decided.status, decided.undoable)

    def state_bytes(self, state: RulesState) -> bytes:
        return self.spec.codec.encode_state(state.state)  # type: ignore[no-any-return]


class _OfflineRules:
    """Each rules version a match needs, offline: a GameSpec installed here (or given), else a
    bundle among `bundles` (checked, then run in a child process)."""

    def __init__(self, game: str, given: Iterable[Any], bundles: Iterable[Path]) -> None:
        from services.registry import GAMES

        self.game = game
        self.specs = {s.rules_version: s for s in (*GAMES.values(), *given) if s.game_id == game}
        self.places = [Path(p) for p in bundles]
        self.installed: Any = None  # the GameSpec used, for the story's names
        self.used: dict[str, str] = {}  # version -> how it ran
        self._ports: dict[str, Any] = {}
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    def missing(self, versions: Sequence[str]) -> list[str]:
        return [v for v in versions if v not in self.specs and find_bundle(self.game, v, self.places) is None]

    async def of(self, version: str) -> Any:
        if version in self._ports:
            return self._ports[version]
        spec = self.specs.get(version)
        if spec is not None:
            self.installed = self.installed or spec
            port: Any = InProcessRules(spec)
            self.used[version] = "in process"
        else:
            path = find_bundle(self.game, version, self.places)
            if path is None:
                raise RulesUnavailable(self.game, version)
            if self._scratch is None:
                self._scratch = tempfile.TemporaryDirectory(prefix="guildhall-verify-")
            bundle = read_bundle(path.read_bytes(), game=self.game, version=version)
            port = BundleRules(BundleRunner.start(bundle, Path(self._scratch.name)), in_thread=False)
            self.used[version] = f"with bundle {path.name}"
        self._ports[version] = port
        return port

    def __enter__(self) -> _OfflineRules:
        return self

    def __exit__(self, *exc: object) -> None:
        for port in self._ports.values():
            if isinstance(port, BundleRules):
                port.close()
        if self._scratch is not None:
            self._scratch.cleanup()


def _drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never waits (the rules in process): no event loop needed, so the
    library call works inside one too."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("offline verification waited on something: it must run without I/O")
