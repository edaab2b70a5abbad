"""What a seat may take back in Ys (docs/rules/ys.md, "What can be undone").

Everything placed or chosen in the open or behind one's own screen, until the next reveal: a
bid (until the last bid reveals them all), an order card, a broker placed face up or face down,
a neutral broker whose value its placer chose, a Conjurer replacement, a character card played
from the public hand, a pass, and the choices of the counting phase once the brokers are turned
up. Never: a Spy's look (`broker_peeked`), a neutral broker drawn unseen (a draw), and anything
whose automatic flow turns up hidden brokers, bids, leftovers or a new turn's cards.
"""

from __future__ import annotations

from services.kernel import UndoRule

UNDO = UndoRule(
    quiet=frozenset(
        {
            "bid_placed",
            "order_card_chosen",
            "window_opened",
            "window_passed",
            "placement_round_started",
            "broker_placed",
            "neutral_placed",
            "front_replaced",
            "placement_finished",
            "character_played",
            "gems_taken",
            "character_won",
            "character_discarded",
            "brokers_returned",
            "columns_ranked",
            "quotation_moved",
            "no_contributor",
            "throne_chosen",
        }
    )
)
