"""The Python client's per-game types (guildhall_client/games/<game>.py): the checked-in modules are
the generator's output from today's schemas, and mypy takes a well-typed action and view and
refuses a wrongly typed action."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from guildhall_client.games import GAMES, generate

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_game_types_are_the_generators_output() -> None:
    files = generate.render()
    assert sorted(p.stem for p in files) == sorted([*GAMES, "_shared"])
    stale = [p.name for p, text in files.items() if not p.is_file() or p.read_text() != text]
    assert not stale, f"{stale} differ from the schemas: python -m guildhall_client.games.generate"


GOOD = """
from typing import cast
from guildhall_client.games import waterdeep, ys

action: ys.Action = {"type": "place_broker", "place": "n1.port", "value": 2, "face_up": True}
bid: ys.Action = {"type": "bid", "values": [1, 3]}
view = cast(ys.View, {})
seat: ys.SeatView = view["seats"][0]
gems: int = view["round"]
pending: list[waterdeep.EventDecision] = cast(waterdeep.View, {})["pending"]
shared: ys.Decision = cast(waterdeep.Decision, {})  # the types every game has alike are one type
options = ys.Options(price_limit=5, express=True)
"""

BAD = """
from guildhall_client.games import ys

action: ys.Action = {"type": "place_broker", "place": 3, "value": 2, "face_up": True}
broker: ys.PlaceBroker = {"type": "place_broker", "place": "harbour", "value": 2, "face_up": True}
options = ys.Options(price_limit="five")
"""


def mypy(tmp_path: Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    program = str(tmp_path / f"{name}.py")
    Path(program).write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent", program],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_mypy_checks_actions_and_views_against_the_games_types(tmp_path: Path) -> None:
    good = mypy(tmp_path, "good", GOOD)
    assert good.returncode == 0, good.stdout
    bad = mypy(tmp_path, "bad", BAD)
    assert bad.returncode == 1, bad.stdout
    assert bad.returncode == 1 and len(re.findall(r"bad\.py:\d+: error", bad.stdout)) == 3, bad.stdout
    assert "bad.py:4: error" in bad.stdout, bad.stdout
    # Ids are typed from the game's data: "harbour" is no Ys place (issue 42).
    harbour = "bad.py:5: error: Incompatible types (expression has type \"Literal['harbour']\""
    assert harbour in bad.stdout, bad.stdout
    # A game's options, built with its Options (what create_table/create_match take), are checked.
    assert 'bad.py:6: error: Incompatible types (expression has type "str", TypedDict item "price_limit"' in (
        bad.stdout
    ), bad.stdout
