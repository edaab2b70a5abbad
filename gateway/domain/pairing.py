"""Matchmaking, the pure part: which queued tickets sit down together.

The rules of the policy, in order:

1. Only tickets with the same game options share a table (options compared as canonical JSON:
   keys sorted, no whitespace; the gateway knows no game's defaults, so `{}` and an options
   object spelling out a default are different pools of players).
2. A table's seat count must lie within every member's [min_seats, max_seats].
3. Ratings: a ticket accepts table-mates within its rating window, which starts at
   `base_window` and widens by `widen_per_second` while it waits (up to `max_window`). A table
   forms only if its rating spread (highest - lowest rated member) fits every rated member's
   window. A ticket without a rating fits any table and does not widen anyone's spread.
4. Largest full table first: for each anchor the biggest seat count that can be filled is
   tried first. A table smaller than every member would accept is held back until its oldest
   member has waited `fill_wait_s`, hoping for more players.
5. A player never sits at one table twice (two tickets of the same player id wait apart).
6. Oldest first: the longest-waiting ticket is the anchor and gathers the oldest compatible
   tickets; a ticket that cannot be seated yet does not block younger ones.

Greedy on purpose (a deterministic, explainable heuristic, linear per anchor); the Redis
adapter (`gateway/matchmaking.py`) runs it over a bounded batch of the oldest tickets and
commits the result atomically.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

# Seat counts a ticket may ask for; games check their own limits when the match is created.
MIN_SEATS = 1
MAX_SEATS = 16

# Canonical options travel in Redis and in every pairing: keep them small.
MAX_OPTIONS_BYTES = 16 * 1024

_OPTIONS_DECODER = msgspec.json.Decoder()
_OPTIONS_ENCODER = msgspec.json.Encoder(order="sorted")


class InvalidTicket(ValueError):
    """A ticket request the queue cannot hold (bad options or seat counts)."""


class QueuedTicket(msgspec.Struct, frozen=True):
    """A ticket as the policy sees it."""

    ticket_id: str
    player_id: str
    options: str  # canonical options JSON
    min_seats: int
    max_seats: int
    rating: float | None
    enqueued_ms: int

    def accepts(self, seats: int) -> bool:
        return self.min_seats <= seats <= self.max_seats


class PairingPolicy(msgspec.Struct, frozen=True):
    """Tunable knobs of the policy; the defaults suit Elo-like ratings (1500 = average)."""

    base_window: float = 100.0
    widen_per_second: float = 10.0
    max_window: float = 1000.0
    fill_wait_s: float = 10.0

    def __post_init__(self) -> None:
        if min(self.base_window, self.widen_per_second, self.max_window, self.fill_wait_s) < 0:
            raise ValueError("pairing policy values must be non-negative")
        if self.max_window < self.base_window:
            raise ValueError("max_window must be at least base_window")

    def window(self, waited_ms: int) -> float:
        """Rating distance a ticket accepts after waiting `waited_ms`."""
        widened = self.base_window + self.widen_per_second * max(waited_ms, 0) / 1000
        return min(widened, self.max_window)


def canonical_options(options_json: bytes | str) -> str:
    """The options as canonical JSON (an object, keys sorted, no whitespace), or InvalidTicket."""
    raw = options_json.encode() if isinstance(options_json, str) else bytes(options_json)
    if len(raw) > MAX_OPTIONS_BYTES:
        raise InvalidTicket(f"options exceed {MAX_OPTIONS_BYTES} bytes")
    if not raw.strip():
        return "{}"
    try:
        value = _OPTIONS_DECODER.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise InvalidTicket(f"options are not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise InvalidTicket("options must be a JSON object")
    return _OPTIONS_ENCODER.encode(value).decode()


def check_seats(min_seats: int, max_seats: int) -> None:
    """A ticket asks for an exact seat count (min == max) or a range within 1..16."""
    for name, value in (("min_seats", min_seats), ("max_seats", max_seats)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidTicket(f"{name} must be an integer")
        if not MIN_SEATS <= value <= MAX_SEATS:
            raise InvalidTicket(f"{name} must be within {MIN_SEATS}..{MAX_SEATS}, got {value}")
    if min_seats > max_seats:
        raise InvalidTicket(f"min_seats {min_seats} is above max_seats {max_seats}")


def check_rating(rating: float | None) -> None:
    if rating is None:
        return
    if isinstance(rating, bool) or not isinstance(rating, int | float) or rating != rating:
        raise InvalidTicket("rating must be a finite number")
    if abs(rating) > 1e9:
        raise InvalidTicket("rating must be within +-1e9")


def _age_order(ticket: QueuedTicket) -> tuple[int, str]:
    return (ticket.enqueued_ms, ticket.ticket_id)


def _ratings_fit(group: Sequence[QueuedTicket], now_ms: int, policy: PairingPolicy) -> bool:
    rated = [t for t in group if t.rating is not None]
    if len(rated) < 2:
        return True
    ratings = [t.rating for t in rated if t.rating is not None]
    spread = max(ratings) - min(ratings)
    return all(spread <= policy.window(now_ms - t.enqueued_ms) for t in rated)


def _gather(
    anchor: QueuedTicket, others: Sequence[QueuedTicket], seats: int, now_ms: int, policy: PairingPolicy
) -> list[QueuedTicket] | None:
    group = [anchor]
    players = {anchor.player_id}
    for ticket in others:
        if len(group) == seats:
            break
        if not ticket.accepts(seats) or ticket.player_id in players:
            continue
        group.append(ticket)
        if _ratings_fit(group, now_ms, policy):
            players.add(ticket.player_id)
        else:
            group.pop()
    return group if len(group) == seats else None


def _table_for(
    anchor: QueuedTicket, others: Sequence[QueuedTicket], now_ms: int, policy: PairingPolicy
) -> list[QueuedTicket] | None:
    largest = min(anchor.max_seats, 1 + len(others))
    for seats in range(largest, anchor.min_seats - 1, -1):
        group = _gather(anchor, others, seats, now_ms, policy)
        if group is None:
            continue
        # Every member would also sit at a bigger table: hold this one back for a while.
        room_to_grow = seats < min(t.max_seats for t in group)
        waited_s = (now_ms - min(t.enqueued_ms for t in group)) / 1000
        if room_to_grow and waited_s < policy.fill_wait_s:
            return None  # a smaller table would not be fuller either: wait for players
        return group
    return None


def form_tables(
    tickets: Iterable[QueuedTicket], now_ms: int, policy: PairingPolicy | None = None
) -> list[tuple[QueuedTicket, ...]]:
    """Tables to seat now, each a tuple of tickets oldest first; unlisted tickets keep waiting."""
    policy = policy or PairingPolicy()
    by_options: dict[str, list[QueuedTicket]] = {}
    seen: set[str] = set()
    for ticket in sorted(tickets, key=_age_order):
        if ticket.ticket_id in seen:
            continue  # a ticket is seated at most once, even if listed twice
        seen.add(ticket.ticket_id)
        by_options.setdefault(ticket.options, []).append(ticket)

    tables: list[tuple[QueuedTicket, ...]] = []
    for waiting in by_options.values():
        passed: set[str] = set()  # anchors that cannot sit down this round
        while True:
            anchor = next((t for t in waiting if t.ticket_id not in passed), None)
            if anchor is None:
                break
            # Older passed anchors stay candidates: greedy gathering may seat them with others.
            others = [t for t in waiting if t is not anchor]
            group = _table_for(anchor, others, now_ms, policy)
            if group is None:
                passed.add(anchor.ticket_id)  # it waits; younger tickets may still sit down
                continue
            tables.append(tuple(sorted(group, key=_age_order)))
            seated = {t.ticket_id for t in group}
            waiting = [t for t in waiting if t.ticket_id not in seated]
    tables.sort(key=lambda table: _age_order(table[0]))
    return tables
