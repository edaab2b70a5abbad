"""Match use cases, asyncio end to end: create, view, submit, resign, undo, timers, watch reads,
replay, audit, listing.

One module per concern, each over the shared core in `store.py` (the cached match, loading,
replay, fold, append), reading downward:

- `results.py`  what the use cases return and the errors they raise
- `store.py`    the shared core: `MatchStore`
- `matches.py`  create, list, active counts
- `views.py`    views, redaction, watch reads, replay, raw entries
- `play.py`     submit, resign, turn timers, resigned seats' moves (shows events as views do)
- `undo.py`     a seat takes back its own last move
- `audit.py`    the audit
- `export.py`   the match as a file an auditor verifies offline
- `versions.py` moving a live match to another rules version; a candidate version's replay check

`GameMatches` is the one object the transports hold: every concern on one cache.
"""

from __future__ import annotations

from gateway.domain.audit import HeldReceipt
from gateway.domain.receipts import Receipt
from gateway.usecases.export import Exported, ExportUseCases
from gateway.usecases.matches import MatchUseCases
from gateway.usecases.play import PlayUseCases
from gateway.usecases.results import (
    AuditResult,
    ContendedMatch,
    Created,
    EventOut,
    InvalidRequest,
    MatchExists,
    MatchNotFound,
    MatchPage,
    MatchSummary,
    MatchView,
    RawEvent,
    SubmitOutcome,
    UnknownGame,
)
from gateway.usecases.store import MatchStore, TimerPort
from gateway.usecases.undo import UndoUseCases
from gateway.usecases.versions import VersionUseCases
from gateway.usecases.views import ViewUseCases


class GameMatches(MatchUseCases, UndoUseCases, PlayUseCases, ViewUseCases, VersionUseCases, ExportUseCases):
    """The match use cases over Redis and the rules services, by game id."""


__all__ = [
    "AuditResult",
    "ContendedMatch",
    "Created",
    "EventOut",
    "Exported",
    "GameMatches",
    "HeldReceipt",
    "InvalidRequest",
    "MatchExists",
    "MatchNotFound",
    "MatchPage",
    "MatchStore",
    "MatchSummary",
    "MatchView",
    "RawEvent",
    "Receipt",
    "SubmitOutcome",
    "TimerPort",
    "UnknownGame",
]
