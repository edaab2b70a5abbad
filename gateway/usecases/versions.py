"""Rules versions and matches (issue 40): moving a live match to another version, and checking a
candidate version against stored matches and golden playthroughs before it becomes current.

Decisions (question -> decision):
- When may a live match move? Only when its whole history, re-executed under the new version
  from its seed, gives every recorded event and ends in the very state (bytes and status) the
  match holds now; then `rules_version_moved` is appended (its own append, by the gateway) and
  the entries after it are recorded under the new version. The audit re-checks the move
  (gateway/domain/audit.py). Anything else refuses, naming the first version that diverges.
- Which version must the target be? A deployed one: the match plays on under it at once.
- The replay check reads matches as the store holds them, the seed too (server side only; a
  live match's seed never leaves the gateway). It lists, it changes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial

from gateway.domain.audit import Findings, RulesPort, match_created, replay_under
from gateway.domain.match import GATEWAY, JSON, RULES_VERSION_MOVED, RulesVersionMoved
from gateway.eventstore.async_redis import CONFLICT, DUPLICATE, OK
from gateway.eventstore.base import MatchKey, NewEvent, StoredEvent
from gateway.rules_client import AsyncRulesClient
from gateway.usecases.audit import AuditUseCases, RulesOverGrpc, decode_entries, load_record
from gateway.usecases.results import ContendedMatch, InvalidRequest, MatchNotFound
from services.kernel import Rejection

MOVE_RETRIES = 5
DEFAULT_SAMPLE = 100
MAX_SAMPLE = 10_000


class MoveRefused(Exception):
    """The match cannot move to that version (FAILED_PRECONDITION): `version` is the first that
    diverges under it (0: it is not about one version)."""

    def __init__(self, message: str, version: int = 0) -> None:
        super().__init__(message)
        self.version = version


@dataclass(frozen=True)
class Moved:
    from_version: str
    to_version: str
    at_version: int  # the rules_version_moved entry


@dataclass(frozen=True)
class Checked:
    """One stored match or golden playthrough replayed under a candidate version."""

    name: str
    recorded_version: str
    diverges: bool
    first_divergent_version: int = 0
    reason: str = ""


@dataclass(frozen=True)
class Golden:
    """A golden playthrough (tests/golden/data/<game>/*.txt): setup, then each step's seat,
    action and the events it must give."""

    name: str
    players: int
    seed: int
    options: bytes
    steps: tuple[tuple[int, bytes, tuple[bytes, ...]], ...]


_HEADER = re.compile(r"^# (\S+) .*players=(\d+) seed=(\d+)$")
_STEP = re.compile(r"^(\d+) seat (\d+): (.*)$")


def parse_golden(name: str, text: str, game: str) -> Golden:
    """A golden trace's setup and steps; InvalidRequest names what does not parse."""
    lines = text.splitlines()
    header = _HEADER.match(lines[0]) if lines else None
    if header is None or len(lines) < 2 or not lines[1].startswith("# options "):
        raise InvalidRequest(f"golden playthrough {name!r} does not start with its header and options")
    if header.group(1) != game:
        raise InvalidRequest(f"golden playthrough {name!r} is of {header.group(1)!r}, not {game!r}")
    steps: list[tuple[int, bytes, list[bytes]]] = []
    for number, line in enumerate(lines[2:], start=3):
        step = _STEP.match(line)
        if step is not None:
            steps.append((int(step.group(2)), step.group(3).encode(), []))
        elif line.startswith("      -> ") and steps:
            steps[-1][2].append(line[len("      -> ") :].encode())
        elif not line.startswith("outcome ") and line:
            raise InvalidRequest(f"golden playthrough {name!r} line {number} does not parse")
    return Golden(
        name,
        int(header.group(2)),
        int(header.group(3)),
        lines[1][len("# options ") :].encode(),
        tuple((seat, action, tuple(events)) for seat, action, events in steps),
    )


class VersionUseCases(AuditUseCases):
    """MoveMatch and the replay check of a candidate rules version."""

    async def move_match(self, key: MatchKey, to_version: str) -> Moved:
        """Move a live match to another deployed version, if its history replays the same under it."""
        for _ in range(MOVE_RETRIES):
            match = await self._load(key, fresh=True)
            if match.ended:
                raise MoveRefused("the match has ended: it stays on the version it ended under")
            if match.rules_version == to_version:
                raise InvalidRequest(f"the match already plays rules {to_version}")
            port = self._grpc_port(self.rules.client(match.game, to_version))
            events = await self._history(key)
            if len(events) != match.version:
                continue  # an append landed between the two reads
            created = match_created(events, Findings())
            if created is None:
                raise MoveRefused("the match's stream does not open with match_created", 1)
            trial, finding = await replay_under(events, created, match.seed, port, to_version)
            if finding is not None:
                raise MoveRefused(
                    f"re-executed under rules {to_version}, version {finding.version} differs: "
                    + finding.reason,
                    finding.version,
                )
            assert trial is not None
            status = trial.status
            same_status = (tuple(status.active_players), status.finished) == (
                tuple(match.status.active_players),
                match.status.finished,
            )
            if not same_status or port.state_bytes(trial.state) != bytes(match.state.state):
                raise MoveRefused(
                    f"re-executed under rules {to_version}, the match ends in another state than it holds",
                    match.version,
                )
            moved = RulesVersionMoved(match.rules_version, to_version)
            appended = await self._append(
                replace(match, rules_version=to_version),
                [NewEvent(RULES_VERSION_MOVED, JSON.encode(moved))],
                actor=GATEWAY,
                command_id=f"gw move {match.version} {to_version}",
                state=trial.state,
                status=status,
                meta={"rules_version": to_version},
                snapshot_now=True,
            )
            if appended.status == OK or appended.status == DUPLICATE:
                repin = partial(self.pinned.move, key, match.game, match.rules_version, to_version)
                await self.after_append(key, "pin", repin)
                return Moved(match.rules_version, to_version, match.version + 1)
            if appended.status != CONFLICT:
                break
        raise ContendedMatch(f"match {key.match_id!r} kept changing while it was being moved; retry")

    async def _history(self, key: MatchKey) -> list[StoredEvent]:
        record = await load_record(self, key)
        events, _ = decode_entries(record, Findings())
        return events

    def _grpc_port(self, client: AsyncRulesClient) -> RulesPort:
        return RulesOverGrpc(client)

    async def check_rules(
        self,
        game: str,
        version: str,
        *,
        tenants: Iterable[str],
        sample: int = 0,
        golden: Sequence[tuple[str, str]] = (),
    ) -> AsyncIterator[tuple[int, Checked]]:
        """Each stored match of `tenants` (the newest `sample`, or all of one tenant's) and each
        golden playthrough replayed under `version`: (how many there are, what it gave)."""
        traces = [parse_golden(name, text, game) for name, text in golden]
        sample = min(sample or DEFAULT_SAMPLE, MAX_SAMPLE)
        keys = await self._stored(game, list(tenants), sample)
        total = len(keys) + len(traces)
        async with self.replay_rules(game) as rules_of:
            port = await rules_of(version)
            for key in keys:
                yield total, await self._check_match(key, port, version)
            for trace in traces:
                yield total, await self._check_golden(trace, port, version)

    async def _stored(self, game: str, tenants: list[str], sample: int) -> list[MatchKey]:
        """The newest `sample` matches of the game among the tenants' (still in Redis)."""
        found: list[tuple[int, MatchKey]] = []
        for tenant in tenants:
            rows = await self.store.index_page(tenant, "+inf", "-inf", MAX_SAMPLE)
            keys = [MatchKey(tenant, match_id) for match_id, _ in rows]
            metas = await self.store.metas(keys, ["game"])
            found += [
                (created, key) for (_, created), key, (g,) in zip(rows, keys, metas, strict=True) if g == game
            ]
        found.sort(key=lambda pair: -pair[0])
        return [key for _, key in found[:sample]]

    async def _check_match(self, key: MatchKey, port: RulesPort, version: str) -> Checked:
        name = f"{key.tenant}/{key.match_id}"
        try:
            record = await load_record(self, key)
        except MatchNotFound:
            return Checked(name, "", True, 0, "the match is gone (archived or removed meanwhile)")
        events, _ = decode_entries(record, Findings())
        created = match_created(events, Findings())
        seed = bytes.fromhex(record.meta.get("seed", "")) if record.meta.get("seed") else b""
        if created is None or not seed:
            return Checked(name, "", True, 1, "no match_created or no seed to replay from")
        _, finding = await replay_under(events, created, seed, port, version)
        if finding is None:
            return Checked(name, created.rules_version, False)
        return Checked(name, created.rules_version, True, finding.version, finding.reason)

    async def _check_golden(self, trace: Golden, port: RulesPort, version: str) -> Checked:
        name = f"golden:{trace.name}"
        state, _ = await port.setup(trace.players, trace.seed.to_bytes(32, "big"), trace.options)
        if state.rules_version != version:
            return Checked(name, "", True, 0, f"the rules answering are {state.rules_version}")
        for number, (seat, action, events) in enumerate(trace.steps, start=1):
            decision = await port.decide(state, seat, action)
            if isinstance(decision, Rejection):
                return Checked(name, "", True, number, f"the action is refused: {decision.code}")
            given = tuple(bytes(e.json) for e in decision.events)
            if given != events:
                return Checked(
                    name, "", True, number, f"the action gives other events ({_first_diff(given, events)})"
                )
            state = decision.state
        return Checked(name, "", False)


def _first_diff(given: Sequence[bytes], recorded: Sequence[bytes]) -> str:
    for index in range(max(len(given), len(recorded))):
        now = given[index] if index < len(given) else b"(none)"
        then = recorded[index] if index < len(recorded) else b"(none)"
        if now != then:
            kind = json.loads(then).get("type", "?") if then != b"(none)" else "an extra event"
            return f"event {index + 1}, {kind}"
    return "?"
