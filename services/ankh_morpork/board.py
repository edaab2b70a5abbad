"""Board facts of Ankh-Morpork: lookups derived once from the data file and what the pieces on
the board say (who controls an area, who has minions where, where a minion may be placed).

Pure functions of the state and the data, importing only the data and the model: the engine,
cards, random events, scoring and views all read them.
"""

from __future__ import annotations

from services.ankh_morpork.catalog import Card, Catalog
from services.ankh_morpork.model import AREAS, DEMON, MINIONS, TROLL, Action, PlaceMinion, State


class Tables:
    """Lookups derived once from the data file."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.cards: dict[str, Card] = {c.id: c for c in catalog.cards}
        self.areas = catalog.areas
        self.adjacent: tuple[frozenset[int], ...] = tuple(frozenset(a.adjacent) for a in catalog.areas)
        self.cost = tuple(a.cost for a in catalog.areas)
        self.events = {e.id: e for e in catalog.events}
        self.personalities = {p.id: p for p in catalog.personalities}
        self.interrupt_cards = frozenset(c.id for c in catalog.cards if c.interrupt)

    def adj(self, area: int) -> frozenset[int]:
        return self.adjacent[area - 1]

    def near(self, area: int) -> tuple[int, ...]:
        """The area and its neighbours, in number order."""
        return tuple(sorted({area, *self.adjacent[area - 1]}))


# -- board facts ----------------------------------------------------------------------------------


def pieces_in(state: State, area: int) -> int:
    """Minions of every colour, trolls and demons in an area (buildings not counted)."""
    i = area - 1
    return sum(state.minions[i]) + state.trolls[i] + state.demons[i]


def minions_of(state: State, seat: int) -> int:
    return sum(row[seat] for row in state.minions)


def supply(state: State, seat: int) -> int:
    return MINIONS - minions_of(state, seat)


def buildings_of(state: State, seat: int) -> tuple[int, ...]:
    return tuple(a + 1 for a, owner in enumerate(state.buildings) if owner == seat)


def trouble_count(state: State) -> int:
    return sum(state.trouble)


def controller(state: State, area: int) -> int:
    """The seat whose pieces (minions + building) outnumber every other seat's and the trolls;
    nobody controls an area with a demon [FS 3.1]."""
    i = area - 1
    if state.demons[i]:
        return -1
    counts = [state.minions[i][p] + (state.buildings[i] == p) for p in range(state.players)]
    best = max(counts)
    if best == 0 or counts.count(best) > 1 or best <= state.trolls[i]:
        return -1
    return counts.index(best)


def owners_in(state: State, area: int) -> tuple[int, ...]:
    """Every owner with a minion in the area: seats in order, then TROLL, then DEMON."""
    i = area - 1
    found = [p for p in range(state.players) if state.minions[i][p]]
    if state.trolls[i]:
        found.append(TROLL)
    if state.demons[i]:
        found.append(DEMON)
    return tuple(found)


def count_of(state: State, area: int, owner: int) -> int:
    i = area - 1
    if owner == TROLL:
        return state.trolls[i]
    if owner == DEMON:
        return state.demons[i]
    return state.minions[i][owner]


def placement_ok(t: Tables, state: State, seat: int, area: int, from_area: int = 0) -> bool:
    """The placement rule [SEED Colocar un Minion]: into an area where you have a minion or one
    next to it; anywhere with no minion on the board; with all 12 out, one is taken off first."""
    rows = state.minions
    if from_area:
        if rows[from_area - 1][seat] == 0 or from_area == area:
            return False
    elif supply(state, seat) == 0:
        return False
    present = [a + 1 for a in range(AREAS) if rows[a][seat] - (1 if a + 1 == from_area else 0) > 0]
    if not present:
        return True
    return any(a == area or a in t.adj(area) for a in present)


def placements(t: Tables, state: State, seat: int, areas: tuple[int, ...], rule: bool) -> list[Action]:
    """PlaceMinion actions into `areas` (with `rule`, only those the placement rule allows)."""
    out: list[Action] = []
    if supply(state, seat) > 0:
        if not rule:
            return [PlaceMinion(a) for a in areas]
        present = [a + 1 for a in range(AREAS) if state.minions[a][seat]]
        if not present:
            return [PlaceMinion(a) for a in areas]
        reach = set(present).union(*(t.adj(a) for a in present))
        return [PlaceMinion(a) for a in areas if a in reach]
    sources = [a + 1 for a in range(AREAS) if state.minions[a][seat]]
    reach_from: dict[int, set[int] | None] = {}  # per source: where the rule allows (None: anywhere)
    for f in sources:
        left = [a for a in sources if a != f or state.minions[f - 1][seat] > 1]
        reach_from[f] = set(left).union(*(t.adj(a) for a in left)) if left else None
    for a in areas:
        for f in sources:
            allowed = reach_from[f]
            if f != a and (not rule or allowed is None or a in allowed):
                out.append(PlaceMinion(a, f))
    return out
