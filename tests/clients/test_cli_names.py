"""`guildhall play` shows names from the game's published data (GetGameData), not ids, for every
game: in the view, the numbered legal actions and the event log. Through the real entry point in
a pseudo-terminal, against a stack serving all five games; the other seat is held by the test
(it acts only while the terminal's seat waits, so the view the terminal shows stays put)."""

from __future__ import annotations

import asyncio
import io
import json
import re

import msgspec
import pytest

from guildhall_client import AsyncClient
from guildhall_client.names import Names
from services.gamedata import game_data
from services.registry import GAMES
from tests.clients.stack import GatewayStack
from tests.clients.test_cli import spawn

FIVE = ("rattus_cartus", "ys", "bruges", "ankh_morpork", "waterdeep")


@pytest.fixture(scope="module")
def five(tmp_path_factory):
    with GatewayStack(tmp_path_factory.mktemp("five"), games=FIVE) as running:
        yield running


def data_names(game: str) -> Names:
    """The names as the game's data file gives them (what the gateway serves)."""
    return Names(msgspec.to_builtins(game_data(GAMES[game])))


def shown(game: str, view: dict, seat: int, legal: list) -> list[tuple[str, object]]:
    """(field, value) pairs the terminal shows in full: the seat's own cards and the actions."""
    pairs: list[tuple[str, object]] = []

    def walk(value: object, field: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k))
        elif isinstance(value, list):
            for v in value:
                walk(v, field)
        elif isinstance(value, str | int) and not isinstance(value, bool):
            pairs.append((field, value))

    if game == "rattus_cartus":
        walk(view["hand"], "card")
        walk([b["building"] for b in view["row"]], "building")
    elif game == "ys":
        walk(view["ports"], "ship")
        walk([c for c in view["offered"] if c], "character")
    else:
        walk(next(s for s in view["seats"] if s.get("player") == seat), "")
    walk([{k: v for k, v in a.items() if k != "type"} for a in legal], "")
    return pairs


def test_an_id_two_kinds_share_under_one_name_is_named_in_any_field() -> None:
    """Ankh-Morpork's Gaspode is a card and the reaction it plays, both "Gaspode": a list of
    played cards (a field no kind answers to) names it. It once stayed an id there, and the
    terminal showed "gaspode" when a match dealt it (test_play_shows_names_not_ids)."""
    names = data_names("ankh_morpork")
    assert set(names.kinds["card"]) & set(names.kinds["reaction"]) >= {"gaspode"}
    assert names.name("played", "gaspode") == "Gaspode"
    assert names.value(["gaspode"], "discard") == "[Gaspode]"


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_data_names_ids_of_every_game() -> None:
    expected = {
        "rattus_cartus": ("card", "chivalry:3", "Chivalry (3 nuns)"),
        "ys": ("ship", "s10", "Ship 10"),
        "bruges": ("card", 0, "Prince"),
        "ankh_morpork": ("area", 1, "Dolly Sisters"),
        "waterdeep": ("option", "retrieve_ancient_artifacts", "Retrieve Ancient Artifacts"),
    }
    for game, (field, value, name) in expected.items():
        assert data_names(game).name(field, value) == name
    # A seat number or a count is never taken for a card.
    assert data_names("bruges").name("player", 0) is None
    assert data_names("ankh_morpork").name("money", 1) is None


@pytest.mark.parametrize("game", FIVE)
def test_play_shows_names_not_ids(five, game) -> None:
    names = data_names(game)

    async def setup() -> tuple[str, str, str]:
        async with AsyncClient(five.target, api_key=five.api_key) as gh:
            created = await gh.create_match(game, ["you", "them"])
            return created.match_id, created.seats[0].token, created.seats[1].token

    match, mine, theirs = asyncio.run(setup())
    child = spawn(five, "--token", mine, "play", game, "--match", match, timeout=60)
    out = io.StringIO()
    child.logfile_read = out

    async def until_my_turn():
        async with AsyncClient(five.target, token=mine) as me, AsyncClient(five.target, token=theirs) as them:
            for _ in range(200):
                view = await me.get_view(match)
                if view.my_turn:
                    return view
                other = await them.get_view(match)
                assert other.my_turn, "nobody may act"
                await them.submit(match, other.legal_actions[0], expected_version=other.version)
            raise AssertionError("the terminal's seat never got a turn")

    try:
        view = asyncio.run(until_my_turn())
        child.expect(r"Your choice \[1-(\d+)")
        text = flat(out.getvalue())
        # The menu walks the game's decision: its prompt and the first step's labels are shown.
        assert view.decision is not None and flat(view.decision.prompt) in text
        pairs = shown(game, view.view, view.seat, view.legal_actions)
        named = [(f, v, names.name(f, v)) for f, v in pairs if names.name(f, v) is not None]
        assert len({v for _, v, _ in named}) >= 2, f"{game}: too few named ids to test: {pairs}"
        for _, value, name in named:
            if isinstance(value, str) and value != name:
                assert not re.search(rf"(?<![\w:.]){re.escape(value)}(?![\w:])", text), (
                    f"{game}: the id {value!r} is shown"
                )
        if game == "bruges":  # person cards are numbers: the hand is never shown as them
            hand = next(s for s in view.view["seats"] if s["player"] == view.seat)["hand"]
            assert not hand or (json.dumps(hand) not in text and ", ".join(map(str, hand)) not in text)
        # Take the first choice of every step: the action is accepted, and the event log prints
        # each event of that version as the gateway described it to this seat.
        for _ in range(8):
            child.sendline("1")
            if child.expect([r"accepted at version (\d+)", r"Your choice \[1-(\d+)"]) == 0:
                break
        else:
            raise AssertionError(f"{game}: the menu never reached an action")
        version = int(child.match.group(1))
        child.expect(r"waiting for|Your choice|is over|finished")  # the log is printed by then
        line = flat(child.before)

        async def described() -> list[str]:
            async with AsyncClient(five.target, token=mine) as me:
                events = await me.events(match, from_version=view.version)
            return [
                e.description.text
                for e in events
                if e.version <= version and e.description is not None and not e.description.internal
            ]

        texts = asyncio.run(described())
        assert texts, f"{game}: the gateway described none of the append's events"
        for description in texts:
            assert flat(description) in line, f"{game}: {description!r} not in {line!r}"
    finally:
        child.terminate(force=True)
