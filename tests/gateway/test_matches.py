"""The gateway's match use cases over a real rules server (port 0) and both event stores."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator

import grpc
import msgspec
import pytest

from gateway.eventstore import InMemoryEventStore, MatchKey, Snapshot
from gateway.eventstore.base import EventStore
from gateway.eventstore.redis_store import RedisEventStore
from gateway.handlers import Matches, MatchExists, MatchNotFound, Submitted
from gateway.rules_client import RulesClient
from services.kernel import Rejection
from tests.kernel.toy_game import GAME
from tests.rules_service import serving


@pytest.fixture(scope="module")
def rules() -> Iterator[RulesClient]:
    with serving(GAME) as client:
        yield client


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> EventStore:
    if request.param == "memory":
        return InMemoryEventStore()
    return RedisEventStore(request.getfixturevalue("redis_client"))


@pytest.fixture()
def matches(store: EventStore, rules: RulesClient) -> Matches:
    return Matches(store, {GAME.game_id: rules})


def _key() -> MatchKey:
    return MatchKey("tenant-a", uuid.uuid4().hex[:12])


def _cmd() -> str:
    return uuid.uuid4().hex


TAKE_ONE = b'{"type": "take", "count": 1}'


def test_a_new_match_opens_its_stream_with_match_created(matches: Matches, store: EventStore) -> None:
    key = _key()
    created = matches.create(key, GAME.game_id, 3, 99, command_id=_cmd())
    assert created.version == 1 and created.status.active_players == (0,)
    (first,) = store.read(key)
    assert first.type == "match_created" and first.actor == "system"
    assert json.loads(first.payload)["seed"] == 99
    assert matches.load(key).state.state == created.state.state


def test_a_taken_match_id_is_refused_and_a_retried_create_is_idempotent(
    matches: Matches, store: EventStore
) -> None:
    key, command = _key(), _cmd()
    first = matches.create(key, GAME.game_id, 2, 5, command_id=command)
    assert matches.create(key, GAME.game_id, 2, 5, command_id=command).state.state == first.state.state
    with pytest.raises(MatchExists, match="already exists"):
        matches.create(key, GAME.game_id, 3, 6, command_id=_cmd())
    assert store.version(key) == 1


def test_bad_options_create_nothing(matches: Matches, store: EventStore) -> None:
    key = _key()
    with pytest.raises(grpc.RpcError) as error:
        matches.create(key, GAME.game_id, 9, 5, command_id=_cmd())
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert store.version(key) == 0


def test_an_accepted_action_appends_its_events_and_the_next_snapshot(
    matches: Matches, store: EventStore
) -> None:
    key = _key()
    matches.create(key, GAME.game_id, 2, 5, command_id=_cmd())
    result = matches.submit(key, 0, TAKE_ONE, command_id=_cmd())
    assert isinstance(result, Submitted)
    assert result.match.version == 2 and [e.type for e in result.events] == ["counters_taken"]
    stored = store.read(key, after_version=1)
    assert [(e.type, e.actor) for e in stored] == [("counters_taken", "seat:0")]
    assert matches.load(key).state.state == result.match.state.state


def test_a_rejected_action_changes_nothing(matches: Matches, store: EventStore) -> None:
    key = _key()
    matches.create(key, GAME.game_id, 2, 5, command_id=_cmd())
    assert isinstance(matches.submit(key, 1, TAKE_ONE, command_id=_cmd()), Rejection)
    too_many = matches.submit(key, 0, b'{"type": "take", "count": 4}', command_id=_cmd())
    assert isinstance(too_many, Rejection) and too_many.code == "illegal_action"
    assert store.version(key) == 1


def test_a_stale_expected_version_is_rejected_and_appends_nothing(
    matches: Matches, store: EventStore
) -> None:
    key = _key()
    matches.create(key, GAME.game_id, 2, 5, command_id=_cmd())
    matches.submit(key, 0, TAKE_ONE, command_id=_cmd(), expected_version=1)
    stale = matches.submit(key, 1, TAKE_ONE, command_id=_cmd(), expected_version=1)
    assert isinstance(stale, Rejection) and stale.code == "stale_version" and "version 2" in stale.message
    assert store.version(key) == 2


def test_unknown_matches_and_wrong_games_are_rejected(matches: Matches) -> None:
    missing = matches.submit(_key(), 0, TAKE_ONE, command_id=_cmd())
    assert isinstance(missing, Rejection) and missing.code == "unknown_match"
    key = _key()
    matches.create(key, GAME.game_id, 2, 5, command_id=_cmd())
    wrong = matches.submit(key, 0, TAKE_ONE, command_id=_cmd(), game_id="ys")
    assert isinstance(wrong, Rejection) and wrong.code == "wrong_game"
    with pytest.raises(MatchNotFound):
        matches.load(_key())


def test_the_same_match_id_under_another_tenant_is_another_match(matches: Matches) -> None:
    key = _key()
    matches.create(key, GAME.game_id, 2, 5, command_id=_cmd())
    other_tenant = MatchKey("tenant-b", key.match_id)
    result = matches.submit(other_tenant, 0, TAKE_ONE, command_id=_cmd())
    assert isinstance(result, Rejection) and result.code == "unknown_match"


def test_a_repeated_command_id_returns_the_first_result(matches: Matches, store: EventStore) -> None:
    key = _key()
    matches.create(key, GAME.game_id, 2, 5, command_id=_cmd())
    command = _cmd()
    first = matches.submit(key, 0, TAKE_ONE, command_id=command)
    again = matches.submit(key, 0, TAKE_ONE, command_id=command)
    assert isinstance(first, Submitted) and isinstance(again, Submitted)
    assert again.append.duplicate and again.events == first.events
    assert store.version(key) == 2


def test_a_full_match_replays_from_its_stream_to_the_live_state(matches: Matches, rules: RulesClient) -> None:
    key = _key()
    match = matches.create(key, GAME.game_id, 4, 77, command_id=_cmd())
    while not match.status.finished:
        seat = match.status.active_players[0]
        result = matches.submit(key, seat, rules.legal_actions(match.state, seat)[-1], command_id=_cmd())
        assert isinstance(result, Submitted)
        match = result.match
    replayed = matches.replay(key)
    assert replayed.state.state == match.state.state and replayed.version == match.version
    assert replayed.status.finished and json.loads(replayed.status.outcome)["winners"]
    audit = matches.audit(key)
    assert audit.ok and audit.events == match.version


def test_two_replicas_racing_on_one_turn_accept_exactly_one(matches: Matches, store: EventStore) -> None:
    key = _key()
    matches.create(key, GAME.game_id, 2, 5, command_id=_cmd())
    results: list[Submitted | Rejection] = []
    barrier = threading.Barrier(4)

    def replica() -> None:
        barrier.wait()
        results.append(matches.submit(key, 0, TAKE_ONE, command_id=_cmd()))

    threads = [threading.Thread(target=replica) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    accepted = [r for r in results if isinstance(r, Submitted)]
    assert len(accepted) == 1
    assert all(isinstance(r, Rejection) and r.code == "not_your_turn" for r in results if r not in accepted)
    assert store.version(key) == 2 and store.audit(key).ok


class _UpgradedStore(InMemoryEventStore):
    """A store whose snapshots were written by an older rules version."""

    def load_snapshot(self, key: MatchKey) -> Snapshot | None:
        snapshot = super().load_snapshot(key)
        return None if snapshot is None else msgspec.structs.replace(snapshot, rules_version="0-old")


def test_a_snapshot_from_older_rules_is_rebuilt_from_the_events(rules: RulesClient) -> None:
    matches = Matches(_UpgradedStore(), {GAME.game_id: rules})
    key = _key()
    matches.create(key, GAME.game_id, 2, 5, command_id=_cmd())
    result = matches.submit(key, 0, TAKE_ONE, command_id=_cmd())
    assert isinstance(result, Submitted) and result.match.version == 2
