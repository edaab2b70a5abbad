"""Match use cases, asyncio end to end: create, view, submit, resign, timers, watch reads,
replay, audit, listing.

They take their ports (a Redis client, an async rules client per game, the signing keys, the
turn timers) and keep only a per-replica cache of each match's latest state, so any gateway
replica can serve any match: correctness comes from the append script, which checks the
version and chain head the decision was made on, never from sticky routing.

The hot path of an accepted action with a warm cache is one rules call (Validate, which also
returns the next state and the events as the actor sees them) and one Redis round trip (the
append script); a cold cache adds one round trip (meta and snapshot, pipelined).

Decisions (question -> decision):
- Where does the seed live before the end? In the match's meta hash (server side only); the
  stream holds only its commitment until `match_ended` reveals it, so `raw_events` (auditor
  scope) never shows an unfinished match's seed.
- How can an audit re-execute a stream of events? The action that caused an append is stored
  beside the chain on its first entry (`action`), and Validate on the re-executed state must
  give exactly the recorded events; a forgery re-signed with the gateway's own key still fails.
- One receipt per append (on its last entry): it signs the head, which commits to every entry
  before it; the audit pins a failure to the first entry after the last valid receipt.
- A resigned seat in a match that goes on: the gateway makes its decisions (a legal action
  chosen by the seed-keyed generator of `gateway.domain.timers.timeout_choice`), appended as
  "gateway:seat:N"; when one seat (or none) is left, the match ends and the seats left win.
- The gateway's own events (match_created, seat_resigned, turn_timed_out, match_ended) are
  public and shown as stored; game events go through the rules service's redaction.
- Gateway command ids ("gw create", "gw auto <v> <seat>", "gw timer <v> <seat>") contain spaces,
  which client command ids cannot, so a client can never take one first.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeAlias

import grpc
import msgspec
from guildhall.rules.v1 import rules_pb2

from gateway import metrics
from gateway.domain.match import (
    ENCODER,
    FINISHED,
    GATEWAY,
    GATEWAY_EVENT_DECODER,
    GATEWAY_EVENTS,
    JSON,
    MATCH_CREATED,
    MATCH_ENDED,
    RESIGNED,
    SEAT_RESIGNED,
    SNAPSHOT_DECODER,
    TURN_TIMED_OUT,
    MatchCreated,
    MatchEnded,
    SeatResigned,
    SnapshotBody,
    TurnTimedOut,
    TurnTimerSpec,
    acting_seat,
    actor_seat,
    on_behalf_actor,
    resignation_outcome,
    seat_actor,
    should_end_by_resignation,
)
from gateway.domain.receipts import (
    Receipt,
    decode_receipt,
    encode_receipt,
    receipt_message,
    seed_commitment,
    seed_matches,
    snapshot_message,
)
from gateway.domain.timers import FORFEIT, RANDOM_ACTION, TimerPolicy, timeout_choice
from gateway.eventstore.async_redis import (
    CONFLICT,
    DUPLICATE,
    OK,
    TAKEN,
    AsyncRedisEventStore,
    entry_hashes,
)
from gateway.eventstore.base import (
    GENESIS,
    MatchKey,
    NewEvent,
    StoredEvent,
    chain_hash,
    wall_clock_ms,
)
from gateway.eventstore.redis_store import MalformedEntry, decode_entry, match_keys
from gateway.rules_client import Accepted, AsyncRulesClient, Event, SeatView, Status
from gateway.signing import KeyRing, PublicKey
from services.kernel import (
    GAME_OVER,
    NOT_YOUR_TURN,
    STALE_VERSION,
    UNKNOWN_PLAYER,
    Rejection,
)
from services.kernel.rejection import COMMAND_ID_IN_USE

_log = logging.getLogger(__name__)

SEED_BYTES = 32  # 256 bits from the OS CSPRNG: no player can search the seed space from a view
CONFLICT_RETRIES = 5  # replicas racing on one match: the loser reloads and decides again
AUTO_PLAY_LIMIT = 10_000  # resigned seats' moves played in one go, at most (a safety bound)
# Command ids the gateway uses for its own appends contain spaces, which client command ids
# (printable ASCII without spaces) never do: a client can never take one of them first.
_CREATE_COMMAND = "gw create"


class MatchNotFound(LookupError):
    """No such match for this tenant (also another tenant's match: never a hint it exists)."""


class MatchExists(ValueError):
    """A match with this id exists with other settings (game or players)."""


class UnknownGame(LookupError):
    """No rules service is configured for this game."""


class ContendedMatch(RuntimeError):
    """The match kept changing under us; the client may retry (gRPC ABORTED)."""


class InvalidRequest(ValueError):
    """The request names something that cannot be (a seat the match lacks, a version beyond it)."""


class TimerPort(Protocol):
    """Durable turn timers (gateway.timers.TurnTimers)."""

    async def arm(self, key: MatchKey, version: int, seat: int, deadline_ms: int, policy: str) -> None: ...

    async def disarm(self, key: MatchKey) -> None: ...


# -- what the use cases return ---------------------------------------------------------------------


@dataclass(frozen=True)
class EventOut:
    """An event as one viewer may see it; actor is the seat, or -1 for the gateway."""

    version: int
    type: str
    actor: int
    payload_json: bytes
    time_ms: int
    receipt: Receipt | None = None


@dataclass(frozen=True)
class MatchView:
    game: str
    match_id: str
    version: int
    seat: int | None
    view_json: bytes
    legal_actions: list[bytes]
    active_seats: list[int]
    finished: bool
    outcome_json: bytes
    players: tuple[str, ...] = ()
    resigned: tuple[int, ...] = ()

    @property
    def seat_count(self) -> int:
        return len(self.players)


@dataclass(frozen=True)
class SubmitOutcome:
    accepted: bool
    rejection: Rejection | None = None
    version: int = 0
    events: list[EventOut] = field(default_factory=list)
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


# -- the cached match --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Match:
    """What a decision needs, at one version (immutable: a new version is a new _Match)."""

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

    @property
    def seats(self) -> int:
        return len(self.players)

    def waiting_seats(self) -> list[int]:
        """Seats that owe a decision and can still make it."""
        if self.ended:
            return []
        return [s for s in self.status.active_players if s not in self.resigned]


# Stream entries with their ids, as XRANGE gives them (or an archive, numbered in order).
_Entries: TypeAlias = AsyncIterator[tuple[bytes, dict[bytes, bytes]]]


class _Lru(OrderedDict[Any, Any]):
    def __init__(self, capacity: int) -> None:
        super().__init__()
        self.capacity = capacity

    def get_fresh(self, key: Any) -> Any:
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def put(self, key: Any, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.capacity:
            self.popitem(last=False)


@dataclass(frozen=True)
class _Appended:
    """An append's result: the new match (None unless `status` is ok), its receipt, the events
    written (the match_ended the append added included) and their time."""

    match: _Match | None
    receipt: Receipt | None
    status: str
    time_ms: int
    events: list[NewEvent]

    def out(self, after_version: int, actor: str, shown_game_events: Sequence[Event]) -> list[EventOut]:
        """The appended events for the caller: game events as shown to it (already redacted
        by the rules service), the gateway's events as written; the receipt on the last."""
        shown = list(shown_game_events)
        seat = acting_seat(actor)
        out = []
        for index, event in enumerate(self.events):
            payload = shown.pop(0).json if _is_game_event(event.type) else event.payload
            last = index == len(self.events) - 1
            out.append(
                EventOut(
                    after_version + 1 + index,
                    event.type,
                    seat,
                    payload,
                    self.time_ms,
                    self.receipt if last else None,
                )
            )
        return out


def _stale(expected: int, actual: int) -> Rejection:
    return Rejection(
        STALE_VERSION, f"the match is at version {actual}, not {expected}: reload and decide again"
    )


def _rejected(rejection: Rejection, game: str = "") -> SubmitOutcome:
    return SubmitOutcome(accepted=False, rejection=rejection, game=game)


def _is_game_event(event_type: str) -> bool:
    return event_type not in GATEWAY_EVENTS


class GameMatches:
    """The match use cases over Redis and the rules services, by game id."""

    def __init__(
        self,
        redis: Any,
        rules: Mapping[str, AsyncRulesClient],
        keyring: KeyRing,
        *,
        timers: TimerPort | None = None,
        clock: Callable[[], int] = wall_clock_ms,
        cache_size: int = 10_000,
        fresh_reads: bool = True,
        archive: Callable[[MatchKey], Awaitable[Any]] | None = None,
    ) -> None:
        """`fresh_reads=False` trusts the cached state for views when `observe_append` is fed by
        the replica's gh:notify subscription: a view may then trail another replica's append by
        the notification's delay (never a decision: appends check the version), and a GetView
        costs no Redis round trip."""
        self.store = redis if isinstance(redis, AsyncRedisEventStore) else AsyncRedisEventStore(redis)
        self.rules = dict(rules)
        self.keyring = keyring
        self.timers = timers
        self.clock = clock
        self.games = frozenset(self.rules)
        self.fresh_reads = fresh_reads
        # Finished matches moved out of Redis (gateway.archive.load_async): replay, audit and
        # raw reads find them there; play does not (they are over).
        self.archive = archive
        self._cache = _Lru(cache_size)
        self._redacted = _Lru(4 * cache_size)  # (key, seat, first, last) -> events: watchers share
        self._views = _Lru(4 * cache_size)  # (key, version, head, seat) -> MatchView

    def _client(self, game: str) -> AsyncRulesClient:
        try:
            return self.rules[game]
        except KeyError:
            raise UnknownGame(f"this gateway serves no game {game!r}") from None

    def public_keys(self) -> list[PublicKey]:
        return self.keyring.public_keys()

    def forget(self, key: MatchKey) -> None:
        """Drop the cached state (tests; or a watcher learnt of a newer version elsewhere)."""
        self._cache.pop(key, None)

    def observe_append(self, key: MatchKey, version: int) -> None:
        """Another replica appended `version`: a cached older state is stale, drop it."""
        cached = self._cache.get(key)
        if cached is not None and cached.version < version:
            self._cache.pop(key, None)

    # -- create ----------------------------------------------------------------------------------

    async def create(
        self,
        tenant: str,
        game: str,
        players: Sequence[str],
        options_json: bytes = b"",
        *,
        match_id: str | None = None,
        seed: bytes | None = None,
        command_id: str | None = None,
        turn_timer: TimerPolicy | None = None,
        created_by: str = "",
    ) -> Created:
        """Set up a match and open its stream with `match_created` (public: the seed's
        commitment, never the seed). Idempotent on match_id: the same game and players again
        return the existing match (matchmaking may retry a pairing from another replica)."""
        client = self._client(game)
        key = MatchKey(tenant, match_id or uuid.uuid4().hex)
        players = tuple(players)
        if seed is None:
            seed = secrets.token_bytes(SEED_BYTES)
        if not 1 <= len(seed) <= SEED_BYTES:
            raise InvalidRequest(f"a seed is 1 to {SEED_BYTES} bytes")
        options = options_json or b"{}"
        state, status = await client.setup(len(players), seed, options)
        commitment = seed_commitment(seed)
        timer = turn_timer if turn_timer is not None and turn_timer.enabled else None
        created = MatchCreated(
            game_id=game,
            rules_version=state.rules_version,
            players=len(players),
            seed_commitment=commitment,
            options=msgspec.Raw(options),
            player_ids=players,
            turn_timer=TurnTimerSpec(timer.seconds, timer.policy) if timer else None,
        )
        now = self.clock()
        meta = {
            "game": game,
            "players": JSON.encode(list(players)).decode(),
            "seats": str(len(players)),
            "seed": seed.hex(),
            "seed_commitment": commitment,
            "created_ms": str(now),
            "created_by": created_by,
            "finished": "0",
            "timer_seconds": str(timer.seconds if timer else 0),
            "timer_policy": timer.policy if timer else "",
        }
        match = _Match(key, game, players, seed, commitment, now, timer, 0, GENESIS, state, status)
        command = command_id or _CREATE_COMMAND
        appended = await self._append(
            match,
            [NewEvent(MATCH_CREATED, JSON.encode(created))],
            actor=GATEWAY,
            command_id=command,
            state=state,
            status=status,
            meta=meta,
        )
        new, receipt, outcome = appended.match, appended.receipt, appended.status
        if outcome == OK:
            assert new is not None
            await self.store.index_created(key, now)
            await self._arm(new)
            return Created(key, game, players, new.version, commitment, True, receipt)
        # The match exists: the same create retried, or another replica's identical pairing.
        existing = await self._load(key, fresh=True)
        if existing.game == game and existing.players == players:
            await self.store.index_created(key, existing.created_ms)  # in case the first died here
            return Created(key, game, existing.players, existing.version, existing.commitment, False)
        raise MatchExists(f"match {key.match_id!r} already exists with another game or players")

    # -- loading -----------------------------------------------------------------------------------

    async def _load(self, key: MatchKey, *, fresh: bool = False) -> _Match:
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
        self._cache.put(key, match)
        return match

    def _base(self, key: MatchKey, meta: Mapping[str, str]) -> _Match:
        seconds = float(meta.get("timer_seconds") or 0)
        timer = TimerPolicy(seconds, meta.get("timer_policy") or RANDOM_ACTION) if seconds > 0 else None
        return _Match(
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
        )

    async def _from_snapshot(
        self, base: _Match, meta: Mapping[str, str], snap: Mapping[str, bytes]
    ) -> _Match | None:
        """The snapshot, if it is this match's at a version of this chain, plus newer events."""
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
        newer: list[StoredEvent] = []
        if version == base.version:
            if head != base.head:
                _log.warning("snapshot of %s/%s is off the chain: replaying", key.tenant, key.match_id)
                return None
        else:
            newer = await self.store.read(key, after_version=version)
            if not newer or newer[0].prev_hash != head:
                _log.warning("snapshot of %s/%s is off the chain: replaying", key.tenant, key.match_id)
                return None
        state = rules_pb2.GameState(game_id=base.game, rules_version=rules_version, state=body.state)
        match = replace(
            base,
            version=version,
            head=head,
            state=state,
            status=Status(body.active_players, body.finished, body.outcome),
            resigned=frozenset(body.resigned),
            ended=body.ended,
            outcome=body.outcome,
        )
        if newer:
            match = await self._fold(match, newer)
        return match

    async def _replay(self, base: _Match, up_to: int | None, source: _Entries | None = None) -> _Match:
        """Rebuild the state from the stream alone, from setup."""
        events: list[StoredEvent] = []
        async for _, fields in source if source is not None else self.store.raw_entries(base.key):
            event = decode_entry(fields)
            if up_to is not None and event.version > up_to:
                break
            events.append(event)
        if not events or events[0].type != MATCH_CREATED:
            raise MatchNotFound(f"no match {base.key.match_id!r}")
        created = msgspec.json.decode(events[0].payload, type=MatchCreated)
        state, status = await self._client(base.game).setup(
            created.players, base.seed, bytes(created.options)
        )
        start = replace(base, version=1, head=events[0].hash, state=state, status=status)
        return await self._fold(start, events[1:])

    async def _fold(self, match: _Match, events: Sequence[StoredEvent]) -> _Match:
        """Apply stored events: game events through the rules service, the gateway's here."""
        game_events = [Event(e.type, e.payload) for e in events if _is_game_event(e.type)]
        state, status = match.state, match.status
        if game_events:
            state, status = await self._client(match.game).apply(state, game_events)
        resigned, ended, outcome = set(match.resigned), match.ended, match.outcome
        for event in events:
            if event.type == SEAT_RESIGNED:
                resigned.add(msgspec.json.decode(event.payload, type=SeatResigned).seat)
            elif event.type == MATCH_ENDED:
                ended = True
                outcome = bytes(msgspec.json.decode(event.payload, type=MatchEnded).outcome)
        if not ended and status.finished:
            outcome = status.outcome
        return replace(
            match,
            version=events[-1].version if events else match.version,
            head=events[-1].hash if events else match.head,
            state=state,
            status=status,
            resigned=frozenset(resigned),
            ended=ended,
            outcome=outcome,
        )

    # -- appending ---------------------------------------------------------------------------------

    async def _append(
        self,
        match: _Match,
        events: list[NewEvent],
        *,
        actor: str,
        command_id: str,
        state: rules_pb2.GameState,
        status: Status,
        action: bytes = b"",
        resigned: frozenset[int] | None = None,
        meta: Mapping[str, str] | None = None,
    ) -> _Appended:
        """Append at the match's version and head; end the match in the same append when the
        rules say it is over or too few seats are left."""
        resigned = match.resigned if resigned is None else resigned
        ended, outcome, end_reason = False, b"", ""
        if status.finished:
            ended, outcome, end_reason = True, status.outcome, FINISHED
        elif should_end_by_resignation(match.seats, resigned) and match.version > 0:
            ended, outcome, end_reason = True, resignation_outcome(match.seats, resigned), RESIGNED
        if ended:
            ending = MatchEnded(end_reason, msgspec.Raw(outcome), match.seed.hex())
            events = [*events, NewEvent(MATCH_ENDED, JSON.encode(ending))]
            meta = {**(meta or {}), "finished": "1"}
        key = match.key
        time_ms = self.clock()
        rules_version = state.rules_version
        hashes = entry_hashes(match.head, match.version, events, actor, command_id, rules_version, time_ms)
        last, head = match.version + len(events), hashes[-1]
        key_id, signature = self.keyring.sign(receipt_message(key.tenant, key.match_id, last, head))
        receipt = Receipt(key_id, last, head, signature)
        body = ENCODER.encode(
            SnapshotBody(
                state.state, status.active_players, status.finished, outcome or status.outcome,
                tuple(sorted(resigned)), ended,
            )
        )  # fmt: skip
        mac_key, mac = self.keyring.mac(
            snapshot_message(key.tenant, key.match_id, last, head, rules_version, body)
        )
        extra: list[dict[str, bytes]] = [{} for _ in events]
        if action:
            extra[0]["action"] = action
        extra[-1]["receipt"] = encode_receipt(receipt)
        result = await self.store.append(
            key,
            match.version,
            match.head,
            events,
            actor=actor,
            command_id=command_id,
            rules_version=rules_version,
            time_ms=time_ms,
            snapshot={
                "rules_version": rules_version,
                "head_hash": head,
                "key_id": mac_key,
                "mac": mac,
                "state": body,  # last: the largest argument (see APPEND_SCRIPT)
            },
            meta=meta,
            extra=extra,
            hashes=hashes,
        )
        if result.status != OK:
            if result.status == CONFLICT:
                metrics.APPEND_CONFLICTS.inc()
                self._cache.pop(key, None)
            return _Appended(None, None, result.status, time_ms, events)
        new = replace(
            match,
            version=last,
            head=head,
            state=state,
            status=status,
            resigned=resigned,
            ended=ended,
            outcome=outcome,
        )
        cached = self._cache.get(key)
        if cached is None or cached.version < new.version:  # a racing coroutine may be ahead
            self._cache.put(key, new)
        if ended:
            await self.store.index_ended(key)
            if self.timers is not None:
                await self.timers.disarm(key)
        return _Appended(new, receipt, OK, time_ms, events)

    async def _arm(self, match: _Match) -> None:
        """Start the clock of every seat the match now waits for."""
        if self.timers is None or match.timer is None or match.ended:
            return
        deadline = match.timer.deadline_ms(self.clock())
        timers, policy = self.timers, match.timer.policy
        await asyncio.gather(
            *(timers.arm(match.key, match.version, s, deadline, policy) for s in match.waiting_seats())
        )

    # -- play --------------------------------------------------------------------------------------

    async def _decide(self, match: _Match, seat: int, action: bytes) -> tuple[_Match, Accepted | Rejection]:
        client = self._client(match.game)
        try:
            # The next seats' views come back too, so their GetView costs no rules call.
            return match, await client.validate(match.state, seat, action, return_views=True)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
        # The state was made by other rules (a rolling upgrade): rebuild it from the events.
        _log.info("state of %s made by other rules: replaying", match.key)
        match = await self._replay(replace(match, resigned=frozenset(), ended=False), None)
        self._cache.put(match.key, match)
        return match, await client.validate(match.state, seat, action, return_views=True)

    def _remember_views(self, match: _Match, views: Sequence[SeatView]) -> None:
        """Keep the views Validate returned with the next state, as get_view would make them."""
        waiting = match.waiting_seats()
        for seat_view in views:
            if seat_view.player in waiting:
                memo_key = (match.key, match.version, match.head, seat_view.player)
                view = self._match_view(
                    match, seat_view.player, seat_view.view, list(seat_view.legal_actions)
                )
                self._views.put(memo_key, view)

    async def _first_result(
        self, key: MatchKey, seat: int | None, command_id: str, *, actor: str
    ) -> SubmitOutcome | None:
        """A command id already used: its first result (for its own actor, redacted for the
        caller), or a rejection when another actor used it. None when it is unused."""
        seen = await self.store.command(key, command_id)
        if seen is None:
            return None
        first, last, used_by = seen
        if used_by != actor:
            return _rejected(
                Rejection(COMMAND_ID_IN_USE, "this command id was already used in this match by another seat")
            )
        match = await self._load(key)
        stored = await self.store.read_range(key, first, last)
        events = await self._redact(match, seat, stored)
        receipt = events[-1].receipt if events else None
        return SubmitOutcome(True, None, last, events, receipt, repeated=True, game=match.game)

    async def _check_fresh(self, match: _Match) -> bool:
        """Whether the cached match is still the latest (one round trip); drops it if not."""
        if await self.store.head(match.key) == (match.version, match.head):
            return True
        self._cache.pop(match.key, None)
        return False

    async def submit(
        self,
        key: MatchKey,
        seat: int,
        action_json: bytes,
        *,
        command_id: str,
        expected_version: int | None = None,
    ) -> SubmitOutcome:
        """One seat's action: decided by the rules service on the state at some version and
        appended at that version. A repeated command id from the same seat answers with its
        first result; from another seat it is refused (command_id_in_use)."""
        actor = seat_actor(seat)
        for _ in range(CONFLICT_RETRIES):
            match = await self._load(key)
            refusal = await self._precheck(match, seat, command_id, actor, expected_version)
            if refusal == "reload":
                continue
            if refusal is not None:
                assert isinstance(refusal, SubmitOutcome)
                return refusal
            match, decision = await self._decide(match, seat, action_json)
            if isinstance(decision, Rejection):
                # Said on the state we hold: make sure it is the latest, and not a retry.
                repeated = await self._first_result(key, seat, command_id, actor=actor)
                if repeated is not None:
                    return repeated
                if not await self._check_fresh(match):
                    continue
                return _rejected(decision, match.game)
            assert decision.state is not None and decision.status is not None
            appended = await self._append(
                match,
                [NewEvent(e.type, e.json) for e in decision.events],
                actor=actor,
                command_id=command_id,
                state=decision.state,
                status=decision.status,
                action=action_json,
            )
            status = appended.status
            if appended.match is not None:
                shown: Sequence[Event] = decision.redacted
                if decision.events and not decision.redacted:
                    # A rules service without return_redacted: never show raw events, ask View.
                    _, shown = await self._client(match.game).view(match.state, seat, decision.events)
                events = appended.out(match.version, actor, shown)
                self._remember_views(appended.match, decision.views)
                await self._after(appended.match)
                return SubmitOutcome(
                    True, None, appended.match.version, events, appended.receipt, game=match.game
                )
            if status in (DUPLICATE, TAKEN):
                repeated = await self._first_result(key, seat, command_id, actor=actor)
                if repeated is not None:
                    return repeated
                continue
            # CONFLICT: another replica appended first (or our head was stale).
            if expected_version is not None:
                fresh = await self._load(key, fresh=True)
                if fresh.version != expected_version:
                    return _rejected(_stale(expected_version, fresh.version), match.game)
        raise ContendedMatch(f"match {key.match_id!r} changed {CONFLICT_RETRIES} times while deciding; retry")

    async def _precheck(
        self, match: _Match, seat: int, command_id: str, actor: str, expected_version: int | None
    ) -> SubmitOutcome | str | None:
        """Refusals that need no rules call; "reload" when the cache was found stale."""
        if not 0 <= seat < match.seats:
            return _rejected(Rejection(UNKNOWN_PLAYER, f"the match has no seat {seat}"), match.game)
        problem: Rejection | None = None
        if expected_version is not None and expected_version != match.version:
            problem = _stale(expected_version, match.version)
        elif match.ended:
            problem = Rejection(GAME_OVER, "the match has ended")
        elif seat in match.resigned:
            problem = Rejection(NOT_YOUR_TURN, f"seat {seat} has resigned from this match")
        if problem is None:
            return None
        repeated = await self._first_result(match.key, seat, command_id, actor=actor)
        if repeated is not None:
            return repeated
        if not await self._check_fresh(match):
            return "reload"
        return _rejected(problem, match.game)

    async def _after(self, match: _Match) -> _Match:
        """After an append: play resigned seats' decisions, then start the next clocks."""
        match = await self._auto_play(match)
        await self._arm(match)
        return match

    async def _auto_play(self, match: _Match) -> _Match:
        """A resigned seat still owes decisions while others play on: the gateway makes them,
        choosing among the legal actions with the match's keyed generator (deterministic, so
        replicas racing here agree and the command id makes the second a no-op)."""
        client = self._client(match.game)
        for _ in range(AUTO_PLAY_LIMIT):
            owed = sorted(set(match.status.active_players) & match.resigned)
            if match.ended or not owed:
                return match
            seat = owed[0]
            legal = await client.legal_actions(match.state, seat)
            if not legal:
                return match
            action = legal[timeout_choice(len(legal), match.seed, match.version, seat)]
            decided, decision = await self._decide(match, seat, action)
            if isinstance(decision, Rejection):  # a listed action refused: the rules' bug, not ours
                _log.error("auto-play of seat %s in %s was refused: %s", seat, match.key, decision)
                return decided
            assert decision.state is not None and decision.status is not None
            appended = await self._append(
                decided,
                [NewEvent(e.type, e.json) for e in decision.events],
                actor=on_behalf_actor(seat),
                command_id=f"gw auto {decided.version} {seat}",
                state=decision.state,
                status=decision.status,
                action=action,
            )
            match = appended.match or await self._load(match.key, fresh=True)
        return match

    async def resign(self, key: MatchKey, seat: int, *, command_id: str) -> SubmitOutcome:
        """A seat leaves; when one seat (or none) is left the match ends with them winning."""
        actor = seat_actor(seat)
        for _ in range(CONFLICT_RETRIES):
            match = await self._load(key)
            refusal = await self._precheck(match, seat, command_id, actor, None)
            if refusal == "reload":
                continue
            if refusal is not None:
                assert isinstance(refusal, SubmitOutcome)
                return refusal
            outcome = await self._leave(match, seat, actor, command_id, None)
            if outcome is not None:
                return outcome
        raise ContendedMatch(f"match {key.match_id!r} changed {CONFLICT_RETRIES} times; retry")

    async def _leave(
        self,
        match: _Match,
        seat: int,
        actor: str,
        command_id: str,
        timed_out: TurnTimedOut | None,
    ) -> SubmitOutcome | None:
        events = [NewEvent(TURN_TIMED_OUT, JSON.encode(timed_out))] if timed_out else []
        events.append(NewEvent(SEAT_RESIGNED, JSON.encode(SeatResigned(seat, forfeit=timed_out is not None))))
        appended = await self._append(
            match,
            events,
            actor=actor,
            command_id=command_id,
            state=match.state,
            status=match.status,
            resigned=match.resigned | {seat},
        )
        if appended.match is not None:
            out = appended.out(match.version, actor, [])
            await self._after(appended.match)
            return SubmitOutcome(True, None, appended.match.version, out, appended.receipt, game=match.game)
        if appended.status in (DUPLICATE, TAKEN):
            return await self._first_result(match.key, seat, command_id, actor=actor)
        return None

    async def on_timer(self, key: MatchKey, version: int, seat: int, policy: str) -> SubmitOutcome | None:
        """A turn timer ran out: if the match still waits for `seat` at `version`, play a legal
        action for it ("random_action") or make it resign ("forfeit"), appended at `version`,
        so it happens at most once whichever replica gets here. None when nothing was due."""
        match = await self._load(key)
        if match.version != version:
            match = await self._load(key, fresh=True)
        if match.version != version or seat not in match.waiting_seats():
            return None
        timed_out = TurnTimedOut(seat, version, policy)
        command_id = f"gw timer {version} {seat}"
        if policy == FORFEIT:
            outcome = await self._leave(match, seat, GATEWAY, command_id, timed_out)
            return outcome if outcome is not None and not outcome.repeated else None
        if policy != RANDOM_ACTION:
            raise InvalidRequest(f"unknown turn timer policy {policy!r}")
        legal = await self._client(match.game).legal_actions(match.state, seat)
        if not legal:
            return None
        action = legal[timeout_choice(len(legal), match.seed, version, seat)]
        match, decision = await self._decide(match, seat, action)
        if isinstance(decision, Rejection):
            _log.error("timeout action of seat %s in %s was refused: %s", seat, key, decision)
            return None
        assert decision.state is not None and decision.status is not None
        events = [NewEvent(TURN_TIMED_OUT, JSON.encode(timed_out))]
        events += [NewEvent(e.type, e.json) for e in decision.events]
        appended = await self._append(
            match,
            events,
            actor=on_behalf_actor(seat),
            command_id=command_id,
            state=decision.state,
            status=decision.status,
            action=action,
        )
        if appended.match is None:
            return None
        # Shown as a spectator sees it: the seat's hidden draws stay hidden from the caller.
        stored = await self.store.read_range(key, version + 1, appended.match.version)
        out = await self._redact(appended.match, None, stored)
        await self._after(appended.match)
        return SubmitOutcome(True, None, appended.match.version, out, appended.receipt, game=match.game)

    # -- reading -----------------------------------------------------------------------------------

    async def get_view(self, key: MatchKey, seat: int | None, *, min_version: int = 0) -> MatchView:
        """What `seat` (None: a spectator) sees now, with its legal actions. Checks with Redis
        that the cached state is the latest (one small read) unless it is at least `min_version`."""
        match = await self._load(key)
        check = self.fresh_reads and min_version == 0
        if match.version < min_version or (check and not await self._check_fresh(match)):
            match = await self._load(key, fresh=True)
        if seat is not None and not 0 <= seat < match.seats:
            raise InvalidRequest(f"the match has no seat {seat}")
        memo_key = (key, match.version, match.head, seat)
        memo = self._views.get_fresh(memo_key)
        if memo is not None:  # a state never changes at a version: watchers share one call
            return memo  # type: ignore[no-any-return]
        client = self._client(match.game)
        if seat is not None and seat in match.waiting_seats():
            view, legal = await client.view_and_legal_actions(match.state, seat)
        else:
            (view, _), legal = await client.view(match.state, seat), []
        result = self._match_view(match, seat, view, legal)
        self._views.put(memo_key, result)
        return result

    def _match_view(self, match: _Match, seat: int | None, view: bytes, legal: list[bytes]) -> MatchView:
        return MatchView(
            game=match.game,
            match_id=match.key.match_id,
            version=match.version,
            seat=seat,
            view_json=view,
            legal_actions=legal,
            active_seats=match.waiting_seats(),
            finished=match.ended,
            outcome_json=match.outcome if match.ended else b"",
            players=match.players,
            resigned=tuple(sorted(match.resigned)),
        )

    async def _redact(self, match: _Match, seat: int | None, stored: Sequence[StoredEvent]) -> list[EventOut]:
        """Stored entries as `seat` may see them: game events through the rules service's
        redaction, the gateway's own events as stored (they are public)."""
        if not stored:
            return []
        memo_key = (match.key, seat, stored[0].version, stored[-1].version, stored[-1].hash)
        memo = self._redacted.get_fresh(memo_key)
        if memo is not None:
            return memo  # type: ignore[no-any-return]
        game_events = [Event(e.type, e.payload) for e in stored if _is_game_event(e.type)]
        shown: list[Event] = []
        if game_events:
            _, shown_list = await self._client(match.game).view(match.state, seat, game_events)
            shown = list(shown_list)
        out: list[EventOut] = []
        for entry in stored:
            payload = shown.pop(0).json if _is_game_event(entry.type) else entry.payload
            receipt = _receipt_of(entry)
            out.append(
                EventOut(entry.version, entry.type, acting_seat(entry.actor), payload, entry.time_ms, receipt)
            )
        self._redacted.put(memo_key, out)
        return out

    async def events_since(
        self, key: MatchKey, seat: int | None, after_version: int, limit: int = 500
    ) -> list[EventOut]:
        """Events after `after_version`, redacted for `seat` (None: a spectator): what Watch sends."""
        match = await self._load(key)
        if seat is not None and not 0 <= seat < match.seats:
            raise InvalidRequest(f"the match has no seat {seat}")
        stored = await self.store.read(key, after_version=after_version, limit=limit)
        return await self._redact(match, seat, stored)

    async def _stream(self, key: MatchKey, meta: dict[str, str]) -> tuple[dict[str, str], _Entries | None]:
        """Meta and entries of a match: Redis's (None: read them there), else its archive's."""
        if meta:
            return meta, None
        archived = await self.archive(key) if self.archive is not None else None
        if archived is None:
            raise MatchNotFound(f"no match {key.match_id!r}")

        async def entries() -> _Entries:
            for number, fields in enumerate(archived.entries, start=1):
                yield f"{number}-0".encode(), {name.encode(): value for name, value in fields.items()}

        return dict(archived.meta), entries()

    async def replay(self, key: MatchKey, version: int, seat: int | None) -> MatchView:
        """The view at `version`, rebuilt from the stream (no legal actions: it is history)."""
        meta, source = await self._stream(key, await self.store.meta(key))
        if "seed" not in meta:
            raise MatchNotFound(f"no match {key.match_id!r}")
        base = self._base(key, meta)
        if not 1 <= version <= base.version:
            raise InvalidRequest(f"the match has versions 1 to {base.version}, not {version}")
        if seat is not None and not 0 <= seat < base.seats:
            raise InvalidRequest(f"the match has no seat {seat}")
        match = await self._replay(base, version, source)
        view, _ = await self._client(match.game).view(match.state, seat)
        return self._match_view(match, seat, view, [])

    async def raw_events(self, key: MatchKey, after_version: int = 0, limit: int = 1000) -> list[RawEvent]:
        """Stream entries as stored (auditor scope): unredacted, with their receipts."""
        meta, source = await self._stream(key, await self.store.meta(key))
        if source is None:
            stored = await self.store.read(key, after_version=after_version, limit=limit)
        else:
            stored = [e async for _, f in source if (e := decode_entry(f)).version > after_version][:limit]
        return [
            RawEvent(
                e.version, e.type, e.actor, e.command_id, e.payload, e.rules_version, e.time_ms,
                e.prev_hash, e.hash, e.action, _receipt_of(e),
            )
            for e in stored
        ]  # fmt: skip

    async def active_matches(self, tenant: str) -> int:
        return await self.store.active_count(tenant)

    async def list_matches(
        self,
        tenant: str,
        *,
        game: str | None = None,
        finished: bool | None = None,
        created_after_ms: int | None = None,
        created_before_ms: int | None = None,
        limit: int = 50,
        cursor: str = "",
    ) -> MatchPage:
        """A tenant's matches, newest first, filtered; `next_cursor` continues after the page."""
        limit = max(1, min(limit, 1000))
        upper: float | str = created_before_ms if created_before_ms is not None else "+inf"
        lower: float | str = created_after_ms if created_after_ms is not None else "-inf"
        after: tuple[int, str] | None = None
        if cursor:
            score, _, member = cursor.partition(":")
            if not score.isdigit() or not member:
                raise InvalidRequest("bad cursor")
            after = (int(score), member)
            upper = min(float(upper), int(score)) if upper != "+inf" else int(score)
        found: list[MatchSummary] = []
        last: tuple[int, str] | None = None
        skip = 0
        while len(found) < limit:
            batch = await self.store.index_page(tenant, upper, lower, skip + 2 * limit)
            rows = batch[skip:]
            if not rows:
                break
            if after is not None:
                rows = [r for r in rows if (r[1], r[0]) < after]  # strictly older than the cursor
            keys = [MatchKey(tenant, match_id) for match_id, _ in rows]
            metas = await self.store.metas(keys, ["game", "players", "version", "finished"])
            for (match_id, created), (m_game, m_players, m_version, m_finished) in zip(
                rows, metas, strict=True
            ):
                last = (created, match_id)
                if m_game is None:
                    continue  # archived or removed
                is_finished = m_finished == "1"
                if (game is not None and m_game != game) or (
                    finished is not None and is_finished != finished
                ):
                    continue
                players = tuple(msgspec.json.decode(m_players or "[]", type=list[str]))
                found.append(
                    MatchSummary(match_id, m_game, players, int(m_version or 0), is_finished, created)
                )
                if len(found) == limit:
                    break
            if len(batch) < skip + 2 * limit or len(found) == limit:
                break
            skip = len(batch)
        more = len(found) == limit and last is not None
        next_cursor = f"{found[-1].created_ms}:{found[-1].match_id}" if more else ""
        return MatchPage(found, next_cursor)

    # -- audit -------------------------------------------------------------------------------------

    async def audit(self, key: MatchKey) -> AuditResult:
        """Re-check everything about a match, trusting nothing stored: the chain entry by entry,
        every receipt's signature, the seed against its commitment, every action re-executed
        against the rules service (it must give exactly the recorded events), the end, and the
        snapshot against the re-executed state. Names the first version that does not hold."""
        loaded = await self.store.load(key)
        meta, source = await self._stream(key, loaded.meta)
        return await _Auditor(self, key, meta, loaded.snapshot, source).run()


def _receipt_of(entry: StoredEvent) -> Receipt | None:
    if not entry.receipt:
        return None
    try:
        return decode_receipt(entry.receipt)
    except (msgspec.DecodeError, ValueError):
        return None


class _Auditor:
    """One audit: the checks run in order; each finds its first bad version; the earliest wins."""

    def __init__(
        self,
        matches: GameMatches,
        key: MatchKey,
        meta: dict[str, str],
        snap: dict[str, bytes],
        source: _Entries | None = None,
    ) -> None:
        self.source = source if source is not None else matches.store.raw_entries(key)
        self.live = source is None  # in Redis, with its command table (an archive has its own)
        self.matches = matches
        self.key = key
        self.meta = meta
        self.snap = snap
        self.bad: list[tuple[int, str, int]] = []

    def fail(self, version: int, reason: str = "", *, through: int | None = None) -> None:
        """Record a failure at `version`; `through` when it can only be pinned to a range (a
        receipt vouches for a whole append): another check naming a version inside wins."""
        self.bad.append((version, reason, through if through is not None else version))

    async def run(self) -> AuditResult:
        events = await self._chain()
        checked = len(events)
        if events:
            self._receipts(events)
            if self.live:
                await self._commands(events)
            try:
                await self._execute(events)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.INVALID_ARGUMENT:
                    raise
                self.fail(
                    self._executing, f"the rules service refuses the recorded events: {error.details()}"
                )
        else:
            self.fail(1, "the match has no events")
        if not self.bad:
            return AuditResult(True, checked)
        precise = [
            bad
            for bad in self.bad
            if bad[0] == bad[2]
            or not any(other[0] == other[2] and bad[0] <= other[0] <= bad[2] for other in self.bad)
        ]
        version, reason, _ = min(precise, key=lambda bad: bad[0])
        return AuditResult(False, max(version - 1, 0), version, reason)

    async def _commands(self, events: list[StoredEvent]) -> None:
        """The command table against the stream (issue 15): a planted id would hand its caller
        another append's result, and a removed one would let a retried command apply twice."""
        table = await self.matches.store.client.hgetall(match_keys(self.key).commands)
        runs: dict[str, tuple[int, int, str]] = {}
        for event in events:
            first, last, actor = runs.get(event.command_id, (event.version, event.version, event.actor))
            runs[event.command_id] = (first, event.version, actor)
        for raw_id, raw_value in table.items():
            command_id, value = raw_id.decode(errors="replace"), raw_value.decode(errors="replace")
            first_text, _, rest = value.partition(":")
            last_text, _, actor = rest.partition(":")
            run = runs.get(command_id)
            if not (first_text.isdigit() and last_text.isdigit()):
                self.fail(1, f"the command table entry of {command_id!r} does not parse: {value!r}")
            elif run is None or run[:2] != (int(first_text), int(last_text)) or (actor and actor != run[2]):
                # The first version where the table's range and the stream's run part ways.
                first, last = int(first_text), int(last_text)
                if run is None:
                    bad = first
                elif run[0] != first:
                    bad = min(run[0], first)
                else:
                    bad = min(run[1], last) + 1 if run[1] != last else first
                self.fail(
                    max(bad, 1),
                    f"command id {command_id!r} is recorded for {value!r}, not what the stream holds",
                )
        for command_id, (first, _, _) in runs.items():
            if command_id.encode() not in table:
                self.fail(
                    first, f"command id {command_id!r} of version {first} is missing from the command table"
                )

    async def _chain(self) -> list[StoredEvent]:
        """Entry ids, versions and hashes, in order; stops at the first broken link."""
        events: list[StoredEvent] = []
        head = GENESIS
        position = 0
        async for entry_id, fields in self.source:
            position += 1
            if entry_id != f"{position}-0".encode():
                self.fail(
                    position,
                    f"entry id {entry_id.decode()} where {position}-0 belongs: "
                    "an entry was inserted, removed or moved",
                )
                return events
            try:
                event = decode_entry(fields)
            except MalformedEntry as error:
                self.fail(position, str(error))
                return events
            if event.version != position:
                self.fail(
                    position, f"entry {position} says it is version {event.version}: entries were moved"
                )
                return events
            if event.prev_hash != head:
                self.fail(
                    position,
                    "prev_hash does not match the previous entry: an entry was removed, inserted or moved",
                )
                return events
            computed = chain_hash(
                event.prev_hash, event.version, event.type, event.actor, event.command_id,
                event.rules_version, event.time_ms, event.payload,
            )  # fmt: skip
            if computed != event.hash:
                self.fail(position, "the entry's contents do not match its hash: it was edited")
                return events
            head = event.hash
            events.append(event)
        recorded = int(self.meta.get("version", "0"))
        if len(events) != recorded:
            self.fail(
                min(len(events), recorded) + 1,
                f"the stream holds {len(events)} entries, the match records {recorded}",
            )
        elif self.meta.get("head_hash") != head:
            self.fail(max(len(events), 1), "the recorded head hash is not the stream's")
        return events

    def _receipts(self, events: Sequence[StoredEvent]) -> None:
        """Every receipt in the stream verifies, and the last entry of every append (a run of one
        command id) has one. A valid receipt at v vouches for every entry up to v, so a failure
        is pinned to the first entry after the last valid receipt."""
        keyring = self.matches.keyring
        covered = 0
        for index, event in enumerate(events):
            last_of_append = index + 1 == len(events) or events[index + 1].command_id != event.command_id
            if not event.receipt and not last_of_append:
                continue
            first_bad = covered + 1
            receipt = _receipt_of(event)
            problem = ""
            if receipt is None:
                problem = (
                    f"the append ending at version {event.version} has no receipt (or an unreadable one)"
                )
            elif receipt.version != event.version or receipt.head_hash != event.hash:
                problem = f"the receipt at version {event.version} is for another version or head"
            else:
                message = receipt_message(
                    self.key.tenant, self.key.match_id, receipt.version, receipt.head_hash
                )
                if not keyring.verify(receipt.key_id, message, receipt.signature):
                    problem = (
                        f"the receipt at version {event.version} does not verify (key {receipt.key_id!r})"
                    )
            if problem:
                self.fail(first_bad, problem, through=event.version)
                return
            covered = event.version

    _executing = 1

    async def _execute(self, events: Sequence[StoredEvent]) -> None:
        """Re-run the match from its seed: setup, then every append's action through Validate."""
        first = events[0]
        if first.type != MATCH_CREATED or first.actor != GATEWAY:
            self.fail(1, "the stream does not open with the gateway's match_created")
            return
        try:
            created = msgspec.json.decode(first.payload, type=MatchCreated)
            seed = bytes.fromhex(self.meta.get("seed", ""))
        except (msgspec.DecodeError, ValueError):
            self.fail(1, "match_created or the stored seed does not decode")
            return
        if not seed_matches(seed, created.seed_commitment):
            self.fail(1, "the match's seed does not match the commitment published in match_created")
            return
        client = self.matches._client(created.game_id)
        state, status = await client.setup(created.players, seed, bytes(created.options))
        if state.rules_version != created.rules_version:
            self.fail(
                1,
                f"recorded under rules {created.rules_version}, the rules service runs {state.rules_version}",
            )
            return
        resigned: set[int] = set()
        ended, final = False, b""
        snapshot_version = int(self.snap["version"]) if self.snap.get("version", b"").isdigit() else None
        runs = _appends(events[1:])
        self._check_snapshot(1, snapshot_version, state, status, resigned, final, events[0])
        for run in runs:
            start = run[0].version
            self._executing = start
            if ended:
                self.fail(start, "entries after match_ended")
                return
            game_events = [e for e in run if _is_game_event(e.type)]
            action = run[0].action
            if game_events or action:
                seat = actor_seat(run[0].actor)
                if not action or seat < 0:
                    self.fail(
                        start,
                        through=run[-1].version,
                        reason="game events without the action that caused them",
                    )
                    return
                decision = await client.validate(state, seat, action, return_redacted=False)
                if isinstance(decision, Rejection):
                    self.fail(
                        start,
                        through=run[-1].version,
                        reason=f"re-executing seat {seat}'s action is refused: {decision.code}",
                    )
                    return
                recorded = [(e.type, e.payload) for e in game_events]
                if [(e.type, e.json) for e in decision.events] != recorded:
                    self.fail(
                        start,
                        through=run[-1].version,
                        reason="re-executing the action does not give the recorded events",
                    )
                    return
                assert decision.state is not None and decision.status is not None
                state, status = decision.state, decision.status
            for event in run:
                if not _is_game_event(event.type):
                    problem = self._gateway_event(event, created, seed, status, resigned)
                    if problem:
                        self.fail(event.version, problem)
                        return
                    if event.type == MATCH_ENDED:
                        ended = True
                        final = bytes(msgspec.json.decode(event.payload, type=MatchEnded).outcome)
            if status.finished and not ended:
                self.fail(
                    start,
                    through=run[-1].version,
                    reason="the game is over but the append does not end the match",
                )
                return
            self._check_snapshot(run[-1].version, snapshot_version, state, status, resigned, final, run[-1])

    def _gateway_event(
        self, event: StoredEvent, created: MatchCreated, seed: bytes, status: Status, resigned: set[int]
    ) -> str:
        try:
            decoded = GATEWAY_EVENT_DECODER.decode(event.payload)
        except msgspec.DecodeError:
            return f"{event.type} does not decode"
        if isinstance(decoded, MatchCreated):
            return "a second match_created"
        if isinstance(decoded, SeatResigned):
            if not 0 <= decoded.seat < created.players or decoded.seat in resigned:
                return f"seat {decoded.seat} cannot resign here"
            resigned.add(decoded.seat)
        elif isinstance(decoded, MatchEnded):
            if not seed_matches(
                bytes.fromhex(decoded.seed) if _is_hex(decoded.seed) else b"", created.seed_commitment
            ):
                return "the revealed seed does not match the commitment"
            if bytes.fromhex(decoded.seed) != seed:
                return "the revealed seed is not the match's seed"
            if decoded.reason == FINISHED:
                expected = status.outcome if status.finished else None
            else:
                ok = should_end_by_resignation(created.players, frozenset(resigned))
                expected = resignation_outcome(created.players, frozenset(resigned)) if ok else None
            if expected is None or bytes(decoded.outcome) != expected:
                return "match_ended does not state the re-executed outcome"
        return ""

    def _check_snapshot(
        self,
        version: int,
        snapshot_version: int | None,
        state: rules_pb2.GameState,
        status: Status,
        resigned: set[int],
        final: bytes,
        entry: StoredEvent,
    ) -> None:
        """The snapshot at `version` (if that is its version) is the re-executed state; `final`
        is the outcome match_ended stated, b"" while the match goes on."""
        if snapshot_version != version:
            return
        snap, key = self.snap, self.key
        try:
            message = snapshot_message(
                key.tenant,
                key.match_id,
                version,
                snap["head_hash"].decode(),
                snap["rules_version"].decode(),
                snap["state"],
            )
            signed = self.matches.keyring.check_mac(snap["key_id"].decode(), message, snap["mac"])
            body = SNAPSHOT_DECODER.decode(snap["state"])
        except (KeyError, ValueError, msgspec.DecodeError):
            signed, body = False, None
        if not signed or body is None:
            self.fail(
                version, f"the snapshot at version {version} is not this match's (its MAC does not verify)"
            )
            return
        if snap["head_hash"].decode() != entry.hash:
            self.fail(version, f"the snapshot at version {version} belongs to another chain")
            return
        ended = bool(final)
        outcome = final if ended else status.outcome
        expected = SnapshotBody(
            state.state, status.active_players, status.finished, outcome, tuple(sorted(resigned)), ended
        )
        if body != expected:
            self.fail(version, f"the snapshot at version {version} differs from the re-executed state")


def _appends(events: Sequence[StoredEvent]) -> list[list[StoredEvent]]:
    """Entries grouped by append (consecutive entries of one command id)."""
    runs: list[list[StoredEvent]] = []
    for event in events:
        if runs and runs[-1][-1].command_id == event.command_id:
            runs[-1].append(event)
        else:
            runs.append([event])
    return runs


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


__all__ = [
    "AuditResult",
    "ContendedMatch",
    "Created",
    "EventOut",
    "GameMatches",
    "InvalidRequest",
    "MatchExists",
    "MatchNotFound",
    "MatchPage",
    "MatchSummary",
    "MatchView",
    "RawEvent",
    "Receipt",
    "SubmitOutcome",
    "TimerPort",
    "UnknownGame",
]
