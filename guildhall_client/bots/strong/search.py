"""Information-set Monte Carlo tree search over determinizations (single-observer ISMCTS).

Each iteration deals a fresh determinization: the game's sampler builds a full state from the
searching seat's view alone (its hidden parts dealt at random, consistent with the view), so the
search never sees what the seat may not. One tree is shared by every determinization: a node is a
sequence of actions, its children the actions taken from it in any determinization, and a
child's UCB counts only the iterations in which it was legal ("availability", Cowling, Powley and
Whitehouse 2012, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2)). Below the tree a
short playout with the game's cheap policy runs, then the game's leaf evaluation turns the
position into a reward per seat, so playouts stop long before the end of the game.

- Multi-step turns need nothing special: a node belongs to the seat that acts there, and the
  same seat may own several nodes in a row.
- Simultaneous decisions (several seats active at once, e.g. secret bids): while the searching
  seat owes a decision, the other active seats act by the playout policy outside the tree, so
  the seat's choice is made without seeing theirs and theirs without seeing its choice.
- The budget is either a time (seconds on a given clock) or a number of iterations; an
  iteration count makes a search a pure function of its inputs and seed (tests use that).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.kernel import GameSpec, Rng

Action = Any
State = Any
# (view Struct, seat, sampling Rng) -> a full state the seat cannot tell from the true one.
Sampler = Callable[[Any, int, Rng], State]
# state -> each seat's estimated final points (comparable between seats).
Evaluation = Callable[[State], Sequence[float]]
# (state, seat, legal actions, rng) -> the index of the action a playout takes.
Policy = Callable[[State, int, Sequence[Action], random.Random], int]


@dataclass(frozen=True)
class GameKit:
    """What the search needs from one game besides its rules."""

    spec: GameSpec[Any]
    sample: Sampler
    evaluate: Evaluation
    scale: float  # a lead in points worth about 73% to win (the logistic's unit)
    policy: Policy | None = None  # None: uniform among the legal actions
    horizon: int = 24  # playout actions after the tree before the leaf evaluation


@dataclass
class Budget:
    """Stop after `seconds` on `clock`, or after `iterations` (whichever is set and comes first)."""

    seconds: float | None = 1.0
    iterations: int | None = None
    clock: Callable[[], float] = field(default=lambda: 0.0)


@dataclass
class Node:
    actor: int = -1  # the seat whose action led here
    visits: int = 0
    reward: float = 0.0  # summed rewards of `actor`
    available: int = 0  # iterations in which this node's action was legal
    children: dict[Hashable, Node] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchResult:
    choice: int  # index into the root actions
    iterations: int
    visits: tuple[int, ...]


EXPLORATION = 0.7


def action_key(action: Action) -> Hashable:
    """Frozen msgspec Structs hash by value; one holding a list or dict falls back to its repr."""
    try:
        hash(action)
    except TypeError:
        return repr(action)
    return action  # type: ignore[no-any-return]


def rewards(kit: GameKit, state: State) -> list[float]:
    """Each seat's reward in [0, 1]: a share of the win at the end, else the leaf evaluation's
    lead over the best rival squashed by a logistic."""
    outcome = kit.spec.outcome(state)
    n = kit.spec.seat_count(state)
    if outcome is not None:
        winners = set(outcome.winners)
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]
    points = list(kit.evaluate(state))
    out = []
    for p in range(n):
        rival = max(points[q] for q in range(n) if q != p)
        out.append(1.0 / (1.0 + math.exp(-(points[p] - rival) / kit.scale)))
    return out


def _step(spec: GameSpec[Any], state: State, seat: int, action: Action) -> State | None:
    events = spec.validate(state, seat, action)
    if not isinstance(events, list | tuple):
        return None  # not legal in this determinization
    return spec.evolve(state, events)


def _policy_index(kit: GameKit, state: State, seat: int, legal: Sequence[Action], rng: random.Random) -> int:
    if len(legal) == 1:
        return 0
    if kit.policy is None:
        return rng.randrange(len(legal))
    return kit.policy(state, seat, legal, rng)


def _play_others(kit: GameKit, state: State, me: int, rng: random.Random) -> State | None:
    """While `me` owes a decision at the same time as others, the others decide by the policy
    (outside the tree), so neither side's choice depends on the other's."""
    spec = kit.spec
    while True:
        active = spec.active_players(state)
        others = [p for p in active if p != me]
        if me not in active or not others:
            return state
        seat = others[0]
        legal = spec.legal_actions(state, seat)
        nxt = _step(spec, state, seat, legal[_policy_index(kit, state, seat, legal, rng)])
        if nxt is None:
            return None
        state = nxt


def search(
    kit: GameKit, view: Any, seat: int, root_actions: Sequence[Action], budget: Budget, rng: random.Random
) -> SearchResult:
    """The most visited of `root_actions` (the seat's legal actions) after the budget."""
    root = Node()
    root_keys = [action_key(a) for a in root_actions]
    iterations = 0
    start = budget.clock()
    while True:
        if budget.iterations is not None and iterations >= budget.iterations:
            break
        if budget.seconds is not None and iterations and budget.clock() - start >= budget.seconds:
            break
        iterations += 1
        state = kit.sample(view, seat, Rng.from_seed(rng.getrandbits(63)))
        _iterate(kit, root, state, seat, root_actions, root_keys, rng)
    visits = tuple(root.children[k].visits if k in root.children else 0 for k in root_keys)
    best = max(range(len(root_actions)), key=lambda i: (visits[i], _mean(root.children.get(root_keys[i]))))
    return SearchResult(best, iterations, visits)


def _mean(node: Node | None) -> float:
    return node.reward / node.visits if node is not None and node.visits else 0.0


def _iterate(
    kit: GameKit,
    root: Node,
    state: State,
    me: int,
    root_actions: Sequence[Action],
    root_keys: Sequence[Hashable],
    rng: random.Random,
) -> None:
    spec = kit.spec
    node = root
    path = [root]
    expanded = False
    while spec.outcome(state) is None and not expanded:
        after = _play_others(kit, state, me, rng)
        if after is None:
            return
        state = after
        active = spec.active_players(state)
        if not active:
            break
        actor = me if me in active else active[0]
        if node is root:
            legal, keys = root_actions, root_keys
        else:
            legal = spec.legal_actions(state, actor)
            keys = [action_key(a) for a in legal]
        if len(legal) == 1:  # a forced action is no decision: no node for it
            nxt = _step(spec, state, actor, legal[0])
            if nxt is None:
                return
            state = nxt
            continue
        for k in keys:
            child = node.children.get(k)
            if child is not None:
                child.available += 1
        untried = [i for i, k in enumerate(keys) if k not in node.children]
        if untried:
            i = rng.choice(untried)
            child = Node(actor=actor, available=1)
            node.children[keys[i]] = child
            expanded = True
        else:
            i = _select(node, keys)
            child = node.children[keys[i]]
        nxt = _step(spec, state, actor, legal[i])
        if nxt is None:
            return
        state = nxt
        node = child
        path.append(node)
    state = _playout(kit, state, rng)
    reward = rewards(kit, state)
    for visited in path[1:]:
        visited.visits += 1
        visited.reward += reward[visited.actor]


def _select(node: Node, keys: Sequence[Hashable]) -> int:
    best, best_value = 0, -math.inf
    for i, k in enumerate(keys):
        child = node.children[k]
        if not child.visits:
            return i
        value = child.reward / child.visits + EXPLORATION * math.sqrt(
            math.log(max(child.available, 1)) / child.visits
        )
        if value > best_value:
            best, best_value = i, value
    return best


def _playout(kit: GameKit, state: State, rng: random.Random) -> State:
    spec = kit.spec
    for _ in range(kit.horizon):
        if spec.outcome(state) is not None:
            break
        active = spec.active_players(state)
        if not active:
            break
        seat = active[0]
        legal = spec.legal_actions(state, seat)
        nxt = _step(spec, state, seat, legal[_policy_index(kit, state, seat, legal, rng)])
        if nxt is None:
            break
        state = nxt
    return state
