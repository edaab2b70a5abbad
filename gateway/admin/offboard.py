"""Offboarding a tenant: archive every match, verify the archive, then remove every Redis key.

Runs in a worker thread with a blocking Redis client, like retention (the archive stores are
blocking: files, S3). The steps, each finished before the next begins:

1. Matches: every `gh:{<tenant>:<match>}:meta` (SCAN). Unfinished ones refuse the whole
   offboarding unless forced (the caller suspended the tenant first, so no new action lands).
2. Archive each live match (gateway.archive.archive_match: copy, verify, remove, tombstone), a
   match that moves meanwhile (a timer fired) is tried again.
3. Verify: every match of the tenant in the archive (the new and those retention archived
   before) is read back, decoded and its chain re-computed. Any failure stops here: nothing
   else is removed, and the operator sees which match.
4. Remove every key of the tenant (SCAN of every primary on a Redis Cluster) by its patterns
   (`tenant_patterns`), and the tenant's members of shared structures (turn timers, bot seats,
   matchmaking pools, the webhook shards' queues).

Usage counters are keys of the tenant too: read `guildhall admin usage` before (docs/deploy.md).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gateway.archive import ArchiveError, ArchiveStore, archive_match, archive_name, decode
from gateway.eventstore.base import MatchKey

_MOVED_RETRIES = 5


def tenant_patterns(tenant: str) -> list[str]:
    """SCAN patterns of every key that belongs to the tenant alone (tenant ids hold no glob
    characters: A-Z a-z 0-9 . _ -)."""
    return [
        f"gh:{{{tenant}:*",  # matches: events, meta, snapshot, commands, archived, webhooks cursor, ...
        f"gh:tenant:{{{tenant}}}:*",  # match indexes (all, active, finished)
        f"gh:tbl:{{{tenant}:*",  # private tables
        f"gh:mm:{{{tenant}:*",  # matchmaking pools, tickets, bot-fill
        f"gh:rt:{{{tenant}:*",  # ratings
        f"gh:wh:{{t:{tenant}}}:*",  # webhook dead letters
        f"gh:{{quota:{tenant}}}:*",  # quotas
        f"gh:usage:{{{tenant}}}:*",  # usage counters
    ]


@dataclass
class OffboardReport:
    tenant: str
    matches_archived: int = 0
    running_matches_archived: int = 0
    events_archived: int = 0
    archive_verified: bool = False
    keys_deleted: int = 0
    shared_entries_removed: int = 0
    verified: list[str] = field(default_factory=list)


class StillRunning(Exception):
    """Matches of the tenant have not finished (offboarding without force refuses)."""

    def __init__(self, match_ids: list[str]) -> None:
        super().__init__(
            f"{len(match_ids)} match(es) still running ({', '.join(match_ids[:5])}"
            f"{', ...' if len(match_ids) > 5 else ''}); end them or use --force"
        )
        self.match_ids = match_ids


def _scan(client: Any, pattern: str) -> Iterator[str]:
    """Every key matching `pattern`; a cluster client's scan_iter walks every primary."""
    for raw in client.scan_iter(match=pattern, count=1000):
        yield raw.decode() if isinstance(raw, bytes) else raw


def _match_ids(client: Any, tenant: str, suffix: str) -> list[str]:
    prefix = f"gh:{{{tenant}:"
    found = set()
    for key in _scan(client, f"{prefix}*}}:{suffix}"):
        found.add(key[len(prefix) : -len(f"}}:{suffix}")])
    return sorted(found)


def running_matches(client: Any, tenant: str) -> list[str]:
    running = []
    for match_id in _match_ids(client, tenant, "meta"):
        if client.hget(f"gh:{{{tenant}:{match_id}}}:meta", "finished") != b"1":
            running.append(match_id)
    return running


