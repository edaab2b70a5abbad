"""The places of the Lords of Waterdeep board for the game data (services/kernel/present.py, Place).

Ids: the basic action spaces keep the engine's ids (the `[[spaces]]` of the data file, e.g.
"cliffwatch_inn_2"); the two buildings with three spaces are places of their own
("cliffwatch_inn", "waterdeep_harbor") so a client can ask "which building?" first. The rest is
named here: Builder's Hall's face-up tiles "builders_hall.1".."3" (the view's `hall`, in order),
Cliffwatch Inn's quests "cliffwatch_inn.1".."4" (the view's `inn`), the ten empty lots for
purchased buildings "building_lot.1".."10", the decks and discard piles, the round track
"round.1".."8", the supply, and each seat's Tavern "tavern.0".."4" (by seat).

Adjacency plays no part in the rules but for the round track (rounds follow each other), so only
the round track has neighbours. Positions follow the printed board loosely: the round track on
top, Cliffwatch Inn and its quests on the left, the basic buildings in a row, the lots for
purchased buildings in the middle, Builder's Hall and its tiles on the right, Waterdeep Harbor and
the Intrigue deck at the bottom, the players' Taverns below the board.
"""

from __future__ import annotations

from typing import Any

from services.kernel.present import Place
from services.waterdeep.game_data import effects_text

LOTS = 10  # empty spaces for purchased Building tiles printed on the board [FACTS 0]
ROUNDS = 8
MAX_SEATS = 5
# Basic buildings in a row (x positions), the ones not drawn elsewhere.
_ROW = (
    ("aurora_realms_shop", 0.07),
    ("blackstaff_tower", 0.21),
    ("castle_waterdeep", 0.35),
    ("field_of_triumph", 0.49),
    ("grinning_lion_tavern", 0.63),
    ("the_plinth", 0.77),
)
_MULTI = {
    "cliffwatch_inn": ("Cliffwatch Inn", 0.06, 0.14, "take a quest from its four face-up quests"),
    "waterdeep_harbor": ("Waterdeep Harbor", 0.06, 0.76, "play an intrigue card; reassigned at round end"),
}


def building_of(space_id: str) -> str:
    """The building a basic space belongs to ("cliffwatch_inn_2" -> "cliffwatch_inn"), or ""."""
    head, _, number = space_id.rpartition("_")
    return head if number.isdigit() and head in _MULTI else ""


def places(catalog: Any) -> list[Place]:
    out: list[Place] = []
    rounds = [f"round.{r}" for r in range(1, ROUNDS + 1)]
    for r, pid in enumerate(rounds, start=1):
        near = tuple(rounds[i] for i in (r - 2, r) if 0 <= i < ROUNDS)
        text = "3 VP tokens at setup" + ("; each player's extra agent joins" if r == 5 else "")
        out.append(
            Place(pid, f"Round {r}", "round_space", 0.06 + 0.08 * (r - 1), 0.03, near, "round_track", text)
        )
    for bid, (name, x, y, text) in _MULTI.items():
        out.append(Place(bid, name, "basic_building", x, y, group=bid, text=text))
    row = dict(_ROW)
    for space in catalog.spaces:
        building = building_of(space.id)
        text = effects_text(space.action)
        if building:
            _, x, y, _ = _MULTI[building]
            n = int(space.id.rpartition("_")[2])
            out.append(Place(space.id, space.name, "action_space", x + 0.1 * n, y, group=building, text=text))
        elif space.id == "builders_hall":
            out.append(
                Place(space.id, space.name, "action_space", 0.72, 0.48, group="builders_hall", text=text)
            )
        else:
            out.append(
                Place(
                    space.id,
                    space.name,
                    "action_space",
                    row.get(space.id, 0.91),
                    0.36,
                    group="basic_buildings",
                    text=text,
                )
            )
    for k in range(1, 5):
        out.append(
            Place(
                f"cliffwatch_inn.{k}",
                f"Cliffwatch Inn, quest {k}",
                "inn_slot",
                0.06 + 0.09 * (k - 1),
                0.24,
                group="cliffwatch_inn",
                text="a face-up quest",
            )
        )
    for k in range(1, 4):
        out.append(
            Place(
                f"builders_hall.{k}",
                f"Builder's Hall, tile {k}",
                "hall_slot",
                0.62 + 0.1 * k,
                0.6,
                group="builders_hall",
                text="a face-up Building tile for sale",
            )
        )
    for k in range(1, LOTS + 1):
        row_, col = divmod(k - 1, 5)
        out.append(
            Place(
                f"building_lot.{k}",
                f"Building lot {k}",
                "building_lot",
                0.07 + 0.12 * col,
                0.5 + 0.11 * row_,
                group="purchased_buildings",
                text="an empty space for a purchased Building tile",
            )
        )
    piles = (
        ("quest_deck", "Quest deck", "deck", 0.44, 0.19, "cliffwatch_inn", "face down"),
        ("quest_discard", "Quest discard pile", "discard_pile", 0.54, 0.19, "cliffwatch_inn", "face up"),
        (
            "revealed_quests",
            "Revealed quests",
            "quest_row",
            0.66,
            0.19,
            "cliffwatch_inn",
            "quests turned face up by Bidding War",
        ),
        ("building_stack", "Building stack", "deck", 0.92, 0.48, "builders_hall", "face-down Building tiles"),
        ("intrigue_deck", "Intrigue deck", "deck", 0.44, 0.76, "waterdeep_harbor", "face down"),
        (
            "intrigue_discard",
            "Intrigue discard pile",
            "discard_pile",
            0.54,
            0.76,
            "waterdeep_harbor",
            "played intrigue cards and finished Mandatory Quests",
        ),
        ("supply", "Supply", "supply", 0.8, 0.76, "supply", "adventurers (25 of each type) and Gold"),
    )
    out += [
        Place(pid, name, kind, x, y, group=group, text=text) for pid, name, kind, x, y, group, text in piles
    ]
    for seat in range(MAX_SEATS):
        out.append(
            Place(
                f"tavern.{seat}",
                f"Player {seat + 1}'s Tavern",
                "tavern",
                0.1 + 0.2 * seat,
                0.93,
                group="player_mats",
                text="the player's adventurers and Gold",
            )
        )
    return out
