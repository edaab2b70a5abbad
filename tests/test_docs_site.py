"""The README is the front door and docs/ a site (mkdocs.yml): the site builds strictly (every
internal link, anchor and nav entry resolves), the build writes nothing into the repository, and
every relative link of the README resolves on a Git host (file and heading)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)]
    quiet = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's banner, not a build fault
    return subprocess.run(command, capture_output=True, text=True, env=quiet, timeout=300)


def _tree_state() -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in (ROOT / "docs").rglob("*") if p.is_file()}


def test_the_site_builds_strictly_without_touching_the_repository(tmp_path: Path) -> None:
    before = _tree_state()
    built = mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    assert _tree_state() == before, "building the site changed files under docs/"
    site = tmp_path / "site"
    # Pages every part of the nav promised, and the repository files the pages link to.
    for page in ("index.html", "figures.html", "eventstore.html", "rules/ys.README-section.html"):
        assert (site / page).is_file(), page
    assert (site / "repo" / "examples" / "client_in_30_lines.py").read_bytes() == (
        ROOT / "examples" / "client_in_30_lines.py"
    ).read_bytes()
    # The proto reference is generated from the descriptors: every RPC of every service is on it.
    reference = (site / "api" / "protos.html").read_text()
    for proto in (ROOT / "protos").rglob("*.proto"):
        for rpc in re.findall(r"^\s*rpc (\w+)\(", proto.read_text(), re.M):
            assert f"<code>{rpc}</code>" in reference, (proto.name, rpc)


def test_a_broken_link_anchor_or_repository_file_fails_the_build(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n## Here\n\n[ok](#here) [page](other.md#there)\n")
    (docs / "other.md").write_text(
        "# Other\n\n[gone](missing.md) [no anchor](index.md#nowhere) [no file](../../examples/nope.py)\n"
    )
    settings = yaml.safe_load((ROOT / "mkdocs.yml").read_text())  # the site's own validation
    settings.update(
        docs_dir=str(docs),
        hooks=[str(ROOT / "tools" / "docs" / "hooks.py")],
        nav=["index.md", "other.md", "api/protos.md"],
    )
    config = tmp_path / "mkdocs.yml"
    config.write_text(yaml.safe_dump(settings))
    built = mkdocs_build(config, tmp_path / "site")
    assert built.returncode != 0
    for fault in ("'missing.md'", "'index.md#nowhere'", "'../../examples/nope.py'", "'other.md#there'"):
        assert fault in built.stderr, (fault, built.stderr)


def github_anchor(heading: str) -> str:
    """The id a Git host gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_relative_link_of_the_readme_resolves() -> None:
    text = README.read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", re.sub(r"```.*?```", "", text, flags=re.S))
    relative = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert len(relative) >= 20, relative  # the front door points into the docs
    for link in relative:
        path_part, _, anchor = link.partition("#")
        target = ROOT / path_part if path_part else README
        assert target.is_file(), f"README links to {link}: no such file"
        if anchor:
            headings = re.findall(r"^#+ (.+?)\s*$", target.read_text(), re.M)
            assert anchor in {github_anchor(h) for h in headings}, f"README links to {link}: no such heading"


def test_the_readme_is_a_front_door() -> None:
    text = README.read_text()
    assert len(text.splitlines()) < 250
    assert "make demo" in text and "make test" in text
    assert re.search(r"!\[[^\]]+\]\(docs/images/[^)]+\.png\)", text), "a picture"
