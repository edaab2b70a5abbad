"""The effect primitives a person card names in the data file (`effect` plus `amount`,
`param_colour`, `param_group`, `param_action`, `threshold`).

Carried out when a person is used: on recruiting (arrow) or when activated in its owner's turn
(worker icon, once-a-round infinity). Permanent persons (`action_bonus`, `recruit_discount`) and
triggers (`hand_size`, `reputation_points`) are read where their situation arises in `rules`;
laurel persons score in `scoring`.
"""

from __future__ import annotations

from services.bruges.catalog import Person
from services.bruges.model import (
    COLOUR_INDEX,
    REPUTATION_STEPS,
    T_CANAL,
    T_DISCARD,
    T_DRAW,
    T_GIVE,
    T_THREAT,
    ExtraPlayGranted,
    Gained,
    State,
    Task,
    TasksAdded,
)
from services.bruges.primitives import Log, Tables


def _houses(tables: Tables, state: State, player: int, colour: str) -> int:
    """A seat's houses of one colour ("" = every house): the colour of the card built face down."""
    return sum(1 for h in state.seats[player].houses if not colour or tables.colour[h.card] == colour)


def targets(tables: Tables, state: State, player: int, person: Person) -> list[int]:
    """The targets an activation can take now ([-1] for none); [] if it would do nothing.

    A person whose effect would change nothing cannot be activated: paying a worker for nothing is
    no choice worth listing [ENGINE decision, docs/rules/bruges.md].
    """
    seat = state.seats[player]
    effect = person.effect
    if effect == "canal_without_card":
        return [
            s
            for s in (0, 1)
            if tables.canal_space(state, player, s)
            and tables.canal_cost(seat, s) * person.amount <= seat.guilders
        ]
    usable = True
    if effect in ("draw_cards", "draw_and_discard"):
        usable = bool(state.piles[0] or state.piles[1])
    elif effect == "return_threats":
        usable = any(seat.threats)
    elif effect == "extra_play":
        usable = len(seat.hand) > state.allowed - state.played
    elif effect == "die_reward":
        usable = state.dice[COLOUR_INDEX[person.param_colour]] >= person.threshold
    elif effect in ("guilders_per_house", "points_per_house"):
        usable = _houses(tables, state, player, person.param_colour) > 0
    elif effect == "gain_reputation":
        usable = seat.reputation < REPUTATION_STEPS
    elif effect in ("opponents_lose_canal", "opponents_give_workers"):
        usable = True  # taking from nobody is still a legal use
    return [-1] if usable else []


def why_not(tables: Tables, state: State, player: int, person: Person, target: int) -> str:
    """Why an activation of `person` with `target` is refused (for the rejection message)."""
    if person.effect == "canal_without_card":
        if target not in (0, 1):
            return f"{person.name} builds on canal section 0 or 1: name it as the target."
        if not tables.canal_space(state, player, target):
            return "That canal section is complete."
        cost = tables.canal_cost(state.seats[player], target) * person.amount
        return f"{person.name} builds that space for {cost} guilders; you have too few."
    if target != -1:
        return f"{person.name} takes no target."
    return f"{person.name} would have no effect now."


def resolve(tables: Tables, log: Log, player: int, person: Person, target: int) -> None:
    """Carry out a used person's effect for `player` (events into `log`)."""
    effect = person.effect
    amount = person.amount
    why = person.name
    state = log.state
    others = [p for p in range(state.players) if p != player]
    if effect == "gain_guilders":
        log.emit(Gained(player, why, guilders=amount))
    elif effect == "gain_points":
        log.emit(Gained(player, why, points=amount))
    elif effect == "gain_workers":
        workers = [0] * 5
        workers[COLOUR_INDEX[person.param_colour]] = amount
        log.emit(Gained(player, why, workers=tuple(workers)))
    elif effect == "guilders_per_house":
        count = _houses(tables, state, player, person.param_colour)
        if count:
            log.emit(Gained(player, why, guilders=amount * count))
    elif effect == "points_per_house":
        count = _houses(tables, state, player, person.param_colour)
        if count:
            log.emit(Gained(player, why, points=amount * count))
    elif effect == "gain_reputation":
        for _ in range(amount):
            if log.state.seats[player].reputation >= REPUTATION_STEPS:
                break
            log.emit(Gained(player, why, reputation=1))
            tables.reputation_trigger(log, player)
    elif effect == "draw_cards":
        log.emit(TasksAdded((Task(player, T_DRAW, amount),)))
    elif effect == "draw_and_discard":
        log.emit(TasksAdded((Task(player, T_DRAW, amount), Task(player, T_DISCARD, person.threshold))))
    elif effect == "return_threats":
        log.emit(TasksAdded((Task(player, T_THREAT, amount),)))
    elif effect == "opponents_lose_canal":
        if others:
            log.emit(TasksAdded(tuple(Task(p, T_CANAL, amount) for p in others)))
    elif effect == "opponents_give_workers":
        if others:
            log.emit(TasksAdded(tuple(Task(p, T_GIVE, amount, player) for p in others)))
    elif effect == "die_reward":
        if state.dice[COLOUR_INDEX[person.param_colour]] >= person.threshold:
            log.emit(Gained(player, why, guilders=amount))
    elif effect == "extra_play":
        log.emit(ExtraPlayGranted(player))
    elif effect == "canal_without_card":
        tables.build_canal(log, player, target, tables.canal_cost(state.seats[player], target) * amount)
    else:  # permanent, trigger and laurel effects are not carried out on use
        raise AssertionError(f"{effect} is not an effect carried out on use")
