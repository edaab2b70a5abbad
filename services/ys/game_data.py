"""Ys's components for its game data (GetGameData): every card, building and place by
kind and id with a name a person reads (services/kernel/gamedata.py has the shapes).

Besides the ship and character cards of the data file, every id the engine writes in its JSON
has a component here: gems by colour, broker values, order cards, neighbourhoods by number,
parties (with 2 players party 2 is the neutral player), card windows and phases.

The engine writes "" for "none" in a few fields (a port with no ship after the turn, a card
already taken, a market row without a gem, a card played without a place): clients read "" as
nothing there, as the kernel's id check does (services/kernel/present.py).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from services.kernel.gamedata import Built, Component, Deck, DeckPart
from services.kernel.present import ScoreSheet
from services.ys.model import (
    AFTER_PLACING,
    BEFORE_PLACING,
    BID,
    COLOURS,
    COUNT,
    COUNTING_END,
    COUNTING_START,
    IMMEDIATE,
    ORDER,
    OVER,
    PLACE,
    PLACEMENT_START,
    THRONE,
    TURNS,
    WINDOW,
)
from services.ys.tables import BLACK_TABLE, BROKERS, COLUMN_MOVES, GEM_TABLE, KINGS_FAVOR_TWOS, THRONE_POINTS

WINDOW_NAMES = {
    PLACEMENT_START: "Start of placement",
    BEFORE_PLACING: "Just before your placement round",
    AFTER_PLACING: "Right after placing your two brokers",
    COUNTING_START: "Start of counting",
    COUNTING_END: "End of counting",
    IMMEDIATE: "When won",
}
WINDOW_TEXT = {
    PLACEMENT_START: "person symbol: played at the start of phase 3, in turn order",
    BEFORE_PLACING: "person and star: just before one of your own placement rounds",
    AFTER_PLACING: "person and star: right after placing your two brokers",
    COUNTING_START: "coin symbol: played at the start of phase 4, in turn order",
    COUNTING_END: "clock symbol: played at the end of phase 4, in turn order",
    IMMEDIATE: "takes effect at once when won (King, Prince, blue cards)",
}
# When a character card is played, as the start of its text [SEED p.10-12].
WINDOW_WHEN = {
    PLACEMENT_START: "At the start of placement",
    BEFORE_PLACING: "Just before one of your placement rounds",
    AFTER_PLACING: "Right after you place your two brokers",
    COUNTING_START: "At the start of counting",
    COUNTING_END: "At the end of counting",
    IMMEDIATE: "As soon as you win it",
}
# What each effect primitive does ("{n}" is the card's amount) [SEED p.11-12, the cards' sources].
EFFECT_TEXT = {
    "exchange_gem": "you may swap one of your gems for a gem of another colour (not black or white)",
    "shift_prices": "move one gem's price up {n} space and another's down {n}",
    "swap_ships": "swap two ship cards in the ports",
    "all_face_down": "you may place all your brokers face down this turn",
    "peek": "look at up to {n} face-down brokers of other players during this placement",
    "move_own_broker": (
        "move one of your brokers to another open place, face kept (from the city to the market earns 1 gold)"
    ),
    "place_from_front": (
        "you may place brokers from in front of your screen, replacing each with one from behind it"
    ),
    "win_ties": "you win every tie this turn, except between the values of market columns",
    "gain_gems": "take {n} gems of one colour of your choice (not black)",
    "swap_own_brokers": "swap the places of two of your brokers (not in an area the Queen closed)",
    "commercial_bonus": "whoever wins a commercial area this turn takes {n} gold instead of 3",
    "fixed_value": "mark one of the two brokers you just placed: it counts as {n} this turn",
    "close_area": "close a city area: no more brokers may go there this turn",
    "gain_vp": "score {n} gold (outside your limit of two cards)",
    "gain_white_gem": (
        "take a white gem and exchange it at once for a blue, green, yellow or red gem "
        "(outside your limit of two cards)"
    ),
}


def character_text(c: Any) -> str:
    """A character card as its owner reads it: when it is played and what it does."""
    return f"{WINDOW_WHEN[c.window]}: {EFFECT_TEXT[c.effect].replace('{n}', str(c.amount))}."


PHASE_NAMES = {
    BID: "Bidding for the turn order",
    ORDER: "Choosing order cards",
    WINDOW: "Playing character cards",
    PLACE: "Placing brokers",
    COUNT: "Counting",
    THRONE: "Sending a broker to the throne",
    OVER: "Game over",
}
GEM_TEXT = {
    "black": "Won only as a port's majority bonus; black gems score on their own table at the end.",
    "white": "Wild: exchanged at once for a blue, green, yellow or red gem; never kept.",
}
ORDINAL = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}


def ship_text(s: Any) -> str:
    """A ship card: the gems its port's neighbourhood ranking hands out [SEED p.8]."""
    small = " and ".join(s.small) if s.small else ""
    text = f"Gems for its port's neighbourhood: a large {s.large} gem (it counts 2 with 4 players)" + (
        f", small {small} gems." if small else "."
    )
    return ("Stand-in card (the real ship deck is not public). " + text) if s.stand_in else text


def ship_name(ship_id: str) -> str:
    return f"Ship {ship_id[1:] if ship_id[:1] == 's' else ship_id}"


