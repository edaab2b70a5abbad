"""Final scoring [FACTS 8]: 1 VP per adventurer, 1 VP per 2 Gold, the Lord's bonus; the most VP
wins and a tie goes to the most Gold (the only official tie-break); still tied: shared."""

from __future__ import annotations

from services.kernel import Outcome, PlayerResult
from services.waterdeep.catalog import Catalog
from services.waterdeep.model import MANDATORY, OVER, Seat, State


def lord_bonus(catalog: Catalog, seat: Seat, state: State, player: int) -> int:
    """4 VP per completed quest of either of the Lord's types (Mandatory Quests have no type);
    Larissa Neathal: 6 VP per Building tile controlled [FACTS 5]."""
    lord = next(lord for lord in catalog.lords if lord.id == seat.lord)
    if lord.vp_per_building:
        return lord.vp_per_building * sum(b.owner == player for b in state.buildings)
    types = {q.id: q.type for q in catalog.quests}
    return lord.vp_per_quest * sum(
        1 for q in seat.completed if types.get(q.partition(".")[0], MANDATORY) in lord.quest_types
    )


def breakdown(catalog: Catalog, state: State, player: int) -> dict[str, int]:
    """Where a seat's points came from; the values sum to its final score."""
    x = state.seats[player]
    return {
        "quests": x.quest_vp,
        "other_play": x.vp - x.quest_vp,
        "adventurers": sum(x.cubes),
        "gold": x.gold // 2,
        "lord": lord_bonus(catalog, x, state, player),
    }


def table_scores(catalog: Catalog, state: State) -> tuple[int, ...]:
    """The score a table shows for each seat (docs/rules/waterdeep.md, "Score"): the VP track while
    the game runs (the Lords stay secret), the final score once it is over."""
    if state.phase == OVER:
        return tuple(sum(breakdown(catalog, state, p).values()) for p in range(state.players))
    return tuple(x.vp for x in state.seats)


REASON = (
    "Eight rounds were played; each player added 1 VP per adventurer, 1 VP per 2 Gold and their "
    "Lord's bonus. The most VP wins; a tie goes to the most Gold."
)


def outcome(state: State, catalog: Catalog) -> Outcome | None:
    if state.phase != OVER:
        return None
    lords = {lord.id: lord.name for lord in catalog.lords}
    results = []
    for p, x in enumerate(state.seats):
        sheet = breakdown(catalog, state, p)
        facts = {"gold": x.gold, "buildings": sum(b.owner == p for b in state.buildings)}
        facts["completed_quests"] = len(x.completed)
        note = f"Lord: {lords.get(x.lord, x.lord)}"
        results.append(PlayerResult(p, sum(sheet.values()), sheet, note=note, facts=facts))
    best = max(r.score for r in results)
    tied = [r for r in results if r.score == best]
    most = max(state.seats[r.player].gold for r in tied)
    winners = tuple(r.player for r in tied if state.seats[r.player].gold == most)
    return Outcome(winners, tuple(results), REASON)
