"""Bots that fill seats: a random-legal bot for every game, a greedy one-ply bot per game and a
strong search bot per game (guildhall_client/bots/strong/, docs/bots.md).

`make_bot(kind, game, seed)` is the one way to get a bot. A game without its own evaluation
yet falls back to the random bot for "greedy" (and says so through `has_greedy`), so a new game
is playable by bots the day its rules land.
"""

from __future__ import annotations

from guildhall_client.bots import ankh_morpork, bruges, rattus_cartus, waterdeep, ys
from guildhall_client.bots.base import Bot, Evaluator, GreedyBot, RandomBot

# One evaluator per game: add a module here when a game's rules land.
GREEDY: dict[str, Evaluator] = {
    "rattus_cartus": rattus_cartus.evaluate,
    "ys": ys.evaluate,
    "waterdeep": waterdeep.evaluate,
    "bruges": bruges.evaluate,
    "ankh_morpork": ankh_morpork.evaluate,
}
KINDS = ("random", "greedy", "strong")


def has_greedy(game: str) -> bool:
    return game in GREEDY


def make_bot(kind: str, game: str, seed: int | None = None, *, budget_s: float | None = None) -> Bot:
    """A bot of `kind` ("random", "greedy" or "strong") for `game`; `budget_s` is the strong
    bot's wall time per decision (default 1 s). A game without a strong bot plays greedy."""
    if kind == "strong":
        from guildhall_client.bots.strong import DEFAULT_BUDGET_S, STRONG_GAMES, StrongBot

        if game in STRONG_GAMES:
            return StrongBot(game, seed, budget_s=budget_s or DEFAULT_BUDGET_S)
        kind = "greedy"
    if kind == "random":
        return RandomBot(seed)
    if kind == "greedy":
        evaluate = GREEDY.get(game)
        return GreedyBot(evaluate, seed) if evaluate is not None else RandomBot(seed)
    raise ValueError(f"unknown bot kind {kind!r}; choose one of {', '.join(KINDS)}")


__all__ = ["GREEDY", "KINDS", "Bot", "Evaluator", "GreedyBot", "RandomBot", "has_greedy", "make_bot"]
