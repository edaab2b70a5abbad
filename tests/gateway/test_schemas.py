"""The gateway's published schemas (schemas/stream/, schemas/export/) are what gateway/schemas.py
renders, and every file under schemas/ is rendered by one side or the other (no stale file)."""

from __future__ import annotations

from gateway.schemas import rendered
from services.export_schemas import rendered as games_rendered
from services.kernel.schema import SCHEMAS_DIR


def test_the_committed_gateway_schemas_match_the_code() -> None:
    stale = [str(p) for p, text in rendered().items() if (SCHEMAS_DIR / p).read_text() != text]
    assert not stale, f"schemas out of date, run `make schemas`: {stale}"


def test_every_published_file_comes_from_the_gateway_or_a_game() -> None:
    expected = set(rendered()) | set(games_rendered())
    published = {p.relative_to(SCHEMAS_DIR) for p in SCHEMAS_DIR.rglob("*.schema.json")}
    assert published == expected, f"stale: {sorted(map(str, published - expected))}"