def offboard(client: Any, archive: ArchiveStore, tenant: str, *, force: bool) -> OffboardReport:
    """Steps 1-4 of the module's docstring; StillRunning or ArchiveError stop before any removal."""
    report = OffboardReport(tenant)
    running = running_matches(client, tenant)
    if running and not force:
        raise StillRunning(running)
    for match_id in _match_ids(client, tenant, "meta"):
        key = MatchKey(tenant, match_id)
        for attempt in range(_MOVED_RETRIES):
            try:
                archived = archive_match(client, archive, key)
                break
            except ArchiveError as error:
                if "moved" not in str(error) or attempt == _MOVED_RETRIES - 1:
                    raise
                time.sleep(0.2)
        report.matches_archived += 1
        report.running_matches_archived += match_id in running
        report.events_archived += archived.events
    for match_id in _match_ids(client, tenant, "archived"):
        blob = archive.get(archive_name(MatchKey(tenant, match_id)))
        if blob is None:
            raise ArchiveError(f"{tenant}/{match_id}: the archive has no blob; nothing was removed")
        check = decode(blob).audit()
        if not check.ok:
            raise ArchiveError(f"{tenant}/{match_id}: the archived chain fails at {check.first_bad_version}")
        report.verified.append(match_id)
    report.archive_verified = True
    for pattern in tenant_patterns(tenant):
        keys = list(_scan(client, pattern))
        for start in range(0, len(keys), 500):
            pipe = client.pipeline(transaction=False)
            for name in keys[start : start + 500]:
                pipe.unlink(name)  # one key per command: every key may sit in another slot
            report.keys_deleted += sum(int(n) for n in pipe.execute())
    report.shared_entries_removed = _remove_shared(client, tenant)
    return report


def _remove_shared(client: Any, tenant: str) -> int:
    """The tenant's members of structures every tenant shares (their keys stay)."""
    removed = 0
    colon, unit = f"{tenant}:", f"{tenant}\x1f"
    for key in _scan(client, "gh:{timers.*}:*"):  # members "<tenant>:<match>:<seat>" / "<tenant>:<match>"
        removed += _remove_members(client, key, lambda m, _v: m.startswith(colon))
    for key in ("gh:{bots}:due", "gh:{bots}:info"):
        removed += _remove_members(client, key, lambda m, _v: m.startswith(unit))
    removed += _remove_members(client, "gh:{bots}:leases", lambda _m, v: v.startswith(unit))
    for key in ("gh:mm:pools", "gh:bots:pools"):
        removed += _remove_members(client, key, lambda m, _v: m.startswith(colon) or m.startswith(unit))
    for key in _scan(client, "gh:wh:{s*}:intents"):
        removed += _remove_members(client, key, lambda m, _v: m.startswith(unit))
    for items in _scan(client, "gh:wh:{s*}:items"):
        shard = items[: -len(":items")]
        ids = []
        for delivery_id, body in client.hscan_iter(items):
            try:
                owner = json.loads(body).get("tenant")
            except ValueError:
                continue
            if owner == tenant:
                ids.append(delivery_id)
        if ids:
            pipe = client.pipeline(transaction=True)  # one shard, one slot
            pipe.hdel(items, *ids)
            pipe.zrem(f"{shard}:due", *ids)
            pipe.zrem(f"{shard}:sent", *ids)
            removed += int(pipe.execute()[0])
    return removed


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _remove_members(client: Any, key: str, mine: Any) -> int:
    kind = client.type(key)
    kind = kind.decode() if isinstance(kind, bytes) else kind
    if kind == "zset":
        members = [m for m, _s in client.zscan_iter(key) if mine(_text(m), "")]
        return int(client.zrem(key, *members)) if members else 0
    if kind == "set":
        members = [m for m in client.sscan_iter(key) if mine(_text(m), "")]
        return int(client.srem(key, *members)) if members else 0
    if kind == "hash":
        members = [f for f, v in client.hscan_iter(key) if mine(_text(f), _text(v))]
        return int(client.hdel(key, *members)) if members else 0
    return 0
