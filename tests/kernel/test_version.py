"""A rules version names the rules: the edition plus a digest of the code and data that decide
behaviour (services/kernel/version.py). Issue 40: a code-only change used to keep the version."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from devstack.versions import variant_tree
from services.kernel.version import (
    VersionError,
    code_digest,
    code_files,
    data_digest_full,
    digest_files,
    digested,
    rules_version,
    version_of,
)
from services.rattus_cartus import GAME, default_catalog

PACKAGE = "services.rattus_cartus"


def tree_files(root: Path) -> list[tuple[str, bytes]]:
    """The digested files of a `services/` copy, as the kernel reads an installed one."""
    files = []
    for path in root.rglob("*"):
        relative = path.relative_to(root).as_posix()
        on = relative.startswith(("services/kernel/", "services/rattus_cartus/"))
        if path.is_file() and digested(relative) and (on or relative == "services/__init__.py"):
            files.append((relative, path.read_bytes()))
    return files


def version_in_process(tree: Path) -> str:
    """The rules version a separate interpreter computes, importing the game from `tree`."""
    program = (
        "import sys; sys.path.insert(0, sys.argv[1]); import services.rattus_cartus as g; "
        "assert g.__file__.startswith(sys.argv[1]), g.__file__; print(g.GAME.rules_version)"
    )
    out = subprocess.run([sys.executable, "-I", "-c", program, str(tree)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_version_is_the_edition_and_16_hex_of_code_and_data() -> None:
    edition, _, digest = GAME.rules_version.partition("+")
    assert edition == "2.0" and len(digest) == 16 and int(digest, 16) >= 0
    expected = version_of("2.0", code_digest(PACKAGE), data_digest_full(default_catalog()))
    assert GAME.rules_version == expected


def test_the_same_files_give_the_same_version_wherever_they_live(tmp_path: Path) -> None:
    tree = variant_tree(tmp_path / "copy")
    assert digest_files(tree_files(tree)) == code_digest(PACKAGE)
    assert version_in_process(tree) == GAME.rules_version


def test_a_code_only_change_gives_a_new_version(tmp_path: Path) -> None:
    """One line of a game's code changed, its data untouched: another version."""
    old = '"""Rattus Cartus rules: setup, whose turn it is'
    tree = variant_tree(
        tmp_path / "b", {"services/rattus_cartus/rules.py": [(old, '"""Rattus Cartus rules (B): setup')]}
    )
    assert digest_files(tree_files(tree)) != code_digest(PACKAGE)
    assert version_in_process(tree) != GAME.rules_version


def test_a_kernel_change_gives_every_game_a_new_version(tmp_path: Path) -> None:
    tree = variant_tree(tmp_path / "k", {"services/kernel/tuples.py": [('"""', '"""Changed. ')]})
    assert digest_files(tree_files(tree)) != code_digest(PACKAGE)


def test_caches_and_other_files_are_not_part_of_the_digest(tmp_path: Path) -> None:
    tree = variant_tree(tmp_path / "c")
    game = tree / "services" / "rattus_cartus"
    (game / "__pycache__").mkdir()
    (game / "__pycache__" / "rules.cpython-311.pyc").write_bytes(b"junk")
    (game / "notes.txt").write_text("not shipped by the wheel")
    (game / "rules.py").write_bytes((game / "rules.py").read_bytes().replace(b"\n", b"\r\n"))
    assert digest_files(tree_files(tree)) == code_digest(PACKAGE)
    assert not digested("services/x/__pycache__/a.py") and digested("services/x/data/a.json")
    assert not digested("services/x/a.json") and digested("services/x/y/a.py")


def test_a_zip_of_the_package_gives_the_same_digest(tmp_path: Path) -> None:
    """Installed from a wheel (a zip) or a source tree: importlib.resources reads the same files."""
    archive = tmp_path / "code.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path, data in code_files(PACKAGE):
            out.writestr(path, data)
    assert version_in_process(archive) == GAME.rules_version


def test_the_data_digest_follows_the_values() -> None:
    assert data_digest_full({"a": 1, "b": 2}) == data_digest_full({"b": 2, "a": 1})
    assert version_of("1.0", "c", data_digest_full({"a": 1})) != version_of(
        "1.0", "c", data_digest_full({"a": 2})
    )


@pytest.mark.parametrize("edition", ["", "1.0+x", "1 0", "1.0\n", "../1", "x" * 33])
def test_an_edition_that_could_not_name_a_file_is_refused(edition: str) -> None:
    with pytest.raises(VersionError):
        version_of(edition, "c", "d")
    with pytest.raises(VersionError, match="package"):
        rules_version("1.0", {}, package=None)
