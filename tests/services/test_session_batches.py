"""Batches on the rules Session (issue 25, item 3): calls made in the same turn of the gateway's
event loop go as one message and come back in one; each is decided as if sent alone (a fault
answers its call alone); a call alone goes alone; and a service older than batches is asked
again call by call."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from guildhall.rules.v1 import rules_pb2

from gateway.rules_client import Accepted, AsyncRulesClient
from services.kernel import Rejection
from services.server import AsyncRules, RulesServicer
from tests.kernel.toy_game import GAME

SEED = (7).to_bytes(32, "big")
TAKE = b'{"type": "take", "count": 1}'


class Recording(AsyncRules):
    """The asyncio rules service, recording each Session message it receives (how many calls)."""

    def __init__(self, servicer: RulesServicer, *, batches: bool = True, silent: bool = False) -> None:
        super().__init__(servicer)
        self.messages: list[int] = []
        self.batches = batches
        self.silent = silent  # reads every call, answers none
        self.go = asyncio.Event()  # cleared: the service takes a message and holds it
        self.go.set()
        self.taken = asyncio.Event()

    async def session(self, requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
        async def recorded() -> AsyncIterator[Any]:
            async for request in requests:
                self.messages.append(len(request.batch) or 1)
                self.taken.set()
                await self.go.wait()
                yield request

        if self.silent:
            async for _ in recorded():
                pass
            return
        if self.batches:
            async for response in super().session(recorded(), context):
                yield response
        else:  # as a service older than batches: every message is one call (an envelope names none)
            async for request in recorded():
                yield self._session_call(request)


def _serve(body: Callable[[str, Recording], Awaitable[None]], **options: bool) -> None:
    async def main() -> None:
        recording = Recording(RulesServicer(GAME), **options)
        own = grpc.aio.server()
        own.add_generic_rpc_handlers((recording.handler(),))
        own_port = own.add_insecure_port("127.0.0.1:0")
        await own.start()
        try:
            await body(f"127.0.0.1:{own_port}", recording)
        finally:
            await own.stop(None)

    asyncio.run(main())


def test_calls_made_together_go_in_one_message_and_each_is_answered_as_alone() -> None:
    async def body(target: str, service: Recording) -> None:
        client = AsyncRulesClient(GAME.game_id, target, sessions=1)
        try:
            state, _ = await client.setup(2, SEED)
            service.messages.clear()
            calls = [
                client.validate(state, 0, TAKE),
                client.validate(state, 1, TAKE),  # not its turn: a rejection
                client.validate(state, 0, b"{not json"),  # a fault, for this call alone
                client.legal_actions(state, 0),
                client.view(state, None),
            ]
            answers = await asyncio.gather(*calls, return_exceptions=True)
            assert service.messages == [5]  # one message carried all five
            assert isinstance(answers[0], Accepted)
            assert answers[1] == Rejection("not_your_turn", "It is not your turn.")
            assert isinstance(answers[2], grpc.aio.AioRpcError)
            assert answers[2].code() == grpc.StatusCode.INVALID_ARGUMENT
            assert answers[3] == await client.legal_actions(state, 0)  # the same, asked alone
            assert answers[4] == await client.view(state, None)
            # A call alone is sent alone, at once.
            service.messages.clear()
            await client.validate(state, 0, TAKE)
            assert service.messages == [1]
        finally:
            await client.close()

    _serve(body)


def _held_then_three(in_flight: int) -> list[int]:
    """The messages that carry one call, then three calls made one by one (in three turns of the
    loop) while the service holds the first."""

    async def body(target: str, service: Recording) -> None:
        client = AsyncRulesClient(GAME.game_id, target, sessions=1, in_flight=in_flight)
        try:
            state, _ = await client.setup(2, SEED)
            service.messages.clear()
            service.taken.clear()
            service.go.clear()
            first = asyncio.create_task(client.validate(state, 0, TAKE))
            await service.taken.wait()  # the first call is at the service, not answered
            later = []
            for _ in range(3):
                later.append(asyncio.create_task(client.legal_actions(state, 0)))
                await asyncio.sleep(0.01)
            service.go.set()
            answers = await asyncio.gather(first, *later)
            messages.extend(service.messages)
            assert isinstance(answers[0], Accepted)
            assert answers[1:] == [await client.legal_actions(state, 0)] * 3  # answered as alone
        finally:
            await client.close()

    messages: list[int] = []
    _serve(body)
    return messages


def test_calls_made_while_a_message_is_unanswered_wait_and_go_together() -> None:
    """A group commit (GUILDHALL_RULES_IN_FLIGHT=1, the default): the three calls made while the
    first was at the service went as one message when its answer came back."""
    assert _held_then_three(in_flight=1)[:2] == [1, 3]


def test_without_a_limit_in_flight_each_turns_calls_go_at_once() -> None:
    assert _held_then_three(in_flight=0)[:4] == [1, 1, 1, 1]


def test_a_service_without_batches_is_asked_again_call_by_call() -> None:
    async def body(target: str, service: Recording) -> None:
        client = AsyncRulesClient(GAME.game_id, target, sessions=1)
        try:
            state, _ = await client.setup(2, SEED)
            service.messages.clear()
            first = await asyncio.gather(client.validate(state, 0, TAKE), client.legal_actions(state, 0))
            assert isinstance(first[0], Accepted) and first[1]
            assert service.messages == [2, 1, 1]  # the refused batch, then each call alone
            service.messages.clear()
            await asyncio.gather(client.validate(state, 0, TAKE), client.legal_actions(state, 0))
            assert service.messages == [1, 1]  # and no batch again on that stream
        finally:
            await client.close()

    _serve(body, batches=False)


def test_batches_can_be_turned_off() -> None:
    async def body(target: str, service: Recording) -> None:
        client = AsyncRulesClient(GAME.game_id, target, sessions=1, batches=False)
        try:
            state, _ = await client.setup(2, SEED)
            service.messages.clear()
            await asyncio.gather(client.validate(state, 0, TAKE), client.legal_actions(state, 0))
            assert service.messages == [1, 1]
        finally:
            await client.close()

    _serve(body)


def test_a_call_left_unanswered_fails_with_deadline_exceeded() -> None:
    async def body(target: str, service: Recording) -> None:
        client = AsyncRulesClient(GAME.game_id, target, sessions=1, timeout_s=0.5)
        try:
            state = rules_pb2.GameState(game_id=GAME.game_id, rules_version=GAME.rules_version)
            calls = [client.legal_actions(state, 0), client.legal_actions(state, 1)]
            answers = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 10)
            assert [a.code() for a in answers] == [grpc.StatusCode.DEADLINE_EXCEEDED] * 2  # type: ignore[union-attr]
            assert service.messages == [2]
        finally:
            await client.close()

    _serve(body, silent=True)


def test_a_batch_logs_one_line_and_a_fault_in_it_its_own() -> None:
    """One line per batch message (calls, and how many of each rpc and outcome), plus a line
    with its detail for each call that failed; a call alone keeps its own line."""
    from structlog.testing import capture_logs

    async def body(target: str, service: Recording) -> list[dict[str, Any]]:
        client = AsyncRulesClient(GAME.game_id, target, sessions=1)
        try:
            state, _ = await client.setup(2, SEED)
            with capture_logs() as lines:
                await asyncio.gather(
                    client.validate(state, 0, TAKE),
                    client.validate(state, 1, TAKE),  # a rejection
                    client.validate(state, 0, b"{not json"),  # a fault
                    client.legal_actions(state, 0),
                    return_exceptions=True,
                )
                await client.legal_actions(state, 0)  # alone
            return [line for line in lines if line.get("event") == "rpc"]
        finally:
            await client.close()

    logged: list[list[dict[str, Any]]] = []

    async def run(target: str, service: Recording) -> None:
        logged.append(await body(target, service))

    _serve(run)
    [lines] = logged
    batch = [line for line in lines if line["rpc"] == "Session"]
    assert len(batch) == 1 and batch[0]["calls"] == 4
    assert batch[0]["outcomes"] == {
        "Validate:ok": 1,
        "Validate:rejected:not_your_turn": 1,
        "Validate:fault": 1,
        "LegalActions:ok": 1,
    }
    faults = [line for line in lines if line["rpc"] == "Validate"]
    assert len(faults) == 1 and faults[0]["status"] == "INVALID_ARGUMENT" and faults[0]["detail"]
    assert [line["rpc"] for line in lines].count("LegalActions") == 1  # the call made alone


async def _both_sessions_open(client: AsyncRulesClient, state: Any) -> None:
    """One call on each of the client's two sessions, then until each knows its service process."""
    await asyncio.gather(client.legal_actions(state, 0), client.legal_actions(state, 0))
    for _ in range(200):
        if all(s is not None and s.instance for s in client._sessions):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the sessions never learnt which process answers them")


