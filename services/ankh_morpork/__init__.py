"""Discworld: Ankh-Morpork (Martin Wallace, Treefrog Games 2011) as a pure rules engine."""

from pathlib import Path

from services.ankh_morpork.catalog import Catalog, CatalogError, default_catalog, load_catalog
from services.ankh_morpork.model import State
from services.ankh_morpork.rules import GAME, make_game
from services.kernel import GameSpec


def load_game(path: str | Path) -> GameSpec[State]:
    """The game played with a replacement data file (`python -m services.ankh_morpork --data`)."""
    return make_game(load_catalog(path))


__all__ = ["GAME", "Catalog", "CatalogError", "default_catalog", "load_catalog", "load_game", "make_game"]
