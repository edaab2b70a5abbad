"""The boards of Ys, Ankh-Morpork and Rattus Cartus (clients/web/table/games/<game>/board.ts), drawn
without the table's shell: a harness page (table/games/harness.ts, bundled by conftest.py) renders
a board from a fixture made in Python from a seeded playout (the game data document, a mid-game
view for each seat and the spectator, the viewer's decision), in Debian's Chromium.

Each board must show every place of the game data by name, the viewer's hand by name, the seats by
the names chosen at the table, no raw `undefined`/`NaN`/`[object Object]`; it must offer exactly the
current step's choices it draws (a focusable button with the choice's label) and call choose() with
the choice clicked or picked with Enter. A picture of each board is the docs' docs/images/boards/<game>.png
(tests/web/pictures.py: refreshed by `make screenshots`, under var/test-artifacts/ otherwise).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from services.gamedata import game_data_json
from services.kernel.testing import random_playout
from services.registry import GAMES
from tests.web.pictures import artifact, docs_picture

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
SEAT_NAMES = ["Ada", "Bruno", "Chiara", "Dmitri", "Esi"]
PLAYERS = 4
SEED = 11
# The kinds of the decisions' choices each board draws (a place, a card in hand, a player...).
DRAWN = {
    "ys": {"place", "broker", "character", "gem", "order_card"},
    "ankh_morpork": {"area", "card", "seat", "owner", "place"},
    "rattus_cartus": {"building_slot", "card", "nun_position", "seat"},
}
# The kind of choice shown in each game's screenshot.
SHOWCASE = {"ys": "place", "ankh_morpork": "area", "rattus_cartus": "building_slot"}


def _json(spec: Any, value: Any) -> Any:
    return json.loads(spec.codec.encode_json(value))


def _hand(game: str, view: dict[str, Any], seat: int) -> list[tuple[str, str]]:
    """The viewer's hand as (kind, id): what the board must show by name in the viewer's area."""
    if game == "ys":
        mine = view["seats"][seat]
        return [("character", c) for c in mine["hand"] + mine["new_cards"]]
    if game == "ankh_morpork":
        return [("card", c) for c in view["seats"][seat]["hand"]]
    return [("card", c) for c in view["hand"]]


def scenarios(game: str) -> list[dict[str, Any]]:
    """Mid-game moments of a seeded playout, one per kind of choice the board draws: the state's
    views for every seat and the spectator, the deciding seat, the choices made so far (up to a
    step naming something the board draws) and that step's choice."""
    spec = GAMES[game]
    playout = random_playout(spec, PLAYERS, SEED)
    state = spec.start(playout.config)
    found: dict[str, dict[str, Any]] = {}
    steps = len(playout.steps)
    for i, step in enumerate(playout.steps):
        if i >= steps * 0.3 and len(found) < len(DRAWN[game]):
            for seat in spec.active_players(state):
                assert spec.presentation is not None
                decision = spec.presentation.decision(state, seat, spec.legal_actions(state, seat))
                for option in decision.options:
                    at = next(
                        (
                            j
                            for j, c in enumerate(option.choices)
                            if c.kind in DRAWN[game] and c.kind not in found
                        ),
                        None,
                    )
                    if at is None:
                        continue
                    found[option.choices[at].kind] = {
                        "kind": option.choices[at].kind,
                        "step": i,
                        "seat": seat,
                        "views": {str(v): _json(spec, spec.view(state, v)) for v in [*range(PLAYERS), None]},
                        "decision": _json(spec, decision),
                        "chosen": [_json(spec, c) for c in option.choices[:at]],
                        "choice": _json(spec, option.choices[at]),
                    }
        state = spec.evolve(state, step.events)
    return list(found.values())


