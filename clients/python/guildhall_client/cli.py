"""`guildhall`: play, watch, list, replay and audit matches, run bots, manage keys.

Settings (every command): a flag, else the environment variable, else the config file
(`$GUILDHALL_CONFIG`, default ~/.config/guildhall/config.toml), else the default.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from guildhall_client import errors
from guildhall_client.aio import AsyncClient, Seat
from guildhall_client.bots import KINDS, make_bot
from guildhall_client.bots import data as bot_data
from guildhall_client.bots.runner import BotResult, chooser, fill_seats, queue_and_play
from guildhall_client.cli_base import _client, _run, err, needs_rules
from guildhall_client.config import ENV, ConfigError, Settings, resolve
from guildhall_client.names import Names
from guildhall_client.render import describe_action, event_line, plain_decision, render_outcome, render_view
from guildhall_client.types import Choice, Decision, MatchView, WatchUpdate
from guildhall_client.verify import verify_events

T = TypeVar("T")

app = typer.Typer(
    name="guildhall",
    help=__doc__,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
keys_app = typer.Typer(
    help="Tenant API keys (operators) and the gateway's receipt keys.", no_args_is_help=True
)
app.add_typer(keys_app, name="keys")

console = Console(highlight=False)


# -- settings ------------------------------------------------------------------------------------


@app.callback()
def main(
    ctx: typer.Context,
    target: Annotated[
        str | None,
        typer.Option(help=f"Gateway address host:port (env {ENV['target']}; default localhost:50051)"),
    ] = None,
    api_key: Annotated[
        str | None, typer.Option(help=f"Tenant API key, ghk_... (env {ENV['api_key']})")
    ] = None,
    token: Annotated[
        str | None, typer.Option(help=f"Seat or spectator token, ght1.... (env {ENV['token']})")
    ] = None,
    tls: Annotated[bool | None, typer.Option("--tls/--no-tls", help=f"Use TLS (env {ENV['tls']})")] = None,
    player_id: Annotated[
        str | None, typer.Option(help=f"Your player id for matchmaking (env {ENV['player_id']})")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option(help=f"Per-call timeout, seconds (env {ENV['timeout']})")
    ] = None,
    config: Annotated[
        str | None,
        typer.Option(
            help="Config file (TOML) (env GUILDHALL_CONFIG; default ~/.config/guildhall/config.toml)"
        ),
    ] = None,
) -> None:
    """Guildhall from a terminal. Settings: flag, else environment, else config file, else default."""
    flags = {
        "target": target,
        "api_key": api_key,
        "token": token,
        "tls": tls,
        "player_id": player_id,
        "timeout": timeout,
    }
    try:
        ctx.obj = resolve(flags, config)
    except ConfigError as error:
        err.print(f"[red]config:[/red] {error}")
        raise typer.Exit(2) from None


def _options(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError as error:
        raise typer.BadParameter(f"--options must be JSON: {error}") from None


async def _names(client: AsyncClient, game: str) -> Names:
    """The game's component names from its published data (GetGameData, fetched once per game
    and kept by version by the client); a game or gateway without data: ids stay ids."""
    try:
        held = await client.game_data(game)
    except errors.GuildhallError:
        return Names()
    return Names(held.data) if isinstance(held.data, dict) else Names()


def _seat_names(view: MatchView) -> dict[int, str]:
    """Every seat's name as chosen at the table ("" where none: the game's "Player N")."""
    return dict(enumerate(view.seat_names))


def _print_events(update: WatchUpdate, names: Names | None = None, show_all: bool = False) -> None:
    """The events as a log: described in words with the table's names, engine bookkeeping only
    with `show_all`."""
    for event in update.events:
        line = event_line(event, names, show_all=show_all, seat_names=_seat_names(update.view))
        if line is not None:
            console.print(f"  v{event.version:<5} {line}", markup=False)


# -- play ------------------------------------------------------------------------------------------


@app.command()
def play(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game id, e.g. rattus_cartus or ys")],
    seats: Annotated[int, typer.Option(help="Seats at the table (matchmaking)")] = 2,
    bots: Annotated[
        str,
        typer.Option(
            help="Bots to queue with you (they take the other seats): a count of --bot-kind bots, "
            "or their kinds, e.g. strong,greedy"
        ),
    ] = "0",
    bot_kind: Annotated[str, typer.Option(help=f"Kind of those bots: {', '.join(KINDS)}")] = "greedy",
    invite: Annotated[
        str | None, typer.Option(help="Join a private table with this invite code (--bots take other seats)")
    ] = None,
    match: Annotated[
        str | None, typer.Option(help="Play a match you hold a seat token for (--token)")
    ] = None,
    options: Annotated[str | None, typer.Option(help="Match options as JSON")] = None,
    auto: Annotated[
        str | None, typer.Option(help="Let a bot play your seat: random, greedy or strong")
    ] = None,
    wait: Annotated[float, typer.Option(help="Seconds to wait for a match before giving up")] = 120.0,
    show_all: Annotated[
        bool, typer.Option("--all", help="Show engine bookkeeping events in the log too")
    ] = False,
) -> None:
    """Queue (or join a table) and play a match: your view, then the game's question step by step
    (numbered menus), or your legal actions numbered when the game does not describe them."""
    settings: Settings = ctx.obj
    if bot_kind not in KINDS or (auto is not None and auto not in KINDS):
        raise typer.BadParameter(f"bot kinds are {', '.join(KINDS)}")
    kinds = bot_kinds(bots, bot_kind)
    if "strong" in (*kinds, auto):
        _strong_bots_installed()
    _run(_play(settings, game, seats, kinds, invite, match, _options(options), auto, wait, show_all))


def _strong_bots_installed() -> None:
    """The strong bot searches with the game's rules in process: without them, say what to install."""
    with needs_rules("strong bots"):
        import guildhall_client.bots.strong  # noqa: F401


