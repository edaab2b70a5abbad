"""GameSpec: one game as data plus pure functions, and the checks every game shares."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, TypeVar

import msgspec

from services.kernel.present import Presentation
from services.kernel.rejection import (
    GAME_OVER,
    NOT_YOUR_TURN,
    UNKNOWN_PLAYER,
    Rejection,
    SetupError,
)
from services.kernel.rng import Rng
from services.kernel.undo import draws

S = TypeVar("S")  # the game's state Struct
Action = Any  # a member of the game's tagged action union
Event = Any  # a member of the game's tagged event union


class PlayerResult(msgspec.Struct, frozen=True):
    """One seat's final result: `breakdown` says where the points came from (it sums to
    `score`); `facts` are other figures that decided the result (e.g. rats against nuns)."""

    player: int
    score: int
    breakdown: dict[str, int] = {}
    eliminated: bool = False
    # A sentence a person reads (a secret role revealed, why a seat was eliminated), never an id.
    note: str = ""
    facts: dict[str, int] = {}


class Outcome(msgspec.Struct, frozen=True):
    """A finished game: who won (several on a shared win, none if all lost) and every result.
    `reason`: how it ended, in a sentence a person reads (names from the game data, no seat
    named: a client says who won with the names chosen at the table)."""

    winners: tuple[int, ...]
    results: tuple[PlayerResult, ...]
    reason: str = ""


class SetupConfig(msgspec.Struct, frozen=True):
    """Everything a match starts from; stored as the first event of its stream."""

    players: int
    seed: int
    options: msgspec.Raw = msgspec.Raw(b"{}")  # JSON of the game's options Struct


def _identity_redaction(event: Event, viewer: int | None) -> Event:
    return event


@dataclass(frozen=True, eq=False)
class GameSpec(Generic[S]):
    """A game: its types and its pure rule functions. Players are seats 0..n-1.

    - `setup(players, seed, options)` builds the opening state (raises SetupError).
    - `active_players(state)`: seats that owe a decision now (several at once for
      simultaneous choices); empty when the game is over.
    - `legal_actions(state, player)`: complete and exact for that seat.
    - `validate(state, player, action)`: the events the action causes, or a Rejection.
      Only called for an active seat of an unfinished game (see `decide`).
    - `apply(state, event)`: total; never rejects an event that validate produced.
    - `view(state, viewer)`: what seat `viewer` (None: a spectator) may see.
    - `outcome(state)`: the result once the game is over, else None.
    - `redact_event(event, viewer)`: the event as `viewer` may see it.
    - `probe_actions(state, player)`: optional superset of plausible actions, so the
      conformance suite can prove that what legal_actions leaves out is rejected.
    - `resample_hidden(state, viewer, rng)`: optional; a state `viewer` cannot tell
      from this one (hidden cards reshuffled), so conformance can prove views leak nothing.
    - `variants`: the rulebook's variants as named option sets; conformance plays each.
    - `data`: the data file the game plays with (cards, boards), for clients to render names.
    - `presentation`: decisions, descriptions, components and places for clients that draw a
      table without knowing the engine (services/kernel/present.py).
    - `check_state(state)`: optional; raises ValueError naming the fault when a state that
      decodes does not fit the game (lengths, seats, cards), so a forged or corrupted state
      is a caller's fault (INVALID_ARGUMENT), never a crash deep in the rules.
    - `undoable(state, player, action, events)`: optional; whether an accepted action reveals
      nothing, so its seat may take it back until another seat acts (services/kernel/undo.py;
      `may_take_back` adds the kernel's own refusal of any action that drew randomness).
      None: nothing may be taken back.
    """

    game_id: str
    title: str
    rules_version: str
    player_counts: tuple[int, ...]
    options_type: type[msgspec.Struct]
    state_type: type[msgspec.Struct]
    action_type: Any
    event_type: Any
    view_type: Any
    setup: Callable[[int, int, Any], S]
    active_players: Callable[[S], Sequence[int]]
    legal_actions: Callable[[S, int], Sequence[Action]]
    validate: Callable[[S, int, Action], Sequence[Event] | Rejection]
    apply: Callable[[S, Event], S]
    view: Callable[[S, int | None], Any]
    outcome: Callable[[S], Outcome | None]
    redact_event: Callable[[Event, int | None], Event] = _identity_redaction
    probe_actions: Callable[[S, int], Iterable[Action]] | None = None
    resample_hidden: Callable[[S, int, Rng], S] | None = None
    variants: Mapping[str, Any] = field(default_factory=dict)
    check_state: Callable[[S], None] | None = None
    # The game's data file as loaded (its catalog Struct): published to clients by GetGameData.
    data: Any = None
    # Decisions, event descriptions, board places and id kinds for clients (kernel/present.py).
    presentation: Presentation | None = None
    undoable: Callable[[S, int, Action, Sequence[Event]], bool] | None = None

    # -- shared rules -----------------------------------------------------------------

    def start(self, config: SetupConfig) -> S:
        """The opening state of a match; SetupError if the config cannot start one."""
        if config.players not in self.player_counts:
            counts = ", ".join(str(n) for n in self.player_counts)
            raise SetupError(f"{self.title} is played by {counts} players, not {config.players}")
        options = self.decode_options(bytes(config.options))
        return self.setup(config.players, config.seed, options)

    def decode_options(self, raw: bytes) -> Any:
        try:
            return self.codec.decode_options(raw or b"{}")
        except msgspec.ValidationError as exc:
            raise SetupError(f"bad options for {self.game_id}: {clip(str(exc))}") from None
        except msgspec.DecodeError as exc:
            raise SetupError(f"options are not valid JSON: {clip(str(exc))}") from None

    def decide(self, state: S, player: int, action: Action) -> Sequence[Event] | Rejection:
        """Validate with the checks every game shares: the game is on and it is your turn."""
        if self.outcome(state) is not None:
            return Rejection(GAME_OVER, "The game is over.")
        if not 0 <= player < self.seat_count(state):
            return Rejection(UNKNOWN_PLAYER, f"There is no seat {player} in this match.")
        if player not in self.active_players(state):
            return Rejection(NOT_YOUR_TURN, "It is not your turn.")
        return self.validate(state, player, action)

    def may_take_back(self, state: S, player: int, action: Action, events: Sequence[Event], after: S) -> bool:
        """Whether `player` may take back this accepted action (`state` before it, `after` it)
        until another seat acts: the game declares it reveals nothing, it drew no randomness (a
        player must never draw again until the draw suits them), and it did not end the game."""
        if self.undoable is None or draws(state) != draws(after):
            return False
        return bool(self.undoable(state, player, action, events)) and self.outcome(after) is None

    def seat_count(self, state: S) -> int:
        """Every game state has `players: int`, the number of seats."""
        return int(state.players)  # type: ignore[attr-defined]

    def evolve(self, state: S, events: Iterable[Event]) -> S:
        """Fold events into a state."""
        for event in events:
            state = self.apply(state, event)
        return state

    # -- codecs (built once per spec) -------------------------------------------------

    @cached_property
    def codec(self) -> Codec:
        return Codec(self)


# Integers a client may put in an action or an option: ample for any seat, card, count or
# setting, and small enough that no rule meets an integer it cannot index or compute with.
CLIENT_INT_LIMIT = 2**31


def clip(text: str, limit: int = 200) -> str:
    """Client input echoed in a message is cut short: a 60 MB field must not come back as 60 MB."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _decoding(decode: Callable[[bytes], Any], data: bytes) -> Any:
    """Decode, with every way input can be malformed raised as msgspec.DecodeError."""
    try:
        return decode(data)
    except UnicodeDecodeError:
        raise msgspec.DecodeError("invalid UTF-8 in a string") from None
    except RecursionError:
        raise msgspec.DecodeError("nested too deeply") from None


def _check_ints(value: Any, path: str) -> None:
    """Raise msgspec.ValidationError naming the first integer out of CLIENT_INT_LIMIT."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -CLIENT_INT_LIMIT <= value < CLIENT_INT_LIMIT:
            raise msgspec.ValidationError(f"integer out of range at `{path}`")
    elif isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            _check_ints(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, (tuple, list, frozenset, set)):
        for i, item in enumerate(value):
            _check_ints(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_ints(item, f"{path}.{clip(str(key), 40)}")


class Codec:
    """Encoders for one game: msgpack for server-side state, JSON for what clients see.

    Every decoder raises msgspec.DecodeError (ValidationError for a wrong shape) and nothing
    else, whatever the bytes: invalid UTF-8 and deep nesting included.
    """

    def __init__(self, spec: GameSpec[Any]) -> None:
        self._state_enc = msgspec.msgpack.Encoder()
        self._state_dec = msgspec.msgpack.Decoder(spec.state_type)
        self._json_enc = msgspec.json.Encoder()
        self._action_dec = msgspec.json.Decoder(spec.action_type)
        self._event_dec = msgspec.json.Decoder(spec.event_type)
        self._view_dec = msgspec.json.Decoder(spec.view_type)
        self._options_dec = msgspec.json.Decoder(spec.options_type)

    def encode_state(self, state: Any) -> bytes:
        return self._state_enc.encode(state)

    def decode_state(self, data: bytes) -> Any:
        return _decoding(self._state_dec.decode, data)

    def encode_json(self, value: Any) -> bytes:
        """Actions, events, views, outcomes: the client-facing JSON."""
        return self._json_enc.encode(value)

    def decode_action(self, data: bytes) -> Any:
        """A client's action; integers beyond CLIENT_INT_LIMIT are a ValidationError."""
        action = _decoding(self._action_dec.decode, data)
        _check_ints(action, "$")
        return action

    def decode_options(self, data: bytes) -> Any:
        """Match options; integers beyond CLIENT_INT_LIMIT are a ValidationError."""
        options = _decoding(self._options_dec.decode, data)
        _check_ints(options, "$")
        return options

    def decode_event(self, data: bytes) -> Any:
        return _decoding(self._event_dec.decode, data)

    def decode_view(self, data: bytes) -> Any:
        return _decoding(self._view_dec.decode, data)
