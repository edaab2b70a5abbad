"""Another build of the rules, as a release would ship it: a copy of `services/` with edits.

Version B of a game in the end-to-end tests and the soak (issue 40) is a real behaviour change
run as its own process, `python -m services.<game>` from the copy (`RulesProcess(source=...)`):
a line of code or a data value changed, everything else as in this checkout.

    tree = variant_tree(tmp / "b", {"services/rattus_cartus/rules.py": [(old, new)]})
    RulesProcess("rattus_cartus", source=tree)
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def variant_tree(destination: Path, edits: Mapping[str, Sequence[tuple[str, str]]] | None = None) -> Path:
    """A copy of this checkout's `services/` package under `destination` (returned), with each
    file's (old, new) replacements made once each; a replacement whose `old` is not found is an
    error (the edit would silently make no version B)."""
    destination.mkdir(parents=True, exist_ok=True)
    target = destination / "services"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(ROOT / "services", target, ignore=shutil.ignore_patterns("__pycache__"))
    for relative, replacements in (edits or {}).items():
        path = destination / relative
        text = path.read_text()
        for old, new in replacements:
            if old not in text:
                raise ValueError(f"{relative} has no {old!r} to replace")
            text = text.replace(old, new, 1)
        path.write_text(text)
    return destination
