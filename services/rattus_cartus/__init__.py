"""Rattus Cartus (Åse & Henrik Berg, White Goblin Games, 2012) as a pure rules engine."""

from pathlib import Path

from services.kernel import GameSpec
from services.rattus_cartus.catalog import Catalog, CatalogError, default_catalog, load_catalog
from services.rattus_cartus.model import State
from services.rattus_cartus.rules import GAME, make_game


def load_game(path: str | Path) -> GameSpec[State]:
    """The game played with a replacement catalog file (`python -m services.rattus_cartus --data`)."""
    return make_game(load_catalog(path))


__all__ = ["GAME", "Catalog", "CatalogError", "default_catalog", "load_catalog", "load_game", "make_game"]
