"""Event store: one append-only, hash-chained stream per match, on Redis Streams or in memory.

Import the Redis adapter from `gateway.eventstore.redis_store`; this package root stays free of
Redis so pure code can use the contract and the in-memory twin.
"""

from gateway.eventstore.base import (
    GENESIS,
    AppendResult,
    AuditReport,
    EventStore,
    EventStoreUnavailable,
    Latest,
    MatchKey,
    NewEvent,
    Snapshot,
    StoredEvent,
    VersionConflict,
    chain_hash,
)
from gateway.eventstore.memory import InMemoryEventStore

__all__ = [
    "GENESIS",
    "AppendResult",
    "AuditReport",
    "EventStore",
    "EventStoreUnavailable",
    "InMemoryEventStore",
    "Latest",
    "MatchKey",
    "NewEvent",
    "Snapshot",
    "StoredEvent",
    "VersionConflict",
    "chain_hash",
]
