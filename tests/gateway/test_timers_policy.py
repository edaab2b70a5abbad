"""The pure turn-timer policy: configuration, deadlines and the timed-out seat's action."""

from __future__ import annotations

from collections import Counter

import pytest

from gateway.domain.timers import (
    FORFEIT,
    OFF,
    RANDOM_ACTION,
    TimerPolicy,
    effective_policy,
    timeout_choice,
)


def test_a_tenant_block_reads_into_a_policy() -> None:
    assert TimerPolicy.from_config({"seconds": 30, "policy": "forfeit"}) == TimerPolicy(30, FORFEIT)
    assert TimerPolicy.from_config({"seconds": 0, "policy": "random_action"}) == OFF
    assert TimerPolicy.from_config(None) == OFF
    assert not OFF.enabled


@pytest.mark.parametrize(
    "config",
    [
        {"seconds": 30, "policy": "nap"},
        {"seconds": -1},
        {"seconds": "30"},
        {"seconds": True},
        {"seconds": 8 * 24 * 3600},
        {"seconds": 30, "polciy": "forfeit"},
        {"seconds": float("nan")},
    ],
)
def test_bad_timer_configuration_is_refused(config: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        TimerPolicy.from_config(config)


def test_the_deadline_is_now_plus_the_turn_rounded_up_to_a_millisecond() -> None:
    assert TimerPolicy(30, RANDOM_ACTION).deadline_ms(1_000) == 31_000
    assert TimerPolicy(0.0005, RANDOM_ACTION).deadline_ms(1_000) == 1_001
    with pytest.raises(ValueError):
        OFF.deadline_ms(1_000)


def test_a_match_timer_overrides_the_tenant_default() -> None:
    tenant = TimerPolicy(60, FORFEIT)
    assert effective_policy(None, tenant) == tenant
    assert effective_policy(OFF, tenant) == OFF
    assert effective_policy(TimerPolicy(5), tenant) == TimerPolicy(5)


def test_the_timeout_choice_is_the_same_on_every_replica() -> None:
    assert timeout_choice(7, b"seed", 12, 1) == timeout_choice(7, b"seed", 12, 1)


def test_the_timeout_choice_depends_on_secret_version_and_seat() -> None:
    picks = {
        timeout_choice(1000, secret, version, seat)
        for secret in (b"a", b"b")
        for version in (1, 2)
        for seat in (0, 1)
    }
    assert len(picks) > 4


def test_the_timeout_choice_is_roughly_uniform() -> None:
    counts = Counter(timeout_choice(3, b"seed", version, 0) for version in range(3000))
    assert set(counts) == {0, 1, 2}
    assert all(800 < n < 1200 for n in counts.values())


def test_no_legal_action_means_no_choice() -> None:
    with pytest.raises(ValueError):
        timeout_choice(0, b"seed", 1, 0)
    with pytest.raises(ValueError):
        timeout_choice(3, b"", 1, 0)
