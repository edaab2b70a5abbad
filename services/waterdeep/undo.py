"""What a seat may take back in Lords of Waterdeep (docs/rules/waterdeep.md, "What can be undone").

An agent placed and what its space gives from the open board (resources, a face-up quest taken
from the revealed ones, the first-player marker, the Ambassador), a quest completed, an Intrigue
card played from one's own hand, the answers to one's own decisions and the end of a turn. Never
what turns up a hidden card: an Intrigue card drawn, a quest taken from the top of the deck or
from Cliffwatch Inn (the inn refills from the deck), a building bought (Builder's Hall refills
from the stack, or the tile comes from its top), quests revealed, a reshuffle, the Lords at the
end.
"""

from __future__ import annotations

from typing import Any

from services.kernel import UndoRule

# QuestTaken/BuildingBought slot -1: from the top of the face-down deck or stack.
_FROM_THE_TOP = -1


def _from_the_top(event: Any, player: int) -> bool:
    return bool(event.slot == _FROM_THE_TOP)


UNDO = UndoRule(
    quiet=frozenset(
        {
            "round_started",
            "turn_started",
            "turn_ended",
            "reassignment_started",
            "round_ended",
            "decisions_pushed",
            "decision_done",
            "agent_placed",
            "agent_removed",
            "harbor_shared",
            "placement_passed",
            "action_begun",
            "gained",
            "plot_fired",
            "stock_taken",
            "intrigue_played",
            "mandatory_quest_given",
            "quest_taken",
            "quest_discarded",
            "quest_completed",
            "building_discarded",
            "first_player_taken",
            "ambassador_taken",
            "lieutenant_joined",
            "round_flag_used",
            "quest_limit_reached",
        }
    ),
    unless={"quest_taken": _from_the_top},
)
