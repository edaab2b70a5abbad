"""The pairing policy alone (no Redis): options, seat counts, rating windows, largest table first."""

from __future__ import annotations

import msgspec
import pytest

from gateway.domain.pairing import (
    InvalidTicket,
    PairingPolicy,
    QueuedTicket,
    canonical_options,
    check_rating,
    check_seats,
    form_tables,
)

NOW = 1_000_000
POLICY = PairingPolicy(base_window=100, widen_per_second=10, max_window=500, fill_wait_s=10)


def ticket(
    name: str,
    *,
    seats: tuple[int, int] = (2, 2),
    rating: float | None = None,
    waited_s: float = 0,
    options: str = "{}",
) -> QueuedTicket:
    return QueuedTicket(
        ticket_id=name,
        player_id=f"p-{name}",
        options=options,
        min_seats=seats[0],
        max_seats=seats[1],
        rating=rating,
        enqueued_ms=NOW - int(waited_s * 1000),
    )


def names(tables: list[tuple[QueuedTicket, ...]]) -> list[list[str]]:
    return [[t.ticket_id for t in table] for table in tables]


def test_two_exact_two_seat_tickets_sit_together() -> None:
    assert names(form_tables([ticket("a", waited_s=2), ticket("b", waited_s=1)], NOW, POLICY)) == [["a", "b"]]


def test_a_lone_ticket_waits() -> None:
    assert form_tables([ticket("a")], NOW, POLICY) == []


def test_different_options_never_share_a_table() -> None:
    tables = form_tables(
        [ticket("a", options='{"variant":"x"}'), ticket("b", options='{"variant":"y"}')], NOW, POLICY
    )
    assert tables == []


def test_options_are_compared_canonically() -> None:
    assert canonical_options(b'{ "b": 1, "a": [1, 2] }') == canonical_options('{"a":[1,2],"b":1}')
    assert canonical_options(b"") == "{}"


@pytest.mark.parametrize("raw", [b"[1]", b"{", b"\xff", b'"x"', b"{" + b" " * 20000 + b"}"])
def test_bad_options_are_refused(raw: bytes) -> None:
    with pytest.raises(InvalidTicket):
        canonical_options(raw)


@pytest.mark.parametrize(("low", "high"), [(0, 2), (3, 2), (2, 17), (True, 2)])
def test_bad_seat_ranges_are_refused(low: int, high: int) -> None:
    with pytest.raises(InvalidTicket):
        check_seats(low, high)


@pytest.mark.parametrize("rating", [float("nan"), 1e12, True])
def test_bad_ratings_are_refused(rating: float) -> None:
    with pytest.raises(InvalidTicket):
        check_rating(rating)


def test_seat_count_must_suit_every_member() -> None:
    tables = form_tables(
        [ticket("a", seats=(3, 3)), ticket("b", seats=(2, 2)), ticket("c", seats=(3, 3))], NOW, POLICY
    )
    assert tables == []  # a and c want three, b wants two: nobody can sit


def test_the_largest_full_table_comes_first() -> None:
    tickets = [ticket(n, seats=(2, 4), waited_s=60 - i) for i, n in enumerate("abcde")]
    assert names(form_tables(tickets, NOW, POLICY)) == [["a", "b", "c", "d"]]  # e waits for company


def test_a_smaller_table_waits_for_players_then_sits() -> None:
    young = [ticket(n, seats=(2, 4), waited_s=3) for n in "ab"]
    assert form_tables(young, NOW, POLICY) == []  # four would fit: hold the table a while
    old = [ticket(n, seats=(2, 4), waited_s=11) for n in "ab"]
    assert names(form_tables(old, NOW, POLICY)) == [["a", "b"]]


def test_a_table_at_its_members_maximum_sits_at_once() -> None:
    tickets = [ticket("a", seats=(2, 3)), ticket("b", seats=(3, 4)), ticket("c", seats=(2, 3))]
    assert names(form_tables(tickets, NOW, POLICY)) == [["a", "b", "c"]]


