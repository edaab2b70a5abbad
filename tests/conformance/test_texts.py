"""Every component a decision offers, and every card a player holds, has a player-facing text.

Over seeded random playouts of every game and player count: each choice's component or place,
and each card any view shows, resolves in the game data to a text that says what it is or does
(tests/conformance/texts.py has the rules of a good text). Every card of every deck is checked
too, drawn in a playout or not.
"""

from __future__ import annotations

import pytest

from services.gamedata import game_data
from services.registry import GAMES
from tests.conformance.texts import card_text_faults, text_faults

SEEDS = (7, 8)
_SHOWN = 12

CASES = [(spec.game_id, players) for spec in GAMES.values() for players in spec.player_counts]


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_everything_a_player_chooses_or_holds_says_what_it_does(game_id: str, players: int) -> None:
    faults = [f for seed in SEEDS for f in card_text_faults(GAMES[game_id], players, seed)]
    faults = list(dict.fromkeys(faults))
    assert not faults, f"{len(faults)} faults, first ones:\n" + "\n".join(faults[:_SHOWN])


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_card_of_every_deck_says_what_it_does(game_id: str) -> None:
    document = game_data(GAMES[game_id])
    kinds = {part.kind for deck in document.decks for part in deck.parts}
    faults = [
        fault
        for c in document.components
        if c.kind in kinds
        for fault in text_faults(c.kind, c.id, c.name, c.text)
    ]
    assert not faults, f"{len(faults)} faults, first ones:\n" + "\n".join(faults[:_SHOWN])


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "has no text"),
        ("Ambush", "only its id or name"),
        ("shift_prices (1)", "engine identifier"),
        ("needs 2 fighters; reward ; plot: buy vp", "empty item"),
        ("Stand-in ability:", "'Stand-in' with no ability"),
        ("Stand-in", "'Stand-in' with no ability"),
        ("(Stand-in person: the real card list is not public.)", "'Stand-in' with no ability"),
        ("take {amount} gold", "unfilled template slot"),
        ("TODO: write the text", "placeholder"),
        ("gain ()", "empty brackets"),
    ],
)
def test_the_check_refuses_texts_that_tell_a_player_nothing(text: str, why: str) -> None:
    faults = text_faults("intrigue", "ambush", "Ambush", text)
    assert faults and why in faults[0], faults


@pytest.mark.parametrize(
    "text",
    [
        "Stand-in ability: once, when recruited: take 6 guilders.",
        "Once, when recruited: take 6 guilders. (Stand-in person: the real card list is not public.)",
    ],
)
def test_the_check_accepts_a_stand_in_that_says_what_it_does(text: str) -> None:
    assert not text_faults("person", "99", "Stand-in Castle 04", text)
