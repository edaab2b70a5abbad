"""What a seat may take back in Discworld: Ankh-Morpork (docs/rules/ankh_morpork.md, "What can
be undone").

A card played from one's hand and the symbols it resolves on the open board: minions placed,
moved or removed, buildings, trouble markers, money paid or taken, a card discarded, a City
Area card used, an interrupt answered. Never what draws or looks: cards drawn (also when a turn
ends and the hand is refilled), cards taken, given or shown, hands swapped, a random event, a
die, the Fog's cards, a personality seen or swapped, the personalities at the end. Nor anything
done to or asked of another seat (its minions, buildings or money, a card it must give): whether
that happens at once or waits for the seat's interrupt (Gaspode, Fresh Start Club, Wallace
Sonky...) shows what its hidden hand holds.
"""

from __future__ import annotations

from typing import Any

from services.kernel import UndoRule


def _others(owner: int, player: int) -> bool:
    """A seat's piece or purse other than the actor's (trolls, demons and the bank are nobody's)."""
    return 0 <= owner != player


def _waits_for_another_seat(event: Any, player: int) -> bool:
    """Pending steps another seat decides: an effect aimed at it goes there at once or first
    through its interrupt window, which shows the actor whether its hand holds an answer."""
    return any(_others(frame.player, player) for frame in event.stack)


UNDO = UndoRule(
    quiet=frozenset(
        {
            "turn_started",
            "card_played",
            "card_finished",
            "symbol_done",
            "stack_set",
            "minion_placed",
            "minion_removed",
            "minion_moved",
            "trouble_placed",
            "trouble_removed",
            "building_placed",
            "building_removed",
            "paid",
            "card_discarded",
            "ability_used",
            "interrupted",
        }
    ),
    unless={
        "minion_removed": lambda event, player: _others(event.owner, player),
        "minion_moved": lambda event, player: _others(event.owner, player),
        "building_removed": lambda event, player: _others(event.owner, player),
        "paid": lambda event, player: _others(event.payer, player),
        "stack_set": _waits_for_another_seat,
    },
)
