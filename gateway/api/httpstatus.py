"""What an HTTP error answer says beyond Connect's own mapping of codes to statuses (issue 39 item 14).

Connect answers every `resource_exhausted` 429 Too Many Requests, which HTTP clients and proxies
retry. Two refusals share that code and differ for a client:

- a body (or a field of it, or what it inflates to) over its size limit: 413 Content Too Large,
  never worth sending again as it is (RFC 9110 15.5.14);
- a quota or a cap on open streams: 429, worth sending again later.

And a retry hint (`trailer-retry-after-ms` on a unary answer, `retry-after-ms` on a refused feed)
is also given as the standard `Retry-After` header, in whole seconds rounded up (RFC 9110 10.2.3),
so any HTTP client waits as long as the gateway asked.

Whoever refuses a call for its size, while the call runs (the body's reader, the gzip inflater, the
servicer's field checks through the Connect context), says so with `refused_for_size()`; the send
wrapper `http_semantics` that HttpApp puts around each call rewrites the status as it starts.
"""

from __future__ import annotations

import contextvars
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

Send = Callable[[Mapping[str, Any]], Awaitable[None]]

# Per call (HttpApp sets a fresh one around each): whether it was refused for its size.
_REFUSED_FOR_SIZE: contextvars.ContextVar[list[bool] | None] = contextvars.ContextVar(
    "guildhall_refused_for_size", default=None
)
_HINTS = (b"trailer-retry-after-ms", b"retry-after-ms")


def refused_for_size() -> None:
    """The call running now is refused because something is over its size limit: 413."""
    flag = _REFUSED_FOR_SIZE.get()
    if flag is not None:
        flag[0] = True


def http_semantics(send: Send) -> Send:
    """`send` for one call, with 413 for a size refusal and Retry-After beside a retry hint.
    Call it in the task that serves the call (it starts the call's flag)."""
    flag = [False]
    _REFUSED_FOR_SIZE.set(flag)

    async def sending(message: Mapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status = int(message["status"])
            headers = list(message.get("headers", ()))
            if flag[0] and status == 429:
                status = 413
            hint = next((bytes(v) for k, v in headers if bytes(k).lower() in _HINTS), b"")
            if hint.isdigit() and not any(bytes(k).lower() == b"retry-after" for k, _ in headers):
                seconds = max(1, math.ceil(int(hint) / 1000))
                headers.append((b"retry-after", str(seconds).encode()))
            message = {**message, "status": status, "headers": headers}
        await send(message)

    return sending
