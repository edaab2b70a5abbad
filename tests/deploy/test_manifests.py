"""The Kubernetes manifests deploy every registered game, probe its gRPC health, and
keep Redis durable (AOF, noeviction)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from services.registry import GAMES

BASE = Path(__file__).resolve().parents[2] / "deploy" / "k8s" / "base"


def _documents(name: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all((BASE / name).read_text()) if doc]


def _kind(docs: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    (doc,) = [d for d in docs if d["kind"] == kind]
    return doc


def test_every_registered_game_has_a_rules_deployment_in_the_base() -> None:
    resources = yaml.safe_load((BASE / "kustomization.yaml").read_text())["resources"]
    for game in GAMES:
        name = f"rules-{game.replace('_', '-')}"
        assert f"{name}.yaml" in resources
        docs = _documents(f"{name}.yaml")
        container = _kind(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
        assert container["args"][0] == f"services.{game}"
        assert container["readinessProbe"]["grpc"]["port"] == 50051
        assert _kind(docs, "Service")["spec"]["clusterIP"] == "None"  # headless: client-side balancing


def test_redis_keeps_every_acknowledged_event() -> None:
    config = _kind(_documents("redis.yaml"), "ConfigMap")["data"]["redis.conf"]
    assert "appendonly yes" in config
    assert "appendfsync always" in config
    assert "maxmemory-policy noeviction" in config
