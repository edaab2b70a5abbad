"""The asyncio rules server (what `python -m services.<game>` runs) and its Session stream, through
the gateway's client: the same answers, faults and limits as the unary RPCs, and the fallback
to unary calls against a service without Session."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import pytest
from guildhall.rules.v1 import rules_pb2, rules_pb2_grpc

from devstack.processes import free_port, wait_serving
from gateway.rules_client import Accepted, AsyncRulesClient, RulesClient
from services.kernel import Rejection
from services.server import MAX_ACTION_BYTES, REQUEST_LIMITS, build_aio_server, build_server
from tests.kernel.toy_game import GAME

SEED = (7).to_bytes(32, "big")


def _run(body: Callable[[str], Awaitable[None]]) -> None:
    async def main() -> None:
        server, port, _ = await build_aio_server(GAME)
        await server.start()
        try:
            await body(f"127.0.0.1:{port}")
        finally:
            await server.stop(None)

    asyncio.run(main())


async def _code(call: Awaitable[Any]) -> grpc.StatusCode:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call
    return error.value.code()


@pytest.mark.parametrize("sessions", [0, 2])
def test_unary_and_session_calls_decide_alike(sessions: int) -> None:
    async def body(target: str) -> None:
        client = AsyncRulesClient(GAME.game_id, target, sessions=sessions)
        try:
            state, status = await client.setup(2, SEED)
            assert status.active_players == (0,)
            decision = await client.validate(state, 0, b'{"type": "take", "count": 2}')
            assert isinstance(decision, Accepted) and [e.type for e in decision.events] == ["counters_taken"]
            assert decision.state is not None and GAME.codec.decode_state(decision.state.state).pile == 13
            assert await client.validate(state, 1, b'{"type": "take", "count": 1}') == Rejection(
                "not_your_turn", "It is not your turn."
            )
            replayed, _ = await client.apply(state, decision.events)
            assert replayed.state == decision.state.state
            assert await client.legal_actions(decision.state, 1)
            view, legal, _ = await client.view_and_legal_actions(decision.state, 1)
            assert view and legal
        finally:
            await client.close()

    _run(body)


def test_a_fault_on_a_session_answers_that_call_alone_with_the_unary_status() -> None:
    async def body(target: str) -> None:
        client = AsyncRulesClient(GAME.game_id, target, sessions=1)
        try:
            state, _ = await client.setup(2, SEED)
            assert await _code(client.validate(state, 0, b"{not json")) == grpc.StatusCode.INVALID_ARGUMENT
            old = rules_pb2.GameState(game_id=state.game_id, rules_version="old", state=state.state)
            assert await _code(client.legal_actions(old, 0)) == grpc.StatusCode.FAILED_PRECONDITION
            too_big = b'{"type": "take", "count": 1, "pad": "' + b"x" * MAX_ACTION_BYTES + b'"}'
            assert await _code(client.validate(state, 0, too_big)) == grpc.StatusCode.INVALID_ARGUMENT
            # The stream is still open and answers the next call.
            assert isinstance(await client.validate(state, 0, b'{"type": "take", "count": 1}'), Accepted)
        finally:
            await client.close()

    _run(body)


def test_a_session_request_over_its_calls_limit_is_resource_exhausted() -> None:
    async def body(target: str) -> None:
        async with grpc.aio.insecure_channel(target) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            big = rules_pb2.LegalActionsRequest(
                state=rules_pb2.GameState(
                    game_id=GAME.game_id, state=b"x" * (REQUEST_LIMITS["LegalActions"] + 1)
                )
            )

            async def requests() -> AsyncIterator[rules_pb2.SessionRequest]:
                yield rules_pb2.SessionRequest(id=5, legal_actions=big)
                yield rules_pb2.SessionRequest(id=6)

            answers = [answer async for answer in stub.Session(requests())]
            assert [a.id for a in answers] == [5, 6]
            assert answers[0].fault.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
            assert answers[1].fault.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]

    _run(body)


def test_undecodable_and_oversized_unary_requests_get_their_statuses() -> None:
    async def body(target: str) -> None:
        async with grpc.aio.insecure_channel(target) as channel:
            garbage = channel.unary_unary("/guildhall.rules.v1.RulesService/Validate")
            assert await _code(garbage(b"\xff\xff\xff")) == grpc.StatusCode.INVALID_ARGUMENT
            describe = channel.unary_unary("/guildhall.rules.v1.RulesService/Describe")
            too_big = b"\x0a" + b"\x80\x40" + b"x" * 8192  # a field of 8 KiB: over Describe's 4 KiB
            assert await _code(describe(too_big)) == grpc.StatusCode.RESOURCE_EXHAUSTED

    _run(body)


def test_a_service_without_session_is_called_unary() -> None:
    """An older rules service (here: the threaded server, which has no Session) still serves."""
    server, port, _ = build_server(GAME)
    server.start()

    async def body() -> None:
        client = AsyncRulesClient(GAME.game_id, f"127.0.0.1:{port}", sessions=2)
        try:
            state, _ = await client.setup(2, SEED)
            for _ in range(3):
                assert isinstance(await client.validate(state, 0, b'{"type": "take", "count": 1}'), Accepted)
        finally:
            await client.close()

    try:
        asyncio.run(body())
    finally:
        server.stop(None)


def test_the_threaded_server_is_still_a_choice_of_the_command_line() -> None:
    """`--server threads` (kept to compare against) serves and stops on SIGTERM like the default."""
    port = free_port()
    command = [sys.executable, "-m", "services.rattus_cartus", "--port", str(port), "--server", "threads"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        wait_serving(f"127.0.0.1:{port}", 30, process)  # type: ignore[arg-type]
        client = RulesClient("rattus_cartus", f"127.0.0.1:{port}")
        assert client.describe().game_id == "rattus_cartus"
        client.close()
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0 and "stopped" in err
