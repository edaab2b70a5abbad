"""One rules call produces everything an action needs (issue 25, item 2).

A watched match's Validate brings, beside the next state, every seat's and the spectator's
redacted events and views; the replica that appended serves every watcher from that result (no
further rules call, no stream read), and another replica reads the new entries once per match,
not once per seat. Over real Redis and the toy game's rules service (hidden hands: a card dealt
is redacted for everyone but its receiver), checked against what the slow path answers."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import pytest
from guildhall.rules.v1 import rules_pb2, rules_pb2_grpc

from gateway.eventstore.base import MatchKey
from gateway.usecases import GameMatches
from tests.gateway.gwcore_support import gateway
from tests.kernel.toy_game import GAME

NIM = GAME.game_id
SEED = bytes(range(32))
EVERY_VIEWER = frozenset({0, 1, None})  # both seats and a spectator watch on this replica


@pytest.fixture
def url(redis_url: str, redis_client: Any) -> str:
    return redis_url  # redis_client flushed the database


class Counting:
    """Wraps a rules client or an event store: counts each method called (and Validate's flags)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: Counter[str] = Counter()
        self.viewers: list[Any] = []  # each Validate's viewers

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            if name == "validate":
                self.viewers.append(kwargs.get("viewers"))
            return await attr(*args, **kwargs)

        return counted


def _count(matches: GameMatches) -> tuple[Counting, Counting]:
    rules = matches.rules[NIM] = Counting(matches.rules[NIM])
    store = matches.store = Counting(matches.store)  # type: ignore[assignment]
    return rules, store


def _card_of(view_json: bytes) -> bytes:
    hand = json.loads(view_json)["hand"]
    return json.dumps({"type": "play_card", "value": min(hand)}).encode()


async def _play_a_card(matches: GameMatches, key: MatchKey, command_id: str) -> int:
    spectator = await matches.get_view(key, None)
    seat = spectator.active_seats[0]
    view = await matches.get_view(key, seat)
    outcome = await matches.submit(key, seat, _card_of(view.view_json), command_id=command_id)
    assert outcome.accepted, outcome.rejection
    return outcome.version


async def _everything(matches: GameMatches, key: MatchKey, after: int, version: int) -> dict[Any, Any]:
    """What every viewer's catch-up gets: its view at `version` and its events after `after`."""
    seen = {}
    for viewer in (0, 1, None):
        view = await matches.get_view(key, viewer, min_version=version)
        events = await matches.events_since(key, viewer, after)
        seen[viewer] = (
            (view.version, view.view_json, list(view.legal_actions), view.active_seats, view.decision),
            [(e.version, e.type, e.actor, e.payload_json, e.receipt, e.description) for e in events],
        )
    return seen


def test_a_watched_action_brings_every_viewers_update_in_its_one_rules_call(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> tuple[dict[Any, Any], dict[Any, Any], Counter[str], Counter[str], list[Any]]:
        async with gateway(url, targets) as appender, gateway(url, targets) as slow:
            appender.viewers = lambda key: EVERY_VIEWER  # each viewer watches every match here
            created = await appender.create("acme", NIM, ["ann", "bob"], b"", match_id="f1", seed=SEED)
            key = created.key
            before = (await appender.get_view(key, None)).version
            rules, store = _count(appender)
            version = await _play_a_card(appender, key, "c1")
            rules.calls.clear()
            store.calls.clear()
            fanned = await _everything(appender, key, before, version)
            # The same questions answered the slow way: a replica asking the rules per seat.
            slow.fan_out = False
            reference = await _everything(slow, key, before, version)
            return fanned, reference, rules.calls, store.calls, rules.viewers

    fanned, reference, rules_calls, store_calls, viewers = asyncio.run(scenario())
    assert viewers == [EVERY_VIEWER]  # the one Validate asked for every watcher's update
    assert not rules_calls  # no View, no redaction call for any seat or the spectator
    assert "read" not in store_calls and "read_range" not in store_calls  # no stream read either
    assert fanned == reference  # byte for byte what the per-seat calls give
    # The card dealt is hidden from all but its receiver (the redaction really is per viewer).
    dealt = {
        viewer: [p for (_, kind, _, p, _, _) in events if kind == "card_dealt"]
        for viewer, (_, events) in fanned.items()
    }
    receiver = next(
        v for v, payloads in dealt.items() if payloads and json.loads(payloads[0])["value"] is not None
    )
    assert all(json.loads(p[0])["value"] is None for v, p in dealt.items() if v != receiver)


def test_an_unwatched_action_asks_only_for_the_next_seats_views(url: str, targets: dict[str, str]) -> None:
    async def scenario() -> list[Any]:
        async with gateway(url, targets) as matches:
            matches.viewers = lambda key: frozenset()
            created = await matches.create("acme", NIM, ["ann", "bob"], b"", match_id="f2", seed=SEED)
            rules, _ = _count(matches)
            await _play_a_card(matches, created.key, "c1")
            return rules.viewers

    assert asyncio.run(scenario()) == [frozenset()]


def test_another_replica_reads_an_append_once_per_match_not_once_per_seat(
    url: str, targets: dict[str, str]
) -> None:
    async def scenario() -> tuple[Counter[str], dict[Any, Any], dict[Any, Any]]:
        # A snapshot with every append (SNAPSHOT_EVERY=1): the other replica's load reads nothing
        # but meta and snapshot, so the one stream read counted is the fan-out's. (With a snapshot
        # every K versions its load also reads the events after the snapshot.)
        options = {"snapshot_every": 1}
        async with gateway(url, targets, **options) as appender, gateway(url, targets, **options) as other:
            appender.viewers = other.viewers = lambda key: EVERY_VIEWER
            created = await appender.create("acme", NIM, ["ann", "bob"], b"", match_id="f3", seed=SEED)
            key = created.key
            before = (await other.get_view(key, None)).version
            for viewer in (0, 1):
                await other.get_view(key, viewer)
            version = await _play_a_card(appender, key, "c1")
            other.observe_append(key, version)  # what its notification subscription does
            _, store = _count(other)

            async def catch_up(viewer: int | None) -> Any:
                view = await other.get_view(key, viewer, min_version=version)
                events = await other.events_since(key, viewer, before)
                return viewer, view.view_json, [(e.version, e.payload_json) for e in events]

            # Every watcher of the match at once, as a notification wakes them.
            seen = await asyncio.gather(*(catch_up(v) for v in (0, 1, None)))
            expected = await _everything(appender, key, before, version)
            return store.calls, {v: (j, ev) for v, j, ev in seen}, expected

    store_calls, seen, expected = asyncio.run(scenario())
    assert store_calls["read"] == 1  # one stream read for three viewers
    for viewer, (view_json, events) in seen.items():
        assert view_json == expected[viewer][0][1]
        assert events == [(v, p) for (v, _, _, p, _, _) in expected[viewer][1]]


def test_validate_with_every_view_returns_each_viewers_events_and_views(targets: dict[str, str]) -> None:
    """The rules contract: what the flag adds, as View would answer it; without it, nothing new."""
    import grpc

    with grpc.insecure_channel(targets[NIM]) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        setup = stub.Setup(rules_pb2.SetupRequest(game_id=NIM, players=3, seed=SEED))
        first = stub.View(rules_pb2.ViewRequest(state=setup.state, player=0))
        action = _card_of(first.view)
        plain = stub.Validate(
            rules_pb2.ValidateRequest(state=setup.state, player=0, action=action, return_state=True)
        )
        assert not plain.accepted.seat_events and not plain.accepted.spectator_view
        every = stub.Validate(
            rules_pb2.ValidateRequest(
                state=setup.state, player=0, action=action, return_state=True, return_every_view=True
            )
        ).accepted
        next_state = every.state
        viewers = [e.player if e.HasField("player") else None for e in every.seat_events]
        assert viewers == [0, 1, 2, None]
        for shown in every.seat_events:
            request = rules_pb2.ViewRequest(state=setup.state, events=every.events)
            if shown.HasField("player"):
                request.player = shown.player
            assert list(shown.events) == list(stub.View(request).events)
        assert [v.player for v in every.views] == [0, 1, 2]
        for seat_view in every.views:
            asked = stub.View(
                rules_pb2.ViewRequest(state=next_state, player=seat_view.player, include_legal_actions=True)
            )
            assert seat_view.view == asked.view
            # Legal actions only for the seat that owes a decision.
            active = list(every.status.active_players)
            assert list(seat_view.legal_actions) == (
                list(asked.legal_actions) if seat_view.player in active else []
            )
        assert every.spectator_view == stub.View(rules_pb2.ViewRequest(state=next_state)).view


def test_validate_returns_only_the_viewers_named(targets: dict[str, str]) -> None:
    """Issue 45: the gateway names the viewers it will deliver to; the service describes and
    views for those alone, plus the views of the seats owing the next decision (as return_views).
    A seat the match does not have is ignored."""
    import grpc

    with grpc.insecure_channel(targets[NIM]) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        setup = stub.Setup(rules_pb2.SetupRequest(game_id=NIM, players=3, seed=SEED))
        action = _card_of(stub.View(rules_pb2.ViewRequest(state=setup.state, player=0)).view)
        request = rules_pb2.ValidateRequest(
            state=setup.state, player=0, action=action, return_state=True, return_redacted=True,
            return_every_view=True, viewers=rules_pb2.Viewers(seats=[2, 7, 2]),
        )  # fmt: skip
        named = stub.Validate(request).accepted
        request.ClearField("viewers")
        every = stub.Validate(request).accepted

    every_shown = {e.player if e.HasField("player") else None: e for e in every.seat_events}
    assert [(e.player, e.HasField("player")) for e in named.seat_events] == [(2, True)]
    assert named.seat_events[0] == every_shown[2]
    assert not named.spectator_view, "no spectator named: no spectator view"
    active = list(named.status.active_players)
    assert [v.player for v in named.views] == sorted({2, *active})
    assert list(named.views) == [v for v in every.views if v.player in {2, *active}]
    # The acting seat's own events come with return_redacted, named or not.
    assert list(named.redacted_events) == list(every_shown[0].events)


def test_a_viewer_not_named_gets_its_update_from_a_rules_call(url: str, targets: dict[str, str]) -> None:
    """Only seat 1 watches on this replica: Validate brings its update alone, and the other
    viewers (a stream opened since, or on another replica) get theirs by the slow path, equal to
    what every viewer named would have given."""

    async def scenario() -> tuple[dict[Any, Any], dict[Any, Any], list[Any], Counter[str]]:
        async with gateway(url, targets) as appender, gateway(url, targets) as slow:
            appender.viewers = lambda key: frozenset({1})
            created = await appender.create("acme", NIM, ["ann", "bob"], b"", match_id="f4", seed=SEED)
            key = created.key
            before = (await appender.get_view(key, None)).version
            rules, _ = _count(appender)
            version = await _play_a_card(appender, key, "c1")
            asked = list(rules.viewers)
            rules.calls.clear()
            seen = await _everything(appender, key, before, version)
            slow.fan_out = False
            return seen, await _everything(slow, key, before, version), asked, rules.calls

    seen, reference, asked, calls = asyncio.run(scenario())
    assert asked == [frozenset({1})]
    assert seen == reference
    # Seat 1's view and events came with the Validate: no call. Seat 0 (which acted, and does not
    # act next) and the spectator were not named: a View for each one's view and events.
    assert calls == Counter({"view": 4})


def test_the_notification_of_an_own_append_does_not_drop_the_state_it_was_decided_on(
    url: str, targets: dict[str, str]
) -> None:
    """Issue 45: Redis's notification of an append usually arrives before the append's answer.
    It used to drop the cached state then, so the match's next load (another seat acting
    meanwhile) read the snapshot and folded the events after it through the rules service. While
    this replica's append is in flight the notification leaves the cache alone; the append's answer
    sets it. Another replica's append still drops it."""

    async def scenario() -> tuple[Counter[str], Counter[str]]:
        async with gateway(url, targets) as matches:
            created = await matches.create("acme", NIM, ["ann", "bob"], b"", match_id="f5", seed=SEED)
            key = created.key
            real = matches.store
            append = real.append
            before = (await matches.get_view(key, None)).version

            async def notified_first(*args: Any, **kwargs: Any) -> Any:
                matches.observe_append(key, before + 1)  # Redis's notification, ahead of the answer
                await matches.get_view(key, 1)  # the other seat looks meanwhile
                return await append(*args, **kwargs)

            real.append = notified_first  # type: ignore[method-assign]
            _, store = _count(matches)
            await _play_a_card(matches, key, "c1")
            await matches.get_view(key, 0)
            own = Counter(store.calls)
            store.calls.clear()
            real.append = append  # type: ignore[method-assign]
            version = (await matches.get_view(key, None)).version
            matches.observe_append(key, version + 1)  # another replica's append: the state is stale
            await matches.get_view(key, 0)
            return own, store.calls

    own, other = asyncio.run(scenario())
    assert own["load"] == 0  # the state decided on stayed cached, then the append's replaced it
    assert other["load"] == 1
