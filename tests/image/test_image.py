"""The image, built and run as the rendered manifests run it (`make image-test`; not in `make test`:
building it takes minutes).

deploy/Dockerfile is built with docker or podman (devstack/image.py; on a machine without a
registry, on a Debian base made with debootstrap). The manifests are rendered as an operator would
(`kubectl kustomize`): the dev overlay with the S3 archive component (deploy/k8s/components/
s3-archive). Every Guildhall container of the render (a rules service per game, the gateway, the
bot worker) then runs from the image with its container's arguments, environment and Secrets (as
files at their mount paths), hardened as its securityContext says (its user, a read-only root,
every capability dropped, no privilege escalation), on the host network. So the next setting the
image cannot serve (a port, an archive, a module the wheel lacks) fails here, as issue 39 item 16
found `HTTP_PORT` and `ARCHIVE_S3_BUCKET` did.

What changes from the render: the addresses and ports (tests/deploy/rendered.py), and for the
archive an S3-compatible store that is not AWS, moto's server (from PyPI) started here, given to
the gateway as the component says an operator gives one (AWS_ENDPOINT_URL_S3, a credentials file),
with ARCHIVE_RETENTION_SECONDS 3600 -> 2 so the matches played here are archived while it runs.
Redis is Debian's redis-server with the dev overlay's password (the render runs `redis:7.2`).

Then every probe of every container is hit (the gateway's startup probe `/healthz` on its HTTP
port, gRPC readiness and liveness), the metrics port is scraped, a call is made over HTTP, the demo
plays one match per game through the gateway (watched, audited, receipts and seed checked), and the
finished matches are archived into the bucket and audited again from there.

`GUILDHALL_TEST_IMAGE=<image>` runs the test against an image built elsewhere (e.g. from main).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from devstack import image
from devstack.demo import play_all
from devstack.processes import free_port
from services.registry import GAMES
from tests.deploy.rendered import (
    DEV_TENANT_KEY,
    S3_ARCHIVE,
    Pod,
    Rendered,
    call_json,
    hit_probes,
    http_get,
    render,
    wait_until,
)

pytestmark = pytest.mark.image


class Containers:
    """Containers started for one test run, all removed at the end."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def run(self, name: str, *args: str) -> str:
        full = f"gh-image-test-{name}-{uuid.uuid4().hex[:6]}"
        image.run("run", "-d", "--name", full, "--network", "host", *args)
        self.names.append(full)
        return full

    def exited(self, name: str) -> str:
        """Why the container stopped, or "" while it runs."""
        state = json.loads(image.run("inspect", name, capture=True).stdout)[0]["State"]
        return "" if state.get("Running") else f"the container exited ({state.get('ExitCode')})"

    def logs(self) -> str:
        return "\n".join(
            f"--- {name}\n{image.run('logs', '--tail', '30', name, check=False, capture=True).stderr}"
            for name in self.names
        )

    def user_and_root(self, name: str) -> tuple[str, bool]:
        inspected = json.loads(image.run("inspect", name, capture=True).stdout)[0]
        return inspected["Config"]["User"], bool(inspected["HostConfig"]["ReadonlyRootfs"])

    def remove(self) -> None:
        for name in self.names:
            image.run("rm", "-f", name, check=False, capture=True)


def hardening(pod: Pod) -> list[str]:
    """The engine's flags for what the pod's and the container's securityContext say."""
    pod_security, security = pod.spec.get("securityContext", {}), pod.container.get("securityContext", {})
    args = ["--user", f"{pod_security['runAsUser']}:{pod_security['runAsGroup']}"]
    if security.get("readOnlyRootFilesystem"):
        args.append("--read-only")
    if security.get("capabilities", {}).get("drop") == ["ALL"]:
        args += ["--cap-drop", "ALL"]
    if security.get("allowPrivilegeEscalation") is False:
        args += ["--security-opt", "no-new-privileges"]
    return args


def run_pod(containers: Containers, pod: Pod, image_ref: str, *extra: str) -> str:
    mounts = [
        arg
        for directory, path, read_only in pod.mounts
        for arg in ("-v", f"{directory}:{path}{':ro' * read_only}")
    ]
    env = [arg for variable, value in pod.env.items() for arg in ("-e", f"{variable}={value}")]
    return containers.run(pod.name, *hardening(pod), *mounts, *env, *extra, image_ref, *pod.args)


@pytest.fixture(scope="module")
def built() -> str:
    return os.environ.get("GUILDHALL_TEST_IMAGE") or image.build()


@pytest.fixture()
def containers() -> Iterator[Containers]:
    started = Containers()
    try:
        yield started
    finally:
        started.remove()


