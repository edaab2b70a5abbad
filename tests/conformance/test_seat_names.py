"""Names, not "Player N": every decision and every log line names players through templates.

Over seeded random playouts of every game and player count, each decision's prompt, steps and
labels and each event's description, rendered with names chosen at the table, hold no
"Player N" (tests/conformance/seat_names.py has the rendering rule)."""

from __future__ import annotations

import pytest

from services.kernel.present import Arg, named, seat_arg
from services.registry import GAMES
from tests.conformance.seat_names import TableNames, seat_name_faults

SEEDS = (7, 8, 9)
_SHOWN = 12

CASES = [(spec.game_id, players) for spec in GAMES.values() for players in spec.player_counts]


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_every_text_naming_a_player_renders_with_the_names_chosen_at_the_table(
    game_id: str, players: int
) -> None:
    faults = list(dict.fromkeys(f for seed in SEEDS for f in seat_name_faults(GAMES[game_id], players, seed)))
    assert not faults, f"{len(faults)} faults, first ones:\n" + "\n".join(faults[:_SHOWN])


def test_the_check_finds_a_seat_named_in_plain_text() -> None:
    names = TableNames(GAMES["ys"], 2)
    text = named("Give {player} a card", seat_arg("player", 1))
    assert names.render(str(text), text.template, text.args) == "Give Bob Table a card"
    assert names.render("Give Player 2 a card", "", ()) == "Give Player 2 a card"


def test_a_component_standing_for_a_seat_is_that_seat_or_its_seatless_name() -> None:
    """Ys's party 2 is the third seat with 3 or 4 players, the neutral player with 2."""
    party = Arg("party", "Player 3", "party", "2")
    assert TableNames(GAMES["ys"], 3).arg(party) == "Cy Table"
    assert TableNames(GAMES["ys"], 2).arg(party) == "the neutral player"
