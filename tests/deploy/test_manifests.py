"""The Kubernetes manifests, rendered offline as an operator would (`kubectl kustomize`), are
valid against the Kubernetes schemas (strict) and hold the policies of docs/deploy.md object by
object: every container probed, limited, non-root, read-only and unprivileged; the namespace
restricted; default-deny network policies with only the paths Guildhall uses; Redis durable."""

from __future__ import annotations

import os
import re
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from deploy.render import BASE, DRAIN_SECONDS, GRACE_SECONDS, example_overlay, main, rendered, service_name
from services.registry import GAMES

OVERLAYS = BASE.parent / "overlays"
K8S_VERSION = "1.32.0"


@cache
def render(overlay: str) -> tuple[dict[str, Any], ...]:
    out = subprocess.run(
        ["kubectl", "kustomize", str(OVERLAYS / overlay)], check=True, capture_output=True, text=True
    ).stdout
    return tuple(doc for doc in yaml.safe_load_all(out) if doc)


def objects(overlay: str, kind: str) -> list[dict[str, Any]]:
    return [doc for doc in render(overlay) if doc["kind"] == kind]


def named(overlay: str, kind: str, name: str) -> dict[str, Any]:
    (doc,) = [d for d in objects(overlay, kind) if d["metadata"]["name"] == name]
    return doc


def workloads(overlay: str) -> list[dict[str, Any]]:
    return objects(overlay, "Deployment") + objects(overlay, "StatefulSet")


@pytest.mark.parametrize("overlay", ["dev", "prod", "upgrade"])
def test_every_object_is_valid_against_the_kubernetes_schemas(overlay: str) -> None:
    for doc in render(overlay):
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_the_rules_manifests_are_rendered_from_the_registry() -> None:
    files = {**rendered(), **{Path("../overlays/upgrade") / p: text for p, text in example_overlay().items()}}
    stale = [
        str(p) for p, text in files.items() if not (BASE / p).is_file() or (BASE / p).read_text() != text
    ]
    assert not stale, f"run `make manifests`: {stale}"
    resources = yaml.safe_load((BASE / "kustomization.yaml").read_text())["resources"]
    for game in GAMES:
        assert f"{service_name(game)}.yaml" in resources
        assert named("prod", "Deployment", service_name(game))["spec"]["template"]["spec"]["containers"][0][
            "args"
        ] == [f"services.{game}"]


@pytest.mark.parametrize("overlay", ["dev", "prod", "upgrade"])
def test_every_container_is_probed_limited_and_unprivileged(overlay: str) -> None:
    for workload in workloads(overlay):
        pod = workload["spec"]["template"]["spec"]
        where = workload["metadata"]["name"]
        assert pod["securityContext"]["runAsNonRoot"] is True, where
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", where
        assert pod.get("automountServiceAccountToken") is False, where
        for container in pod["containers"]:
            assert container["readinessProbe"] and container["livenessProbe"], where
            limits = container["resources"]["limits"]
            assert "cpu" in limits and "memory" in limits and container["resources"]["requests"], where
            security = container["securityContext"]
            assert security["allowPrivilegeEscalation"] is False, where
            assert security["readOnlyRootFilesystem"] is True, where
            assert security["capabilities"]["drop"] == ["ALL"], where


def ours(overlay: str) -> list[dict[str, Any]]:
    """The Deployments of Guildhall's own processes (not redis_exporter)."""
    return [
        d
        for d in objects(overlay, "Deployment")
        if d["spec"]["template"]["spec"]["containers"][0]["image"].startswith("ghcr.io/guildhall/")
    ]


