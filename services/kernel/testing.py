"""Testing helpers shared by every game: seeded random playouts, the conformance
checks of ARCHITECTURE.md, and golden playthrough rendering.

Pure like the rest of the kernel: bots draw from the kernel's own `Rng`.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from services.kernel.data import data_digest
from services.kernel.rejection import NOT_YOUR_TURN, Rejection
from services.kernel.rng import Rng, RngCursor
from services.kernel.spec import GameSpec, Outcome, SetupConfig
from services.kernel.version import edition_of


@dataclass
class Step:
    player: int
    action: Any
    events: Sequence[Any]


@dataclass
class Playout:
    config: SetupConfig
    steps: list[Step] = field(default_factory=list)
    final: Any = None
    outcome: Outcome | None = None


class PlayoutTooLong(AssertionError):
    """A random playout did not finish within its step budget."""


def _config(spec: GameSpec[Any], players: int, seed: int, options: Any) -> SetupConfig:
    raw = msgspec.json.encode(options if options is not None else spec.options_type())
    return SetupConfig(players=players, seed=seed, options=msgspec.Raw(raw))


def random_playout(
    spec: GameSpec[Any],
    players: int,
    seed: int,
    options: Any = None,
    *,
    bot_seed: int | None = None,
    max_steps: int = 20_000,
) -> Playout:
    """Play to the end with every seat picking uniformly among its legal actions."""
    config = _config(spec, players, seed, options)
    state = spec.start(config)
    bots = Rng.from_seed(bot_seed if bot_seed is not None else seed ^ 0x5EED).cursor()
    playout = Playout(config)
    while spec.outcome(state) is None:
        if len(playout.steps) >= max_steps:
            raise PlayoutTooLong(f"{spec.game_id} {players}p seed {seed}: no end in {max_steps} steps")
        player, action = _pick(spec, state, bots)
        events = spec.decide(state, player, action)
        if isinstance(events, Rejection):
            raise AssertionError(f"listed action {action!r} was rejected: {events}")
        state = spec.evolve(state, events)
        playout.steps.append(Step(player, action, events))
    playout.final = state
    playout.outcome = spec.outcome(state)
    return playout


def _pick(spec: GameSpec[Any], state: Any, bots: RngCursor) -> tuple[int, Any]:
    active = list(spec.active_players(state))
    if not active:
        raise AssertionError(f"{spec.game_id}: unfinished game with nobody to act")
    player = bots.choice(active)
    actions = spec.legal_actions(state, player)
    if not actions:
        raise AssertionError(f"{spec.game_id}: active seat {player} has no legal action")
    return player, bots.choice(actions)


@dataclass
class Move:
    """One accepted action of a playout, with the state before and after it."""

    state: Any
    player: int
    action: Any
    events: Sequence[Any]
    after: Any

    @property
    def kind(self) -> str:
        """The action's tag, e.g. "place_broker"."""
        return str(self.action.__struct_config__.tag)

    @property
    def event_kinds(self) -> set[str]:
        return {str(e.__struct_config__.tag) for e in self.events}

    def undoable(self, spec: GameSpec[Any]) -> bool:
        return spec.may_take_back(self.state, self.player, self.action, self.events, self.after)


def find_move(
    spec: GameSpec[Any],
    players: int,
    wanted: Any,
    *,
    seeds: Sequence[int] = tuple(range(1, 21)),
    options: Any = None,
) -> Move:
    """The first move of seeded random playouts that `wanted(move)` accepts: a scenario for a
    rule about one kind of action, found rather than built by hand."""
    for seed in seeds:
        config = _config(spec, players, seed, options)
        state = spec.start(config)
        bots = Rng.from_seed(seed ^ 0x5EED).cursor()
        for _ in range(20_000):
            if spec.outcome(state) is not None:
                break
            player, action = _pick(spec, state, bots)
            events = spec.decide(state, player, action)
            assert not isinstance(events, Rejection), f"listed action {action!r} was rejected: {events}"
            after = spec.evolve(state, events)
            move = Move(state, player, action, events, after)
            if wanted(move):
                return move
            state = after
    raise AssertionError(f"{spec.game_id}: no such move in seeds {seeds[0]}-{seeds[-1]}")


