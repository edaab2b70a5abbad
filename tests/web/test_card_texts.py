"""Card texts where a player decides, in every game's board, in Debian's Chromium: drawn with the
boards' harness (clients/web/table/games/harness.ts, as tests/web/test_boards_a.py does) at a seat
choosing a card, person, character or quest from its hand or the table, at 1280x900 and at 360 px.

- Every card in the viewer's hand shows what it does (its game-data text) on the card, in type a
  player can read (12 px or more of a font at least 11 px, inside the screen's width).
- A card offered as a choice is a button described by that text (aria-describedby), for screen
  readers; its whole text shows in a tooltip on hover, on keyboard focus and on a long press
  (touch), and a long press chooses nothing; Escape hides it.
- axe-core finds no serious or critical violation on the board.

Screenshots go to var/test-artifacts/web/card-texts/<game>-<width>.png (never docs/images/).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from services.gamedata import game_data_json
from services.kernel.testing import random_playout
from services.registry import GAMES
from tests.web.pictures import artifact

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"
AXE = WEB / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
SEAT_NAMES = ["Ada", "Bruno", "Chiara", "Dmitri", "Esi"]
SEED = 11
# Per game: players, and the kind of the viewer's own cards a decision offers (a hand, or the
# quests at Cliffwatch Inn a Waterdeep seat chooses from).
CASES = {
    "ankh_morpork": (3, "card"),
    "rattus_cartus": (3, "card"),
    "ys": (3, "character"),
    "bruges": (3, "person"),
    "waterdeep": (3, "intrigue_copy"),
}
WIDTHS = ((1280, 900), (360, 780))


def _json(spec: Any, value: Any) -> Any:
    return msgspec.json.decode(spec.codec.encode_json(value))


def _fixture(game: str) -> dict[str, Any]:
    """The first moment past a third of a seeded playout where the deciding seat's current step
    offers components of the game's card kind: its view, the decision and the choices made."""
    spec = GAMES[game]
    players, kind = CASES[game]
    presentation = spec.presentation
    assert presentation is not None
    playout = random_playout(spec, players, SEED)
    state = spec.start(playout.config)
    for number, step in enumerate(playout.steps):
        if number >= len(playout.steps) // 3:
            for seat in spec.active_players(state):
                decision = presentation.decision(state, seat, spec.legal_actions(state, seat))
                view = _json(spec, spec.view(state, seat))
                hand = {card for _, card in _hand(game, view, seat)}
                for option in decision.options:
                    at = next((i for i, c in enumerate(option.choices) if c.kind == kind), None)
                    if at is None or option.choices[at].id not in hand:
                        continue
                    return {
                        "game": game,
                        "view": view,
                        "seat": seat,
                        "seatNames": SEAT_NAMES[:players],
                        "decision": _json(spec, decision),
                        "chosen": [_json(spec, c) for c in option.choices[:at]],
                    }
        state = spec.evolve(state, step.events)
    raise AssertionError(f"{game}: no decision offers a {kind} after a third of the playout")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    assert shutil.which(CHROMIUM), "chromium is not installed: `make chromium`"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _open(browser: Any, harness: str, width: int, height: int, game: str, fixture: dict[str, Any]) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_content(
        "<!doctype html><html lang=en><head><title>board</title></head>"
        "<body style='margin:0;background:#faf8f3'><main id=root></main></body></html>"
    )
    page.add_script_tag(content=harness)
    page.evaluate("text => { window.__data = JSON.parse(text) }", game_data_json(GAMES[game]).decode())
    page.evaluate("text => window.__render(JSON.parse(text))", json.dumps(fixture))
    assert not errors, errors
    return page


# Each card of the viewer's that shows a text: its name, its text element and what it looks like.
CARDS = """() => [...document.querySelectorAll('#root [data-card-text]')].map(t => {
  const card = t.parentElement, style = getComputedStyle(t), box = t.getBoundingClientRect();
  const button = card.querySelector(':scope > [role=button]');
  return { text: t.textContent, tip: card.dataset.tip, fontSize: parseFloat(style.fontSize),
           left: box.left, right: box.right, height: box.height,
           button: button ? { kind: button.dataset.choiceKind, id: button.dataset.choiceId,
                              describedBy: button.getAttribute('aria-describedby') } : null,
           textId: t.id, focusable: card.getAttribute('tabindex') };
})"""
TIP = (
    """() => { const t = document.getElementById('gh-tip'); return t && !t.hidden ? t.textContent : null; }"""
)


