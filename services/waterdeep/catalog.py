"""The Lords of Waterdeep data file: action spaces, Building tiles, quests, intrigue cards and
Lords, each effect a list of primitives (see `OPS`). Read from TOML and checked on load, so a bad
replacement file fails with a message naming the fault."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import msgspec

from services.kernel.data import data_digest, packaged_data, parse_data, read_data
from services.waterdeep.model import CUBES, MANDATORY, QUEST_TYPES, RES

NonNegative = Annotated[int, msgspec.Meta(ge=0)]
SCHEMA_VERSION = 1

# Component counts [FACTS 0, 9.3]: the data must match the box.
QUESTS = 60
PLOT_QUESTS = 15
QUESTS_PER_TYPE = 12
INTRIGUES = 50
INTRIGUE_TYPES = {"attack": 12, "utility": 32, "mandatory": 6}
TILES = 24
TILE_COSTS = {3: 5, 4: 14, 8: 5}
LORDS = 11

# Effect primitives, by where they may appear.
ACTION_OPS = frozenset(
    {
        "gain", "choose_cubes", "pay", "return_cubes", "take_stock", "inn_quest", "reset_inn",
        "first_player", "buy_building", "play_intrigue", "ambassador", "copy_space",
        "gold_per_building", "heroes_garden",
    }
)  # fmt: skip
OWNER_OPS = frozenset({"gain", "choose_cubes"})
INTRIGUE_OPS = frozenset(
    {
        "gain", "choose_cubes", "attack", "opponent_gain", "each_opponent_chooses", "offer", "favor",
        "steal", "bribe", "accelerate", "bidding_war", "change_of_plans", "real_estate", "recall",
        "sample_wares", "special_assignment", "mandatory",
    }
)  # fmt: skip
EXTRA_OPS = frozenset(
    {
        "recall_agent", "draw_quest", "free_hall_building", "free_stack_building", "opponent_gain",
        "inn_quest", "vp_per_building", "play_intrigue",
    }
)  # fmt: skip
PLOT_OPS = frozenset(
    {"on_gain", "orb", "type_bonus", "buy_vp", "round_cube", "miracle", "intrigue_vp", "lieutenant"}
)
OPS = ACTION_OPS | INTRIGUE_OPS | EXTRA_OPS | PLOT_OPS
_GAIN_KEYS = {"c": 0, "f": 1, "r": 2, "w": 3, "gold": 4, "vp": 5}


class CatalogError(ValueError):
    """A data file does not follow the schema or contradicts the printed components."""


class Effect(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    op: str
    c: NonNegative = 0
    f: NonNegative = 0
    r: NonNegative = 0
    w: NonNegative = 0
    gold: NonNegative = 0
    vp: NonNegative = 0
    intrigue: NonNegative = 0
    n: NonNegative = 0
    types: tuple[str, ...] = ()
    when: str = ""  # on_gain: "c", "f", "r", "w" or "gold"
    choices: tuple[str, ...] = ()  # favor: "gold=4", "f=2", ...

    @property
    def bundle(self) -> tuple[int, ...]:
        """The resources it names, in RES order."""
        return (self.c, self.f, self.r, self.w, self.gold, self.vp)


class Resources(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    c: NonNegative = 0
    f: NonNegative = 0
    r: NonNegative = 0
    w: NonNegative = 0
    gold: NonNegative = 0
    vp: NonNegative = 0
    intrigue: NonNegative = 0

    @property
    def bundle(self) -> tuple[int, ...]:
        return (self.c, self.f, self.r, self.w, self.gold, self.vp)


class Space(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    action: tuple[Effect, ...]
    source: str = ""


class Tile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    cost: NonNegative
    action: tuple[Effect, ...]
    owner: tuple[Effect, ...]
    stock: Resources = Resources()  # put on the tile when bought and at each round start
    source: str = ""


class Quest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    type: str
    requires: Resources
    reward: Resources
    plot: tuple[Effect, ...] = ()
    extra: tuple[Effect, ...] = ()
    source: str = ""


class Intrigue(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    copies: Annotated[int, msgspec.Meta(ge=1)]
    type: str
    effect: tuple[Effect, ...]
    source: str = ""


class Lord(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    quest_types: tuple[str, ...] = ()
    vp_per_quest: NonNegative = 0
    vp_per_building: NonNegative = 0
    source: str = ""


class Catalog(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    schema_version: int
    stand_in: bool
    notice: str
    spaces: tuple[Space, ...]
    buildings: tuple[Tile, ...]
    quests: tuple[Quest, ...]
    intrigues: tuple[Intrigue, ...]
    lords: tuple[Lord, ...]


def load_catalog(path: str | Path) -> Catalog:
    """Read and check a data file; CatalogError explains what is wrong."""
    return parse_catalog(read_data(path, CatalogError, "Waterdeep data"), str(path))


def parse_catalog(data: bytes | str, where: str = "data") -> Catalog:
    return parse_data(data, Catalog, where, check_catalog, CatalogError)


def default_catalog() -> Catalog:
    """The data shipped with the package (all real, public values)."""
    return parse_catalog(packaged_data("services.waterdeep", "data/waterdeep.toml"), "data/waterdeep.toml")


def _check_effects(owner: str, effects: tuple[Effect, ...], allowed: frozenset[str]) -> list[str]:
    problems = []
    for e in effects:
        if e.op not in allowed:
            problems.append(f"{owner}: effect {e.op!r} is not allowed here")
        for t in e.types:
            if t not in CUBES and t not in QUEST_TYPES:
                problems.append(f"{owner}: unknown type {t!r}")
        if e.op == "on_gain" and e.when not in RES[:5]:
            problems.append(f"{owner}: on_gain needs when = c, f, r, w or gold")
        for choice in e.choices:
            key, _, amount = choice.partition("=")
            if key not in _GAIN_KEYS or not amount.isdigit():
                problems.append(f"{owner}: favor choice {choice!r} is not <resource>=<n>")
    return problems


def check_catalog(catalog: Catalog) -> list[str]:
    """Every way the data contradicts the schema or the printed components."""
    problems: list[str] = []
    if catalog.schema_version != SCHEMA_VERSION:
        problems.append(f"schema_version must be {SCHEMA_VERSION}, not {catalog.schema_version}")
    ids = [s.id for s in catalog.spaces] + [t.id for t in catalog.buildings]
    ids += [q.id for q in catalog.quests if q.type != MANDATORY] + [lord.id for lord in catalog.lords]
    ids += [i.id for i in catalog.intrigues]
    duplicated = sorted(i for i, n in Counter(ids).items() if n > 1)
    if duplicated:
        problems.append(f"duplicated ids: {duplicated}")
    if any("." in i for i in ids):
        problems.append("ids may not contain '.' (it separates a card from its copy number)")
    quests = [q for q in catalog.quests if q.type != MANDATORY]
    mandatory = {q.id for q in catalog.quests if q.type == MANDATORY}
    if len(quests) != QUESTS:
        problems.append(f"there are {QUESTS} quests, not {len(quests)}")
    for t in QUEST_TYPES:
        n = sum(q.type == t for q in quests)
        if n != QUESTS_PER_TYPE:
            problems.append(f"{QUESTS_PER_TYPE} {t} quests, not {n}")
    if sum(bool(q.plot) for q in quests) != PLOT_QUESTS:
        problems.append(f"{PLOT_QUESTS} plot quests")
    for q in catalog.quests:
        if q.type not in (*QUEST_TYPES, MANDATORY):
            problems.append(f"quest {q.id}: unknown type {q.type!r}")
        problems += _check_effects(f"quest {q.id}", q.plot, PLOT_OPS)
        problems += _check_effects(f"quest {q.id}", q.extra, EXTRA_OPS)
    counts = Counter()  # type: Counter[str]
    for card in catalog.intrigues:
        counts[card.type] += card.copies
        problems += _check_effects(f"intrigue {card.id}", card.effect, INTRIGUE_OPS)
        if (card.type == MANDATORY) != (card.id in mandatory):
            problems.append(f"intrigue {card.id}: a Mandatory Quest card has a quest entry of the same id")
    if dict(counts) != INTRIGUE_TYPES:
        problems.append(f"intrigue cards by type must be {INTRIGUE_TYPES}, not {dict(counts)}")
    if len(catalog.buildings) != TILES:
        problems.append(f"there are {TILES} Building tiles, not {len(catalog.buildings)}")
    if dict(Counter(t.cost for t in catalog.buildings)) != TILE_COSTS:
        problems.append(f"Building tile costs must be {TILE_COSTS}")
    for tile in catalog.buildings:
        problems += _check_effects(f"building {tile.id}", tile.action, ACTION_OPS)
        problems += _check_effects(f"building {tile.id}", tile.owner, OWNER_OPS)
    for space in catalog.spaces:
        problems += _check_effects(f"space {space.id}", space.action, ACTION_OPS)
    if len(catalog.lords) != LORDS:
        problems.append(f"there are {LORDS} Lords, not {len(catalog.lords)}")
    for lord in catalog.lords:
        if any(t not in QUEST_TYPES for t in lord.quest_types):
            problems.append(f"lord {lord.id}: unknown quest type")
    sourced: list[Space | Tile | Quest | Intrigue | Lord] = [
        *catalog.spaces,
        *catalog.buildings,
        *catalog.quests,
        *catalog.intrigues,
        *catalog.lords,
    ]
    problems += [f"{entry.id}: every entry names its source" for entry in sourced if not entry.source]
    return problems


def catalog_digest(catalog: Catalog) -> str:
    """A short fingerprint of the data, so a replay notices when the data changed."""
    return data_digest(catalog)
