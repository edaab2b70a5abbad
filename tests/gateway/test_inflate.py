"""Issue 30 item 1: a compressed request inflates with a running limit (gateway/api/inflate.py)."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib

import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError

from gateway.api.inflate import CHUNK_BYTES, BoundedGzip, InflateLimit, inflate_gzip
from tests.gateway.test_connect import BOMB_INFLATED, gzip_bomb

LIMIT = 1024 * 1024


def test_the_inflater_never_holds_more_than_the_limit_and_a_chunk() -> None:
    bomb = gzip_bomb()  # 255 KiB -> 256 MiB
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        with pytest.raises(InflateLimit, match="more than 1048576 bytes"):
            inflate_gzip(bomb, LIMIT)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The inflated output (limit + one chunk, a bytearray's slack), the copy of the input and a
    # chunk in flight: a few MiB, where inflating whole holds all 256 MiB.
    assert peak < 2 * (LIMIT + CHUNK_BYTES) + len(bomb) + CHUNK_BYTES, peak
    assert peak < BOMB_INFLATED // 64


def test_the_inflater_gives_what_gzip_gives_within_the_limit() -> None:
    data = bytes(range(256)) * 4096  # exactly the limit
    assert inflate_gzip(gzip.compress(data), LIMIT) == data
    assert inflate_gzip(gzip.compress(b"a") + gzip.compress(b"b"), LIMIT) == b"ab"  # two members
    assert inflate_gzip(gzip.compress(b""), LIMIT) == b""
    with pytest.raises(InflateLimit, match="more than"):
        inflate_gzip(gzip.compress(data + b"x"), LIMIT)
    with pytest.raises(InflateLimit, match="more than"):  # two members over the limit together
        inflate_gzip(gzip.compress(data) + gzip.compress(b"x"), LIMIT)


@pytest.mark.parametrize(
    "garbage",
    [b"not gzip at all", gzip.compress(b"x" * 1000)[:-9], zlib.compress(b"zlib, not gzip")],
    ids=["garbage", "truncated", "zlib"],
)
def test_what_is_not_gzip_is_invalid_argument(garbage: bytes) -> None:
    with pytest.raises(ConnectError) as caught:
        BoundedGzip(LIMIT).decompress(garbage)
    assert caught.value.code == Code.INVALID_ARGUMENT and "not valid gzip" in caught.value.message


def test_the_codec_answers_a_bomb_resource_exhausted_and_still_compresses() -> None:
    codec = BoundedGzip(LIMIT)
    with pytest.raises(ConnectError) as caught:
        codec.decompress(gzip_bomb())
    assert caught.value.code == Code.RESOURCE_EXHAUSTED
    assert codec.name() == "gzip" and gzip.decompress(codec.compress(b"hello")) == b"hello"
