"""The Redis alerts and panels read only series redis_exporter really exports: the real exporter
(Debian's prometheus-redis-exporter, the version the manifests pin) runs as the manifests run it
(multi-target `/scrape?target=`, passwords from a file) against real redis-servers: a cluster
primary with its replica, and a password-protected Redis set up as production must be. Every
`redis_*` series the rules and the dashboard name must come back, with the values the alerts
expect of a healthy store; a target the exporter cannot log into reads redis_up 0."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from deploy.render import BASE, MONITORING
from devstack.cluster import redis_cluster
from devstack.processes import RedisProcess, free_port

EXPORTER = "prometheus-redis-exporter"  # Debian's name for redis_exporter; `make test` installs it
_REDIS_SERIES = re.compile(r"\bredis_[a-z_]+\b")
_LABELS = re.compile(r"\{[^}]*\}|\b(?:by|on|without|ignoring)\s*\([^)]*\)")
PASSWORD = "exporter-test-password"
Samples = dict[str, list[tuple[dict[str, str], float]]]


def _read_series() -> set[str]:
    """The redis_* series the alert expressions and the dashboard's queries name (not the label
    names inside their selectors and groupings)."""
    groups = yaml.safe_load((MONITORING / "alerts.yaml").read_text())["groups"]
    expressions = [rule["expr"] for group in groups for rule in group["rules"]]
    dashboard = json.loads((MONITORING / "grafana-dashboard.json").read_text())
    expressions += [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    series: set[str] = set()
    for expression in expressions:
        bare = _LABELS.sub("", expression)
        series.update(_REDIS_SERIES.findall(bare))
    return series


@dataclass(frozen=True)
class Running:
    address: str  # the exporter's
    protected: str  # the password-protected Redis, as a target
    primary: str  # the cluster's primary and its replica
    replica: str


@pytest.fixture(scope="module")
def exporter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    binary = shutil.which(EXPORTER)
    assert binary, f"{EXPORTER} is installed by `make test` (Makefile: debian-tools)"
    work = tmp_path_factory.mktemp("redis-exporter")
    # Production's settings (docs/deploy.md, "Redis"): AOF always, noeviction, a memory limit, a
    # password, latency monitoring (fsync spikes).
    settings = ["--maxmemory", "64mb", "--latency-monitor-threshold", "1"]
    with (
        RedisProcess(work / "redis", extra=settings) as redis,
        redis_cluster(1, 1, appendonly=True) as cluster,
    ):
        protected = f"redis://127.0.0.1:{redis.port}"
        client = redis.client()
        # A latency event, as a slow fsync would record one (here a slow command); then the
        # password (set once started: devstack's readiness check pings without one).
        client.execute_command("DEBUG", "SLEEP", "0.01")
        client.config_set("requirepass", PASSWORD)
        client.close()
        passwords = work / "passwords.json"
        passwords.write_text(json.dumps({protected: PASSWORD}))
        address = f"127.0.0.1:{free_port()}"
        args = [
            f"--web.listen-address={address}",
            f"--redis.password-file={passwords}",
            "--redis-only-metrics",
        ]
        with (work / "exporter.log").open("wb") as log:
            process = subprocess.Popen([binary, *args], stdout=log, stderr=subprocess.STDOUT)
            try:
                _wait_healthy(address, process)
                primary, replica = (f"redis://127.0.0.1:{node.port}" for node in cluster.nodes)
                yield Running(address, protected, primary, replica)
            finally:
                process.terminate()
                process.wait(10)


def _wait_healthy(address: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while True:
        assert process.poll() is None, "the exporter exited"
        try:
            with urllib.request.urlopen(f"http://{address}/health", timeout=1):
                return
        except OSError:
            assert time.monotonic() < deadline, "the exporter did not answer /health"
            time.sleep(0.1)


def scrape(address: str, target: str) -> Samples:
    """What Prometheus gets from the exporter for one node (the Probe's /scrape?target=)."""
    url = f"http://{address}/scrape?target={urllib.parse.quote(target, safe='')}"
    with urllib.request.urlopen(url, timeout=20) as answer:
        text = answer.read().decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, []).append((sample.labels, sample.value))
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    (found,) = [v for sample_labels, v in samples[name] if labels.items() <= sample_labels.items()]
    return found


def test_every_redis_series_the_alerts_and_dashboard_read_is_exported(exporter: Running) -> None:
    read = _read_series()
    assert {"redis_up", "redis_memory_max_bytes", "redis_cluster_state"} <= read
    on_primary, on_replica = (
        scrape(exporter.address, exporter.primary),
        scrape(exporter.address, exporter.replica),
    )
    protected = scrape(exporter.address, exporter.protected)
    exported = set(on_primary) | set(on_replica) | set(protected)
    assert read <= exported, f"not exported by redis_exporter: {sorted(read - exported)}"

    # A healthy store reads as the alerts expect.
    assert value(protected, "redis_up") == 1
    assert value(protected, "redis_memory_max_bytes") == 64 * 2**20
    assert value(protected, "redis_instance_info", maxmemory_policy="noeviction", role="master")
    assert value(protected, "redis_aof_enabled") == 1 and value(protected, "redis_aof_last_write_status") == 1
    assert value(protected, "redis_latency_spike_duration_seconds", event_name="command") >= 0.01
    assert value(on_primary, "redis_instance_info", role="master", redis_mode="cluster")
    assert value(on_primary, "redis_connected_slaves") == 1
    assert value(on_primary, "redis_cluster_state") == 1
    assert value(on_primary, "redis_cluster_slots_ok") == 16384
    assert value(on_replica, "redis_master_link_up") == 1


def test_a_redis_the_exporter_cannot_log_into_reads_down(exporter: Running) -> None:
    port = urllib.parse.urlsplit(exporter.protected).port
    unknown = f"redis://localhost:{port}"  # the same Redis, under a name the password file lacks
    assert value(scrape(exporter.address, unknown), "redis_up") == 0


def test_the_manifests_pin_the_exporter_version_the_tests_run() -> None:
    binary = shutil.which(EXPORTER)
    assert binary
    shown = subprocess.run([binary, "--version"], capture_output=True, text=True)
    version = re.search(r"Redis Metrics Exporter v?(\d+\.\d+\.\d+)", shown.stdout + shown.stderr)
    assert version, shown.stderr
    images = yaml.safe_load((BASE / "kustomization.yaml").read_text())["images"]
    (pinned,) = [i["newTag"] for i in images if i["name"] == "oliver006/redis_exporter"]
    assert pinned == f"v{version.group(1)}"


def test_the_dev_probe_scrapes_the_dev_redis_with_its_password() -> None:
    """The dev Probe's target is the dev Redis Service, and the dev password file names it."""
    probe = yaml.safe_load((MONITORING / "redis-probe.yaml").read_text())
    assert probe["spec"]["jobName"] == "guildhall-redis" and probe["spec"]["prober"]["path"] == "/scrape"
    dev = (BASE.parent / "overlays" / "dev" / "kustomization.yaml").read_text()
    for target in probe["spec"]["targets"]["staticConfig"]["static"]:
        assert json.dumps(target) in dev
