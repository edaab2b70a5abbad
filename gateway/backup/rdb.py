"""Redis's own snapshot, over the network: an RDB taken with SYNC, read key by key, and each key
turned back into the DUMP payload RESTORE takes (issue 43 item 3).

Decisions (question -> decision):
- Why SYNC? It makes Redis fork and write a point-in-time snapshot (the fork is the instant),
  exactly what a replica gets, with nothing but a connection: no access to the node's disk, no
  exec into its pod. `redis-cli --rdb` does the same. A managed Redis that refuses SYNC has its
  own snapshots: use them (docs/deploy.md).
- Why RESTORE to put it back? It needs nothing but a connection either, routes every key to
  its slot's owner on a Redis Cluster of any shape, writes into a Redis whose AOF is on from
  the start (each RESTORE is logged like any write), and leaves the decoding of every value to
  Redis itself: this module only finds where each value's bytes begin and end. A DUMP payload
  is the value exactly as the RDB holds it, the RDB version and a CRC-64 of both.
- Types this reader does not know (module values, a newer Redis's encodings) stop it with the
  type named: a backup that cannot be restored whole says so, never skips.

The RDB format: https://rdb.fnordig.de/file_format.html and Redis's rdb.h / rdb.c (the source of
record for each type's layout, streams' included). Only the layout is read here; no code of
Redis's is copied.
"""

from __future__ import annotations

import contextlib
import hashlib
import socket
import ssl
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

MAGIC = b"REDIS"
MAX_RDB_VERSION = 11  # Redis 7.2 writes 11; 6.2 writes 9
_CHUNK = 1 << 20

# Opcodes (rdb.h)
_FUNCTION2, _FUNCTION_PRE_GA, _MODULE_AUX = 0xF5, 0xF6, 0xF7
_IDLE, _FREQ, _AUX, _RESIZEDB, _EXPIRE_MS, _EXPIRE_S, _SELECTDB, _EOF = range(0xF8, 0x100)
_SLOT_INFO = 0xF4

# Value types whose value is one string (an encoded container)
_ONE_STRING = {0, 9, 10, 11, 12, 13, 16, 17, 20}
_LIST, _SET, _ZSET, _HASH, _ZSET_2 = 1, 2, 3, 4, 5
_QUICKLIST, _QUICKLIST_2 = 14, 18
_STREAMS = {15: 1, 19: 2, 21: 3}  # stream types -> layout generation


class RdbError(Exception):
    """The file (or the stream from Redis) is not an RDB this reader can read whole."""


# -- CRC-64 (Jones, reflected), as Redis checks DUMP payloads and RDB files ----------------------

_POLY = 0x95AC9329AC4BC9B5  # 0xad93d23594c935a9 reflected


def _tables() -> list[list[int]]:
    first = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY if crc & 1 else crc >> 1
        first.append(crc)
    tables = [first]
    for _ in range(7):  # slicing by 8: eight bytes per step
        previous = tables[-1]
        tables.append([(previous[i] >> 8) ^ first[previous[i] & 0xFF] for i in range(256)])
    return tables


_T = _tables()