def bot_kinds(bots: str, default_kind: str) -> list[str]:
    """`--bots`: a count of `default_kind` bots ("2") or one kind per bot ("strong,greedy")."""
    text = bots.strip()
    if text.isdigit():
        return [default_kind] * int(text)
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise typer.BadParameter(
            f"--bots is a count or a list of bot kinds ({', '.join(KINDS)}), not {bots!r}"
        )
    return kinds


async def _play(
    settings: Settings,
    game: str,
    seats: int,
    bots: list[str],
    invite: str | None,
    match: str | None,
    options: Any,
    auto: str | None,
    wait: float,
    show_all: bool = False,
) -> None:
    player = settings.player_id or "cli-player"
    bot_tasks: list[asyncio.Task[BotResult]] = []
    seat: Seat | None = None
    if match and not settings.token:
        raise typer.BadParameter("--match needs a seat token (--token or GUILDHALL_TOKEN)")
    client = _client(settings) if match else _client(settings, token="")
    try:
        if match:
            seat = Seat(client, match)
        elif invite:
            seat = await client.claim_seat(invite, player)
            console.print(f"Claimed seat {seat.number} of match {seat.match_id}")
            for kind in sorted(set(bots)):
                bot_tasks += await fill_seats(client, game, seats, bots.count(kind), kind, invite=invite)
        else:
            for kind in sorted(set(bots)):
                bot_tasks += await fill_seats(client, game, seats, bots.count(kind), kind, options=options)
            console.print(
                f"Queued for {game} ({seats} seats) as {player}; bots queued too: {', '.join(bots) or 'none'}"
            )
            seat = await client.enqueue_and_wait(
                game, seats=seats, player_id=player, options=options, timeout_s=wait
            )
        final = await _play_seat(seat, game, auto, show_all)
        console.print(render_outcome(final.outcome))
        you = final.seat
        console.print(
            f"Match {final.match_id} over at version {final.version}: "
            + ("you won." if you is not None and you in final.winners else "you did not win.")
        )
        for task in bot_tasks:
            await task
    except TimeoutError:
        err.print(f"no match within {wait:.0f} s; the ticket was withdrawn")
        raise typer.Exit(1) from None
    finally:
        for task in bot_tasks:
            task.cancel()
        if seat is not None and seat.client is not client:
            await seat.client.close()
        await client.close()


