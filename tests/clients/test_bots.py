"""Bots: they only ever pick listed legal actions, and the greedy one beats the random one."""

from __future__ import annotations

import msgspec
import pytest
from rich.console import Console

from benchmarks.bench_bots import measure, play, spec_for
from guildhall_client.bots import GREEDY, RandomBot, bruges, data, has_greedy, make_bot, waterdeep
from guildhall_client.bots.base import GreedyBot
from guildhall_client.render import RENDERERS, describe_action, render_view
from services.gamedata import game_data_json
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


@pytest.mark.parametrize("game", ["bruges", "waterdeep"])
def test_greedy_bots_value_every_action_alike_with_the_card_data_a_gateway_sends(game, monkeypatch):
    """The client installs without the rules: these bots read the catalog from GetGameData's JSON
    (bots/data.py), and must weigh each action exactly as with the rules package's catalog."""
    seen = []

    class Recorder(RandomBot):
        def choose(self, view, legal, seat):
            seen.append((view, legal, seat))
            return super().choose(view, legal, seat)

    spec = GAMES[game]
    play(spec, spec.player_counts[0], 7, [Recorder(p) for p in range(spec.player_counts[0])], order_seed=2)
    states = seen[:: max(1, len(seen) // 40)]
    uncached = (bruges._persons, waterdeep._catalog)

    def values():
        for cached in uncached:
            cached.cache_clear()
        return [[GREEDY[game](view, action, seat) for action in legal] for view, legal, seat in states]

    local = values()
    fetched = msgspec.json.decode(game_data_json(spec))["catalog"]
    monkeypatch.setitem(data._FETCHED, game, data.as_attributes(fetched))
    assert values() == local and any(len(set(v)) > 1 for v in local)
    monkeypatch.undo()
    values()  # the caches hold the package's catalog again


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