def test_two_streams_to_one_process_carry_their_calls_as_one() -> None:
    """Issue 45: the service names its process in each Session's initial metadata; a client's
    streams that reach the same process send their calls down one of them, so calls made together
    go in one message (two streams halved every batch, and the service's CPU per action)."""

    async def body(target: str, service: Recording) -> None:
        client = AsyncRulesClient(GAME.game_id, target, sessions=2)
        try:
            state, _ = await client.setup(2, SEED)
            await _both_sessions_open(client, state)
            first, second = client._sessions
            assert first is not None and second is not None and first.instance == second.instance
            service.messages.clear()
            await asyncio.gather(*(client.legal_actions(state, 0) for _ in range(6)))
            assert service.messages == [6]
        finally:
            await client.close()

    _serve(body)


def test_streams_to_two_processes_still_share_the_calls() -> None:
    """Two rules processes behind one target (round robin): each stream reaches its own, and the
    calls keep going to both."""

    async def main() -> None:
        services, servers, ports = [], [], []
        for _ in range(2):
            service = Recording(RulesServicer(GAME))
            server = grpc.aio.server()
            server.add_generic_rpc_handlers((service.handler(),))
            ports.append(server.add_insecure_port("127.0.0.1:0"))
            await server.start()
            services.append(service)
            servers.append(server)
        client = AsyncRulesClient(GAME.game_id, f"ipv4:127.0.0.1:{ports[0]},127.0.0.1:{ports[1]}", sessions=2)
        try:
            await client._channel.channel_ready()
            await asyncio.sleep(0.5)  # both processes connected: round robin then picks each in turn
            state, _ = await client.setup(2, SEED)
            await _both_sessions_open(client, state)
            first, second = client._sessions
            assert first is not None and second is not None and first.instance != second.instance
            for service in services:
                service.messages.clear()
            for _ in range(4):
                await client.legal_actions(state, 0)
            assert [sum(s.messages) for s in services] == [2, 2]
        finally:
            await client.close()
            for server in servers:
                await server.stop(None)

    asyncio.run(main())


def test_the_client_reads_the_name_the_service_gives_its_process() -> None:
    from gateway.rules_client import INSTANCE_METADATA as READ
    from services.server import INSTANCE_METADATA as WRITTEN

    assert READ == WRITTEN
