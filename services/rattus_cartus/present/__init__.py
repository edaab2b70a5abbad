"""How a client presents Rattus Cartus to a person: decisions, event descriptions, board places,
the kinds of ids in its JSON and the sections of its view (services/kernel/present.py).

Ids a client receives: seats; building ids ("farm"); this round's building row by index (the
places "0", "1", "2"); Nun-row positions 0-4 (components of kind "nun_position"); cards as
"<class>:<nuns>" or a special card's kind (components of kind "card"); supply items
("special"); classes, which are also the influence tracks (places "peasantry", ...); phases.
"""

from __future__ import annotations

from services.kernel.present import SEAT, Presentation
from services.rattus_cartus import game_data
from services.rattus_cartus.present.decisions import decision
from services.rattus_cartus.present.descriptions import describe
from services.rattus_cartus.present.labels import BUILDING, CARD, NUN, SLOT, SPECIAL, TRACK
from services.rattus_cartus.present.places import places

# -- id fields and view sections ---------------------------------------------------------------

_SLOT_EVENTS = (
    "choose_supply",
    "enter_building",
    "supply_chosen",
    "building_entered",
    "building_revealed",
    "action_taken",
    "building_cleared",
)

REFS: dict[str, str] = {
    # seats
    **{
        field: SEAT
        for field in (
            "player",
            "viewer",
            "start_player",
            "active",
            "entries",
            "premium",
            "standing",
            "enter_queue",
            "placing",
            "actors",
            "winner",
            "candidates",
            "loser",
            "giver",
            "receiver",
            "givers",
            "entrants",
            "order",
            "next_start_player",
        )
    },
    "action_taken.premium": "",  # a flag there, not a seat
    "deck_reshuffled.order": CARD,
    # cards
    "card": CARD,
    "hand": CARD,
    "my_played": CARD,
    "revealed_cards": CARD,
    "nun_row": CARD,
    "discard": CARD,
    "cards_drawn.cards": CARD,
    "building_revealed.cards": CARD,
    # buildings: an id in building cards, an index into this round's row in actions and events
    "building": BUILDING,
    **{f"{tag}.building": SLOT for tag in _SLOT_EVENTS},
    "building_revealed.name": BUILDING,
    "supply_choice": SLOT,
    "resolving": SLOT,
    "action_taken.action": "building_action",
    # the rest
    "position": NUN,
    "nun_looked": NUN,
    "kind": SPECIAL,
    "track": TRACK,
    "phase": "phase",
}
KEY_REFS: dict[str, str] = {"supply": SPECIAL}

VIEW_SECTIONS: dict[str, str] = {
    "players": "turn",
    "viewer": "self",
    "round": "turn",
    "rounds": "turn",
    "phase": "turn",
    "start_player": "turn",
    "active": "turn",
    "row": "board",
    "entries": "board",
    "premium": "board",
    "resolving": "turn",
    "revealed_cards": "board",
    "hand": "self",
    "my_played": "self",
    "nun_row": "board",
    "seats": "players",
    "tracks": "board",
    "supply": "board",
    "deck_size": "board",
    "discard": "board",
    "building_deck_size": "board",
    "reserve_size": "board",
    "enter_queue": "turn",
    "placing": "turn",
    "duels": "engine",
    "gifts": "turn",
    "actors": "engine",
    "hospital": "turn",
}

PRESENTATION = Presentation(
    decision=decision,
    describe=describe,
    components=game_data.components,
    places=places,
    refs=REFS,
    key_refs=KEY_REFS,
    view_sections=VIEW_SECTIONS,
    score=game_data.SCORE,
)
