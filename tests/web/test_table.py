"""The reference web table in a real browser (Debian's chromium driven by Playwright) against a real
stack: for every game, a whole match against bots played by clicking the legal-action buttons; a
second page follows it as a spectator and sees every version; the replay slider shows an earlier
version; the audit page checks every receipt and the seed in the page. Screenshots of each board
are kept in var/test-artifacts/web/."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devstack.processes import free_port
from devstack.stack import Stack
from services.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "clients" / "web" / "dist"
ARTIFACTS = ROOT / "var" / "test-artifacts" / "web"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
READY = """() => {
  const board = document.querySelector('[data-testid=board]');
  if (!board) return false;
  if (board.dataset.state === 'finished') return true;
  return board.dataset.state === 'my-turn'
    && document.querySelectorAll('[data-testid=action]:not([disabled])').length > 0;
}"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    assert (DIST / "app.js").is_file() and (DIST / "index.html").is_file(), (
        "the web table is not built: `make web` (make test builds it first)"
    )
    assert shutil.which(CHROMIUM), "chromium is not installed: `make test` installs it (apt-get)"
    work = tmp_path_factory.mktemp("web")
    port = free_port()
    with Stack(
        list(GAMES),
        gateways=1,
        work_dir=work,
        log_dir=work / "logs",
        gateway_env={"HTTP_PORT": str(port), "WEB_DIR": str(DIST), "LOG_LEVEL": "warning"},
        start_timeout_s=90.0,
    ) as running:
        running.http_port = port  # type: ignore[attr-defined]
        yield running


@pytest.fixture(scope="module")
def browser(stack: Stack) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _base(stack: Stack) -> str:
    return f"http://127.0.0.1:{stack.http_port}/"  # type: ignore[attr-defined]


@pytest.mark.parametrize("game", list(GAMES))
def test_a_person_plays_a_whole_match_against_bots_by_clicking(stack: Stack, browser: Any, game: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{_base(stack)}#/?key={stack.api_key}&botDelay=0&player=tester")
    page.click(f"[data-testid=bots-{game}]")
    page.wait_for_selector("[data-testid=board]", timeout=60_000)
    match_id = page.evaluate("() => new URLSearchParams(location.hash.split('?')[1]).get('m')")
    assert match_id

    # Its own context (its own window): a background tab's timers are throttled to once a second.
    watcher = browser.new_context(viewport={"width": 1200, "height": 900})
    spectator = watcher.new_page()
    spectator.goto(f"{_base(stack)}#/watch?m={match_id}&key={stack.api_key}")
    spectator.wait_for_selector("[data-testid=spectator] [data-testid=board]", timeout=30_000)

    rng = random.Random(f"{game}-clicks")
    clicks = 0
    while True:
        page.wait_for_function(READY, timeout=60_000)
        if clicks == 6:  # mid-game: the board as a player sees it
            page.screenshot(path=str(ARTIFACTS / f"{game}-playing.png"), full_page=True)
        if page.locator("[data-testid=board]").get_attribute("data-state") == "finished":
            break
        clicks += _click_one(page, rng)
    final = int(page.locator("[data-testid=board]").get_attribute("data-version") or 0)
    status = page.locator("[data-testid=status]").inner_text()
    assert "Game over" in status and clicks > 5, (status, clicks)
    # The board is rendered from the game data: names, not raw JSON.
    assert "{" not in page.locator("[data-testid=board]").inner_text()
    page.screenshot(path=str(ARTIFACTS / f"{game}-finished.png"), full_page=True)

    # The spectator followed live and saw every version, in order, with no gap.
    spectator.wait_for_function(
        f"() => document.querySelector('[data-testid=board]')?.dataset.version === '{final}'", timeout=30_000
    )
    versions = spectator.eval_on_selector_all(
        "[data-testid=log] li", "items => items.map(li => Number(li.dataset.version))"
    )
    assert sorted(versions) == list(range(1, final + 1))

    # The replay slider shows an earlier version.
    page.goto(f"{_base(stack)}#/replay?m={match_id}")
    page.wait_for_selector(f"[data-testid=board][data-version='{final}']", timeout=30_000)
    earlier = final // 2
    page.locator("[data-testid=replay-slider]").fill(str(earlier))
    page.wait_for_selector(f"[data-testid=board][data-version='{earlier}']", timeout=30_000)
    assert page.locator("[data-testid=replay-version]").inner_text() == str(earlier)

    # The audit checks, in the page, every receipt and the revealed seed.
    page.goto(f"{_base(stack)}#/audit?m={match_id}")
    page.wait_for_selector("[data-testid=audit-result][data-ok]", timeout=60_000)
    result = page.locator("[data-testid=audit-result]")
    assert result.get_attribute("data-ok") == "true", result.inner_text()
    assert int(result.get_attribute("data-receipts") or 0) > 0
    assert result.get_attribute("data-seed") == "true"
    assert not errors, errors
    context.close()
    watcher.close()


def _click_one(page: Any, rng: random.Random) -> int:
    buttons = page.locator("[data-testid=action]:not([disabled])")
    count = buttons.count()
    if not count:
        return 0
    try:
        buttons.nth(rng.randrange(count)).click(timeout=5_000)
    except Exception:  # the page redrew under the click (another seat moved): look again
        return 0
    return 1