def check_conformance(
    spec: GameSpec[Any],
    players: int,
    seed: int,
    options: Any = None,
    *,
    max_steps: int = 20_000,
    exhaustive_below: int = 12,
) -> Playout:
    """A random playout that checks, at every step, the invariants every game owes:

    listed actions are accepted and unlisted ones rejected without a change; only
    active seats may act; state, actions, events and views survive their codecs;
    a replay of the JSON events equals the live state byte for byte; a view does
    not change when what its viewer cannot see is reshuffled; no view or redacted event
    carries the generator's key; a finished game has
    an outcome and no legal action. Raises AssertionError naming the step.
    """
    codec = spec.codec
    config = _config(spec, players, seed, options)
    state = spec.start(config)
    replayed = spec.start(config)
    bots = Rng.from_seed(seed ^ 0xC0FFEE).cursor()
    playout = Playout(config)
    seen_actions: list[Any] = []
    while spec.outcome(state) is None:
        where = f"{spec.game_id} {players}p seed {seed} step {len(playout.steps)}"
        if len(playout.steps) >= max_steps:
            raise PlayoutTooLong(f"{where}: no end in {max_steps} steps")
        before = codec.encode_state(state)
        assert codec.decode_state(before) == state, f"{where}: state codec round trip"
        if spec.check_state is not None:
            spec.check_state(state)  # a state the rules made must pass the game's own check
        active = set(spec.active_players(state))
        for seat in range(players):
            listed = list(spec.legal_actions(state, seat))
            if seat not in active:
                assert not listed, f"{where}: inactive seat {seat} has legal actions"
                for action in seen_actions[-3:]:
                    rejection = spec.decide(state, seat, action)
                    assert isinstance(rejection, Rejection) and rejection.code == NOT_YOUR_TURN, (
                        f"{where}: inactive seat {seat} was not told not_your_turn"
                    )
                continue
            _check_listed(spec, state, seat, listed, bots, exhaustive_below, where)
            _check_unlisted(spec, state, seat, listed, seen_actions, where)
            seen_actions.extend(listed[:4])
            if len(seen_actions) > 400:
                del seen_actions[:200]
        _check_views(spec, state, players, bots, where)
        assert codec.encode_state(state) == before, f"{where}: checking changed the state"

        player, action = _pick(spec, state, bots)
        events = spec.decide(state, player, action)
        assert not isinstance(events, Rejection), f"{where}: {action!r} rejected: {events}"
        for event in events:
            wire = codec.encode_json(event)
            decoded = codec.decode_event(wire)
            assert decoded == event, f"{where}: event codec round trip of {event!r}"
            for viewer in [*range(players), None]:
                _assert_no_secret(
                    codec.encode_json(spec.redact_event(event, viewer)), state, f"{where} event"
                )
            state = spec.apply(state, event)
            replayed = spec.apply(replayed, decoded)
            if spec.check_state is not None:
                # The gateway folds events one Apply at a time, so every state between two
                # events of one action must pass the game's own check too.
                spec.check_state(state)
        assert codec.encode_state(replayed) == codec.encode_state(state), f"{where}: replay differs"
        playout.steps.append(Step(player, action, events))

    where = f"{spec.game_id} {players}p seed {seed} end"
    outcome = spec.outcome(state)
    assert outcome is not None
    assert not list(spec.active_players(state)), f"{where}: finished game has active seats"
    for seat in range(players):
        assert not list(spec.legal_actions(state, seat)), f"{where}: finished game has legal actions"
    assert len(outcome.results) == players, f"{where}: outcome lacks a result per seat"
    assert set(outcome.winners) <= set(range(players)), f"{where}: unknown winner"
    msgspec.json.decode(codec.encode_json(outcome), type=Outcome)
    playout.final = state
    playout.outcome = outcome
    return playout


