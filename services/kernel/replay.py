"""The replay fold: a match's state is its setup folded with its events."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from services.kernel.spec import GameSpec, SetupConfig


def replay(spec: GameSpec[Any], config: SetupConfig, events: Iterable[Any]) -> Any:
    """The state after `events`, starting from the match's setup."""
    return spec.evolve(spec.start(config), events)


def replay_steps(spec: GameSpec[Any], config: SetupConfig, events: Iterable[Any]) -> Iterator[Any]:
    """Every intermediate state, the opening one first: for auditors stepping through a match."""
    state = spec.start(config)
    yield state
    for event in events:
        state = spec.apply(state, event)
        yield state
