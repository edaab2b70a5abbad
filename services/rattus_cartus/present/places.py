"""The Rattus Cartus table as places: building row, decks, Nun-row, supply, influence board."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.kernel.present import (
    Place,
)
from services.rattus_cartus.game_data import (
    BUILDING_NAMES,
    CLASS_NAMES,
    NUN_ROW_SIZE,
    ROW_SLOTS,
    slot_name,
)
from services.rattus_cartus.model import (
    BUILDING_CLASS,
    CLASSES,
)
from services.rattus_cartus.present.labels import (
    SLOT,
    TRACK,
)

# -- places -------------------------------------------------------------------------------------

_SOURCE = "FS §1-§2 (SEED components and setup): the table layout is schematic"


def places(catalog: Any) -> Sequence[Place]:
    """The table: the building row (2 or 3 places, ids "0".."2" as in actions and events), the
    decks beside it, the Nun-row, the general supply and the influence board's six tracks (ids
    the class ids) with its start space. No adjacency plays a part in Rattus Cartus."""
    found: list[Place] = [
        Place(
            "building_deck",
            "Building deck",
            "deck",
            0.08,
            0.12,
            group="buildings",
            text="this game's building cards still to come, face down",
            source=_SOURCE,
        ),
        Place(
            "reserve",
            "Reserve deck",
            "deck",
            0.08,
            0.30,
            group="buildings",
            text="building cards set aside face down; they replace a row of one building only",
            source=_SOURCE,
        ),
    ]
    for slot in range(ROW_SLOTS):
        found.append(
            Place(
                str(slot),
                f"{slot_name(slot)[:1].upper()}{slot_name(slot)[1:]} of the round",
                SLOT,
                0.30 + 0.2 * slot,
                0.20,
                group="building_row",
                text="a building card turned up this round; entry spaces 1, 2, ... are filled in order"
                + (" (4-5 players only)" if slot == 2 else ""),
                values={"position": slot, "players": [4, 5] if slot == 2 else [2, 3, 4, 5]},
                source="SEED phase A: 2 buildings with 2-3 players, 3 with 4-5",
            )
        )
    found += [
        Place(
            "supply",
            "General supply",
            "supply",
            0.92,
            0.20,
            group="supply",
            text="Jokers, special cards and victory-point tokens",
            source=_SOURCE,
        ),
        Place(
            "population_deck",
            "Population deck",
            "deck",
            0.10,
            0.50,
            group="population",
            text="face down; reshuffled from the discard pile when it runs out",
            source=_SOURCE,
        ),
        Place(
            "nun_row",
            "Nun-row",
            "nun_row",
            0.50,
            0.50,
            group="population",
            text="5 population cards face down in a fixed order; their nuns decide who the plague takes",
            values={"cards": NUN_ROW_SIZE},
            source="SEED setup step 3",
        ),
        Place(
            "discard_pile",
            "Discard pile",
            "deck",
            0.90,
            0.50,
            group="population",
            text="played and discarded population cards, face up",
            source=_SOURCE,
        ),
        Place(
            "influence_start",
            "Start space",
            "influence_space",
            0.08,
            0.82,
            group="influence_board",
            text="every player's marker starts here on each of the six tracks",
            source="SEED setup step 1",
        ),
    ]
    for i, klass in enumerate(CLASSES):
        buildings = [b for b, k in BUILDING_CLASS.items() if k == klass]
        found.append(
            Place(
                klass,
                f"{CLASS_NAMES[klass]} track",
                TRACK,
                0.22 + 0.14 * i,
                0.82,
                group="influence_board",
                text=f"influence in the {CLASS_NAMES[klass]}; buildings of this class: "
                + ", ".join(BUILDING_NAMES[b] for b in buildings),
                values={"class": klass, "buildings": buildings},
                source="SEED components: the influence board has 6 tracks, one per class",
            )
        )
    return tuple(found)