def test_ratings_outside_the_window_wait() -> None:
    assert form_tables([ticket("a", rating=1500), ticket("b", rating=1650)], NOW, POLICY) == []


def test_the_window_widens_with_waiting_time() -> None:
    # 150 apart: b's window is 100 + 10/s * 6 s = 160, a's 100 + 10 * 5 = 150: both accept.
    tables = form_tables(
        [ticket("a", rating=1500, waited_s=5), ticket("b", rating=1650, waited_s=6)], NOW, POLICY
    )
    assert names(tables) == [["b", "a"]]  # oldest first
    # One second less for a: its window (140) is too narrow, however long b waited.
    tables = form_tables(
        [ticket("a", rating=1500, waited_s=4), ticket("b", rating=1650, waited_s=60)], NOW, POLICY
    )
    assert tables == []


def test_the_window_stops_widening_at_its_maximum() -> None:
    tables = form_tables(
        [ticket("a", rating=0, waited_s=3600), ticket("b", rating=501, waited_s=3600)], NOW, POLICY
    )
    assert tables == []


def test_an_unrated_ticket_sits_with_anyone() -> None:
    tables = form_tables(
        [
            ticket("a", rating=1500, seats=(3, 3)),
            ticket("b", seats=(3, 3)),
            ticket("c", rating=1590, seats=(3, 3)),
        ],
        NOW,
        POLICY,
    )
    assert names(tables) == [["a", "b", "c"]]


def test_closer_ratings_are_chosen_over_older_misfits() -> None:
    tickets = [
        ticket("a", rating=1500, waited_s=3),
        ticket("x", rating=2500, waited_s=2),
        ticket("b", rating=1550, waited_s=1),
    ]
    assert names(form_tables(tickets, NOW, POLICY)) == [["a", "b"]]


def test_the_oldest_ticket_is_seated_first() -> None:
    tickets = [ticket(n, waited_s=10 - i) for i, n in enumerate("cabd")]
    assert names(form_tables(tickets, NOW, POLICY)) == [["c", "a"], ["b", "d"]]


def test_a_stuck_ticket_does_not_block_younger_ones() -> None:
    tickets = [ticket("old", seats=(4, 4), waited_s=30), ticket("a", waited_s=2), ticket("b", waited_s=1)]
    assert names(form_tables(tickets, NOW, POLICY)) == [["a", "b"]]


def test_a_ticket_listed_twice_is_seated_once() -> None:
    a = ticket("a")
    assert names(form_tables([a, a, ticket("b"), ticket("c")], NOW, POLICY)) == [["a", "b"]]


def test_every_ticket_is_seated_at_most_once_in_a_crowd() -> None:
    tickets = [
        ticket(
            f"t{i}",
            seats=(2 + i % 3, 4),
            rating=1400 + (i * 37) % 300,
            waited_s=i % 50,
            options=f'{{"v":{i % 2}}}',
        )
        for i in range(200)
    ]
    tables = form_tables(tickets, NOW, POLICY)
    seated = [t.ticket_id for table in tables for t in table]
    assert len(seated) == len(set(seated))
    for table in tables:
        assert len({t.options for t in table}) == 1
        assert all(t.accepts(len(table)) for t in table)
    assert len(seated) > 150  # sanity: the crowd mostly sits down


def test_policy_values_are_checked() -> None:
    with pytest.raises(ValueError):
        PairingPolicy(base_window=-1)
    with pytest.raises(ValueError):
        PairingPolicy(base_window=100, max_window=50)


def test_a_player_never_sits_at_one_table_twice() -> None:
    twice = [ticket("a1", waited_s=3), ticket("a2", waited_s=2), ticket("b", waited_s=1)]
    twice = [t if t.ticket_id == "b" else msgspec.structs.replace(t, player_id="alice") for t in twice]
    assert names(form_tables(twice, NOW, POLICY)) == [["a1", "b"]]
