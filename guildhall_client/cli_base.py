"""What every `guildhall` command shares (cli.py and admin_cli.py import it): the client built
from the settings, and running a command with typed errors turned into one line and exit 1."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import typer
from rich.console import Console

from guildhall_client import errors
from guildhall_client.aio import AsyncClient
from guildhall_client.config import Settings

T = TypeVar("T")

err = Console(stderr=True, highlight=False)


def _client(settings: Settings, *, token: str | None = None, verify: bool = True) -> AsyncClient:
    credential = token if token is not None else settings.token
    return AsyncClient(
        settings.target,
        api_key=None if credential else (settings.api_key or None),
        token=credential or None,
        secure=settings.tls,
        timeout_s=settings.timeout,
        verify_receipts=verify,
    )


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a command; typed client errors become a one-line message and exit code 1."""
    try:
        return asyncio.run(coro)
    except errors.Rejected as error:
        err.print(f"[red]rejected[/red] {error.code}: {error.message}")
    except errors.GatewayError as error:
        err.print(f"[red]{error.status.name}[/red]: {error.details}")
    except errors.GuildhallError as error:
        err.print(f"[red]error[/red]: {error}")
    except KeyboardInterrupt:
        err.print("interrupted")
    raise typer.Exit(1)


def admin_call(ctx: typer.Context, rpc: str, request: Any) -> Any:
    """One AdminService call with the settings' target and key; errors as the other commands'."""
    from guildhall.admin.v1 import admin_pb2_grpc

    async def go() -> Any:
        async with _client(ctx.obj) as client:
            stub = admin_pb2_grpc.AdminServiceStub(client.channel)
            return await client._call(getattr(stub, rpc), request, retry=False)

    return _run(go())
