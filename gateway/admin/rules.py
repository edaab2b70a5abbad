"""Rules versions for operators (issue 40): which versions of each game answer, the current one
and a ramp, targets registered at runtime, live matches pinned per version, moving a match and
checking a candidate version. Every change is recorded in the admin log before it is made, then
written to `gh:{admin}:rules` (gateway/rules_directory.py), which every replica re-reads within
seconds, and applied on this replica at once.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from gateway.admin.log import AdminLog
from gateway.admin.usecases import AdminError, invalid
from gateway.eventstore.async_redis import tenant_active_key
from gateway.eventstore.base import MatchKey
from gateway.rules_bundles import GAME_ID
from gateway.rules_directory import Current, GameRules, RulesDirectory, RulesSettings
from gateway.usecases.versions import MAX_SAMPLE, Checked, Moved
from services.kernel.version import VERSION

# host:port, dns:///name:port, ipv4:addr:port, unix:path: what a gRPC target looks like, no spaces.
_TARGET = re.compile(r"[A-Za-z0-9._:/\[\]%@-]{3,256}")


@dataclass(frozen=True)
class VersionListing:
    version: str
    targets: tuple[Any, ...]  # gateway.rules_directory.Target
    answering: bool
    current: bool
    ramp_percent: float
    live_matches: int
    bundle: str


@dataclass(frozen=True)
class GameListing:
    game: str
    current: str
    current_is_default: bool
    ramp_version: str
    ramp_percent: float
    versions: tuple[VersionListing, ...]


def _game(game: str) -> str:
    if not GAME_ID.fullmatch(game or ""):
        raise invalid(f"{game[:64]!r} is no game id (a-z, 0-9, _)")
    return game


def _version(version: str, what: str = "rules_version") -> str:
    if not VERSION.fullmatch(version or ""):
        raise invalid(f"{what} {version[:80]!r} is no rules version (<edition>+<16 hex>)")
    return version


@dataclass
class RulesAdmin:
    rules: RulesDirectory
    settings: RulesSettings
    log: AdminLog
    matches: Any  # gateway.usecases.GameMatches
    tenants: Callable[[], Iterable[str]]  # the tenant ids served now

    # -- reading -----------------------------------------------------------------------------------

    async def listing(self, game: str = "") -> list[GameListing]:
        games = [_game(game)] if game else sorted(self.rules.games)
        if game and game not in self.rules.games:
            raise AdminError(
                grpc.StatusCode.NOT_FOUND, f"no rules target of {game!r} is configured or registered"
            )
        pinned = await self.matches.pinned.counts()
        out = []
        for name in games:
            current = self.rules.current(name)
            settings = self.rules.games[name].current
            versions = self.rules.versions(name)
            for pair, _ in pinned.items():  # a version with live matches and no target any more
                if pair[0] == name and pair[1] not in versions:
                    versions[pair[1]] = []
            listed = []
            for version, targets in sorted(versions.items()):
                bundle = self.rules.bundle_states.get((name, version), "" if not version else "unknown here")
                listed.append(
                    VersionListing(
                        version,
                        tuple(targets),
                        self.rules.answering(name, version),
                        bool(version) and version == current,
                        settings.ramp_percent if version and version == settings.ramp_version else 0.0,
                        pinned.get((name, version), 0),
                        bundle,
                    )
                )
            out.append(
                GameListing(
                    name,
                    current,
                    not settings.version,
                    settings.ramp_version,
                    settings.ramp_percent,
                    tuple(listed),
                )
            )
        return out

    # -- changes -----------------------------------------------------------------------------------

    async def set_current(
        self, operator: str, game: str, version: str, ramp_version: str = "", ramp_percent: float = 0.0
    ) -> None:
        """New matches of `game` on `version` (and `ramp_percent` of them on `ramp_version`)."""
        self._known(_game(game))
        _version(version)
        if ramp_version:
            _version(ramp_version, "ramp_version")
        if not 0.0 <= ramp_percent <= 100.0 or (ramp_percent and not ramp_version) or ramp_version == version:
            raise invalid("a ramp is another version and a percent from 0 to 100")
        for wanted in (version, ramp_version):
            if wanted and not self.rules.answering(game, wanted):
                answering = [v for v in sorted(self.rules.versions(game)) if self.rules.answering(game, v)]
                raise AdminError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"rules {wanted} of {game} do not answer here (answering: "
                    f"{', '.join(answering) or 'none'}): deploy it and add its target first",
                )
        before = await self.settings.current(game)
        after = Current(version, ramp_version, ramp_percent if ramp_version else 0.0)
        await self.log.append(operator, "set_current_rules", "", _shown(before), _shown(after), game=game)
        await self.settings.set_current(game, after)
        await self.rules.refresh_settings()

    async def add_target(self, operator: str, game: str, target: str) -> None:
        _game(game)
        if not _TARGET.fullmatch(target or ""):
            raise invalid(f"{target[:80]!r} is no gRPC target (host:port or dns:///name:port)")
        known = {t.address for t in self.rules.games.get(game, GameRules()).targets}
        if target in known:
            raise AdminError(grpc.StatusCode.ALREADY_EXISTS, f"{target} is already a rules target of {game}")
        before = await self.settings.targets(game)
        after = [*before, target]
        await self.log.append(operator, "add_rules_target", "", before, after, game=game)
        await self.settings.set_targets(game, after)
        await self.rules.refresh_settings()
        await self.rules.probe()

    async def remove_target(self, operator: str, game: str, target: str) -> None:
        _game(game)
        before = await self.settings.targets(game)
        if target not in before:
            configured = {
                t.address for t in self.rules.games.get(game, GameRules()).targets if not t.registered
            }
            if target in configured:
                raise AdminError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"{target} is configured by RULES_{game.upper()}: change the gateway's environment",
                )
            raise AdminError(
                grpc.StatusCode.NOT_FOUND, f"{target} is not a registered rules target of {game}"
            )
        after = [t for t in before if t != target]
        await self.log.append(operator, "remove_rules_target", "", before, after, game=game)
        await self.settings.set_targets(game, after)
        await self.rules.refresh_settings()
        await self.rules.probe()

    async def move(self, operator: str, tenant: str, match_id: str, version: str) -> Moved:
        if tenant not in set(self.tenants()):
            raise AdminError(grpc.StatusCode.NOT_FOUND, f"no tenant {tenant!r}")
        _version(version)
        key = MatchKey(tenant, match_id)
        request = {"match_id": match_id, "to_version": version}
        await self.log.append(operator, "move_match", tenant, None, request)
        try:
            moved: Moved = await self.matches.move_match(key, version)
        except Exception as error:
            await self.log.append(
                operator, "move_match_refused", tenant, None, request, error=str(error)[:500]
            )
            raise
        return moved

    async def check(
        self,
        game: str,
        version: str,
        *,
        tenant: str = "",
        sample: int = 0,
        golden: Sequence[tuple[str, str]] = (),
    ) -> AsyncIterator[tuple[int, Checked]]:
        self._known(_game(game))
        _version(version)
        if tenant and tenant not in set(self.tenants()):
            raise AdminError(grpc.StatusCode.NOT_FOUND, f"no tenant {tenant!r}")
        if sample < 0:
            raise invalid("sample is >= 0")
        tenants = [tenant] if tenant else sorted(self.tenants())
        async for item in self.matches.check_rules(
            game, version, tenants=tenants, sample=MAX_SAMPLE if tenant else sample, golden=golden
        ):
            yield item

    async def reconcile(self, operator: str) -> dict[tuple[str, str], int]:
        """Rebuild the live sets from every tenant's active matches (their meta's game and version)."""
        live: dict[tuple[str, str], set[str]] = {}
        store = self.matches.store
        for tenant in sorted(self.tenants()):
            ids = await store.client.zrange(tenant_active_key(tenant), 0, -1)
            keys = [MatchKey(tenant, i.decode() if isinstance(i, bytes) else str(i)) for i in ids]
            metas = await store.metas(keys, ["game", "rules_version", "finished"])
            for key, (game, version, finished) in zip(keys, metas, strict=True):
                if game and version and finished != "1":
                    live.setdefault((game, version), set()).add(self.matches.pinned.member(key))
        counts: dict[tuple[str, str], int] = await self.matches.pinned.reconcile(live)
        await self.log.append(
            operator, "reconcile_pinned_matches", "", None, {f"{g} {v}": n for (g, v), n in counts.items()}
        )
        return counts

    def _known(self, game: str) -> None:
        if game not in self.rules.games:
            raise AdminError(
                grpc.StatusCode.NOT_FOUND, f"no rules target of {game!r} is configured or registered"
            )


def _shown(current: Current) -> dict[str, Any]:
    return {
        "version": current.version,
        "ramp_version": current.ramp_version,
        "ramp_percent": current.ramp_percent,
    }
