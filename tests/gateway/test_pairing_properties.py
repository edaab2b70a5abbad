"""Properties of the pairing policy over random crowds (Hypothesis): whatever the queue holds,
every table it seats obeys every rule, and nobody sits twice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.domain.pairing import PairingPolicy, QueuedTicket, form_tables

NOW = 10_000_000

policies = st.builds(
    PairingPolicy,
    base_window=st.sampled_from([0.0, 50.0, 100.0]),
    widen_per_second=st.sampled_from([0.0, 5.0, 20.0]),
    max_window=st.just(1000.0),
    fill_wait_s=st.sampled_from([0.0, 10.0, 60.0]),
)


@st.composite
def crowds(draw: st.DrawFn) -> list[QueuedTicket]:
    count = draw(st.integers(0, 40))
    tickets = []
    for n in range(count):
        low = draw(st.integers(1, 5))
        high = draw(st.integers(low, 6))
        tickets.append(
            QueuedTicket(
                ticket_id=f"t{n}",
                player_id=f"p{draw(st.integers(0, 30))}",  # some players queue twice
                options=draw(st.sampled_from(["{}", '{"v":1}'])),
                min_seats=low,
                max_seats=high,
                rating=draw(st.none() | st.integers(1000, 2000).map(float)),
                enqueued_ms=NOW - draw(st.integers(0, 120_000)),
            )
        )
    return tickets


@settings(max_examples=120, deadline=None)
@given(crowds(), policies)
def test_every_seated_table_obeys_every_rule(tickets: list[QueuedTicket], policy: PairingPolicy) -> None:
    tables = form_tables(tickets, NOW, policy)
    seated = [t.ticket_id for table in tables for t in table]
    assert len(seated) == len(set(seated)), "a ticket sits at two tables"
    assert set(seated) <= {t.ticket_id for t in tickets}
    for table in tables:
        seats = len(table)
        assert len({t.options for t in table}) == 1, "mixed options"
        assert len({t.player_id for t in table}) == seats, "a player sits twice"
        assert all(t.min_seats <= seats <= t.max_seats for t in table), "a seat count someone refused"
        ratings = [t.rating for t in table if t.rating is not None]
        if len(ratings) > 1:
            spread = max(ratings) - min(ratings)
            for t in table:
                if t.rating is not None:
                    assert spread <= policy.window(NOW - t.enqueued_ms), "outside someone's window"
        room_to_grow = seats < min(t.max_seats for t in table)
        if room_to_grow:
            oldest_wait_s = (NOW - min(t.enqueued_ms for t in table)) / 1000
            assert oldest_wait_s >= policy.fill_wait_s, "a small table seated before its wait"
        assert list(table) == sorted(table, key=lambda t: (t.enqueued_ms, t.ticket_id))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(0, 30), policies)
def test_enough_unrated_players_for_an_exact_table_always_sit(
    seats: int, extra: int, policy: PairingPolicy
) -> None:
    tickets = [
        QueuedTicket(f"t{n}", f"p{n}", "{}", seats, seats, None, NOW - n) for n in range(seats + extra)
    ]
    tables = form_tables(tickets, NOW, policy)
    assert len(tables) == (seats + extra) // seats
    assert all(len(table) == seats for table in tables)


@settings(max_examples=40, deadline=None)
@given(crowds(), policies)
def test_the_result_does_not_depend_on_the_queue_order(
    tickets: list[QueuedTicket], policy: PairingPolicy
) -> None:
    forward = form_tables(tickets, NOW, policy)
    backward = form_tables(list(reversed(tickets)), NOW, policy)
    assert forward == backward
