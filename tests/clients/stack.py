"""A real gateway for the client tests: `devstack.stack.Stack` with the Rattus Cartus rules
service, one gateway replica (which the tests stop and start again on its port: a replica going
away under a client), and two tenants whose API keys the tests hold."""

from __future__ import annotations

import os
from pathlib import Path

from devstack.stack import Stack
from gateway.auth import hash_key, new_api_key


def _tenant(key: str, **quotas: int) -> dict[str, object]:
    entry: dict[str, object] = {
        "keys": [{"id": "k1", "sha256": hash_key(key), "scopes": ["tenant", "auditor"]}]
    }
    if quotas:
        entry["quotas"] = quotas
    return entry


class GatewayStack(Stack):
    """`target`, `api_key` (tenant "acme": tenant + auditor scopes), `other_key` (tenant "rival")."""

    def __init__(self, workdir: Path, games: tuple[str, ...] = ("rattus_cartus",)) -> None:
        self.workdir = workdir
        api_key, self.other_key = new_api_key(), new_api_key()
        tenants = {
            "tenants": {
                "acme": _tenant(api_key, open_tickets=1000, active_matches=1000, actions_per_second=10000),
                "rival": _tenant(self.other_key),
            }
        }
        super().__init__(
            list(games),
            log_dir=workdir / "logs",
            gateways=1,
            work_dir=workdir,
            gateway_env={"LOG_LEVEL": "warning", "GRACE_SECONDS": "2"},
            tenants=tenants,
            start_timeout_s=60.0,
        )
        self.api_key = api_key

    @property
    def target(self) -> str:
        return self.gateway_targets[0]

    def cli_env(self, **extra: str) -> dict[str, str]:
        """The environment a person running `guildhall` against this stack would have."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("GUILDHALL_")}
        env.update(
            GUILDHALL_TARGET=self.target,
            GUILDHALL_API_KEY=self.api_key,
            GUILDHALL_CONFIG=str(self.workdir / "no-config.toml"),
            COLUMNS="160",
            TERM="dumb",
            NO_COLOR="1",
        )
        env.update(extra)
        return env
