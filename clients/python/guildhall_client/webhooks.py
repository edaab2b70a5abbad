"""Receiving Guildhall webhooks: check the signature, read the event, answer quickly.

    from guildhall_client.webhooks import verify, WebhookError

    event = verify(body, headers["Guildhall-Signature"], secrets=["whsec_..."])
    if event.type == "match.ended":
        ...   # event.data["players"], event.data["ratings"], event.data["outcome"]

A delivery is signed with HMAC-SHA256 over "<t>." + the raw body, with each of the tenant's
secrets (`v1=` values; during a rotation there are several), where `t` is the Unix time of
sending: `verify` accepts it when any secret matches and `t` is within `tolerance_s` of now
(replays of a captured delivery are refused after that). Deliveries come at least once and in
no guaranteed order: keep the ids you have handled (`event.id`) and skip repeats; order by
`data.version` within a match.

`receiver(handle, secrets)` is a complete receiver on the standard library's HTTP server
(`python -m guildhall_client.webhooks --port 8080 --secret whsec_...` prints what arrives).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SIGNATURE_HEADER = "Guildhall-Signature"
DEFAULT_TOLERANCE_S = 300.0
MAX_BODY = 1024 * 1024


class WebhookError(ValueError):
    """The delivery is not one Guildhall signed with your secret (or it is too old)."""


@dataclass(frozen=True)
class WebhookEvent:
    id: str
    type: str
    api_version: int
    created_ms: int
    tenant: str
    data: dict[str, Any]
    raw: bytes = field(repr=False, default=b"")


def sign(body: bytes, secret: str, timestamp: int | None = None) -> str:
    """The header value Guildhall would send for `body` (for tests of your receiver)."""
    t = int(time.time()) if timestamp is None else timestamp
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


def verify(
    body: bytes,
    header: str | None,
    secrets: Iterable[str],
    *,
    tolerance_s: float = DEFAULT_TOLERANCE_S,
    now: float | None = None,
) -> WebhookEvent:
    """The event in `body` if `header` signs it with one of `secrets`; else WebhookError."""
    if not header:
        raise WebhookError(f"no {SIGNATURE_HEADER} header")
    timestamp: int | None = None
    signatures: list[str] = []
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        if name == "t" and value.isdigit():
            timestamp = int(value)
        elif name == "v1" and value:
            signatures.append(value)
    if timestamp is None or not signatures:
        raise WebhookError(f"malformed {SIGNATURE_HEADER} header")
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance_s:
        raise WebhookError("the signature's timestamp is outside the tolerance (a replay, or a clock off)")
    signed = f"{timestamp}.".encode() + body
    expected = [hmac.new(s.encode(), signed, hashlib.sha256).hexdigest() for s in secrets]
    if not any(hmac.compare_digest(e, given) for e in expected for given in signatures):
        raise WebhookError("no signature matches a secret of yours")
    try:
        envelope = json.loads(body)
        return WebhookEvent(
            envelope["id"],
            envelope["type"],
            int(envelope["api_version"]),
            int(envelope["created_ms"]),
            envelope["tenant"],
            envelope["data"],
            bytes(body),
        )
    except (ValueError, KeyError, TypeError) as error:
        raise WebhookError(f"the body is not a webhook event: {error}") from None


def receiver(
    handle: Callable[[WebhookEvent], None],
    secrets: Sequence[str],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    tolerance_s: float = DEFAULT_TOLERANCE_S,
) -> ThreadingHTTPServer:
    """An HTTP server (not yet serving: call `serve_forever`) that verifies each POST and calls
    `handle(event)`: 204 when it returns, 400 for a bad signature, 500 if it raises (Guildhall
    then retries with backoff). Keep `handle` short: a slow answer is retried as a failure."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self.send_error(413)
                return
            body = self.rfile.read(length)
            try:
                event = verify(body, self.headers.get(SIGNATURE_HEADER), secrets, tolerance_s=tolerance_s)
            except WebhookError as error:
                self.send_error(400, str(error))
                return
            try:
                handle(event)
            except Exception:
                self.send_error(500)
                return
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # quiet by default
            pass

    return ThreadingHTTPServer((host, port), Handler)


def main(argv: Sequence[str] | None = None) -> None:
    """Print every verified event that arrives (a receiver to try webhooks with)."""
    parser = argparse.ArgumentParser(prog="python -m guildhall_client.webhooks", description=main.__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument(
        "--secret",
        action="append",
        default=[],
        help="a webhook secret (repeat; env GUILDHALL_WEBHOOK_SECRET)",
    )
    args = parser.parse_args(argv)
    secrets = args.secret or [os.environ.get("GUILDHALL_WEBHOOK_SECRET", "")]
    if not any(secrets):
        parser.error("give --secret (or GUILDHALL_WEBHOOK_SECRET)")
    lock = threading.Lock()

    def show(event: WebhookEvent) -> None:
        with lock:
            print(json.dumps({"id": event.id, "type": event.type, "data": event.data}), flush=True)

    server = receiver(show, secrets, host=args.host, port=args.port)
    print(f"listening on http://{args.host}:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