async def _play_seat(seat: Seat, game: str, auto: str | None, show_all: bool = False) -> MatchView:
    current = await seat.view()
    console.print(f"Match {seat.match_id}: you are seat {current.seat}.")
    names = await _names(seat.client, current.game or game)
    if auto:
        await bot_data.fetch(seat.client, game)
        bot = make_bot(auto, game)
        return await seat.play(chooser(bot), on_update=lambda update: _print_events(update, names, show_all))
    if current.finished:
        return current
    # One Play stream: the updates come down it and the actions go up it.
    async with seat.stream(current.version) as stream:
        async for update in stream.updates():
            _print_events(update, names, show_all)
            if update.view.version < current.version:
                continue
            current = update.view
            while current.my_turn and not current.finished:
                console.print(render_view(current.game, current.view, current.seat, names))
                choice = await _choose(current, names)
                if choice == "resign":
                    await seat.resign()
                    current = await seat.view()  # updates from before it are skipped as seen
                    break
                if choice == "undo":
                    try:
                        undone = await seat.undo(expected_version=current.version)
                        console.print(f"your last move is taken back (version {undone.version})")
                        current = await seat.view()  # updates from before it are skipped as seen
                        break
                    except errors.Rejected as rejection:
                        console.print(f"[yellow]not taken back[/yellow]: {rejection.message}")
                        current = await seat.view()
                        continue
                assert isinstance(choice, int)
                try:
                    # Another seat deciding at the same time (Ys bids, Rattus Cartus supplies)
                    # may land first: the stream sends the choice again for the new version
                    # while it is still legal (guildhall_client/stale.py).
                    accepted = await stream.submit(
                        current.legal_actions[choice], expected_version=current.version
                    )
                    console.print(f"accepted at version {accepted.version}")
                    break  # its update, with the next view, comes down the stream next
                except errors.Rejected as rejection:
                    console.print(f"[yellow]rejected[/yellow] {rejection.code}: {rejection.message}")
                    current = await seat.view()
            if current.finished:
                return current
            if current.seat is not None and not current.my_turn:
                console.print(f"waiting for seat(s) {', '.join(map(str, current.active_seats))} ...")
    return await seat.view()


async def _choose(current: MatchView, names: Names | None) -> int | str:
    """The index of the legal action to take, 'resign' or 'undo' (offered while your last move
    may be taken back): by the game's decision, a numbered menu per step, when the gateway sent
    one; else the legal actions numbered."""
    decision = current.decision
    if decision is not None and decision.options and not plain_decision(decision):
        return await _decide(decision, names, _seat_names(current), undo=current.undo_available)
    for i, action in enumerate(current.legal_actions, 1):
        console.print(f"  {i:>3}. {describe_action(action, names)}", markup=False)
    return await _ask(len(current.legal_actions), undo=current.undo_available)


async def _decide(
    decision: Decision,
    names: Names | None = None,
    seats: dict[int, str] | None = None,
    *,
    undo: bool = False,
) -> int | str:
    """Walk a decision's steps (Ys: which broker, then where): a numbered menu of the next step's
    choices among the options that share the choices so far; a step with one choice is taken
    without asking; 'b' steps back. The legal action's index once one option is left. Players
    are named as chosen at the table (`seats`)."""
    stands_for = names.stands_for if names else None
    console.print(
        decision.prompt_text(seats, stands_for)
        + (" (the others decide at the same time)" if decision.simultaneous else ""),
        markup=False,
    )
    chosen: tuple[Choice, ...] = ()
    while True:
        option = decision.option(chosen)
        choices = decision.next_choices(chosen)
        if option is not None and not choices:
            return option.action
        if len(choices) == 1:
            chosen += (choices[0],)
            console.print(
                f"  {choices[0].step_text(seats, stands_for)} {_label(choices[0], names, seats)}",
                markup=False,
            )
            continue
        steps = {c.step for c in choices}
        console.print(choices[0].step_text(seats, stands_for) if len(steps) == 1 else "Choose:", markup=False)
        for i, c in enumerate(choices, 1):
            prefix = "" if len(steps) == 1 else f"{c.step_text(seats, stands_for)} "
            console.print(f"  {i:>3}. {prefix}{_label(c, names, seats)}", markup=False)
        answer = await _ask(len(choices), back=bool(chosen), undo=undo and not chosen)
        if answer in ("resign", "undo"):
            return answer
        if answer == "back":
            chosen = chosen[:-1]
            while chosen and len(decision.next_choices(chosen[:-1])) == 1:
                chosen = chosen[:-1]  # past the steps taken without asking too
            continue
        assert isinstance(answer, int)
        chosen += (choices[answer],)


def _label(choice: Choice, names: Names | None, seats: dict[int, str] | None = None) -> str:
    """A choice's label with the table's names; one that names nothing by kind gets ids named
    from the game data."""
    if choice.kind or names is None:
        return choice.label_text(seats, names.stands_for if names else None)
    return names.text(choice.label_text(seats))


