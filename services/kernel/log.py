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

    `cursor` is taken from the current state's Rng on first use (a validate call that draws
    nothing never keys a generator); an event that used draws records `cursor.rng` (its
    counter), which is how Apply moves the state's Rng on, so the cursor and the state agree.
    """

    __slots__ = ("_apply", "state", "_cursor", "events")

    def __init__(self, apply: Callable[[S, E], S], state: S) -> None:
        self._apply = apply
        self.state = state
        self._cursor: RngCursor | None = None
        self.events: list[E] = []

    @property
    def cursor(self) -> RngCursor:
        """The draws of this call, from the Rng of the state at the first draw."""
        if self._cursor is None:
            self._cursor = self.state.rng.cursor()
        return self._cursor

    @property
    def drew(self) -> bool:
        """Whether this call has drawn (taken a cursor) at all."""
        return self._cursor is not None

    def emit(self, event: E) -> None:
        """Apply `event` to the current state and keep it, in order."""
        self.state = self._apply(self.state, event)
        self.events.append(event)
