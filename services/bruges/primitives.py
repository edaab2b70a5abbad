"""What every part of the Bruges rules reads: lookups derived once from the data file, the board
figures (canal spaces and costs, persons in play, prices, permanent bonuses, hand limits) and
the two steps person effects share with the card actions (building a canal, the reputation
trigger).

It imports only the data and the model, so effects, rules, views and scoring can all build on
it without importing each other.
"""

from __future__ import annotations

from collections.abc import Iterable

from services.bruges.catalog import Catalog, Person
from services.bruges.model import (
    HAND_SIZE,
    MAX_STATUES,
    SECTION_SPACES,
    CanalBuilt,
    Event,
    Gained,
    Seat,
    State,
    StatueTaken,
)
from services.kernel import EventLog

# The validate-call log every handler and effect writes to (see services.kernel.log).
Log = EventLog[State, Event]


class Tables:
    """Bruges's data file as the rules read it, and the figures derived from it."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.board = catalog.board
        persons = sorted(catalog.persons, key=lambda p: p.id)
        self.persons: tuple[Person, ...] = tuple(persons)
        self.colour: tuple[str, ...] = tuple(p.colour for p in persons)

    # -- board figures ---------------------------------------------------------------------------

    def canal_space(self, state: State, player: int, section: int) -> str:
        """The colour of the next space of a section ("" when the section is complete)."""
        tokens = state.seats[player].canals[section]
        if tokens >= SECTION_SPACES:
            return ""
        house = self.board.guard_houses[player]
        return (house.left if section == 0 else house.right)[tokens]

    def canal_cost(self, seat: Seat, section: int) -> int:
        tokens = seat.canals[section]
        return self.board.canal_costs[tokens] if tokens < SECTION_SPACES else 0

    def in_play(self, seat: Seat) -> Iterable[Person]:
        return (self.persons[h.person] for h in seat.houses if h.person >= 0)

    def price(self, state: State, player: int, card: int) -> int:
        """A person's price less the discounts of persons already in play (Biologist)."""
        discount = sum(p.amount for p in self.in_play(state.seats[player]) if p.effect == "recruit_discount")
        return max(0, self.persons[card].price - discount)

    def bonus(self, seat: Seat, action: str) -> int:
        """What permanent persons add to an action (Lawyer: one more worker)."""
        return sum(
            p.amount for p in self.in_play(seat) if p.effect == "action_bonus" and p.param_action == action
        )

    def hand_limit(self, seat: Seat) -> int:
        return max([HAND_SIZE, *(p.amount for p in self.in_play(seat) if p.effect == "hand_size")])

    # -- steps shared by card actions and person effects -------------------------------------

    def reputation_trigger(self, log: Log, player: int) -> None:
        """Persons that fire whenever their owner moves up the reputation track (infinity kind 3)."""
        for person in self.in_play(log.state.seats[player]):
            if person.effect == "reputation_points":
                log.emit(Gained(player, person.name, points=person.amount))

    def build_canal(self, log: Log, player: int, section: int, cost: int) -> None:
        """A token on the next space; a completed section takes the top statue (two at most, one
        per section even if rebuilt after a Fire) [SEED canal action]."""
        log.emit(CanalBuilt(player, section, cost))
        seat = log.state.seats[player]
        if (
            seat.canals[section] == SECTION_SPACES
            and not seat.statue_sections[section]
            and len(seat.statues) < MAX_STATUES
            and log.state.statues
        ):
            log.emit(StatueTaken(player, section, log.state.statues[0]))
