"""Write every game's JSON Schemas to schemas/<game>/, the files third-party clients build against.

`make schemas` runs this; a test fails when the committed files differ from what the code
publishes through Describe, so the two never drift apart.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from services.gamedata import game_data_schema
from services.kernel import json_schemas
from services.kernel.schema import closed
from services.registry import GAMES

ROOT = Path(__file__).resolve().parents[1] / "schemas"


def schema_id(folder: str, name: str) -> str:
    """A stable identifier per published schema (a name, not a location to fetch)."""
    return f"urn:guildhall:schema:{folder}:{name}"


def _document(folder: str, name: str, title: str, schema: dict[str, Any]) -> str:
    document: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id(folder, name),
        "title": title,
        **schema,
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def rendered() -> dict[Path, str]:
    """Each schema file's path (relative to schemas/) and its text."""
    from gateway.domain.match import MatchCreated  # the stream's first entry, for auditors

    files: dict[Path, str] = {}
    for game_id, spec in GAMES.items():
        for name, schema in json_schemas(spec).items():
            files[Path(game_id) / f"{name}.schema.json"] = _document(
                game_id, name, f"{spec.title} {name}", schema
            )
        if spec.data is not None:  # GetGameData's document (services/gamedata.py)
            files[Path(game_id) / "game_data.schema.json"] = _document(
                game_id, "game_data", f"{spec.title} game data", game_data_schema(spec)
            )
    created = closed(msgspec.json.schema(MatchCreated))
    files[Path("stream") / "match_created.schema.json"] = _document(
        "stream", "match_created", "match_created: the first entry of every match stream", created
    )
    # The other events the gateway itself writes into a stream (public, never sent to rules).
    from gateway.domain.match import MatchEnded, SeatResigned, TurnTimedOut

    for name, struct, title in (
        ("match_ended", MatchEnded, "match_ended: the last entry, with the outcome and the revealed seed"),
        ("seat_resigned", SeatResigned, "seat_resigned: a seat left the match"),
        ("turn_timed_out", TurnTimedOut, "turn_timed_out: a seat's turn timer ran out"),
    ):
        files[Path("stream") / f"{name}.schema.json"] = _document(
            "stream", name, title, closed(msgspec.json.schema(struct))
        )
    # Every line of an exported match (.ghx, ExportMatch), for auditors writing their own verifier.
    from gateway.domain.ghx import line_schema

    files[Path("export") / "ghx_line.schema.json"] = _document(
        "export",
        "ghx_line",
        "A line of a .ghx match export: the header, an event or the end",
        closed(line_schema()),
    )
    return files


def main() -> None:
    for relative, text in rendered().items():
        path = ROOT / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT.parent)}", file=sys.stderr)


if __name__ == "__main__":
    main()
