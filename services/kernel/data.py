"""A game's data file: read, decode into the game's schema, check, fingerprint.

Each game keeps its own schema Structs, its own checks and its own error class; this is the
loading every game does the same way, so a bad file fails with the same kind of message in
every game: the file named first, then the fault.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TypeVar

import msgspec

T = TypeVar("T")


def read_data(path: str | Path, error: type[Exception], what: str) -> bytes:
    """The file's bytes; an unreadable file raises `error` naming `what`, the path and the OS fault."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc}") from None


def parse_data(
    data: bytes | str,
    schema: type[T],
    where: str,
    check: Callable[[T], list[str]],
    error: type[Exception],
    most: int | None = None,
) -> T:
    """TOML decoded into `schema`, then `check`ed; any fault raises `error` prefixed with `where`.

    `most` caps how many of the check's problems the message lists (None: all of them).
    """
    try:
        decoded = msgspec.toml.decode(data, type=schema)
    except msgspec.ValidationError as exc:
        raise error(f"{where}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise error(f"{where}: not valid TOML: {exc}") from None
    problems = check(decoded)
    if problems:
        raise error(f"{where}: " + "; ".join(problems[:most]))
    return decoded


def packaged_data(package: str, name: str) -> bytes:
    """The bytes of the data file `name` shipped inside `package` (works from a wheel or a zip too)."""
    return resources.files(package).joinpath(name).read_bytes()


def data_digest(data: object) -> str:
    """12 hex digits of SHA-256 over the data's sorted-key JSON: which data a game plays with
    (GetGameData's `data_digest`; the rules version hashes the whole digest: kernel/version.py)."""
    canonical = msgspec.json.encode(msgspec.to_builtins(data), order="sorted")
    return hashlib.sha256(canonical).hexdigest()[:12]
