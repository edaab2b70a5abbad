"""Search over determinizations with greedy playouts (determinized Monte Carlo rollouts).

Each round deals a fresh determinization: the game's sampler builds a full state from the
searching seat's view alone (its hidden parts dealt at random, consistent with the view), so the
search never sees what the seat may not. In that one determinization every candidate action is
tried and played on by the game's greedy policy for every seat (the same one-ply evaluation the
greedy bot uses, from each seat's own view of the determinization) for a horizon of actions,
after which the game's leaf evaluation turns the position into a reward per seat (a finished
game scores its result). Every candidate meets the same determinization and the same playout
seed in a round (common random numbers), so their differences measure the actions rather than
the luck of the deal.

- Candidates: the seat's legal actions ordered by the greedy evaluation, the best `width`
  searched (a prior that keeps ~190 Ys placements affordable).
- Racing: after a few rounds a candidate whose paired difference to the leader is clearly
  negative (or always zero) is dropped; a decision whose last rival is dropped ends early.
- The choice is conservative: the search leaves the greedy favourite only for a candidate whose
  paired advantage over it exceeds `switch_z` standard errors, so noise at a small budget does
  not make the bot worse than the greedy policy it improves on (rollout policy improvement,
  Tesauro and Galperin 1996; Bertsekas, "Rollout algorithms").
- The budget is either a time (seconds on a given clock) or a number of rounds; a round count
  makes a search a pure function of its inputs and seed (tests use that). A time budget is
  kept even when not one round fits in it (a busy core): the answer is then the favourite.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from services.kernel import GameSpec, Rng

Action = Any
State = Any
# (view Struct, seat, sampling Rng) -> a full state the seat cannot tell from the true one.
Sampler = Callable[[Any, int, Rng], State]
# state -> each seat's estimated final points (comparable between seats).
Evaluation = Callable[[State], Sequence[float]]
# The greedy bot's evaluator: (JSON view, JSON action, seat) -> how good the action looks.
Greedy = Callable[[Mapping[str, Any], Mapping[str, Any], int], float]


@dataclass(frozen=True)
class GameKit:
    """What the search needs from one game besides its rules."""

    spec: GameSpec[Any]
    sample: Sampler
    evaluate: Evaluation
    greedy: Greedy
    scale: float  # a lead in points worth about 73% to win (the logistic's unit)
    horizon: int | None = 30  # playout actions after the candidate; None: to the end
    width: int = 6  # candidates searched: the greedy evaluation's best
    switch_z: float = 1.0  # standard errors of advantage needed to leave the greedy favourite
    win_weight: float = 0.5  # at the end: this much for the win, the rest for the points lead
    version: int = 1  # bumped when the kit changes how the bot plays (bench results retire)


@dataclass
class Budget:
    """Stop after `seconds` on `clock`, or after `rounds` determinizations (whichever is set and
    comes first)."""

    seconds: float | None = 1.0
    rounds: int | None = None
    clock: Callable[[], float] = field(default=lambda: 0.0)


@dataclass(frozen=True)
class SearchResult:
    choice: int  # index into the root actions
    rounds: int
    rollouts: int


RACE_AFTER = 4  # rounds before a candidate may be dropped
STOP_CHECK_EVERY = 4  # playout actions between looks at the clock (a decision overruns by at most that)
RACE_Z = 2.5  # standard errors below the leader that drop a candidate


def to_json(value: Any) -> Any:
    """A Struct as a client gets it after JSON decoding (tuples stay tuples; nothing reads the
    difference), at a fraction of the cost of encoding and decoding."""
    return msgspec.to_builtins(value, str_keys=True)


def greedy_order(
    greedy: Greedy, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], seat: int, rng: random.Random
) -> list[int]:
    """Indices of `legal`, best first by the greedy evaluation (ties in random order)."""
    scores = [greedy(view, action, seat) for action in legal]
    jitter = [rng.random() for _ in legal]
    return sorted(range(len(legal)), key=lambda i: (-round(scores[i], 9), jitter[i]))


def greedy_index(kit: GameKit, state: State, seat: int, legal: Sequence[Action], rng: random.Random) -> int:
    """The greedy bot's choice for `seat` from its own view of `state` (ties at random)."""
    view = to_json(kit.spec.view(state, seat))
    scores = [kit.greedy(view, action, seat) for action in to_json(legal)]
    best = max(scores)
    top = [i for i, s in enumerate(scores) if s >= best - 1e-9]
    return top[0] if len(top) == 1 else rng.choice(top)


def rewards(kit: GameKit, state: State) -> list[float]:
    """Each seat's reward in [0, 1]: at the end a blend of its share of the win and its points
    lead, else the leaf evaluation's lead over the best rival, squashed by a logistic."""
    n = kit.spec.seat_count(state)
    outcome = kit.spec.outcome(state)
    if outcome is None:
        return _leads(list(kit.evaluate(state)), n, kit.scale)
    winners = set(outcome.winners)
    leads = _leads([float(r.score) for r in outcome.results], n, kit.scale)
    w = kit.win_weight
    return [w * (1.0 / len(winners) if p in winners else 0.0) + (1 - w) * leads[p] for p in range(n)]