async def _ask(count: int, *, back: bool = False, undo: bool = False) -> int | str:
    """The number of a menu line (1-based on screen), 'resign', 'back' (when `back`) or 'undo'
    (when `undo`: your last move may be taken back)."""
    extra = (", b = back" if back else "") + (", u = undo your last move" if undo else "")
    while True:
        answer = (
            (await asyncio.to_thread(_read_line, f"Your choice [1-{count}{extra}, r = resign]: "))
            .strip()
            .lower()
        )
        if answer in ("r", "resign"):
            return "resign"
        if back and answer in ("b", "back"):
            return "back"
        if undo and answer in ("u", "undo"):
            return "undo"
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer) - 1
        console.print(f"Type a number from 1 to {count}.")


def _read_line(prompt: str) -> str:
    console.print(prompt, end="")
    line = sys.stdin.readline()
    if not line:
        raise KeyboardInterrupt  # end of input: stop rather than spin
    return line


@app.command()
def table(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game id")],
    seats: Annotated[int, typer.Option(help="Seats at the table")] = 2,
    options: Annotated[str | None, typer.Option(help="Match options as JSON")] = None,
) -> None:
    """Open a private table (tenant key): prints the invite code players join with `play --invite`."""

    async def create() -> Any:
        async with _client(ctx.obj, token="") as client:
            return await client.create_table(game, seats, options=_options(options))

    created = _run(create())
    typer.echo(f"match: {created.match_id}")
    typer.echo(f"invite code: {created.invite_code}")
    typer.echo(f"spectator token: {created.spectator_token}")


# -- watch, matches, replay, audit -------------------------------------------------------------------


@app.command()
def watch(
    ctx: typer.Context,
    match: Annotated[str, typer.Argument(help="Match id")],
    from_version: Annotated[int, typer.Option(help="Start after this version (0: from the start)")] = 0,
    view: Annotated[bool, typer.Option("--view/--no-view", help="Render the view after each update")] = False,
    follow: Annotated[
        bool, typer.Option("--follow/--no-follow", help="Keep watching until the match ends")
    ] = True,
    show_all: Annotated[
        bool, typer.Option("--all", help="Show engine bookkeeping events in the log too")
    ] = False,
) -> None:
    """Stream a match's events (as your credential may see them) until it ends; resumes after a drop."""
    _run(_watch(ctx.obj, match, from_version, view, follow, show_all))


async def _watch(
    settings: Settings, match: str, from_version: int, show_view: bool, follow: bool, show_all: bool = False
) -> None:
    async with _client(settings) as client:
        target = None if follow else (await client.get_view(match)).version
        last: MatchView | None = None
        names: Names | None = None
        async for update in client.watch(match, from_version):
            if names is None:
                names = await _names(client, update.view.game)
            _print_events(update, names, show_all)
            last = update.view
            if show_view:
                console.print(render_view(last.game, last.view, last.seat, names))
            if target is not None and last.version >= target:
                break
        if last is not None:
            console.print(f"version {last.version}, {'finished' if last.finished else 'in play'}")
            if last.finished:
                console.print(render_outcome(last.outcome))


@app.command()
def matches(
    ctx: typer.Context,
    game: Annotated[str, typer.Option(help="Only this game")] = "",
    finished: Annotated[
        bool | None, typer.Option("--finished/--in-play", help="Only finished / unfinished")
    ] = None,
    limit: Annotated[int, typer.Option(help="At most this many")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table")] = False,
) -> None:
    """List your tenant's matches, newest first."""
    _run(_matches(ctx.obj, game, finished, limit, as_json))


async def _matches(settings: Settings, game: str, finished: bool | None, limit: int, as_json: bool) -> None:
    async with _client(settings) as client:
        page = await client.list_matches(game=game, finished=finished, limit=limit)
    if as_json:
        for m in page.matches:
            typer.echo(json.dumps(m.__dict__ | {"players": list(m.players)}))
        return
    table = Table(title=f"{len(page.matches)} match(es)")
    for col in ("match", "game", "players", "version", "state", "created (UTC)"):
        table.add_column(col)
    for m in page.matches:
        created = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(m.created_ms / 1000))
        table.add_row(
            m.match_id,
            m.game,
            ", ".join(m.players),
            str(m.version),
            "finished" if m.finished else "in play",
            created,
        )
    console.print(table)


