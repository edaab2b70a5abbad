"""The whole system on loopback as killable processes: one Redis (AOF, appendfsync always), one
rules service per registered game, and gateway replicas sharing the Redis, the signing keys and
the tenants file. The soak and the reliability tests through the gateway both run on it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

from gateway.auth import hash_key, new_api_key
from gateway.signing import KeyRing
from soak.processes import GatewayProcess, RedisProcess, RulesProcess


@dataclass(frozen=True)
class TenantSpec:
    """A tenant the stack configures, with its quotas (TENANTS_FILE's fields)."""

    tenant_id: str
    open_tickets: int = 100_000
    active_matches: int = 100_000
    actions_per_second: float = 100_000.0
    reads_per_second: float = 1_000_000.0


@dataclass
class SoakStack:
    """Start with `with SoakStack(...) as stack:`; every process is stopped on exit."""

    games: Sequence[str] | None = None  # None: every game in services.registry
    replicas: int = 2
    tenants: Sequence[TenantSpec] = (TenantSpec("acme"), TenantSpec("rival"))
    work_dir: Path | None = None
    redis: RedisProcess = field(init=False)
    rules: dict[str, RulesProcess] = field(init=False, default_factory=dict)
    gateways: list[GatewayProcess] = field(init=False, default_factory=list)
    api_keys: dict[str, str] = field(init=False, default_factory=dict)  # tenant -> key
    _owns_dir: bool = field(init=False, default=False)

    def __enter__(self) -> Self:
        if self.work_dir is None:
            self.work_dir = Path(tempfile.mkdtemp(prefix="guildhall-soak-"))
            self._owns_dir = True
        self.work_dir.mkdir(parents=True, exist_ok=True)
        if self.games is None:
            from services.registry import GAMES

            self.games = list(GAMES)
        try:
            self._write_config()
            self.redis = RedisProcess(self.work_dir / "redis")
            self.redis.start()
            for game in self.games:
                self.rules[game] = RulesProcess(game, self.work_dir / "logs")
                self.rules[game].start(timeout_s=60)
            env = {
                "REDIS_URL": self.redis.url,
                "SIGNING_KEYS_DIR": str(self.work_dir / "keys"),
                "TENANTS_FILE": str(self.work_dir / "tenants.json"),
                **{f"RULES_{game.upper()}": process.target for game, process in self.rules.items()},
            }
            for number in range(self.replicas):
                gateway = GatewayProcess(f"gateway-{number}", self.work_dir / "logs", env)
                gateway.start(timeout_s=60)
                self.gateways.append(gateway)
        except BaseException:
            self.close()
            raise
        return self

    def _write_config(self) -> None:
        assert self.work_dir is not None
        KeyRing.write_new_key(self.work_dir / "keys", "soak-1")
        document: dict[str, dict[str, object]] = {"tenants": {}}
        for spec in self.tenants:
            key = new_api_key()
            self.api_keys[spec.tenant_id] = key
            document["tenants"][spec.tenant_id] = {
                "keys": [{"id": "k1", "sha256": hash_key(key), "scopes": ["tenant", "auditor"]}],
                "quotas": {
                    "open_tickets": spec.open_tickets,
                    "active_matches": spec.active_matches,
                    "actions_per_second": spec.actions_per_second,
                    "reads_per_second": spec.reads_per_second,
                },
            }
        (self.work_dir / "tenants.json").write_text(json.dumps(document, indent=2))

    @property
    def targets(self) -> list[str]:
        return [gateway.target for gateway in self.gateways]

    def close(self) -> None:
        for gateway in self.gateways:
            gateway.stop(timeout_s=5)
        for process in self.rules.values():
            process.stop(timeout_s=5)
        if hasattr(self, "redis"):
            self.redis.stop()
        if self._owns_dir and self.work_dir is not None:
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
