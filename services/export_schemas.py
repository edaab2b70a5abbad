"""Write every game's JSON Schemas to schemas/<game>/, the files third-party clients build against.

`make schemas` runs this and gateway/schemas.py (the gateway's own: stream entries, the export
file); a test fails when the committed files differ from what the code publishes through
Describe, so the two never drift apart.
"""

from __future__ import annotations

from pathlib import Path

from services.gamedata import game_data_schema
from services.kernel import json_schemas
from services.kernel.schema import SCHEMAS_DIR, schema_document, write_schemas
from services.registry import GAMES

ROOT = SCHEMAS_DIR


def rendered() -> dict[Path, str]:
    """Each schema file's path (relative to schemas/) and its text."""
    files: dict[Path, str] = {}
    for game_id, spec in GAMES.items():
        for name, schema in json_schemas(spec).items():
            files[Path(game_id) / f"{name}.schema.json"] = schema_document(
                game_id, name, f"{spec.title} {name}", schema
            )
        if spec.data is not None:  # GetGameData's document (services/gamedata.py)
            files[Path(game_id) / "game_data.schema.json"] = schema_document(
                game_id, "game_data", f"{spec.title} game data", game_data_schema(spec)
            )
    return files


def main() -> None:
    write_schemas(rendered())


if __name__ == "__main__":
    main()