@app.command()
def replay(
    ctx: typer.Context,
    match: Annotated[str, typer.Argument(help="Match id")],
    version: Annotated[int | None, typer.Option(help="Show the view at this version and exit")] = None,
    start: Annotated[int, typer.Option(help="Version to start stepping from")] = 1,
) -> None:
    """Step through a stored match (Enter/n next, b back, a number jumps, q quits), or show one version."""
    _run(_replay(ctx.obj, match, version, start))


async def _replay(settings: Settings, match: str, version: int | None, start: int) -> None:
    async with _client(settings) as client:
        now = await client.get_view(match)
        latest = now.version
        names = await _names(client, now.game)
        if version is not None:
            shown = await client.replay(match, version)
            console.print(f"{match} at version {shown.version} of {latest}")
            console.print(render_view(shown.game, shown.view, shown.seat, names))
            return
        v = max(1, min(start, latest))
        while True:
            shown = await client.replay(match, v)
            console.print(f"[bold]{match} at version {v} of {latest}[/bold]")
            console.print(render_view(shown.game, shown.view, shown.seat, names))
            if shown.finished:
                console.print(render_outcome(shown.outcome))
            answer = (
                await asyncio.to_thread(_read_line, "[Enter/n] next, b back, <number> jump, q quit: ")
            ).strip()
            if answer in ("q", "quit"):
                return
            if answer == "b":
                v = max(1, v - 1)
            elif answer.isdigit():
                v = max(1, min(int(answer), latest))
            elif v < latest:
                v += 1
            else:
                console.print("that was the last version")
                return


@app.command()
def audit(
    ctx: typer.Context,
    match: Annotated[str, typer.Argument(help="Match id")],
) -> None:
    """The gateway's audit (re-execution, chain, receipts, seed, snapshots) plus a local check of
    every receipt and the seed commitment with the published keys. Exit code 1 if anything fails."""
    ok = _run(_audit(ctx.obj, match))
    raise typer.Exit(0 if ok else 1)


async def _audit(settings: Settings, match: str) -> bool:
    async with _client(settings) as client:
        report = await client.audit(match)
        events = await client.events(match)
        keys = await client.public_keys()
    local = verify_events(events, keys, match_id=match)
    table = Table(title=f"Audit of {match}")
    table.add_column("check")
    table.add_column("result")
    table.add_row(
        "gateway audit",
        "[green]ok[/green]" if report.ok else f"[red]FAILED[/red] at version {report.first_bad_version}",
    )
    table.add_row("versions re-executed", str(report.checked_versions))
    if not report.ok:
        table.add_row("first bad version", str(report.first_bad_version))
        table.add_row("evidence", report.evidence)
        table.add_row("reason", report.reason)
    bad = ", ".join(map(str, local.bad_receipts))
    table.add_row(
        "receipts verified here",
        f"{local.receipts_checked - len(local.bad_receipts)}/{local.receipts_checked}"
        + (f" [red](bad: {bad})[/red]" if bad else ""),
    )
    seed = (
        "not revealed yet"
        if local.seed_ok is None
        else (
            "[green]matches its commitment[/green]"
            if local.seed_ok
            else "[red]does NOT match its commitment[/red]"
        )
    )
    table.add_row("seed", seed)
    console.print(table)
    return report.ok and local.ok


# -- bots --------------------------------------------------------------------------------------------


@app.command(name="bots")
def run_bots(
    ctx: typer.Context,
    game: Annotated[str, typer.Option(help="Game id")],
    matches_: Annotated[int, typer.Option("--matches", help="Matches to play")] = 10,
    seats: Annotated[int, typer.Option(help="Seats per match")] = 2,
    kind: Annotated[
        str, typer.Option(help="random, greedy, strong, or mixed (half greedy, half random)")
    ] = "mixed",
    concurrency: Annotated[int, typer.Option(help="Matches in play at once")] = 4,
    options: Annotated[str | None, typer.Option(help="Match options as JSON")] = None,
) -> None:
    """Run bot matches through matchmaking, as load, with a progress bar and a summary."""
    if kind not in (*KINDS, "mixed"):
        raise typer.BadParameter("kind is random, greedy, strong or mixed")
    if kind == "strong":
        _strong_bots_installed()
    _run(_bots(ctx.obj, game, matches_, seats, kind, concurrency, _options(options)))


