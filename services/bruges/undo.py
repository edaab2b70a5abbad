"""What a seat may take back in Bruges (docs/rules/bruges.md, "What can be undone").

A card played for any of its six actions (guilders and workers at the dice already rolled, a
threat returned, a canal, a house face down, a person recruited), a person activated, a
reputation step bought or declined, the answers to one's own tasks, and the end of a turn. Never
a card drawn (only its back was known), a look at the hand, the dice, and anything whose
automatic flow draws or rolls.
"""

from __future__ import annotations

from services.kernel import UndoRule

UNDO = UndoRule(
    quiet=frozenset(
        {
            "reputation_bought",
            "phase_started",
            "turn_started",
            "card_played",
            "gained",
            "threat_returned",
            "canal_built",
            "statue_taken",
            "canal_removed",
            "person_activated",
            "extra_play_granted",
            "tasks_added",
            "task_dropped",
            "card_discarded",
            "worker_given",
            "person_lost",
            "house_lost",
            "turn_ended",
            "majorities_checked",
            "round_ended",
            "round_started",
        }
    )
)
