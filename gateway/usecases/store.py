"""The shared core of the match use cases: the cached match, loading, replay, fold, append.

The use cases take their ports (a Redis client, an async rules client per game, the signing
keys, the turn timers) and keep only a per-replica cache of each match's latest state, so any
gateway replica can serve any match: correctness comes from the append script, which checks
the version and chain head the decision was made on, never from sticky routing. A cold cache
costs one round trip (meta and snapshot, pipelined), and a read of the events after the
snapshot folded through the rules service when there are any.

Decisions (question -> decision):
- One receipt per append (on its last entry): it signs the head, which commits to every entry
  before it; the audit pins a failure to the first entry after the last valid receipt.
- The action that caused an append is stored beside the chain on its first entry (`action`),
  so an audit can re-execute the stream (gateway/usecases/audit.py).
- How often is the snapshot written? Every `snapshot_every` versions (SNAPSHOT_EVERY, default
  16; issue 25 item 4), and when an append creates or ends the match or takes a move back (a
  fold from an older snapshot across an undo replays from setup): the snapshot's HSET was
  most of an append's cost in Redis (a 2 KB state written and fsynced with every action). A
  load takes the snapshot and folds the K - 1 events after it at most, in one Apply call; the
  replica that appended keeps the new state in its cache and needs neither. The snapshot stays
  MAC'd and bound to its version's head, and the audit checks it at whatever version it is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeAlias

import grpc
import msgspec
from guildhall.rules.v1 import rules_pb2

from gateway import metrics
from gateway.domain.match import (
    ACTION_UNDONE,
    ENCODER,
    FINISHED,
    GATEWAY_EVENT_DECODER,
    GATEWAY_EVENTS,
    JSON,
    MATCH_CREATED,
    MATCH_ENDED,
    RESIGNED,
    RULES_VERSION_MOVED,
    SNAPSHOT_DECODER,
    UNCLAIMED,
    MatchCreated,
    MatchEnded,
    Seating,
    SnapshotBody,
    acting_seat,
    resignation_outcome,
    should_end_by_resignation,
    standing_outcome,
    unclaimed_outcome,
)
from gateway.domain.receipts import Receipt, decode_receipt, encode_receipt, receipt_message, snapshot_message
from gateway.domain.timers import RANDOM_ACTION, TimerPolicy
from gateway.domain.undo import NOTHING, UndoStack, decode_stack, encode_stack, taken_back
from gateway.eventstore.async_redis import (
    CONFLICT,
    OK,
    AsyncRedisEventStore,
    NotReplicated,
    entry_hashes,
    is_store_fault,
)
from gateway.eventstore.base import MatchKey, NewEvent, StoredEvent, wall_clock_ms
from gateway.eventstore.entries import EntryDecoder
from gateway.retention import index_finished
from gateway.rules_bundles import BundleStore
from gateway.rules_client import AsyncRulesClient, Event, Status
from gateway.rules_directory import PinnedMatches, RulesDirectory, StaticRules
from gateway.signing import KeyRing, PublicKey
from gateway.usecases.cache import DEFAULT_CACHE_MB, MB, Caches
from gateway.usecases.described import gateway_description
from gateway.usecases.results import EventOut, MatchNotFound, RulesNotAnswering
from gateway.usecases.turns import MatchTurns

_log = logging.getLogger(__name__)
# Seconds between retries of work after an append that failed (indexes, timers, auto-play).
REPAIR_BACKOFF_S = (0.2, 0.5, 1.0, 2.0, 5.0, 10.0)


def _transient(error: BaseException) -> bool:
    """A fault worth retrying: the store or a rules service was unreachable."""
    import grpc

    if is_store_fault(error):
        return True
    return isinstance(error, grpc.aio.AioRpcError) and error.code() in (
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    )


class TimerPort(Protocol):
    """Durable turn timers (gateway.timers.TurnTimers)."""

    async def arm(self, key: MatchKey, version: int, seat: int, deadline_ms: int, policy: str) -> None: ...

    async def disarm(self, key: MatchKey) -> None: ...


# -- the cached match --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """What a decision needs, at one version (immutable: a new version is a new Match)."""

    key: MatchKey
    game: str
    players: tuple[str, ...]
    seed: bytes
    commitment: str
    created_ms: int
    timer: TimerPolicy | None
    version: int
    head: str
    state: rules_pb2.GameState
    status: Status
    resigned: frozenset[int] = frozenset()
    ended: bool = False
    outcome: bytes = b""
    bots: tuple[tuple[int, str], ...] = ()  # (seat, kind) played by platform bots (issue 23)
    away: frozenset[int] = frozenset()  # seats a bot plays while their player is away (issue 41)
    unclaimed: frozenset[int] = frozenset()  # a table's seats nobody claimed yet (issue 39)
    policy: int = 0  # the gateway's match policy it began under (gateway.domain.match.POLICY)
    # The rules version the match plays under (issue 40): every rules call goes to it.
    rules_version: str = ""
    undo: UndoStack = NOTHING  # the moves a seat may take back now (gateway/domain/undo.py)

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def seating(self) -> Seating:
        return Seating(self.resigned, self.away, self.unclaimed)

    def waiting_seats(self) -> tuple[int, ...]:
        """Seats that owe a decision and can still make it: none before a table is full."""
        if self.ended or self.unclaimed:
            return ()
        return tuple(s for s in self.status.active_players if s not in self.resigned)


# Stream entries with their ids, as XRANGE gives them (or an archive, numbered in order).
Entries: TypeAlias = AsyncIterator[tuple[bytes, dict[bytes, bytes]]]

# A snapshot every this many versions by default (SNAPSHOT_EVERY; 1: with every append).
DEFAULT_SNAPSHOT_EVERY = 16


async def decoded(entries: Entries) -> AsyncIterator[StoredEvent]:
    """A stream's entries decoded in order from its start (either entry format)."""
    decoder = EntryDecoder()
    async for entry_id, fields in entries:
        yield decoder.decode(entry_id, fields)


