"""Rattus Cartus (Åse & Henrik Berg, White Goblin Games, 2012) as a pure rules engine."""

from services.rattus_cartus.catalog import Catalog, CatalogError, default_catalog, load_catalog
from services.rattus_cartus.rules import GAME, make_game

__all__ = ["GAME", "Catalog", "CatalogError", "default_catalog", "load_catalog", "make_game"]
