"""Every game Guildhall hosts, listed explicitly: adding a game means adding it here."""

from __future__ import annotations

from typing import Any

from services.ankh_morpork import GAME as ANKH_MORPORK
from services.bruges import GAME as BRUGES
from services.kernel import GameSpec
from services.rattus_cartus import GAME as RATTUS_CARTUS
from services.waterdeep import GAME as WATERDEEP
from services.ys import GAME as YS

GAMES: dict[str, GameSpec[Any]] = {
    spec.game_id: spec for spec in (RATTUS_CARTUS, YS, BRUGES, ANKH_MORPORK, WATERDEEP)
}

# Each rules service's default local port (`make run`, the demo); pods use PORT.
_PORTS = {
    "rattus_cartus": 50061,
    "ys": 50062,
    "bruges": 50063,
    "ankh_morpork": 50064,
    "waterdeep": 50065,
}


def default_port(game_id: str) -> int:
    return _PORTS[game_id]
