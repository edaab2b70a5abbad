"""Inflating a compressed request with a running limit (issue 30, item 1).

connect-python decompresses a request (a unary POST body, a GET's `message`, each enveloped
message of a stream) with `gzip.decompress`, whole, and compares the size afterwards: a 255 KiB
gzip bomb became 256 MiB in the gateway's memory (RSS 82 -> 603 MiB) before the answer
"message is larger than configured max". `BoundedGzip` replaces its gzip codec on the HTTP port:
it inflates in chunks and stops as soon as the output passes the limit, so a bomb costs at most
the limit plus one chunk, whatever it would inflate to.
"""

from __future__ import annotations

import gzip
import zlib

from connectrpc.code import Code
from connectrpc.errors import ConnectError

from gateway.api.httpstatus import refused_for_size

CHUNK_BYTES = 64 * 1024  # inflated per step: the most a bomb gets past the limit


class InflateLimit(ValueError):
    """The data inflates past the limit (or is not gzip): refused before it is all inflated."""


def inflate_gzip(data: bytes | bytearray | memoryview, limit: int, chunk: int = CHUNK_BYTES) -> bytes:
    """`data` gunzipped, at most `limit` bytes; InflateLimit as soon as the output passes it.

    Never holds more than limit + chunk inflated bytes: each step asks zlib for at most `chunk`
    bytes (max_length) and the running total is checked before the next. Concatenated gzip
    members (what gzip.decompress accepts) count against the same total."""
    out = bytearray()
    rest = bytes(data)
    while rest:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # a gzip header and trailer
        pending = rest
        try:
            while True:
                piece = inflater.decompress(pending, chunk)
                out += piece
                if len(out) > limit:
                    raise InflateLimit(f"the request inflates to more than {limit} bytes")
                pending = inflater.unconsumed_tail
                if inflater.eof or (not pending and not piece):
                    break
        except zlib.error as error:
            raise InflateLimit(f"the request is not valid gzip: {error}") from None
        if not inflater.eof:
            raise InflateLimit("the request is not valid gzip: it ends before its end")
        rest = inflater.unused_data
    return bytes(out)


class BoundedGzip:
    """connect-python's gzip codec (a `connectrpc.compression.Compression`), with a limit on what
    a request may inflate to. Answers compress as before."""

    def __init__(self, limit: int, level: int = 6) -> None:
        self.limit = limit
        self._level = level

    def name(self) -> str:
        return "gzip"

    def compress(self, data: bytes | bytearray | memoryview) -> bytes:
        return gzip.compress(data, compresslevel=self._level)

    def decompress(self, data: bytes | bytearray | memoryview) -> bytes:
        try:
            return inflate_gzip(data, self.limit)
        except InflateLimit as error:
            too_big = "more than" in str(error)
            if too_big:
                refused_for_size()
            code = Code.RESOURCE_EXHAUSTED if too_big else Code.INVALID_ARGUMENT
            raise ConnectError(code, str(error)) from None
