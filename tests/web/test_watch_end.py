"""Issue 39 item 12, from Node as an integrator writes it: a program following a match with the
TypeScript client's `watch()`, reading the stream to its end, ends when the match does (the
gateway ends the stream after the update that ends the match, as the SSE feed does; before, it
never ended), and a program that aborts its watch frees the gateway's stream slot at once, while
it goes on running."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from devstack.stack import Stack

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"

PROGRAM = """
import { GuildhallClient } from "%(bundle)s";

const { GUILDHALL_HTTP: baseUrl, GUILDHALL_KEY: credential } = process.env;
const tenant = new GuildhallClient({ baseUrl, credential });
const match = await tenant.createMatch("rattus_cartus", ["ann", "bob"]);
const ann = tenant.as(match.seats[0].token);
const bob = tenant.as(match.seats[1].token);
console.log(`match ${match.matchId}`);

if (process.argv[2] === "follow") {
  // Follow the match until the stream ends (untilFinished: false reads past the finished view);
  // bob resigns after the first update, which ends a 2-seat match.
  let updates = 0;
  for await (const update of ann.watch(match.matchId, 0, { untilFinished: false })) {
    if (++updates === 1) await bob.resign(match.matchId);
    if (update.view?.finished) console.log(`finished at ${update.view.version}`);
  }
  console.log("watch ended");
  // Nothing else: the program exits when nothing holds it open.
} else {
  const stop = new AbortController();
  try {
    for await (const update of ann.watch(match.matchId, 0, { signal: stop.signal })) {
      console.log(`update ${update.view?.version}`);
      stop.abort();
    }
  } catch (error) {
    console.log(`aborted: ${error.code}`);
  }
  setTimeout(() => console.log("still running"), 600_000); // held open: the gateway must not wait for us
}
"""


def _open_watch_streams(metrics_port: int) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    found = re.search(r"^guildhall_watch_streams_open (\S+)$", text, re.M)
    assert found, "the gateway exports guildhall_watch_streams_open"
    return float(found.group(1))


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, int, int]]:
    work = tmp_path_factory.mktemp("watch-end")
    env = {"HTTP_PORT": "any", "METRICS_PORT": "any", "LOG_LEVEL": "warning"}
    with Stack(
        ["rattus_cartus"], gateways=1, work_dir=work, log_dir=work / "logs", gateway_env=env
    ) as running:
        yield running, running.http_port, running.metrics_port


def _node(program: Path, mode: str, stack: Stack, http_port: int) -> subprocess.Popen[str]:
    node = shutil.which("node")
    assert node, "Node 20+ is needed for the TypeScript client"
    env = {**os.environ, "GUILDHALL_HTTP": f"http://127.0.0.1:{http_port}", "GUILDHALL_KEY": stack.api_key}
    return subprocess.Popen(
        [node, str(program), mode], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


@pytest.fixture()
def program(tmp_path: Path) -> Path:
    bundle = WEB / "dist" / "guildhall.js"
    assert bundle.is_file(), "the TypeScript client is not built: `make web`"
    path = tmp_path / "watch.mjs"
    path.write_text(PROGRAM % {"bundle": bundle.as_uri()})
    return path


def test_a_node_program_following_a_match_exits_when_the_match_ends(
    stack: tuple[Stack, int, int], program: Path
) -> None:
    running, http_port, metrics_port = stack
    node = _node(program, "follow", running, http_port)
    try:
        out, err = node.communicate(timeout=90)  # before, the stream never ended
    finally:
        node.kill()
    assert node.returncode == 0, err[-2000:]
    lines = out.splitlines()
    assert lines[0].startswith("match ") and re.fullmatch(r"finished at \d+", lines[-2]), out
    assert lines[-1] == "watch ended", out
    assert _open_watch_streams(metrics_port) == 0


def test_aborting_a_watch_frees_the_gateways_stream_at_once(
    stack: tuple[Stack, int, int], program: Path
) -> None:
    running, http_port, metrics_port = stack
    node = _node(program, "abort", running, http_port)
    try:
        assert node.stdout is not None
        lines = [node.stdout.readline().strip() for _ in range(3)]
        assert lines[0].startswith("match ") and lines[1].startswith("update "), lines
        assert lines[2] == "aborted: canceled", lines
        # The program runs on and the match never moves again: only the abort can end the stream.
        deadline = time.monotonic() + 30
        while _open_watch_streams(metrics_port) != 0:
            assert time.monotonic() < deadline, "the aborted watch still holds its stream on the gateway"
            time.sleep(0.2)
        assert node.poll() is None
    finally:
        node.kill()
        node.wait(10)