def crc64(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """Redis's CRC-64: crc64(b"123456789") == 0xE9C6D914C4B8D9CA."""
    t0, t1, t2, t3, t4, t5, t6, t7 = _T
    view = memoryview(data)
    whole = len(view) // 8 * 8
    for (word,) in struct.iter_unpack("<Q", view[:whole]):
        x = crc ^ word
        crc = (
            t7[x & 0xFF] ^ t6[(x >> 8) & 0xFF] ^ t5[(x >> 16) & 0xFF] ^ t4[(x >> 24) & 0xFF]
            ^ t3[(x >> 32) & 0xFF] ^ t2[(x >> 40) & 0xFF] ^ t1[(x >> 48) & 0xFF] ^ t0[x >> 56]
        )  # fmt: skip
    for byte in view[whole:]:
        crc = t0[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc


def dump_payload(value_type: int, value: bytes, rdb_version: int) -> bytes:
    """What DUMP would answer for this value (RESTORE's argument)."""
    body = bytes([value_type]) + value + struct.pack("<H", rdb_version)
    return body + struct.pack("<Q", crc64(body))


def lzf_decompress(data: bytes, size: int) -> bytes:
    """LZF, as RDB strings may be compressed (only keys are decompressed here)."""
    out = bytearray()
    i = 0
    while i < len(data):
        ctrl = data[i]
        i += 1
        if ctrl < 32:  # a literal run
            out += data[i : i + ctrl + 1]
            i += ctrl + 1
            continue
        length = ctrl >> 5
        if length == 7:
            length += data[i]
            i += 1
        start = len(out) - ((ctrl & 0x1F) << 8) - data[i] - 1
        i += 1
        if start < 0:
            raise RdbError("a compressed string refers before its start")
        for n in range(length + 2):  # byte by byte: the copy may overlap what it writes
            out.append(out[start + n])
    if len(out) != size:
        raise RdbError(f"a compressed string inflates to {len(out)} bytes, not {size}")
    return bytes(out)


# -- reading an RDB ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One key of the snapshot: its database, name, type byte, value bytes as stored, expiry."""

    db: int
    key: bytes
    value_type: int
    value: bytes
    expires_ms: int  # 0: none


class RdbReader:
    """The keys of an RDB, in file order (`entries`), from a binary file."""

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        self._captured: bytearray | None = None
        header = self._read(9)
        if header[:5] != MAGIC or not header[5:].isdigit():
            raise RdbError("not an RDB file (it does not begin with REDIS and a version)")
        self.version = int(header[5:])
        if not 1 <= self.version <= MAX_RDB_VERSION:
            raise RdbError(f"RDB version {self.version}: this reader reads 1 to {MAX_RDB_VERSION}")
        self.aux: dict[bytes, bytes] = {}
        self.checksum = b""  # the 8 bytes after EOF (version 5 on)

    def _read(self, n: int) -> bytes:
        data = self._source.read(n)
        if len(data) != n:
            raise RdbError("the file ends in the middle of an entry: it was cut short")
        if self._captured is not None:
            self._captured += data
        return data

    def _byte(self) -> int:
        return self._read(1)[0]

    def _length(self) -> tuple[int, bool]:
        """(length, encoded): an encoded "length" is a special string encoding's number."""
        first = self._byte()
        kind = first >> 6
        if kind == 0:
            return first & 0x3F, False
        if kind == 1:
            return ((first & 0x3F) << 8) | self._byte(), False
        if kind == 3:
            return first & 0x3F, True
        if first == 0x80:
            return int(struct.unpack(">I", self._read(4))[0]), False
        if first == 0x81:
            return int(struct.unpack(">Q", self._read(8))[0]), False
        raise RdbError(f"unknown length encoding 0x{first:02x}")

    def _plain_length(self) -> int:
        length, encoded = self._length()
        if encoded:
            raise RdbError("an encoded value where a length was expected")
        return length

    def _string(self) -> bytes:
        length, encoded = self._length()
        if not encoded:
            return self._read(length)
        if length in (0, 1, 2):  # an integer of 1, 2 or 4 bytes
            size = 1 << length
            return str(int.from_bytes(self._read(size), "little", signed=True)).encode()
        if length == 3:
            compressed, size = self._plain_length(), self._plain_length()
            return lzf_decompress(self._read(compressed), size)
        raise RdbError(f"unknown string encoding {length}")

    def _skip_string(self) -> None:
        """Past a string without decoding it (a value's bytes are only carried)."""
        length, encoded = self._length()
        if not encoded:
            self._read(length)
        elif length in (0, 1, 2):
            self._read(1 << length)
        elif length == 3:
            compressed = self._plain_length()
            self._plain_length()
            self._read(compressed)
        else:
            raise RdbError(f"unknown string encoding {length}")

    def _skip_value(self, value_type: int) -> None:
        if value_type in _ONE_STRING:
            self._skip_string()
        elif value_type in (_LIST, _SET, _QUICKLIST):
            for _ in range(self._plain_length()):
                self._skip_string()
        elif value_type == _QUICKLIST_2:
            for _ in range(self._plain_length()):
                self._plain_length()  # the node's container kind
                self._skip_string()
        elif value_type == _HASH:
            for _ in range(self._plain_length() * 2):
                self._skip_string()
        elif value_type == _ZSET:
            for _ in range(self._plain_length()):
                self._skip_string()
                size = self._byte()
                if size < 253:  # 253-255: nan, +inf, -inf
                    self._read(size)
        elif value_type == _ZSET_2:
            for _ in range(self._plain_length()):
                self._skip_string()
                self._read(8)
        elif value_type in _STREAMS:
            self._skip_stream(_STREAMS[value_type])
        else:
            raise RdbError(
                f"value type {value_type} is not one this reader knows (a module's, or a newer "
                "Redis's): this snapshot cannot be restored key by key"
            )

    def _skip_stream(self, generation: int) -> None:
        for _ in range(self._plain_length()):  # listpacks: node key, listpack
            self._skip_string()
            self._skip_string()
        for _ in range(3 + (5 if generation >= 2 else 0)):  # length, last id (+ first, max deleted, added)
            self._plain_length()
        for _ in range(self._plain_length()):  # consumer groups
            self._skip_string()
            for _ in range(2 + (1 if generation >= 2 else 0)):  # last id (+ entries read)
                self._plain_length()
            for _ in range(self._plain_length()):  # the group's pending entries
                self._read(16 + 8)  # id, delivery time
                self._plain_length()  # delivery count
            for _ in range(self._plain_length()):  # consumers
                self._skip_string()
                self._read(8 if generation < 3 else 16)  # seen time (+ active time)
                for _ in range(self._plain_length()):
                    self._read(16)

    def entries(self) -> Iterator[Entry]:
        db, expires = 0, 0
        while True:
            opcode = self._byte()
            if opcode == _EOF:
                if self.version >= 5:
                    self.checksum = self._source.read(8)
                return
            if opcode == _SELECTDB:
                db = self._plain_length()
            elif opcode == _RESIZEDB:
                self._plain_length()
                self._plain_length()
            elif opcode == _AUX:
                name = self._string()
                self.aux[name] = self._string()
            elif opcode == _EXPIRE_MS:
                expires = int(struct.unpack("<Q", self._read(8))[0])
            elif opcode == _EXPIRE_S:
                expires = int(struct.unpack("<I", self._read(4))[0]) * 1000
            elif opcode == _FREQ:
                self._byte()
            elif opcode == _IDLE:
                self._plain_length()
            elif opcode == _SLOT_INFO:
                for _ in range(3):
                    self._plain_length()
            elif opcode in (_FUNCTION2, _FUNCTION_PRE_GA):
                self._string()  # a function library's code: not a key; Guildhall loads none
            elif opcode == _MODULE_AUX:
                raise RdbError("the snapshot holds a module's data: this reader cannot restore it")
            else:
                key = self._string()
                self._captured = bytearray()
                try:
                    self._skip_value(opcode)
                    value = bytes(self._captured)
                finally:
                    self._captured = None
                yield Entry(db, key, opcode, value, expires)
                expires = 0


# -- SYNC: the snapshot from a running Redis ----------------------------------------------------


@dataclass(frozen=True)
class Node:
    """A Redis server as a URL names it (credentials included, never printed)."""

    host: str
    port: int
    username: str | None = None
    password: str | None = None
    tls: bool = False
    db: int = 0

    @classmethod
    def from_url(cls, url: str) -> Node:
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss"):
            raise ValueError(f"a Redis URL is redis:// or rediss://, not {parts.scheme or '(none)'}://")
        return cls(
            parts.hostname or "127.0.0.1",
            parts.port or 6379,
            unquote(parts.username) if parts.username else None,
            unquote(parts.password) if parts.password else None,
            parts.scheme == "rediss",
            int(parts.path.strip("/") or 0),
        )

    def at(self, host: str, port: int) -> Node:
        """Another node of the same cluster, with these credentials."""
        return Node(host or self.host, port, self.username, self.password, self.tls, self.db)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def _command(*args: str) -> bytes:
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        raw = arg.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(raw), raw))
    return b"".join(parts)


