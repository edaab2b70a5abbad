"""A test run leaves a clean clone clean (issue 41 item 10): the browser tests' pictures go under
var/test-artifacts/web/, and only `make screenshots` writes the docs' pictures into docs/images/."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.web.pictures import ARTIFACTS, DOCS_IMAGES, ROOT, docs_picture


def test_a_test_run_keeps_the_docs_pictures_under_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GUILDHALL_SCREENSHOTS", raising=False)
    assert docs_picture("table/ys.png") == ARTIFACTS / "docs-images" / "table" / "ys.png"
    monkeypatch.setenv("GUILDHALL_SCREENSHOTS", "1")
    assert docs_picture("table/ys.png") == DOCS_IMAGES / "table" / "ys.png"


def test_make_screenshots_refreshes_the_docs_pictures_deliberately() -> None:
    dry = subprocess.run(["make", "-n", "screenshots"], cwd=ROOT, capture_output=True, text=True, check=True)
    command = next(line for line in dry.stdout.replace("\\\n", " ").splitlines() if "pytest" in line)
    assert "GUILDHALL_SCREENSHOTS=1" in command
    for test in ("tests/web/test_table.py", "tests/web/test_boards_a.py", "tests/web/test_boards_b.py"):
        assert test in command


def test_no_test_writes_into_docs_images_but_through_the_pictures_module() -> None:
    writers = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("*.py")
        if path.name != "pictures.py" and re.search(r"""["']docs["']\s*/\s*["']images["']""", code(path))
    ]
    assert writers == [], writers


def test_every_picture_the_docs_show_is_one_the_tests_take_or_a_board_of_the_data() -> None:
    """The docs' web pictures are the ones `make screenshots` refreshes: nothing stale is left."""
    shown = {
        m.group(1)
        for doc in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
        for m in re.finditer(r"images/((?:table|boards)/[\w-]+\.png)", doc.read_text())
    }
    on_disk = {p.relative_to(DOCS_IMAGES).as_posix() for p in DOCS_IMAGES.rglob("*.png")}
    assert shown <= on_disk, shown - on_disk
    assert on_disk <= shown, f"pictures no page shows: {sorted(on_disk - shown)}"


def code(path: Path) -> str:
    return path.read_text(errors="replace")
