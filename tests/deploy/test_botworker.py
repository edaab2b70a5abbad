"""The bot worker's Deployment (issue 23) runs the client library's worker with a key the
gateway accepts for the botworker scope, and may reach nothing but the gateway."""

from __future__ import annotations

import base64
from pathlib import Path

from gateway.auth import BOTWORKER, hash_key, load_operators
from tests.deploy.test_manifests import named, objects

SECRETS = Path(__file__).resolve().parents[2] / "deploy/k8s/overlays/dev/secrets"


def test_the_bot_worker_runs_the_library_module_with_its_key_from_a_secret() -> None:
    for overlay in ("dev", "prod"):
        pod = named(overlay, "Deployment", "botworker")["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        assert container["args"] == ["guildhall_client.botworker"]
        env = {e["name"]: e for e in container["env"]}
        assert env["GUILDHALL_API_KEY"]["valueFrom"]["secretKeyRef"]["name"].startswith("guildhall-botworker")


def test_the_dev_bot_worker_key_is_an_operators_botworker_key() -> None:
    secret = next(
        d for d in objects("dev", "Secret") if d["metadata"]["name"].startswith("guildhall-botworker")
    )
    key = base64.b64decode(secret["data"]["api-key"]).decode()
    (operator,) = load_operators(SECRETS / "tenants.json")
    assert operator.sha256 == hash_key(key) and operator.scopes == {BOTWORKER} and operator.tenant == ""


def test_the_bot_worker_may_reach_only_the_gateway() -> None:
    policy = named("prod", "NetworkPolicy", "botworker")["spec"]
    assert policy["ingress"] == []
    (rule,) = policy["egress"]
    assert rule["to"] == [{"podSelector": {"matchLabels": {"app.kubernetes.io/component": "gateway"}}}]
