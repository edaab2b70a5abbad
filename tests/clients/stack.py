"""A real gateway for the client tests: Redis, the Rattus Cartus rules service and `python -m
gateway` as child processes, with a tenant whose API key the tests hold. The gateway process can
be stopped and started again on the same port (a replica going away under a client)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from gateway.auth import hash_key, new_api_key
from gateway.bootstrap import keys_dir_for
from gateway.stack import Stack, free_port, wait_serving
from services.server import EXIT_WITH_PARENT_ENV

ROOT = Path(__file__).resolve().parents[2]


class GatewayStack:
    """`target`, `api_key` (tenant "acme": tenant + auditor scopes), `other_key` (tenant "rival")."""

    def __init__(self, workdir: Path, games: tuple[str, ...] = ("rattus_cartus",)) -> None:
        self.workdir = workdir
        self.games = games
        self.api_key = new_api_key()
        self.other_key = new_api_key()
        self.port = free_port()
        self.target = f"127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self._rules = Stack(list(games), log_dir=workdir / "logs")

    def __enter__(self) -> GatewayStack:
        self._rules.__enter__()
        try:
            tenants = {
                "tenants": {
                    "acme": {
                        "keys": [
                            {"id": "k1", "sha256": hash_key(self.api_key), "scopes": ["tenant", "auditor"]}
                        ],
                        "quotas": {"open_tickets": 1000, "active_matches": 1000, "actions_per_second": 10000},
                    },
                    "rival": {
                        "keys": [
                            {"id": "k1", "sha256": hash_key(self.other_key), "scopes": ["tenant", "auditor"]}
                        ],
                    },
                }
            }
            self.tenants_file = self.workdir / "tenants.json"
            self.tenants_file.write_text(json.dumps(tenants))
            self.keys_dir = keys_dir_for(self.workdir / "keys")
            self.start_gateway()
        except BaseException:
            self.close()
            raise
        return self

    def env(self) -> dict[str, str]:
        env = {
            **os.environ,
            "REDIS_URL": self._rules.redis_url,
            "TENANTS_FILE": str(self.tenants_file),
            "SIGNING_KEYS_DIR": str(self.keys_dir),
            "METRICS_PORT": "0",
            "LOG_LEVEL": "warning",
            "GRACE_SECONDS": "2",
            EXIT_WITH_PARENT_ENV: str(os.getpid()),
        }
        for game, target in self._rules.targets.items():
            env[f"RULES_{game.upper()}"] = target
        return env

    def start_gateway(self) -> None:
        log = open(self.workdir / "logs" / "gateway.log", "ab")  # noqa: SIM115 (kept for the process)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gateway", "--port", str(self.port)],
            cwd=ROOT,
            env=self.env(),
            stdout=log,
            stderr=log,
        )
        wait_serving(self.target, 60.0, self.process)

    def stop_gateway(self, *, kill: bool = False) -> None:
        """SIGTERM (the gateway drains and ends its streams) or SIGKILL (connections just drop)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

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

    def log_tail(self, lines: int = 40) -> str:
        path = self.workdir / "logs" / "gateway.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def close(self) -> None:
        self.stop_gateway()
        self._rules.close()

    def __exit__(self, *exc: object) -> None:
        self.close()
