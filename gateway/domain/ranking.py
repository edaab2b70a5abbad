"""Where each seat finished, from a game's outcome: what ratings are updated from.

The rules of the ranking, in order:

1. A seat that left the match (resigned, or forfeited by its turn timer) or abandoned it (its
   turn timer ran out and it never acted again) finishes last, tied with every other such seat,
   whatever the outcome says.
2. Of the others, the winners share first place (a shared win is a tie).
3. Then the seats the game eliminated (Rattus Cartus's plague) come after those it did not,
   tied with each other: an eliminated seat scores nothing.
4. Then by score, higher first; equal scores tie.

Ranks are 1-based and dense in order of groups ("1, 1, 3" for a shared win of two among three:
the standard competition ranking, so a seat's rank says how many finished ahead of it).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import msgspec


class _Result(msgspec.Struct, frozen=True):
    player: int
    score: int = 0
    eliminated: bool = False


class _Outcome(msgspec.Struct, frozen=True):
    winners: tuple[int, ...] = ()
    results: tuple[_Result, ...] = ()


_DECODER = msgspec.json.Decoder(_Outcome)


def ranks(outcome_json: bytes, seats: int, left: Collection[int] = ()) -> list[int]:
    """Each seat's place (1 = first) from the outcome JSON; `left` seats are last (rule 1)."""
    outcome = _DECODER.decode(outcome_json) if outcome_json else _Outcome()
    results = {r.player: r for r in outcome.results}
    winners = set(outcome.winners)

    def key(seat: int) -> tuple[int, int, int, float]:
        if seat in left:
            return (1, 0, 0, 0.0)
        result = results.get(seat, _Result(seat))
        alive = not result.eliminated
        return (0, 0 if seat in winners else 1, 0 if alive else 1, -float(result.score) if alive else 0.0)

    keys = [key(seat) for seat in range(seats)]
    return [1 + sum(1 for other in keys if other < mine) for mine in keys]


def abandoned(seats: int, timed_out: Sequence[tuple[int, int]], acted: Sequence[tuple[int, int]]) -> set[int]:
    """Seats whose turn timer ran out at some version and that never acted themselves after it.

    `timed_out` and `acted` are (seat, version) pairs from the stream."""
    last_timeout: dict[int, int] = {}
    for seat, version in timed_out:
        last_timeout[seat] = max(version, last_timeout.get(seat, 0))
    last_act: dict[int, int] = {}
    for seat, version in acted:
        last_act[seat] = max(version, last_act.get(seat, 0))
    return {
        seat
        for seat, version in last_timeout.items()
        if 0 <= seat < seats and last_act.get(seat, 0) < version
    }
