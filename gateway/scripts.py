"""Lua scripts on a `redis.asyncio` client that may be a cold cluster client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import redis.exceptions


class ColdClusterGuard:
    """Initializes a cold `redis.asyncio` cluster client once before first use: concurrent first
    commands that fall back from EVALSHA to loading the script fail on a cluster client that has
    not learnt its slots yet (seen with redis-py 8.1). A plain client needs nothing."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.ready = not callable(getattr(client, "initialize", None))

    async def __call__(self) -> None:
        if not self.ready:
            await self._client.initialize()  # redis-py serialises concurrent callers
            self.ready = True


def guarded_script(client: Any, guard: ColdClusterGuard, lua: str) -> Callable[..., Awaitable[Any]]:
    """A registered script that makes sure the client is initialized before its first call.

    A primary just promoted in a failover has an empty script cache, and redis-py's own fallback
    (SCRIPT LOAD, then EVALSHA again) can load it on another node than the one serving the key:
    then the script is sent whole (EVAL), which reaches the right node whatever its cache."""
    script = client.register_script(lua)

    async def call(*, keys: list[Any], args: list[Any]) -> Any:
        if not guard.ready:
            await guard()
        try:
            return await script(keys=keys, args=args)
        except redis.exceptions.NoScriptError:
            return await client.eval(lua, len(keys), *keys, *args)

    return call
