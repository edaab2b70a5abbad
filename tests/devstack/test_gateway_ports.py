"""A gateway's admin port (issue 43), picked by the stack, taken by another server before the
gateway binds it (a parallel test run's): the stack picks another and the gateway starts."""

from __future__ import annotations

import socket
from pathlib import Path

import grpc
import pytest
from guildhall.admin.v1 import admin_pb2, admin_pb2_grpc

from devstack import processes
from devstack.stack import Stack, TenantSpec
from tests.gateway.conftest import private_database

GAME = "rattus_cartus"


def test_a_picked_port_taken_before_the_gateway_binds_it_is_picked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    monkeypatch.setenv("REDIS_URL", private_database(redis_url, 12))  # no Redis port to pick
    real = processes.free_port
    fixed = {GAME: real()}
    gateway_port = real()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", real()))
        taken.listen()
        picks = iter([taken.getsockname()[1]])  # the admin port's first pick: taken
        monkeypatch.setattr(processes, "free_port", lambda: next(picks, None) or real())
        with Stack(
            [GAME], gateways=1, tenants=[TenantSpec("acme")], ports=fixed, gateway_port=gateway_port,
            work_dir=tmp_path, log_dir=tmp_path / "logs", start_timeout_s=60.0,
        ) as stack:  # fmt: skip
            admin_port = int(stack.admin_targets[0].rpartition(":")[2])
            assert admin_port != taken.getsockname()[1]
            assert stack.gateway_targets[0] == f"127.0.0.1:{gateway_port}"  # a port given stays
            with grpc.insecure_channel(stack.admin_targets[0]) as channel:
                tenants = admin_pb2_grpc.AdminServiceStub(channel).ListTenants(
                    admin_pb2.ListTenantsRequest(), metadata=[("authorization", f"Bearer {stack.admin_key}")]
                )
            assert [t.tenant_id for t in tenants.tenants] == ["acme"]
    assert "Address already in use" in (tmp_path / "logs" / "gateway-0.log").read_text()
