"""Gateway test helpers: an asyncio loop on a thread (tests stay plain sync gRPC clients), an
in-process gateway servicer over a small fake of the match use cases (for the scope table and
the servicer's own checks), and tenants with keys. End-to-end suites use the real stack."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import threading
from collections.abc import Coroutine, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest

from gateway.auth import Authenticator, Tokens, hash_key, parse_tenants
from gateway.eventstore.base import MatchKey
from gateway.usecases import EventOut, MatchView, SubmitOutcome
from gateway.watch import CHANNEL
from tests.kernel.toy_game import GAME
from tests.rules_service import serving

T = TypeVar("T")

ACME_KEY = "ghk_acme-tenant-key-for-tests-000000000000000"
ACME_AUDITOR = "ghk_acme-auditor-key-for-tests-00000000000000"
GLOBEX_KEY = "ghk_globex-tenant-key-for-tests-0000000000000"
GLOBEX_AUDITOR = "ghk_globex-auditor-key-for-tests-000000000000"
# A browser's key (issue 32): only ListGames, GetGameData, CreateTable and ClaimSeat.
ACME_PUBLISHABLE = "ghk_acme-publishable-key-for-tests-0000000000"


def tenants_document(actions_per_second: float = 10_000, active_matches: int = 10_000) -> dict[str, Any]:
    quotas = {
        "open_tickets": 1000,
        "active_matches": active_matches,
        "actions_per_second": actions_per_second,
    }
    tenants: dict[str, Any] = {}
    for name, key, auditor in (("acme", ACME_KEY, ACME_AUDITOR), ("globex", GLOBEX_KEY, GLOBEX_AUDITOR)):
        keys = [
            {"id": f"{name}-app", "sha256": hash_key(key), "scopes": ["tenant"]},
            {"id": f"{name}-audit", "sha256": hash_key(auditor), "scopes": ["auditor"]},
        ]
        tenants[name] = {"keys": keys, "quotas": quotas}
    acme_web = {"id": "acme-web", "sha256": hash_key(ACME_PUBLISHABLE), "scopes": ["publishable"]}
    tenants["acme"]["keys"].append(acme_web)
    return {"tenants": tenants}


def private_database(redis_url: str, slot: int) -> str:
    """The same Redis, another logical database (emptied): for a stack that lives through a whole
    module, which other modules' tests (that flush their own database) must not wipe under it.
    `slot` is one of 8, 10, 12, 14 (databases 0-7 are the workers' own)."""
    from urllib.parse import urlsplit

    import redis

    parts = urlsplit(redis_url)
    if parts.scheme not in ("redis", "rediss"):
        return redis_url
    database = (int(parts.path.strip("/") or 0) % 2 + slot) % 16
    url = parts._replace(path=f"/{database}").geturl()
    client = redis.Redis.from_url(url)
    client.flushdb()
    client.close()
    return url


@contextlib.contextmanager
def http_stack(work: Path, games: Sequence[str], tenants: Sequence[Any] | None = None) -> Iterator[Any]:
    """A real stack (Redis, the games' rules services, one gateway) with the gateway's HTTP port
    on, its number in `http_port`; each process's log under `work`/logs."""
    from devstack.stack import Stack

    with Stack(
        games,
        gateways=1,
        tenants=tenants,
        work_dir=work,
        log_dir=work / "logs",
        gateway_env={"HTTP_PORT": "any", "GRACE_SECONDS": "2"},
        start_timeout_s=60.0,
    ) as running:
        yield running


def bearer(credential: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {credential}")]


class LoopThread:
    """An asyncio loop on a daemon thread: `run(coro)` from sync test code."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()


# -- a fake of GameMatches: a one-rule game ("move" by the active seat, turns rotate) ----------


class MatchNotFoundFake(LookupError):
    pass


@dataclass
class FakeMatch:
    game: str
    players: list[str]
    events: list[EventOut] = field(default_factory=list)
    commands: dict[tuple[int, str], SubmitOutcome] = field(default_factory=dict)


class FakeMatches:
    """Stands in for gateway.usecases.GameMatches with its interface, for servicer-only tests."""

    def __init__(self, redis: Any, keyring: Any) -> None:
        self.redis = redis
        self.keyring = keyring
        self.matches: dict[MatchKey, FakeMatch] = {}

    def _match(self, key: MatchKey) -> FakeMatch:
        from gateway.usecases import MatchNotFound

        match = self.matches.get(key)
        if match is None:
            raise MatchNotFound(key.match_id)
        return match

    def public_keys(self) -> list[Any]:
        return self.keyring.public_keys()

    async def _append(
        self, key: MatchKey, match: FakeMatch, kind: str, actor: int, payload: dict[str, Any]
    ) -> EventOut:
        event = EventOut(len(match.events) + 1, kind, actor, json.dumps(payload).encode(), 0)
        match.events.append(event)
        await self.redis.publish(CHANNEL, f"{key.tenant}\x1f{key.match_id}\x1f{event.version}")
        return event

    async def create(self, tenant: str, game: str, players: list[str], options_json: bytes, **kw: Any) -> Any:
        key = MatchKey(tenant, kw["match_id"])
        match = self.matches.get(key)
        if match is None:
            match = self.matches[key] = FakeMatch(game, list(players))
            await self._append(key, match, "match_created", -1, {"players": len(players)})
        return type("Created", (), {"match_id": key.match_id, "version": 1, "seed_commitment": "00" * 32})()

    def _active(self, match: FakeMatch) -> int:
        moves = sum(1 for e in match.events if e.type == "moved")
        return moves % len(match.players)

    async def get_view(self, key: MatchKey, seat: int | None, *, min_version: int = 0) -> MatchView:
        match = self._match(key)
        active = self._active(match)
        legal = (b'{"type":"move"}',) if seat == active else ()
        view = json.dumps({"moves": len(match.events) - 1, "me": seat}).encode()
        return MatchView(
            match.game,
            key.match_id,
            len(match.events),
            seat,
            view,
            legal,
            (active,),
            False,
            b"",
            tuple(match.players),
        )

    async def submit(
        self,
        key: MatchKey,
        seat: int,
        action: bytes,
        *,
        command_id: str,
        expected_version: int | None = None,
        by_bot: bool = False,
    ) -> SubmitOutcome:
        from services.kernel import Rejection
        from services.kernel.rejection import COMMAND_ID_IN_USE, NOT_YOUR_TURN, STALE_VERSION

        match = self._match(key)
        for (other, command), outcome in match.commands.items():
            if command == command_id:
                if other != seat:
                    return SubmitOutcome(
                        False, Rejection(COMMAND_ID_IN_USE, "used by another seat"), 0, [], game="fake"
                    )
                return SubmitOutcome(True, None, outcome.version, outcome.events, repeated=True, game="fake")
        if expected_version is not None and expected_version != len(match.events):
            return SubmitOutcome(False, Rejection(STALE_VERSION, "stale"), len(match.events), [], game="fake")
        if seat != self._active(match):
            return SubmitOutcome(False, Rejection(NOT_YOUR_TURN, "wait"), len(match.events), [], game="fake")
        event = await self._append(key, match, "moved", seat, {"seat": seat})
        outcome = SubmitOutcome(True, None, event.version, [event], game="fake")
        match.commands[(seat, command_id)] = outcome
        return outcome

    async def resign(self, key: MatchKey, seat: int, *, command_id: str) -> SubmitOutcome:
        match = self._match(key)
        event = await self._append(key, match, "resigned", seat, {"seat": seat})
        return SubmitOutcome(True, None, event.version, [event], game="fake")

    async def undo(
        self, key: MatchKey, seat: int, *, command_id: str, expected_version: int | None = None
    ) -> SubmitOutcome:
        from services.kernel import Rejection
        from services.kernel.rejection import CANNOT_UNDO

        self._match(key)
        return SubmitOutcome(False, Rejection(CANNOT_UNDO, "the fake takes nothing back"), game="fake")

    async def return_to_seat(self, key: MatchKey, seat: int, *, command_id: str) -> SubmitOutcome:
        from services.kernel import Rejection
        from services.kernel.rejection import NOT_YOUR_TURN

        self._match(key)
        return SubmitOutcome(False, Rejection(NOT_YOUR_TURN, "you are not away"), game="fake")

    async def events_since(
        self, key: MatchKey, seat: int | None, after_version: int, limit: int = 500
    ) -> list[EventOut]:
        return self._match(key).events[after_version : after_version + limit]

    async def replay(self, key: MatchKey, version: int, seat: int | None) -> MatchView:
        view = await self.get_view(key, seat)
        return dataclasses.replace(view, version=min(version, view.version))

    async def audit(self, key: MatchKey, receipts: Any = ()) -> Any:
        from gateway.usecases import AuditResult

        return AuditResult(True, len(self._match(key).events), receipts_refused=len(receipts))

    async def export(self, key: MatchKey, up_to_version: int | None = None) -> Any:
        from gateway.usecases import Exported

        match = self._match(key)
        return Exported(b"", up_to_version or len(match.events), False)

    async def raw_events(self, key: MatchKey, after_version: int = 0, limit: int = 1000) -> list[Any]:
        from gateway.eventstore.base import StoredEvent

        return [
            StoredEvent(e.version, e.type, str(e.actor), "c", e.payload_json, "r1", 0, "0" * 64, "0" * 64)
            for e in self._match(key).events[after_version : after_version + limit]
        ]

    async def list_matches(self, tenant: str, **kw: Any) -> Any:
        items = [
            type(
                "S",
                (),
                {
                    "match_id": k.match_id,
                    "game": m.game,
                    "players": m.players,
                    "version": len(m.events),
                    "finished": False,
                    "created_ms": 0,
                },
            )()
            for k, m in self.matches.items()
            if k.tenant == tenant
        ]
        return type("Page", (), {"matches": items, "next_cursor": ""})()


@dataclass
class InProcess:
    address: str
    loop: LoopThread
    matches: FakeMatches
    tokens: Tokens
    channel: grpc.Channel
    hub: Any  # gateway.watch.WatchHub


@pytest.fixture(scope="module")
def fake_gateway(redis_url: str) -> Iterator[InProcess]:
    """The real servicer (auth, scope table, quotas, watch hub on real Redis) over FakeMatches."""
    import redis.asyncio as aioredis
    from guildhall.gateway.v1 import gateway_pb2, gateway_pb2_grpc

    from gateway.api.server import GatewayServicer, Ports
    from gateway.quotas import Quotas
    from gateway.signing import KeyRing
    from gateway.watch import WatchHub

    loop = LoopThread()
    keyring = KeyRing.generate("test-1")

    async def build() -> tuple[Any, Any, FakeMatches, Tokens, Any]:
        client = aioredis.Redis.from_url(redis_url)
        await client.flushdb()
        hub = WatchHub(client)
        await hub.start()
        tokens = Tokens(keyring.sign, keyring.verify)
        matches = FakeMatches(client, keyring)
        ports = Ports(
            matches=matches,
            auth=Authenticator(parse_tenants(tenants_document()), tokens),
            tokens=tokens,
            quotas=Quotas(client),
            hub=hub,
            games={"fake": gateway_pb2.Game(game_id="fake", title="Fake", player_counts=[2, 3])},
        )
        server = grpc.aio.server()
        gateway_pb2_grpc.add_GatewayServiceServicer_to_server(GatewayServicer(ports), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server, client, matches, tokens, (hub, port)

    server, client, matches, tokens, (hub, port) = loop.run(build())
    address = f"127.0.0.1:{port}"
    channel = grpc.insecure_channel(address)
    try:
        yield InProcess(address, loop, matches, tokens, channel, hub)
    finally:
        channel.close()

        async def teardown() -> None:
            await server.stop(0)
            await hub.stop()
            await client.aclose()

        loop.run(teardown())
        loop.close()


@pytest.fixture(scope="module")
def targets() -> Iterator[dict[str, str]]:
    """The toy game's rules service for the use-case tests ({game id: its address}); a module
    that serves other games defines its own."""
    with serving(GAME) as client:
        yield {GAME.game_id: client.target}
