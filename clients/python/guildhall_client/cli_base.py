"""What every `guildhall` command shares (cli.py and admin_cli.py import it): the client built
from the settings, and running a command with typed errors turned into one line and exit 1."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from guildhall_client import errors
from guildhall_client.aio import AsyncClient
from guildhall_client.config import Settings

T = TypeVar("T")

err = Console(stderr=True, highlight=False)

# The server distribution's packages and msgspec, its codec: what `guildhall-client[rules]` adds
# (docs/clients.md, "Install").
SERVER_PACKAGES = ("services", "gateway", "msgspec")


@contextlib.contextmanager
def needs_rules(command: str) -> Iterator[None]:
    """Imports of the server's code (the rules, the gateway's audit): where they are not
    installed, one line saying what to install and exit 2, not a traceback."""
    try:
        yield
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in SERVER_PACKAGES:
            raise
        err.print(
            f"[red]{command}:[/red] runs the server's rules and audit code, which this installation "
            + escape("lacks: pip install 'guildhall-client[rules]'")  # `[rules]` is no markup
        )
        raise typer.Exit(2) from None


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
