"""EventLog: what one validate call has decided so far, for rules that emit events step by step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from services.kernel.rng import Rng, RngCursor


class _Seeded(Protocol):
    @property
    def rng(self) -> Rng: ...


S = TypeVar("S", bound=_Seeded)  # the game's state Struct, which keeps its Rng
E = TypeVar("E")  # a member of the game's event union


class EventLog(Generic[S, E]):
    """Each emitted event is applied at once, so later steps see the state it leads to.

    `cursor` draws from the Rng of the state the call started from; an event that used draws
    records `cursor.rng` (its counter), which is how Apply moves the state's Rng on.
    """

    __slots__ = ("_apply", "state", "cursor", "events")

    def __init__(self, apply: Callable[[S, E], S], state: S) -> None:
        self._apply = apply
        self.state = state
        self.cursor: RngCursor = state.rng.cursor()
        self.events: list[E] = []

    def emit(self, event: E) -> None:
        """Apply `event` to the current state and keep it, in order."""
        self.state = self._apply(self.state, event)
        self.events.append(event)
