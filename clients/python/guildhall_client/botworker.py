"""The platform's bot worker (issue 23): plays the bot seats tenants ask for, through the gateway.

    python -m guildhall_client.botworker --target gateway:50051      # GUILDHALL_API_KEY: a botworker key

It is a client like any other: it leases bot seats (`ClaimBotSeats`, an operators' key with the
`botworker` scope), gets each seat's token and plays it with the library's bots (`random`,
`greedy`, `strong`) over Watch and SubmitAction, thinking a while before each action like a
person (`--think-seconds`, spread 0.5x to 1.5x; a strong bot's search is its thinking), and gives
the seat back when its match ends. Leases
are renewed every few seconds; a worker that dies lets them lapse and another worker takes the
seats over from the match's current state. On SIGTERM it stops taking seats, reports NOT_SERVING
on its health port, and after the drain hands its seats back at once for another worker.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import logging
import os
import random
import signal
import socket
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from guildhall_client import errors
from guildhall_client.aio import AsyncClient, Seat
from guildhall_client.bots import Bot, make_bot
from guildhall_client.bots.strong import DEFAULT_BUDGET_S, StrongBot
from guildhall_client.types import BotAssignment, MatchView

_log = logging.getLogger("guildhall.botworker")

RENEW_EVERY_S = 10.0  # the gateway's lease is 30 s
QUEUE_WARNING_EVERY_S = 60.0  # at most one "searches are queueing" warning a minute
# A search that waited, or that others wait behind, gets a shorter budget, down to this one:
# the budget the strength targets are measured at (docs/bots.md).
STRONG_FLOOR_S = 0.2
# Strong seats one worker (one search thread, one core) serves with every decision within 1.2 s
# at p95 and its event loop unslowed, measured at 1 s a decision by benchmarks/bench_botworker.py
# (bench/bots/capacity.md, docs/bots.md): against seats acting at a person's pace (8 s a move;
# the most measured, the search thread 38% busy there) and in matches of platform bots only (the
# default 2 s think time; the search thread 95% busy). More seats shorten searches, not decisions.
STRONG_SEATS_PER_CORE_PEOPLE = 8
STRONG_SEATS_PER_CORE_BOTS = 8


class BotWorker:
    """Claims bot seats and plays them until asked to stop."""

    def __init__(
        self,
        client: AsyncClient,
        *,
        name: str = "",
        max_seats: int = 200,
        think_s: float = 2.0,
        poll_s: float = 1.0,
        seed: int | None = None,
        strong_budget_s: float = DEFAULT_BUDGET_S,
    ) -> None:
        self.client = client
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self.max_seats = max_seats
        self.think_s = think_s
        self.poll_s = poll_s
        self.strong_budget_s = strong_budget_s
        self._rng = random.Random(seed)
        self.playing: dict[str, tuple[BotAssignment, asyncio.Task[None]]] = {}
        # Strong bots search on one thread, one decision at a time: the event loop stays free to
        # renew leases and play the other seats, and searches queue rather than share a core
        # (a search holds the GIL; see docs/bots.md for how many strong seats a core serves).
        self._search = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot-search")
        self._queue_warned = -QUEUE_WARNING_EVERY_S
        # Searches asked for (counted on the event loop) and begun (on the search thread): one
        # writer each, so their difference is the line a search finds when it begins.
        self._searches_asked = self._searches_begun = 0
        # The last strong decisions: (seconds queued behind other searches, seconds searched).
        self.searches: collections.deque[tuple[float, float]] = collections.deque(maxlen=10_000)
        self.finished = 0  # seats played to the end of their match

    def _think(self) -> float:
        return self.think_s * self._rng.uniform(0.5, 1.5) if self.think_s > 0 else 0.0

    async def run(self, stop: asyncio.Event) -> None:
        renewing = asyncio.create_task(self._renew(stop))
        try:
            while not stop.is_set():
                free = self.max_seats - len(self.playing)
                if free > 0:
                    try:
                        for assignment in await self.client.claim_bot_seats(self.name, min(free, 100)):
                            task = asyncio.create_task(
                                self._play(assignment), name=f"bot {assignment.match_id}"
                            )
                            self.playing[assignment.lease_id] = (assignment, task)
                    except errors.GuildhallError as error:
                        _log.warning("claiming bot seats failed: %s", error)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.poll_s)
        finally:
            renewing.cancel()
            await self._hand_back()

    async def _hand_back(self) -> None:
        """Stop playing; give the seats still held to another worker."""
        held = list(self.playing.items())
        for _, (_, task) in held:
            task.cancel()
        for _, (_, task) in held:
            with contextlib.suppress(BaseException):
                await task
        if self.playing:
            with contextlib.suppress(errors.GuildhallError):
                await self.client.release_bot_seats(list(self.playing), done=False)
            self.playing.clear()

    async def _renew(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), RENEW_EVERY_S)
            leases = list(self.playing)
            if not leases:
                continue
            try:
                held = await self.client.renew_bot_seats(leases)
            except errors.GuildhallError as error:
                _log.warning("renewing bot seat leases failed: %s", error)
                continue
            for lease in set(leases) - held:  # lapsed: another worker may be playing it now
                entry = self.playing.pop(lease, None)
                if entry is not None:
                    entry[1].cancel()

    async def _play(self, assignment: BotAssignment) -> None:
        done = False
        try:
            seat = self.client.seat(assignment.match_id, assignment.seat_token)
            bot = make_bot(
                assignment.kind, assignment.game, self._rng.randrange(2**32), budget_s=self.strong_budget_s
            )
            final = await self.play(seat, bot)
            self.finished += int(final.finished)
            done = final.finished or not _bots_seat(final)  # or its player is back (issue 41)
        except asyncio.CancelledError:
            raise
        except errors.NotFound:
            done = True  # the match is gone (archived)
        except Exception:
            _log.exception("playing bot seat %s/%s failed", assignment.match_id, assignment.seat)
        finally:
            if self.playing.pop(assignment.lease_id, None) is not None:
                with contextlib.suppress(errors.GuildhallError):
                    await self.client.release_bot_seats([assignment.lease_id], done=done)

    async def play(self, seat: Seat, bot: Bot) -> MatchView:
        """Play the seat to the end of its match, pausing before each action; or until it is no
        bot's to play (an away seat whose player came back, issue 41)."""
        current = await seat.view()
        if current.finished or not _bots_seat(current):
            return current
        async for update in seat.watch(current.version):
            if update.view.version < current.version:
                continue
            current = update.view
            if current.finished or not _bots_seat(current):
                return current
            while current.my_turn and _bots_seat(current):
                assert current.seat is not None
                if isinstance(bot, StrongBot):
                    picked = await self._searched(bot, current)
                else:
                    await asyncio.sleep(self._think())
                    picked = bot.choose(current.view, current.legal_actions, current.seat)
                try:
                    accepted = await seat.submit(
                        current.legal_actions[picked], expected_version=current.version, return_view=True
                    )
                except errors.Rejected:  # another seat moved first, or the match ended meanwhile
                    break
                if accepted.view is None or accepted.view.finished or accepted.view.version < current.version:
                    break
                current = accepted.view
        return await seat.view()

    async def _searched(self, bot: StrongBot, current: MatchView) -> int:
        """A strong bot's choice, searched on the worker's one search thread for `search_budget`.
        A search that waited longer than a budget says so (more strong seats than a core serves)."""
        asked = time.monotonic()
        self._searches_asked += 1

        def choose() -> int:
            self._searches_begun += 1
            behind = self._searches_asked - self._searches_begun
            started = time.monotonic()
            waited = started - asked
            budget = search_budget(self.strong_budget_s, waited, behind)
            if waited > self.strong_budget_s and started - self._queue_warned > QUEUE_WARNING_EVERY_S:
                self._queue_warned = started
                _log.warning(
                    "strong searches are queueing (one waited %.1f s): more strong seats than one core "
                    "serves; run another bot worker (docs/bots.md)",
                    waited,
                )
            assert current.seat is not None
            picked = bot.choose(current.view, current.legal_actions, current.seat, budget_s=budget)
            self.searches.append((waited, time.monotonic() - started))
            return picked

        return await asyncio.get_running_loop().run_in_executor(self._search, choose)


