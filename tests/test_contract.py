"""The gRPC contract does not break: `buf lint` passes (buf.yaml) and `buf breaking` finds no
wire or JSON incompatibility against the committed baseline (protos/baseline.binpb); a change
that would break clients is caught."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUF = ROOT / "tools" / "buf" / "node_modules" / ".bin" / "buf"  # make test installs it (make buf)
BASELINE = ROOT / "protos" / "baseline.binpb"


def _buf(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    assert BUF.exists(), "make test installs buf (tools/buf, npm ci)"
    return subprocess.run([str(BUF), *args], cwd=cwd, capture_output=True, text=True)


def test_the_protos_pass_buf_lint() -> None:
    linted = _buf("lint")
    assert linted.returncode == 0, linted.stdout + linted.stderr


def test_the_protos_are_compatible_with_the_baseline() -> None:
    checked = _buf("breaking", "--against", str(BASELINE))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_renumbered_field_is_caught_as_breaking(tmp_path: Path) -> None:
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    shutil.copytree(ROOT / "protos" / "guildhall", tmp_path / "protos" / "guildhall")
    proto = tmp_path / "protos" / "guildhall" / "common" / "v1" / "common.proto"
    text = proto.read_text()
    broken = re.sub(r"string code = 1;", "string code = 9;", text, count=1)
    assert broken != text
    proto.write_text(broken)
    checked = _buf("breaking", "--against", str(BASELINE), cwd=tmp_path)
    assert checked.returncode != 0 and "code" in checked.stdout, checked.stdout + checked.stderr


def test_the_game_json_is_compatible_with_the_released_schemas() -> None:
    """The game JSON's own `buf breaking` (services/schema_compat.py): every game's published
    schemas against schemas/baseline.json, with its edition and changelog entry."""
    from services.schema_compat import current_contracts, problems, read_baseline, read_changelogs

    current = current_contracts()
    assert problems(read_baseline(), current, read_changelogs(current)) == []
