"""Every game Guildhall hosts, listed explicitly: adding a game means adding it here."""

from __future__ import annotations

from typing import Any

from services.kernel import GameSpec
from services.rattus_cartus import GAME as RATTUS_CARTUS

GAMES: dict[str, GameSpec[Any]] = {spec.game_id: spec for spec in (RATTUS_CARTUS,)}

# Each rules service's default local port (`make run`, the demo); pods use PORT.
_PORTS = {
    "rattus_cartus": 50061,
}


def default_port(game_id: str) -> int:
    return _PORTS[game_id]
