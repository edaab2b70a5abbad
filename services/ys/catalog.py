"""The Ys data file: ship cards and character cards (with the effect primitive each card uses).

Read from TOML (the shipped `data/ys.toml` has a STAND-IN ship deck) and checked on load, so a
bad replacement file fails with a message naming the fault.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import msgspec

from services.kernel.data import data_digest, packaged_data, parse_data, read_data
from services.ys.model import COLOURS, EFFECTS, IMMEDIATE, WHITE, WINDOWS

NonNegative = Annotated[int, msgspec.Meta(ge=0)]

SHIP_CARDS = 24  # [SEED components]
YELLOW_NAMED = 15  # [SEED setup: "the 15 yellow-edged cards"]
BLUE_CARDS = 4  # [SEED components]
SCHEMA_VERSION = 1


class CatalogError(ValueError):
    """A data file does not follow the schema or contradicts the printed components."""


class ShipCard(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    large: str
    small: tuple[str, ...]
    source: str = ""
    stand_in: bool = False

    @property
    def has_white(self) -> bool:
        return WHITE in self.small


class Character(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    edge: str  # "yellow" or "blue"
    window: str  # when it may be played (see model.WINDOWS)
    effect: str  # the effect primitive (see model.EFFECTS)
    amount: NonNegative = 0
    name_es: str = ""
    source: str = ""
    stand_in: bool = False


class Catalog(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    schema_version: int
    stand_in: bool
    notice: str
    ships: tuple[ShipCard, ...]
    characters: tuple[Character, ...]

    @property
    def yellow(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.characters if c.edge == "yellow")

    @property
    def blue(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.characters if c.edge == "blue")


def load_catalog(path: str | Path) -> Catalog:
    """Read and check a data file; CatalogError explains what is wrong."""
    return parse_catalog(read_data(path, CatalogError, "Ys data"), str(path))


def parse_catalog(data: bytes | str, where: str = "data") -> Catalog:
    return parse_data(data, Catalog, where, check_catalog, CatalogError)


def default_catalog() -> Catalog:
    """The data shipped with the package (its ship deck is a stand-in)."""
    return parse_catalog(packaged_data("services.ys", "data/ys.toml"), "data/ys.toml")


def check_catalog(catalog: Catalog) -> list[str]:
    """Every way the data contradicts the schema or the printed components."""
    problems: list[str] = []
    if catalog.schema_version != SCHEMA_VERSION:
        problems.append(f"schema_version must be {SCHEMA_VERSION}, not {catalog.schema_version}")
    if len(catalog.ships) != SHIP_CARDS:
        problems.append(f"there are {SHIP_CARDS} ship cards, not {len(catalog.ships)}")
    ids = [s.id for s in catalog.ships] + [c.id for c in catalog.characters]
    duplicated = sorted(i for i, n in Counter(ids).items() if n > 1)
    if duplicated:
        problems.append(f"duplicated ids: {duplicated}")
    for ship in catalog.ships:
        if ship.large not in COLOURS:
            problems.append(f"ship {ship.id}: the large gem is blue, green, yellow or red (never white)")
        if len(ship.small) != 2 or any(g not in (*COLOURS, WHITE) for g in ship.small):
            problems.append(f"ship {ship.id}: two small gems, each a colour or white")
        if list(ship.small).count(WHITE) > 1:
            problems.append(f"ship {ship.id}: at most one white gem")
        if not ship.source:
            problems.append(f"ship {ship.id}: every entry names its source")
    if sum(not s.has_white for s in catalog.ships) < 20:
        problems.append("Ys Express needs 20 ship cards without a white gem (5 a turn for 4 turns)")
    yellow = [c for c in catalog.characters if c.edge == "yellow"]
    blue = [c for c in catalog.characters if c.edge == "blue"]
    if len(yellow) != YELLOW_NAMED or len(blue) != BLUE_CARDS:
        problems.append(f"{YELLOW_NAMED} yellow and {BLUE_CARDS} blue character cards")
    for card in catalog.characters:
        if card.edge not in ("yellow", "blue"):
            problems.append(f"character {card.id}: edge is yellow or blue")
        if card.window not in WINDOWS:
            problems.append(f"character {card.id}: unknown window {card.window!r}")
        if card.effect not in EFFECTS:
            problems.append(f"character {card.id}: unknown effect {card.effect!r}")
        if card.edge == "blue" and (card.window != IMMEDIATE or card.effect != "gain_white_gem"):
            problems.append(f"character {card.id}: a blue card gives a white gem at once")
        if not card.source:
            problems.append(f"character {card.id}: every entry names its source")
    return problems


def catalog_digest(catalog: Catalog) -> str:
    """A short fingerprint of the data, so a replay notices when the data changed."""
    return data_digest(catalog)
