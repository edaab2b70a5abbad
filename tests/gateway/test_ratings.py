"""Ratings (issue 23): where each seat finished, from every game's real outcomes, and the
openskill update stored per tenant and game: once per match, bots left out, leaderboards paged."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from gateway.domain.ranking import abandoned, ranks
from gateway.ratings import ELO_BASE, MU, SIGMA, Ratings, Seat
from services.kernel import Outcome, PlayerResult
from services.kernel.testing import random_playout
from services.registry import GAMES


def outcome(winners: tuple[int, ...], scores: list[int], eliminated: tuple[int, ...] = ()) -> bytes:
    results = tuple(PlayerResult(p, s, eliminated=p in eliminated) for p, s in enumerate(scores))
    return msgspec.json.encode(Outcome(winners, results))


# -- where each seat finished ---------------------------------------------------------------------


def test_a_shared_win_ties_first_and_the_next_seat_is_third() -> None:
    assert ranks(outcome((0, 2), [10, 7, 10]), 3) == [1, 3, 1]


def test_the_winner_is_first_even_with_fewer_points() -> None:
    # Ankh-Morpork: a personality's goal wins whatever the points say.
    assert ranks(outcome((2,), [30, 20, 5]), 3) == [2, 3, 1]


def test_eliminated_seats_come_after_the_survivors_and_tie_whatever_their_scores() -> None:
    # Rattus Cartus's plague: an eliminated seat scores nothing, however many points it had.
    assert ranks(outcome((1,), [50, 20, 40, 45], eliminated=(0, 3)), 4) == [3, 1, 2, 3]


def test_everyone_eliminated_is_a_tie_for_everyone() -> None:
    assert ranks(outcome((), [5, 9, 7], eliminated=(0, 1, 2)), 3) == [1, 1, 1]


def test_resigned_and_abandoning_seats_are_last_whatever_the_outcome_says() -> None:
    # Seat 1 won on points but had left: last, tied with the other seat that left.
    assert ranks(outcome((1,), [3, 99, 4, 2]), 4, left={1, 3}) == [2, 3, 1, 3]


def test_a_seat_that_timed_out_and_never_acted_again_abandoned_the_match() -> None:
    timed_out = [(0, 10), (1, 12), (1, 30)]
    acted = [(0, 11), (1, 20), (2, 5)]
    assert abandoned(3, timed_out, acted) == {1}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_games_real_outcomes_rank_winners_first(game: str) -> None:
    spec = GAMES[game]
    for players in sorted(spec.player_counts)[:2]:
        played = random_playout(spec, players, seed=23 + players)
        assert played.outcome is not None
        places = ranks(msgspec.json.encode(played.outcome), players)
        winners = set(played.outcome.winners)
        for seat in range(players):
            if seat in winners:
                assert places[seat] == 1
            elif winners:
                assert places[seat] > 1
        for result in played.outcome.results:  # eliminated seats never ahead of survivors
            for other in played.outcome.results:
                if result.eliminated and not other.eliminated and other.player not in winners:
                    assert places[result.player] >= places[other.player]


# -- the stored ratings ---------------------------------------------------------------------------


@pytest.fixture
def ratings(redis_url: str) -> Iterator[tuple[Ratings, Any]]:
    import redis.asyncio as aioredis

    loop = asyncio.new_event_loop()
    client = aioredis.Redis.from_url(redis_url)
    loop.run_until_complete(client.flushdb())
    try:
        yield Ratings(client), loop
    finally:
        loop.run_until_complete(client.aclose())
        loop.close()


def run(fixture: tuple[Ratings, Any], coro: Any) -> Any:
    return fixture[1].run_until_complete(coro)


def seats(players: list[str], places: list[int], bots: tuple[int, ...] = ()) -> list[Seat]:
    return [Seat(n, p, places[n], rated=n not in bots) for n, p in enumerate(players)]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_games_outcome_moves_winners_up_and_losers_down(ratings: Any, game: str) -> None:
    store: Ratings = ratings[0]
    spec = GAMES[game]
    players = max(spec.player_counts)
    played = random_playout(spec, players, seed=7)
    assert played.outcome is not None
    places = ranks(msgspec.json.encode(played.outcome), players)
    names = [f"{game}-p{n}" for n in range(players)]
    changes = run(ratings, store.apply("acme", game, "m1", seats(names, places)))
    assert len(changes) == players
    by_seat = {c.seat: c for c in changes}
    best, worst = min(places), max(places)
    for seat in range(players):
        change = by_seat[seat]
        assert (change.mu_before, change.sigma_before) == (MU, SIGMA)
        assert change.sigma_after < change.sigma_before  # a match played: less uncertainty
        if places[seat] == best and best != worst:
            assert change.mu_after > MU
        if places[seat] == worst and best != worst:
            assert change.mu_after < MU
    tied = [by_seat[s].mu_after for s in range(players) if places[s] == best]
    assert max(tied) - min(tied) < 1e-9  # equal ratings tied: equal changes
    stored = run(ratings, store.get("acme", game, names))
    assert [r.player_id for r in stored] == names and all(r.matches == 1 for r in stored)


def test_a_match_is_applied_once_and_answers_the_same_changes_again(ratings: Any) -> None:
    store: Ratings = ratings[0]
    first = run(ratings, store.apply("acme", "ys", "m1", seats(["a", "b"], [1, 2])))
    again = run(ratings, store.apply("acme", "ys", "m1", seats(["a", "b"], [1, 2])))
    assert again == first
    (a, b) = run(ratings, store.get("acme", "ys", ["a", "b"]))
    assert (a.matches, b.matches) == (1, 1) and a.mu == first[0].mu_after


def test_ratings_build_on_each_other_across_matches_and_stay_per_tenant_and_game(ratings: Any) -> None:
    store: Ratings = ratings[0]
    for n in range(3):
        run(ratings, store.apply("acme", "ys", f"m{n}", seats(["a", "b"], [1, 2])))
    (a, b) = run(ratings, store.get("acme", "ys", ["a", "b"]))
    assert a.matches == 3 and a.mu > b.mu and a.rank == 1 and b.rank == 2
    assert run(ratings, store.get("globex", "ys", ["a"])) == []
    assert run(ratings, store.get("acme", "bruges", ["a"])) == []


def test_bots_and_players_holding_two_seats_are_not_rated(ratings: Any) -> None:
    store: Ratings = ratings[0]
    changes = run(
        ratings, store.apply("acme", "ys", "m1", seats(["a", "bot-greedy-1", "b"], [2, 1, 3], bots=(1,)))
    )
    assert {c.player_id for c in changes} == {"a", "b"}
    assert run(ratings, store.get("acme", "ys", ["bot-greedy-1"])) == []
    # The same player in two seats of one match: rated in neither (and one other: no update).
    assert run(ratings, store.apply("acme", "ys", "m2", seats(["c", "c", "d"], [1, 2, 3]))) == []


def test_concurrent_matches_of_one_player_both_count(ratings: Any) -> None:
    store: Ratings = ratings[0]

    async def both() -> None:
        await asyncio.gather(
            store.apply("acme", "ys", "m1", seats(["a", "b"], [1, 2])),
            store.apply("acme", "ys", "m2", seats(["a", "c"], [1, 2])),
        )

    run(ratings, both())
    (a,) = run(ratings, store.get("acme", "ys", ["a"]))
    assert a.matches == 2


def test_the_leaderboard_pages_best_first(ratings: Any) -> None:
    store: Ratings = ratings[0]
    players = [f"p{n}" for n in range(7)]
    run(ratings, store.apply("acme", "ys", "m1", seats(players, list(range(1, 8)))))
    page, cursor = run(ratings, store.leaderboard("acme", "ys", limit=3))
    seen = [r.player_id for r in page]
    while cursor:
        page, cursor = run(ratings, store.leaderboard("acme", "ys", limit=3, cursor=cursor))
        seen += [r.player_id for r in page]
    assert seen == players  # finishing order is rating order after one match from equal ratings


def test_matchmaking_uses_a_players_rating_on_its_own_scale(ratings: Any) -> None:
    store: Ratings = ratings[0]
    assert run(ratings, store.for_matchmaking("acme", "ys", "a")) is None
    run(ratings, store.apply("acme", "ys", "m1", seats(["a", "b"], [1, 2])))
    assert run(ratings, store.for_matchmaking("acme", "ys", "a")) > ELO_BASE
    assert run(ratings, store.for_matchmaking("acme", "ys", "b")) < ELO_BASE
