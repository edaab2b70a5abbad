"""The image builds its wheel from what the Dockerfile copies into the build stage, so every package
pyproject.toml declares must be copied there: one left out is silently missing from the image
(the wheel builds without it). The image itself is not built here (docs/deploy.md says why)."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"


def packaged_top_level() -> set[str]:
    """The top-level packages of the wheel, found as setuptools finds them from pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    find = config["tool"]["setuptools"]["packages"]["find"]
    packages = find_packages(
        where=str(ROOT), include=find.get("include", ("*",)), exclude=find.get("exclude", ())
    )
    return {name.split(".")[0] for name in packages}


def copied_into_build_stage(dockerfile: str) -> set[str]:
    """Sources of the first stage's COPY instructions (the stage that builds the wheel)."""
    first_stage = re.split(r"^FROM ", dockerfile, flags=re.M)[1]
    sources: set[str] = set()
    for line in re.findall(r"^COPY\s+(.+)$", first_stage, flags=re.M):
        words = json.loads(line) if line.lstrip().startswith("[") else shlex.split(line)
        words = [word for word in words if not word.startswith("--")]
        sources.update(word.rstrip("/").removeprefix("./") for word in words[:-1])
    return sources


def missing_from(dockerfile: str) -> set[str]:
    copied = copied_into_build_stage(dockerfile)
    if "." in copied or "" in copied:  # the whole context
        return set()
    return packaged_top_level() - copied


def test_pyproject_packages_what_production_needs_and_no_client_or_dev_tooling() -> None:
    packaged = packaged_top_level()
    assert {"services", "gateway"} <= packaged, packaged
    # The Python client is a distribution of its own (clients/python), installed beside the server.
    assert not packaged & {"guildhall_client", "devstack", "soak", "benchmarks", "tests", "deploy"}, packaged


def test_the_image_builds_and_installs_the_client_distribution_beside_the_server() -> None:
    """The bot worker (`python -m guildhall_client.botworker`) runs from the image."""
    dockerfile = DOCKERFILE.read_text()
    assert "clients/python" in copied_into_build_stage(dockerfile)
    assert re.search(r"pip wheel [^\n]*\. \./clients/python", dockerfile), "the client's wheel is not built"
    assert "guildhall_client-*.whl" in dockerfile and "guildhall_server-*.whl" in dockerfile


def test_the_dockerfile_copies_every_package_the_wheel_declares() -> None:
    missing = missing_from(DOCKERFILE.read_text())
    assert not missing, f"deploy/Dockerfile does not COPY {sorted(missing)} before building the wheel"


def test_a_package_left_out_of_the_dockerfile_is_noticed() -> None:
    dockerfile = DOCKERFILE.read_text()
    without_gateway = re.sub(r"^COPY gateway .*$", "", dockerfile, flags=re.M)
    assert without_gateway != dockerfile
    assert missing_from(without_gateway) == {"gateway"}
    # A COPY in the runtime stage does not count: the wheel is built in the first stage.
    assert missing_from(without_gateway + "\nCOPY gateway gateway\n") == {"gateway"}