def _check_listed(
    spec: GameSpec[Any], state: Any, seat: int, listed: list[Any], bots: RngCursor, limit: int, where: str
) -> None:
    assert listed, f"{where}: active seat {seat} has no legal action"
    codec = spec.codec
    sample = listed if len(listed) <= limit else [bots.choice(listed) for _ in range(limit)]
    for action in sample:
        assert codec.decode_action(codec.encode_json(action)) == action, f"{where}: action codec {action!r}"
        result = spec.decide(state, seat, action)
        assert not isinstance(result, Rejection), f"{where}: listed {action!r} rejected: {result}"


def _check_unlisted(
    spec: GameSpec[Any], state: Any, seat: int, listed: list[Any], seen: list[Any], where: str
) -> None:
    candidates = list(seen[-40:])
    if spec.probe_actions is not None:
        candidates.extend(spec.probe_actions(state, seat))
    listed_set = {spec.codec.encode_json(a) for a in listed}
    for action in candidates:
        if spec.codec.encode_json(action) in listed_set:
            continue
        result = spec.decide(state, seat, action)
        assert isinstance(result, Rejection), f"{where}: unlisted {action!r} was accepted for seat {seat}"


def _generator_secrets(state: Any) -> list[bytes]:
    """The generator keys in a state, as they would look in JSON (base64) or printed (hex)."""
    keys = [
        getattr(state, name).key for name in state.__struct_fields__ if isinstance(getattr(state, name), Rng)
    ]
    return [form for key in keys for form in (base64.b64encode(key), key.hex().encode())]


def _assert_no_secret(wire: bytes, state: Any, where: str) -> None:
    for secret in _generator_secrets(state):
        assert secret not in wire, f"{where}: the generator's key was sent to a client"


def _check_views(spec: GameSpec[Any], state: Any, players: int, bots: RngCursor, where: str) -> None:
    codec = spec.codec
    spectator = codec.encode_json(spec.view(state, None))
    _assert_no_secret(spectator, state, f"{where} spectator view")
    assert codec.encode_json(codec.decode_view(spectator)) == spectator, f"{where}: spectator view codec"
    for viewer in range(players):
        wire = codec.encode_json(spec.view(state, viewer))
        assert codec.encode_json(codec.decode_view(wire)) == wire, f"{where}: view codec for {viewer}"
        _assert_no_secret(wire, state, f"{where} view of seat {viewer}")
        if spec.resample_hidden is None:
            continue
        other = spec.resample_hidden(state, viewer, Rng.from_seed(bots.next_u64()))
        assert codec.encode_json(spec.view(other, viewer)) == wire, (
            f"{where}: seat {viewer}'s view changed when only hidden cards moved"
        )
        # A spectator sees less than any seat, so nothing hidden from a seat may show to it either.
        assert codec.encode_json(spec.view(other, None)) == spectator, (
            f"{where}: the spectator view changed when only cards hidden from seat {viewer} moved"
        )


def render_trace(spec: GameSpec[Any], playout: Playout) -> str:
    """A golden playthrough: one line per action and per event, diffable line by line."""
    codec = spec.codec
    lines = [
        # The edition and the data's digest, not the rules version: that digests the code too,
        # and a trace must change only when the game plays differently (docs/versions.md).
        f"# {spec.game_id} edition {edition_of(spec.rules_version)}"
        + (f" data {data_digest(spec.data)}" if spec.data is not None else "")
        + f" players={playout.config.players} seed={playout.config.seed}",
        f"# options {bytes(playout.config.options).decode()}",
    ]
    for number, step in enumerate(playout.steps, start=1):
        lines.append(f"{number:05d} seat {step.player}: {codec.encode_json(step.action).decode()}")
        lines.extend(f"      -> {codec.encode_json(event).decode()}" for event in step.events)
    if playout.outcome is not None:
        lines.append(f"outcome {codec.encode_json(playout.outcome).decode()}")
    return "\n".join(lines) + "\n"