async def _bots(
    settings: Settings, game: str, count: int, seats: int, kind: str, concurrency: int, options: Any
) -> None:
    started = time.monotonic()
    results: list[BotResult] = []
    done: Counter[str] = Counter()
    async with _client(settings, token="") as client:
        gate = asyncio.Semaphore(max(1, concurrency) * seats)
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        ) as progress:
            bar = progress.add_task(f"{game}: matches", total=count)

            async def one(i: int) -> None:
                bot_kind = kind if kind != "mixed" else KINDS[i % 2]
                async with gate:
                    result = await queue_and_play(client, game, seats, bot_kind, options=options, seed=i)
                results.append(result)
                done[result.match_id] += 1
                if done[result.match_id] == result.players:
                    progress.advance(bar)

            await asyncio.gather(*(one(i) for i in range(count * seats)))
    seconds = time.monotonic() - started
    by_match: dict[str, list[BotResult]] = {}
    for r in results:
        by_match.setdefault(r.match_id, []).append(r)
    table = Table(title=f"{len(by_match)} {game} match(es) in {seconds:.1f} s")
    for col in ("match", "version", "winners (seat:kind)"):
        table.add_column(col)
    wins: Counter[str] = Counter()
    seats_of: Counter[str] = Counter()
    for match_id, rs in sorted(by_match.items()):
        winners = [f"{r.seat}:{r.kind}" for r in sorted(rs, key=lambda r: r.seat) if r.won]
        for r in rs:
            seats_of[r.kind] += 1
            wins[r.kind] += r.won
        table.add_row(match_id, str(rs[0].final.version), ", ".join(winners) or "nobody")
    console.print(table)
    for k in sorted(seats_of):
        console.print(f"{k}: won {wins[k]} of {seats_of[k]} seats played")
    versions = sum(rs[0].final.version for rs in by_match.values())
    console.print(f"{versions} versions written, {versions / max(seconds, 1e-9):,.0f} per second")


# -- keys --------------------------------------------------------------------------------------------


@keys_app.command("new")
def keys_new(
    key_id: Annotated[str, typer.Option("--id", help="The key's id (logs name it)")] = "k1",
    scopes: Annotated[str, typer.Option(help="Comma-separated: tenant, auditor")] = "tenant",
    tenant: Annotated[str | None, typer.Option(help="Also print a whole TENANTS_FILE tenant entry")] = None,
) -> None:
    """Make a new tenant API key: the key (give it to the tenant) and its hash for TENANTS_FILE."""
    with needs_rules("keys new"):
        from gateway.auth import hash_key, new_api_key

    wanted = [s.strip() for s in scopes.split(",") if s.strip()]
    if not wanted or not set(wanted) <= {"tenant", "auditor"}:
        raise typer.BadParameter("scopes are tenant and/or auditor")
    key = new_api_key()
    entry = {"id": key_id, "sha256": hash_key(key), "scopes": wanted}
    # Plain output, never wrapped: it is copied into a file.
    typer.echo(f"API key (shown once, stored nowhere): {key}")
    document: Any = {"tenants": {tenant: {"keys": [entry]}}} if tenant else entry
    typer.echo(json.dumps(document, indent=2))


