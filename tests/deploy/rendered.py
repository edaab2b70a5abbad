"""The rendered manifests as runnable processes: each Guildhall container's arguments, environment
and Secrets (issue 39 item 16), for tests that run the image (tests/image) or the wheel
(tests/deploy/test_wheel_settings.py) as the manifests configure it.

What changes from the render, and why, nothing else:
- addresses: a Service name (`dns:///rules-ys:50051`, `redis:6379` inside a Secret) becomes the
  loopback and the host port its container got; each container port gets a free host port (the
  processes share one network), and `HOST=0.0.0.0` binds the loopback;
- volumes: a directory per volume, mounted where the manifest mounts it (a container) or named by
  its host path in the environment (a process): a Secret's files written into it (readable by any
  user, as a Secret volume's default mode makes them), any other volume (the archive's claim)
  empty and writable.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc

from devstack.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
DEV_OVERLAY = K8S / "overlays" / "dev"
S3_ARCHIVE = K8S / "components" / "s3-archive"
# The dev overlay's throwaway tenant key: its tenants.json holds only the key's SHA-256 and says so.
DEV_TENANT_KEY = "ghk_dev-only-tenant-key-do-not-use-in-production"
# The last Deployments to start, in this order (each needs the ones before it).
LAST = ("gateway", "botworker")


def render(overlay: Path = DEV_OVERLAY, components: tuple[Path, ...] = ()) -> list[dict[str, Any]]:
    """`kubectl kustomize` of the overlay with the components (applied after its resources)."""
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is needed to render the manifests"
    work = ROOT / "var" / "render" / uuid.uuid4().hex[:8]  # kustomize refuses absolute paths
    work.mkdir(parents=True)
    try:
        (work / "kustomization.yaml").write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "kustomize.config.k8s.io/v1beta1",
                    "kind": "Kustomization",
                    "resources": [os.path.relpath(overlay, work)],
                    "components": [os.path.relpath(c, work) for c in components],
                }
            )
        )
        out = subprocess.run([kubectl, "kustomize", str(work)], check=True, capture_output=True, text=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [doc for doc in yaml.safe_load_all(out.stdout) if doc]


def _generated(names: Any, name: str) -> str:
    """The full name of a generated object (kustomize appends a hash to it)."""
    (found,) = [full for full in names if re.fullmatch(rf"{re.escape(name)}(-[a-z0-9]+)?", full)]
    return str(found)


@dataclass
class Pod:
    """One Deployment's container, ready to run: its image's arguments, its environment with
    addresses mapped, and its volumes as host directories (host dir, mount path, read-only)."""

    name: str
    spec: dict[str, Any]  # the pod's spec
    container: dict[str, Any]
    env: dict[str, str]
    mounts: list[tuple[Path, str, bool]] = field(default_factory=list)

    @property
    def args(self) -> list[str]:
        return list(self.container.get("args", []))

    def host_env(self) -> dict[str, str]:
        """The environment for a process on this host: a mounted path names the host directory."""
        env = dict(self.env)
        for variable, value in env.items():
            for directory, mount_path, _ in self.mounts:
                if value == mount_path or value.startswith(mount_path + "/"):
                    env[variable] = str(directory) + value[len(mount_path) :]
        return env


class Rendered:
    """What the render says, and the host ports its containers got."""

    def __init__(self, docs: list[dict[str, Any]]) -> None:
        by_kind: dict[str, dict[str, dict[str, Any]]] = {}
        for doc in docs:
            by_kind.setdefault(doc["kind"], {})[doc["metadata"]["name"]] = doc
        self.secrets = {
            name: {k: base64.b64decode(v) for k, v in d.get("data", {}).items()}
            for name, d in by_kind.get("Secret", {}).items()
        }
        self.config_maps = {name: d.get("data", {}) for name, d in by_kind.get("ConfigMap", {}).items()}
        self.deployments = by_kind.get("Deployment", {})
        self.services = by_kind.get("Service", {})
        self.workloads = {**by_kind.get("StatefulSet", {}), **self.deployments}
        self.ports: dict[tuple[str, int], int] = {}  # (workload, container port) -> host port

    def ours(self) -> list[str]:
        """The Deployments that run the Guildhall image, in the order to start them."""
        names = {
            n
            for n, d in self.deployments.items()
            if "guildhall" in d["spec"]["template"]["spec"]["containers"][0]["image"]
        }
        return sorted(names - set(LAST)) + [n for n in LAST if n in names]

    def secret(self, name: str) -> dict[str, bytes]:
        return self.secrets[_generated(self.secrets, name)]

    def host_port(self, workload: str, container_port: int) -> int:
        key = (workload, container_port)
        if key not in self.ports:
            self.ports[key] = free_port()
        return self.ports[key]

    def release_ports(self, workload: str) -> None:
        """Forget the host ports the workload got: its next pod gets fresh ones."""
        self.ports = {key: port for key, port in self.ports.items() if key[0] != workload}

    def service_port(self, service: str, port: int) -> int:
        """The host port behind `service:port` (the Service's selector names the workload)."""
        spec = self.services[service]["spec"]
        (entry,) = [p for p in spec["ports"] if p["port"] == port]
        workload = spec["selector"]["app.kubernetes.io/name"]
        pod = self.workloads[workload]["spec"]["template"]["spec"]
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
        """Service addresses as this host reaches them."""

        def local(match: re.Match[str]) -> str:
            service, port = match.group(2), int(match.group(3))
            if service not in self.services:
                return match.group(0)
            return f"127.0.0.1:{self.service_port(service, port)}"

        return re.sub(r"(dns:///)?\b([a-z][a-z0-9-]*):(\d+)\b", local, text)

    def pod(self, name: str, files: Path) -> Pod:
        """The Deployment's one container, its Secrets written under `files`."""
        spec = self.deployments[name]["spec"]["template"]["spec"]
        (container,) = spec["containers"]
        ports = {p["containerPort"] for p in container.get("ports", [])}
        env: dict[str, str] = {}
        for source in container.get("envFrom", []):
            env.update(self.config_maps[_generated(self.config_maps, source["configMapRef"]["name"])])
        for variable in container.get("env", []):
            assert "valueFrom" not in variable, f"{name}: {variable['name']} is not a value: map it here"
            env[variable["name"]] = variable["value"]
        for variable, value in env.items():
            if value == "0.0.0.0":
                env[variable] = "127.0.0.1"
            elif value.isdigit() and int(value) in ports:
                env[variable] = str(self.host_port(name, int(value)))
            else:
                env[variable] = self.rewrite(value)
        pod = Pod(name, spec, container, env)
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        for mount in container.get("volumeMounts", []):
            volume = volumes[mount["name"]]
            directory = files / name / mount["name"]
            directory.mkdir(parents=True)
            if "secret" not in volume:  # a claim or an emptyDir: a place to write
                directory.chmod(0o777)
                pod.mounts.append((directory, mount["mountPath"], False))
                continue
            directory.chmod(0o755)
            data = self.secret(volume["secret"]["secretName"])
            for item in volume["secret"].get("items") or [{"key": k, "path": k} for k in data]:
                path = directory / item["path"]
                path.write_text(self.rewrite(data[item["key"]].decode()))
                path.chmod(0o644)
            pod.mounts.append((directory, mount["mountPath"], True))
        return pod

    def probe_targets(self, pod: Pod) -> list[tuple[str, str, str]]:
        """Each probe of the container: (probe, "http" or "grpc", its URL or address)."""
        named = {p.get("name"): p["containerPort"] for p in pod.container.get("ports", [])}
        targets = []
        for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
            probe = pod.container.get(kind)
            if probe is None:
                continue
            if "httpGet" in probe:
                port = self.host_port(pod.name, named.get(probe["httpGet"]["port"], probe["httpGet"]["port"]))
                targets.append((kind, "http", f"http://127.0.0.1:{port}{probe['httpGet']['path']}"))
            elif "grpc" in probe:
                port = self.host_port(pod.name, named.get(probe["grpc"]["port"], probe["grpc"]["port"]))
                targets.append((kind, "grpc", f"127.0.0.1:{port}"))
            else:
                raise AssertionError(f"{pod.name}: a {kind} these tests cannot hit: {probe}")
        return targets


def http_get(url: str) -> bytes | None:
    """The body of a 200 answer, else None (refused, not yet listening, another status)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return bytes(answer.read()) if answer.status == 200 else None
    except (urllib.error.URLError, OSError):
        return None


def call_json(port: int, path: str, credential: str, body: bytes = b"{}") -> tuple[int, bytes]:
    """A Connect unary call over HTTP JSON on the loopback: (status, body), errors included."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=body,
        headers={"content-type": "application/json", "authorization": f"Bearer {credential}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, bytes(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def grpc_serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=2)
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def wait_until(check: Callable[[], Any], what: str, timeout_s: float, alive: Callable[[], str]) -> Any:
    """`check()` until it gives something; `alive()` says why to stop waiting ("" while it runs)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = check()
        if found:
            return found
        gone = alive()
        if gone:
            raise AssertionError(f"{what}: {gone}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: nothing in {timeout_s:.0f} s")
        time.sleep(0.3)


def hit_probes(rendered: Rendered, pod: Pod, alive: Callable[[], str], timeout_s: float = 180) -> list[str]:
    """Each probe of the pod's container until it passes, as the kubelet would; what was hit."""
    hit = []
    for kind, how, target in rendered.probe_targets(pod):
        if how == "http":
            wait_until(
                lambda t=target: http_get(t) is not None, f"{pod.name} {kind} {target}", timeout_s, alive
            )
            hit.append(f"{kind} GET {urllib.parse.urlsplit(target).path}")
        else:
            wait_until(lambda t=target: grpc_serving(t), f"{pod.name} {kind} {target}", timeout_s, alive)
            hit.append(f"{kind} grpc")
    return hit
