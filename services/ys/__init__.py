"""Ys (Cyril Demaegd, Ystari Games, 2004) as a pure rules engine."""

from pathlib import Path

from services.kernel import GameSpec
from services.ys.catalog import Catalog, CatalogError, default_catalog, load_catalog
from services.ys.model import State
from services.ys.rules import GAME, make_game


def load_game(path: str | Path) -> GameSpec[State]:
    """The game played with a replacement data file (`python -m services.ys --data`)."""
    return make_game(load_catalog(path))


__all__ = ["GAME", "Catalog", "CatalogError", "default_catalog", "load_catalog", "load_game", "make_game"]
