"""The checks every game shares, the replay fold, schemas and golden rendering."""

from __future__ import annotations

import msgspec
import pytest

from services.kernel import Rejection, SetupConfig, SetupError, json_schemas, replay, replay_steps
from services.kernel.testing import check_conformance, random_playout, render_trace
from tests.kernel.toy_game import GAME, Take


def test_a_wrong_player_count_cannot_start_a_match() -> None:
    with pytest.raises(SetupError, match="played by 2, 3, 4 players, not 6"):
        GAME.start(SetupConfig(6, 1))


def test_options_that_do_not_fit_the_schema_cannot_start_a_match() -> None:
    with pytest.raises(SetupError, match="bad options"):
        GAME.start(SetupConfig(2, 1, msgspec.Raw(b'{"pile": -1.5}')))
    with pytest.raises(SetupError, match="not valid JSON"):
        GAME.start(SetupConfig(2, 1, msgspec.Raw(b"{")))


def test_only_an_active_seat_may_act() -> None:
    state = GAME.start(SetupConfig(3, 1))
    assert GAME.decide(state, 1, Take(1)) == Rejection("not_your_turn", "It is not your turn.")
    rejection = GAME.decide(state, 3, Take(1))
    assert isinstance(rejection, Rejection) and rejection.code == "unknown_player"
    assert not isinstance(GAME.decide(state, 0, Take(1)), Rejection)


def test_a_finished_game_accepts_nothing() -> None:
    final = random_playout(GAME, 2, 3).final
    rejection = GAME.decide(final, final.turn, Take(1))
    assert isinstance(rejection, Rejection) and rejection.code == "game_over"


def test_replay_of_the_events_rebuilds_the_final_state() -> None:
    playout = random_playout(GAME, 4, 8)
    events = [e for step in playout.steps for e in step.events]
    assert replay(GAME, playout.config, events) == playout.final
    steps = list(replay_steps(GAME, playout.config, events))
    assert len(steps) == len(events) + 1 and steps[-1] == playout.final


def test_schemas_cover_every_action_and_event_tag() -> None:
    schemas = json_schemas(GAME)
    text = msgspec.json.encode(schemas).decode()
    for tag in ("take", "play_card", "counters_taken", "card_dealt"):
        assert f'"{tag}"' in text
    assert schemas["options"]["$ref"].endswith("Options")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_test_game_passes_the_conformance_checks(players: int) -> None:
    for seed in range(10):
        assert check_conformance(GAME, players, seed).outcome is not None


def test_conformance_catches_a_game_that_accepts_unlisted_actions() -> None:
    import dataclasses

    lax = dataclasses.replace(GAME, legal_actions=lambda state, player: GAME.legal_actions(state, player)[:1])
    with pytest.raises(AssertionError, match="unlisted"):
        check_conformance(lax, 2, 1)


def test_conformance_catches_a_view_that_leaks_hidden_cards() -> None:
    import dataclasses

    leaky = dataclasses.replace(GAME, view=lambda state, viewer: GAME.view(state, 0))
    with pytest.raises(AssertionError, match="view changed"):
        check_conformance(leaky, 2, 1)


def test_conformance_catches_a_spectator_view_that_leaks_a_hand() -> None:
    import dataclasses

    def view(state: object, viewer: int | None) -> object:
        return GAME.view(state, 1 if viewer is None else viewer)  # spectators see seat 1's hand

    with pytest.raises(AssertionError, match="spectator view changed"):
        check_conformance(dataclasses.replace(GAME, view=view), 2, 1)


class _KeyLeakingEvent(msgspec.Struct, frozen=True, tag="take"):
    note: bytes


def test_conformance_catches_the_generator_key_in_what_a_client_gets() -> None:
    import dataclasses

    # An event that carries the state's key would let a player compute every future draw.
    def redact(event: object, viewer: int | None) -> object:
        return _KeyLeakingEvent(note=leaked_key)

    state = GAME.start(SetupConfig(2, 1))
    leaked_key = state.rng.key
    with pytest.raises(AssertionError, match="generator's key"):
        check_conformance(dataclasses.replace(GAME, redact_event=redact), 2, 1)


def test_golden_traces_are_deterministic_per_seed() -> None:
    first = render_trace(GAME, random_playout(GAME, 2, 5))
    assert first == render_trace(GAME, random_playout(GAME, 2, 5))
    assert first != render_trace(GAME, random_playout(GAME, 2, 6))
    assert first.splitlines()[0] == "# secret_nim edition 1 players=2 seed=5"
