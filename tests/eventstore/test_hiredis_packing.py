"""The gateway's Redis connections pack commands with hiredis: the same bytes as redis-py's packer,
and redis-py's own packer (and its errors) for anything hiredis would write differently."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio
import redis.exceptions
from hypothesis import given
from hypothesis import strategies as st

from gateway.eventstore.async_redis import (
    HiredisConnection,
    HiredisSSLConnection,
    HiredisUnixConnection,
    connection_class_for,
)

PYTHON_PACKER = redis.asyncio.Connection()
HIREDIS_PACKER = HiredisConnection()


def _wire(connection: redis.asyncio.Connection, *args: object) -> bytes:
    return b"".join(connection.pack_command(*args))  # type: ignore[arg-type]


@given(
    st.lists(
        st.one_of(st.binary(max_size=3000), st.text(max_size=50), st.integers(-(2**70), 2**70)),
        max_size=60,
    )
)
def test_plain_arguments_pack_to_the_same_bytes(arguments: list[object]) -> None:
    command = ("EVALSHA", *arguments)
    assert _wire(HIREDIS_PACKER, *command) == _wire(PYTHON_PACKER, *command)


@pytest.mark.parametrize(
    "command",
    [
        ("SET", "k", 0.1),  # floats: redis-py writes repr
        ("CONFIG GET", "maxmemory"),  # a two-word command name: redis-py splits it
        (b"CLIENT SETNAME", b"x"),
        ("SET", "k", memoryview(b"abc")),
    ],
)
def test_what_hiredis_would_write_otherwise_goes_through_redis_py(command: tuple[object, ...]) -> None:
    assert _wire(HIREDIS_PACKER, *command) == _wire(PYTHON_PACKER, *command)


@pytest.mark.parametrize("bad", [None, True, "\ud800"])
def test_a_bad_argument_fails_as_redis_py_says(bad: object) -> None:
    with pytest.raises((redis.exceptions.DataError, UnicodeError)) as hiredis_error:
        _wire(HIREDIS_PACKER, "SET", "k", bad)
    with pytest.raises((redis.exceptions.DataError, UnicodeError)) as python_error:
        _wire(PYTHON_PACKER, "SET", "k", bad)
    assert type(hiredis_error.value) is type(python_error.value)


def test_the_url_scheme_picks_the_connection_class() -> None:
    assert connection_class_for("redis://h:6379/0") is HiredisConnection
    assert connection_class_for("REDISS://h:6380/0") is HiredisSSLConnection
    assert connection_class_for("unix:///run/redis.sock") is HiredisUnixConnection


def test_commands_round_trip_on_a_real_redis(redis_url: str) -> None:
    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(redis_url, connection_class=connection_class_for(redis_url))
        try:
            await client.set("packing:k", b"\x00\xffvalue")
            await client.hset("packing:h", mapping={"n": 12, "f": 0.25, "s": "é"})
            assert await client.get("packing:k") == b"\x00\xffvalue"
            assert await client.hgetall("packing:h") == {b"n": b"12", b"f": b"0.25", b"s": "é".encode()}
            assert await client.config_get("maxmemory-policy")  # a two-word command name
        finally:
            await client.aclose()

    asyncio.run(scenario())