@keys_app.command("list")
def keys_list(
    tenants_file: Annotated[
        Path, typer.Option(envvar="TENANTS_FILE", help="The gateway's TENANTS_FILE (env TENANTS_FILE)")
    ],
) -> None:
    """The tenants and key ids of a TENANTS_FILE, with scopes and quotas (hashes shortened)."""
    try:
        document = json.loads(tenants_file.read_text())
        tenants = document["tenants"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        err.print(f"[red]cannot read {tenants_file}[/red]: {error}")
        raise typer.Exit(1) from None
    table = Table(title=str(tenants_file))
    for col in ("tenant", "key id", "scopes", "sha256", "quotas"):
        table.add_column(col)
    for name, body in sorted(tenants.items()):
        quotas = ", ".join(f"{k} {v}" for k, v in (body.get("quotas") or {}).items())
        for key in body.get("keys", []):
            table.add_row(
                name,
                key.get("id", ""),
                ",".join(key.get("scopes", [])),
                key.get("sha256", "")[:12] + "...",
                quotas,
            )
    console.print(table)


@keys_app.command("public")
def keys_public(
    ctx: typer.Context,
    as_json: Annotated[
        bool, typer.Option("--json", help="JSON, the form `guildhall verify --keys` reads")
    ] = False,
) -> None:
    """The gateway's published receipt keys (Ed25519), by id: what receipts are verified against."""

    async def fetch() -> dict[str, bytes]:
        async with _client(ctx.obj) as client:
            return await client.public_keys()

    keys = _run(fetch())
    if as_json:
        document = {"keys": [{"key_id": k, "ed25519": raw.hex()} for k, raw in sorted(keys.items())]}
        typer.echo(json.dumps(document, indent=2))
        return
    table = Table(title="Receipt keys")
    table.add_column("key id")
    table.add_column("Ed25519 public key (hex)")
    for key_id, raw in sorted(keys.items()):
        table.add_row(key_id, raw.hex())
    console.print(table)


# -- webhooks, ratings (issue 23) --------------------------------------------------------------------

webhooks_app = typer.Typer(
    help="Tenants' webhook dead letters (an operators' key with the operator scope).", no_args_is_help=True
)
app.add_typer(webhooks_app, name="webhooks")


def _admin_app() -> typer.Typer:
    from guildhall_client.admin_cli import admin_app  # issue 34: the operator plane

    return admin_app


app.add_typer(_admin_app(), name="admin")


@webhooks_app.command("dead")
def webhooks_dead(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option(help="The tenant whose dead letters to list")],
    limit: Annotated[int, typer.Option(help="At most this many (newest first)")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line")] = False,
) -> None:
    """Webhook deliveries that ran out of retries: id, event, endpoint, attempts, last error."""

    async def fetch() -> list[Any]:
        async with _client(ctx.obj) as client:
            letters, cursor = await client.dead_letters(tenant, limit=min(limit, 200))
            while cursor and len(letters) < limit:
                more, cursor = await client.dead_letters(
                    tenant, limit=min(limit - len(letters), 200), cursor=cursor
                )
                letters += more
            return letters

    letters = _run(fetch())
    if as_json:
        for d in letters:
            row = {k: v for k, v in d.__dict__.items() if k != "body"}
            typer.echo(json.dumps({**row, "body": json.loads(d.body or b"null")}))
        return
    table = Table(title=f"Dead letters of {tenant}")
    for column in ("delivery id", "event", "type", "endpoint", "attempts", "failed", "last error"):
        table.add_column(column)
    for d in letters:
        failed = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(d.failed_ms / 1000))
        table.add_row(
            d.delivery_id, d.event_id, d.event_type, d.endpoint_id, str(d.attempts), failed, d.last_error
        )
    console.print(table)


@webhooks_app.command("replay")
def webhooks_replay(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option(help="The tenant whose dead letters to send again")],
    delivery_ids: Annotated[list[str] | None, typer.Argument(help="Delivery ids; none with --all")] = None,
    replay_all: Annotated[bool, typer.Option("--all", help="Every dead letter of the tenant")] = False,
) -> None:
    """Queue dead letters for delivery again, with a fresh retry budget."""
    if bool(delivery_ids) == replay_all:
        raise typer.BadParameter("name delivery ids, or give --all")

    async def replay() -> int:
        async with _client(ctx.obj) as client:
            return await client.replay_dead_letters(tenant, delivery_ids or ())

    typer.echo(f"{_run(replay())} queued again")


@app.command()
def leaderboard(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game id")],
    limit: Annotated[int, typer.Option(help="Players shown")] = 20,
) -> None:
    """Your tenant's leaderboard for a game (openskill ordinal: mu - 3 sigma)."""

    async def fetch() -> Any:
        async with _client(ctx.obj) as client:
            return await client.leaderboard(game, limit=min(limit, 200))

    page = _run(fetch())
    table = Table(title=f"{game} leaderboard")
    for column in ("#", "player", "ordinal", "mu", "sigma", "matches"):
        table.add_column(column)
    for r in page.ratings:
        table.add_row(
            str(r.rank), r.player_id, f"{r.ordinal:.2f}", f"{r.mu:.2f}", f"{r.sigma:.2f}", str(r.matches)
        )
    console.print(table)


# -- export and offline verification (issue 22) ------------------------------------------------------


