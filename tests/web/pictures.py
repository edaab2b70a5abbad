"""Where the browser tests put their pictures (issue 41 item 10: `make test` used to rewrite the
committed screenshots, leaving a clean clone dirty).

A test run writes every picture under var/test-artifacts/web/ (git-ignored): the ones the docs
show under docs-images/, the rest beside them, to look at. Only `make screenshots` (which sets
GUILDHALL_SCREENSHOTS=1) writes the docs' pictures into docs/images/, deliberately."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "var" / "test-artifacts" / "web"
DOCS_IMAGES = ROOT / "docs" / "images"


def refreshing_docs() -> bool:
    """Whether this run refreshes the docs' pictures (`make screenshots`)."""
    return os.environ.get("GUILDHALL_SCREENSHOTS") == "1"


def docs_picture(relative: str) -> Path:
    """The file for a picture the docs show as docs/images/<relative>: there under `make
    screenshots`, under var/test-artifacts/web/docs-images/ in any other run."""
    path = (DOCS_IMAGES if refreshing_docs() else ARTIFACTS / "docs-images") / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def artifact(relative: str) -> Path:
    """The file for a picture only to look at (never committed)."""
    path = ARTIFACTS / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    return path
