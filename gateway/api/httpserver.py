"""The gateway's HTTP listener: Hypercorn serving an ASGI app (gateway/api/connect.py's HttpApp)
in the gateway's own event loop, HTTP/1.1 and HTTP/2 on one address."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any


class HttpServer:
    """Hypercorn serving an ASGI app on one address, in the running event loop."""

    def __init__(self, app: Any, host: str, port: int, *, grace_s: float = 10.0) -> None:
        self._app = app
        self._host = host
        self._port = port
        self._grace_s = grace_s
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.port = 0

    async def start(self) -> int:
        """Bind and serve; returns the bound port (a taken port is an error, as for gRPC)."""
        from hypercorn.asyncio.run import worker_serve
        from hypercorn.config import Config
        from hypercorn.utils import wrap_app

        config = Config()
        config.bind = [f"{self._host}:{self._port}"]
        config.graceful_timeout = self._grace_s
        config.accesslog = None  # one structured log line per RPC comes from the servicer
        config.errorlog = logging.getLogger("hypercorn.error")  # through the process's log setup
        config.include_server_header = False
        config.h2_max_concurrent_streams = 1000  # Watch streams share a browser's connection
        try:
            sockets = config.create_sockets()
        except OSError as exc:
            raise SystemExit(f"cannot bind HTTP {self._host}:{self._port}: {exc}") from None
        self.port = int(sockets.insecure_sockets[0].getsockname()[1])
        app = wrap_app(self._app, config.wsgi_max_body_size, "asgi")
        self._task = asyncio.create_task(
            worker_serve(app, config, sockets=sockets, shutdown_trigger=self._stop.wait), name="http"
        )
        return self.port

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self._task, self._grace_s + 5.0)
