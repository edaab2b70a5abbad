"""`guildhall admin rules ...`: rules versions side by side (issue 40) over AdminService.

    guildhall admin rules list [GAME]                          # versions, targets, current, pinned
    guildhall admin rules add-target GAME TARGET               # a version deployed beside the others
    guildhall admin rules check GAME VERSION [--sample N | --tenant T] [--golden DIR]
    guildhall admin rules current GAME VERSION [--ramp VERSION --percent P]
    guildhall admin rules move TENANT MATCH VERSION            # only if its history replays the same
    guildhall admin rules remove-target GAME TARGET            # retire a version (its bundle stays)
    guildhall admin rules reconcile                            # rebuild the pinned-match counts

docs/deploy.md "Upgrade a game's rules" walks through an upgrade and a rollback; docs/versions.md
has the design.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import grpc
import typer
from guildhall.admin.v1 import admin_pb2 as pb
from guildhall.admin.v1 import admin_pb2_grpc
from rich.console import Console

from guildhall_client import errors
from guildhall_client.cli_base import admin_call as _call

rules_app = typer.Typer(
    help="Rules versions side by side: list, register, check, switch, move, retire.", no_args_is_help=True
)
console = Console(highlight=False)
# The golden playthroughs of the release being checked, when run from its checkout.
GOLDEN = Path("tests/golden/data")


def _show(listing: pb.ListRulesResponse) -> None:
    for game in listing.games:
        default = " (default: the first target's)" if game.current_is_default else ""
        ramp = f", ramp {game.ramp_percent:g}% to {game.ramp_version}" if game.ramp_version else ""
        console.print(f"{game.game_id}: current {game.current_version or '-'}{default}{ramp}")
        for v in game.versions:
            marks = [
                m for m, on in (("current", v.current), (f"ramp {v.ramp_percent:g}%", v.ramp_percent)) if on
            ]
            state = "answering" if v.answering else "NOT ANSWERING"
            label = v.rules_version or "(never answered)"
            console.print(
                f"  {label}  {state}{'  ' + ', '.join(marks) if marks else ''}  "
                f"live matches {v.live_matches}  bundle {v.bundle or '-'}"
            )
            for t in v.targets:
                how = "registered" if t.registered else "RULES_" + game.game_id.upper()
                problem = f" ({t.problem})" if t.problem else ""
                console.print(f"    {t.target}  {how}  {'up' if t.answering else 'down'}{problem}")


Game = Annotated[str, typer.Argument(help="Game id, e.g. rattus_cartus")]
Version = Annotated[str, typer.Argument(help="A rules version, <edition>+<16 hex> (rules list shows them)")]
Target = Annotated[str, typer.Argument(help="The rules service's gRPC target: host:port, dns:///name:port")]


@rules_app.command("list")
def list_rules(
    ctx: typer.Context, game: Annotated[str, typer.Argument(help="Game id (default: all)")] = ""
) -> None:
    """Per game and version: targets answering, current and ramp, live matches pinned, bundle."""
    _show(_call(ctx, "ListRules", pb.ListRulesRequest(game_id=game)))


@rules_app.command("add-target")
def add_target(ctx: typer.Context, game: Game, target: Target) -> None:
    """Register a rules target (another version deployed beside the others); every replica within seconds."""
    _show(_call(ctx, "AddRulesTarget", pb.AddRulesTargetRequest(game_id=game, target=target)))


@rules_app.command("remove-target")
def remove_target(ctx: typer.Context, game: Game, target: Target) -> None:
    """Forget a registered target (retire its version once `list` shows no live match on it)."""
    _show(_call(ctx, "RemoveRulesTarget", pb.RemoveRulesTargetRequest(game_id=game, target=target)))


@rules_app.command("current")
def current(
    ctx: typer.Context,
    game: Game,
    version: Version,
    ramp: Annotated[str, typer.Option(help="A candidate version for a share of new matches")] = "",
    percent: Annotated[float, typer.Option(help="The share of new matches ramped, 0-100")] = 0.0,
) -> None:
    """The version new matches are created on (live matches stay on theirs); a ramp optional."""
    request = pb.SetCurrentRulesRequest(
        game_id=game, rules_version=version, ramp_version=ramp, ramp_percent=percent
    )
    _show(_call(ctx, "SetCurrentRules", request))


@rules_app.command("move")
def move(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Argument(help="Tenant id")],
    match: Annotated[str, typer.Argument(help="Match id")],
    version: Version,
) -> None:
    """Move a live match to another deployed version: only if its whole history replays the same."""
    r = _call(ctx, "MoveMatch", pb.MoveMatchRequest(tenant_id=tenant, match_id=match, rules_version=version))
    typer.echo(
        f"{tenant}/{match} moved from {r.from_version} to {r.to_version} at version {r.moved_at_version}"
    )


@rules_app.command("reconcile")
def reconcile(ctx: typer.Context) -> None:
    """Rebuild the live-match counts per version from the tenants' active matches."""
    _show(_call(ctx, "ReconcilePinnedMatches", pb.ReconcilePinnedMatchesRequest()))


def golden_playthroughs(directory: Path, game: str) -> list[pb.GoldenPlaythrough]:
    folder = directory / game
    return [pb.GoldenPlaythrough(name=p.name, text=p.read_text()) for p in sorted(folder.glob("*.txt"))]


@rules_app.command("check")
def check(
    ctx: typer.Context,
    game: Game,
    version: Version,
    sample: Annotated[int, typer.Option(help="The newest N stored matches (default 100)")] = 0,
    tenant: Annotated[str, typer.Option(help="Instead: every match of this tenant")] = "",
    golden: Annotated[
        Path | None, typer.Option(help=f"Golden playthroughs (<dir>/<game>/*.txt; default {GOLDEN} if there)")
    ] = None,
) -> None:
    """Replay stored matches and golden playthroughs under VERSION: list those that would diverge.
    Exit 0 if none does, 1 otherwise."""
    from guildhall_client.cli_base import _client, _run

    folder = golden if golden is not None else (GOLDEN if GOLDEN.is_dir() else None)
    traces = golden_playthroughs(folder, game) if folder is not None else []
    request = pb.CheckRulesRequest(
        game_id=game, rules_version=version, sample=sample, tenant_id=tenant, golden=traces
    )

    async def go() -> int:
        async with _client(ctx.obj) as client:
            stub = admin_pb2_grpc.AdminServiceStub(client.channel)
            diverging = 0
            try:
                async for progress in stub.CheckRules(request, metadata=client._metadata()):
                    if progress.done:
                        console.print(
                            f"{progress.checked} checked under {version}: {progress.diverging} would diverge"
                        )
                        return int(progress.diverging)
                    m, diverging = progress.match, progress.diverging
                    at = f"[{progress.checked}/{progress.total}] {m.name}"
                    if m.diverges:
                        played = m.recorded_version or "golden"
                        console.print(f"{at} ({played}) DIVERGES at {m.first_divergent_version}: {m.reason}")
                    else:
                        console.print(f"{at} same")
            except grpc.aio.AioRpcError as error:
                raise errors.from_rpc_error(error) from None
            return diverging

    raise typer.Exit(0 if _run(go()) == 0 else 1)
