"""Bots: they only ever pick listed legal actions, and the greedy one beats the random one."""

from __future__ import annotations

import msgspec
import pytest
from rich.console import Console

from benchmarks.bench_bots import measure, play, spec_for
from guildhall_client.bots import GREEDY, RandomBot, has_greedy, make_bot
from guildhall_client.bots.base import GreedyBot
from guildhall_client.render import RENDERERS, describe_action, render_view
from services.kernel import SetupConfig
from services.registry import GAMES


def render_view_generic(view, seat):
    return render_view("no_renderer", view, seat)


def test_every_registered_game_has_a_greedy_evaluation():
    assert set(GAMES) <= set(GREEDY), f"no greedy bot for {sorted(set(GAMES) - set(GREEDY))}"


def test_a_game_without_an_evaluation_falls_back_to_the_random_bot():
    assert not has_greedy("no_such_game")
    assert isinstance(make_bot("greedy", "no_such_game", 1), RandomBot)
    assert isinstance(make_bot("greedy", "rattus_cartus", 1), GreedyBot)
    with pytest.raises(ValueError, match="unknown bot kind"):
        make_bot("clever", "ys")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_greedy_and_random_bots_play_whole_matches_with_legal_actions_only(game):
    spec = GAMES[game]
    players = spec.player_counts[0]
    bots = [make_bot("greedy" if p % 2 == 0 else "random", game, seed=p) for p in range(players)]
    # `play` asserts that every chosen action is accepted by the rules.
    outcome, actions = play(spec, players, 11, bots, order_seed=3)
    assert outcome is not None and all(n > 0 for n in actions)


@pytest.mark.parametrize("game", sorted(GREEDY))
def test_greedy_wins_most_two_player_matches_against_random(game):
    spec = spec_for(game)
    players = 2 if 2 in spec.player_counts else spec.player_counts[0]
    figures = measure(game, players, matches=12, base_seed=5)
    # Seeded: the same 12 matches every run. A random bot wins about half of the decided ones.
    assert figures.greedy_wins >= 8, figures


def test_greedy_breaks_ties_among_equal_actions_at_random_not_always_first():
    bot = GreedyBot(lambda view, action, seat: 0.0, seed=1)
    legal = [{"type": "pass"}] * 5
    assert len({bot.choose({}, legal, 0) for _ in range(60)}) > 1


@pytest.mark.parametrize("game", sorted(GAMES))
def test_views_and_actions_render_for_a_terminal_at_every_step_sampled(game):
    spec = GAMES[game]
    console = Console(file=open("/dev/null", "w"), width=120)  # noqa: SIM115
    state = spec.start(SetupConfig(players=spec.player_counts[-1], seed=3))
    # Call the game's own renderer (render_view would fall back to JSON on an error and hide it).
    renderer = RENDERERS.get(game, render_view_generic)
    bot = RandomBot(7)
    for step in range(400):
        active = spec.active_players(state)
        if not active:
            break
        seat = active[0]
        view = msgspec.json.decode(spec.codec.encode_json(spec.view(state, seat)))
        legal = spec.legal_actions(state, seat)
        if step % 25 == 0:
            console.print(renderer(view, seat))
            for action in legal:
                assert describe_action(msgspec.json.decode(spec.codec.encode_json(action)))
        state = spec.evolve(state, spec.decide(state, seat, legal[bot.choose(view, [{}] * len(legal), seat)]))
