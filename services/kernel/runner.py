"""Re-executing a match with one GameSpec: in process (`Replayer`), or as a child process that a
rules bundle runs (`main`), so an audit can use rules this interpreter does not have.

Two versions of `services.<game>` cannot share one interpreter, so a retired version's bundle
(services/bundles.py) runs in a child process: `python -I -c <boot> <bundle dir> <game> [data]`
imports the game from the bundle, says hello (its rules version and the digests it computed
from the files it imported), then answers requests on stdin until EOF. This module is part of
the kernel, and so of every rules version's digest: a bundle's runner is the code that was
released with it.

Protocol 1: every message is a 4-byte big-endian length and a msgpack map.
    hello    {"protocol": 1, "game", "rules_version", "code_digest", "data_digest"}
    setup    {"op": "setup", "players", "seed": bytes, "options": bytes}
             -> {"state": bytes, "status": [active, finished, outcome]} | {"refused": text}
    decide   {"op": "decide", "state": bytes, "player", "action": bytes}
             -> {"events": [[type, json]...], "state", "status", "undoable"}
                | {"rejection": [code, text]} | {"refused": text}
             ("undoable": whether the seat may take the action back, services/kernel/undo.py;
             absent from runners released before it, read as False: those rules undo nothing)
    anything that fails unexpectedly -> {"error": text} (the runner goes on)

Decisions are the rules service's (services/server.py Validate): the action decoded, the shared
checks and the game's validate, the events as JSON, the next state; an action or state that does
not decode or fit is `refused` (the service's INVALID_ARGUMENT).
"""

from __future__ import annotations

import importlib
import struct
import sys
from collections.abc import Sequence
from typing import IO, Any

import msgspec

from services.kernel.rejection import Rejection, SetupError
from services.kernel.spec import GameSpec, SetupConfig
from services.kernel.version import code_digest, data_digest_full

PROTOCOL = 1
# What a rules function raises on a recorded action or event that does not fit the state (the
# rules service answers INVALID_ARGUMENT for the same).
MISFIT = (IndexError, KeyError, ValueError, TypeError, AttributeError)
_HEADER = struct.Struct(">I")
MAX_MESSAGE = 64 * 1024 * 1024


class Refused(Exception):
    """The rules cannot even read the recorded action, state or options."""


class Status(msgspec.Struct, frozen=True, array_like=True):
    active_players: tuple[int, ...]
    finished: bool
    outcome: bytes


class Decision(msgspec.Struct, frozen=True):
    """Validate's answer: the events (type, JSON), the next state and its status, and whether the
    seat may take the action back (GameSpec.may_take_back)."""

    events: tuple[tuple[str, bytes], ...]
    state: Any
    status: Status
    undoable: bool = False


class Replayer:
    """One GameSpec as a re-execution drives it: setup, then decide action after action."""

    def __init__(self, spec: GameSpec[Any]) -> None:
        self.spec = spec
        self.codec = spec.codec

    def status(self, state: Any) -> Status:
        outcome = self.spec.outcome(state)
        encoded = self.codec.encode_json(outcome) if outcome is not None else b""
        return Status(tuple(self.spec.active_players(state)), outcome is not None, encoded)

    def setup(self, players: int, seed: bytes, options: bytes) -> tuple[Any, Status]:
        try:
            config = SetupConfig(players, int.from_bytes(seed, "big"), msgspec.Raw(options or b"{}"))
            state = self.spec.start(config)
        except SetupError as error:
            raise Refused(str(error)) from None
        return state, self.status(state)

    def decide(self, state: Any, player: int, action: bytes) -> Decision | Rejection:
        try:
            decoded = self.codec.decode_action(action)
        except msgspec.DecodeError as error:  # ValidationError included
            raise Refused(f"the recorded action does not decode: {str(error)[:160]}") from None
        try:
            result = self.spec.decide(state, player, decoded)
            if isinstance(result, Rejection):
                return result
            after = self.spec.evolve(state, result)
        except MISFIT as error:
            raise Refused(f"the action does not fit the state: {type(error).__name__}") from None
        events = tuple((str(e.__struct_config__.tag), self.codec.encode_json(e)) for e in result)
        undoable = self.spec.may_take_back(state, player, decoded, result, after)
        return Decision(events, after, self.status(after), undoable)

    def decode_state(self, data: bytes) -> Any:
        try:
            state = self.codec.decode_state(data)
            if self.spec.check_state is not None:
                self.spec.check_state(state)
        except (msgspec.DecodeError, ValueError) as error:
            raise Refused(f"the state does not fit {self.spec.game_id}: {str(error)[:160]}") from None
        return state


# -- the child process ---------------------------------------------------------------------------


def read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    if size > MAX_MESSAGE:
        raise ValueError(f"a runner message of {size} bytes is over the limit")
    body = stream.read(size)
    if len(body) < size:
        return None
    message: dict[str, Any] = msgspec.msgpack.decode(body)
    return message


def write_message(stream: IO[bytes], message: dict[str, Any]) -> None:
    body = msgspec.msgpack.encode(message)
    stream.write(_HEADER.pack(len(body)) + body)
    stream.flush()


def _answer(replayer: Replayer, request: dict[str, Any]) -> dict[str, Any]:
    encode = replayer.codec.encode_state
    try:
        if request.get("op") == "setup":
            state, status = replayer.setup(request["players"], request["seed"], request["options"])
            return {"state": encode(state), "status": status}
        if request.get("op") == "decide":
            state = replayer.decode_state(request["state"])
            decided = replayer.decide(state, request["player"], request["action"])
            if isinstance(decided, Rejection):
                return {"rejection": [decided.code, decided.message]}
            return {
                "events": decided.events,
                "state": encode(decided.state),
                "status": decided.status,
                "undoable": decided.undoable,
            }
        return {"error": f"unknown request {str(request.get('op'))[:40]!r}"}
    except Refused as refused:
        return {"refused": str(refused)}
    except Exception as error:  # noqa: BLE001 - reported to the caller, who names the version
        return {"error": f"{type(error).__name__}: {str(error)[:300]}"}


def main(argv: Sequence[str]) -> None:
    """`<game> [<data file>]`: serve the game's rules on stdin/stdout until EOF."""
    game = argv[0]
    package = importlib.import_module(f"services.{game}")
    spec: GameSpec[Any] = package.load_game(argv[1]) if len(argv) > 1 else package.GAME
    out = sys.stdout.buffer
    write_message(
        out,
        {
            "protocol": PROTOCOL,
            "game": spec.game_id,
            "rules_version": spec.rules_version,
            "code_digest": code_digest(f"services.{game}"),
            "data_digest": data_digest_full(spec.data),
        },
    )
    replayer = Replayer(spec)
    while (request := read_message(sys.stdin.buffer)) is not None:
        write_message(out, _answer(replayer, request))
