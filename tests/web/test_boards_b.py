"""The Bruges and Lords of Waterdeep boards (clients/web/table/games/{bruges,waterdeep}/) in a real
browser, without the table's shell: a small harness page (tests/web/boards_b_harness.ts, bundled
here with esbuild) draws `BOARDS[game].render(root, ctx)` from fixtures built from seeded random
playouts: mid-game views for every seat and a spectator, the game data document, and the current
step's choices of every kind of decision met on the way.

For each fixture: every place of the data is drawn with its name, the viewer's hand by name (only
the viewer's), the viewer's area set apart, seats by their names (never "Player N"), no raw
undefined/NaN/[object Object]; every choice standing for something on the board is a highlighted
focusable button labelled with the choice, and clicking it (or Enter, Space) calls `choose` with
that very choice. A picture per game is the docs' docs/images/boards/<game>.png (tests/web/pictures.py:
refreshed by `make screenshots`, under var/test-artifacts/ otherwise)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.gamedata import game_data_json
from services.kernel.testing import random_playout
from services.registry import GAMES
from tests.web.pictures import docs_picture

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"
ESBUILD = WEB / "node_modules" / ".bin" / "esbuild"
HARNESS = Path(__file__).with_name("boards_b_harness.ts")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
NAMES = ["Ada", "Bram", "Cleo", "Dirk", "Edda"]

# Per game: players, the playout seeds, and the choice kinds that stand for something the board
# draws (the others, e.g. Bruges's card actions, are answered in the shell's decision panel);
# `shown`: the decision (key, kind) pictured in the screenshot.
GAMES_UNDER_TEST: dict[str, dict[str, Any]] = {
    "bruges": {
        "players": 3,
        "seeds": (7, 11),
        "kinds": {"person", "place", "house_slot", "colour", "seat"},
        "shown": ("turn", "person"),
    },
    "waterdeep": {
        "players": 4,
        "seeds": (7, 11),
        "kinds": {"place", "building", "quest", "intrigue_copy", "seat", "resource"},
        "shown": ("place", "place"),
    },
}


def _encode(spec: Any, value: Any) -> Any:
    return json.loads(spec.codec.encode_json(value))


def _choice(c: Any) -> dict[str, str]:
    return {"step": c.step, "label": c.label, "kind": c.kind, "id": c.id}


def _next(decision: Any, chosen: list[Any]) -> list[Any]:
    """The distinct choices shown after `chosen` (the shell's walk, docs/clients.md)."""
    step: list[Any] = []
    for o in decision.options:
        if list(o.choices[: len(chosen)]) == chosen and len(o.choices) > len(chosen):
            c = o.choices[len(chosen)]
            if c not in step:
                step.append(c)
    return step


def _current_step(decision: Any) -> list[dict[str, str]]:
    """The choices a person is shown once the steps that name nothing (What do you do? -> Play a
    card) are answered with their first choice: the step where the board has something to offer."""
    chosen: list[Any] = []
    while True:
        step = _next(decision, chosen)
        if not step or any(c.kind for c in step):
            return [_choice(c) for c in step]
        chosen.append(step[0])


def _steps(decision: Any) -> Iterator[list[dict[str, str]]]:
    """Every step of a decision, each reached once by some path (Bruges: which card, which action,
    then which canal space; Waterdeep: which building, then which space of it)."""
    seen: set[str] = set()
    stack: list[list[Any]] = [[]]
    while stack:
        chosen = stack.pop()
        step = _next(decision, chosen)
        if not step:
            continue
        question = step[0].step
        if question not in seen:
            seen.add(question)
            yield [_choice(c) for c in step]
        stack.extend([*chosen, c] for c in step)


def _fixtures(game: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """(the fixture for the screenshot: the first decision past mid-game of the game's `shown`
    key; mid-game fixtures for every seat and a spectator; one fixture per kind of
    decision step met over whole playouts)."""
    spec = GAMES[game]
    present = spec.presentation
    assert present is not None
    conf = GAMES_UNDER_TEST[game]
    players = conf["players"]
    data = json.loads(game_data_json(spec))
    names = NAMES[:players]

    def fixture(state: Any, seat: int | None, choices: list[dict[str, str]]) -> dict[str, Any]:
        return {
            "game": game,
            "data": data,
            "view": _encode(spec, spec.view(state, seat)),
            "seat": seat,
            "seatNames": names,
            "choices": choices,
        }

    mid: list[dict[str, Any]] = []
    shown: dict[str, Any] = {}
    decisions: dict[tuple[str, str, frozenset[str]], dict[str, Any]] = {}
    for n, seed in enumerate(conf["seeds"]):
        playout = random_playout(spec, players, seed)
        state = spec.start(playout.config)
        half = len(playout.steps) // 2
        for i, step in enumerate(playout.steps):
            for seat in spec.active_players(state):
                decision = present.decision(state, seat, spec.legal_actions(state, seat))
                for choices in _steps(decision):
                    kinds = frozenset(c["kind"] for c in choices if c["kind"] in conf["kinds"])
                    key = (decision.key, choices[0]["step"], kinds)
                    if kinds and key not in decisions:
                        decisions[key] = fixture(state, seat, choices)
                choices = _current_step(decision)
                kinds = frozenset(c["kind"] for c in choices if c["kind"] in conf["kinds"])
                key_shown, kind_shown = conf["shown"]
                if n == 0 and i >= half and not shown and decision.key == key_shown and kind_shown in kinds:
                    shown = fixture(state, seat, choices)
            if n == 0 and i == half:
                for viewer in [*range(players), None]:
                    choices = []
                    if viewer is not None and viewer in spec.active_players(state):
                        actions = spec.legal_actions(state, viewer)
                        choices = _current_step(present.decision(state, viewer, actions))
                    mid.append(fixture(state, viewer, choices))
            state = spec.evolve(state, step.events)
    assert shown, f"no {conf['shown']} decision after mid-game"
    return shown, mid, list(decisions.values())


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> str:
    assert ESBUILD.is_file(), "clients/web has no esbuild: `make web`"
    out = tmp_path_factory.mktemp("boards") / "harness.js"
    subprocess.run(
        [str(ESBUILD), str(HARNESS), "--bundle", "--format=iife", "--target=es2022", f"--outfile={out}"],
        check=True,
        cwd=WEB,
        capture_output=True,
    )
    return out.read_text()


@pytest.fixture(scope="module")
def page(bundle: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    assert shutil.which(CHROMIUM), "chromium is not installed: `make chromium`"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1500, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_content("<!doctype html><meta charset=utf-8><div id=root></div>")
        page.add_script_tag(content=bundle)
        page.errors = errors  # type: ignore[attr-defined]
        page.documents = set()  # type: ignore[attr-defined]
        yield page
        browser.close()


def _render(page: Any, fixture: dict[str, Any]) -> None:
    """Draw a fixture; the game data document crosses into the page once per game."""
    if fixture["game"] not in page.documents:
        page.evaluate("([game, data]) => window.__setData(game, data)", [fixture["game"], fixture["data"]])
        page.documents.add(fixture["game"])
    page.evaluate("fixture => window.__render(fixture)", {**fixture, "data": None})
    assert not page.errors, page.errors


# What the page shows of the board: every place drawn, each name (as text or tooltip), hands,
# the viewer's area, the highlighted choices; all read in one evaluate.
READ = """() => {
  const root = document.getElementById('root');
  const places = {};
  for (const node of root.querySelectorAll('[data-place]')) {
    const id = node.dataset.place;
    (places[id] ??= []).push((node.textContent || '') + '\\n' + (node.getAttribute('title') || ''));
  }
  const attrs = [];
  for (const node of root.querySelectorAll('[title], [aria-label]')) {
    attrs.push(node.getAttribute('title') || '', node.getAttribute('aria-label') || '');
  }
  const buttons = [...root.querySelectorAll('[role=button]')].map((b) => ({
    label: b.getAttribute('aria-label'), kind: b.dataset.choiceKind, id: b.dataset.choiceId,
    tabindex: b.getAttribute('tabindex'),
  }));
  const hand = root.querySelector('[data-testid=own-hand]');
  const mine = [...root.querySelectorAll('.gb-mine, .gw-mine')].map((n) => n.dataset.seat);
  return { text: root.innerText, all: root.textContent, attrs, places, buttons,
           hand: hand ? hand.textContent : null, mine };
}"""


def _names(data: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(c["kind"], c["id"]): c["name"] for c in data["components"]}


def _check_fixture(page: Any, fixture: dict[str, Any], kinds: set[str]) -> None:
    _render(page, fixture)
    seen = page.evaluate(READ)
    data, view, seat = fixture["data"], fixture["view"], fixture["seat"]
    players = len(fixture["seatNames"])

    # Every place of the board is drawn, with its name (a Tavern by its seat's name).
    for place in data["places"]:
        pid, name = place["id"], place["name"]
        if place["kind"] == "tavern":
            k = int(pid.split(".")[1])
            if k >= players:
                continue
            name = f"{fixture['seatNames'][k]}'s Tavern"
        assert pid in seen["places"], f"{fixture['game']}: place {pid} ({name}) is not drawn"
        assert any(name in t for t in seen["places"][pid]), (pid, name, seen["places"][pid])

    # No raw values, and seats by name, never by index.
    for bad in ("undefined", "NaN", "[object Object]"):
        assert bad not in seen["all"], bad
        assert not [a for a in seen["attrs"] if bad in a], bad
    for name in fixture["seatNames"]:
        assert name in seen["text"], name
    raw = [t for t in [seen["text"], *seen["attrs"]] if re.search(r"\bPlayer \d", t)]
    assert not raw, raw

    # The viewer's own area is set apart; its hand is drawn by name, nobody else's.
    assert seen["mine"] == ([] if seat is None else [str(seat)])
    names = _names(data)
    if fixture["game"] == "bruges":
        own = [] if seat is None else view["seats"][seat]["hand"] or []
        hand_names = [names[("person", str(c))] for c in own]
        others = [c for s in view["seats"] if s["player"] != seat for c in (s["hand"] or [])]
        assert not others  # the view hides them: nothing to leak
    else:
        own = [] if seat is None else view["seats"][seat]["intrigue"] or []
        hand_names = [names[("intrigue_copy", c)] for c in own]
    if seat is None:
        assert seen["hand"] is None
    else:
        assert seen["hand"] is not None
        for name in hand_names:
            assert name in seen["hand"], (name, seen["hand"])

    # Every choice standing for something on the board is a labelled, focusable button.
    expected = [c for c in fixture["choices"] if c["kind"] in kinds]
    for c in expected:
        hits = [b for b in seen["buttons"] if b["kind"] == c["kind"] and b["id"] == c["id"]]
        assert hits, f"{fixture['game']}: choice {c} is not offered on the board"
        # Labelled with the choice's label; a seat's ("Player 2") with the seat's name.
        label = fixture["seatNames"][int(c["id"])] if c["kind"] == "seat" else c["label"]
        assert all(b["label"] == label and b["tabindex"] == "0" for b in hits), (label, hits)
    # And nothing else is.
    offered = {(c["kind"], c["id"]) for c in fixture["choices"]}
    assert all((b["kind"], b["id"]) in offered for b in seen["buttons"]), seen["buttons"]


def _click_and_keys(page: Any, fixture: dict[str, Any], kinds: set[str]) -> None:
    """Click the first highlighted element, press Enter on the second and Space on the last: each
    calls choose with its own choice."""
    buttons = page.locator("#root [role=button]")
    count = buttons.count()
    expected = [c for c in fixture["choices"] if c["kind"] in kinds]
    assert count >= 1 and expected
    for index, how in ((0, "click"), (min(1, count - 1), "Enter"), (count - 1, "Space")):
        button = buttons.nth(index)
        kind, cid = button.get_attribute("data-choice-kind"), button.get_attribute("data-choice-id")
        before = page.evaluate("() => window.__chosen.length")
        if how == "click":
            button.click()
        else:
            button.focus()
            page.keyboard.press(how)
        chosen = page.evaluate("() => window.__chosen")
        assert len(chosen) == before + 1, (how, chosen)
        want = next(c for c in fixture["choices"] if c["kind"] == kind and c["id"] == cid)
        assert chosen[-1] == want


@pytest.mark.parametrize("game", list(GAMES_UNDER_TEST))
def test_board_draws_every_place_the_hands_and_offers_the_choices(page: Any, game: str) -> None:
    kinds = GAMES_UNDER_TEST[game]["kinds"]
    shown, mid, decisions = _fixtures(game)
    # Mid-game: every seat and a spectator.
    assert len(mid) == GAMES_UNDER_TEST[game]["players"] + 1
    for fixture in mid:
        _check_fixture(page, fixture, kinds)
    # Every kind of decision met in the playouts: its board choices are offered and answer.
    assert len(decisions) >= 4, [(f["seat"], f["choices"][:1]) for f in decisions]
    met: set[str] = set()
    for fixture in decisions:
        _check_fixture(page, fixture, kinds)
        _click_and_keys(page, fixture, kinds)
        met |= {c["kind"] for c in fixture["choices"]}
    assert {"place", "person" if game == "bruges" else "quest"} <= met, met

    # The picture a person looks at: a seat's view past mid-game, its decision highlighted on the
    # board (Bruges: the cards of a turn in phase 3; Waterdeep: where to assign an agent).
    _check_fixture(page, shown, kinds)
    page.locator("#root").screenshot(path=str(docs_picture(f"boards/{game}.png")))
