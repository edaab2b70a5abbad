"""The card catalog: population cards, supply sizes and each building card's supply action.

Read from a TOML file (the shipped one is `data/catalog.toml`, a STAND-IN for the supply
actions) and checked on load so a bad replacement file fails with a message naming the fault.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import msgspec

from services.kernel.data import data_digest, packaged_data, parse_data, read_data
from services.rattus_cartus.model import BUILDING_CLASS, CLASSES

NonNegative = Annotated[int, msgspec.Meta(ge=0)]

# Deck-wide nun distribution printed in the component list [SEED]: 24x4, 12x3, 12x2, 12x1, 24x0.
PRINTED_NUN_DISTRIBUTION = {4: 24, 3: 12, 2: 12, 1: 12, 0: 24}
CARDS_PER_CLASS = 14  # [SEED]
COPIES_PER_BUILDING = 5  # [SEED]


class CatalogError(ValueError):
    """A catalog file does not follow the schema or contradicts the printed components."""


class SupplyAction(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The supply action printed on one building card (phase B)."""

    draw: NonNegative = 0
    discard_rats: NonNegative = 0
    look: NonNegative = 0
    source: str = ""


class BuildingEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    klass: str = msgspec.field(name="class")
    name: str = ""
    name_es: str = ""
    source: str = ""
    copies: tuple[SupplyAction, ...] = ()


class Population(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    nuns: dict[str, tuple[NonNegative, ...]]  # class -> the nun count of each of its cards
    source: str = ""


class Specials(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    jokers: NonNegative
    swords: NonNegative
    flutes: NonNegative
    passes: NonNegative
    gold: NonNegative
    vp_tokens: NonNegative
    source: str = ""


class Catalog(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    schema_version: int
    stand_in: bool
    notice: str
    population: Population
    specials: Specials
    buildings: tuple[BuildingEntry, ...]

    def building(self, building_id: str) -> BuildingEntry:
        for entry in self.buildings:
            if entry.id == building_id:
                return entry
        raise KeyError(building_id)


SCHEMA_VERSION = 1


def load_catalog(path: str | Path) -> Catalog:
    """Read and check a catalog TOML file; CatalogError explains what is wrong."""
    return parse_catalog(read_data(path, CatalogError, "catalog"), str(path))


def parse_catalog(data: bytes | str, where: str = "catalog") -> Catalog:
    return parse_data(data, Catalog, where, check_catalog, CatalogError)


def default_catalog() -> Catalog:
    """The catalog shipped with the package (its supply actions are a stand-in)."""
    return parse_catalog(packaged_data("services.rattus_cartus", "data/catalog.toml"), "data/catalog.toml")


def check_catalog(catalog: Catalog) -> list[str]:
    """Every way the catalog contradicts the schema or the printed components."""
    problems: list[str] = []
    if catalog.schema_version != SCHEMA_VERSION:
        problems.append(f"schema_version must be {SCHEMA_VERSION}, not {catalog.schema_version}")

    nuns = catalog.population.nuns
    if set(nuns) != set(CLASSES):
        problems.append(f"population.nuns must list exactly the classes {', '.join(CLASSES)}")
    for klass, counts in nuns.items():
        if len(counts) != CARDS_PER_CLASS:
            problems.append(f"population.nuns.{klass} has {len(counts)} cards, not {CARDS_PER_CLASS}")
        if any(n > 4 for n in counts):
            problems.append(f"population.nuns.{klass}: a card shows 0 to 4 nuns")
    distribution = Counter(n for counts in nuns.values() for n in counts)
    if dict(distribution) != PRINTED_NUN_DISTRIBUTION:
        problems.append(
            "population nun counts must total 24 cards with 4, 12 with 3, 12 with 2, 12 with 1 and 24 with 0"
        )

    ids = [entry.id for entry in catalog.buildings]
    if sorted(ids) != sorted(BUILDING_CLASS):
        missing = sorted(set(BUILDING_CLASS) - set(ids))
        unknown = sorted(set(ids) - set(BUILDING_CLASS))
        duplicated = sorted(i for i, n in Counter(ids).items() if n > 1)
        problems.append(
            f"buildings must be the 12 buildings once each (missing: {missing}, unknown: {unknown}, "
            f"duplicated: {duplicated})"
        )
    for entry in catalog.buildings:
        expected = BUILDING_CLASS.get(entry.id)
        if expected is not None and entry.klass != expected:
            problems.append(f"building {entry.id} belongs to class {expected}, not {entry.klass}")
        if len(entry.copies) != COPIES_PER_BUILDING:
            problems.append(f"building {entry.id} has {len(entry.copies)} copies, not {COPIES_PER_BUILDING}")
        for number, copy in enumerate(entry.copies, start=1):
            if copy.draw + copy.discard_rats + copy.look == 0:
                problems.append(f"building {entry.id} copy {number} has an empty supply action")
            if copy.look > 5:
                problems.append(f"building {entry.id} copy {number} looks at more than the 5 Nun-row cards")
    return problems


def catalog_digest(catalog: Catalog) -> str:
    """A short fingerprint of the data, so a replay notices when the catalog changed."""
    return data_digest(catalog)