@pytest.mark.parametrize("overlay", ["dev", "prod", "upgrade"])
def test_our_servers_are_probed_over_grpc_and_given_time_to_drain(overlay: str) -> None:
    for workload in ours(overlay):
        pod = workload["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        assert "grpc" in container["readinessProbe"] and "grpc" in container["livenessProbe"]
        env = {e["name"]: e.get("value") for e in container["env"]}
        drain, grace = float(env["DRAIN_SECONDS"]), float(env["GRACE_SECONDS"])
        # Readiness must fail (period) before the drain ends, and the pod must outlive both.
        assert drain > container["readinessProbe"]["periodSeconds"]
        assert pod["terminationGracePeriodSeconds"] > drain + grace
    rules = named(overlay, "Deployment", service_name("rattus_cartus"))
    env = {e["name"]: e.get("value") for e in rules["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert (float(env["DRAIN_SECONDS"]), float(env["GRACE_SECONDS"])) == (DRAIN_SECONDS, GRACE_SECONDS)


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_the_namespace_enforces_the_restricted_pod_security_standard(overlay: str) -> None:
    (namespace,) = objects(overlay, "Namespace")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    assert all(
        doc["metadata"].get("namespace") == "guildhall"
        for doc in render(overlay)
        if doc["kind"] != "Namespace"
    )


def _allowed_from(policy: dict[str, Any]) -> list[dict[str, Any]]:
    return [peer for rule in policy["spec"].get("ingress", []) for peer in rule.get("from", [])]


def _peers_by_port(policy: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    found: dict[int, list[dict[str, Any]]] = {}
    for rule in policy["spec"].get("ingress", []):
        for port in rule["ports"]:
            found.setdefault(port["port"], []).extend(rule.get("from", []))
    return found


@pytest.mark.parametrize("overlay", ["dev", "prod", "upgrade"])
def test_network_policies_deny_by_default_and_open_only_guildhalls_paths(overlay: str) -> None:
    deny = named(overlay, "NetworkPolicy", "default-deny")
    assert deny["spec"]["podSelector"] == {} and set(deny["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    assert "ingress" not in deny["spec"] and "egress" not in deny["spec"]
    gateway_only = [{"podSelector": {"matchLabels": {"app.kubernetes.io/component": "gateway"}}}]
    monitoring = [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}]
    # rules pods: the gateway on the gRPC port, Prometheus on the metrics port, nobody else
    assert _peers_by_port(named(overlay, "NetworkPolicy", "rules")) == {50051: gateway_only, 9100: monitoring}
    assert named(overlay, "NetworkPolicy", "rules")["spec"]["egress"] == []
    exporter = named(overlay, "NetworkPolicy", "redis-exporter")
    assert _peers_by_port(exporter) == {9121: monitoring}
    assert [p["port"] for rule in exporter["spec"]["egress"] for p in rule["ports"]] == [6379]
    gateway = named(overlay, "NetworkPolicy", "gateway")
    client_rules = [r for r in gateway["spec"]["ingress"] if "from" not in r]
    # clients: the gateway's gRPC and HTTP (Connect) ports only
    assert [p["port"] for r in client_rules for p in r["ports"]] == [50051, 8080]
    # Every pod selected by a workload is covered by a policy of its component.
    components = {
        w["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"] for w in workloads(overlay)
    }
    covered = {
        p["spec"]["podSelector"].get("matchLabels", {}).get("app.kubernetes.io/component")
        for p in objects(overlay, "NetworkPolicy")
    }
    assert components <= covered
    if overlay == "dev":
        assert _allowed_from(named("dev", "NetworkPolicy", "redis")) == [
            *gateway_only,
            {"podSelector": {"matchLabels": {"app.kubernetes.io/component": "redis-exporter"}}},
        ]


def test_the_gateway_is_scraped_and_every_autoscaler_can_scale_down_without_an_adapter() -> None:
    """Issue 43: an HPA naming a metric no adapter serves scales up but never down; CPU and
    memory come from metrics-server, which every cluster with HPAs has."""
    gateway = named("prod", "Deployment", "gateway")
    annotations = gateway["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true" and annotations["prometheus.io/port"] == "9090"
    for hpa in objects("prod", "HorizontalPodAutoscaler"):
        kinds = {(m["type"], m.get("resource", {}).get("name")) for m in hpa["spec"]["metrics"]}
        assert kinds == {("Resource", "cpu"), ("Resource", "memory")}, hpa["metadata"]["name"]


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_gateway_and_rules_replicas_spread_over_nodes_and_zones(overlay: str) -> None:
    for deployment in ours(overlay):
        name = deployment["metadata"]["name"]
        if name == "botworker":
            continue  # one replica (its seats are leased in Redis; another takes over)
        spread = {
            c["topologyKey"]: c for c in deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]
        }
        assert spread["kubernetes.io/hostname"]["whenUnsatisfiable"] == "DoNotSchedule", name
        assert spread["topology.kubernetes.io/zone"]["whenUnsatisfiable"] == "ScheduleAnyway", name
        for constraint in spread.values():
            assert constraint["maxSkew"] == 1 and constraint["nodeTaintsPolicy"] == "Honor", name
            # The constraint counts this Deployment's own pods.
            assert constraint["labelSelector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"]


def test_every_rules_pod_serves_metrics_labelled_with_its_game() -> None:
    for game in GAMES:
        deployment = named("prod", "Deployment", service_name(game))
        pod = deployment["spec"]["template"]
        assert pod["metadata"]["labels"]["guildhall.io/game"] == game
        (container,) = pod["spec"]["containers"]
        env = {e["name"]: e.get("value") for e in container["env"]}
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports["metrics"] == int(env["METRICS_PORT"]) == 9100
        service_ports = {
            p["name"]: p["port"] for p in named("prod", "Service", service_name(game))["spec"]["ports"]
        }
        assert service_ports["metrics"] == 9100


def test_prod_watches_its_redis_cluster_through_one_pinned_exporter() -> None:
    exporter = named("prod", "Deployment", "redis-exporter")
    assert exporter["spec"]["replicas"] == 1
    pod = exporter["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert re.fullmatch(r"oliver006/redis_exporter:v\d+\.\d+\.\d+", container["image"])
    passwords = next(a for a in container["args"] if a.startswith("--redis.password-file="))
    mount = container["volumeMounts"][0]
    assert passwords.split("=", 1)[1].startswith(mount["mountPath"] + "/")
    volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
    assert volume["secret"]["secretName"] == "guildhall-redis-exporter"
    egress = named("prod", "NetworkPolicy", "gateway-to-redis-cluster")["spec"]["podSelector"]
    assert {
        "key": "app.kubernetes.io/component",
        "operator": "In",
        "values": ["gateway", "redis-exporter"],
    } in (egress["matchExpressions"])
    # The production monitoring lists the cluster's nodes: three primaries, three replicas.
    rendered = subprocess.run(
        ["kubectl", "kustomize", str(OVERLAYS / "prod" / "monitoring")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    (probe,) = [d for d in yaml.safe_load_all(rendered) if d and d["kind"] == "Probe"]
    assert probe["spec"]["prober"]["url"] == "redis-exporter.guildhall.svc:9121"
    assert len(probe["spec"]["targets"]["staticConfig"]["static"]) == 6


def test_every_secret_a_prod_pod_uses_is_documented() -> None:
    """Issue 43: production needed a Secret docs/deploy.md did not list (the bot worker's)."""
    used = set()
    for workload in workloads("prod"):
        pod = workload["spec"]["template"]["spec"]
        used |= {v["secret"]["secretName"] for v in pod.get("volumes", []) if "secret" in v}
    guide = (Path(__file__).resolve().parents[2] / "docs" / "deploy.md").read_text()
    section = guide.split("### Secrets", 1)[1].split("\n#", 1)[0]
    documented = set(re.findall(r"^\| `(guildhall-[a-z-]+)` \|", section, re.MULTILINE))
    assert used == documented
    assert "guildhall-botworker" in used


def _size(text: str) -> int:
    number, unit = re.fullmatch(r"(\d+)([a-zA-Z]*)", text).groups()  # type: ignore[union-attr]
    return int(number) * {"": 1, "mb": 2**20, "gb": 2**30, "Mi": 2**20, "Gi": 2**30}[unit]


def test_dev_redis_is_durable_authenticated_and_refuses_writes_before_its_limit() -> None:
    conf = dict(
        line.split(None, 1)
        for line in named("dev", "ConfigMap", "redis-config")["data"]["redis.conf"].splitlines()
        if line.strip() and not line.startswith("#")
    )
    assert conf["appendonly"] == "yes" and conf["appendfsync"] == "always"
    assert conf["maxmemory-policy"] == "noeviction"
    redis = named("dev", "StatefulSet", "redis")
    (container,) = redis["spec"]["template"]["spec"]["containers"]
    assert _size(conf["maxmemory"]) < _size(container["resources"]["limits"]["memory"])
    assert "--requirepass" in container["args"]
    assert redis["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"]


def test_prod_runs_no_redis_or_generated_secrets_of_its_own() -> None:
    assert not objects("prod", "StatefulSet")
    assert not objects("prod", "Secret")  # the operator creates them (docs/deploy.md)
    gateway = named("prod", "Deployment", "gateway")["spec"]["template"]["spec"]
    assert secret_behind_file(gateway, "REDIS_URL_FILE") == ("guildhall-redis", "url")
    durability = Path(OVERLAYS / "prod" / "kustomization.yaml").read_text()
    assert "appendfsync always" in durability and "noeviction" in durability


def test_the_dev_secrets_are_ones_the_gateway_accepts(tmp_path: Path) -> None:
    """The dev overlay's generated Secrets load through the gateway's own loaders."""
    from gateway.auth import hash_key, load_tenants
    from gateway.signing import KeyRing

    secrets = Path(__file__).resolve().parents[2] / "deploy/k8s/overlays/dev/secrets"
    tenants = load_tenants(secrets / "tenants.json")
    assert tenants["dev"].keys[0].sha256 == hash_key("ghk_dev-only-tenant-key-do-not-use-in-production")
    ring = KeyRing.from_dir(secrets / "signing")
    key_id, signature = ring.sign(b"guildhall")
    assert key_id == "dev-key-1" and ring.verify(key_id, b"guildhall", signature)
    env = named("dev", "Deployment", "gateway")["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {e["name"] for e in env} >= {"REDIS_URL_FILE", "SIGNING_KEYS_DIR", "TENANTS_FILE"}


def secret_behind_file(pod: dict, variable: str) -> tuple[str, str]:
    """The (Secret, key) whose mounted file the pod's first container's `variable` names."""
    container = pod["containers"][0]
    path = next(e["value"] for e in container["env"] if e["name"] == variable)
    for mount in container["volumeMounts"]:
        if path.startswith(mount["mountPath"] + "/"):
            volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
            file = path[len(mount["mountPath"]) + 1 :]
            (item,) = [i for i in volume["secret"]["items"] if i["path"] == file]
            return volume["secret"]["secretName"], item["key"]
    raise AssertionError(f"{variable}={path} is not on a mounted volume")


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_no_secret_is_passed_as_an_environment_variable(overlay: str) -> None:
    for deployment in objects(overlay, "Deployment"):
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            for variable in container.get("env", []):
                assert "secretKeyRef" not in variable.get("valueFrom", {}), variable["name"]


def test_prod_gateways_acknowledge_only_replicated_appends_on_the_cluster() -> None:
    # Issue 24: without the wait a primary stalled past its failover forks acknowledged actions.
    (container,) = named("prod", "Deployment", "gateway")["spec"]["template"]["spec"]["containers"]
    env = {item["name"]: item.get("value") for item in container["env"]}
    assert env["REDIS_CLUSTER"] == "1"
    assert int(env["REDIS_WAIT_REPLICAS"]) >= 1 and int(env["REDIS_WAIT_TIMEOUT_MS"]) > 0
    dev = named("dev", "Deployment", "gateway")["spec"]["template"]["spec"]["containers"][0]
    assert "REDIS_WAIT_REPLICAS" not in {item["name"] for item in dev["env"]}  # one Redis: no replica


def test_the_gateway_serves_http_on_its_own_port_probed_and_exposed() -> None:
    for overlay in ("dev", "prod"):
        pod = named(overlay, "Deployment", "gateway")["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        env = {e["name"]: e.get("value") for e in container["env"]}
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports["http"] == int(env["HTTP_PORT"]) == 8080 and env["CORS_ORIGINS"] == ""
        assert container["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
        service = named(overlay, "Service", "gateway")
        assert {"name": "http", "port": 8080, "targetPort": "http", "appProtocol": "http"} in service["spec"][
            "ports"
        ]
    (ingress,) = yaml.safe_load_all((BASE.parent / "examples" / "gateway-http-ingress.yaml").read_text())
    kubernetes_validate.validate(ingress, K8S_VERSION, strict=True)
    backends = [p["backend"]["service"] for r in ingress["spec"]["rules"] for p in r["http"]["paths"]]
    assert all(b == {"name": "gateway", "port": {"name": "http"}} for b in backends)


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_the_admin_plane_has_its_own_port_service_and_network_policy(overlay: str) -> None:
    """Issue 43: AdminService on the gateway's admin port only, behind a Service of its own that
    the public Service and the ingress do not carry, admitted from operators' pods alone."""
    (container,) = named(overlay, "Deployment", "gateway")["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["admin"] == int(env["ADMIN_PORT"]) == 50052
    public = named(overlay, "Service", "gateway")["spec"]["ports"]
    assert all(p["port"] != 50052 and p["targetPort"] != "admin" for p in public)
    admin = named(overlay, "Service", "gateway-admin")["spec"]
    assert admin["ports"] == [{"name": "admin", "port": 50052, "targetPort": "admin", "appProtocol": "grpc"}]
    assert admin.get("type", "ClusterIP") == "ClusterIP"
    gateway_pods = ({}, {"matchLabels": {"app.kubernetes.io/component": "gateway"}})
    opening = [
        (policy["metadata"]["name"], rule)
        for policy in objects(overlay, "NetworkPolicy")
        if policy["spec"]["podSelector"] in gateway_pods
        for rule in policy["spec"].get("ingress", [])
        if any(p.get("port") in (50052, "admin") for p in rule.get("ports", [])) or not rule.get("ports")
    ]
    assert [name for name, _rule in opening] == ["gateway-admin"]  # no other rule reaches the port
    ((_, rule),) = opening
    assert rule["from"] == [
        {"podSelector": {"matchLabels": {"guildhall.dev/admin-client": "true"}}},
        {"namespaceSelector": {"matchLabels": {"guildhall.dev/operators": "true"}}},
    ]
    (ingress,) = yaml.safe_load_all((BASE.parent / "examples" / "gateway-http-ingress.yaml").read_text())
    assert "gateway-admin" not in yaml.safe_dump(ingress)


def _mebibytes(quantity: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(Mi|Gi)", quantity).groups()  # type: ignore[union-attr]
    return float(number) * (1024 if unit == "Gi" else 1)


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_finished_matches_go_to_an_archive_every_gateway_replica_shares(overlay: str) -> None:
    """Retention is on (issue 25): the archive directory is a mounted claim, shared by every
    replica in production (ReadWriteMany), and the caches' budget fits the gateway's memory."""
    pod = named(overlay, "Deployment", "gateway")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert float(env["ARCHIVE_RETENTION_SECONDS"]) > 0
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volume = {v["name"]: v for v in pod["volumes"]}[mounts[env["ARCHIVE_DIR"]]]
    claim = named(overlay, "PersistentVolumeClaim", volume["persistentVolumeClaim"]["claimName"])
    assert claim["spec"]["accessModes"] == (["ReadWriteMany"] if overlay == "prod" else ["ReadWriteOnce"])
    assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsGroup"]
    resources = container["resources"]
    # Full caches cost about 1.4x CACHE_MB in RSS (docs/performance.md, "Memory"), over ~80 MiB.
    assert 80 + 1.4 * float(env["CACHE_MB"]) <= 0.8 * _mebibytes(resources["requests"]["memory"])
    assert _mebibytes(resources["requests"]["memory"]) <= _mebibytes(resources["limits"]["memory"])


# -- issue 40: two versions of a game side by side, then the old one retired ------------------------


def _env(overlay_docs: tuple[dict[str, Any], ...], config_map: str) -> dict[str, str]:
    (found,) = [
        d for d in overlay_docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].startswith(config_map)
    ]
    return dict(found["data"])


def _rendered_dir(directory: Path) -> tuple[dict[str, Any], ...]:
    out = subprocess.run(
        ["kubectl", "kustomize", str(directory)], check=True, capture_output=True, text=True
    ).stdout
    return tuple(doc for doc in yaml.safe_load_all(out) if doc)


def test_a_release_runs_beside_the_current_version_with_the_gateway_told_about_both() -> None:
    docs = render("upgrade")
    current, release = service_name("rattus_cartus"), service_name("rattus_cartus") + "-next"
    deployments = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"}
    images = {n: d["spec"]["template"]["spec"]["containers"][0]["image"] for n, d in deployments.items()}
    assert images[current].endswith(":0.1.0") and images[release].endswith(":0.2.0")
    # Each version its own Service: a Service's selector never reaches the other version's pods.
    services = {d["metadata"]["name"]: d["spec"]["selector"] for d in docs if d["kind"] == "Service"}
    pods = {n: d["spec"]["template"]["metadata"]["labels"] for n, d in deployments.items()}
    for name in (current, release):
        matched = [p for p, labels in pods.items() if services[name].items() <= labels.items()]
        assert matched == [name]
    targets = _env(docs, "gateway-rules-endpoints")["RULES_RATTUS_CARTUS"].split(",")
    assert targets == [f"dns:///{current}:50051", f"dns:///{release}:50051"]
    # The rest of the games keep their one target.
    assert _env(docs, "gateway-rules-endpoints")["RULES_YS"] == f"dns:///{service_name('ys')}:50051"


def test_a_rendered_retirement_on_prod_leaves_only_the_release_with_prods_settings(tmp_path: Path) -> None:
    """`python -m deploy.render release ... --base ../prod --retire-current`, as docs/deploy.md runs it."""
    out = tmp_path / "rattus-r2"
    base = os.path.relpath(OVERLAYS / "prod", out)
    main(["release", "--game", "rattus_cartus", "--release", "r2", "--tag", "0.2.0", "--base", base,
          "--retire-current", "--out", str(out)])  # fmt: skip
    docs = _rendered_dir(out)
    for doc in docs:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    names = {(d["kind"], d["metadata"]["name"]) for d in docs}
    current = service_name("rattus_cartus")
    assert not {n for n in names if n[1] == current}, "the retired version's objects stay"
    assert ("Deployment", f"{current}-r2") in names and ("Service", f"{current}-r2") in names
    assert _env(docs, "gateway-rules-endpoints")["RULES_RATTUS_CARTUS"] == f"dns:///{current}-r2:50051"
    # prod's own patches reach the release too: pulled on every start, three replicas at least.
    (deployment,) = [
        d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == f"{current}-r2"
    ]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Always"
    (scaler,) = [
        d for d in docs if d["kind"] == "HorizontalPodAutoscaler" and d["metadata"]["name"] == f"{current}-r2"
    ]
    assert scaler["spec"]["minReplicas"] == 3


@pytest.mark.parametrize("release", ["R2", "-r2", "r2_final", "a" * 21])
def test_a_release_name_that_cannot_name_a_service_is_refused(release: str, tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(
            ["release", "--game", "rattus_cartus", "--release", release, "--tag", "1", "--out", str(tmp_path)]
        )
    assert not any(tmp_path.iterdir())
