"""What the image runs, checked without building it (issue 39 item 16): the wheel, installed with
only the dependencies it declares (with the extras deploy/Dockerfile installs), serves the rules
services, the gateway and the bot worker as the rendered manifests configure them (the dev overlay,
and the dev overlay with the S3 archive component), each probe answering. With `HTTP_PORT` set the
gateway used to exit (`No module named 'guildhall.admin.v1.admin_connect'`: setup.py generated the
Connect module of gateway.proto only), with `ARCHIVE_S3_BUCKET` too (`No module named 'boto3'`:
the image installed no extra), and the bot worker with its key in a file (a NameError); `make
image-test` runs the image itself (tests/image).

The processes run from the installed wheel with an import guard: a module that is neither the
standard library, nor the wheel's own, nor of a distribution the wheel's requirements reach, is
not found, as it would not be in the image (the development virtualenv has boto3, moto and the
repository's gen/ on its path; the image has none of them).
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.clients.test_package_install import build_client_wheel
from tests.deploy.rendered import (
    DEV_TENANT_KEY,
    ROOT,
    S3_ARCHIVE,
    Rendered,
    call_json,
    hit_probes,
    http_get,
    render,
)
from tests.deploy.test_wheel import _build_wheel

DOCKERFILE = ROOT / "deploy" / "Dockerfile"

# Run before anything else in each process: the wheel's directory first, nothing of the
# repository, and the guard in front of every other finder.
GUARD = """
import importlib.abc, os, sys
allowed = set(os.environ["GUARD_ALLOWED"].split(","))
repository = os.environ["GUARD_REPOSITORY"]
def ours(path):  # the repository's sources and gen/, not the virtualenv inside it
    path = os.path.abspath(path)
    return path.startswith(repository) and not path.startswith(sys.prefix)
sys.path[:] = [p for p in sys.path if p and not ours(p)]
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()]

