"""Rules bundles: a released rules version kept as a file, so its matches stay verifiable after it
is no longer deployed (issue 40; docs/versions.md).

A bundle is a zip named `<game>-<version>.zip` holding exactly what the version digests
(services/kernel/version.py: `services/__init__.py`, `services/kernel/**`, `services/<game>/**`),
the replacement data file when the version plays with one (`game-data/<file>`), and a manifest
(`guildhall-bundle.json`). It needs Python 3.11+ and msgspec, nothing else: the kernel's runner
(services/kernel/runner.py) re-executes a match from it in a child process.

Content-addressed, and checked on every load:
- statically (`read_bundle`): only the files a bundle may hold (a stray module next to them could
  be imported first), and those the version digests re-hash to the manifest's code digest;
- when started (`BundleRunner.start`): the child, importing from the bundle, reports the code
  digest and the rules version it computed, which must be the ones this side computed and the
  version asked for. A tampered bundle is refused before any of its code decides anything.

    python -m services.bundles build --game rattus_cartus --out var/bundles   (make bundle)
    python -m services.bundles check var/bundles/rattus_cartus-2.0+....zip
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import msgspec

from services.kernel.rejection import Rejection
from services.kernel.runner import PROTOCOL, Refused, Status, read_message, write_message
from services.kernel.spec import GameSpec
from services.kernel.version import SCHEME, code_files, digest_files, digested, edition_of, version_of

MANIFEST = "guildhall-bundle.json"
FORMAT = "guildhall-rules-bundle-1"
DATA_DIR = "game-data"  # not a Python identifier: nothing can be imported from it
MAX_BUNDLE_BYTES = 32 * 1024 * 1024
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed: the same files make the same bytes
# The child: the bundle first on the path, in isolated mode (no PYTHONPATH, no user site, no
# working directory), so `services` is the bundle's and nothing else is (the hello proves it).
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); from services.kernel.runner import main; main(sys.argv[2:])"
)


class BundleError(Exception):
    """The bundle is not one, is not the one asked for, or does not hash to its version."""


def bundle_name(game: str, version: str) -> str:
    return f"{game}-{version}.zip"


# -- building --------------------------------------------------------------------------------------


def load_spec(game: str, data_path: str | Path | None = None) -> GameSpec[Any]:
    """The game as this interpreter has it, with a replacement data file if one is given."""
    package = importlib.import_module(f"services.{game}")
    spec: GameSpec[Any] = package.load_game(data_path) if data_path else package.GAME
    return spec


def build_bundle(game: str, data_path: str | Path | None = None) -> tuple[str, bytes]:
    """(file name, zip bytes) of the game's rules as this interpreter loaded them."""
    spec = load_spec(game, data_path)
    files = code_files(f"services.{game}")
    data_name = f"{DATA_DIR}/{Path(data_path).name}" if data_path else None
    manifest = {
        "format": FORMAT,
        "game": game,
        "rules_version": spec.rules_version,
        "scheme": SCHEME,
        "code_digest": digest_files(files),
        "data": data_name,
        "needs": "Python 3.11+ and msgspec",
    }
    entries = [(MANIFEST, json.dumps(manifest, indent=2, sort_keys=True).encode() + b"\n"), *files]
    if data_path and data_name:
        entries.append((data_name, Path(data_path).read_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return bundle_name(game, spec.rules_version), out.getvalue()


# -- reading and checking ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Bundle:
    """A bundle that passed the static checks."""

    game: str
    rules_version: str
    code_digest: str
    data_name: str | None
    files: dict[str, bytes]
    raw: bytes

    @property
    def name(self) -> str:
        return bundle_name(self.game, self.rules_version)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()


def _allowed(name: str, game: str, data_name: str | None) -> bool:
    parts = name.split("/")
    if "\\" in name or any(part in ("", ".", "..") for part in parts):
        return False  # nothing may land outside the directory it is unpacked in
    if name in (MANIFEST, data_name):
        return True
    return digested(name) and (
        name == "services/__init__.py" or name.startswith(("services/kernel/", f"services/{game}/"))
    )


def read_bundle(raw: bytes, *, game: str | None = None, version: str | None = None) -> Bundle:
    """The bundle in `raw`, checked: its manifest, the files it may hold (nothing else), and its
    digested files against the manifest's code digest; `game`/`version`: the ones it must be."""
    if len(raw) > MAX_BUNDLE_BYTES:
        raise BundleError(f"a bundle is at most {MAX_BUNDLE_BYTES} bytes")
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        names = archive.namelist()
        files = {name: archive.read(name) for name in names if not name.endswith("/")}
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError) as error:
        raise BundleError(f"not a zip file: {error}") from None
    if len(set(names)) != len(names):
        raise BundleError("the zip names a file twice")
    try:
        manifest = json.loads(files[MANIFEST])
        found = (manifest["format"], manifest["game"], manifest["rules_version"], manifest["code_digest"])
    except (KeyError, ValueError, TypeError):
        raise BundleError(f"no readable {MANIFEST}") from None
    kind, bundle_game, bundle_version, digest = (str(part) for part in found)
    data_name = manifest.get("data")
    if kind != FORMAT or manifest.get("scheme") != SCHEME:
        raise BundleError(f"unknown bundle format {kind!r} or digest scheme {manifest.get('scheme')!r}")
    if game is not None and bundle_game != game:
        raise BundleError(f"the bundle is of {bundle_game[:64]!r}, not {game!r}")
    if version is not None and bundle_version != version:
        raise BundleError(f"the bundle is of rules version {bundle_version[:80]!r}, not {version!r}")
    if not bundle_game.isidentifier():
        raise BundleError(f"the bundle names no game: {bundle_game[:64]!r}")
    if data_name is not None and not (
        isinstance(data_name, str)
        and PurePosixPath(data_name).parent == PurePosixPath(DATA_DIR)
        and PurePosixPath(data_name).name not in ("", ".", "..")
    ):
        raise BundleError(f"the manifest's data file {str(data_name)[:80]!r} is not under {DATA_DIR}/")
    stray = sorted(name for name in files if not _allowed(name, bundle_game, data_name))
    if stray:
        raise BundleError(f"the bundle holds files a bundle may not: {', '.join(stray[:5])[:300]}")
    required = ("services/__init__.py", "services/kernel/runner.py", f"services/{bundle_game}/__init__.py")
    missing = [name for name in (*required, data_name) if name is not None and name not in files]
    if missing:
        raise BundleError(f"the bundle lacks {', '.join(missing)}")
    computed = digest_files((name, data) for name, data in files.items() if name not in (MANIFEST, data_name))
    if computed != digest:
        raise BundleError(
            f"the bundle's files do not hash to its code digest: it was altered "
            f"(manifest {digest[:16]}..., files {computed[:16]}...)"
        )
    return Bundle(bundle_game, bundle_version, computed, data_name, files, raw)


# -- running -------------------------------------------------------------------------------------------


def _extracted(bundle: Bundle, cache_dir: Path) -> Path:
    """The bundle's files under `cache_dir`, in a directory named by the zip's hash (written once,
    atomically: a half-written directory is never used)."""
    target = cache_dir / f"{bundle.game}-{bundle.sha256[:24]}"
    if target.is_dir():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".unpack-", dir=cache_dir))
    try:
        for name, data in bundle.files.items():
            path = scratch.joinpath(*PurePosixPath(name).parts)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        os.replace(scratch, target)
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)
        if not target.is_dir():  # another process unpacked it first: use theirs
            raise
    return target


