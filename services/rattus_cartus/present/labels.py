"""Kinds of ids and the label tables that decisions and descriptions share, built once."""

from __future__ import annotations

from services.kernel.present import (
    Choice,
    player_choice,
)
from services.rattus_cartus.game_data import (
    BUILDING_NAMES,
    NUN_ROW_SIZE,
    ORDINALS,
    SPECIAL_NAMES,
    card_name,
    nun_position_name,
    slot_name,
)
from services.rattus_cartus.model import (
    CLASSES,
    State,
)

# Kinds of ids (components in game_data.py, places in places.py).
CARD = "card"
BUILDING = "building"
SLOT = "building_slot"
NUN = "nun_position"
SPECIAL = "special"
TRACK = "influence_track"

# -- label tables, built once -------------------------------------------------------------------

_CARD_CHOICE: dict[str, Choice] = {}


def card_choice(card: str) -> Choice:
    choice = _CARD_CHOICE.get(card)
    if choice is None:
        choice = _CARD_CHOICE[card] = Choice("Which card?", card_name(card), CARD, card)
    return choice


for _klass in CLASSES:
    for _nuns in range(5):
        card_choice(f"{_klass}:{_nuns}")
for _special in SPECIAL_NAMES:
    card_choice(_special)

NUN_CHOICES = tuple(
    Choice("Which Nun-row card?", f"{nun_position_name(i)} (the {ORDINALS[i]} from the left)", NUN, str(i))
    for i in range(NUN_ROW_SIZE)
)
_SEAT_CHOICES: dict[int, Choice] = {}


def building_label(building: str) -> str:
    return BUILDING_NAMES.get(building, building)


def slot_label(state: State, slot: int) -> str:
    """`Castle (2nd building)`: the building card at that place of this round's row."""
    name = building_label(state.row[slot].building) if 0 <= slot < len(state.row) else "?"
    return f"{name} ({slot_name(slot)})"


ENTER_STEP = "What do you do?"
PLAY_STEP = "Play another card or stop?"
HOSPITAL_STEP = "Discard a card or stop?"


def seat_choice(seat: int) -> Choice:
    choice = _SEAT_CHOICES.get(seat)
    if choice is None:
        choice = _SEAT_CHOICES[seat] = player_choice("Which player pays?", seat)
    return choice
