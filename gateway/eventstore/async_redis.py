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

Acknowledged means replicated (issue 24): with `wait_replicas` > 0 an append is answered only
once `WAIT` says that many replicas hold it. Redis replicates asynchronously, so a primary that
stalls past its failover (a slow fsync, a VM pause, a partition) would otherwise run the queued
append when it resumes, acknowledge it, and lose it when it rejoins as a replica: a fork of an
acknowledged action. WAIT counts the replicas that acknowledged *this connection's* writes, so the
script and its WAIT go down one connection to the slot's owner in one pipeline; a repeated
command's first result is confirmed the same way, by a fence write followed by WAIT (the
replication stream is ordered: a replica holding the fence holds everything before it).

Appends ready together go as one pipeline (gateway/eventstore/pipeline.py): on one Redis down the
client's pool, on a cluster down a connection to the slot's owner, one pipeline per owner (issue
35). With the wait, ONE WAIT ends each pipeline and its count answers every append in it (it
counts every write the connection made before it); each append still has its own expected
version, its own reply, and NotReplicated when that count is short, as it would alone.

`connection_class_for(url)` gives the gateway's pool connections that pack commands with
hiredis: redis-py's asyncio connection packs them in Python, 78 µs for the format-1 append script's 55
arguments against 5 µs (same bytes).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, cast

import hiredis  # a dependency: redis-py parses replies with it, the gateway packs commands with it
import redis.asyncio
import redis.asyncio.cluster
import redis.exceptions

from gateway.eventstore.base import (
    DIGEST_SEPARATOR,
    GENESIS,
    EventStoreUnavailable,
    MatchKey,
    NewEvent,
    StoredEvent,
    chain_hash,
    check_append_arguments,
)
from gateway.eventstore.entries import READ_BACK, NeedsContext, decode_after, read_count, read_start
from gateway.eventstore.pipeline import PIPELINE_ENV, ScriptPipeline
from gateway.eventstore.redis_store import (
    APPEND_SCRIPT,
    MalformedEntry,
    append_args,
    fence_key,
    match_keys,
)
from services import tracing

_PAGE = 1000
_REDIRECTS = 2  # MOVED answers followed within one replicated write
_FENCE_TTL_MS = 60_000  # the fence key only has to outlive its WAIT
# The append's span (tracing on), named as the redis instrumentation names its commands.
_APPEND_SPAN = {"db.system": "redis", "db.operation": "EVALSHA", "guildhall.script": "append"}
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


class _SlotOwners:
    """Plain clients to a cluster's primaries, one per node, for writes that must share one
    connection with their WAIT (a cluster client would send WAIT to every primary and sum)."""

    def __init__(self, cluster: Any) -> None:
        self._cluster = cluster
        self._clients: dict[tuple[str, int], redis.asyncio.Redis] = {}
        self._moved: dict[int, tuple[str, int]] = {}  # slot -> owner learnt from a MOVED answer

    async def owner_of(self, key: str) -> redis.asyncio.Redis:
        await self._cluster.initialize()  # learns the slots on first use; a flag check afterwards
        slot = self._cluster.keyslot(key)
        address = self._moved.get(slot)
        if address is None:
            node = self._cluster.get_node_from_key(key)
            address = (node.host, node.port)
        client = self._clients.get(address)
        if client is None:
            host, port = address
            kwargs = self._cluster.nodes_manager.connection_kwargs
            ssl = kwargs.get("connection_class") is redis.asyncio.SSLConnection
            pool = redis.asyncio.ConnectionPool(
                host=host,
                port=port,
                username=kwargs.get("username"),
                password=kwargs.get("password"),
                socket_timeout=kwargs.get("socket_timeout"),
                socket_connect_timeout=kwargs.get("socket_connect_timeout"),
                # the append's arguments packed in C, as on the gateway's plain client
                connection_class=HiredisSSLConnection if ssl else HiredisConnection,
            )
            client = redis.asyncio.Redis(connection_pool=pool)
            self._clients[address] = client
        return client

    def moved(self, key: str, host: str, port: int) -> None:
        self._moved[self._cluster.keyslot(key)] = (host, port)

    def forget(self, key: str) -> None:
        """The owner of `key`'s slot failed: ask the cluster client again next time."""
        self._moved.pop(self._cluster.keyslot(key), None)

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose(close_connection_pool=True)  # the pool is ours
        self._clients.clear()


