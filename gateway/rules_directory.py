"""Rules versions side by side (issue 40): which rules targets a game has, which version each
answers, and the rules client for a (game, version). docs/versions.md has the design.

- Targets: per game, the ones configured (`RULES_<GAME>`, comma-separated) and the ones an
  operator registers at runtime (AdminService, stored in `gh:{admin}:rules`).
- A probe asks every target its version (Describe) every PROBE_S seconds: versions that answer
  appear, versions that stop answering go, without a restart. The same loop re-reads the
  operator's settings, so a change reaches every replica within PROBE_S.
- Routing: a match's calls go to a target answering the match's own version; the version is in
  the match's cached meta, so this is a dict lookup, never a Redis round trip. None answering:
  UNAVAILABLE while a target known to serve it is down (it may come back), FAILED_PRECONDITION
  when nothing serves it any more (not deployed); never other rules.
- New matches: the game's current version (set at runtime; unset, the version of its first
  target), or a candidate version for a share of new matches (the ramp), chosen from the match
  id so every replica, and a retried create, choose alike.
- The first time a version answers, its bundle is stored beside the archive (gateway/rules_bundles.py).

`StaticRules` is the same port over one fixed client per game, no probing (tests, tools).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import structlog

from gateway.usecases.results import RulesNotAnswering, RulesNotDeployed, UnknownGame

_log = structlog.get_logger("rules")

PROBE_S = 2.0  # how often every target is asked its version, and the settings re-read
PROBE_TIMEOUT_S = 3.0
SETTINGS_KEY = "gh:{admin}:rules"  # hash: targets:<game> -> JSON list, current:<game> -> JSON
CLOSE_AFTER_S = 30.0  # a removed target's client closes after calls in flight are done
BUNDLE_RETRY_S = 300.0  # a version whose bundle could not be stored is tried again this often


def ramp_share(match_id: str) -> float:
    """Where a match id falls in [0, 100): a new match goes to the ramp's version below its percent."""
    bucket = int.from_bytes(hashlib.sha256(match_id.encode()).digest()[:8], "big")
    return (bucket % 1_000_000) / 10_000


@dataclass(frozen=True)
class Current:
    """The operator's choice for a game's new matches."""

    version: str = ""
    ramp_version: str = ""
    ramp_percent: float = 0.0


@dataclass
class Target:
    """One rules endpoint of a game and what it last said."""

    game: str
    address: str
    registered: bool  # through AdminService (else RULES_<GAME>)
    client: Any
    version: str = ""  # the version it last answered ("" never)
    describe: Any = None  # its DescribeResponse
    answering: bool = False
    problem: str = ""  # why it does not answer (or answers for another game)


@dataclass
class GameRules:
    """A game's targets in order (configured first) and the operator's settings for it."""

    targets: list[Target] = field(default_factory=list)
    current: Current = Current()