@pytest.fixture()
def s3_server() -> Iterator[str]:
    """moto's S3 server on the loopback: its endpoint."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: http_get(f"{endpoint}/moto-api/") is not None, "moto", 60, lambda: "")
        yield endpoint
    finally:
        server.terminate()
        server.wait(10)


def test_the_image_serves_the_demo_as_the_rendered_manifests_run_it(
    built: str, containers: Containers, s3_server: str, tmp_path: Path
) -> None:
    cluster = Rendered(render(components=(S3_ARCHIVE,)))
    files = tmp_path / "mounts"
    pods = {name: cluster.pod(name, files) for name in cluster.ours()}
    assert list(pods)[-2:] == ["gateway", "botworker"] and len(pods) == len(GAMES) + 2, list(pods)
    gateway = pods["gateway"]
    bucket = gateway.env["ARCHIVE_S3_BUCKET"]
    assert "ARCHIVE_DIR" not in gateway.env and gateway.env["HTTP_PORT"] != "0" != gateway.env["METRICS_PORT"]

    # The S3-compatible store, its bucket, and what the gateway is given to reach it.
    s3 = boto3.client(
        "s3",
        endpoint_url=s3_server,
        region_name="us-east-1",
        aws_access_key_id="t",
        aws_secret_access_key="t",
    )
    s3.create_bucket(Bucket=bucket)
    aws = tmp_path / "aws"
    aws.mkdir(mode=0o755)
    (aws / "credentials").write_text("[default]\naws_access_key_id = t\naws_secret_access_key = t\n")
    (aws / "credentials").chmod(0o644)
    gateway.env.update(
        AWS_ENDPOINT_URL_S3=s3_server,
        AWS_DEFAULT_REGION="us-east-1",
        AWS_SHARED_CREDENTIALS_FILE="/etc/guildhall/aws/credentials",
        ARCHIVE_RETENTION_SECONDS="2",
    )

    password = cluster.secret("guildhall-redis")["password"].decode()
    containers.run(
        "redis", "--read-only", "--user", "65532:65532", "--cap-drop", "ALL", "--tmpfs", "/data",
        image.redis_image(), "--port", str(cluster.service_port("redis", 6379)), "--bind", "127.0.0.1",
        "--dir", "/data", "--appendonly", "yes", "--requirepass", password,
    )  # fmt: skip
    hit: dict[str, list[str]] = {}
    try:
        for name, pod in pods.items():
            extra = ("-v", f"{aws}:/etc/guildhall/aws:ro") if name == "gateway" else ()
            container = run_pod(containers, pod, built, *extra)
            hit[name] = hit_probes(cluster, pod, alive=lambda c=container: containers.exited(c))  # type: ignore[misc]
        assert hit["gateway"] == ["startupProbe GET /healthz", "readinessProbe grpc", "livenessProbe grpc"]
        assert all(hit[name] for name in pods), hit
        assert containers.user_and_root(containers.names[-2]) == ("65532:65532", True)  # the gateway

        grpc_port = cluster.service_port("gateway", 50051)
        http_port = cluster.service_port("gateway", 8080)
        metrics = http_get(f"http://127.0.0.1:{cluster.service_port('gateway', 9090)}/metrics")
        assert metrics is not None and b"guildhall_watch_streams_open" in metrics
        list_games = "/guildhall.gateway.v1.GatewayService/ListGames"
        status, answer = call_json(http_port, list_games, DEV_TENANT_KEY)
        assert status == 200 and {g["gameId"] for g in json.loads(answer)["games"]} == set(GAMES), answer

        games = {game: min(GAMES[game].player_counts) for game in GAMES}
        reports = asyncio.run(play_all(f"127.0.0.1:{grpc_port}", DEV_TENANT_KEY, games, seed=7))
        assert {r.game for r in reports} == set(GAMES)
        for report in reports:
            assert report.ok, f"{report.game}: {report}"

        # The finished matches leave Redis for the bucket, and are audited from it.
        def archived() -> list[str]:
            keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
            return keys if all(any(r.match_id in key for key in keys) for r in reports) else []

        keys = wait_until(archived, "every match archived", 120, lambda: "")
        assert len([k for k in keys if k.endswith(".ghz")]) == len(reports)
        # Beside them, each game's rules bundle, so the archive audits without these pods (issue 40).
        assert {k.split("/")[1] for k in keys if k.startswith("bundles/")} == set(GAMES), keys
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            auth = [("authorization", f"Bearer {DEV_TENANT_KEY}")]
            for report in reports:
                audit: Any = stub.Audit(pb.AuditRequest(match_id=report.match_id), metadata=auth, timeout=60)
                assert audit.ok and audit.checked_versions == report.events, (report.game, audit)
    except BaseException:
        print(containers.logs())
        raise


def test_docker_or_podman_is_found() -> None:
    assert shutil.which("podman") or shutil.which("docker")
    assert image.engine()