OK = "ok"
DUPLICATE = "duplicate"
TAKEN = "taken"
REUSED = "reused"
CONFLICT = "conflict"


@dataclass(frozen=True)
class AppendOutcome:
    """What the script did: `ok` (versions first..last), `duplicate` (the first result of this
    command by this actor), `taken` (the command id is another actor's), `reused` (this actor
    used it for another action, versions first..last), or `conflict` (the match is at version
    `first`, or its head moved)."""

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


class NotReplicated(EventStoreUnavailable):
    """The primary ran the write but too few replicas acknowledged it in time: it may still be
    lost in a failover. Retrying with the same command id answers the first result once it is
    replicated, or decides afresh if it was lost."""


# redis-py's cluster client, while a failover tears its connections down, can fail from inside
# its own code with these (e.g. "'NoneType' object has no attribute 'writelines'", "TCPTransport
# closed"): they are the store being unreachable, not a bug of ours.
_TRANSPORT_FAULTS = (AttributeError, RuntimeError, OSError)
_STORE_FAULTS = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ClusterError,  # ClusterDownError, MasterDownError...
    redis.exceptions.RedisClusterException,  # SlotNotCoveredError while a failover is under way
    redis.exceptions.TryAgainError,
    redis.exceptions.BusyLoadingError,
    # A primary promoted in a failover knows no script yet: nothing ran, so a retry is safe.
    redis.exceptions.NoScriptError,
)