class RulesDirectory:
    """The rules targets of every game, probed; the client for a (game, version)."""

    def __init__(
        self,
        configured: Mapping[str, Sequence[str]],
        make_client: Callable[[str, str], Any],
        *,
        redis: Any = None,
        probe_s: float = PROBE_S,
        on_version: Callable[[str, str, Any], Awaitable[str]] | None = None,
    ) -> None:
        """`make_client(game, address)`: a rules client. `on_version(game, version, client)`: called
        when a version first answers (it stores the version's bundle and says how that went:
        `bundle_states`); again every BUNDLE_RETRY_S while it did not store it."""
        self._make_client = make_client
        self.redis = redis
        self.probe_s = probe_s
        self._on_version = on_version
        self.games: dict[str, GameRules] = {}
        for game, addresses in configured.items():
            rules = self.games.setdefault(game, GameRules())
            for address in dict.fromkeys(addresses):
                rules.targets.append(Target(game, address, False, make_client(game, address)))
        self._routes: dict[tuple[str, str], Any] = {}
        self.bundle_states: dict[tuple[str, str], str] = {}  # (game, version) -> "stored", or why not
        self._seen: dict[tuple[str, str], float] = {}  # (game, version) -> when on_version last ran
        self._first_versions: dict[str, str] = {}  # game -> its first target's last version
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- the hot path ------------------------------------------------------------------------------

    def client(self, game: str, version: str) -> Any:
        """The client of a target of this version of the game (answering, or the last to)."""
        route = self._routes.get((game, version))
        if route is not None:
            return route
        raise self.unavailable(game, version)

    def for_new_match(self, game: str, match_id: str) -> tuple[str, Any]:
        """(version, client) a new match is created on: the ramp's or the current version."""
        rules = self.games.get(game)
        if rules is None:
            raise UnknownGame(f"this gateway serves no game {game!r}")
        version = self.current(game)
        if rules.current.ramp_version and ramp_share(match_id) < rules.current.ramp_percent:
            version = rules.current.ramp_version
        route = self._routes.get((game, version))
        if route is None:
            raise self.unavailable(game, version, "new matches go to")
        return version, route

    def current(self, game: str) -> str:
        """The version new matches of the game go to: the operator's, else its first target's."""
        rules = self.games.get(game)
        if rules is not None and rules.current.version:
            return rules.current.version
        return self._first_versions.get(game, "")

    def unavailable(self, game: str, version: str, subject: str = "this match plays") -> Exception:
        """Why no target answers a version: UNAVAILABLE while one that served it, or one whose
        version this replica never learned, is down; else FAILED_PRECONDITION (not deployed), the
        message naming the game and the version."""
        rules = self.games.get(game)
        if rules is None:
            return UnknownGame(f"this gateway serves no game {game!r}")
        if not version:
            return RulesNotAnswering(
                game, "", f"no rules of {game} answer yet and no current version is set: retry"
            )
        # A target that has not answered since this replica started may serve the version (a
        # replica restarted while that pod restarts): down, not "not deployed", until it answers.
        down = [t for t in rules.targets if t.version in (version, "") and not t.answering]
        if down:
            where = ", ".join(f"{t.address} ({t.problem or 'not answering'})" for t in down)
            return RulesNotAnswering(
                game, version, f"{subject} rules {version} of {game}, not answering: {where}; retry"
            )
        deployed = sorted({t.version for t in rules.targets if t.answering})
        return RulesNotDeployed(
            game,
            version,
            f"{subject} rules {version} of {game}, which are not deployed here "
            f"(deployed: {', '.join(deployed) or 'none'}); never other rules: deploy that version "
            "beside the others (docs/versions.md)",
        )

    # -- what clients and operators read -----------------------------------------------------------

    def served(self) -> frozenset[str]:
        """Games with at least one target answering."""
        return frozenset(g for g, rules in self.games.items() if any(t.answering for t in rules.targets))

    def describe(self, game: str, version: str = "") -> Any:
        """The DescribeResponse of a known version of the game (default: its current one), or None."""
        version = version or self.current(game)
        targets = self.games.get(game, GameRules()).targets
        for target in sorted(targets, key=lambda t: not t.answering):
            if target.version == version:
                return target.describe
        return None

    def versions(self, game: str) -> dict[str, list[Target]]:
        """Each version the game's targets serve or last served, with those targets."""
        found: dict[str, list[Target]] = {}
        for target in self.games.get(game, GameRules()).targets:
            found.setdefault(target.version, []).append(target)
        return found

    def answering(self, game: str, version: str) -> bool:
        """Whether a target of the game answered the last probe with this version."""
        return any(t.answering and t.version == version for t in self.games.get(game, GameRules()).targets)

    def known(self, game: str, version: str) -> bool:
        """Whether calls for this version have a target (answering, or the one that last did)."""
        return (game, version) in self._routes

    # -- probing -------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Read the settings and probe every target once. A configured target that answers for
        another game is a configuration error (SystemExit), as is a configured game none of whose
        targets answers: there would be nothing to create its matches on."""
        await self.refresh_settings()
        await self.probe()
        for game, rules in self.games.items():
            for target in rules.targets:
                if not target.registered and target.problem.startswith("answers for"):
                    raise SystemExit(f"RULES_{game.upper()}: {target.address} {target.problem}")
        # (Registered targets never stop a start: a replica must come up whatever they do.)
        configured = [g for g, rules in self.games.items() if any(not t.registered for t in rules.targets)]
        silent = [g for g in configured if g not in self.served()]
        if silent:
            problems = "; ".join(f"{t.address}: {t.problem}" for g in silent for t in self.games[g].targets)
            raise SystemExit(f"no rules target of {', '.join(silent)} answers ({problems})")

    async def run(self, stopping: asyncio.Event) -> None:
        """Probe and re-read the settings every probe_s until stopping."""
        while not stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), self.probe_s)
            if stopping.is_set():
                break
            try:
                await self.refresh_settings()
            except Exception as error:  # Redis away: keep the targets and settings we have
                _log.warning("rules settings refresh failed", error=str(error))
            try:
                await self.probe()
            except Exception:  # a bug of ours: logged, and the loop goes on probing
                _log.exception("rules probe failed")

    async def probe(self) -> None:
        targets = [t for rules in self.games.values() for t in rules.targets]
        await asyncio.gather(*(self._probe(t) for t in targets))
        self._route()

    async def _probe(self, target: Target) -> None:
        try:
            described = await asyncio.wait_for(target.client.describe(), PROBE_TIMEOUT_S)
        except (grpc.aio.AioRpcError, TimeoutError, OSError) as error:
            code = error.code().name if isinstance(error, grpc.aio.AioRpcError) else type(error).__name__
            target.answering, target.problem = False, code
            return
        if described.game_id != target.game:
            target.answering = False
            target.problem = f"answers for {described.game_id!r}, not {target.game!r}"
            return
        if target.version and target.version != described.rules_version:
            _log.info(
                "a rules target now serves another version",
                game=target.game, target=target.address, was=target.version, now=described.rules_version,
            )  # fmt: skip
        target.version, target.describe = described.rules_version, described
        target.answering, target.problem = True, ""

    def suspect(self, game: str, version: str) -> None:
        """A target routed for this version refused a state of it (it serves another version
        now, e.g. redeployed in place): stop routing there until the next probe says again."""
        route = self._routes.pop((game, version), None)
        for target in self.games.get(game, GameRules()).targets:
            if target.client is route:
                target.answering, target.problem = False, "refused a state of its version: re-probing"
        task = asyncio.ensure_future(self.probe())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _route(self) -> None:
        """Each known (game, version) to a target of it: one answering if any, else the one that
        last served it (a restarting pod is reached again by its channel's own reconnects, not
        only at the next probe; a call to it meanwhile fails UNAVAILABLE as it always did)."""
        routes: dict[tuple[str, str], Any] = {}
        for game, rules in self.games.items():
            for target in sorted(rules.targets, key=lambda t: not t.answering):
                if not target.version:
                    continue
                pair = (game, target.version)
                routes.setdefault(pair, target.client)
                last = self._seen.get(pair)
                retry = self.bundle_states.get(pair, "stored") not in ("stored", "no archive")
                if target.answering and (
                    last is None or (retry and time.monotonic() - last > BUNDLE_RETRY_S)
                ):
                    self._seen[pair] = time.monotonic()
                    self._first_answer(game, target)
            if rules.targets and rules.targets[0].version:
                self._first_versions[game] = rules.targets[0].version
        self._routes = routes

    def _first_answer(self, game: str, target: Target) -> None:
        _log.info("rules version answering", game=game, rules_version=target.version, target=target.address)
        if self._on_version is None:
            return
        pair, on_version = (game, target.version), self._on_version

        async def keep() -> None:
            self.bundle_states.setdefault(pair, "storing")
            try:
                self.bundle_states[pair] = await on_version(game, target.version, target.client)
            except Exception as error:  # the archive or the service failed: tried again later
                self.bundle_states[pair] = f"not stored: {type(error).__name__}: {str(error)[:200]}"
                _log.warning(
                    "rules bundle not stored", game=game, rules_version=target.version, error=str(error)
                )

        task = asyncio.ensure_future(keep())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the operator's settings -------------------------------------------------------------------

    async def refresh_settings(self) -> None:
        """Apply `gh:{admin}:rules`: registered targets (added, removed) and current versions."""
        if self.redis is None:
            return
        raw = await self.redis.hgetall(SETTINGS_KEY)
        settings = {_text(k): json.loads(v) for k, v in raw.items()}
        registered: dict[str, list[str]] = {}
        currents: dict[str, Current] = {}
        for name, value in settings.items():
            kind, _, game = name.partition(":")
            if kind == "targets":
                registered[game] = [str(a) for a in value]
            elif kind == "current":
                currents[game] = Current(
                    str(value.get("version", "")),
                    str(value.get("ramp_version", "")),
                    float(value.get("ramp_percent", 0.0)),
                )
        for game in set(registered) | set(currents) | set(self.games):
            rules = self.games.setdefault(game, GameRules())
            rules.current = currents.get(game, Current())
            wanted = registered.get(game, [])
            kept = [t for t in rules.targets if not t.registered or t.address in wanted]
            for gone in (t for t in rules.targets if t not in kept):
                self._close_later(gone.client)
            known = {t.address for t in kept}
            for address in wanted:
                if address not in known:
                    kept.append(Target(game, address, True, self._make_client(game, address)))
                    known.add(address)
            rules.targets = kept

    def _close_later(self, client: Any) -> None:
        async def close() -> None:
            await asyncio.sleep(CLOSE_AFTER_S)
            with contextlib.suppress(Exception):
                await client.close()

        task = asyncio.ensure_future(close())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for rules in self.games.values():
            for target in rules.targets:
                with contextlib.suppress(Exception):
                    await target.client.close()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RulesSettings:
    """The operator's rules settings in Redis (`gh:{admin}:rules`): registered targets, current
    versions and ramps. Written by the admin use cases; every replica re-reads them each probe."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def targets(self, game: str) -> list[str]:
        raw = await self.redis.hget(SETTINGS_KEY, f"targets:{game}")
        return [str(a) for a in json.loads(raw)] if raw else []

    async def set_targets(self, game: str, targets: Sequence[str]) -> None:
        if targets:
            await self.redis.hset(SETTINGS_KEY, f"targets:{game}", json.dumps(list(targets)))
        else:
            await self.redis.hdel(SETTINGS_KEY, f"targets:{game}")

    async def current(self, game: str) -> Current:
        raw = await self.redis.hget(SETTINGS_KEY, f"current:{game}")
        if not raw:
            return Current()
        value = json.loads(raw)
        return Current(value["version"], value.get("ramp_version", ""), float(value.get("ramp_percent", 0)))

    async def set_current(self, game: str, current: Current) -> None:
        body = {"version": current.version, "ramp_version": current.ramp_version}
        body["ramp_percent"] = current.ramp_percent  # type: ignore[assignment]
        await self.redis.hset(SETTINGS_KEY, f"current:{game}", json.dumps(body, sort_keys=True))


