"""The event store on Redis Streams for the asyncio gateway: the same keys, entry encoding and
append script as `redis_store` (blocking), on a `redis.asyncio.Redis` or
`redis.asyncio.cluster.RedisCluster` client (hiredis parses replies when installed).

What the gateway adds to an append, all written by the one atomic script:
- `action` (the seat's action JSON) on the first entry, so an audit can re-execute it;
- `receipt` (signed by the gateway) on the last entry;
- snapshot fields `head_hash`, `key_id`, `mac` binding the cached state to its match and head;
- a PUBLISH on `gh:notify` so every replica's watchers learn of the append.

Reads the hot path needs come back in one round trip (`load`: meta and snapshot pipelined).
Per-tenant indexes (`gh:tenant:{<tenant>}:matches`, `...:active`) live in another slot than a
match's keys, so they are written after the match's append, idempotently.

`connection_class_for(url)` gives the gateway's pool connections that pack commands with
hiredis: redis-py's asyncio connection packs them in Python, 78 µs for the append script's 55
arguments against 5 µs (same bytes).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, cast

import hiredis  # a dependency: redis-py parses replies with it, the gateway packs commands with it
import redis.asyncio
import redis.exceptions

from gateway.eventstore.base import (
    GENESIS,
    EventStoreUnavailable,
    MatchKey,
    NewEvent,
    StoredEvent,
    chain_hash,
    check_append_arguments,
)
from gateway.eventstore.redis_store import (
    APPEND_SCRIPT,
    MalformedEntry,
    append_args,
    decode_entry,
    match_keys,
)

_PAGE = 1000
# What hiredis packs exactly as redis-py's encoder does (it rejects bool and None, writes floats
# with repr): anything else goes through redis-py's own packer.
_PLAIN_ARGUMENTS = (bytes, str, int)


class _HiredisPacking:
    """Packs a command with hiredis (C) when every argument is bytes, str or int and the command
    name is one word; otherwise as redis-py does, so the bytes on the wire never differ."""

    def pack_command(self, *args: Any) -> list[bytes]:
        first = args[0] if args else b""
        plain = all(type(arg) in _PLAIN_ARGUMENTS for arg in args)
        if plain and " " not in (first if isinstance(first, str) else first.decode("latin-1")):
            try:
                return [hiredis.pack_command(args)]
            except (TypeError, UnicodeError):  # e.g. a lone surrogate: redis-py names the fault
                pass
        return super().pack_command(*args)  # type: ignore[misc,no-any-return]


class HiredisConnection(_HiredisPacking, redis.asyncio.Connection):
    pass


class HiredisSSLConnection(_HiredisPacking, redis.asyncio.SSLConnection):
    pass


class HiredisUnixConnection(_HiredisPacking, redis.asyncio.UnixDomainSocketConnection):
    pass


def connection_class_for(
    url: str,
) -> type[redis.asyncio.Connection | redis.asyncio.UnixDomainSocketConnection]:
    """The hiredis-packing connection for a `redis://`, `rediss://` or `unix://` URL."""
    scheme = url.split(":", 1)[0].lower()
    if scheme == "rediss":
        return HiredisSSLConnection
    if scheme == "unix":
        return HiredisUnixConnection
    return HiredisConnection


OK = "ok"
DUPLICATE = "duplicate"
TAKEN = "taken"
CONFLICT = "conflict"


@dataclass(frozen=True)
class AppendOutcome:
    """What the script did: `ok` (versions first..last), `duplicate` (the first result of this
    command by this actor), `taken` (the command id is another actor's), or `conflict` (the
    match is at version `first`, or its head moved)."""

    status: str
    first: int
    last: int
    hashes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Loaded:
    """A match's meta (empty: no such match) and raw snapshot fields (empty: none)."""

    meta: dict[str, str]
    snapshot: dict[str, bytes]


def tenant_matches_key(tenant: str) -> str:
    """Sorted set of a tenant's match ids by creation time (ms)."""
    return f"gh:tenant:{{{tenant}}}:matches"


def tenant_active_key(tenant: str) -> str:
    """Sorted set of a tenant's unfinished match ids by creation time (ms)."""
    return f"gh:tenant:{{{tenant}}}:active"


@asynccontextmanager
async def _unavailable() -> AsyncIterator[None]:
    try:
        yield
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
        raise EventStoreUnavailable(f"Redis is unavailable: {error}") from error


def entry_hashes(
    chain_from: str,
    expected_version: int,
    events: Sequence[NewEvent],
    actor: str,
    command_id: str,
    rules_version: str,
    time_ms: int,
) -> list[str]:
    """The chain hashes the entries of an append will get (to sign the head before writing)."""
    hashes: list[str] = []
    head = chain_from
    for version, event in enumerate(events, start=expected_version + 1):
        head = chain_hash(head, version, event.type, actor, command_id, rules_version, time_ms, event.payload)
        hashes.append(head)
    return hashes