def party_name(party: int) -> str:
    return f"Player {party + 1}"


# What the score means (docs/rules/ys.md, "Score") [SEED p.7-9, p.13].
SCORE = ScoreSheet(
    during_play=(
        "Gold won so far: market placements, commercial majorities, the King and the Prince. At the "
        "end gems score by the rank of their price, black gems by how many you hold (and the throne "
        "with King's Favor)."
    ),
    breakdown={
        "market_placements": "Market placements",
        "commercial_majorities": "Commercial majorities",
        "king_and_prince": "King and Prince",
        **{f"gems_{c}": f"{c.capitalize()} gems" for c in COLOURS},
        "black_gems": "Black gems",
        "throne": "Throne room",
    },
    facts={
        "gems": "gems held (break ties)",
        "black_gems": "black gems",
        **{c: f"{c} gems" for c in COLOURS},
        "throne_total": "throne brokers' total",
        "neutral_score": "the neutral player's score",
    },
)


def components(catalog: Any) -> Built:
    kinds = {
        "ship": "ship card",
        "character": "character card",
        "gem": "gem",
        "broker": "broker (by value)",
        "order_card": "order card",
        "neighbourhood": "neighbourhood (by number)",
        "party": "party (a seat, or the neutral player with 2 players)",
        "window": "character-card window",
        "phase": "phase",
    }
    components = [
        Component(
            "ship",
            s.id,
            ship_name(s.id),
            text=ship_text(s),
            values={"large": s.large, "small": list(s.small)},
            stand_in=s.stand_in,
            source=s.source,
        )
        for s in catalog.ships
    ]
    for c in catalog.characters:
        components.append(
            Component(
                "character",
                c.id,
                c.name,
                text=character_text(c),
                values={
                    "edge": c.edge,
                    "window": c.window,
                    "effect": c.effect,
                    "amount": c.amount,
                    "name_es": c.name_es,
                },
                stand_in=c.stand_in,
                source=c.source,
            )
        )
    for colour in (*COLOURS, "black", "white"):
        text = GEM_TEXT.get(
            colour,
            f"At the end, those holding the most {colour} gems score, more the higher the {colour} "
            f"price ranks (up to {GEM_TABLE[0][0]}); the {colour} market column moves its price.",
        )
        components.append(Component("gem", colour, f"{colour} gem", text=text, source="SEED p.2, p.5"))
    counts = Counter(BROKERS)
    for value in range(5):
        extra = f"; King's Favor adds {KINGS_FAVOR_TWOS} more" if value == 2 else ""
        components.append(
            Component(
                "broker",
                str(value),
                f"Broker {value}",
                text=(
                    f"Counts {value} toward the majority where it stands; {counts[value]} in each "
                    f"player's set{extra}."
                ),
                values={"value": value},
                count=counts[value],
                source="FS 2 (BGG review), SEED setup",
            )
        )
    for card in range(1, 7):
        components.append(
            Component(
                "order_card",
                str(card),
                f"Order card {card}",
                text=(
                    f"You place {ORDINAL[card]} in each placement round this turn; when tie-break "
                    "brokers are equal, the lower order card wins."
                ),
                values={"number": card},
                source="SEED p.6; UBG (6 order cards, 1-4 used with 4 players)",
            )
        )
    components.append(Component("order_card", "0", "no order card", text="not chosen yet", count=0))
    for k in range(1, 5):
        components.append(
            Component(
                "neighbourhood",
                str(k),
                f"Neighbourhood {k}",
                text=(
                    "Its port, commercial area and palace are counted together: the highest totals "
                    "take the gems of its port's ship."
                ),
                values={"place": f"n{k}"},
                source="SEED p.3, p.8",
            )
        )
    for party in range(4):
        text = "with 2 players: the neutral player (a third colour with no seat)" if party == 2 else ""
        # `seat`: the seat this party is when the match has it; `seatless`: what it is called
        # when it does not (docs/clients.md, "Names chosen at the table").
        values: dict[str, Any] = {"seat": party}
        if party == 2:
            values["seatless"] = "the neutral player"
        components.append(Component("party", str(party), party_name(party), text=text, values=values))
    for window, name in WINDOW_NAMES.items():
        components.append(Component("window", window, name, text=WINDOW_TEXT[window], source="SEED p.10"))
    for phase, name in PHASE_NAMES.items():
        components.append(Component("phase", phase, name, source="SEED p.5-9"))
    decks = [
        Deck("ships", "Ship cards", tuple(DeckPart("ship", s.id, 1) for s in catalog.ships)),
        Deck(
            "characters",
            "Character cards",
            tuple(DeckPart("character", c.id, 1) for c in catalog.characters),
        ),
        Deck(
            "brokers",
            "Brokers of one colour",
            tuple(DeckPart("broker", str(v), n) for v, n in sorted(counts.items())),
            text="each player's set (Ys Express removes a 3 and a 1)",
        ),
    ]
    boards = {
        "gem_points": [list(row) for row in GEM_TABLE],
        "black_points": list(BLACK_TABLE),
        "throne_points": list(THRONE_POINTS),
        "column_moves": list(COLUMN_MOVES),
        "columns": list(COLOURS),
        # Game turns in a match; the view's `round` of `rounds` is the placement round of a turn.
        "turns": TURNS,
    }
    return kinds, components, decks, boards
