"""Write every game's JSON Schemas to schemas/<game>/, the files third-party clients build against.

`make schemas` runs this; a test fails when the committed files differ from what the code
publishes through Describe, so the two never drift apart.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from services.kernel import json_schemas
from services.registry import GAMES

ROOT = Path(__file__).resolve().parents[1] / "schemas"


def rendered() -> dict[Path, str]:
    """Each schema file's path (relative to schemas/) and its text."""
    files: dict[Path, str] = {}
    for game_id, spec in GAMES.items():
        for name, schema in json_schemas(spec).items():
            document: dict[str, Any] = {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": f"{spec.title} {name}",
                **schema,
            }
            files[Path(game_id) / f"{name}.schema.json"] = (
                json.dumps(document, indent=2, sort_keys=True) + "\n"
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
