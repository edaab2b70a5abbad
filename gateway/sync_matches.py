"""DEPRECATED blocking match use cases, kept only while `gateway/demo.py` still drives them
in process; the gateway uses the asyncio `gateway.handlers.GameMatches`. Delete this module
once nothing imports it.

Match use cases: create, submit an action, load, replay, audit.

They take their ports (an EventStore and a rules client per game) as arguments
and hold no state of their own, so any gateway replica can serve any match:
correctness comes from the expected-version append, never from sticky routing.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass

import grpc
import msgspec
from guildhall.rules.v1 import rules_pb2

from gateway.eventstore.base import (
    AppendResult,
    AuditReport,
    EventStore,
    Latest,
    MatchKey,
    NewEvent,
    VersionConflict,
)
from gateway.rules_client import Accepted, Event, RulesClient, Status
from services.kernel import STALE_VERSION, UNKNOWN_MATCH, WRONG_GAME, Rejection

MATCH_CREATED = "match_created"


class MatchCreated(msgspec.Struct, frozen=True, tag=MATCH_CREATED):  # the old format: seed in clear
    """The first event of every match: all a replay needs to rebuild the opening state.

    The seed decides every hidden card, so this event is for the server and
    auditors only; players get filtered views, never raw stream entries.
    """

    game_id: str
    rules_version: str
    players: int
    seed: int
    options: msgspec.Raw  # the game's options as JSON


class SnapshotBody(msgspec.Struct, frozen=True):
    """The cached state after some version, with its status, so a load costs no rules call."""

    state: bytes  # the rules service's GameState.state (msgpack of the game's state)
    active_players: tuple[int, ...]
    finished: bool
    outcome: bytes = b""


ENCODER = msgspec.msgpack.Encoder()
CREATED_DECODER = msgspec.json.Decoder(MatchCreated)
SNAPSHOT_DECODER = msgspec.msgpack.Decoder(SnapshotBody)


# Server-chosen match seeds: 256 bits, so no player can search the seed space from a view.
SEED_BITS = 256

# Two replicas racing on one match: the loser reloads and decides again, this often.
CONFLICT_RETRIES = 5


class MatchNotFound(LookupError):
    """No stream exists for this tenant and match id."""


class MatchExists(ValueError):
    """A match with this tenant and id was already created (by another command)."""


class UnknownGame(LookupError):
    """No rules service is configured for this game."""


class ContendedMatch(RuntimeError):
    """The match kept changing under us; the client may retry (gRPC ABORTED)."""


@dataclass(frozen=True)
class LoadedMatch:
    key: MatchKey
    game_id: str
    players: int
    version: int
    state: rules_pb2.GameState
    status: Status


@dataclass(frozen=True)
class Submitted:
    match: LoadedMatch
    events: tuple[Event, ...]
    append: AppendResult


class Matches:
    """The match use cases over one event store and the rules services by game id."""

    def __init__(self, store: EventStore, rules: Mapping[str, RulesClient]) -> None:
        self.store = store
        self.rules = rules

    def _client(self, game_id: str) -> RulesClient:
        try:
            return self.rules[game_id]
        except KeyError:
            raise UnknownGame(f"no rules service for game {game_id!r}") from None

    def create(
        self,
        key: MatchKey,
        game_id: str,
        players: int,
        seed: int | None = None,
        options: bytes = b"",
        *,
        command_id: str,
    ) -> LoadedMatch:
        """Start a match: the rules service sets it up, its stream opens with match_created.

        The seed is drawn here (256 bits from the OS CSPRNG) unless the caller asks for a
        reproducible match by naming one (tests, golden playthroughs, tools).

        Raises MatchExists if the id is taken; the same command id retried returns the match.
        Bad options or player counts come back from the rules service as INVALID_ARGUMENT.
        """
        if seed is None:
            seed = secrets.randbits(SEED_BITS)
        state, status = self._client(game_id).setup(players, seed, options)
        rules_version = state.rules_version
        created = MatchCreated(game_id, rules_version, players, seed, msgspec.Raw(options or b"{}"))
        try:
            result = self.store.append(
                key,
                0,
                [NewEvent(MATCH_CREATED, msgspec.json.encode(created))],
                actor="system",
                command_id=command_id,
                rules_version=rules_version,
                snapshot=_snapshot(state, status),
                meta={"game": game_id, "players": str(players)},
            )
        except VersionConflict:
            raise MatchExists(f"match {key.match_id!r} already exists for tenant {key.tenant!r}") from None
        if result.duplicate:  # the same create, retried: the match it made
            return self.load(key)
        return LoadedMatch(key, game_id, players, 1, state, status)

    def load(self, key: MatchKey) -> LoadedMatch:
        """The current state: the cached snapshot plus any newer events, or a full replay."""
        return self._current(key, self.store.latest(key))

    def _current(self, key: MatchKey, latest: Latest) -> LoadedMatch:
        if not latest.meta:
            raise MatchNotFound(f"no match {key.match_id!r} for tenant {key.tenant!r}")
        if latest.snapshot is None:
            return self.replay(key)
        game_id, players = latest.meta["game"], int(latest.meta["players"])
        body = SNAPSHOT_DECODER.decode(latest.snapshot.state)
        state = rules_pb2.GameState(
            game_id=game_id, rules_version=latest.snapshot.rules_version, state=body.state
        )
        status = Status(body.active_players, body.finished, body.outcome)
        if latest.newer:
            state, status = self._client(game_id).apply(
                state, [Event(e.type, e.payload) for e in latest.newer]
            )
        return LoadedMatch(key, game_id, players, latest.version, state, status)

    def replay(self, key: MatchKey) -> LoadedMatch:
        """Rebuild the state from the stream alone, as an auditor would."""
        stored = self.store.read(key)
        if not stored:
            raise MatchNotFound(f"no match {key.match_id!r} for tenant {key.tenant!r}")
        if stored[0].type != MATCH_CREATED:
            raise ValueError(f"stream of {key} does not open with {MATCH_CREATED}")
        created = CREATED_DECODER.decode(stored[0].payload)
        client = self._client(created.game_id)
        state, _ = client.setup(created.players, created.seed, bytes(created.options))
        state, status = client.apply(state, [Event(e.type, e.payload) for e in stored[1:]])
        return LoadedMatch(key, created.game_id, created.players, stored[-1].version, state, status)

    def submit(
        self,
        key: MatchKey,
        player: int,
        action: bytes,
        *,
        command_id: str,
        game_id: str | None = None,
        expected_version: int | None = None,
    ) -> Submitted | Rejection:
        """One player's action: decided by the rules service, appended at the version it was decided on.

        A command id already applied answers with its first result: a client retrying after a
        lost reply must not be told "not your turn" about its own move.
        """
        for _ in range(CONFLICT_RETRIES):
            latest = self.store.latest(key, command_id)
            if latest.command is not None:
                return self._first_result(key, latest.command)
            try:
                match = self._current(key, latest)
            except MatchNotFound as exc:
                return Rejection(UNKNOWN_MATCH, str(exc))
            if game_id is not None and game_id != match.game_id:
                return Rejection(WRONG_GAME, f"match {key.match_id!r} plays {match.game_id}, not {game_id}")
            if expected_version is not None and expected_version != match.version:
                return _stale(expected_version, match.version)
            decision = self._decide(match, player, action)
            if isinstance(decision, Rejection):
                return decision
            assert decision.state is not None and decision.status is not None
            try:
                result = self.store.append(
                    key,
                    match.version,
                    [NewEvent(e.type, e.json) for e in decision.events],
                    actor=f"seat:{player}",
                    command_id=command_id,
                    rules_version=decision.state.rules_version,
                    snapshot=_snapshot(decision.state, decision.status),
                )
            except VersionConflict as conflict:
                if expected_version is not None:
                    return _stale(expected_version, conflict.actual)
                continue  # another replica appended first: decide again on the new state
            if result.duplicate:
                return self._first_result(key, result)
            loaded = LoadedMatch(
                key, match.game_id, match.players, result.last_version, decision.state, decision.status
            )
            return Submitted(loaded, decision.events, result)
        raise ContendedMatch(f"match {key.match_id!r} changed {CONFLICT_RETRIES} times while deciding; retry")

    def _decide(self, match: LoadedMatch, player: int, action: bytes) -> Accepted | Rejection:
        client = self._client(match.game_id)
        try:
            return client.validate(match.state, player, action)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
        # The snapshot was made by other rules (a rolling upgrade): rebuild the state from the events.
        return client.validate(self.replay(match.key).state, player, action)

    def _first_result(self, key: MatchKey, result: AppendResult) -> Submitted:
        """A repeated command id: answer with what the first submission appended."""
        stored = self.store.read(key, after_version=result.first_version - 1)
        events = tuple(Event(e.type, e.payload) for e in stored if e.version <= result.last_version)
        return Submitted(self.load(key), events, result)

    def audit(self, key: MatchKey) -> AuditReport:
        return self.store.audit(key)


def _snapshot(state: rules_pb2.GameState, status: Status) -> bytes:
    return ENCODER.encode(SnapshotBody(state.state, status.active_players, status.finished, status.outcome))


def _stale(expected: int, actual: int) -> Rejection:
    return Rejection(
        STALE_VERSION, f"the match is at version {actual}, not {expected}: reload and decide again"
    )
