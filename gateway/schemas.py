"""The gateway's published JSON Schemas: the entries the gateway itself writes into every match
stream (schemas/stream/) and a line of the match export file (schemas/export/), for auditors
writing their own reader or verifier. `make schemas` writes them (`python -m gateway.schemas`)
beside the games' (services/export_schemas.py); tests/gateway/test_schemas.py keeps them current.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from gateway.domain.ghx import line_schema
from gateway.domain.match import (
    ActionUndone,
    MatchCreated,
    MatchEnded,
    RulesVersionMoved,
    SeatAway,
    SeatClaimed,
    SeatResigned,
    SeatReturned,
    TurnTimedOut,
)
from services.kernel.schema import closed, schema_document, write_schemas

_STREAM_ENTRIES = (
    ("match_created", MatchCreated, "match_created: the first entry of every match stream"),
    ("match_ended", MatchEnded, "match_ended: the last entry, with the outcome and the revealed seed"),
    ("seat_resigned", SeatResigned, "seat_resigned: a seat left the match"),
    ("turn_timed_out", TurnTimedOut, "turn_timed_out: a seat's turn timer ran out"),
    ("seat_claimed", SeatClaimed, "seat_claimed: a private table's seat was claimed"),
    (
        "seat_away",
        SeatAway,
        "seat_away: a seat's timer ran out; the platform's bot plays it until its player is back",
    ),
    ("seat_returned", SeatReturned, "seat_returned: the player of an away seat took it back"),
    (
        "rules_version_moved",
        RulesVersionMoved,
        "rules_version_moved: the match plays on under another rules version from this entry on",
    ),
    ("action_undone", ActionUndone, "action_undone: a seat took back its own last move"),
)


def rendered() -> dict[Path, str]:
    """Each schema file's path (relative to schemas/) and its text."""
    files = {
        Path("stream") / f"{name}.schema.json": schema_document(
            "stream", name, title, closed(msgspec.json.schema(struct))
        )
        for name, struct, title in _STREAM_ENTRIES
    }
    files[Path("export") / "ghx_line.schema.json"] = schema_document(
        "export",
        "ghx_line",
        "A line of a .ghx match export: the header, an event or the end",
        closed(line_schema()),
    )
    return files


if __name__ == "__main__":
    write_schemas(rendered())
