"""Issue 40, end to end with real processes: rules versions side by side, every match on its own.

A gateway, Redis and version A of Rattus Cartus (this checkout); version B deployed beside it, a
real behaviour change (one line of scoring code, or the stand-in supply data replaced through
GAME_DATA) run as another process from its own build; the operator's commands through the
`guildhall admin rules` CLI as docs/deploy.md shows them. Matches finished and in progress on A;
B registered and checked; the current version switched to B at runtime; A's live matches finish
on A, new ones run on B; a rollback to A keeps B's matches on B; A retired; every match passes
the gateway's Audit and `guildhall verify` offline, with the bundles the gateway kept.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from guildhall.admin.v1 import admin_pb2, admin_pb2_grpc
from guildhall.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from typer.testing import CliRunner, Result

from devstack.stack import Stack, TenantSpec
from devstack.versions import variant_tree
from gateway.rules_client import RulesClient
from gateway.rules_directory import ramp_share
from guildhall_client import Client
from guildhall_client.cli import app
from guildhall_client.types import CreatedMatch, MatchView
from services.rattus_cartus import GAME as INSTALLED
from tests.gateway.conftest import private_database

GAME = "rattus_cartus"
ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "services" / "rattus_cartus" / "data" / "catalog.toml"
# Version B by code: every seat's victory-point tokens count one more at the end (the outcome of
# every finished match changes; nothing before the end does, so a live match can move to it).
SCORING = 'add("vp_tokens", [tokens * state.options.vp_token_value'
B_CODE = {"services/rattus_cartus/rules.py": [(SCORING, SCORING.replace("[tokens *", "[(tokens + 1) *"))]}
# B's pods stop while the gateway still holds its rules sessions open: no need to wait 10 s for them.
QUICK_STOP = {"GRACE_SECONDS": "1"}
# Version B by data: the real supply action of the Farm's first copy instead of the stand-in.
FARM_COPY_1 = "  [[buildings.copies]]  # copy 1\n  draw = 4\n"


@pytest.fixture
def stack(redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    monkeypatch.setenv("REDIS_URL", private_database(redis_url, 11))
    import redis

    redis.Redis.from_url(os.environ["REDIS_URL"]).flushdb()
    with Stack(
        [GAME], gateways=1, tenants=[TenantSpec("acme")], work_dir=tmp_path, log_dir=tmp_path / "logs"
    ) as s:
        yield s


class Operator:
    """The operator's commands (`guildhall admin rules ...`) and an auditor's (`guildhall ...`)."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack

    def run(self, *args: str, key: str = "", check: bool = True) -> Result:
        """`guildhall <args>` (in this process: the command line's own code, without the start-up
        of an interpreter per command)."""
        # `guildhall admin ...` talks to the gateway's admin listener (issue 43), the rest to its
        # public port.
        target = self.stack.admin_targets[0] if args[0] == "admin" else self.stack.gateway_targets[0]
        env = {"GUILDHALL_TARGET": target, "GUILDHALL_API_KEY": key or self.stack.admin_key}
        done = CliRunner().invoke(app, list(args), env=env)
        if check:
            assert done.exit_code == 0, f"guildhall {' '.join(args)}: {done.stdout}{done.stderr}"
        return done

    def rules(self, *args: str, check: bool = True) -> Result:
        return self.run("admin", "rules", *args, check=check)

    def listing(self) -> Any:
        with grpc.insecure_channel(self.stack.admin_targets[0]) as channel:
            stub = admin_pb2_grpc.AdminServiceStub(channel)
            meta = (("authorization", f"Bearer {self.stack.admin_key}"),)
            (game,) = stub.ListRules(admin_pb2.ListRulesRequest(game_id=GAME), metadata=meta).games
            return game


class Table:
    """One match, its seats each a client, played by its first legal action."""

    def __init__(self, gh: Client, match_id: str = "") -> None:
        self.gh = gh
        match_id = match_id or uuid.uuid4().hex
        self.created: CreatedMatch = gh.create_match(GAME, ["p0", "p1"], match_id=match_id)
        self.match_id = self.created.match_id
        self.seats = {s.seat: gh.for_token(s.token) for s in self.created.seats}
        self.taken_back = 0  # moves taken back (play with take_backs)

    def play(self, moves: int | None = None, *, take_backs: bool = False) -> MatchView:
        """`moves` actions (None: to the end); the public view after them. With `take_backs`,
        each move that may be taken back is taken back once and made again (issue 41)."""
        done = 0
        while True:
            public = self.seats[0].get_view(self.match_id)
            if public.finished or (moves is not None and done == moves):
                return public
            seat = public.active_seats[0]
            view = self.seats[seat].get_view(self.match_id)
            for attempt in range(2 if take_backs else 1):
                moved = self.seats[seat].submit(
                    self.match_id,
                    view.raw_legal_actions[0],
                    command_id=uuid.uuid4().hex[:16],
                    return_view=True,
                )
                if not take_backs or attempt or moved.view is None or not moved.view.undo_available:
                    break
                self.seats[seat].undo(self.match_id)
                self.taken_back += 1
            done += 1

    def reconnect(self, gh: Client) -> None:
        """The same seats through another client (after a gateway restart)."""
        self.gh = gh
        self.seats = {s.seat: gh.for_token(s.token) for s in self.created.seats}

    def versions(self) -> list[str]:
        """The rules version of every entry, in order."""
        return [e.rules_version for e in self.gh.read_events(self.match_id)]