@app.command()
def export(
    ctx: typer.Context,
    match: Annotated[str, typer.Argument(help="Match id")],
    up_to: Annotated[
        int | None, typer.Option(help="Export versions 1 to this one (it must end an append)")
    ] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here, not to stdout")] = None,
) -> None:
    """The match as one self-contained file (auditor key): `guildhall export MATCH > match.ghx`.
    Verify it anywhere with `guildhall verify match.ghx`."""

    async def fetch() -> Any:
        async with _client(ctx.obj) as client:
            return await client.export_match(match, up_to)

    exported = _run(fetch())
    if output is None:
        sys.stdout.buffer.write(exported.data)
        sys.stdout.buffer.flush()
    else:
        output.write_bytes(exported.data)
    state = "finished" if exported.finished else "in play"
    err.print(f"exported versions 1 to {exported.version} of {match} ({state}), {len(exported.data):,} bytes")


@app.command("get-bundle")
def get_bundle(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game id")],
    rules_version: Annotated[str, typer.Argument(help="The rules version (`guildhall verify` names it)")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write it to")] = Path("."),
) -> None:
    """A rules version's bundle from the gateway (auditor key), for `guildhall verify --bundles`."""
    with needs_rules("get-bundle"):
        from services.bundles import BundleError, read_bundle

    async def fetch() -> tuple[str, bytes]:
        async with _client(ctx.obj) as client:
            return await client.rules_bundle(game, rules_version)

    name, raw = _run(fetch())
    try:
        read_bundle(raw, game=game, version=rules_version)  # checked here too: files and digest
    except BundleError as error:
        err.print(f"[red]get-bundle:[/red] the gateway sent a bundle that does not hold: {error}")
        raise typer.Exit(1) from None
    out.mkdir(parents=True, exist_ok=True)
    (out / Path(name).name).write_bytes(raw)
    err.print(f"wrote {out / Path(name).name} ({len(raw):,} bytes)")


@app.command()
def verify(
    ctx: typer.Context,
    file: Annotated[
        Path, typer.Argument(help="A .ghx file from `guildhall export`, or an archived match's .ghz")
    ],
    keys: Annotated[
        Path | None, typer.Option(help="The operator's published keys (`guildhall keys public --json`)")
    ] = None,
    keys_from: Annotated[
        str | None, typer.Option(help="Ask this gateway (host:port) for its published keys")
    ] = None,
    receipts: Annotated[
        Path | None, typer.Option(help="Receipts you kept while playing (JSON list): a fork is named")
    ] = None,
    data: Annotated[
        list[str] | None, typer.Option(help="GAME=FILE: a game's replacement data file (repeatable)")
    ] = None,
    bundle: Annotated[
        list[Path] | None,
        typer.Option(help="A rules bundle (<game>-<version>.zip) for a version not installed (repeatable)"),
    ] = None,
    bundles: Annotated[
        Path | None,
        typer.Option(
            help="A directory of rules bundles (`make bundle`, the archive's bundles/<game>/)",
            envvar="GUILDHALL_BUNDLES",
        ),
    ] = None,
    story: Annotated[
        bool, typer.Option("--story", help="The match as a readable log, checks beside")
    ] = False,
    show_all: Annotated[
        bool, typer.Option("--all", help="With --story: engine bookkeeping events too")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The report as JSON")] = False,
) -> None:
    """Verify an exported match offline (no gateway, Redis or rules service): the chain, every
    receipt, the seed against its commitment, every action re-executed with the match's own rules
    version (installed here, or its bundle: --bundle, --bundles). An archived match's .ghz
    (ARCHIVE_DIR/<tenant>/<match>.ghz) too, with --keys or --keys-from. Exit 0 verified, 1 not
    (the first bad version and why, or the rules version it needs), 2 a bad argument."""
    with needs_rules("verify"):
        from guildhall_client.ghx_cli import (
            UsageError,
            data_files,
            held_receipts,
            published_keys,
            verify_file,
        )

    settings: Settings = ctx.obj
    try:
        ok, lines = verify_file(
            file,
            keys=published_keys(keys, keys_from, settings.tls),
            games=data_files(data or []),
            receipts=held_receipts(receipts),
            story=story,
            as_json=as_json,
            show_all=show_all,
            bundles=[*(bundle or []), *([bundles] if bundles is not None else [])],
        )
    except UsageError as error:
        err.print(f"[red]verify:[/red] {error}")
        raise typer.Exit(2) from None
    except errors.GuildhallError as error:
        err.print(f"[red]verify:[/red] cannot get the published keys: {error}")
        raise typer.Exit(2) from None
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(0 if ok else 1)


if __name__ == "__main__":
    app()
