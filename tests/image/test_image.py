"""The image, built and run (`make image-test`; not in `make test`: building it takes minutes).

deploy/Dockerfile is built with docker or podman (devstack/image.py; on a machine without a
registry, on a Debian base made with debootstrap). Redis, one rules service per game and a
gateway then run as separate containers on the host network, as the manifests run them: as user
65532, a read-only root file system, every capability dropped, no privilege escalation; secrets
mounted read-only as files. The demo plays one match per game through that gateway, watched,
audited and its receipts and seed checked, as `make demo` does against local processes.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from devstack import image
from devstack.demo import play_all
from devstack.processes import free_port, wait_serving
from devstack.stack import local_tenant
from services.registry import GAMES

pytestmark = pytest.mark.image

# How the manifests run every container (deploy/k8s/base: securityContext).
HARDENED = [
    "--read-only",
    "--user",
    "65532:65532",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
]


class Containers:
    """Containers started for one test run, all removed at the end."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def run(self, name: str, *args: str) -> str:
        full = f"gh-image-test-{name}-{uuid.uuid4().hex[:6]}"
        image.run("run", "-d", "--name", full, "--network", "host", *HARDENED, *args)
        self.names.append(full)
        return full

    def logs(self) -> str:
        return "\n".join(
            f"--- {name}\n{image.run('logs', '--tail', '20', name, check=False, capture=True).stderr}"
            for name in self.names
        )

    def user_and_root(self, name: str) -> tuple[str, bool]:
        inspected = json.loads(image.run("inspect", name, capture=True).stdout)[0]
        return inspected["Config"]["User"], bool(inspected["HostConfig"]["ReadonlyRootfs"])

    def remove(self) -> None:
        for name in self.names:
            image.run("rm", "-f", name, check=False, capture=True)


@pytest.fixture(scope="module")
def built() -> str:
    return image.build()


@pytest.fixture()
def containers() -> Iterator[Containers]:
    started = Containers()
    try:
        yield started
    finally:
        started.remove()


def _secrets(directory: Path) -> str:
    """Signing keys, a tenants file and the API key, readable by the containers' user."""
    api_key = local_tenant(directory)
    for path in directory.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return api_key


def test_the_image_serves_the_demo_as_the_manifests_run_it(
    built: str, containers: Containers, tmp_path: Path
) -> None:
    secrets = tmp_path / "secrets"
    api_key = _secrets(secrets)
    redis_port = free_port()
    containers.run(
        "redis",
        "--tmpfs",
        "/data",
        image.redis_image(),
        "--port",
        str(redis_port),
        "--bind",
        "127.0.0.1",
        "--dir",
        "/data",
        "--appendonly",
        "yes",
    )
    rules = {}
    for game in GAMES:
        port = free_port()
        containers.run(game, "-e", "HOST=127.0.0.1", "-e", f"PORT={port}", built, f"services.{game}")
        rules[game] = f"127.0.0.1:{port}"
    (tmp_path / "redis-url").write_text(f"redis://127.0.0.1:{redis_port}/0\n")
    (tmp_path / "redis-url").chmod(0o644)
    gateway_port = free_port()
    gateway = containers.run(
        "gateway",
        "-v",
        f"{secrets / 'signing'}:/etc/guildhall/signing:ro",
        "-v",
        f"{secrets / 'tenants.json'}:/etc/guildhall/tenants/tenants.json:ro",
        "-v",
        f"{tmp_path / 'redis-url'}:/etc/guildhall/redis/url:ro",
        "--tmpfs",
        "/var/lib/guildhall/archive",
        "-e",
        "HOST=127.0.0.1",
        "-e",
        f"PORT={gateway_port}",
        "-e",
        "HTTP_PORT=0",
        "-e",
        "METRICS_PORT=0",
        "-e",
        "REDIS_URL_FILE=/etc/guildhall/redis/url",
        "-e",
        "SIGNING_KEYS_DIR=/etc/guildhall/signing",
        "-e",
        "TENANTS_FILE=/etc/guildhall/tenants/tenants.json",
        "-e",
        "ARCHIVE_DIR=/var/lib/guildhall/archive",
        *[arg for game, target in rules.items() for arg in ("-e", f"RULES_{game.upper()}={target}")],
        built,
        "gateway",
    )
    try:
        for target in [*rules.values(), f"127.0.0.1:{gateway_port}"]:
            wait_serving(target, 120)
        assert containers.user_and_root(gateway) == ("65532:65532", True)
        games = {game: min(GAMES[game].player_counts) for game in GAMES}
        reports = asyncio.run(play_all(f"127.0.0.1:{gateway_port}", api_key, games, seed=7))
    except BaseException:
        print(containers.logs())
        raise
    assert {r.game for r in reports} == set(GAMES)
    for report in reports:
        assert report.ok, f"{report.game}: {report}"


def test_docker_or_podman_is_found() -> None:
    assert shutil.which("podman") or shutil.which("docker")
    assert image.engine()