class SyncStream:
    """A SYNC connection: `start()` sends SYNC (Redis forks for its snapshot then, or attaches to a
    fork under way); `copy_to()` streams the RDB into a file, returning its size and sha256."""

    def __init__(self, node: Node, timeout_s: float = 60.0) -> None:
        self.node = node
        raw = socket.create_connection((node.host, node.port), timeout=timeout_s)
        self._sock: socket.socket = (
            ssl.create_default_context().wrap_socket(raw, server_hostname=node.host) if node.tls else raw
        )
        self._file = self._sock.makefile("rb")
        if node.password:
            who = [node.username] if node.username else []
            self._sock.sendall(_command("AUTH", *who, node.password))
            self._expect_ok("AUTH")

    def _expect_ok(self, what: str) -> None:
        line = self._file.readline()
        if not line.startswith(b"+"):
            raise RdbError(f"{self.node.address} refused {what}: {line.decode(errors='replace').strip()}")

    def start(self) -> None:
        self._sock.sendall(_command("SYNC"))

    def copy_to(self, out: BinaryIO) -> tuple[int, str]:
        while True:  # newlines keep the connection alive while Redis writes the snapshot
            line = self._file.readline()
            if not line:
                raise RdbError(f"{self.node.address} closed the connection before sending its snapshot")
            if line.strip() == b"":
                continue
            if line.startswith(b"-"):
                raise RdbError(
                    f"{self.node.address} refused SYNC: {line.decode(errors='replace').strip()} "
                    "(a managed Redis that refuses it has snapshots of its own: docs/deploy.md)"
                )
            if line.startswith(b"$") and line[1:].strip().isdigit():
                return self._copy_length(out, int(line[1:]))
            raise RdbError(f"{self.node.address} answered SYNC with {line[:40]!r}")

    def _copy_length(self, out: BinaryIO, size: int) -> tuple[int, str]:
        digest = hashlib.sha256()
        left = size
        while left:
            chunk = self._file.read(min(left, _CHUNK))
            if not chunk:
                raise RdbError(f"{self.node.address} closed the connection {left} bytes before the end")
            digest.update(chunk)
            out.write(chunk)
            left -= len(chunk)
        return size, digest.hexdigest()

    def close(self) -> None:
        for closing in (self._file, self._sock):
            with contextlib.suppress(OSError):
                closing.close()
