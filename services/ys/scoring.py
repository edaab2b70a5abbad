"""Final scoring [SEED p.9, p.13]: gem majorities by quotation rank, black gems, the throne
(King's Favor), and the winner (most gold, then most gems)."""

from __future__ import annotations

from services.kernel import Outcome, PlayerResult
from services.ys.model import COLOURS, OVER, State
from services.ys.tables import BLACK_TABLE, GEM_TABLE, THRONE_POINTS, gem_order, neutral_party


def majority_points(counts: list[int], table: tuple[int, ...]) -> list[int]:
    """Points by place for one gem colour: players tied on a count all take the lowest of the
    places they cover (the higher ones are lost); a player without such a gem scores nothing."""
    points = [0] * len(counts)
    ranked = sorted((p for p, n in enumerate(counts) if n > 0), key=lambda p: -counts[p])
    place = 0
    while place < len(ranked):
        tied = [p for p in ranked if counts[p] == counts[ranked[place]]]
        last = place + len(tied) - 1
        for p in tied:
            points[p] = table[last] if last < len(table) else 0
        place += len(tied)
    return points


def shared_points(totals: list[int], table: tuple[int, ...]) -> list[int]:
    """Points by place where tied players share the points of the places they cover, rounded
    down (the King's Favor throne: a tie for first pays (12+7)/2 = 9 each)."""
    points = [0] * len(totals)
    ranked = sorted(range(len(totals)), key=lambda p: -totals[p])
    place = 0
    while place < len(ranked):
        tied = [p for p in ranked if totals[p] == totals[ranked[place]]]
        covered = [table[i] if i < len(table) else 0 for i in range(place, place + len(tied))]
        for p in tied:
            points[p] = sum(covered) // len(tied)
        place += len(tied)
    return points


def throne_totals(state: State) -> list[int]:
    return [sum(b.value for b in throne) for throne in state.throne]


def score_breakdowns(state: State) -> list[dict[str, int]]:
    """Per party (the neutral party last with 2 players): gold won in play by source, then the
    final scoring. Each sheet sums to the party's final score."""
    sheets = [
        {
            "market_placements": state.vp_market[p],
            "commercial_majorities": state.vp_commercial[p],
            "king_and_prince": state.vp_characters[p],
        }
        for p in range(state.parties)
    ]
    places = min(state.parties, 4)
    rank_of = {c: rank for rank, c in enumerate(gem_order(state.prices))}
    for c, colour in enumerate(COLOURS):
        table = GEM_TABLE[rank_of[c]][:places]
        points = majority_points([state.gems[p][c] for p in range(state.parties)], table)
        for p, sheet in enumerate(sheets):
            sheet[f"gems_{colour}"] = points[p]
    for p, sheet in enumerate(sheets):
        sheet["black_gems"] = BLACK_TABLE[min(state.gems[p][4], len(BLACK_TABLE) - 1)]
    if state.options.kings_favor:
        points = shared_points(throne_totals(state), THRONE_POINTS[: state.players])
        for p in range(state.players):
            sheets[p]["throne"] = points[p]
    return sheets


def table_scores(state: State) -> tuple[int, ...]:
    """The score a table shows for each party (docs/rules/ys.md, "Score"): the gold won so far
    while the game runs, the final score once it is over."""
    if state.phase == OVER:
        return tuple(sum(sheet.values()) for sheet in score_breakdowns(state))
    return tuple(state.scores)


REASON = (
    "The last turn was counted; then gems scored by the rank of their price, black gems by how "
    "many each player holds. The most gold wins; a tie goes to the most gems."
)


def outcome(state: State) -> Outcome | None:
    """Most gold wins; a tie goes to the most gems (coloured and black); still tied: shared.
    With 2 players the neutral party scores (it can take places from the humans) but cannot win."""
    if state.phase != OVER:
        return None
    sheets = score_breakdowns(state)
    scores = [sum(sheet.values()) for sheet in sheets]
    gems = [sum(g) for g in state.gems]
    neutral = neutral_party(state)
    results = []
    for p in range(state.players):
        facts = {"gems": gems[p], "black_gems": state.gems[p][4]}
        for c, colour in enumerate(COLOURS):
            facts[colour] = state.gems[p][c]
        if state.options.kings_favor:
            facts["throne_total"] = throne_totals(state)[p]
        if neutral >= 0:
            facts["neutral_score"] = scores[neutral]
        results.append(PlayerResult(p, scores[p], sheets[p], facts=facts))
    best = max(scores[p] for p in range(state.players))
    tied = [p for p in range(state.players) if scores[p] == best]
    most = max(gems[p] for p in tied)
    winners = tuple(p for p in tied if gems[p] == most)
    return Outcome(winners, tuple(results), REASON)