@dataclass(frozen=True)
class Appended:
    """An append's result: the new match (None unless `status` is ok), its receipt, the events
    written (the match_ended the append added included) and their time."""

    match: Match | None
    receipt: Receipt | None
    status: str
    time_ms: int
    events: list[NewEvent]
    # On a conflict: the version the store held as the script refused (read in the same atomic
    # step), so a seat that decided on an older one is told so without reading the match again.
    stored_version: int | None = None

    def out(self, after_version: int, actor: str, shown_game_events: Sequence[Event]) -> tuple[EventOut, ...]:
        """The appended events for the caller: game events as shown to it (already redacted
        by the rules service), the gateway's events as written; the receipt on the last."""
        shown = list(shown_game_events)
        seat = acting_seat(actor)
        out = []
        for index, event in enumerate(self.events):
            if is_game_event(event.type):
                game_event = shown.pop(0)
                payload, description = game_event.json, game_event.description
            else:
                payload, description = event.payload, gateway_description(event.payload)
            last = index == len(self.events) - 1
            out.append(
                EventOut(
                    after_version + 1 + index,
                    event.type,
                    seat,
                    payload,
                    self.time_ms,
                    self.receipt if last else None,
                    description,
                )
            )
        return tuple(out)


def is_game_event(event_type: str) -> bool:
    return event_type not in GATEWAY_EVENTS


def receipt_of(entry: StoredEvent) -> Receipt | None:
    if not entry.receipt:
        return None
    try:
        return decode_receipt(entry.receipt)
    except (msgspec.DecodeError, ValueError):
        return None


class TakenBackBeforeBase(Exception):
    """A fold from a snapshot met an undo of versions before the snapshot: replay from setup."""