def _leads(points: Sequence[float], n: int, scale: float) -> list[float]:
    out = []
    for p in range(n):
        rival = max(points[q] for q in range(n) if q != p)
        out.append(1.0 / (1.0 + math.exp(max(-50.0, min(50.0, -(points[p] - rival) / scale)))))
    return out


def _step(spec: GameSpec[Any], state: State, seat: int, action: Action) -> State | None:
    events = spec.validate(state, seat, action)
    if not isinstance(events, list | tuple):
        return None  # not legal in this determinization
    return spec.evolve(state, events)


def playout(kit: GameKit, state: State, rng: random.Random, stop: Callable[[], bool]) -> State | None:
    """Every seat plays the greedy policy for `kit.horizon` actions (or to the end); None if
    `stop()` turns true on the way (the budget ran out)."""
    spec = kit.spec
    steps = 0
    while (kit.horizon is None or steps < kit.horizon) and spec.outcome(state) is None:
        if steps % STOP_CHECK_EVERY == STOP_CHECK_EVERY - 1 and stop():
            return None
        active = spec.active_players(state)
        if not active:
            break
        seat = active[0] if len(active) == 1 else rng.choice(active)
        legal = spec.legal_actions(state, seat)
        choice = 0 if len(legal) == 1 else greedy_index(kit, state, seat, legal, rng)
        nxt = _step(spec, state, seat, legal[choice])
        if nxt is None:
            break
        state = nxt
        steps += 1
    return state


def search(
    kit: GameKit,
    view: Any,
    seat: int,
    root_actions: Sequence[Action],
    order: Sequence[int],
    budget: Budget,
    rng: random.Random,
) -> SearchResult:
    """The best of `root_actions` (the seat's legal actions; `order` ranks them, greedy's best
    first) after the budget."""
    alive = list(order[: kit.width])
    favourite = alive[0]
    results: dict[int, list[float]] = {i: [] for i in alive}
    start = budget.clock()
    attempts = rounds = rollouts = 0

    def spent() -> bool:
        return budget.seconds is not None and budget.clock() - start >= budget.seconds

    while len(alive) > 1 and not (budget.rounds is not None and attempts >= budget.rounds):
        if spent():
            break
        attempts += 1
        determinization = kit.sample(view, seat, Rng.from_seed(rng.getrandbits(63)))
        playout_seed = rng.getrandbits(63)
        found: dict[int, float] = {}
        for i in alive:
            after = _step(kit.spec, determinization, seat, root_actions[i])
            if after is None:
                break  # a determinization where a candidate is illegal: the round is skipped
            end = playout(kit, after, random.Random(playout_seed), spent)
            if end is None:
                break
            rollouts += 1
            found[i] = rewards(kit, end)[seat]
        if len(found) < len(alive):
            continue  # an incomplete round compares nothing (common random numbers)
        for i, r in found.items():
            results[i].append(r)
        rounds += 1
        if rounds >= RACE_AFTER:
            leader = max(alive, key=lambda i: sum(results[i]))
            alive = [i for i in alive if i == leader or not _clearly_worse(results[i], results[leader])]
    return SearchResult(_choose(results, alive, favourite, kit.switch_z), rounds, rollouts)


def _diffs(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """Paired differences over the rounds both saw (a dropped candidate saw fewer)."""
    return [x - y for x, y in zip(a, b, strict=False)]


def _clearly_worse(mine: Sequence[float], leader: Sequence[float]) -> bool:
    """Below the leader by RACE_Z standard errors, or never different from it (a twin: the
    choice would not change, only the time spent)."""
    d = _diffs(mine, leader)
    if len(d) < 2:
        return False
    if not any(d):
        return True
    se = statistics.stdev(d) / math.sqrt(len(d))
    return statistics.fmean(d) + RACE_Z * se < 0


def _choose(results: dict[int, list[float]], alive: Sequence[int], favourite: int, switch_z: float) -> int:
    """The favourite unless a surviving candidate beats it by `switch_z` standard errors (the
    best such by mean advantage)."""
    if favourite not in alive or not results[favourite]:
        return max(alive, key=lambda i: statistics.fmean(results[i]) if results[i] else -1.0)
    best, best_gain = favourite, 0.0
    for i in alive:
        d = _diffs(results[i], results[favourite])
        if i == favourite or len(d) < 2:
            continue
        gain = statistics.fmean(d)
        se = statistics.stdev(d) / math.sqrt(len(d))
        if gain > switch_z * se and gain > best_gain:
            best, best_gain = i, gain
    return best
