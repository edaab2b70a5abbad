"""Undo over the registry (issue 41 item 4): in seeded random playouts of every game, each action a
game declares undoable is checked to reveal nothing and draw nothing, and taking it back as the
gateway does (an action_undone entry, the fold skipping what it takes back) gives back exactly the
state and every view from before it.

- Reveals nothing: the acting seat's events and next view are the same whatever the cards hidden
  from it are (`resample_hidden`, several times), and the action is accepted, and undoable, there
  too: neither what the seat sees nor whether it may undo depends on what it cannot see.
- Draws nothing: the state's generator did not move (the kernel's own refusal).
- Taken back: the gateway's fold (gateway/domain/undo.py `taken_back`) over the stream so far,
  take-backs included, replayed from setup, equals the state before the move, byte for byte, and
  so does every seat's and the spectator's view; the playout then goes on from there, so later
  take-backs are checked across earlier ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest

from gateway.domain.match import ACTION_UNDONE, JSON, ActionUndone, seat_actor
from gateway.domain.undo import NOTHING, UndoStack, taken_back
from gateway.eventstore.base import StoredEvent
from services.kernel import GameSpec, Rejection, Rng, SetupConfig, replay
from services.kernel.undo import draws
from services.registry import GAMES

RESAMPLES = 2  # hidden cards dealt anew this many times per undoable action
TAKE_BACK_EVERY = 3  # take back one undoable move in this many (a deterministic draw)


@dataclass
class Table:
    """A match as the gateway keeps it: the stream (game events and take-backs), the undo stack,
    and the state before each move the stack holds."""

    spec: GameSpec[Any]
    config: SetupConfig
    state: Any
    stream: list[StoredEvent] = field(default_factory=list)
    undo: UndoStack = NOTHING
    before: dict[int, Any] = field(default_factory=dict)  # first version of a move -> state before it
    checked: int = 0  # undoable moves checked
    taken: int = 0  # take-backs checked

    def entry(self, kind: str, actor: str, payload: bytes, command: str) -> StoredEvent:
        version = len(self.stream) + 1
        return StoredEvent(version, kind, actor, command, payload, "", 0, "", "")

    def move(self, seat: int, events: list[Any], undoable: bool) -> None:
        codec = self.spec.codec
        first = len(self.stream) + 1
        self.before[first] = self.state
        for event in events:
            self.stream.append(
                self.entry(
                    event.__struct_config__.tag, seat_actor(seat), codec.encode_json(event), f"m{first}"
                )
            )
        self.state = self.spec.evolve(self.state, events)
        over = self.spec.outcome(self.state) is not None
        self.undo = self.undo.after(seat_actor(seat), first, len(self.stream), undoable and not over)

    def take_back(self, seat: int, where: str) -> None:
        first, last = self.undo.top(seat) or (0, 0)
        record = ActionUndone(seat, first, last)
        self.stream.append(self.entry(ACTION_UNDONE, seat_actor(seat), JSON.encode(record), f"u{first}"))
        self.undo = self.undo.popped()
        gone = taken_back(self.stream)
        kept = [
            self.spec.codec.decode_event(e.payload)
            for e in self.stream
            if e.type != ACTION_UNDONE and e.version not in gone
        ]
        restored = replay(self.spec, self.config, kept)
        expected = self.before[first]
        codec = self.spec.codec
        assert codec.encode_state(restored) == codec.encode_state(expected), (
            f"{where}: the take-back is not the state before"
        )
        for viewer in [*range(self.config.players), None]:
            assert codec.encode_json(self.spec.view(restored, viewer)) == codec.encode_json(
                self.spec.view(expected, viewer)
            ), f"{where}: seat {viewer}'s view after the take-back is not the one before"
        self.state = restored
        self.taken += 1


def _shown(spec: GameSpec[Any], events: Any, seat: int) -> list[bytes]:
    return [spec.codec.encode_json(spec.redact_event(e, seat)) for e in events]


def check_reveals_nothing(
    spec: GameSpec[Any], state: Any, seat: int, action: Any, events: Any, after: Any, bots: Any, where: str
) -> None:
    """The seat's events and next view do not depend on what is hidden from it."""
    assert draws(state) == draws(after), f"{where}: an undoable move drew randomness"
    assert spec.resample_hidden is not None
    seen = _shown(spec, events, seat)
    view = spec.codec.encode_json(spec.view(after, seat))
    for _ in range(RESAMPLES):
        other = spec.resample_hidden(state, seat, Rng.from_seed(bots.next_u64()))
        result = spec.decide(other, seat, action)
        assert not isinstance(result, Rejection), (
            f"{where}: {action!r} refused where only hidden cards differ"
        )
        other_after = spec.evolve(other, result)
        assert _shown(spec, result, seat) == seen, f"{where}: {action!r} shows its seat something hidden"
        assert spec.codec.encode_json(spec.view(other_after, seat)) == view, (
            f"{where}: {action!r} changes its seat's view by something hidden"
        )
        assert spec.may_take_back(other, seat, action, result, other_after), (
            f"{where}: whether {action!r} may be taken back depends on something hidden"
        )


def undo_playout(
    spec: GameSpec[Any], players: int, seed: int, options: Any = None, max_steps: int = 20_000
) -> Table:
    raw = msgspec.json.encode(options if options is not None else spec.options_type())
    config = SetupConfig(players=players, seed=seed, options=msgspec.Raw(raw))
    table = Table(spec, config, spec.start(config))
    bots = Rng.from_seed(seed ^ 0x0D0).cursor()
    steps = 0
    while spec.outcome(table.state) is None:
        steps += 1
        where = f"{spec.game_id} {players}p seed {seed} step {steps}"
        assert steps <= max_steps, f"{where}: no end"
        state = table.state
        seat = bots.choice(list(spec.active_players(state)))
        action = bots.choice(list(spec.legal_actions(state, seat)))
        events = spec.decide(state, seat, action)
        assert not isinstance(events, Rejection), f"{where}: {events}"
        after = spec.evolve(state, events)
        undoable = spec.may_take_back(state, seat, action, events, after)
        if undoable:
            check_reveals_nothing(spec, state, seat, action, events, after, bots, where)
            table.checked += 1
        table.move(seat, list(events), undoable)
        while table.undo.top(seat) is not None and bots.randbelow(TAKE_BACK_EVERY) == 0:
            table.take_back(seat, where)
    return table


CASES = [
    pytest.param(game, players, seed, id=f"{game}-{players}p-seed{seed}")
    for game, spec in GAMES.items()
    for players in (min(spec.player_counts), max(spec.player_counts))
    for seed in (1,)
]


@pytest.mark.parametrize(("game", "players", "seed"), CASES)
def test_what_a_game_lets_a_seat_take_back_reveals_nothing_and_comes_back_exactly(
    game: str, players: int, seed: int
) -> None:
    table = undo_playout(GAMES[game], players, seed)
    # The property was exercised, not vacuous: moves were undoable and some were taken back.
    assert table.checked > 0 and table.taken > 0, (table.checked, table.taken)
