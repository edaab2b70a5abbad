"""`make soak`: bot matches of every registered game through two gateway replicas while Redis is
restarted, replicas are killed and rules services are restarted at random; then every match is
read back and audited, and each acknowledged event is checked against the stored stream.

Every client call goes through the client library (guildhall_client), as a third-party client's
would. A call that fails in transit is retried with the same command id on either replica
(the other one first), which is what makes retries safe; the ledger of acknowledgements is then
compared with what the store holds:

- lost: an acknowledged event that is not in the stream at its version with its command id;
- duplicated: a command id whose entries appear more than once (two separate runs of versions).

Both must be 0. Errors are counted by kind (transport statuses, rejections, given-up calls).

`--cluster` (`make soak CLUSTER=1`) runs the event store on a local Redis Cluster (3 primaries,
one replica each, AOF always) and adds its faults: a primary SIGKILLed (restarted a few seconds
later: it rejoins as a replica) and a primary SIGSTOPped past its failover, then resumed (issue
24). Each acknowledged receipt's head is checked against the stream (forked: the version holds
other content), and a spectator on the other replica measures how late each acknowledged version
reaches it. `--no-wait` runs the same without REDIS_WAIT_REPLICAS, to show what the wait prevents.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from devstack.stack import Stack, TenantSpec
from gateway.eventstore.base import MatchKey
from gateway.eventstore.redis_store import match_keys
from soak.flood import measure_flood, percentile
from soak.versions import VersionSwitch

TENANT = "acme"  # the tenant whose bots play the soak's matches
# How long one logical call may keep failing over (both replicas, backoff) before it is given up.
CALL_GIVE_UP_S = 90.0
# The flooding tenant's actions-per-second quota.
FLOOD_QUOTA = 20.0
# Gateway replicas stay down this long (seconds, uniform) when killed.
GATEWAY_DOWN_S = (0.5, 3.0)
# A SIGKILLed cluster primary is restarted after this long (its replica is promoted meanwhile).
PRIMARY_DOWN_S = (4.0, 6.0)
# A SIGSTOPped primary stalls this long: past its failover (node timeout 2 s, promotion at 3.7-4.3 s
# here) and under the gateways' Redis timeout (12 s in the stack's cluster mode) and the bots'
# call timeout (10 s): the case that forks acknowledged appends without the wait.
PRIMARY_STALL_S = 7.0
STALL_EXTRA_S = 8.0  # a stall goes on this much longer at most, until the replica is promoted


class GaveUp(Exception):
    """A call kept failing for CALL_GIVE_UP_S; the match is abandoned (and still audited)."""


@dataclass
class MatchLedger:
    """What the gateway acknowledged for one match: version -> (command id, event type)."""

    match_id: str
    game: str
    players: int
    acked: dict[int, tuple[str, str]] = field(default_factory=dict)
    heads: dict[int, str] = field(default_factory=dict)  # a receipt's version -> its signed head
    acked_at: dict[int, float] = field(default_factory=dict)  # version -> when it was acknowledged
    seen_at: dict[int, float] = field(default_factory=dict)  # version -> when the spectator got it
    commands: dict[str, list[int]] = field(default_factory=dict)  # acknowledged command id -> versions
    finished: bool = False
    abandoned: bool = False


@dataclass
class Report:
    """The soak's figures; `lost_acknowledged` and `duplicated` must be 0 and every audit ok."""

    duration_s: float = 0.0
    games: list[str] = field(default_factory=list)
    replicas: int = 2
    matches_started: int = 0
    matches_completed: int = 0
    matches_unfinished_at_end: int = 0
    matches_abandoned: int = 0
    actions_accepted: int = 0
    actions_repeated: int = 0  # first results handed back for a retried command id
    events_acknowledged: int = 0
    events_stored: int = 0
    lost_acknowledged: int = 0
    forked: int = 0  # acknowledged receipts whose version holds other content in the stream
    duplicated: int = 0
    cluster: bool = False
    wait_replicas: int = 0
    watch_delay_ms: dict[str, float] = field(default_factory=dict)  # p50, p99, max (cluster mode)
    # Statuses a client must never see for a fault (INTERNAL, UNKNOWN), and rejections of an
    # action the seat had just been offered (nothing else acts in a soak match meanwhile).
    contract_violations: int = 0
    unexpected_rejections: int = 0
    audited: int = 0
    audits_failed: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    faults: dict[str, int] = field(default_factory=dict)
    per_game_completed: dict[str, int] = field(default_factory=dict)
    flood: dict[str, float] = field(default_factory=dict)  # soak.flood figures, when measured
    # VERSION_SWITCH=1 (soak/versions.py): the operator's steps, and matches begun on each version.
    version_steps: list[str] = field(default_factory=list)
    matches_per_version: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return (
            self.lost_acknowledged == 0
            and self.forked == 0
            and self.duplicated == 0
            and self.contract_violations == 0
            and self.unexpected_rejections == 0
            and not self.audits_failed
            and not self.mismatches
            and self.audited == self.matches_started
        )

    def markdown(self) -> str:
        rows = [
            ("duration", f"{self.duration_s:.0f} s"),
            ("games", ", ".join(self.games)),
            ("gateway replicas", str(self.replicas)),
            ("matches started / completed", f"{self.matches_started} / {self.matches_completed}"),
            ("matches unfinished at the end (audited)", str(self.matches_unfinished_at_end)),
            ("matches abandoned (a call gave up; audited)", str(self.matches_abandoned)),
            (
                "actions accepted (of which repeated first results)",
                f"{self.actions_accepted} ({self.actions_repeated})",
            ),
            ("events acknowledged / stored", f"{self.events_acknowledged} / {self.events_stored}"),
            ("lost acknowledged events", str(self.lost_acknowledged)),
            ("forked acknowledged receipts", str(self.forked)),
            ("duplicated events", str(self.duplicated)),
            ("INTERNAL/UNKNOWN statuses seen", str(self.contract_violations)),
            ("offered actions rejected", str(self.unexpected_rejections)),
            ("matches audited / audits failed", f"{self.audited} / {len(self.audits_failed)}"),
            ("faults injected", ", ".join(f"{k} {v}" for k, v in sorted(self.faults.items())) or "none"),
            ("errors by kind", ", ".join(f"{k} {v}" for k, v in sorted(self.errors.items())) or "none"),
            ("completed per game", ", ".join(f"{k} {v}" for k, v in sorted(self.per_game_completed.items()))),
            ("verdict", "PASS" if self.ok else "FAIL"),
        ]
        if self.version_steps:
            per_version = ", ".join(f"{k} {v}" for k, v in sorted(self.matches_per_version.items()))
            rows.insert(
                -1, ("rules version steps (current switched under load)", ", ".join(self.version_steps))
            )
            rows.insert(-1, ("matches begun per rules version", per_version))
        if self.cluster:
            delay = self.watch_delay_ms
            rows.insert(3, ("event store", f"Redis Cluster, REDIS_WAIT_REPLICAS={self.wait_replicas}"))
            rows.insert(
                -1,
                (
                    "acknowledged -> spectator on the other replica p50 / p99 / max",
                    f"{delay.get('p50', 0):.0f} / {delay.get('p99', 0):.0f} / {delay.get('max', 0):.0f} ms",
                ),
            )
        if self.flood:
            f = self.flood
            rows += [
                (
                    "victim tenant SubmitAction p50 / p99 alone",
                    f"{f['victim_p50_ms_alone']:.1f} / {f['victim_p99_ms_alone']:.1f} ms",
                ),
                (
                    "victim p50 / p99 while another tenant floods",
                    f"{f['victim_p50_ms_flooded']:.1f} / {f['victim_p99_ms_flooded']:.1f} ms",
                ),
                ("victim p99 ratio (flooded / alone; target at most 2)", f"{f['p99_ratio']:.2f}"),
                (
                    "flooder accepted / refused (quota)",
                    f"{f['flood_accepted_per_s']:.1f}/s / {f['flood_refused']:.0f} "
                    f"({f['flood_quota_per_s']:.0f}/s)",
                ),
                ("victim refused by quota", f"{f['victim_refused']:.0f}"),
            ]
        lines = ["| figure | value |", "|---|---|"] + [f"| {name} | {value} |" for name, value in rows]
        for problem in (self.audits_failed + self.mismatches)[:20]:
            lines.append(f"\n- {problem}")
        return "\n".join(lines)


