"""A game's rules version: its human edition and a digest of everything that decides behaviour.

`<edition>+<16 hex>`, e.g. `2.0+3f9c0a1b22d4e5f6`. The digest covers (scheme `guildhall-rules-v1`):

- the code, as shipped: every `.py` file and every data file (`.toml`, `.json` in a `data/`
  directory: what the wheel ships, pyproject.toml's package-data) of `services/__init__.py`,
  the kernel (`services/kernel/**`, shared by every game) and the game's package
  (`services/<game>/**`), read through importlib.resources, so an installed wheel, a source tree
  and a rules bundle (services/bundles.py) give the same digest for the same files;
- the data the game actually plays with (`data_digest_full` of the loaded catalog), so a
  replacement data file (GAME_DATA) is another version.

Two builds that could replay a match differently never share a version: a change of one line of
a game's code, of its data file or of the kernel gives a new one (docs/versions.md). The edition
is the game's own (docs/rules/<game>.md's changelog says what each edition changed).

Pure (stdlib + msgspec, like the rest of the kernel). Never change what scheme v1 hashes:
bundles of past versions are checked against it for as long as their matches are audited; a
new way of hashing is a new scheme.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

import msgspec

SCHEME = "guildhall-rules-v1"
DIGEST_HEX = 16  # 64 bits: forging other code under a recorded version is out of reach (docs/versions.md)
DATA_SUFFIXES = (".toml", ".json")
EDITION = re.compile(r"[A-Za-z0-9._-]{1,32}")
# What a rules version looks like (scheme v1): safe in file names, Redis keys and URLs.
VERSION = re.compile(r"[A-Za-z0-9._-]{1,32}\+[0-9a-f]{16}")


class VersionError(ValueError):
    """An edition or package a rules version cannot be made of."""


def digested(path: str) -> bool:
    """Whether a file (its path relative to the package root's parent, `/`-separated) is part of
    the code digest: Python sources, and data files in a `data/` directory."""
    parts = path.split("/")
    if "__pycache__" in parts:
        return False
    name = parts[-1]
    if name.endswith(".py"):
        return True
    return name.endswith(DATA_SUFFIXES) and len(parts) >= 2 and parts[-2] == "data"


def digest_files(files: Iterable[tuple[str, bytes]]) -> str:
    """SHA-256 (hex) over (path, bytes) pairs in path order. Line endings are normalised (a
    Windows checkout gives the same digest); each path and length is hashed before its bytes."""
    digest = hashlib.sha256(SCHEME.encode() + b"\0")
    for path, content in sorted(files):
        body = content.replace(b"\r\n", b"\n")
        digest.update(f"{path}\0{len(body)}\0".encode())
        digest.update(body)
    return digest.hexdigest()


def _walk(root: Traversable, prefix: str) -> Iterator[tuple[str, bytes]]:
    for entry in root.iterdir():
        path = f"{prefix}/{entry.name}"
        if entry.is_dir():
            if entry.name != "__pycache__":
                yield from _walk(entry, path)
        elif digested(path):
            yield path, entry.read_bytes()


def code_files(package: str) -> list[tuple[str, bytes]]:
    """The digested files of `package` with the kernel's and `services/__init__.py`, as loaded."""
    kernel = "services.kernel"
    files = [("services/__init__.py", resources.files("services").joinpath("__init__.py").read_bytes())]
    for name in dict.fromkeys((kernel, package)):  # the kernel's own version: once
        files.extend(_walk(resources.files(name), name.replace(".", "/")))
    return files


@cache
def code_digest(package: str) -> str:
    """The digest of the code `package` runs (computed once per process)."""
    return digest_files(code_files(package))


def data_digest_full(data: object) -> str:
    """SHA-256 (hex) of the data's sorted-key JSON: the data part of a rules version."""
    canonical = msgspec.json.encode(msgspec.to_builtins(data), order="sorted")
    return hashlib.sha256(canonical).hexdigest()


def version_of(edition: str, code: str, data: str) -> str:
    """The rules version of an edition, a code digest and a data digest (scheme v1)."""
    if not EDITION.fullmatch(edition):
        raise VersionError(f"an edition is 1-32 of A-Z a-z 0-9 . _ - (it names files), not {edition!r}")
    combined = hashlib.sha256(f"{SCHEME}\0{code}\0{data}".encode()).hexdigest()
    return f"{edition}+{combined[:DIGEST_HEX]}"


def rules_version(edition: str, data: object, *, package: str | None) -> str:
    """The version of the game in `package` (its `__package__`) playing with `data`."""
    if not package:
        raise VersionError("a rules version needs the game's package (pass __package__)")
    return version_of(edition, code_digest(package), data_digest_full(data))


def edition_of(version: str) -> str:
    """The human edition of a rules version (before the `+`)."""
    return version.partition("+")[0]