def version_of(target: str) -> str:
    client = RulesClient(GAME, target)
    try:
        return client.describe().rules_version
    finally:
        client.close()


def retire(stack: Stack, configured: str) -> None:
    """Version A goes: its process stops, the gateway restarts with only B configured (as a
    Kubernetes rollout of the gateway's new RULES_<GAME> would)."""
    stack.stop_gateway(0)  # first: a rules service's stop waits for the gateway's open sessions
    stack.rules[GAME].stop()
    stack.gateways[0].extra_env[f"RULES_{GAME.upper()}"] = configured
    stack.start_gateway(0)


def real_data(path: Path) -> Path:
    """The catalog with the Farm's first copy's real supply action, no longer a stand-in."""
    shipped = SHIPPED.read_text()
    farm = shipped.index('id = "farm"')
    edited = shipped[farm:].replace(
        FARM_COPY_1, "  [[buildings.copies]]  # copy 1\n  draw = 1\n  look = 1\n", 1
    )
    path.write_text((shipped[:farm] + edited).replace("stand_in = true", "stand_in = false"))
    return path


def verify_offline(op: Operator, gh: Client, table: Table, out: Path, bundles: Path) -> str:
    """`guildhall export` then `guildhall verify --bundles`: what it printed (VERIFIED)."""
    path = out / f"{table.match_id}.ghx"
    path.write_bytes(gh.export_match(table.match_id).data)
    verified = op.run("verify", str(path), "--bundles", str(bundles), check=False)
    assert verified.exit_code == 0, verified.stdout + verified.stderr
    return verified.stdout