class Soak:
    """One soak run over a started `Stack.for_faults`."""

    def __init__(
        self,
        stack: Stack,
        *,
        duration_s: float,
        concurrency: int,
        fault_interval_s: float,
        seed: int,
        max_matches: int = 0,
        progress: Callable[[Report, float], None] | None = None,
        fault_kinds: Sequence[str] = (),
        fault_schedule: Sequence[tuple[float, str]] = (),
        versions: VersionSwitch | None = None,
    ) -> None:
        """`fault_schedule`: instead of random faults, these (seconds after the previous one, kind)
        in order; the play goes on until the last one is over, even past `duration_s`."""
        self.stack = stack
        self.duration_s = duration_s
        self.concurrency = concurrency
        self.fault_interval_s = fault_interval_s
        self.rng = random.Random(seed)
        self.max_matches = max_matches
        self.fault_kinds = tuple(fault_kinds)
        self.fault_schedule = tuple(fault_schedule)
        self.versions = versions  # VERSION_SWITCH=1: the operator's version steps during play
        self.progress = progress
        self.report = Report(replicas=len(stack.gateways))
        self.ledgers: list[MatchLedger] = []
        self.errors: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.run_id = f"{seed:x}-{int(time.time()) % 100000}"
        self._stop = asyncio.Event()
        self._clients: list[Any] = []
        self._spectators: list[asyncio.Task[None]] = []
        self.report.cluster = stack.cluster is not None
        self.report.wait_replicas = int(stack.gateway_env.get("REDIS_WAIT_REPLICAS", "0"))

    # -- calls with fail-over ----------------------------------------------------------------

    async def call(self, clients: Sequence[Any], method: str, *args: Any, **kwargs: Any) -> Any:
        """`client.<method>(*args, **kwargs)` on one replica, then the other, with backoff, until
        it answers.

        Transport faults are counted and retried; rejections and other statuses propagate."""
        from guildhall_client.errors import GatewayError, Rejected

        deadline = time.monotonic() + CALL_GIVE_UP_S
        order = list(clients)
        self.rng.shuffle(order)
        attempt = 0
        while True:
            client = order[attempt % len(order)]
            attempt += 1
            try:
                return await getattr(client, method)(*args, **kwargs)
            except Rejected:
                raise
            except GatewayError as error:
                status = getattr(error, "status", None)
                name = getattr(status, "name", type(error).__name__)
                self.errors[f"{method}:{name}"] += 1
                if name in ("INTERNAL", "UNKNOWN"):
                    self.report.contract_violations += 1
                if name not in ("UNAVAILABLE", "DEADLINE_EXCEEDED", "ABORTED", "INTERNAL", "UNKNOWN"):
                    raise
            if time.monotonic() > deadline:
                self.errors[f"{method}:gave_up"] += 1
                raise GaveUp(method)
            await asyncio.sleep(min(0.05 * attempt, 1.0) * (0.5 + self.rng.random()))

    # -- one match -----------------------------------------------------------------------------

    async def play_match(self, number: int, game: str, players: int) -> None:
        from guildhall_client.bots import make_bot
        from guildhall_client.errors import Rejected

        match_id = f"soak-{self.run_id}-{number}"
        ledger = MatchLedger(match_id, game, players)
        self.ledgers.append(ledger)
        self.report.matches_started += 1
        tenants = self._clients
        try:
            created = await self.call(
                tenants, "create_match", game, [f"p{s}" for s in range(players)], match_id=match_id
            )
            by_seat = {s.seat: s.token for s in created.seats}
            seats = [[c.for_token(by_seat[s]) for c in tenants] for s in range(players)]
            if self.report.cluster:
                spectating = asyncio.create_task(self._spectate(ledger))
                self._spectators.append(spectating)
            bots = [make_bot("random", game, self.rng.randrange(2**32)) for _ in range(players)]
            commands = 0
            while not self._stop.is_set():
                public = await self.call(seats[0], "get_view", match_id)
                if public.finished:
                    ledger.finished = True
                    break
                if not public.active_seats:
                    await asyncio.sleep(0.01)
                    continue
                seat = self.rng.choice(list(public.active_seats))
                view = await self.call(seats[seat], "get_view", match_id)
                if view.finished or not view.legal_actions:
                    continue  # the table moved on between the two reads
                choice = bots[seat].choose(view.view, view.legal_actions, seat)
                action = (
                    view.raw_legal_actions[choice] if view.raw_legal_actions else view.legal_actions[choice]
                )
                command_id = f"{seat}.{commands}"
                commands += 1
                try:
                    accepted = await self.call(seats[seat], "submit", match_id, action, command_id=command_id)
                except Rejected as rejection:
                    # A listed legal action can be refused only if the match moved on meanwhile.
                    self.errors[f"rejection:{rejection.code}"] += 1
                    self.report.unexpected_rejections += 1
                    continue
                self.report.actions_accepted += 1
                self.report.actions_repeated += int(accepted.repeated)
                if accepted.receipt is not None:
                    ledger.heads[accepted.receipt.version] = accepted.receipt.head_hash
                now = time.monotonic()
                for event in accepted.events:
                    ledger.acked_at.setdefault(event.version, now)
                versions = ledger.commands.setdefault(command_id, [])
                for event in accepted.events:
                    if event.actor == seat:
                        ledger.acked[event.version] = (command_id, event.type)
                        if event.version not in versions:
                            versions.append(event.version)
        except GaveUp:
            ledger.abandoned = True
        except Exception as error:  # anything else is a finding: count it, keep soaking
            ledger.abandoned = True
            self.errors[f"crash:{type(error).__name__}"] += 1
            self.report.mismatches.append(f"{match_id}: {type(error).__name__}: {error}")

    async def _spectators_catch_up(self, timeout_s: float = 20.0) -> None:
        """After the play: give each spectator time to receive what was acknowledged last."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if all(set(ledger.acked_at) <= set(ledger.seen_at) for ledger in self.ledgers):
                return
            await asyncio.sleep(0.1)

    async def _spectate(self, ledger: MatchLedger) -> None:
        """Follow the match on the last replica (the bots play through any), noting when each
        version arrives; resumes from the last version after a fault, as the library does."""
        from guildhall_client.errors import GatewayError

        token, _ = await self.call(self._clients, "issue_token", ledger.match_id)
        watcher = self._clients[-1].for_token(token)
        while not self._stop.is_set():
            try:
                async for update in watcher.watch(ledger.match_id, max(ledger.seen_at, default=0)):
                    now = time.monotonic()
                    for event in update.events:
                        ledger.seen_at.setdefault(event.version, now)
                    if update.view.finished:
                        return
            except GatewayError:
                await asyncio.sleep(0.2)

    # -- faults --------------------------------------------------------------------------------

    async def inject_faults(self) -> None:
        if self.fault_schedule:
            for delay_s, kind in self.fault_schedule:
                await asyncio.sleep(delay_s)
                await self.hurt(kind)
            return
        if self.fault_interval_s <= 0:
            return
        kinds = ["redis_restart", "gateway_kill", "rules_restart"]
        if self.stack.cluster is not None:
            kinds = ["primary_kill", "primary_stall", "gateway_kill", "rules_restart"]
        if self.fault_kinds:
            kinds = [kind for kind in kinds if kind in self.fault_kinds]
        while not self._stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.fault_interval_s * (0.5 + self.rng.random()))
            if self._stop.is_set():
                return
            await self.hurt(self.rng.choice(kinds))

    async def hurt(self, kind: str) -> None:
        """One fault of `kind`, counted."""
        if kind in ("primary_kill", "primary_stall"):
            await self.hurt_primary(kind)
        elif kind == "redis_restart":
            assert self.stack.redis is not None  # a single Redis of the stack's own
            await asyncio.to_thread(self.stack.redis.restart)
        elif kind == "gateway_kill":
            gateway = self.rng.choice(self.stack.gateways)
            await asyncio.to_thread(gateway.kill)
            await asyncio.sleep(self.rng.uniform(*GATEWAY_DOWN_S))
            await asyncio.to_thread(gateway.start)
        else:
            rules = self.rng.choice([*self.stack.rules.values(), *self.stack.more_rules])
            await asyncio.to_thread(rules.restart)
        self.faults[kind] += 1

    async def hurt_primary(self, kind: str) -> None:
        """SIGKILL (then restart) or SIGSTOP (then SIGCONT) the primary serving a match in play,
        once the cluster is whole again (every primary with a replica in sync)."""
        cluster = self.stack.cluster
        assert cluster is not None
        await asyncio.to_thread(cluster.wait_healthy, 120.0)  # every primary with a replica again
        playing = [ledger for ledger in self.ledgers if not ledger.finished and not ledger.abandoned]
        if not playing:
            return
        events_key = match_keys(MatchKey(TENANT, self.rng.choice(playing).match_id)).events
        node = await asyncio.to_thread(cluster.owner_of, events_key)
        if kind == "primary_kill":
            await asyncio.to_thread(node.server.kill)
            await asyncio.sleep(self.rng.uniform(*PRIMARY_DOWN_S))
            await asyncio.to_thread(node.server.start)
        else:
            node.server.pause()
            await asyncio.sleep(PRIMARY_STALL_S)
            # On a loaded machine the promotion can come later: stall on until it does (bounded).
            deadline = time.monotonic() + STALL_EXTRA_S
            owner = await self._owner_or(node, cluster, events_key)
            while owner is node and time.monotonic() < deadline:
                await asyncio.sleep(0.25)
                owner = await self._owner_or(node, cluster, events_key)
            node.server.resume()
            if owner is not node:
                self.faults["primary_stall_failed_over"] += 1

    @staticmethod
    async def _owner_or(node: Any, cluster: Any, key: str) -> Any:
        """The node serving `key` now, as a live node sees it (`node` if none answers)."""
        try:
            return await asyncio.to_thread(cluster.owner_of, key)
        except Exception:  # noqa: BLE001
            return node

    # -- the run -------------------------------------------------------------------------------

    async def run(self) -> Report:
        from guildhall_client import AsyncClient

        key = self.stack.api_keys[TENANT]
        # One retry inside the library: fail-over between replicas is this harness's job.
        self._clients = [
            AsyncClient(t, api_key=key, retries=1, timeout_s=10.0) for t in self.stack.gateway_targets
        ]
        started = time.monotonic()
        try:
            games = await self.call(self._clients, "list_games")
            self.report.games = sorted(g.game for g in games)
            counts = {g.game: list(g.player_counts) for g in games}
            chaos = asyncio.create_task(self.inject_faults())
            ticker = asyncio.create_task(self._tick(started))
            switching = (
                asyncio.create_task(self.versions.run(self._stop, self.duration_s)) if self.versions else None
            )
            numbers = iter(range(10**9))

            async def worker() -> None:
                while not self._stop.is_set():
                    number = next(numbers)
                    if self.max_matches and number >= self.max_matches:
                        return
                    game = self.report.games[number % len(self.report.games)]
                    await self.play_match(number, game, self.rng.choice(counts[game]))

            workers = [asyncio.create_task(worker()) for _ in range(self.concurrency)]
            done_all = asyncio.gather(*workers)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(done_all), self.duration_s)
            if self.fault_schedule:
                await chaos  # every scheduled fault happens under play
            self._stop.set()
            await done_all
            await chaos
            if switching is not None and self.versions is not None:
                await switching
                self.report.version_steps = list(self.versions.steps)
            ticker.cancel()
            await self._spectators_catch_up()
            for spectating in self._spectators:
                spectating.cancel()
            await asyncio.gather(*self._spectators, return_exceptions=True)
            self.report.duration_s = time.monotonic() - started
            await self._bring_everything_back()
            await self.verify()
        finally:
            for client in self._clients:
                await client.close()
        self.report.errors = dict(self.errors)
        self.report.faults = dict(self.faults)
        return self.report

    async def _tick(self, started: float) -> None:
        while True:
            if self.progress is not None:
                self.report.errors = dict(self.errors)
                self.report.faults = dict(self.faults)
                self.progress(self.report, time.monotonic() - started)
            await asyncio.sleep(0.5)

    async def _bring_everything_back(self) -> None:
        """Verification reads from a whole system: restart whatever a fault left down."""
        nodes = [node.server for node in self.stack.cluster.nodes] if self.stack.cluster else []
        redis = [self.stack.redis] if self.stack.redis is not None else []
        for process in [*redis, *nodes, *self.stack.rules.values(), *self.stack.gateways]:
            process.resume()
            if not process.alive:
                await asyncio.to_thread(process.start)
        if self.stack.cluster is not None:
            await asyncio.to_thread(self.stack.cluster.wait_healthy, 120.0)

    async def verify(self) -> None:
        """Read every match back (auditor scope) and audit it; compare with the ledger."""
        self._delays: list[float] = []
        try:
            await self._verify_each()
        finally:
            if self._delays:
                self.report.watch_delay_ms = {
                    "p50": 1000 * percentile(self._delays, 0.5),
                    "p99": 1000 * percentile(self._delays, 0.99),
                    "max": 1000 * max(self._delays),
                }

    async def _verify_each(self) -> None:
        for ledger in self.ledgers:
            try:
                stored = await self._read_all(ledger.match_id)
                audit = await self.call(self._clients, "audit", ledger.match_id)
            except Exception as error:
                self.report.audits_failed.append(f"{ledger.match_id}: not readable: {error}")
                continue
            self.report.audited += 1
            if stored:
                begun = stored[0].rules_version
                self.report.matches_per_version[begun] = self.report.matches_per_version.get(begun, 0) + 1
            if not audit.ok:
                self.report.audits_failed.append(
                    f"{ledger.match_id}: audit failed at version {audit.first_bad_version}: {audit.reason}"
                )
            self._compare(ledger, stored)
            self._delays.extend(
                ledger.seen_at[v] - at for v, at in ledger.acked_at.items() if v in ledger.seen_at
            )
            self.report.events_stored += len(stored)
            self.report.events_acknowledged += len(ledger.acked)
            if ledger.finished:
                self.report.matches_completed += 1
                self.report.per_game_completed[ledger.game] = (
                    self.report.per_game_completed.get(ledger.game, 0) + 1
                )
            elif ledger.abandoned:
                self.report.matches_abandoned += 1
            else:
                self.report.matches_unfinished_at_end += 1

    async def _read_all(self, match_id: str) -> list[Any]:
        events: list[Any] = []
        while True:
            after = len(events)
            page = await self.call(self._clients, "read_events", match_id, after_version=after)
            events.extend(page)
            if len(page) < 1000:
                return events

    def _compare(self, ledger: MatchLedger, stored: list[Any]) -> None:
        by_version = {e.version: e for e in stored}
        for version, head in ledger.heads.items():
            event = by_version.get(version)
            if event is not None and event.hash != head:
                self.report.forked += 1
                self.report.mismatches.append(
                    f"{ledger.match_id}: acknowledged receipt v{version} names head {head[:12]}, "
                    f"the stream holds {event.hash[:12]} (forked)"
                )
        if [e.version for e in stored] != list(range(1, len(stored) + 1)):
            self.report.mismatches.append(f"{ledger.match_id}: stored versions are not 1..{len(stored)}")
        for version, (command_id, event_type) in ledger.acked.items():
            event = by_version.get(version)
            if event is None or not event.command_id.endswith(command_id) or event.type != event_type:
                self.report.lost_acknowledged += 1
                self.report.mismatches.append(
                    f"{ledger.match_id}: acknowledged v{version} ({command_id}, {event_type}) is "
                    + ("missing" if event is None else f"({event.command_id}, {event.type}) in the store")
                )
        # A command's entries form one run of consecutive versions; two runs = applied twice.
        runs: dict[str, list[int]] = {}
        for event in stored:
            if event.command_id:
                runs.setdefault(event.command_id, []).append(event.version)
        for command_id, versions in runs.items():
            if versions != list(range(versions[0], versions[0] + len(versions))):
                self.report.duplicated += 1
                self.report.mismatches.append(
                    f"{ledger.match_id}: command {command_id} at versions {versions}"
                )


def _progress_printer(duration_s: float) -> tuple[Callable[[Report, float], None], Callable[[], None]]:
    """A rich progress bar on a terminal; a plain line every 10 s otherwise (CI logs)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    def line(report: Report) -> str:
        return (
            f"matches {report.matches_started} · actions {report.actions_accepted} · "
            f"faults {sum(report.faults.values())} · transient errors {sum(report.errors.values())}"
        )

    if not sys.stderr.isatty():
        last = [-10.0]

        def show_plain(report: Report, elapsed: float) -> None:
            if elapsed - last[0] >= 10.0:
                last[0] = elapsed
                print(f"soak {elapsed:5.0f}/{duration_s:.0f} s: {line(report)}", file=sys.stderr, flush=True)

        return show_plain, lambda: None

    progress = Progress(
        TextColumn("soak"),
        BarColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[line]}"),
        transient=False,
    )
    task = progress.add_task("soak", total=duration_s, line="")
    progress.start()

    def show(report: Report, elapsed: float) -> None:
        progress.update(task, completed=min(elapsed, duration_s), line=line(report))

    return show, progress.stop


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=300.0, help="seconds of play (default 300)")
    parser.add_argument("--concurrency", type=int, default=8, help="matches played at once (default 8)")
    parser.add_argument(
        "--fault-interval", type=float, default=8.0, help="mean seconds between faults; 0 = none (default 8)"
    )
    parser.add_argument(
        "--max-matches", type=int, default=0, help="stop after this many matches (0 = no limit)"
    )
    parser.add_argument(
        "--games", nargs="*", default=None, help="games to play (default: every registered game)"
    )
    parser.add_argument("--replicas", type=int, default=2, help="gateway replicas (default 2)")
    parser.add_argument(
        "--cluster", action="store_true", help="the store on a Redis Cluster, with primary kills and stalls"
    )
    parser.add_argument(
        "--faults",
        default="",
        help="only these fault kinds, comma-separated (redis_restart, gateway_kill, rules_restart; "
        "with --cluster: primary_kill, primary_stall)",
    )
    parser.add_argument(
        "--no-wait", action="store_true", help="with --cluster: REDIS_WAIT_REPLICAS=0 (shows the forks)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the bots and the fault schedule")
    parser.add_argument("--report-dir", default="var/soak", help="where report.json and report.md go")
    parser.add_argument(
        "--keep", action="store_true", help="keep the work dir (logs, AOF) even when the soak passes"
    )
    parser.add_argument(
        "--version-switch",
        action="store_true",
        help="version B of every game beside A, the current version switched under load (soak/versions.py)",
    )
    parser.add_argument(
        "--flood-seconds",
        type=float,
        default=15.0,
        help="afterwards, seconds of another tenant's latency alone and under a flood (0 = skip)",
    )
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)

    report_dir = Path(args.report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    # Logs and the AOF stay in <report-dir>/work after a FAIL, for the post-mortem.
    work_dir = report_dir / "work"
    shutil.rmtree(work_dir, ignore_errors=True)
    print(f"soak: starting the stack (seed {seed})", file=sys.stderr, flush=True)
    tenants = (
        TenantSpec(TENANT),
        TenantSpec("rival"),
        TenantSpec("flood", actions_per_second=FLOOD_QUOTA, reads_per_second=5 * FLOOD_QUOTA),
    )
    with Stack.for_faults(
        work_dir,
        games=args.games,
        gateways=args.replicas,
        tenants=tenants,
        cluster_primaries=3 if args.cluster else 0,
        wait_replicas=0 if args.no_wait else 1,
    ) as stack:
        show, stop_progress = _progress_printer(args.duration)
        versions = None
        if args.version_switch:
            versions = VersionSwitch(stack, stack.games, work_dir)
            print("soak: starting version B of every game beside A", file=sys.stderr, flush=True)
            versions.deploy()
        soak = Soak(
            stack,
            duration_s=args.duration,
            concurrency=args.concurrency,
            fault_interval_s=args.fault_interval,
            seed=seed,
            max_matches=args.max_matches,
            progress=show,
            fault_kinds=[kind for kind in args.faults.split(",") if kind],
            versions=versions,
        )
        try:
            report = asyncio.run(soak.run())
        finally:
            stop_progress()
        if args.flood_seconds > 0:
            print(
                f"soak: measuring a tenant flood ({2 * args.flood_seconds:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
            figures = measure_flood(
                stack.gateway_targets[0],
                stack.api_keys["rival"],
                stack.gateway_targets[0],
                stack.api_keys["flood"],
                quota_per_s=FLOOD_QUOTA,
                seconds=args.flood_seconds,
            )
            report.flood = {
                **{k: float(v) for k, v in asdict(figures).items()},
                "p99_ratio": figures.p99_ratio,
                "flood_accepted_per_s": figures.flood_accepted_per_s,
            }
    markdown = report.markdown()
    (report_dir / "report.md").write_text(markdown + "\n")
    (report_dir / "report.json").write_text(
        json.dumps({**asdict(report), "ok": report.ok, "seed": seed}, indent=2)
    )
    print(markdown)
    print(f"\nreport: {report_dir / 'report.md'}", file=sys.stderr)
    if report.ok and not args.keep:
        shutil.rmtree(work_dir, ignore_errors=True)
    else:
        print(f"logs and AOF kept in {work_dir}", file=sys.stderr)
    return 0 if report.ok else 1
