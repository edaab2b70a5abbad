"""`make soak VERSION_SWITCH=1`: rules versions switched under load (issue 40).

Before the play, version B of every game is started beside A: another build of the rules (a copy
of `services/` whose rules modules differ by their docstring, so a new version by digest that
plays as A does). While the bots play and the faults go on, the operator's steps run through the
admin API on either replica, as docs/deploy.md "Upgrade a game's rules" shows them: B registered
and made current (live matches stay on A), a rollback to A with half the new matches ramped to
B, then B current again. Every match is audited at the end as always: none may fail, and no
action may be refused beyond what the soak already counts (the report's verdict).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
from guildhall.admin.v1 import admin_pb2 as pb
from guildhall.admin.v1 import admin_pb2_grpc

from devstack.processes import RulesProcess
from devstack.stack import Stack
from devstack.versions import variant_tree
from gateway.rules_client import RulesClient

# (fraction of the play, step): when each operator step runs.
STEPS = ((0.25, "switch"), (0.5, "rollback"), (0.75, "switch"))
GIVE_UP_S = 60.0


class VersionSwitch:
    """Version B of each game beside A, and the operator's switches between them during play."""

    def __init__(self, stack: Stack, games: Sequence[str], work_dir: Path) -> None:
        self.stack = stack
        self.games = list(games)
        self.work_dir = work_dir
        self.b: dict[str, RulesProcess] = {}
        self.versions: dict[str, tuple[str, str]] = {}  # game -> (A, B)
        self.steps: list[str] = []

    def deploy(self) -> None:
        """Start B of every game (not known to the gateways until `switch` registers it)."""
        edits = {f"services/{game}/rules.py": [('"""', '"""Version B (the soak). ')] for game in self.games}
        tree = variant_tree(self.work_dir / "version-b", edits)
        for game in self.games:
            self.b[game] = self.stack.add_rules(game, source=tree, env={"GRACE_SECONDS": "1"})
            self.versions[game] = (
                _version(game, self.stack.rules[game].target),
                _version(game, self.b[game].target),
            )

    async def run(self, stopping: asyncio.Event, duration_s: float) -> None:
        started = time.monotonic()
        for fraction, step in STEPS:
            wait = started + fraction * duration_s - time.monotonic()
            try:
                await asyncio.wait_for(stopping.wait(), max(wait, 0.0))
                return
            except TimeoutError:
                pass
            for game in self.games:
                a, b = self.versions[game]
                if step == "switch":
                    if b not in await self._listed(game):
                        await self._admin(
                            "AddRulesTarget",
                            pb.AddRulesTargetRequest(game_id=game, target=self.b[game].target),
                        )
                    await self._admin(
                        "SetCurrentRules", pb.SetCurrentRulesRequest(game_id=game, rules_version=b)
                    )
                else:
                    request = pb.SetCurrentRulesRequest(
                        game_id=game, rules_version=a, ramp_version=b, ramp_percent=50
                    )
                    await self._admin("SetCurrentRules", request)
            self.steps.append(f"{step} at {time.monotonic() - started:.0f} s")

    async def _listed(self, game: str) -> set[str]:
        listing = await self._admin("ListRules", pb.ListRulesRequest(game_id=game))
        return {v.rules_version for g in listing.games for v in g.versions if v.answering}

    async def _admin(self, rpc: str, request: Any) -> Any:
        """One admin call on either replica (one may be down: a fault), retried while unavailable
        (a replica, or the version's rules service, restarting)."""
        deadline = time.monotonic() + GIVE_UP_S
        attempt = 0
        while True:
            target = self.stack.admin_targets[attempt % len(self.stack.admin_targets)]
            attempt += 1
            async with grpc.aio.insecure_channel(target) as channel:
                stub = admin_pb2_grpc.AdminServiceStub(channel)
                try:
                    return await getattr(stub, rpc)(
                        request, metadata=(("authorization", f"Bearer {self.stack.admin_key}"),), timeout=10
                    )
                except grpc.aio.AioRpcError as error:
                    # A version whose rules service a fault is restarting is refused as not
                    # answering (rightly): the operator waits for it, as for a replica that is down.
                    restarting = error.code() == grpc.StatusCode.FAILED_PRECONDITION and "do not answer" in (
                        error.details() or ""
                    )
                    if not restarting and error.code() not in (
                        grpc.StatusCode.UNAVAILABLE,
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                    ):
                        raise
                    if time.monotonic() > deadline:
                        raise
            await asyncio.sleep(0.5)


def _version(game: str, target: str) -> str:
    client = RulesClient(game, target)
    try:
        return client.describe().rules_version
    finally:
        client.close()
