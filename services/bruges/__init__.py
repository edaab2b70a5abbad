"""Bruges (Stefan Feld, Hans im Glück / Z-Man Games, 2013) as a pure rules engine."""

from pathlib import Path

from services.bruges.catalog import Catalog, CatalogError, default_catalog, load_catalog
from services.bruges.model import State
from services.bruges.rules import GAME, make_game
from services.kernel import GameSpec


def load_game(path: str | Path) -> GameSpec[State]:
    """The game played with a replacement data file (`python -m services.bruges --data`)."""
    return make_game(load_catalog(path))


__all__ = ["GAME", "Catalog", "CatalogError", "default_catalog", "load_catalog", "load_game", "make_game"]