class RunnerError(Exception):
    """The bundle's runner failed to start, said something else than expected, or died."""


class BundleRunner:
    """A child process running a bundle's rules (services/kernel/runner.py), driven by blocking
    calls: `setup`, `decide` (raising `Refused` as the rules service answers INVALID_ARGUMENT)."""

    def __init__(self, bundle: Bundle, process: subprocess.Popen[bytes]) -> None:
        self.bundle = bundle
        self.rules_version = bundle.rules_version
        self._process = process
        self._lock = threading.Lock()  # one request at a time: the child answers in order

    @classmethod
    def start(cls, bundle: Bundle, cache_dir: Path, *, python: str | None = None) -> BundleRunner:
        """Unpack and start the bundle; refuse it unless it reports the code digest this side
        computed and the version asked for."""
        root = _extracted(bundle, cache_dir)
        data = [str(root.joinpath(*PurePosixPath(bundle.data_name).parts))] if bundle.data_name else []
        command = [python or sys.executable, "-I", "-B", "-c", _BOOT, str(root), bundle.game, *data]
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        runner = cls(bundle, process)
        try:
            hello = runner._receive()
        except RunnerError:
            runner.close()
            raise
        expected = version_of(
            edition_of(bundle.rules_version), bundle.code_digest, str(hello.get("data_digest"))
        )
        problems = [
            f"{what} {hello.get(key)!r}, not {want!r}"
            for what, key, want in (
                ("protocol", "protocol", PROTOCOL),
                ("game", "game", bundle.game),
                ("code digest", "code_digest", bundle.code_digest),
                ("rules version", "rules_version", bundle.rules_version),
            )
            if hello.get(key) != want
        ]
        if expected != bundle.rules_version:
            problems.append(f"its data makes version {expected}")
        if problems:
            runner.close()
            raise BundleError(f"the bundle {bundle.name} does not run as its version: {'; '.join(problems)}")
        return runner

    def _receive(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        try:
            message = read_message(self._process.stdout)
        except (ValueError, OSError) as error:
            message, why = None, str(error)
        else:
            why = ""
        if message is None:
            self._process.kill()
            stderr = (
                self._process.stderr.read().decode(errors="replace")[-2000:] if self._process.stderr else ""
            )
            raise RunnerError(f"the runner of {self.bundle.name} stopped answering {why}: {stderr}".strip())
        return message

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            assert self._process.stdin is not None
            try:
                write_message(self._process.stdin, request)
            except OSError as error:
                raise RunnerError(f"the runner of {self.bundle.name} is gone: {error}") from None
            answer = self._receive()
        if "refused" in answer:
            raise Refused(str(answer["refused"]))
        if "error" in answer:
            raise RunnerError(f"the runner of {self.bundle.name} failed: {answer['error']}")
        return answer

    def setup(self, players: int, seed: bytes, options: bytes) -> tuple[bytes, tuple[Any, ...]]:
        """(state bytes, [active players, finished, outcome])."""
        answer = self._call({"op": "setup", "players": players, "seed": seed, "options": options})
        return answer["state"], tuple(answer["status"])

    def decide(
        self, state: bytes, player: int, action: bytes
    ) -> Rejection | tuple[list[tuple[str, bytes]], bytes, tuple[Any, ...], bool]:
        """A Rejection, or (events as (type, JSON), next state bytes, status, undoable: False from
        a runner released before undo, whose rules take nothing back)."""
        answer = self._call({"op": "decide", "state": state, "player": player, "action": action})
        if "rejection" in answer:
            code, message = answer["rejection"]
            return Rejection(str(code), str(message))
        events = [(str(kind), bytes(json)) for kind, json in answer["events"]]
        return events, answer["state"], tuple(answer["status"]), bool(answer.get("undoable", False))

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def close(self) -> None:
        if self._process.poll() is None:
            if self._process.stdin is not None:
                self._process.stdin.close()
            try:
                self._process.wait(5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> BundleRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RulesState(msgspec.Struct, frozen=True):
    """A state as an audit's RulesPort hands it around: its bytes (a bundle's runner) or the
    game's own Struct (in process), with the version that made it."""

    rules_version: str
    state: Any


class RulesEvent(msgspec.Struct, frozen=True):
    type: str
    json: bytes


class RulesDecision(msgspec.Struct, frozen=True):
    """What deciding an action gave: its events, the next state and its status, and whether the
    seat may take it back (services/kernel/undo.py)."""

    events: tuple[RulesEvent, ...]
    state: RulesState
    status: Status
    undoable: bool = False


class BundleRules:
    """A bundle's runner as an audit's RulesPort (gateway/domain/audit.py; `Refused` raised as the
    rules service answers INVALID_ARGUMENT). `in_thread`: each
    call waits for the child in a worker thread (the gateway's event loop must not block);
    without it the calls block, as the offline verifier drives them (no event loop)."""

    def __init__(self, runner: BundleRunner, *, in_thread: bool) -> None:
        self.runner = runner
        self.rules_version = runner.rules_version
        self._in_thread = in_thread

    async def _call(self, method: Any, *args: Any) -> Any:
        if self._in_thread:
            return await asyncio.to_thread(method, *args)
        return method(*args)

    async def setup(self, players: int, seed: bytes, options: bytes) -> tuple[RulesState, Status]:
        state, status = await self._call(self.runner.setup, players, seed, options)
        return RulesState(self.rules_version, state), _status(status)

    async def decide(self, state: RulesState, player: int, action: bytes) -> Any:
        decided = await self._call(self.runner.decide, state.state, player, action)
        if isinstance(decided, Rejection):
            return decided
        events, after, status, undoable = decided
        return RulesDecision(
            tuple(RulesEvent(kind, json) for kind, json in events),
            RulesState(self.rules_version, after),
            _status(status),
            undoable,
        )

    def state_bytes(self, state: RulesState) -> bytes:
        return bytes(state.state)

    def close(self) -> None:
        self.runner.close()


def _status(status: tuple[Any, ...]) -> Status:
    active, finished, outcome = status
    return Status(tuple(int(seat) for seat in active), bool(finished), bytes(outcome))


def find_bundle(game: str, version: str, places: Iterable[Path]) -> Path | None:
    """A bundle of that game and version among files and directories (`<game>-<version>.zip`)."""
    name = bundle_name(game, version)
    for place in places:
        if place.is_dir() and (place / name).is_file():
            return place / name
        if place.is_file() and place.name == name:
            return place
    return None


# -- the command line (make bundle) --------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.bundles", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="write each game's bundle (the rules as installed here)")
    build.add_argument("--game", action="append", default=[], help="a game id (repeatable; default: all)")
    build.add_argument("--data", default="", help="GAME=FILE: the game played with a replacement data file")
    build.add_argument(
        "--out", type=Path, default=Path("var/bundles"), help="directory (default var/bundles)"
    )
    check = commands.add_parser("check", help="check bundles: files, digest, and a start of their runner")
    check.add_argument("bundles", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build":
        from services.registry import GAMES

        data_game, _, data_file = args.data.partition("=")
        if args.data and (not data_file or data_game not in GAMES):
            parser.error(f"--data takes GAME=FILE for a registered game, not {args.data!r}")
        games = args.game or list(GAMES)
        unknown = [g for g in games if g not in GAMES]
        if unknown:
            parser.error(f"no such game: {', '.join(unknown)} (known: {', '.join(GAMES)})")
        args.out.mkdir(parents=True, exist_ok=True)
        for game in games:
            name, raw = build_bundle(game, data_file if game == data_game else None)
            (args.out / name).write_bytes(raw)
            print(f"{args.out / name} ({len(raw):,} bytes)")
        return 0
    failed = 0
    with tempfile.TemporaryDirectory() as cache:
        for path in args.bundles:
            try:
                bundle = read_bundle(path.read_bytes())
                BundleRunner.start(bundle, Path(cache)).close()
            except (OSError, BundleError, RunnerError) as error:
                print(f"{path}: REFUSED: {error}")
                failed += 1
            else:
                print(f"{path}: {bundle.game} {bundle.rules_version}, verified")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