def search_budget(full: float, waited: float, behind: int) -> float:
    """A strong decision's search: what is left of the `full` budget after `waited` in line, and
    1/(k+1) of it with k searches `behind` it, never less than STRONG_FLOOR_S (or `full` if
    smaller). A burst of strong decisions costs strength rather than time."""
    return max(min(full, STRONG_FLOOR_S), min(full - waited, full / (1 + behind)))


def _bots_seat(view: MatchView) -> bool:
    """The seat is a bot seat of the match, or an away seat a bot plays for its player."""
    return view.seat is not None and (view.seat in view.bots or view.seat in view.away_seats)


async def _serve_health(port: int, host: str) -> tuple[Any, Any]:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from grpc_health.v1.health import aio as health_aio

    server = grpc.aio.server()
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    if not server.add_insecure_port(f"{host}:{port}"):
        raise SystemExit(f"cannot bind the health port {host}:{port}")
    await server.start()
    await health.set("", health_pb2.HealthCheckResponse.SERVING)
    return server, health


async def serve(args: argparse.Namespace) -> None:
    from grpc_health.v1 import health_pb2

    stop, draining = asyncio.Event(), asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, draining.set)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    server = health = None
    if args.health_port:
        server, health = await _serve_health(args.health_port, args.host)
    async with AsyncClient(args.target, api_key=args.api_key) as client:
        worker = BotWorker(
            client,
            name=args.name,
            max_seats=args.max_seats,
            think_s=args.think_seconds,
            strong_budget_s=args.strong_seconds,
        )
        running = asyncio.create_task(worker.run(stop))
        _log.info("bot worker %s playing for %s", worker.name, args.target)
        _log.info(
            "strong seats: one search at a time, %.2f s a decision; one core keeps each decision "
            "within 1.2 s for %d strong seats at a person's pace and %d in matches of bots only, "
            "shortening searches as they queue (docs/bots.md)",
            args.strong_seconds,
            STRONG_SEATS_PER_CORE_PEOPLE,
            STRONG_SEATS_PER_CORE_BOTS,
        )
        await draining.wait()
        if health is not None:
            await health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
        await asyncio.sleep(max(args.drain, 0.0))
        stop.set()
        await asyncio.wait_for(running, max(args.grace, 1.0))
    if server is not None:
        await server.stop(0)


