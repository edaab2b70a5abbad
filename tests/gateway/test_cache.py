"""The gateway's caches are bounded by a memory budget (CACHE_MB, issue 25): each evicts its least
recently used entries until its estimated bytes are under its share; the estimate follows what
the entries really hold; the metrics report bytes, entries and bytes per cached match."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY

from gateway import metrics
from gateway.eventstore.base import MatchKey
from gateway.settings import parse_args
from gateway.usecases.cache import MB, SHARES, ByteLru, Caches
from tests.gateway.gwcore_support import gateway, play_first_legal
from tests.kernel.toy_game import GAME
from tests.rules_service import serving


@pytest.fixture(scope="module")
def rules() -> Iterator[str]:
    with serving(GAME) as running:
        yield running.target


def test_the_least_recently_used_entries_go_first_until_the_cache_is_under_its_budget() -> None:
    cache = ByteLru("t", 100, len)
    for key in "abcd":
        cache.put(key, "x" * 30)
    assert list(cache) == ["b", "c", "d"] and cache.bytes == 90  # "a" went to make room
    assert cache.get_fresh("b") == "x" * 30  # now the most recent
    cache.put("e", "y" * 40)
    assert list(cache) == ["d", "b", "e"] and cache.bytes == 100
    cache.put("huge", "z" * 101)  # larger than the whole budget: not kept, nothing evicted
    assert "huge" not in cache and cache.bytes == 100
    cache.put("d", "w" * 10)  # replacing an entry charges its new size only
    assert cache.bytes == 80 and cache.get("d") == "w" * 10
    cache.charge("b", 5)  # a size known later
    assert cache.bytes == 55 and cache.pop("b") == "x" * 30 and cache.bytes == 50
    assert cache.pop("b", "gone") == "gone" and cache.bytes == sum(len(cache.get(k)) for k in cache)


def test_the_budget_is_split_between_the_caches_by_fixed_shares() -> None:
    caches = Caches.within(100 * MB)
    budgets = {cache.name: cache.budget for cache in caches.all()}
    assert budgets == {name: int(100 * MB * share) for name, share in SHARES.items()}
    assert sum(budgets.values()) <= 100 * MB and budgets["states"] == max(budgets.values())
    assert caches.bytes_per_match() == 0.0
    with pytest.raises(ValueError, match="negative"):
        Caches.within(-1)


def test_cache_mb_is_a_number_of_mib_and_a_bad_one_stops_the_gateway_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert parse_args([], {"RULES_YS": "h:1"}).cache_mb == 128
    assert parse_args([], {"RULES_YS": "h:1", "CACHE_MB": "0"}).cache_mb == 0  # nothing cached
    assert parse_args(["--cache-mb", "48.5"], {"RULES_YS": "h:1"}).cache_mb == 48.5
    for bad in ("-1", "lots", "nan", "inf", ""):
        with pytest.raises(SystemExit):
            parse_args([], {"RULES_YS": "h:1", "CACHE_MB": bad})
        assert "CACHE_MB must be a number of MiB" in capsys.readouterr().err, bad


def test_a_small_budget_holds_while_matches_are_played_and_they_play_the_same(
    redis_url: str, rules: str
) -> None:
    budget_mb = 0.02  # 20 KiB: a few matches' states at most

    async def play() -> tuple[list[int], int, list[bool]]:
        peaks: list[int] = []
        async with gateway(redis_url, {GAME.game_id: rules}, cache_mb=budget_mb) as matches:
            finished = []
            for n in range(12):
                key = MatchKey("acme", f"small-{n}")
                await matches.create("acme", GAME.game_id, ["x", "y"], match_id=key.match_id)
                finished.append((await play_first_legal(matches, key)).finished)
                peaks.append(max(cache.bytes - cache.budget for cache in matches.caches.all()))
            return peaks, len(matches.caches.states), finished

    over_budget, states, finished = asyncio.run(play())
    assert all(finished)
    assert max(over_budget) <= 0  # never over any cache's share
    assert 0 < states < 12  # the oldest matches' states were evicted


def test_the_estimate_follows_what_the_entries_hold(redis_url: str, rules: str) -> None:
    """Views and redacted event lists: the estimate within 0.6x to 1.6x of what
    tracemalloc sees freed when the cache is emptied (a state's protobuf arena is outside
    tracemalloc's sight: docs/performance.md, "Memory")."""

    async def play() -> object:
        async with gateway(redis_url, {GAME.game_id: rules}) as matches:
            matches.viewers = lambda key: frozenset({0, 1, None})  # every viewer is served by the fan-out
            for n in range(30):
                key = MatchKey("acme", f"est-{n}")
                await matches.create("acme", GAME.game_id, ["x", "y"], match_id=key.match_id)
                await play_first_legal(matches, key)
            return matches

    tracemalloc.start()
    try:
        matches = asyncio.run(play())
        ratios = {}
        for cache in matches.caches.all()[1:3]:  # type: ignore[attr-defined]
            estimate = cache.bytes
            assert len(cache) > 0, cache.name
            gc.collect()
            before = tracemalloc.get_traced_memory()[0]
            cache.clear()
            gc.collect()
            ratios[cache.name] = estimate / (before - tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert all(0.6 <= ratio <= 1.6 for ratio in ratios.values()), ratios


def test_the_metrics_report_each_caches_bytes_and_entries_and_the_bytes_per_cached_match(
    redis_url: str, rules: str
) -> None:
    async def play() -> object:
        async with gateway(redis_url, {GAME.game_id: rules}) as matches:
            for n in range(3):
                key = MatchKey("acme", f"metrics-{n}")
                await matches.create("acme", GAME.game_id, ["x", "y"], match_id=key.match_id)
                await play_first_legal(matches, key)
            return matches

    matches = asyncio.run(play())
    caches = matches.caches  # type: ignore[attr-defined]
    metrics.watch_caches(caches)
    for cache in caches.all():
        labels = {"cache": cache.name}
        assert REGISTRY.get_sample_value("guildhall_gateway_cache_bytes", labels) == cache.bytes
        assert REGISTRY.get_sample_value("guildhall_gateway_cache_entries", labels) == len(cache)
        assert REGISTRY.get_sample_value("guildhall_gateway_cache_budget_bytes", labels) == cache.budget
    per_match = REGISTRY.get_sample_value("guildhall_gateway_cache_bytes_per_match")
    assert len(caches.states) == 3 and per_match == caches.bytes / 3 and per_match > 0