def test_every_match_finishes_and_verifies_on_its_own_rules_across_an_upgrade(
    stack: Stack, tmp_path: Path
) -> None:
    """A code change (B), then a data change (C: B's code with the real Farm data), each
    deployed beside the version before it; one stack, so the story stays quick."""
    op = Operator(stack)
    key = stack.api_keys["acme"]
    gh = Client(stack.gateway_targets[0], api_key=key)
    a = version_of(stack.rules[GAME].target)
    assert a == INSTALLED.rules_version
    exports, bundles = tmp_path / "exports", tmp_path / "archive" / "bundles" / GAME
    exports.mkdir()

    # On A: one match finished, one in progress.
    a_finished, a_live = Table(gh), Table(gh)
    assert a_finished.play().finished
    a_live.play(6)

    # B deployed beside A and registered at runtime; checked before it becomes current.
    b_process = stack.add_rules(GAME, source=variant_tree(tmp_path / "b", B_CODE), env=QUICK_STOP)
    b = version_of(b_process.target)
    assert b != a
    op.rules("add-target", GAME, b_process.target)
    listed = op.rules("list").stdout
    assert f"{b}  answering" in listed and f"{a}  answering  current" in listed
    check = op.rules("check", GAME, b, "--tenant", "acme", check=False)
    assert check.exit_code == 1, check.stdout  # the finished match ends otherwise under B
    assert f"acme/{a_finished.match_id} ({a}) DIVERGES" in check.stdout
    assert f"acme/{a_live.match_id} same" in check.stdout and "golden:2p-seed20121347.txt" in check.stdout

    # Switched at runtime: new matches on B, live ones stay on A.
    op.rules("current", GAME, b)
    assert gh.list_games()[0].rules_version == b
    b_match = Table(gh)
    b_match.play(4)
    assert b_match.seats[0].get_view(b_match.match_id).rules_version == b
    a_live.play(4)
    assert set(a_live.versions()) == {a}

    # A ramp first: half of the new matches to A again, chosen by match id ...
    op.rules("current", GAME, b, "--ramp", a, "--percent", "50")
    for number in range(6):
        ramped = Table(gh, f"ramp-{number}")
        expected = a if ramp_share(ramped.match_id) < 50 else b
        assert ramped.seats[0].get_view(ramped.match_id).rules_version == expected
        ramped.seats[0].resign(ramped.match_id)  # over at once: it weighs on no pinned count
    # ... then a rollback of the current version: B's matches stay on B, a new one goes to A ...
    op.rules("current", GAME, a)
    a_again = Table(gh)
    while not a_again.taken_back:  # played on A until a move was taken back (issue 41) ...
        assert not a_again.play(1, take_backs=True).finished
    b_match.play(4)
    assert set(b_match.versions()) == {b} and set(a_again.versions()) == {a}
    # ... and is moved to B: its history replays the same under B (only the end differs there),
    # take-backs included; more are taken back on B.
    op.rules("move", "acme", a_again.match_id, b)
    assert a_again.seats[0].get_view(a_again.match_id).rules_version == b
    before_move = a_again.taken_back
    assert a_again.play(take_backs=True).finished
    entries = gh.read_events(a_again.match_id)
    at = next(n for n, e in enumerate(entries) if e.type == "rules_version_moved")
    assert {e.rules_version for e in entries[:at]} == {a} and {e.rules_version for e in entries[at:]} == {b}
    undone = [n for n, e in enumerate(entries) if e.type == "action_undone"]
    assert before_move and a_again.taken_back > before_move and undone[0] < at < undone[-1], undone

    # The upgrade goes on: B current, A's live match finishes on A, its pinned count falls to 0.
    op.rules("current", GAME, b)
    assert a_live.play().finished
    versions = {v.rules_version: v for v in op.listing().versions}
    assert (versions[a].live_matches, versions[b].live_matches) == (0, 1)
    assert versions[a].bundle == "stored" and versions[b].bundle == "stored"
    op.rules("reconcile")  # rebuilt from the tenants' active matches: the same counts
    assert {v.rules_version: v.live_matches for v in op.listing().versions if v.live_matches} == {b: 1}

    # A retired: its matches are refused by name, never run on B; every audit still passes.
    retire(stack, b_process.target)
    gh.close()
    gh = Client(stack.gateway_targets[0], api_key=key)
    b_match.reconnect(gh)
    with pytest.raises(Exception) as refused:
        gh.for_token(a_finished.created.seats[0].token).get_view(a_finished.match_id)
    assert (
        "FAILED_PRECONDITION" in repr(refused.value)
        and a in str(refused.value)
        and GAME in str(refused.value)
    )
    for table in (a_finished, a_live, a_again):
        assert gh.audit(table.match_id).ok, table.match_id
    # Offline too, with B's bundle as an auditor fetches it (A is this installation's version).
    fetched = tmp_path / "fetched"
    op.run("get-bundle", GAME, b, "--out", str(fetched), key=key)
    for table in (a_finished, a_live, a_again):
        verify_offline(op, gh, table, exports, fetched)

    # The same for a data change: C is B's code with the real Farm data instead of the stand-in.
    c_process = stack.add_rules(
        GAME,
        source=variant_tree(tmp_path / "c", B_CODE),
        env={**QUICK_STOP, "GAME_DATA": str(real_data(tmp_path / "real.toml"))},
    )
    c = version_of(c_process.target)
    assert c not in (a, b)
    op.rules("add-target", GAME, c_process.target)
    # A match begun on the stand-in data cannot move: its state holds the old cards.
    moving = op.rules("move", "acme", b_match.match_id, c, check=False)
    assert moving.exit_code == 1 and "FAILED_PRECONDITION" in moving.stderr, moving.stderr
    op.rules("current", GAME, c)
    c_match = Table(gh)
    assert c_match.play().finished and set(c_match.versions()) == {c}
    with grpc.insecure_channel(stack.gateway_targets[0]) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        meta = (("authorization", f"Bearer {key}"),)
        current = stub.GetGameData(gateway_pb2.GetGameDataRequest(game_id=GAME), metadata=meta)
        old = stub.GetGameData(gateway_pb2.GetGameDataRequest(game_id=GAME, rules_version=b), metadata=meta)
    assert (current.version, old.version) == (c, b)
    assert b'"stand_in":false' in current.data and b'"stand_in":true' in old.data
    assert b_match.play().finished and set(b_match.versions()) == {b}

    # B retired too (its pods gone): its matches are audited from its bundle, offline as well.
    b_process.stop()
    for table in (b_match, c_match, a_again):
        assert gh.audit(table.match_id).ok, table.match_id
    for table, version in ((b_match, b), (c_match, c)):
        assert f"with bundle {GAME}-{version}.zip" in verify_offline(op, gh, table, exports, bundles)
    no_bundle = op.run("verify", str(exports / f"{c_match.match_id}.ghx"), check=False)
    assert no_bundle.exit_code == 1 and c in no_bundle.stdout  # it names the version it needs
    gh.close()