@pytest.fixture(scope="module")
def page(harness: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    assert shutil.which(CHROMIUM), "chromium is not installed: `make chromium`"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_content(
            "<!doctype html><html><body style='margin:0;background:#faf8f3'><div id=root></div></body></html>"
        )
        page.add_script_tag(content=harness)
        setattr(page, "errors", errors)  # noqa: B010 (read by the tests)
        yield page
        browser.close()


def _render(page: Any, game: str, scenario: dict[str, Any], viewer: int | None, chosen: list[Any]) -> None:
    """Draw the board for `viewer` (the game data is set once per game in `window.__data`)."""
    fixture = {
        "game": game,
        "view": scenario["views"][str(viewer)],
        "seat": viewer,
        "seatNames": SEAT_NAMES[:PLAYERS],
        "decision": scenario["decision"] if viewer == scenario["seat"] else None,
        "chosen": chosen,
    }
    page.evaluate("text => window.__render(JSON.parse(text))", json.dumps(fixture))
    assert not page.errors, page.errors


def _names(data: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(c["kind"], c["id"]): c["name"] for c in data["components"]}


RAW = """() => {
  const root = document.getElementById('root');
  const texts = [root.innerText, root.textContent];
  for (const node of root.querySelectorAll('*')) for (const a of node.attributes) texts.push(a.value);
  const raw = /undefined|NaN|\\[object Object\\]/;
  const around = t => t.slice(Math.max(0, t.search(raw) - 60), t.search(raw) + 30);
  return texts.filter(t => raw.test(t)).map(around).slice(0, 5);
}"""
OFFERED = """() => [...document.querySelectorAll('#root .bd-choosable')].map(n => ({
  kind: n.dataset.choiceKind, id: n.dataset.choiceId, label: n.getAttribute('aria-label'),
  role: n.getAttribute('role'), tabindex: n.getAttribute('tabindex')}))"""


@pytest.mark.parametrize("game", list(DRAWN))
def test_the_board_draws_the_game_and_offers_the_choices_on_it(page: Any, game: str) -> None:
    spec = GAMES[game]
    data = json.loads(game_data_json(spec))
    names = _names(data)
    found = scenarios(game)
    page.evaluate("text => { window.__data = JSON.parse(text) }", json.dumps(data))
    assert {s["kind"] for s in found} >= {SHOWCASE[game]}, [s["kind"] for s in found]
    for scenario in found:
        for viewer in [*range(PLAYERS), None]:
            _render(page, game, scenario, viewer, [])
            text = page.evaluate("() => document.getElementById('root').textContent")
            visible = page.locator("#root").inner_text()
            missing = [p["name"] for p in data["places"] if p["name"] not in text]
            assert not missing, (game, viewer, missing)
            assert not page.evaluate(RAW), (game, viewer, page.evaluate(RAW))
            for seat in range(PLAYERS):  # seats by their names at the table, never "Player N"
                assert SEAT_NAMES[seat] in visible, (game, viewer, SEAT_NAMES[seat])
                assert f"Player {seat + 1}" not in visible, (game, viewer)
            own = page.locator("#root .bd-me")
            if viewer is None:
                assert own.count() == 0
                continue
            assert own.count() == 1 and SEAT_NAMES[viewer] in own.inner_text()
            mine = own.inner_text()
            for kind, card in _hand(game, scenario["views"][str(viewer)], viewer):
                assert names[(kind, card)] in mine, (game, viewer, names[(kind, card)])
            if viewer != scenario["seat"]:
                assert page.evaluate(OFFERED) == [], (game, viewer)  # nothing to pick: nothing lit

        # The deciding seat, at the step naming something drawn: exactly that step's drawable
        # choices are offered, as buttons labelled with the choice; a click and Enter choose it.
        seat, choice = scenario["seat"], scenario["choice"]
        _render(page, game, scenario, seat, scenario["chosen"])
        step = [c for c in page.evaluate("() => window.__next") if c.get("kind") in DRAWN[game]]
        offered = page.evaluate(OFFERED)
        assert offered, (game, scenario["kind"])
        # A choice of a player is labelled with the name chosen at the table (issue 41 item 3).
        keys = {
            (c["kind"], c["id"], SEAT_NAMES[int(c["id"])] if c["kind"] == "seat" else c["label"])
            for c in step
        }
        for node in offered:
            assert (node["kind"], node["id"], node["label"]) in keys, (game, node)
            assert node["role"] == "button" and node["tabindex"] == "0"
        assert {(n["kind"], n["id"]) for n in offered} == {(c["kind"], c["id"]) for c in step}, game
        target = page.locator(
            f'#root .bd-choosable[data-choice-kind="{choice["kind"]}"][data-choice-id="{choice["id"]}"]'
        )
        target.first.click()
        assert page.evaluate("() => window.__chosen") == [choice]
        _render(page, game, scenario, seat, scenario["chosen"])
        target.first.focus()
        page.keyboard.press("Enter")
        assert page.evaluate("() => window.__chosen") == [choice]
        # each kind of choice offered, to look at
        page.locator("#root").screenshot(path=str(artifact(f"boards/{game}-choosing-{scenario['kind']}.png")))
        if scenario["kind"] == SHOWCASE[game]:
            page.locator("#root").screenshot(path=str(docs_picture(f"boards/{game}.png")))


def _check_drawn(page: Any, game: str, data: dict[str, Any], views: dict[str, Any], players: int) -> None:
    """Every place by name, the seats by name, nothing raw, the viewer's area set apart."""
    names = _names(data)
    for viewer in [*range(players), None]:
        fixture = {
            "game": game,
            "view": views[str(viewer)],
            "seat": viewer,
            "seatNames": SEAT_NAMES[:players],
            "decision": None,
            "chosen": [],
        }
        page.evaluate("text => window.__render(JSON.parse(text))", json.dumps(fixture))
        assert not page.errors, page.errors
        text = page.evaluate("() => document.getElementById('root').textContent")
        assert not [p["name"] for p in data["places"] if p["name"] not in text], (game, viewer)
        assert not page.evaluate(RAW), (game, viewer, page.evaluate(RAW))
        visible = page.locator("#root").inner_text()
        assert all(SEAT_NAMES[seat] in visible for seat in range(players)), (game, viewer)
        assert page.locator("#root .bd-me").count() == (0 if viewer is None else 1)
        if viewer is not None:
            mine = page.locator("#root .bd-me").inner_text()
            for kind, card in _hand(game, views[str(viewer)], viewer):
                assert names[(kind, card)] in mine, (game, viewer, names[(kind, card)])


@pytest.mark.parametrize("game", list(DRAWN))
def test_the_board_draws_the_smallest_table_midway_and_at_the_end(page: Any, game: str) -> None:
    spec = GAMES[game]
    players = min(spec.player_counts)
    data = json.loads(game_data_json(spec))
    page.evaluate("text => { window.__data = JSON.parse(text) }", json.dumps(data))
    playout = random_playout(spec, players, SEED)
    state = spec.start(playout.config)
    for step in playout.steps[: len(playout.steps) // 2]:
        state = spec.evolve(state, step.events)
    for moment, at in (("midway", state), ("end", playout.final)):
        views = {str(v): _json(spec, spec.view(at, v)) for v in [*range(players), None]}
        _check_drawn(page, game, data, views, players)
        # the spectator's board, to look at
        page.locator("#root").screenshot(path=str(artifact(f"boards/{game}-{players}p-{moment}.png")))
