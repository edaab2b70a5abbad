"""Lords of Waterdeep (Wizards of the Coast, 2012), base game, as a pure rules engine."""

from pathlib import Path

from services.kernel import GameSpec
from services.waterdeep.catalog import Catalog, CatalogError, default_catalog, load_catalog
from services.waterdeep.model import State
from services.waterdeep.rules import GAME, make_game


def load_game(path: str | Path) -> GameSpec[State]:
    """The game played with a replacement data file (`python -m services.waterdeep --data`)."""
    return make_game(load_catalog(path))


__all__ = ["GAME", "Catalog", "CatalogError", "default_catalog", "load_catalog", "load_game", "make_game"]
