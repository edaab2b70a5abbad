"""checkov's Kubernetes policies pass on the production render: no failed check, and each skip
is annotated on its manifest with the reason (`checkov.io/skipN: CHECK=reason`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CHECKOV = ROOT / ".venv-tools" / "bin" / "checkov"  # `make test` installs it (Makefile: checkov)


def _render(tmp_path: Path) -> Path:
    out = subprocess.run(
        ["kubectl", "kustomize", str(ROOT / "deploy/k8s/overlays/prod")],
        capture_output=True,
        text=True,
        check=True,
    )
    path = tmp_path / "prod.yaml"
    path.write_text(out.stdout)
    return path


def test_checkov_finds_no_failure_in_the_production_render(tmp_path: Path) -> None:
    assert CHECKOV.exists(), "make test installs checkov into .venv-tools"
    render = _render(tmp_path)
    run = subprocess.run(
        [str(CHECKOV), "-f", str(render), "--framework", "kubernetes", "-o", "json", "--skip-download"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    report = json.loads(run.stdout)
    summary = report["summary"]
    failed = [(c["check_id"], c["resource"]) for c in report["results"]["failed_checks"]]
    assert summary["failed"] == 0 and summary["parsing_errors"] == 0, failed
    assert summary["passed"] > 500, "checkov read the whole render"
    skipped = {c["check_id"] for c in report["results"]["skipped_checks"]}
    reasons = {}
    for document in yaml.safe_load_all(render.read_text()):
        for key, value in (document.get("metadata", {}).get("annotations") or {}).items():
            if key.startswith("checkov.io/skip"):
                check, _, reason = value.partition("=")
                reasons[check] = reason
    assert skipped <= set(reasons), f"skips without an annotated reason: {skipped - set(reasons)}"
    assert all(len(reason.split()) >= 5 for reason in reasons.values()), reasons
