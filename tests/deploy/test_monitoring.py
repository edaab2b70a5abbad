"""The alert rules, their PrometheusRule and the Grafana dashboard hold together: promtool accepts
the rules and their unit tests pass (each alert of the games, meta and Redis groups both fires and
stays quiet in them), every Guildhall series they read is one the gateway or a rules service
exports (Redis's: tests/deploy/test_redis_exporter.py), every alert has a runbook section in
docs/deploy.md, and the PrometheusRule is rendered from the file."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import yaml
from prometheus_client import REGISTRY

import gateway.metrics  # noqa: F401  (registers the gateway's metrics)
import gateway.webhooks.dispatch  # noqa: F401  (registers the webhook metrics)
import services.metrics  # noqa: F401  (registers a rules service's metrics)
from deploy.render import MONITORING, rendered_prometheus_rule

ROOT = Path(__file__).resolve().parents[2]
ALERTS = MONITORING / "alerts.yaml"
DASHBOARD = MONITORING / "grafana-dashboard.json"
_SERIES = re.compile(r"\bguildhall_[a-z_]+\b")


def _promtool() -> str:
    found = shutil.which("promtool")
    assert found, "promtool is installed by `make test` (Debian's prometheus package)"
    return found


def _exported_series() -> set[str]:
    names: set[str] = set()
    for family in REGISTRY.collect():
        names.add(family.name)
        names.update(sample.name for sample in family.samples)
        if family.type == "histogram":
            names.update(f"{family.name}_{suffix}" for suffix in ("bucket", "sum", "count"))
        if family.type == "counter":
            names.add(f"{family.name}_total")
    return names


def _alerts() -> list[dict]:
    return [rule for group in yaml.safe_load(ALERTS.read_text())["groups"] for rule in group["rules"]]


def test_promtool_accepts_the_rules_and_their_unit_tests_pass() -> None:
    promtool = _promtool()
    checked = subprocess.run([promtool, "check", "rules", str(ALERTS)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = subprocess.run(
        [promtool, "test", "rules", "alerts.test.yaml"], cwd=MONITORING, capture_output=True, text=True
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_series_the_alerts_and_dashboard_read_is_exported_by_the_gateway_or_rules() -> None:
    exported = _exported_series()
    read = set(_SERIES.findall(ALERTS.read_text())) | set(_SERIES.findall(DASHBOARD.read_text()))
    assert read, "the rules and the dashboard read Guildhall's series"
    assert read <= exported, f"not exported: {sorted(read - exported)}"


def test_every_alert_has_a_runbook_section_in_the_deploy_guide() -> None:
    guide = (ROOT / "docs" / "deploy.md").read_text()
    headings = {line.lstrip("#").strip().lower() for line in guide.splitlines() if line.startswith("#")}
    for rule in _alerts():
        name = rule["alert"]
        assert rule["annotations"]["runbook"] == f"docs/deploy.md#{name.lower()}"
        assert name.lower() in headings, f"docs/deploy.md has no runbook section for {name}"


def test_the_prometheus_rule_is_rendered_from_the_plain_rules_file() -> None:
    committed = (MONITORING / "prometheusrule.yaml").read_text()
    assert committed == rendered_prometheus_rule(), "run `make manifests`"
    assert yaml.safe_load(committed)["spec"] == yaml.safe_load(ALERTS.read_text())


def test_the_dashboard_has_unique_panels_each_with_a_query() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        assert panel["targets"] and all(t["expr"].strip() for t in panel["targets"]), panel["title"]


# Alert groups added with issue 43: each of their alerts is unit-tested firing and quiet.
TESTED_GROUPS = ("guildhall-games", "guildhall-meta", "guildhall-redis")


def test_every_alert_of_the_new_groups_is_tested_firing_and_quiet() -> None:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    names = {rule["alert"] for group in groups if group["name"] in TESTED_GROUPS for rule in group["rules"]}
    assert len(names) >= 15
    cases = [
        case
        for test in yaml.safe_load((MONITORING / "alerts.test.yaml").read_text())["tests"]
        for case in test.get("alert_rule_test", [])
    ]
    fires = {case["alertname"] for case in cases if case["exp_alerts"]}
    quiet = {case["alertname"] for case in cases if not case["exp_alerts"]}
    assert names <= fires, f"never tested firing: {sorted(names - fires)}"
    assert names <= quiet, f"never tested quiet: {sorted(names - quiet)}"
