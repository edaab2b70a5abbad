"""The image, built and run as the rendered manifests run it (`make image-test`; not in `make test`:
building it takes minutes).

deploy/Dockerfile is built with docker or podman (devstack/image.py; on a machine without a
registry, on a Debian base made with debootstrap). The manifests are rendered as an operator would
(`kubectl kustomize`): the dev overlay with the S3 archive component (deploy/k8s/components/
s3-archive). Every Guildhall container of the render (a rules service per game, the gateway, the
bot worker) then runs from the image with its container's environment, arguments and Secrets as
files at their mount paths, hardened as its securityContext says (user 65532, read-only root, every
capability dropped, no privilege escalation), on the host network. So the next setting the image
cannot serve (a port, an archive, a module the wheel lacks) fails here, as issue 39 item 16 found
`HTTP_PORT` and `ARCHIVE_S3_BUCKET` did.

What is changed from the render, and why (`_run_pod`), nothing else:
- addresses: a Service name (`dns:///rules-ys:50051`, `redis:6379` in the Redis URL) becomes the
  loopback and the host port its container got; each container port gets a free host port (every
  container shares the host's network), and `HOST=0.0.0.0` binds the loopback;
- the S3 store: moto's server (a real S3-compatible HTTP server from PyPI) started here; the
  gateway gets its endpoint (AWS_ENDPOINT_URL_S3) and a credentials file, as the component says an
  operator gives them for a store that is not AWS;
- ARCHIVE_RETENTION_SECONDS 3600 -> 2, so the matches the test plays are archived while it runs.

Then every probe of every container is hit (the gateway's startup probe `/healthz` on its HTTP
port, gRPC readiness and liveness), the metrics port is scraped, a call is made over HTTP, the demo
plays one match per game through the gateway (watched, audited, receipts and seed checked), and
the finished matches are archived into the bucket and audited again from it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import grpc
import pytest
import yaml
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from devstack import image
from devstack.demo import play_all
from devstack.processes import free_port, wait_serving
from services.registry import GAMES

pytestmark = pytest.mark.image

ROOT = Path(__file__).resolve().parents[2]
DEV_OVERLAY = ROOT / "deploy" / "k8s" / "overlays" / "dev"
S3_COMPONENT = ROOT / "deploy" / "k8s" / "components" / "s3-archive"
# The dev overlay's throwaway tenant key: its tenants.json holds only the key's SHA-256 and says so.
DEV_TENANT_KEY = "dev-only-tenant-key-do-not-use-in-production"
# `make image-test IMAGE=...` runs the test against an image built elsewhere (e.g. from main).
IMAGE_ENV = "GUILDHALL_TEST_IMAGE"


def rendered() -> list[dict[str, Any]]:
    """The dev overlay plus the S3 archive component, rendered as `kubectl kustomize` renders it."""
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is needed to render the manifests"
    work = ROOT / "var" / "image" / f"render-{uuid.uuid4().hex[:8]}"
    work.mkdir(parents=True)
    try:
        (work / "kustomization.yaml").write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "kustomize.config.k8s.io/v1beta1",
                    "kind": "Kustomization",
                    "resources": [os.path.relpath(DEV_OVERLAY, work)],
                    "components": [os.path.relpath(S3_COMPONENT, work)],
                }
            )
        )
        out = subprocess.run([kubectl, "kustomize", str(work)], check=True, capture_output=True, text=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [doc for doc in yaml.safe_load_all(out.stdout) if doc]


class Cluster:
    """What the render says, and the host ports its containers got."""

    def __init__(self, docs: list[dict[str, Any]]) -> None:
        self.secrets = {
            d["metadata"]["name"]: {k: base64.b64decode(v) for k, v in d.get("data", {}).items()}
            for d in docs
            if d["kind"] == "Secret"
        }
        self.config_maps = {
            d["metadata"]["name"]: d.get("data", {}) for d in docs if d["kind"] == "ConfigMap"
        }
        self.deployments = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"}
        self.services = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Service"}
        self.statefulsets = {d["metadata"]["name"]: d for d in docs if d["kind"] == "StatefulSet"}
        # (workload, container port) -> host port
        self.ports: dict[tuple[str, int], int] = {}

    def ours(self) -> list[str]:
        """The Deployments that run the Guildhall image: rules services first, then the gateway,
        then the bot worker (each needs the ones before it)."""
        names = {
            n
            for n, d in self.deployments.items()
            if "guildhall" in d["spec"]["template"]["spec"]["containers"][0]["image"]
        }
        last = ["gateway", "botworker"]
        return sorted(names - set(last)) + [n for n in last if n in names]

    def secret(self, name: str) -> dict[str, bytes]:
        """A generated Secret by the name the manifests use (kustomize appends a hash)."""
        (found,) = [
            data
            for full, data in self.secrets.items()
            if re.fullmatch(rf"{re.escape(name)}(-[a-z0-9]+)?", full)
        ]
        return found

    def host_port(self, workload: str, container_port: int) -> int:
        key = (workload, container_port)
        if key not in self.ports:
            self.ports[key] = free_port()
        return self.ports[key]

    def service_port(self, service: str, port: int) -> int:
        """The host port behind `service:port` (the Service's selector names the workload)."""
        spec = self.services[service]["spec"]
        (entry,) = [p for p in spec["ports"] if p["port"] == port]
        workload = spec["selector"]["app.kubernetes.io/name"]
        pod = (self.deployments.get(workload) or self.statefulsets[workload])["spec"]["template"]["spec"]
        target = entry.get("targetPort", port)
        if isinstance(target, str):
            (target,) = [
                p["containerPort"]
                for c in pod["containers"]
                for p in c.get("ports", [])
                if p.get("name") == target
            ]
        return self.host_port(workload, int(target))

    def rewrite(self, text: str) -> str:
        """Service addresses as the host network reaches them."""

        def local(match: re.Match[str]) -> str:
            service, port = match.group(2), int(match.group(3))
            if service not in self.services:
                return match.group(0)
            return f"127.0.0.1:{self.service_port(service, port)}"

        return re.sub(r"(dns:///)?\b([a-z][a-z0-9-]*):(\d+)\b", local, text)


class Containers:
    """Containers started for one test run, all removed at the end."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def run(self, name: str, *args: str) -> str:
        full = f"gh-image-test-{name}-{uuid.uuid4().hex[:6]}"
        image.run("run", "-d", "--name", full, "--network", "host", *args)
        self.names.append(full)
        return full

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


def hardening(pod: dict[str, Any], container: dict[str, Any]) -> list[str]:
    """The engine's flags for what the pod's and the container's securityContext say."""
    pod_security, security = pod.get("securityContext", {}), container.get("securityContext", {})
    args = ["--user", f"{pod_security['runAsUser']}:{pod_security['runAsGroup']}"]
    if security.get("readOnlyRootFilesystem"):
        args.append("--read-only")
    if security.get("capabilities", {}).get("drop") == ["ALL"]:
        args += ["--cap-drop", "ALL"]
    if security.get("allowPrivilegeEscalation") is False:
        args += ["--security-opt", "no-new-privileges"]
    return args


def _run_pod(
    cluster: Cluster,
    containers: Containers,
    name: str,
    image_ref: str,
    files: Path,
    extra_env: dict[str, str],
    extra_mounts: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Run a Deployment's one container as the render says (see the module's docstring for what
    is changed); returns the container spec."""
    pod = cluster.deployments[name]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    ports = {p["containerPort"] for p in container.get("ports", [])}
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        env.update(cluster.config_maps[_generated(cluster.config_maps, source["configMapRef"]["name"])])
    for variable in container.get("env", []):
        assert "valueFrom" not in variable, f"{name}: {variable['name']} is not a value: map it here"
        env[variable["name"]] = variable["value"]
    for variable, value in list(env.items()):
        if value == "0.0.0.0":
            env[variable] = "127.0.0.1"
        elif value.isdigit() and int(value) in ports:
            env[variable] = str(cluster.host_port(name, int(value)))
        else:
            env[variable] = cluster.rewrite(value)
    env.update(extra_env)
    mounts = list(extra_mounts)
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        volume = volumes[mount["name"]]
        assert "secret" in volume, f"{name}: volume {mount['name']} is not a Secret: give it one here"
        data = cluster.secret(volume["secret"]["secretName"])
        items = volume["secret"].get("items") or [{"key": k, "path": k} for k in data]
        directory = files / name / mount["name"]
        directory.mkdir(parents=True)
        directory.chmod(0o755)
        for item in items:
            path = directory / item["path"]
            path.write_bytes(cluster.rewrite(data[item["key"]].decode()).encode())
            path.chmod(0o644)  # the containers' user reads them, as a Secret volume's defaultMode lets it
        mounts += ["-v", f"{directory}:{mount['mountPath']}:ro"]
    env_args = [arg for variable, value in env.items() for arg in ("-e", f"{variable}={value}")]
    containers.run(
        name, *hardening(pod, container), *mounts, *env_args, image_ref, *container.get("args", [])
    )
    return container


def _generated(names: Any, name: str) -> str:
    (found,) = [full for full in names if re.fullmatch(rf"{re.escape(name)}(-[a-z0-9]+)?", full)]
    return str(found)


def hit_probes(cluster: Cluster, name: str, container: dict[str, Any], timeout_s: float = 180) -> list[str]:
    """Every probe of the container, until each passes; what was hit."""
    named = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
    hit = []
    for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
        probe = container.get(kind)
        if probe is None:
            continue
        if "httpGet" in probe:
            port = probe["httpGet"]["port"]
            host = cluster.host_port(name, named.get(port, port))
            url = f"http://127.0.0.1:{host}{probe['httpGet']['path']}"
            _wait_http_ok(url, timeout_s)
            hit.append(f"{kind} GET {probe['httpGet']['path']}")
        elif "grpc" in probe:
            host = cluster.host_port(name, named.get(probe["grpc"]["port"], probe["grpc"]["port"]))
            wait_serving(f"127.0.0.1:{host}", timeout_s)
            hit.append(f"{kind} grpc")
        else:
            raise AssertionError(f"{name}: a {kind} the test cannot hit: {probe}")
    return hit


def _wait_http_ok(url: str, timeout_s: float) -> bytes:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return bytes(answer.read())
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer 200 in {timeout_s:.0f} s")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def built() -> str:
    return os.environ.get(IMAGE_ENV) or image.build()


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
        _wait_http_ok(f"{endpoint}/moto-api/", 60)
        yield endpoint
    finally:
        server.terminate()
        server.wait(10)


def test_the_image_serves_the_demo_as_the_rendered_manifests_run_it(
    built: str, containers: Containers, s3_server: str, tmp_path: Path
) -> None:
    cluster = Cluster(rendered())
    gateway_pod = cluster.deployments["gateway"]["spec"]["template"]["spec"]
    env = {e["name"]: e.get("value") for e in gateway_pod["containers"][0]["env"]}
    bucket = env["ARCHIVE_S3_BUCKET"]
    assert "ARCHIVE_DIR" not in env and env["HTTP_PORT"] != "0" and env["METRICS_PORT"] != "0"
    s3 = boto3.client(
        "s3",
        endpoint_url=s3_server,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    s3.create_bucket(Bucket=bucket)
    credentials = tmp_path / "aws"
    credentials.mkdir()
    (credentials / "credentials").write_text(
        "[default]\naws_access_key_id = test\naws_secret_access_key = test\n"
    )
    for path in (credentials, credentials / "credentials"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    s3_settings = {
        "AWS_ENDPOINT_URL_S3": s3_server,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_SHARED_CREDENTIALS_FILE": "/etc/guildhall/aws/credentials",
        "ARCHIVE_RETENTION_SECONDS": "2",
    }

    redis_port = cluster.service_port("redis", 6379)
    password = cluster.secret("guildhall-redis")["password"].decode()
    containers.run(
        "redis", "--read-only", "--user", "65532:65532", "--cap-drop", "ALL", "--tmpfs", "/data",
        image.redis_image(), "--port", str(redis_port), "--bind", "127.0.0.1", "--dir", "/data",
        "--appendonly", "yes", "--requirepass", password,
    )  # fmt: skip
    files = tmp_path / "mounts"
    hit: dict[str, list[str]] = {}
    try:
        order = cluster.ours()
        assert order[-2:] == ["gateway", "botworker"] and len(order) == len(GAMES) + 2, order
        for name in order:
            if name == "gateway":
                mount = ("-v", f"{credentials}:/etc/guildhall/aws:ro")
                container = _run_pod(cluster, containers, name, built, files, s3_settings, mount)
            else:
                container = _run_pod(cluster, containers, name, built, files, {})
            hit[name] = hit_probes(cluster, name, container)
        gateway = next(n for n in containers.names if "-gateway-" in n)
        assert containers.user_and_root(gateway) == ("65532:65532", True)
        assert hit["gateway"] == ["startupProbe GET /healthz", "readinessProbe grpc", "livenessProbe grpc"]

        grpc_port = cluster.service_port("gateway", 50051)
        http_port = cluster.service_port("gateway", 8080)
        metrics_port = cluster.service_port("gateway", 9090)
        assert b"guildhall_" in _wait_http_ok(f"http://127.0.0.1:{metrics_port}/metrics", 30)
        request = urllib.request.Request(
            f"http://127.0.0.1:{http_port}/guildhall.gateway.v1.GatewayService/ListGames",
            data=b"{}",
            headers={"content-type": "application/json", "authorization": f"Bearer {DEV_TENANT_KEY}"},
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert {g["gameId"] for g in json.load(answer)["games"]} == set(GAMES)

        games = {game: min(GAMES[game].player_counts) for game in GAMES}
        reports = asyncio.run(play_all(f"127.0.0.1:{grpc_port}", DEV_TENANT_KEY, games, seed=7))
        assert {r.game for r in reports} == set(GAMES)
        for report in reports:
            assert report.ok, f"{report.game}: {report}"

        # The finished matches leave Redis for the bucket, and are audited from it.
        archived = _wait_archived(s3, bucket, {r.match_id for r in reports}, timeout_s=120)
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            auth = [("authorization", f"Bearer {DEV_TENANT_KEY}")]
            for report in reports:
                audit = stub.Audit(pb.AuditRequest(match_id=report.match_id), metadata=auth, timeout=60)
                assert audit.ok and audit.checked_versions == report.events, (report.game, audit)
        assert len(archived) == len(reports)
    except BaseException:
        print(containers.logs())
        raise


def _wait_archived(s3: Any, bucket: str, match_ids: set[str], timeout_s: float) -> list[str]:
    """The bucket's objects once one names each match (the sweeper runs every second here)."""
    deadline = time.monotonic() + timeout_s
    while True:
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
        if all(any(match_id in key for key in keys) for match_id in match_ids):
            return keys
        if time.monotonic() > deadline:
            raise TimeoutError(f"not archived in {timeout_s:.0f} s: {sorted(match_ids)}; the bucket: {keys}")
        time.sleep(1)


def test_docker_or_podman_is_found() -> None:
    assert shutil.which("podman") or shutil.which("docker")
    assert image.engine()