class AsyncRedisEventStore:
    """Async access to match streams; stateless apart from the registered script."""

    def __init__(self, client: Any) -> None:
        kwargs: Mapping[str, Any] = getattr(client, "get_connection_kwargs", dict)()
        if kwargs.get("decode_responses"):
            raise ValueError("AsyncRedisEventStore needs a client with decode_responses=False")
        self.client = client
        self._append = client.register_script(APPEND_SCRIPT)

    async def append(
        self,
        key: MatchKey,
        expected_version: int,
        expected_head: str,
        events: Sequence[NewEvent],
        *,
        actor: str,
        command_id: str,
        rules_version: str,
        time_ms: int,
        snapshot: Mapping[str, str | bytes] | None = None,
        meta: Mapping[str, str] | None = None,
        extra: Sequence[Mapping[str, bytes]] = (),
        hashes: Sequence[str] | None = None,
    ) -> AppendOutcome:
        """One atomic append (see APPEND_SCRIPT); chained from `expected_head`, which the script
        checks against the stored head, so a stale or forged head is a conflict, never a fork."""
        check_append_arguments(expected_version, events, command_id, meta)
        args, hashes = append_args(
            key,
            expected_version,
            expected_head,
            events,
            actor,
            command_id,
            rules_version,
            time_ms,
            snapshot,
            meta,
            extra=extra,
            hashes=hashes,
        )
        async with _unavailable():
            status, first, last = await self._append(keys=list(match_keys(key)), args=args)
        return AppendOutcome(status.decode(), int(first), int(last), tuple(hashes))

    async def load(self, key: MatchKey) -> Loaded:
        """Meta and snapshot in one round trip."""
        keys = match_keys(key)
        async with _unavailable():
            pipe = self.client.pipeline(transaction=False)
            pipe.hgetall(keys.meta)
            pipe.hgetall(keys.snapshot)
            meta_raw, snapshot_raw = await pipe.execute()
        meta = {k.decode(): v.decode() for k, v in meta_raw.items()}
        snapshot = {k.decode(): v for k, v in snapshot_raw.items()}
        return Loaded(meta, snapshot)

    async def meta(self, key: MatchKey) -> dict[str, str]:
        async with _unavailable():
            raw = await self.client.hgetall(match_keys(key).meta)
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def head(self, key: MatchKey) -> tuple[int, str]:
        """The match's version and chain head (0 and GENESIS when it has none)."""
        async with _unavailable():
            version, head = await self.client.hmget(match_keys(key).meta, ["version", "head_hash"])
        return (int(version), head.decode()) if version is not None else (0, GENESIS)

    async def command(self, key: MatchKey, command_id: str) -> tuple[int, int, str] | None:
        """The first result of a command id: (first, last, actor), or None if unused."""
        async with _unavailable():
            seen = await self.client.hget(match_keys(key).commands, command_id)
        if seen is None:
            return None
        parts = cast(bytes, seen).decode().split(":", 2)
        return int(parts[0]), int(parts[1]), parts[2] if len(parts) > 2 else ""

    async def read(
        self, key: MatchKey, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Entries with version > after_version, in order, at most `limit` of them."""
        if limit is not None and limit <= 0:
            return []
        async with _unavailable():
            entries = await self.client.xrange(
                match_keys(key).events, min=f"{max(after_version, 0) + 1}-0", max="+", count=limit
            )
        return [decode_entry(fields) for _, fields in entries]

    async def read_range(self, key: MatchKey, first: int, last: int) -> list[StoredEvent]:
        """Entries first..last inclusive."""
        async with _unavailable():
            entries = await self.client.xrange(match_keys(key).events, min=f"{first}-0", max=f"{last}-0")
        return [decode_entry(fields) for _, fields in entries]

    async def raw_entries(self, key: MatchKey) -> AsyncIterator[tuple[bytes, dict[bytes, bytes]]]:
        """Every entry with its id, in pages: what an audit reads, trusting nothing."""
        start = "-"
        events_key = match_keys(key).events
        while True:
            async with _unavailable():
                page = await self.client.xrange(events_key, min=start, max="+", count=_PAGE)
            for entry in page:
                yield entry
            if len(page) < _PAGE:
                return
            start = "(" + page[-1][0].decode()

    # -- per-tenant indexes ------------------------------------------------------------------

    async def index_created(self, key: MatchKey, created_ms: int) -> None:
        index, active = tenant_matches_key(key.tenant), tenant_active_key(key.tenant)
        async with _unavailable():
            pipe = self.client.pipeline(transaction=False)
            pipe.zadd(index, {key.match_id: created_ms})
            pipe.zadd(active, {key.match_id: created_ms})
            await pipe.execute()

    async def index_ended(self, key: MatchKey) -> None:
        async with _unavailable():
            await self.client.zrem(tenant_active_key(key.tenant), key.match_id)

    async def active_count(self, tenant: str) -> int:
        async with _unavailable():
            return int(await self.client.zcard(tenant_active_key(tenant)))

    async def index_page(
        self, tenant: str, max_ms: float | str, min_ms: float | str, count: int
    ) -> list[tuple[str, int]]:
        """Match ids with their creation time, newest first, within [min_ms, max_ms]."""
        async with _unavailable():
            rows = await self.client.zrevrangebyscore(
                tenant_matches_key(tenant), max_ms, min_ms, start=0, num=count, withscores=True
            )
        return [(member.decode(), int(score)) for member, score in rows]

    async def metas(self, keys: Sequence[MatchKey], fields: Sequence[str]) -> list[list[str | None]]:
        """Some meta fields of many matches, pipelined."""
        if not keys:
            return []
        async with _unavailable():
            pipe = self.client.pipeline(transaction=False)
            for key in keys:
                pipe.hmget(match_keys(key).meta, list(fields))
            replies = await pipe.execute()
        return [[v.decode() if v is not None else None for v in reply] for reply in replies]


__all__ = [
    "CONFLICT",
    "DUPLICATE",
    "GENESIS",
    "OK",
    "TAKEN",
    "AppendOutcome",
    "AsyncRedisEventStore",
    "Loaded",
    "MalformedEntry",
    "entry_hashes",
    "tenant_active_key",
    "tenant_matches_key",
]
