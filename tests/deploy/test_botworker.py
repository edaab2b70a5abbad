"""The bot worker's Deployment (issue 23) runs the client library's worker with a key the
gateway accepts for the botworker scope, and may reach nothing but the gateway."""

from __future__ import annotations

import base64
from pathlib import Path

from gateway.auth import BOTWORKER, hash_key, load_operators
from tests.deploy.test_manifests import named, objects, secret_behind_file

SECRETS = Path(__file__).resolve().parents[2] / "deploy/k8s/overlays/dev/secrets"


def test_the_bot_worker_runs_the_library_module_with_its_key_from_a_secret() -> None:
    for overlay in ("dev", "prod"):
        pod = named(overlay, "Deployment", "botworker")["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        assert container["args"] == ["guildhall_client.botworker"]
        secret, key = secret_behind_file(pod, "GUILDHALL_API_KEY_FILE")
        assert secret.startswith("guildhall-botworker") and key == "api-key"


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


def test_the_bot_worker_and_gateway_read_their_secrets_from_files(tmp_path: Path) -> None:
    from gateway.settings import secret_setting
    from guildhall_client.botworker import _read

    (tmp_path / "url").write_text("redis://secret-host:6379/0\n")
    assert (
        secret_setting({"REDIS_URL_FILE": str(tmp_path / "url")}, "REDIS_URL", "d")
        == "redis://secret-host:6379/0"
    )
    assert secret_setting({"REDIS_URL": "redis://env:1/0"}, "REDIS_URL", "d") == "redis://env:1/0"
    assert secret_setting({}, "REDIS_URL", "d") == "d"
    (tmp_path / "key").write_text("bot-key\n")
    assert _read(str(tmp_path / "key")) == "bot-key" and _read("") == ""
