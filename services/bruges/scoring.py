"""Final scoring [FS §8, SEED]: the running score plus persons, houses, laurel persons,
majority markers, canal sections reaching space 3, statues and the reputation step. The most
points wins; a tie goes to the most guilders; still tied, the win is shared."""

from __future__ import annotations

from services.bruges.catalog import Person
from services.bruges.model import (
    MAJORITY_POINTS,
    OVER,
    SPACE_THREE_POINTS,
    Seat,
    State,
)
from services.bruges.primitives import Tables
from services.kernel import Outcome, PlayerResult


def laurel_points(tables: Tables, seat: Seat, person: Person) -> int:
    """What one laurel person scores at the end of the game for its owner."""
    persons = list(tables.in_play(seat))
    effect = person.effect
    if effect == "score_points":
        return person.amount
    if effect == "score_per_workers":
        return person.amount * (sum(seat.workers) // person.threshold)
    if effect == "score_per_group":
        return person.amount * sum(1 for p in persons if p.group == person.param_group)
    if effect == "score_per_distinct_group":
        return person.amount * len({p.group for p in persons})
    if effect == "score_per_house":
        colour = person.param_colour
        return person.amount * sum(1 for h in seat.houses if not colour or tables.colour[h.card] == colour)
    return 0


def breakdown(tables: Tables, seat: Seat) -> dict[str, int]:
    """Where a seat's final points come from; the values sum to its total."""
    persons = list(tables.in_play(seat))
    return {
        "running": seat.score,
        "persons": sum(p.points for p in persons),
        "houses": len(seat.houses),
        "laurels": sum(laurel_points(tables, seat, p) for p in persons if p.icon == "laurel"),
        "majorities": MAJORITY_POINTS * sum(seat.majorities),
        "canals": SPACE_THREE_POINTS * sum(1 for tokens in seat.canals if tokens >= 3),
        "statues": sum(seat.statues),
        "reputation": tables.board.reputation_points[seat.reputation - 1] if seat.reputation else 0,
    }


def table_scores(tables: Tables, state: State) -> tuple[int, ...]:
    """The score a table shows for each seat (docs/rules/bruges.md, "Score"): the scoring track
    while the game runs, the final score once it is over."""
    if state.phase == OVER:
        return tuple(sum(breakdown(tables, seat).values()) for seat in state.seats)
    return tuple(seat.score for seat in state.seats)


REASON = (
    "The round after the extra draw pile came into play is over; each player added their persons, "
    "houses, laurel persons, majority markers, canals, statues and reputation. The most points "
    "wins; a tie goes to the most guilders."
)


def outcome(tables: Tables, state: State) -> Outcome | None:
    if state.phase != OVER:
        return None
    results = []
    for player, seat in enumerate(state.seats):
        parts = breakdown(tables, seat)
        results.append(
            PlayerResult(player, sum(parts.values()), breakdown=parts, facts={"guilders": seat.guilders})
        )
    best = max((r.score, r.facts["guilders"]) for r in results)
    winners = tuple(r.player for r in results if (r.score, r.facts["guilders"]) == best)
    return Outcome(winners, tuple(results), REASON)