def _texts(game: str) -> dict[tuple[str, str], str]:
    data = json.loads(game_data_json(GAMES[game]))
    return {(c["kind"], c["id"]): c["text"] for c in data["components"]}


def _hand(game: str, view: dict[str, Any], seat: int) -> list[tuple[str, str]]:
    """The viewer's own cards, as (kind, id)."""
    mine = view["seats"][seat]
    if game == "ankh_morpork":
        return [("card", c) for c in mine["hand"]]
    if game == "rattus_cartus":
        return [("card", c) for c in view["hand"]]
    if game == "ys":
        return [("character", c) for c in mine["hand"] + mine["new_cards"]]
    if game == "bruges":
        return [("person", str(c)) for c in mine["hand"]]
    return [("intrigue_copy", c) for c in mine["intrigue"]]


@pytest.mark.parametrize("game", list(CASES))
def test_the_cards_a_player_holds_and_chooses_say_what_they_do(browser: Any, harness: str, game: str) -> None:
    fixture = _fixture(game)
    texts = _texts(game)
    hand = _hand(game, fixture["view"], fixture["seat"])
    assert hand, f"{game}: the viewer holds no card at the chosen moment"
    for width, height in WIDTHS:
        page = _open(browser, harness, width, height, game, fixture)
        try:
            cards = page.evaluate(CARDS)
            shown = [c["text"] for c in cards]
            for kind, card in hand:
                assert texts[(kind, card)] in shown, (game, width, kind, card)
            for c in cards:
                assert c["fontSize"] >= 11, (game, width, c)  # readable type
                assert c["height"] >= 12, (game, width, c)  # at least a line shows
                assert c["left"] >= 0 and c["right"] <= width + 1, (game, width, c)  # on the screen
                assert c["tip"] == c["text"], (game, c)  # the whole text in its tooltip
            offered = [c for c in cards if c["button"]]
            assert offered, f"{game}: no card offered as a choice"
            for c in offered:
                assert c["button"]["describedBy"] == c["textId"], c  # read out with the button
                assert c["text"] == texts[(c["button"]["kind"], c["button"]["id"])], c
            held = [c for c in cards if not c["button"]]
            assert all(c["focusable"] == "0" for c in held), "a card nobody may pick is a keyboard stop"

            kind, cid = offered[0]["button"]["kind"], offered[0]["button"]["id"]
            card = page.locator(
                f'#root [role=button][data-choice-kind="{kind}"][data-choice-id="{cid}"]'
            ).first
            want = texts[(kind, cid)]
            # Hover: the tooltip holds the whole text; Escape hides it.
            card.scroll_into_view_if_needed()
            card.hover()
            assert want in (page.evaluate(TIP) or ""), (game, "hover")
            page.keyboard.press("Escape")
            assert page.evaluate(TIP) is None
            # Keyboard: Tab to the card's button shows it too.
            page.mouse.move(0, 0)
            page.evaluate("() => document.activeElement && document.activeElement.blur()")
            for _ in range(200):
                page.keyboard.press("Tab")
                if page.evaluate("() => document.activeElement?.getAttribute('data-choice-id')") == cid:
                    break
            assert want in (page.evaluate(TIP) or ""), (game, "keyboard")
            page.keyboard.press("Escape")
            # Touch: a long press shows the text and chooses nothing.
            before = page.evaluate("() => window.__chosen.length")
            box = card.bounding_box()
            assert box is not None
            at = {"clientX": box["x"] + box["width"] / 2, "clientY": box["y"] + box["height"] / 2}
            touch = {"pointerType": "touch", "bubbles": True, "isPrimary": True, **at}
            card.dispatch_event("pointerdown", touch)
            page.wait_for_timeout(700)
            card.dispatch_event("pointerup", touch)
            card.dispatch_event("click", {"bubbles": True, **at})
            assert want in (page.evaluate(TIP) or ""), (game, "long press")
            assert page.evaluate("() => window.__chosen.length") == before, "a long press is no choice"

            page.evaluate("text => window.__render(JSON.parse(text))", json.dumps(fixture))
            page.add_script_tag(content=AXE.read_text())
            violations = page.evaluate(
                "async () => (await axe.run(document.getElementById('root'), {resultTypes: ['violations']}))"
                ".violations.filter(v => v.impact === 'serious' || v.impact === 'critical')"
                ".map(v => `${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)"
            )
            assert not violations, (game, width, violations)
            page.screenshot(path=str(artifact(f"card-texts/{game}-{width}.png")), full_page=True)
        finally:
            page.context.close()
