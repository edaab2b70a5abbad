"""A spectator sees no less than the table: whatever every seat's view shows, the spectator
view shows too, at every step of seeded random playouts of every game, player count and variant.

What "every seat's view shows" means here (the intersection of the seats' views), over the
views as clients get them (the JSON the codec sends, so omitted defaults and tags count):

- A scalar (string, number, bool, null) is common when every seat has the same value of the
  same JSON type (`1` and `true` differ). Null counts: if no seat sees a value, neither may a
  spectator.
- An object is common key by key: a key is in the intersection when every seat's object has it
  and its values have a common part (recursively); the other keys say nothing.
- An array is compared position by position, and only when every seat's array has the same
  length: position i holds the common part of every seat's element i, or a hole where they
  have none. The spectator's array must have that length and match every position that is not a
  hole. Arrays of different lengths contribute nothing: neither their length nor any position
  is common. Positions, not a set intersection, because view arrays are ordered (seat-indexed
  tuples, board slots, queues, piles): "every seat sees the card in slot 3" is the fact, and a
  multiset intersection would drop where it is.
- Fields that describe the viewer (`viewer`, "your hand", the Spy looks you have left) mean a
  different thing in each seat's view, so their agreement is a coincidence, not shared
  knowledge: `VIEWER_RELATIVE` names them, per game, and they are left out.

A value every seat knows (each may have learned it on its own) is in the intersection, so the
rule also covers, e.g., a face-down Ys broker every seat has looked at.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.kernel import GameSpec
from services.kernel.testing import random_playout
from services.registry import GAMES

SEEDS = (1, 2)
VARIANT_SEED = 3
# Top-level view fields about the viewer rather than the table (see the module docstring).
VIEWER_RELATIVE: dict[str, frozenset[str]] = {
    "rattus_cartus": frozenset({"hand", "my_played"}),  # the viewer's own hand and played cards
    "ys": frozenset({"peeks_left"}),  # the viewer's Spy looks left
    "ankh_morpork": frozenset({"shown_hand"}),  # the hand the viewer inspects (Cable Street)
}
ALWAYS_VIEWER_RELATIVE = frozenset({"viewer"})


class _Hole:
    """An array position where the seats' views have nothing in common."""

    def __repr__(self) -> str:
        return "<hole>"


HOLE = _Hole()
_NOTHING = object()  # no common part at all


def common_to_every_seat(values: list[Any]) -> Any:
    """The part of JSON values present and equal in all of them (see the module docstring);
    `_NOTHING` when there is none."""
    first = values[0]
    if all(isinstance(v, dict) for v in values):
        out = {}
        for key in first:
            if all(key in v for v in values):
                part = common_to_every_seat([v[key] for v in values])
                if part is not _NOTHING:
                    out[key] = part
        return out
    if all(isinstance(v, list) for v in values):
        if len({len(v) for v in values}) != 1:
            return _NOTHING
        parts = (common_to_every_seat([v[i] for v in values]) for i in range(len(first)))
        return [HOLE if part is _NOTHING else part for part in parts]
    if any(isinstance(v, (dict, list)) for v in values):
        return _NOTHING
    if all(type(v) is type(first) and v == first for v in values):
        return first
    return _NOTHING


def not_shown(view: Any, common: Any, path: str = "view") -> list[str]:
    """Where `view` lacks or contradicts the common part `common`, one line per place."""
    if isinstance(common, dict):
        if not isinstance(view, dict):
            return [f"{path}: every seat sees an object, the spectator {view!r}"]
        missing = []
        for key, part in common.items():
            if key not in view:
                missing.append(f"{path}.{key}: every seat sees {part!r}, the spectator nothing")
            else:
                missing += not_shown(view[key], part, f"{path}.{key}")
        return missing
    if isinstance(common, list):
        if not isinstance(view, list) or len(view) != len(common):
            return [f"{path}: every seat sees {len(common)} entries, the spectator {view!r}"]
        return [
            line
            for i, part in enumerate(common)
            if part is not HOLE
            for line in not_shown(view[i], part, f"{path}[{i}]")
        ]
    if type(view) is type(common) and view == common:
        return []
    return [f"{path}: every seat sees {common!r}, the spectator {view!r}"]


def _wire(spec: GameSpec[Any], state: Any, viewer: int | None, leave_out: frozenset[str]) -> Any:
    view = msgspec.json.decode(spec.codec.encode_json(spec.view(state, viewer)))
    return {key: value for key, value in view.items() if key not in leave_out}


def _cases() -> list[Any]:
    cases = [
        pytest.param(game, players, seed, None, id=f"{game}-{players}p-seed{seed}")
        for game, spec in GAMES.items()
        for players in spec.player_counts
        for seed in SEEDS
    ]
    cases += [
        pytest.param(game, max(spec.player_counts), VARIANT_SEED, options, id=f"{game}-{variant}")
        for game, spec in GAMES.items()
        for variant, options in spec.variants.items()
    ]
    return cases


@pytest.mark.parametrize(("game", "players", "seed", "options"), _cases())
def test_a_spectator_sees_whatever_every_seat_sees(game: str, players: int, seed: int, options: Any) -> None:
    spec = GAMES[game]
    leave_out = ALWAYS_VIEWER_RELATIVE | VIEWER_RELATIVE.get(game, frozenset())
    playout = random_playout(spec, players, seed, options)
    state = spec.start(playout.config)
    for step in range(len(playout.steps) + 1):
        if step:
            state = spec.evolve(state, playout.steps[step - 1].events)
        common = common_to_every_seat([_wire(spec, state, seat, leave_out) for seat in range(players)])
        missing = not_shown(_wire(spec, state, None, leave_out), common)
        where = f"{game} {players}p seed {seed}, after {step} actions"
        assert not missing, f"{where}:\n" + "\n".join(missing[:10])


# -- the definition itself -------------------------------------------------------------------


def test_only_keys_every_seat_has_with_equal_values_are_common() -> None:
    seats = [
        {"turn": 3, "phase": "bid", "hand": ["a"], "mine": 1},
        {"turn": 3, "phase": "bid", "hand": ["b"]},
    ]
    assert common_to_every_seat(seats) == {"turn": 3, "phase": "bid", "hand": [HOLE]}


def test_objects_are_intersected_recursively_and_types_must_match() -> None:
    seats = [{"gems": {"blue": 2, "red": 1}, "up": True}, {"gems": {"blue": 2, "red": 0}, "up": 1}]
    assert common_to_every_seat(seats) == {"gems": {"blue": 2}}


def test_arrays_are_matched_by_position_when_every_seat_has_the_same_length() -> None:
    seats = [{"board": [4, None, 2]}, {"board": [4, 3, 2]}, {"board": [4, None, 2]}]
    common = common_to_every_seat(seats)
    assert common == {"board": [4, HOLE, 2]}
    assert not_shown({"board": [4, None, 2]}, common) == []
    assert not_shown({"board": [None, None, 2]}, common) == [
        "view.board[0]: every seat sees 4, the spectator None"
    ]
    assert not_shown({"board": [4, 2]}, common) == [
        "view.board: every seat sees 3 entries, the spectator [4, 2]"
    ]


def test_arrays_of_different_lengths_have_nothing_in_common() -> None:
    assert common_to_every_seat([{"hand": ["a", "b"]}, {"hand": ["a"]}]) == {}


def test_null_that_every_seat_sees_binds_the_spectator_too() -> None:
    common = common_to_every_seat([{"bid": None}, {"bid": None}])
    assert not_shown({"bid": [3, 4]}, common) == ["view.bid: every seat sees None, the spectator [3, 4]"]