class Undeclared(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in allowed or top in sys.stdlib_module_names:
            return None
        raise ModuleNotFoundError(
            f"No module named {name!r} (not among the wheel's declared dependencies)", name=name
        )

sys.meta_path.insert(0, Undeclared())
import runpy
module = sys.argv.pop(1)
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def image_extras(dockerfile: str) -> set[str]:
    """The extras the Dockerfile installs the wheel with (`...whl)[s3]` -> {"s3"})."""
    found = re.search(r"\.whl\)?\[([A-Za-z0-9_,-]+)\]", dockerfile)
    return set(found.group(1).split(",")) if found else set()


def reachable_modules(wheel: Path, extras: set[str]) -> set[str]:
    """Top-level modules of the wheel and of every distribution its requirements reach (with
    `extras`), as installed in this virtualenv."""
    metadata = zipfile.ZipFile(wheel).read(
        next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith("METADATA"))
    )
    names = [
        line.split(":", 1)[1].strip()
        for line in metadata.decode().splitlines()
        if line.startswith("Requires-Dist:")
    ]
    tops = {n.split("/")[0] for n in zipfile.ZipFile(wheel).namelist() if "/" in n and ".dist-info" not in n}
    by_distribution: dict[str, set[str]] = {}
    for module, distributions in importlib.metadata.packages_distributions().items():
        for distribution in distributions:
            by_distribution.setdefault(canonicalize_name(distribution), set()).add(module)
    seen: set[str] = set()
    queue = [(Requirement(text), extras) for text in names]
    while queue:
        requirement, wanted = queue.pop()
        environment = [{"extra": extra} for extra in wanted or {""}]
        if requirement.marker is not None and not any(requirement.marker.evaluate(e) for e in environment):
            continue
        name = canonicalize_name(requirement.name)
        key = f"{name}[{','.join(sorted(requirement.extras))}]"
        if key in seen:
            continue
        seen.add(key)
        tops |= by_distribution.get(name, set())
        try:
            distribution = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue  # not installed here, so not importable either
        queue += [(Requirement(text), set(requirement.extras)) for text in distribution.requires or ()]
    return tops


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The server's and the client's wheels (built from this tree) and the directory both are
    installed in, with no dependency."""
    work = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(work / "dist")
    client = build_client_wheel(work / "client")  # the image installs both: the bot worker is a client
    target = work / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
            str(client),
        ],
        check=True,
        capture_output=True,
    )
    return wheel, client, target


def test_the_wheel_holds_every_connect_module_the_gateway_imports(installed: tuple[Path, Path, Path]) -> None:
    """Every `guildhall.*_connect` module a gateway source imports is in the wheel."""
    wheel, _, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    imported = set()
    for source in (ROOT / "gateway").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("guildhall."):
                imported |= {f"{node.module}.{a.name}" for a in node.names if a.name.endswith("_connect")}
                if node.module.endswith("_connect"):
                    imported.add(node.module)
    assert {"guildhall.gateway.v1.gateway_connect", "guildhall.admin.v1.admin_connect"} <= imported
    missing = sorted(m for m in imported if m.replace(".", "/") + ".py" not in names)
    assert not missing, f"the wheel lacks {missing}: generate them in setup.py"


def test_the_image_installs_the_s3_extra_the_archive_component_needs() -> None:
    assert "s3" in image_extras(DOCKERFILE.read_text())


class Process:
    def __init__(self, module: str, env: dict[str, str], log: Path) -> None:
        self.log = log
        self.popen = subprocess.Popen(
            [sys.executable, "-c", GUARD, module],
            env=env,
            cwd=log.parent,
            stdout=subprocess.DEVNULL,
            stderr=log.open("w"),
        )

    def gone(self) -> str:
        """Why it stopped ("" while it runs), with the end of what it wrote."""
        if self.popen.poll() is None:
            return ""
        return f"exited {self.popen.returncode}: {self.log.read_text()[-1500:]}"

    def stop(self) -> None:
        self.popen.terminate()
        try:
            self.popen.wait(20)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()


@pytest.fixture()
def processes() -> Iterator[list[Process]]:
    started: list[Process] = []
    yield started
    for process in reversed(started):
        process.stop()


@pytest.mark.parametrize("archive", ["volume", "s3"])
def test_the_wheel_serves_as_the_rendered_manifests_configure_it(
    archive: str, installed: tuple[Path, Path, Path], processes: list[Process], redis_url: str, tmp_path: Path
) -> None:
    wheel, client, target = installed
    allowed = reachable_modules(wheel, image_extras(DOCKERFILE.read_text())) | reachable_modules(
        client, set()
    )
    cluster = Rendered(render(components=(S3_ARCHIVE,) if archive == "s3" else ()))
    guard = {
        "PYTHONPATH": str(target),
        "GUARD_ALLOWED": ",".join(sorted(allowed)),
        "GUARD_REPOSITORY": str(ROOT),
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
    }
    pods = {}
    for name in cluster.ours():
        for attempt in range(3):
            pod = pods[name] = cluster.pod(name, tmp_path / "mounts" / str(attempt))
            for directory, mount_path, _ in pod.mounts:
                if mount_path == "/etc/guildhall/redis":
                    (directory / "url").write_text(redis_url)  # the test's Redis, not the overlay's
            (module,) = pod.args
            process = Process(module, {**guard, **pod.host_env()}, tmp_path / f"{name}-{attempt}.log")
            processes.append(process)
            try:
                hit = hit_probes(cluster, pod, alive=process.gone, timeout_s=120)
                break
            except AssertionError as error:
                # A host port picked for the pod that another server of the parallel run bound
                # first: the pod starts again on fresh ones (pods started later name them).
                if "the port is taken" not in str(error) or attempt == 2:
                    raise
                cluster.release_ports(name)
        assert hit, f"{name} has no probe"
        if name == "gateway":
            assert hit == ["startupProbe GET /healthz", "readinessProbe grpc", "livenessProbe grpc"]
    env = pods["gateway"].env
    assert ("ARCHIVE_S3_BUCKET" in env) == (archive == "s3") and env["HTTP_PORT"] != "0"
    metrics = http_get(f"http://127.0.0.1:{env['METRICS_PORT']}/metrics")
    assert metrics is not None and b"guildhall_" in metrics
    # AdminService is served over HTTP on the admin listener (admin_connect imported): a tenant
    # key is refused there; the public HTTP port does not serve it (issue 43).
    admin = "/guildhall.admin.v1.AdminService/ListTenants"
    status, answer = call_json(int(env["ADMIN_PORT"]), admin, DEV_TENANT_KEY)
    assert status == 403, answer
    status, answer = call_json(int(env["HTTP_PORT"]), admin, DEV_TENANT_KEY)
    assert status == 404, answer