# Replies of a node in the middle of a failover. UNBLOCKED: a WAIT cut short because its primary
# turned replica under it (the stalled primary's case: never an acknowledgement).
_FAILOVER_REPLIES = ("CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "LOADING", "READONLY", "UNBLOCKED")


def is_store_fault(error: BaseException) -> bool:
    """Whether `error` means Redis (or the client's link to it) failed: retry, UNAVAILABLE."""
    if isinstance(error, (EventStoreUnavailable, *_STORE_FAULTS)):
        return True
    if isinstance(error, redis.exceptions.ResponseError):
        return str(error).startswith(_FAILOVER_REPLIES)
    if isinstance(error, _TRANSPORT_FAULTS):
        return _raised_inside_redis_py(error)
    return False


def _raised_inside_redis_py(error: BaseException) -> bool:
    """Raised by redis-py's own connection code (or the transport under it), not by ours."""
    modules = []
    trace = error.__traceback__
    while trace is not None:
        modules.append(str(trace.tb_frame.f_globals.get("__name__", "")))
        trace = trace.tb_next
    in_redis = [m == "redis" or m.startswith("redis.") for m in modules]
    if not any(in_redis):
        return False
    last = modules[-1]
    return in_redis[-1] or last.startswith(("asyncio.", "uvloop"))


class _UnavailableOnStoreFaults:
    """`with unavailable_on_store_faults():` a store fault raised inside is raised again as
    EventStoreUnavailable. A class, not a generator: it wraps every Redis call of the Play path,
    where an @asynccontextmanager's generator and awaits were 1% of the gateway's event loop."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        # Anything else (no error, one already said, a cancellation) goes on as it was.
        if (
            isinstance(error, Exception)
            and not isinstance(error, EventStoreUnavailable)
            and is_store_fault(error)
        ):
            raise EventStoreUnavailable(f"Redis is unavailable: {error}") from error


_UNAVAILABLE_ON_STORE_FAULTS = _UnavailableOnStoreFaults()


def unavailable_on_store_faults() -> _UnavailableOnStoreFaults:
    return _UNAVAILABLE_ON_STORE_FAULTS


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

    def __init__(self, client: Any, *, wait_replicas: int = 0, wait_timeout_ms: int = 1000) -> None:
        """`wait_replicas` > 0: an append (or a repeated command's first result) is answered only
        once that many replicas acknowledged it within `wait_timeout_ms`; else NotReplicated."""
        kwargs: Mapping[str, Any] = getattr(client, "get_connection_kwargs", dict)()
        if kwargs.get("decode_responses"):
            raise ValueError("AsyncRedisEventStore needs a client with decode_responses=False")
        if wait_replicas < 0 or wait_timeout_ms <= 0:
            raise ValueError("wait_replicas must be >= 0 and wait_timeout_ms > 0")
        self.client = client
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = wait_timeout_ms
        self._append = client.register_script(APPEND_SCRIPT)
        self._owners = _SlotOwners(client) if isinstance(client, redis.asyncio.cluster.RedisCluster) else None
        # Appends ready together go as one pipeline (gateway/eventstore/pipeline.py), on a cluster
        # one per slot owner, each followed by one WAIT with `wait_replicas` (issue 35);
        # GUILDHALL_APPEND_PIPELINE=0 sends each alone, with a WAIT of its own.
        self._pipelined = os.environ.get(PIPELINE_ENV, "1") != "0"
        self._pipeline = self._new_pipeline(client) if self._pipelined and self._owners is None else None
        self._owner_pipelines: dict[int, ScriptPipeline] = {}  # by id() of the owner's client

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
        command_digest: str = "",
    ) -> AppendOutcome:
        """One atomic append (see APPEND_SCRIPT); chained from `expected_head`, which the script
        checks against the stored head, so a stale or forged head is a conflict, never a fork.
        `command_digest`: the action the command id is used for (base.action_digest)."""
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
            command_digest=command_digest,
        )
        keys = list(match_keys(key))
        with unavailable_on_store_faults():
            if self._pipelined:
                (status, first, last), acked = await self._pipelined_append(keys, args)
                if self.wait_replicas:
                    if status == b"duplicate":  # the first result was written earlier: confirm it
                        acked = await self._confirm(key)
                    if status in (b"ok", b"duplicate") and acked < self.wait_replicas:
                        raise NotReplicated(self._not_replicated(acked))
            elif not self.wait_replicas:
                status, first, last = await self._append(keys=keys, args=args)
            else:
                reply, acked = await self._replicated(
                    keys[0], lambda pipe: self._append(keys=keys, args=args, client=pipe)
                )
                status, first, last = reply
                if status == b"duplicate":  # the first result was written earlier: confirm it
                    acked = await self._confirm(key)
                if status in (b"ok", b"duplicate") and acked < self.wait_replicas:
                    raise NotReplicated(self._not_replicated(acked))
        return AppendOutcome(status.decode(), int(first), int(last), tuple(hashes))

    def _new_pipeline(self, client: Any) -> ScriptPipeline:
        return ScriptPipeline(
            client, self._append, wait_replicas=self.wait_replicas, wait_timeout_ms=self.wait_timeout_ms
        )

    async def _pipelined_append(self, keys: list[str], args: Sequence[Any]) -> tuple[Any, int]:
        """The script's reply and the replicas its batch's WAIT counted (0 without a wait), through
        the group commit of the plain client or of the slot's owner; error replies raised. A span
        of its own when tracing is on: the pipeline writes to its connection directly, past the
        redis instrumentation (one write may carry several actions' appends)."""
        if not tracing.ENABLED:
            return await self._group_committed_append(keys, args)
        with tracing.span("EVALSHA append", kind="client", attributes=_APPEND_SPAN):
            return await self._group_committed_append(keys, args)

    async def _group_committed_append(self, keys: list[str], args: Sequence[Any]) -> tuple[Any, int]:
        if self._owners is None:
            assert self._pipeline is not None
            reply, acked = await self._pipeline.run(keys, args)
        else:
            for _ in range(_REDIRECTS + 1):
                owner = await self._owners.owner_of(keys[0])
                pipeline = self._owner_pipelines.get(id(owner))
                if pipeline is None:
                    pipeline = self._owner_pipelines[id(owner)] = self._new_pipeline(owner)
                try:
                    reply, acked = await pipeline.run(keys, args)
                except Exception:
                    self._owners.forget(keys[0])  # a redirect learnt earlier may name a dead node
                    raise
                if isinstance(reply, redis.exceptions.AskError):  # MOVED: the slot has a new owner
                    self._owners.moved(keys[0], reply.host, reply.port)
                    continue
                break
            else:
                raise EventStoreUnavailable("the slot's owner keeps moving (a failover in progress); retry")
        for answer in (reply, acked):
            if isinstance(answer, Exception):
                raise answer
        return reply, 0 if acked is None else int(acked)

    async def aclose(self) -> None:
        """Close the connections this store opened itself (not the client it was given)."""
        if self._pipeline is not None:
            await self._pipeline.aclose()
        for pipeline in self._owner_pipelines.values():
            await pipeline.aclose()
        self._owner_pipelines.clear()
        if self._owners is not None:
            await self._owners.aclose()

    async def confirm_replicated(self, key: MatchKey) -> None:
        """Raise NotReplicated unless everything the match's primary holds now is on
        `wait_replicas` replicas (a no-op without a wait): before answering a first result read
        back for a repeated command id."""
        if self.wait_replicas:
            with unavailable_on_store_faults():
                acked = await self._confirm(key)
            if acked < self.wait_replicas:
                raise NotReplicated(self._not_replicated(acked))

    def _not_replicated(self, acked: int) -> str:
        return (
            f"stored on the primary, not yet replicated ({acked} of {self.wait_replicas} replicas "
            f"within {self.wait_timeout_ms} ms); retry with the same command id"
        )

    async def _confirm(self, key: MatchKey) -> int:
        fence = fence_key(key)
        _, acked = await self._replicated(fence, lambda pipe: pipe.set(fence, b"1", px=_FENCE_TTL_MS))
        return acked

    async def _replicated(self, routing_key: str, write: Any) -> tuple[Any, int]:
        """Run `write(pipe)` then WAIT on one connection to the primary of `routing_key`'s slot:
        (the write's reply, replicas that acknowledged it)."""
        client = self.client
        for _ in range(_REDIRECTS + 1):
            target = client if self._owners is None else await self._owners.owner_of(routing_key)
            pipe = target.pipeline(transaction=False)
            await write(pipe)
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)
            reply, acked = await pipe.execute(raise_on_error=False)
            if isinstance(reply, redis.exceptions.AskError) and self._owners is not None:
                self._owners.moved(routing_key, reply.host, reply.port)  # MOVED: the slot has a new owner
                continue
            for answer in (reply, acked):
                if isinstance(answer, Exception):
                    raise answer
            return reply, int(acked)
        raise EventStoreUnavailable("the slot's owner keeps moving (a failover in progress); retry")

    async def load(self, key: MatchKey) -> Loaded:
        """Meta and snapshot in one round trip."""
        keys = match_keys(key)
        with unavailable_on_store_faults():
            pipe = self.client.pipeline(transaction=False)
            pipe.hgetall(keys.meta)
            pipe.hgetall(keys.snapshot)
            meta_raw, snapshot_raw = await pipe.execute()
        meta = {k.decode(): v.decode() for k, v in meta_raw.items()}
        snapshot = {k.decode(): v for k, v in snapshot_raw.items()}
        return Loaded(meta, snapshot)

    async def meta(self, key: MatchKey) -> dict[str, str]:
        with unavailable_on_store_faults():
            raw = await self.client.hgetall(match_keys(key).meta)
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def head(self, key: MatchKey) -> tuple[int, str]:
        """The match's version and chain head (0 and GENESIS when it has none)."""
        with unavailable_on_store_faults():
            version, head = await self.client.hmget(match_keys(key).meta, ["version", "head_hash"])
        return (int(version), head.decode()) if version is not None else (0, GENESIS)

    async def command(self, key: MatchKey, command_id: str) -> tuple[int, int, str, str] | None:
        """The first result of a command id: (first, last, actor, digest of its action; "" for a
        record written before digests were kept), or None if unused."""
        with unavailable_on_store_faults():
            seen = await self.client.hget(match_keys(key).commands, command_id)
        if seen is None:
            return None
        parts = cast(bytes, seen).decode().split(":", 2)
        actor, _, digest = (parts[2] if len(parts) > 2 else "").partition(DIGEST_SEPARATOR)
        return int(parts[0]), int(parts[1]), actor, digest

    async def read(
        self, key: MatchKey, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Entries with version > after_version, in order, at most `limit` of them."""
        if limit is not None and limit <= 0:
            return []
        back = 0
        while True:  # from the entry at after_version (its hash), or further back (its append's first)
            start = max(after_version - back, 0)
            with unavailable_on_store_faults():
                entries = await self.client.xrange(
                    match_keys(key).events,
                    min=read_start(start),
                    max="+",
                    count=read_count(after_version, limit, start),
                )
            try:
                return decode_after(entries, after_version, start)
            except NeedsContext:
                if start <= 1:
                    raise
                back = max(READ_BACK, 2 * back)

    async def read_range(self, key: MatchKey, first: int, last: int) -> list[StoredEvent]:
        """Entries first..last inclusive."""
        return await self.read(key, after_version=first - 1, limit=max(last - first + 1, 0))

    async def raw_entries(self, key: MatchKey) -> AsyncIterator[tuple[bytes, dict[bytes, bytes]]]:
        """Every entry with its id, in pages: what an audit reads, trusting nothing (decode them
        in order with gateway.eventstore.entries.EntryDecoder)."""
        start = "-"
        events_key = match_keys(key).events
        while True:
            with unavailable_on_store_faults():
                page = await self.client.xrange(events_key, min=start, max="+", count=_PAGE)
            for entry in page:
                yield entry
            if len(page) < _PAGE:
                return
            start = "(" + page[-1][0].decode()

    # -- per-tenant indexes ------------------------------------------------------------------

    async def index_created(self, key: MatchKey, created_ms: int) -> None:
        index, active = tenant_matches_key(key.tenant), tenant_active_key(key.tenant)
        with unavailable_on_store_faults():
            pipe = self.client.pipeline(transaction=False)
            pipe.zadd(index, {key.match_id: created_ms})
            pipe.zadd(active, {key.match_id: created_ms})
            await pipe.execute()

    async def index_ended(self, key: MatchKey) -> None:
        with unavailable_on_store_faults():
            await self.client.zrem(tenant_active_key(key.tenant), key.match_id)

    async def active_count(self, tenant: str) -> int:
        with unavailable_on_store_faults():
            return int(await self.client.zcard(tenant_active_key(tenant)))

    async def index_page(
        self, tenant: str, max_ms: float | str, min_ms: float | str, count: int
    ) -> list[tuple[str, int]]:
        """Match ids with their creation time, newest first, within [min_ms, max_ms]."""
        with unavailable_on_store_faults():
            rows = await self.client.zrevrangebyscore(
                tenant_matches_key(tenant), max_ms, min_ms, start=0, num=count, withscores=True
            )
        return [(member.decode(), int(score)) for member, score in rows]

    async def metas(self, keys: Sequence[MatchKey], fields: Sequence[str]) -> list[list[str | None]]:
        """Some meta fields of many matches, pipelined."""
        if not keys:
            return []
        with unavailable_on_store_faults():
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
    "REUSED",
    "TAKEN",
    "AppendOutcome",
    "AsyncRedisEventStore",
    "Loaded",
    "MalformedEntry",
    "NotReplicated",
    "entry_hashes",
    "is_store_fault",
    "tenant_active_key",
    "tenant_matches_key",
    "unavailable_on_store_faults",
]