def main(argv: Sequence[str] | None = None) -> None:
    env = os.environ
    parser = argparse.ArgumentParser(
        prog="python -m guildhall_client.botworker", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--target",
        default=env.get("GUILDHALL_TARGET", "localhost:50051"),
        help="the gateway (env GUILDHALL_TARGET)",
    )
    parser.add_argument(
        "--api-key",
        default=env.get("GUILDHALL_API_KEY") or _read(env.get("GUILDHALL_API_KEY_FILE", "")),
        help="a botworker-scope key (env GUILDHALL_API_KEY, or a file named by GUILDHALL_API_KEY_FILE)",
    )
    parser.add_argument(
        "--name",
        default=env.get("BOT_WORKER_NAME", ""),
        help="this worker's name in logs (env BOT_WORKER_NAME)",
    )
    parser.add_argument(
        "--max-seats",
        type=int,
        default=int(env.get("BOT_MAX_SEATS", "200")),
        help="seats played at once (env BOT_MAX_SEATS; 200)",
    )
    parser.add_argument(
        "--think-seconds",
        type=float,
        default=float(env.get("BOT_THINK_SECONDS", "2")),
        help="the pause before each action, spread 0.5x-1.5x (env BOT_THINK_SECONDS; 2)",
    )
    parser.add_argument(
        "--strong-seconds",
        type=float,
        default=float(env.get("BOT_STRONG_SECONDS", str(DEFAULT_BUDGET_S))),
        help=f"a strong bot's search per decision (env BOT_STRONG_SECONDS; {DEFAULT_BUDGET_S:g})",
    )
    parser.add_argument(
        "--host", default=env.get("HOST", "127.0.0.1"), help="health server address (env HOST)"
    )
    parser.add_argument(
        "--health-port",
        type=int,
        default=int(env.get("HEALTH_PORT", "0")),
        help="grpc.health.v1 port, 0 = none (env HEALTH_PORT)",
    )
    parser.add_argument(
        "--drain",
        type=float,
        default=float(env.get("DRAIN_SECONDS", "0")),
        help="NOT_SERVING this long before handing seats back (env DRAIN_SECONDS)",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=float(env.get("GRACE_SECONDS", "10")),
        help="time to hand seats back (env GRACE_SECONDS)",
    )
    parser.add_argument("--log-level", default=env.get("LOG_LEVEL", "info"))
    args = parser.parse_args(argv)
    if not args.api_key:
        parser.error("a botworker key is needed: --api-key or GUILDHALL_API_KEY")
    if args.max_seats < 1 or args.think_seconds < 0 or args.strong_seconds <= 0:
        parser.error("--max-seats and --strong-seconds must be positive and --think-seconds not negative")
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(serve(args))


def _read(path: str) -> str:
    """A secret from a file (a Kubernetes Secret mounted as a volume), or "" without a path."""
    return Path(path).read_text().strip() if path else ""


# Last: `python -m` runs main() here, so everything it uses must be defined above (issue 39 item
# 16: `_read` below it made the worker exit with a NameError as the manifests start it).
if __name__ == "__main__":
    main()
