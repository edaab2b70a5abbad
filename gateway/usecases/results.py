"""What the match use cases return, and the errors they raise (the transports map them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from gateway.domain.audit import Finding, RulesUnavailable, Verdict
from gateway.domain.match import MATCH_ENDED
from gateway.domain.receipts import Receipt
from gateway.eventstore.base import MatchKey
from services.kernel import Rejection


class MatchNotFound(LookupError):
    """No such match for this tenant (also another tenant's match: never a hint it exists)."""


class MatchExists(ValueError):
    """A match with this id exists with other settings (game or players)."""


class UnknownGame(LookupError):
    """No rules service is configured for this game."""


class BundleNotFound(LookupError):
    """No bundle of that rules version is kept (NOT_FOUND)."""


class RulesNotDeployed(RulesUnavailable):
    """The match's rules version is served by no target (FAILED_PRECONDITION): it never runs on
    other rules (issue 40)."""


class RulesNotAnswering(RulesUnavailable):
    """A target known to serve the match's rules version does not answer now (UNAVAILABLE)."""


class ContendedMatch(RuntimeError):
    """The match kept changing under us; the client may retry (gRPC ABORTED)."""


class InvalidRequest(ValueError):
    """The request names something that cannot be (a seat the match lacks, a version beyond it)."""


# -- what the use cases return ---------------------------------------------------------------------
#
# EventOut and MatchView fill the gateway's caches (tens of thousands of each at 1,000 matches), so
# they are structs the garbage collector does not track (`gc=False`): made only of bytes, strings,
# numbers and tuples of them, they cannot be part of a reference cycle. Tracked, they made every
# collection walk the caches and, promoted on every action, brought a full collection (250-400 ms
# at 1,000 paced matches) every 10 to 20 s (docs/performance.md, "Round 7: the collector").


class EventOut(msgspec.Struct, frozen=True, gc=False):
    """An event as one viewer may see it; actor is the seat, or -1 for the gateway."""

    version: int
    type: str
    actor: int
    payload_json: bytes
    time_ms: int
    receipt: Receipt | None = None
    # The event in words for this viewer: a serialized guildhall.common.v1.Description (empty:
    # none, a game without a presentation).
    description: bytes = b""


class MatchView(msgspec.Struct, frozen=True, gc=False):
    game: str
    match_id: str
    version: int
    seat: int | None
    view_json: bytes
    legal_actions: tuple[bytes, ...]
    active_seats: tuple[int, ...]
    finished: bool
    outcome_json: bytes
    players: tuple[str, ...] = ()
    resigned: tuple[int, ...] = ()
    bots: tuple[tuple[int, str], ...] = ()  # (seat, kind) played by platform bots
    # The seat's decision over `legal_actions`: a serialized guildhall.common.v1.Decision (empty:
    # none, no legal actions or a game without a presentation).
    decision: bytes = b""
    away: tuple[int, ...] = ()  # issue 41: seats a bot plays while their player is away
    unclaimed: tuple[int, ...] = ()  # issue 39: a table's seats nobody claimed yet
    rules_version: str = ""  # issue 40: the rules version the match plays under
    # The seat may take back its last move now (Undo): gateway/domain/undo.py.
    undo_available: bool = False

    @property
    def seat_count(self) -> int:
        return len(self.players)


@dataclass(frozen=True)
class SubmitOutcome:
    accepted: bool
    rejection: Rejection | None = None
    version: int = 0
    events: Sequence[EventOut] = ()
    receipt: Receipt | None = None
    repeated: bool = False
    game: str = ""

    @property
    def ended(self) -> bool:
        return any(e.type == MATCH_ENDED for e in self.events)


@dataclass(frozen=True)
class Created:
    key: MatchKey
    game: str
    players: tuple[str, ...]
    version: int
    seed_commitment: str
    created: bool  # False: the match already existed (a retried create)
    receipt: Receipt | None = None

    @property
    def match_id(self) -> str:
        return self.key.match_id


@dataclass(frozen=True)
class AuditResult:
    ok: bool
    checked_versions: int
    first_bad_version: int | None = None
    reason: str = ""
    # What the first bad version was found by (gateway/domain/audit.py: chain, receipt, ...),
    # and every finding, first bad version first.
    evidence: str = ""
    findings: tuple[Finding, ...] = ()
    # The receipts a client gave: compared with the stream, and refused (not the gateway's
    # signature, or another match's).
    receipts_compared: int = 0
    receipts_refused: int = 0

    @classmethod
    def of(cls, verdict: Verdict, compared: int = 0, refused: int = 0) -> AuditResult:
        return cls(
            verdict.ok,
            verdict.checked_versions,
            verdict.first_bad_version,
            verdict.reason,
            verdict.evidence,
            verdict.findings,
            compared,
            refused,
        )


@dataclass(frozen=True)
class RawEvent:
    """A stream entry as stored (auditor scope), with its receipt decoded when it has one."""

    version: int
    type: str
    actor: str
    command_id: str
    payload: bytes
    rules_version: str
    time_ms: int
    prev_hash: str
    hash: str
    action: bytes
    receipt: Receipt | None


@dataclass(frozen=True)
class MatchSummary:
    match_id: str
    game: str
    players: tuple[str, ...]
    version: int
    finished: bool
    created_ms: int


@dataclass(frozen=True)
class MatchPage:
    matches: list[MatchSummary]
    next_cursor: str = ""