class _InFlight:
    """`with`: one more of `key` in `counts` for the block (a class: it wraps every append, where
    a generator-based context manager cost a measurable share of the event loop; issue 45)."""

    __slots__ = ("_counts", "_key")

    def __init__(self, counts: dict[MatchKey, int], key: MatchKey) -> None:
        self._counts, self._key = counts, key

    def __enter__(self) -> None:
        self._counts[self._key] = self._counts.get(self._key, 0) + 1

    def __exit__(self, *_: object) -> None:
        left = self._counts[self._key] - 1
        if left:
            self._counts[self._key] = left
        else:
            del self._counts[self._key]


class MatchStore:
    """The shared core: a per-replica cache of each match's latest state over the event
    store; loading, replaying, folding and appending, for every use case."""

    # Wiring sets it: told of every match an append here ended (its quota place is released).
    on_ended: Callable[[MatchKey], Awaitable[None]] | None = None
    # Wiring sets it: usage for billing, counted in memory per append, per game (issue 43:
    # gateway.admin.usage.UsageMeter.count_append).
    usage: Any = None

    def __init__(
        self,
        redis: Any,
        rules: Mapping[str, AsyncRulesClient] | RulesDirectory,
        keyring: KeyRing,
        *,
        timers: TimerPort | None = None,
        clock: Callable[[], int] = wall_clock_ms,
        cache_mb: float = DEFAULT_CACHE_MB,
        fresh_reads: bool = True,
        archive: Callable[[MatchKey], Awaitable[Any]] | None = None,
        snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
        bundles: BundleStore | None = None,
    ) -> None:
        """`snapshot_every`: an append writes the match's snapshot when its new version reaches
        a multiple of it, ends the match or creates it (see `_append`). `fresh_reads=False`
        trusts the cached state for views when `observe_append` is fed by
        the replica's gh:notify subscription: a view may then trail another replica's append by
        the notification's delay (never a decision: appends check the version), and a GetView
        costs no Redis round trip."""
        self.store = redis if isinstance(redis, AsyncRedisEventStore) else AsyncRedisEventStore(redis)
        # Issue 40: the rules client for a match's own version (gateway/rules_directory.py); a
        # plain mapping is one client per game, whatever version it serves.
        self.rules: RulesDirectory | StaticRules = (
            rules if isinstance(rules, RulesDirectory) else StaticRules(rules)
        )
        self.keyring = keyring
        self.timers = timers
        self.clock = clock
        self.fresh_reads = fresh_reads
        # Finished matches moved out of Redis (gateway.archive.load_async): replay, audit and
        # raw reads find them there; play does not (they are over).
        self.archive = archive
        # Rules versions no longer deployed, for audits (issue 40; gateway/rules_bundles.py).
        self.bundles = bundles
        if snapshot_every < 1:
            raise ValueError(f"snapshot_every must be >= 1, got {snapshot_every}")
        self.snapshot_every = snapshot_every
        # Issue 40: the live matches of each (game, rules version), for operators.
        self.pinned = PinnedMatches(self.store.client)
        # Bounded by `cache_mb` MiB between them, each by its share (gateway/usecases/cache.py).
        self.caches = Caches.within(int(cache_mb * MB))
        self._cache = self.caches.states
        self._redacted = self.caches.redacted  # (key, seat, first, last) -> events: watchers share
        self._views = self.caches.views  # (key, version, head, seat) -> MatchView
        # Fan-out (views.py): each match's last append made here, (first, last, head), whose
        # events every viewer finds in _redacted; and stream reads in flight, shared by seats.
        self._appended = self.caches.appended
        self._reads = self.caches.reads
        self._repairs: set[asyncio.Task[None]] = set()  # after-append work being retried
        self._appending: dict[MatchKey, int] = {}  # matches with appends in flight here, how many
        self._deciding = MatchTurns()  # one seat's action decided at a time per match (PlayUseCases)

    def _client(self, match: Match) -> AsyncRulesClient:
        """The rules of the match's own version: a dict lookup (the version is in the cached
        match), never a Redis call; RulesNotDeployed / RulesNotAnswering when none answers."""
        client: AsyncRulesClient = self.rules.client(match.game, match.rules_version)
        return client

    async def _rules_call(self, match: Match, method: str, *args: Any, **kwargs: Any) -> Any:
        """`method(*args, **kwargs)` of the match's rules client. FAILED_PRECONDITION from it means
        the target serves another version than it did (redeployed in place): it is re-probed and
        the call answered UNAVAILABLE, never repeated on other rules (issue 40: a match mixed)."""
        try:
            return await getattr(self._client(match), method)(*args, **kwargs)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            self.rules.suspect(match.game, match.rules_version)
            raise RulesNotAnswering(
                match.game,
                match.rules_version,
                f"the target routed for rules {match.rules_version} of {match.game} serves other "
                "rules now; it is being re-probed: retry",
            ) from None

    def public_keys(self) -> list[PublicKey]:
        return self.keyring.public_keys()

    def forget(self, key: MatchKey) -> None:
        """Drop the cached state (tests; or a watcher learnt of a newer version elsewhere)."""
        self._cache.pop(key, None)

    def _appending_to(self, key: MatchKey) -> _InFlight:
        """An append of this replica to `key` in flight, for the block (`observe_append`)."""
        return _InFlight(self._appending, key)

    def observe_append(self, key: MatchKey, version: int) -> None:
        """Another replica appended `version`: a cached older state is stale, drop it. Not while
        this replica appends to the match (`_appending_to`): Redis's notification of that append
        usually arrives before its answer, and dropping the state it was decided on made the
        match's next load (another seat's action meanwhile) read the snapshot and fold the events
        after it through the rules service (issue 45). The append's answer settles the cache: its
        state, or none on a conflict (another replica's append came first)."""
        if key in self._appending:
            return
        cached = self._cache.get(key)
        if cached is not None and cached.version < version:
            self._cache.pop(key, None)

    # -- loading -----------------------------------------------------------------------------------

    async def _load(self, key: MatchKey, *, fresh: bool = False) -> Match:
        """The match at its latest version: the cache, else meta + snapshot in one round trip."""
        if not fresh:
            cached = self._cache.get_fresh(key)
            if cached is not None:
                return cached  # type: ignore[no-any-return]
        loaded = await self.store.load(key)
        meta = loaded.meta
        if not meta or "seed" not in meta:
            self._cache.pop(key, None)
            raise MatchNotFound(f"no match {key.match_id!r}")
        base = self._base(key, meta)
        match = await self._from_snapshot(base, meta, loaded.snapshot)
        if match is None:
            match = await self._replay(base, None)
        if match.version != base.version:
            # Meta's undo stack holds at meta's version: an append landed between the reads, and
            # until the next load nothing may be taken back (never a take-back it does not allow).
            match = replace(match, undo=NOTHING)
        self._cache.put(key, match)
        return match

    async def _at_version(self, key: MatchKey, version: int) -> Match:
        """The match as it was at `version` (what an undo restores): the snapshot and the events
        after it up to there, in one Apply call, or a replay from setup when the snapshot is
        past that version. Not cached: the cache holds the latest version only."""
        loaded = await self.store.load(key)
        if not loaded.meta or "seed" not in loaded.meta:
            raise MatchNotFound(f"no match {key.match_id!r}")
        base = self._base(key, loaded.meta)
        match = await self._from_snapshot(base, loaded.meta, loaded.snapshot, up_to=version)
        return match if match is not None else await self._replay(base, version)

    async def _check_fresh(self, match: Match) -> bool:
        """Whether the cached match is still the latest (one round trip); drops it if not."""
        head = await self.store.head(match.key)
        if head == (match.version, match.head):
            return True
        self.notice_store_version(match.key, match.version, head[0])
        self._cache.pop(match.key, None)
        return False

    def _base(self, key: MatchKey, meta: Mapping[str, str]) -> Match:
        seconds = float(meta.get("timer_seconds") or 0)
        timer = TimerPolicy(seconds, meta.get("timer_policy") or RANDOM_ACTION) if seconds > 0 else None
        return Match(
            key=key,
            game=meta["game"],
            players=tuple(msgspec.json.decode(meta["players"], type=list[str])),
            seed=bytes.fromhex(meta["seed"]),
            commitment=meta.get("seed_commitment", ""),
            created_ms=int(meta.get("created_ms") or 0),
            timer=timer,
            version=int(meta["version"]),
            head=meta["head_hash"],
            state=rules_pb2.GameState(),
            status=Status((), False),
            bots=tuple(sorted(msgspec.json.decode(meta.get("bots") or "{}", type=dict[int, str]).items())),
            undo=decode_stack(meta.get("undo")),
            policy=int(meta.get("policy") or 0),
            # Matches created before issue 40 have none in meta: the snapshot's, else the stream's.
            rules_version=meta.get("rules_version", ""),
        )

    async def _from_snapshot(
        self, base: Match, meta: Mapping[str, str], snap: Mapping[str, bytes], up_to: int | None = None
    ) -> Match | None:
        """The snapshot, if it is this match's at a version of this chain, plus newer events (up
        to version `up_to` when given: None when the snapshot is past it)."""
        if not snap:
            return None
        key = base.key
        try:
            version = int(snap["version"])
            rules_version = snap["rules_version"].decode()
            state_bytes = snap["state"]
            head = snap["head_hash"].decode()
            message = snapshot_message(key.tenant, key.match_id, version, head, rules_version, state_bytes)
            trusted = self.keyring.check_mac(snap["key_id"].decode(), message, snap["mac"])
            body = SNAPSHOT_DECODER.decode(state_bytes)
        except (KeyError, ValueError, msgspec.DecodeError):
            trusted = False
        if not trusted or version > base.version:
            _log.warning("snapshot of %s/%s is not this match's: replaying", key.tenant, key.match_id)
            return None
        if up_to is not None and version > up_to:
            return None
        if base.rules_version and rules_version != base.rules_version:
            # Made by other rules than the match's (before a move): replay under the match's own.
            _log.info("snapshot of %s/%s is of rules %s: replaying", key.tenant, key.match_id, rules_version)
            return None
        newer: list[StoredEvent] = []
        if version == base.version:
            if head != base.head:
                _log.warning("snapshot of %s/%s is off the chain: replaying", key.tenant, key.match_id)
                return None
        else:
            # Up to `up_to` and one entry past it: its prev_hash shows the snapshot is on the chain.
            limit = None if up_to is None else up_to - version + 1
            newer = await self.store.read(key, after_version=version, limit=limit)
            if not newer or newer[0].prev_hash != head:
                _log.warning("snapshot of %s/%s is off the chain: replaying", key.tenant, key.match_id)
                return None
            newer = [e for e in newer if up_to is None or e.version <= up_to]
        state = rules_pb2.GameState(game_id=base.game, rules_version=rules_version, state=body.state)
        match = replace(
            base,
            rules_version=rules_version,
            version=version,
            head=head,
            state=state,
            status=Status(body.active_players, body.finished, body.outcome),
            resigned=frozenset(body.resigned),
            ended=body.ended,
            outcome=body.outcome,
            away=frozenset(body.away),
            unclaimed=frozenset(body.unclaimed),
        )
        if newer:
            try:
                match = await self._fold(match, newer)
            except TakenBackBeforeBase:
                return None  # an undo after the snapshot reaches before it: replay
        return match

    async def _replay(self, base: Match, up_to: int | None, source: Entries | None = None) -> Match:
        """Rebuild the state from the stream alone, from setup."""
        events: list[StoredEvent] = []
        async for event in decoded(source if source is not None else self.store.raw_entries(base.key)):
            if up_to is not None and event.version > up_to:
                break
            events.append(event)
        if not events or events[0].type != MATCH_CREATED:
            raise MatchNotFound(f"no match {base.key.match_id!r}")
        created = msgspec.json.decode(events[0].payload, type=MatchCreated)
        # The match's version: meta's, else the last one its stream moved to, else its first.
        version = base.rules_version or next(
            (e.rules_version for e in reversed(events) if e.type == RULES_VERSION_MOVED),
            events[0].rules_version,
        )
        base = replace(base, rules_version=version)
        state, status = await self._rules_call(
            base, "setup", created.players, base.seed, bytes(created.options)
        )
        start = replace(
            base,
            version=1,
            head=events[0].hash,
            state=state,
            status=status,
            resigned=frozenset(),
            away=frozenset(),
            unclaimed=frozenset(created.awaiting),
            ended=False,
            outcome=b"",
        )
        return await self._fold(start, events[1:])

    async def _fold(self, match: Match, events: Sequence[StoredEvent]) -> Match:
        """Apply stored events: game events through the rules service, the gateway's here; the
        entries an action_undone among them takes back are skipped (gateway/domain/undo.py).
        TakenBackBeforeBase when one takes back versions `match` already holds."""
        gone = taken_back(events)
        if gone and min(gone) <= match.version:
            raise TakenBackBeforeBase(
                f"versions from {min(gone)} are taken back, the fold starts after {match.version}"
            )
        game_events = [
            Event(e.type, e.payload) for e in events if is_game_event(e.type) and e.version not in gone
        ]
        state, status = match.state, match.status
        if game_events:
            state, status = await self._rules_call(match, "apply", state, game_events)
        seating, ended, outcome = match.seating, match.ended, match.outcome
        for event in events:
            if is_game_event(event.type) or event.version in gone:
                continue
            decoded = GATEWAY_EVENT_DECODER.decode(event.payload)
            if isinstance(decoded, MatchEnded):
                ended, outcome = True, bytes(decoded.outcome)
            else:
                seating = seating.after(decoded)
        if not ended and status.finished:
            outcome = status.outcome
        return replace(
            match,
            version=events[-1].version if events else match.version,
            head=events[-1].hash if events else match.head,
            state=state,
            status=status,
            resigned=seating.resigned,
            away=seating.away,
            unclaimed=seating.unclaimed,
            ended=ended,
            outcome=outcome,
        )

    async def _stream(self, key: MatchKey, meta: dict[str, str]) -> tuple[dict[str, str], Entries | None]:
        """Meta and entries of a match: Redis's (None: read them there), else its archive's."""
        if meta:
            return meta, None
        archived = await self.archive(key) if self.archive is not None else None
        if archived is None:
            raise MatchNotFound(f"no match {key.match_id!r}")

        async def entries() -> Entries:
            for number, fields in enumerate(archived.entries, start=1):
                yield f"{number}-0".encode(), {name.encode(): value for name, value in fields.items()}

        return dict(archived.meta), entries()

    # -- appending ---------------------------------------------------------------------------------

    async def _append(
        self,
        match: Match,
        events: list[NewEvent],
        *,
        actor: str,
        command_id: str,
        state: rules_pb2.GameState,
        status: Status,
        action: bytes = b"",
        meta: Mapping[str, str] | None = None,
        close_unclaimed: bool = False,
        command_digest: str = "",
        snapshot_now: bool = False,
        undoable: bool = False,
        undo: UndoStack | None = None,
    ) -> Appended:
        """Append at the match's version and head; end the match in the same append when the
        rules say it is over, too few seats are left, or (`close_unclaimed`) a table is closed
        before its seats were claimed. `command_digest`: the action a seat's command id is used
        for (eventstore.base.action_digest), "" for the gateway's own. `snapshot_now`: write the
        snapshot whatever the version (a move to other rules: loads then need no replay).
        `undoable`: the rules called the action undoable; `undo`: the undo stack after this
        append when the caller knows it (a take-back pops it), else it follows from the actor and
        `undoable` (gateway/domain/undo.py). A take-back also writes the snapshot, so later loads
        need not replay across it."""
        seating = match.seating
        for event in events:
            if not is_game_event(event.type):
                seating = seating.after(GATEWAY_EVENT_DECODER.decode(event.payload))
        resigned = seating.resigned
        ended, outcome, end_reason = False, b"", ""
        if close_unclaimed:
            ended, outcome, end_reason = True, unclaimed_outcome(), UNCLAIMED
        elif status.finished:
            outcome = status.outcome
            if match.policy >= 1:
                outcome = standing_outcome(outcome, match.seats, seating)
            ended, end_reason = True, FINISHED
        elif should_end_by_resignation(match.seats, resigned) and match.version > 0:
            ended, outcome, end_reason = True, resignation_outcome(match.seats, resigned), RESIGNED
        if seating.away != match.away:  # the bot worker checks a seat is away before playing it
            meta = {**(meta or {}), "away": JSON.encode(sorted(seating.away)).decode()}
        if ended:
            ending = MatchEnded(end_reason, msgspec.Raw(outcome), match.seed.hex())
            events = [*events, NewEvent(MATCH_ENDED, JSON.encode(ending))]
            meta = {**(meta or {}), "finished": "1"}
        key = match.key
        time_ms = self.clock()
        rules_version = state.rules_version
        hashes = entry_hashes(match.head, match.version, events, actor, command_id, rules_version, time_ms)
        last, head = match.version + len(events), hashes[-1]
        if undo is None:
            undo = match.undo.after(actor, match.version + 1, last, undoable and not ended)
        # Written with every append (a cache of the stream, like the snapshot): never left stale.
        meta = {**(meta or {}), "undo": encode_stack(undo)}
        key_id, signature = self.keyring.sign(receipt_message(key.tenant, key.match_id, last, head))
        receipt = Receipt(key_id, last, head, signature)
        snapshot: dict[str, str | bytes] | None = None
        # A snapshot when the append creates the match, ends it, takes a move back, or reaches a
        # multiple of K versions: a load folds at most K - 1 newer events (issue 25 item 4).
        every = last // self.snapshot_every > match.version // self.snapshot_every
        if match.version == 0 or ended or snapshot_now or every or events[0].type == ACTION_UNDONE:
            body = ENCODER.encode(
                SnapshotBody(
                    state.state, status.active_players, status.finished, outcome or status.outcome,
                    tuple(sorted(resigned)), ended, tuple(sorted(seating.away)),
                    tuple(sorted(seating.unclaimed)),
                )
            )  # fmt: skip
            mac_key, mac = self.keyring.mac(
                snapshot_message(key.tenant, key.match_id, last, head, rules_version, body)
            )
            snapshot = {
                "rules_version": rules_version,
                "head_hash": head,
                "key_id": mac_key,
                "mac": mac,
                "state": body,  # last: the largest argument (see APPEND_SCRIPT)
            }
        extra: list[dict[str, bytes]] = [{} for _ in events]
        if action:
            extra[0]["action"] = action
        extra[-1]["receipt"] = encode_receipt(receipt)
        try:
            result = await self.store.append(
                key,
                match.version,
                match.head,
                events,
                actor=actor,
                command_id=command_id,
                rules_version=rules_version,
                time_ms=time_ms,
                snapshot=snapshot,
                meta=meta,
                extra=extra,
                hashes=hashes,
                command_digest=command_digest,
            )
        except NotReplicated:
            # Maybe stored, maybe lost in a failover: the next load decides from the store.
            metrics.NOT_REPLICATED.inc()
            self._cache.pop(key, None)
            raise
        if result.status != OK:
            if result.status == CONFLICT:
                metrics.APPEND_CONFLICTS.inc()
                self.notice_store_version(key, match.version, result.first)
                # Another replica's append (this replica's seats take turns: gateway/usecases/turns.py)
                # or one of the gateway's own events: the cached state is stale.
                self._cache.pop(key, None)
                return Appended(None, None, CONFLICT, time_ms, events, stored_version=result.first)
            return Appended(None, None, result.status, time_ms, events)
        if self.usage is not None:
            self.usage.count_append(key.tenant, match.game, match.version, events, actor, time_ms)
        new = replace(
            match,
            version=last,
            head=head,
            state=state,
            status=status,
            resigned=resigned,
            away=seating.away,
            unclaimed=seating.unclaimed,
            ended=ended,
            outcome=outcome,
            undo=undo,
        )
        cached = self._cache.get(key)
        if cached is None or cached.version < new.version:  # a racing coroutine may be ahead
            self._cache.put(key, new)
        if ended:
            await self.after_append(key, "index_ended", lambda: self._index_ended(new))
        return Appended(new, receipt, OK, time_ms, events)

    async def _index_ended(self, match: Match) -> None:
        key = match.key
        await self.store.index_ended(key)
        await self.pinned.unpin(key, match.game, match.rules_version)
        await index_finished(self.store.client, key, self.clock())  # for retention (gateway/retention.py)
        if self.timers is not None:
            await self.timers.disarm(key)
        if self.on_ended is not None:  # however it ended (a timer, a resigned seat's move, a sweep)
            await self.on_ended(key)

    async def after_append(self, key: MatchKey, what: str, work: Callable[[], Awaitable[Any]]) -> None:
        """Work that follows a successful append: it must never turn the acknowledged action into
        a failure (issue 24). A store or rules fault here is logged and the work retried in the
        background (each step is idempotent); a bug of ours still raises."""
        try:
            await work()
        except Exception as error:
            if not _transient(error):
                raise
            _log.warning("%s after the append to %s failed (%s); retrying later", what, key, error)
            task = asyncio.create_task(self._repair(key, what, work), name=f"repair {what} {key}")
            self._repairs.add(task)
            task.add_done_callback(self._repairs.discard)

    async def _repair(self, key: MatchKey, what: str, work: Callable[[], Awaitable[Any]]) -> None:
        for delay in REPAIR_BACKOFF_S:
            await asyncio.sleep(delay)
            try:
                await work()
            except Exception as error:
                if not _transient(error):
                    _log.exception("%s after the append to %s failed", what, key)
                    break
                continue
            metrics.AFTER_APPEND_REPAIRS.labels("repaired").inc()
            return
        metrics.AFTER_APPEND_REPAIRS.labels("given_up").inc()
        _log.error("%s after the append to %s still failing; left for the next append or timer", what, key)

    def notice_store_version(self, key: MatchKey, acknowledged: int, stored: int) -> None:
        """The store holds `stored` where this replica acknowledged `acknowledged`: if it went
        backwards (a lost write), say so loudly and count it; the caller drops the cache and
        decides afresh from the store, never appending over it unnoticed."""
        if stored < acknowledged:
            metrics.STORE_REGRESSIONS.inc()
            _log.error(
                "the event store went backwards for %s: version %d acknowledged here, %d stored "
                "(a write lost in a failover?); dropping the cached state",
                key, acknowledged, stored,
            )  # fmt: skip

    async def _arm(self, match: Match, asked_ms: int | None = None) -> None:
        """Start the clock of every seat the match now waits for: from now, or from `asked_ms`
        (a take-back gives the seats back the clock they had, never a fresh one)."""
        if self.timers is None or match.timer is None or match.ended:
            return
        deadline = match.timer.deadline_ms(self.clock() if asked_ms is None else asked_ms)
        timers, policy = self.timers, match.timer.policy
        await asyncio.gather(
            *(timers.arm(match.key, match.version, s, deadline, policy) for s in match.waiting_seats())
        )