class StaticRules(dict[str, Any]):
    """One fixed rules client per game, asked for whatever version: no probing, no pinning beyond
    what the rules service itself refuses (in-process tests and tools)."""

    def client(self, game: str, version: str) -> Any:
        try:
            return self[game]
        except KeyError:
            raise UnknownGame(f"this gateway serves no game {game!r}") from None

    def for_new_match(self, game: str, match_id: str) -> tuple[str, Any]:
        return "", self.client(game, "")

    def suspect(self, game: str, version: str) -> None:
        """Nothing to re-route: the one client stays."""

    def answering(self, game: str, version: str) -> bool:
        return game in self

    def unavailable(self, game: str, version: str, subject: str = "") -> Exception:
        return UnknownGame(f"this gateway serves no game {game!r}")

    def served(self) -> frozenset[str]:
        return frozenset(self)


LIVE_PREFIX = "gh:{rules}:live:"


class PinnedMatches:
    """The live matches of each (game, rules version), so an operator knows when a version may
    go (`guildhall admin rules list`): a Redis set per pair, all in the `{rules}` slot, added to
    when a match is created, removed from when it ends, moved when it moves. Written after the
    match's own append (another slot), so a crash in between can leave one stale:
    `reconcile` rebuilds them from the tenants' active matches."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis

    @staticmethod
    def key(game: str, version: str) -> str:
        return f"{LIVE_PREFIX}{game}:{version}"

    @staticmethod
    def member(key: Any) -> str:
        return f"{key.tenant}/{key.match_id}"

    async def pin(self, key: Any, game: str, version: str) -> None:
        if version:
            await self.redis.sadd(self.key(game, version), self.member(key))

    async def unpin(self, key: Any, game: str, version: str) -> None:
        if version:
            await self.redis.srem(self.key(game, version), self.member(key))

    async def move(self, key: Any, game: str, old: str, new: str) -> None:
        await self.redis.smove(self.key(game, old), self.key(game, new), self.member(key))

    async def counts(self) -> dict[tuple[str, str], int]:
        """(game, version) -> live matches pinned to it."""
        found: dict[tuple[str, str], int] = {}
        async for raw in self.redis.scan_iter(match=f"{LIVE_PREFIX}*", count=200):
            name = _text(raw)[len(LIVE_PREFIX) :]
            game, _, version = name.partition(":")
            found[(game, version)] = int(await self.redis.scard(raw))
        return found

    async def reconcile(self, live: Mapping[tuple[str, str], set[str]]) -> dict[tuple[str, str], int]:
        """Replace every set by `live` ((game, version) -> members); returns the new counts."""
        stale = [raw async for raw in self.redis.scan_iter(match=f"{LIVE_PREFIX}*", count=200)]
        pipe = self.redis.pipeline(
            transaction=False
        )  # an operator command: a create racing it is re-pinned by the next reconcile
        for raw in stale:
            pipe.delete(raw)
        for (game, version), members in live.items():
            if members:
                pipe.sadd(self.key(game, version), *sorted(members))
        await pipe.execute()
        return {pair: len(members) for pair, members in live.items() if members}
