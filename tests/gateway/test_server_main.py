"""`python -m gateway`: its flags and environment, its health, and a graceful drain on SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from devstack.processes import free_port
from devstack.stack import Stack
from gateway.settings import Config, parse_args
from tests.gateway.conftest import bearer, private_database

ROOT = Path(__file__).resolve().parents[2]


def test_every_setting_has_a_flag_and_an_environment_variable(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--help"], env={})
    text = capsys.readouterr().out
    for var in (
        "HOST",
        "PORT",
        "METRICS_PORT",
        "LOG_LEVEL",
        "DRAIN_SECONDS",
        "GRACE_SECONDS",
        "REDIS_URL_FILE",
        "REDIS_CLUSTER",
        "SIGNING_KEYS_DIR",
        "TENANTS_FILE",
        "ARCHIVE_RETENTION_SECONDS",
        "CACHE_MB",
        "RULES_",
    ):
        assert var in text, var


def test_the_environment_names_the_games_and_the_rest() -> None:
    env = {
        "RULES_RATTUS_CARTUS": "dns:///rules-rattus-cartus:50051",
        "RULES_YS": "127.0.0.1:50062",
        "PORT": "6000",
        "METRICS_PORT": "0",
        "REDIS_CLUSTER": "1",
        "DRAIN_SECONDS": "6",
        "RULES_": "ignored",
    }
    config = parse_args([], env=env)
    rattus, ys = ("dns:///rules-rattus-cartus:50051",), ("127.0.0.1:50062",)
    assert config.rules == {"rattus_cartus": rattus, "ys": ys}
    assert (config.port, config.metrics_port, config.redis_cluster, config.drain_s) == (6000, 0, True, 6.0)
    assert parse_args(["--rules", "ys=h:1"], env={}).rules == {"ys": ("h:1",)}
    # Issue 40: versions side by side, each target once, --rules adding to the environment's.
    both = parse_args(["--rules", "ys=h:3"], env={"RULES_YS": "h:1, h:2,h:1,"})
    assert both.rules == {"ys": ("h:1", "h:2", "h:3")}
    web_env = {"RULES_YS": "h:1", "HTTP_PORT": "8080", "CORS_ORIGINS": "https://a.example, b"}
    http = parse_args([], env=web_env)
    assert (http.http_port, http.cors_origins, http.web_dir) == (8080, ("https://a.example", "b"), "")
    assert parse_args([], env={"RULES_YS": "h:1"}).http_port == 0  # off unless asked for
    assert Config.rules_from_env({"RULES_YS": ""}) == {}


def test_no_games_is_an_error_naming_the_variable(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args([], env={})
    assert "RULES_<GAME_ID_UPPER>" in capsys.readouterr().err


def test_the_deployment_manifest_uses_the_gateways_variable_names() -> None:
    manifest = (ROOT / "deploy/k8s/base/gateway.yaml").read_text()
    names = set(re.findall(r"name: ([A-Z_]+)\b", manifest))
    assert {"HOST", "PORT", "METRICS_PORT", "LOG_LEVEL", "DRAIN_SECONDS", "GRACE_SECONDS"} <= names
    assert {"REDIS_URL_FILE", "SIGNING_KEYS_DIR", "TENANTS_FILE"} <= names
    assert names <= {
        "HOST",
        "PORT",
        "METRICS_PORT",
        "LOG_LEVEL",
        "DRAIN_SECONDS",
        "GRACE_SECONDS",
        "REDIS_URL_FILE",
        "REDIS_CLUSTER",
        "SIGNING_KEYS_DIR",
        "TENANTS_FILE",
        "HTTP_PORT",
        "CORS_ORIGINS",
        "ADMIN_PORT",
        "ARCHIVE_DIR",
        "ARCHIVE_RETENTION_SECONDS",
        "CACHE_MB",
        "BUNDLE_CACHE_DIR",
    }, "a variable the gateway does not read"
    endpoints = (ROOT / "deploy/k8s/base/rules-endpoints.env").read_text()
    rules = Config.rules_from_env(dict(line.split("=", 1) for line in endpoints.splitlines() if "=" in line))
    assert rules and all(target.startswith("dns:///") for found in rules.values() for target in found)


def test_a_stop_signal_drains_health_first_then_ends_watch_streams_and_exits_cleanly(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDIS_URL", private_database(redis_url, 12))
    metrics_port = free_port()
    env = {"DRAIN_SECONDS": "1", "GRACE_SECONDS": "5", "METRICS_PORT": str(metrics_port)}
    with Stack(
        ["rattus_cartus"],
        gateways=1,
        log_dir=tmp_path,
        gateway_env=env,
    ) as stack:
        target = stack.gateway_targets[0]
        process = stack.gateways[0].process
        assert process is not None
        with grpc.insecure_channel(target) as channel:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            health = health_pb2_grpc.HealthStub(channel)
            created = stub.CreateMatch(
                pb.CreateMatchRequest(game_id="rattus_cartus", players=["a", "b"]),
                metadata=bearer(stack.api_key),
            )
            stream = stub.Watch(
                pb.WatchRequest(match_id=created.match_id), metadata=bearer(created.spectator_token)
            )
            assert next(stream).view.version == 1
            # Reflection names the service (grpcurl needs no proto files).
            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
            asked = iter([reflection_pb2.ServerReflectionRequest(list_services="")])
            answer = next(reflection.ServerReflectionInfo(asked))
            assert "guildhall.gateway.v1.GatewayService" in {
                s.name for s in answer.list_services_response.service
            }
            # Prometheus: the open stream is counted, and the calls so far.
            text = (
                urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
            )
            assert "guildhall_watch_streams_open 1.0" in text
            assert 'guildhall_gateway_requests_total{code="OK",rpc="CreateMatch"} 1.0' in text
            assert "guildhall_event_loop_lag_seconds_count" in text  # the runtime's own pauses
            process.send_signal(signal.SIGTERM)
            statuses = []
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # bounded: health turns NOT_SERVING during the drain
                try:
                    statuses.append(health.Check(health_pb2.HealthCheckRequest(), timeout=1).status)
                except grpc.RpcError:
                    break
                if statuses[-1] == health_pb2.HealthCheckResponse.NOT_SERVING:
                    break
                time.sleep(0.05)
            assert health_pb2.HealthCheckResponse.NOT_SERVING in statuses
            assert list(stream) == []  # the stream ends cleanly: the client resumes elsewhere
            assert process.wait(30) == 0
    assert "stopped" in (tmp_path / "gateway-0.log").read_text()


def test_python_m_gateway_help_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gateway", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert result.returncode == 0 and "SIGNING_KEYS_DIR" in result.stdout


def test_a_malformed_tenants_file_stops_the_gateway_with_a_message(tmp_path: Path) -> None:
    bad = tmp_path / "tenants.json"
    bad.write_text('{"tenants": {"acme": {"keys": [{"id": "k", "sha256": "nothex"}]}}}')
    env = {
        **os.environ,
        "TENANTS_FILE": str(bad),
        "RULES_YS": "127.0.0.1:1",
        "METRICS_PORT": "0",
        "PORT": "0",
    }
    result = subprocess.run(
        [sys.executable, "-m", "gateway"], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert result.returncode == 2
    assert "sha256 must be 64 hex digits" in result.stderr and "Traceback" not in result.stderr


def test_the_stream_caps_are_settings_with_documented_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30 item 2: MAX_STREAMS_PER_TOKEN / _SPECTATOR_TOKEN / _TENANT, named in --help."""
    defaults = parse_args([], env={"RULES_YS": "h:1"})
    assert (
        defaults.max_streams_per_token,
        defaults.max_streams_per_spectator_token,
        defaults.max_streams_per_tenant,
    ) == (8, 1000, 5000)
    env = {
        "RULES_YS": "h:1",
        "MAX_STREAMS_PER_TOKEN": "2",
        "MAX_STREAMS_PER_SPECTATOR_TOKEN": "30",
        "MAX_STREAMS_PER_TENANT": "400",
    }
    config = parse_args([], env=env)
    assert (
        config.max_streams_per_token,
        config.max_streams_per_spectator_token,
        config.max_streams_per_tenant,
    ) == (
        2,
        30,
        400,
    )
    with pytest.raises(SystemExit):
        parse_args([], env={**env, "MAX_STREAMS_PER_TOKEN": "0"})
    assert "MAX_STREAMS_PER_TOKEN" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_args(["--help"], env={})
    text = capsys.readouterr().out
    for var in ("MAX_STREAMS_PER_TOKEN", "MAX_STREAMS_PER_SPECTATOR_TOKEN", "MAX_STREAMS_PER_TENANT"):
        assert var in text, var


def test_the_admin_listener_has_a_port_of_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 43: ADMIN_PORT (default 50052, 0: off) on ADMIN_HOST (default HOST), never one of the
    public listeners' ports."""
    defaults = parse_args([], env={"RULES_YS": "h:1", "HOST": "0.0.0.0"})
    assert (defaults.admin_port, defaults.admin_host) == (50052, "0.0.0.0")
    chosen = parse_args([], env={"RULES_YS": "h:1", "ADMIN_PORT": "7000", "ADMIN_HOST": "127.0.0.1"})
    assert (chosen.admin_port, chosen.admin_host) == (7000, "127.0.0.1")
    assert parse_args([], env={"RULES_YS": "h:1", "ADMIN_PORT": "0"}).admin_port == 0
    for shared in ({"PORT": "9000"}, {"HTTP_PORT": "9000"}, {"METRICS_PORT": "9000"}):
        with pytest.raises(SystemExit):
            parse_args([], env={"RULES_YS": "h:1", "ADMIN_PORT": "9000", **shared})
        assert "ADMIN_PORT 9000 is another listener's port" in capsys.readouterr().err
