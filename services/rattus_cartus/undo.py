"""What a seat may take back in Rattus Cartus (docs/rules/rattus_cartus.md, "What can be undone").

A supply action that draws nothing, entering a building, a Pass, a card put face down, finishing
one's entry, and the choices of the resolution phase on the open table (a duel's victim, a
building's action, Hospital discards). Never a look at a Nun-row card, cards drawn, a card given
to another seat (its receiver sees it), and anything whose automatic flow turns up a building's
cards or the next round's buildings.
"""

from __future__ import annotations

from services.kernel import UndoRule

UNDO = UndoRule(
    quiet=frozenset(
        {
            "supply_chosen",
            "rats_discarded",
            "looks_granted",
            "entering_started",
            "pass_played",
            "building_entered",
            "card_played",
            "entering_finished",
            "duel_lost",
            "action_taken",
            "supplies_taken",
            "influence_gained",
            "hospital_opened",
            "card_discarded_for_rat",
            "hospital_left",
            "tribute_demanded",
            "building_cleared",
            "round_ended",
        }
    )
)
