"""The admin log: every admin action, append-only and hash-chained, in `gh:{admin}:log`.

It is appended by the event store's own append script (gateway.eventstore.redis_store
APPEND_SCRIPT) with its entry format and chain hash, and audited by the same
`audit_events`: one chain to trust, one verifier. An entry's event type is the action
(`create_tenant`, `revoke_key`, ...), its actor the operator key's id, its payload JSON
`{"action", "tenant", "before", "after", ...}` with secrets redacted (key hashes, never keys;
webhook secrets replaced by "<redacted>").

Decisions (question -> decision):
- Written before the change it records: a change without its entry is the failure an audit
  cannot see; an entry whose change then failed says so in the next entry (`failed`).
- Two admins at once: the script refuses an append from a stale head (conflict); the log
  re-reads the head and appends again.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from gateway.admin.registry import now_ms
from gateway.eventstore.base import GENESIS, AuditReport, MatchKey, NewEvent, StoredEvent, audit_events
from gateway.eventstore.entries import decode_after, decode_entries, read_start
from gateway.eventstore.redis_store import APPEND_SCRIPT, append_args

LOG_KEYS = ("gh:{admin}:log", "gh:{admin}:log:meta", "gh:{admin}:log:snapshot", "gh:{admin}:log:commands")
RULES_VERSION = "admin-log-v1"
_ANY_KEY = MatchKey("admin", "log")  # append_args wants one for the notification: none is sent
_ATTEMPTS = 20


@dataclass(frozen=True)
class LogEntry:
    version: int
    time_ms: int
    operator: str
    action: str
    tenant: str
    before: Any
    after: Any
    hash: str


def _entry(event: StoredEvent) -> LogEntry:
    body = json.loads(event.payload)
    return LogEntry(
        event.version, event.time_ms, event.actor, event.type, body.get("tenant", ""),
        body.get("before"), body.get("after"), event.hash,
    )  # fmt: skip


class AdminLog:
    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._append = redis.register_script(APPEND_SCRIPT)

    async def append(
        self, operator: str, action: str, tenant: str, before: Any, after: Any, **more: Any
    ) -> int:
        """Record one action; returns its version."""
        payload = json.dumps(
            {"action": action, "tenant": tenant, "before": before, "after": after, **more},
            separators=(",", ":"),
            sort_keys=True,
        ).encode()
        command_id = uuid.uuid4().hex
        for _ in range(_ATTEMPTS):
            version, head = await self.head()
            args, _hashes = append_args(
                _ANY_KEY, version, head, [NewEvent(action, payload)], operator or "-", command_id,
                RULES_VERSION, now_ms(), None, None,
            )  # fmt: skip
            args[6] = ""  # no notification: nobody watches the admin log as a match
            status, first, _last = await self._append(keys=list(LOG_KEYS), args=args)
            if status in (b"ok", b"duplicate"):
                return int(first)
        raise RuntimeError("the admin log stayed busy; the action was not recorded")

    async def head(self) -> tuple[int, str]:
        version, head = await self.redis.hmget(LOG_KEYS[1], ["version", "head_hash"])
        return (int(version), head.decode()) if version is not None else (0, GENESIS)

    async def entries(self, after_version: int = 0, limit: int = 100) -> list[LogEntry]:
        start = max(after_version, 0)
        raw = await self.redis.xrange(LOG_KEYS[0], min=read_start(start), max="+", count=limit + 1)
        return [_entry(e) for e in decode_after(raw, after_version, start)][:limit]

    async def verify(self) -> AuditReport:
        """The whole chain re-computed and compared with the recorded head."""
        version, head = await self.head()
        raw = await self.redis.xrange(LOG_KEYS[0])
        try:
            events = decode_entries(raw)
        except Exception as error:  # an entry that does not even decode is tampering too
            return AuditReport(
                ok=False, events=len(raw), head_hash="", first_bad_version=None, problem=str(error)
            )
        return audit_events(events, version, head)
