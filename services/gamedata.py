"""Each game's static data for clients (`GetGameData`): its data file turned into named components,
decks, board facts and the board's places (services/kernel/gamedata.py has the shapes).

Each game builds its components (`services/<game>/game_data.py`) and its places
(`services/<game>/present.py`) through `GameSpec.presentation`. The rules service builds this
document once at start from the data file it plays with and publishes it in `Describe`
(`game_data`, with the JSON Schema `game_data`); the gateway serves it. Texts are made from the
data's fields, so a replacement data file gets matching texts.
"""

from __future__ import annotations

from typing import Any

import msgspec

from services.kernel.data import data_digest
from services.kernel.gamedata import GameData
from services.kernel.schema import closed
from services.kernel.spec import GameSpec


def game_data(spec: GameSpec[Any]) -> GameData[Any]:
    """The game's static data document; LookupError for a game with no data (or no builder)."""
    if spec.presentation is None or spec.data is None:
        raise LookupError(f"{spec.game_id} publishes no game data")
    kinds, components, decks, boards = spec.presentation.components(spec.data)
    return GameData(
        game_id=spec.game_id,
        title=spec.title,
        version=spec.rules_version,
        data_digest=data_digest(spec.data),
        stand_in=bool(spec.data.stand_in),
        notice=str(spec.data.notice),
        kinds=kinds,
        components=tuple(components),
        decks=tuple(decks),
        boards=boards,
        places=tuple(spec.presentation.places(spec.data)),
        score=spec.presentation.score,
        catalog=spec.data,
    )


def game_data_json(spec: GameSpec[Any]) -> bytes:
    return msgspec.json.encode(game_data(spec))


def game_data_schema(spec: GameSpec[Any]) -> dict[str, Any]:
    """The JSON Schema of the game's document: the shared shape with the game's own catalog
    (closed like every published schema: the document has exactly these fields)."""
    catalog_type = type(spec.data) if spec.data is not None else Any
    schema: dict[str, Any] = closed(msgspec.json.schema(GameData[catalog_type]))  # type: ignore[valid-type]
    return schema
