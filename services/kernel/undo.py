"""Undo within a turn: which accepted actions a seat may take back.

Board Game Arena lets a player take back their own moves until something is revealed,
randomness is drawn, or another player acts. The gateway enforces the last condition (it knows
who appended since); the rules decide the first two, once, when they accept the action:

- the kernel refuses any action that moved the state's generator (a draw, a shuffle, a die):
  taking it back would let a player draw again until the draw suits them;
- each game declares the rest with an `UndoRule`: an action may be taken back when every event
  it caused is of a kind that tells no seat anything it could not know before (the acting
  seat's own choices, made public or kept secret, are fine; a card drawn, a hidden card looked
  at, a face-down pile turned up, a secret bid revealed are not).

The declarations are allow-lists, so a new event kind is never undoable until a game says so.
The conformance suite checks every declaration against random playouts: an action declared
undoable must give the acting seat the same events and view whatever the hidden cards are
(tests/conformance/test_undo.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from services.kernel.rng import Rng

_GENERATORS: dict[type, tuple[str, ...]] = {}  # per state type, found once


def _generators(state_type: type) -> tuple[str, ...]:
    """The fields of a state type that hold a generator (`rng: Rng`)."""
    names = _GENERATORS.get(state_type)
    if names is None:
        names = _GENERATORS[state_type] = tuple(
            f.name for f in msgspec.structs.fields(state_type) if f.type is Rng
        )
    return names


def draws(state: Any) -> tuple[int, ...]:
    """How far each of the state's generators has drawn: a change means randomness was used."""
    return tuple(getattr(state, name).counter for name in _generators(type(state)))


def _tag(event: Any) -> str:
    return str(event.__struct_config__.tag)


@dataclass(frozen=True)
class UndoRule:
    """A game's declaration of what may be taken back: an accepted action whose every event is
    of a kind in `quiet`, and not one flagged by the check `unless` names for its kind, reveals
    nothing. A check gets the event and the acting seat: a quest taken from the face-down deck
    rather than the face-up row, another seat's minion removed (its owner's interrupt cards
    decide whether that happens at once, so it shows the actor what they hold)."""

    quiet: frozenset[str]
    unless: Mapping[str, Callable[[Any, int], bool]] = field(default_factory=dict)

    def __call__(self, state: Any, player: int, action: Any, events: Sequence[Any]) -> bool:
        for event in events:
            tag = _tag(event)
            if tag not in self.quiet:
                return False
            check = self.unless.get(tag)
            if check is not None and check(event, player):
                return False
        return True
