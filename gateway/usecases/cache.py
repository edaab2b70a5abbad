"""The gateway's per-replica caches, bounded by a memory budget (`CACHE_MB`), not by counts.

Issue 25: caches sized by count (10,000 states, 40,000 views and redacted event lists) let
the gateway grow from 75 MB to 400 MB, because what one entry holds depends on the game and
the match. Each cache here is a least-recently-used map that charges every entry an estimate
of the bytes it keeps alive and evicts the least recently used entries until it is under its
share of the budget.

The estimate is cheap by design: the lengths of what is already serialized (a state's bytes,
a view's JSON, the events' JSON) plus a fixed overhead per entry (the Python objects around
them, the key and the map's own slot), measured with tracemalloc on real matches
(`python -m benchmarks.bench_memory --calibrate`). Computing a cost never serializes anything.

The budget's split (question -> decision):
- Each cache gets a fixed share, so a burst in one (many watchers' event lists) cannot evict
  what another needs (the states every action starts from): states 40 %, views 30 %, redacted
  event lists 25 %, the last append per match 2.5 %, stream reads shared by watchers 2.5 %.
- An entry larger than its cache's whole share is not kept (it is computed again when asked).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

MB = 1024 * 1024
DEFAULT_CACHE_MB = 128

# Fixed overheads, in bytes, beside the serialized lengths: measured with tracemalloc on Rattus
# Cartus (2p) and Lords of Waterdeep (4p) matches played through the use cases, the map's slot
# and the key included (`python -m benchmarks.bench_memory --calibrate`); a state's protobuf
# arena, which tracemalloc does not see, measured by RSS (about 700 B beside its bytes).
STATE_OVERHEAD = 1_600  # a Match: the dataclass, its GameState message, Status, players, key
VIEW_OVERHEAD = 620  # a MatchView and its memo key
ACTION_OVERHEAD = 40  # each legal action's bytes object (beside its length)
EVENTS_OVERHEAD = 250  # a redacted event list and its memo key
EVENT_OVERHEAD = 170  # each EventOut (a receipt, when there is one, adds RECEIPT_OVERHEAD)
RECEIPT_OVERHEAD = 300
APPENDED_COST = 530  # a match's last append here: (first, last, head) and the key
READ_OVERHEAD = 700  # a shared stream read: its future, memo key and list
STORED_EVENT_OVERHEAD = 750  # a StoredEvent's fields beside its payload, action and receipt

SHARES = {"states": 0.40, "views": 0.30, "redacted": 0.25, "appended": 0.025, "reads": 0.025}


class ByteLru:
    """Least recently used first out, bounded by the estimated bytes of its entries."""

    __slots__ = ("_entries", "budget", "bytes", "cost", "name")

    def __init__(self, name: str, budget: int, cost: Callable[[Any], int]) -> None:
        self.name = name
        self.budget = budget
        self.cost = cost
        self.bytes = 0
        self._entries: OrderedDict[Any, tuple[Any, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[Any]:
        return iter(self._entries)

    def get(self, key: Any, default: Any = None) -> Any:
        entry = self._entries.get(key)
        return default if entry is None else entry[0]

    def get_fresh(self, key: Any) -> Any:
        """The value, marked as the most recently used."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: Any, value: Any, cost: int | None = None) -> None:
        """Keep `value` (charged `cost`, else its estimate), then evict down to the budget."""
        size = self.cost(value) if cost is None else cost
        old = self._entries.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        if size > self.budget:
            return
        self._entries[key] = (value, size)
        self.bytes += size
        while self.bytes > self.budget:
            _, (_, evicted) = self._entries.popitem(last=False)
            self.bytes -= evicted

    def charge(self, key: Any, cost: int) -> None:
        """Charge a kept entry anew (a value whose size was known only later), in place."""
        entry = self._entries.get(key)
        if entry is not None:
            self.put(key, entry[0], cost)

    def pop(self, key: Any, default: Any = None) -> Any:
        entry = self._entries.pop(key, None)
        if entry is None:
            return default
        self.bytes -= entry[1]
        return entry[0]

    def clear(self) -> None:
        self._entries.clear()
        self.bytes = 0


# -- costs: lengths of what is already serialized, plus the fixed overheads ---------------------------


def state_cost(match: Any) -> int:
    """A cached Match: its state's bytes (already serialized: the rules service's own)."""
    return STATE_OVERHEAD + len(match.state.state) + len(match.outcome)


def view_cost(view: Any) -> int:
    """A MatchView: its JSON and its legal actions' JSON."""
    actions = view.legal_actions
    return (
        VIEW_OVERHEAD
        + len(view.view_json)
        + len(view.outcome_json)
        + len(view.decision)
        + sum(map(len, actions))
        + ACTION_OVERHEAD * len(actions)
    )


def events_cost(events: Any) -> int:
    """A list of EventOut as one viewer sees them."""
    total = EVENTS_OVERHEAD
    for event in events:
        total += EVENT_OVERHEAD + len(event.payload_json) + len(event.description)
        if event.receipt is not None:
            total += RECEIPT_OVERHEAD
    return total


def stored_cost(events: Any) -> int:
    """A stream read's StoredEvents (their payloads, actions and receipts as Redis gave them)."""
    total = READ_OVERHEAD
    for event in events:
        total += STORED_EVENT_OVERHEAD + len(event.payload) + len(event.action) + len(event.receipt)
    return total


def appended_cost(_: Any) -> int:
    return APPENDED_COST


def read_cost(_: Any) -> int:
    """A read in flight: its size is charged once it is done (`ByteLru.charge`)."""
    return READ_OVERHEAD


@dataclass(frozen=True)
class Caches:
    """MatchStore's caches, each with its share of `budget` bytes."""

    states: ByteLru
    views: ByteLru
    redacted: ByteLru
    appended: ByteLru
    reads: ByteLru

    @classmethod
    def within(cls, budget: int) -> Caches:
        if budget < 0:
            raise ValueError(f"a cache budget cannot be negative ({budget} bytes)")
        costs = {
            "states": state_cost,
            "views": view_cost,
            "redacted": events_cost,
            "appended": appended_cost,
            "reads": read_cost,
        }
        return cls(**{name: ByteLru(name, int(budget * SHARES[name]), costs[name]) for name in SHARES})

    def all(self) -> tuple[ByteLru, ...]:
        return (self.states, self.views, self.redacted, self.appended, self.reads)

    @property
    def bytes(self) -> int:
        return sum(cache.bytes for cache in self.all())

    def bytes_per_match(self) -> float:
        """Every cache's bytes over the matches whose state is cached (0 when none is)."""
        matches = len(self.states)
        return self.bytes / matches if matches else 0.0


def parse_cache_mb(text: str, name: str = "CACHE_MB", unit: str = "MiB") -> float:
    """CACHE_MB's value (and any other setting that is a number >= 0 of `unit`): else a
    ValueError naming the setting. 0 MiB caches nothing."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value < float("inf"):
        raise ValueError(f"{name} must be a number of {unit} >= 0, not {text!r}")
    return value
