"""The places of the Bruges board for the game data: the reputation track (the town hall and its
12 steps), the five dice, the statue pile, the draw piles and the discard pile, the five colours'
threat tracks (three markers strike), the four guard houses with their two canal sections of
five spaces each, and the scoring track. Positions are a schematic in the unit square.

Seat i builds at guard house i (docs/rules/bruges.md, rules decision 2), so a seat's canal
section 0/1 is the place `canal.<i>.left.<n>` / `canal.<i>.right.<n>` (n = 1..5 from the seal).
"""

from __future__ import annotations

from typing import Any

from services.bruges.model import COLOURS, REPUTATION_STEPS, SECTION_SPACES, THREAT_LIMIT
from services.kernel.gamedata import count_text, title_words
from services.kernel.present import Place

SIDES = ("left", "right")
PILE_TEXT = "Face down, its top card's colour showing: draw from either pile."
GUARD_HOUSE_XY = ((0.25, 0.6), (0.75, 0.6), (0.25, 0.8), (0.75, 0.8))
CANAL_STEP = 0.045


def guard_house_id(house: int) -> str:
    return f"guard_house.{house}"


def canal_space_id(house: int, section: int, space: int) -> str:
    """The place of a canal space: guard house, section (0 left, 1 right), space 1..5 from the seal."""
    return f"canal.{house}.{SIDES[section]}.{space}"


def canal_space_name(section: int, space: int) -> str:
    return f"{SIDES[section]} section, space {space}"


def pile_id(pile: int) -> str:
    return f"pile.{pile}"


def places(catalog: Any) -> tuple[Place, ...]:
    board = catalog.board
    stand_in = bool(board.stand_in)
    out: list[Place] = []
    # The reputation track: the town hall (step 0, where every pawn starts) and steps 1-12.
    last = REPUTATION_STEPS
    for step in range(last + 1):
        neighbours = tuple(f"reputation.{s}" for s in (step - 1, step + 1) if 0 <= s <= last)
        out.append(
            Place(
                f"reputation.{step}",
                "Town hall" if step == 0 else f"Reputation step {step}",
                "reputation_step",
                round(0.06 + step * 0.88 / last, 4),
                0.08,
                neighbours,
                group="reputation",
                text=(
                    "Every pawn starts here."
                    if step == 0
                    else f"Worth {board.reputation_points[step - 1]} points at the end of the game."
                ),
                values={"step": step, "points": board.reputation_points[step - 1] if step else 0},
                stand_in=stand_in and step != 6 and step != 0,
                source=board.source if step else "",
            )
        )
    for i, colour in enumerate(COLOURS):
        out.append(
            Place(
                f"die.{colour}",
                f"{title_words(colour)} die",
                "die",
                0.08 + i * 0.06,
                0.22,
                group="dice",
                text=(
                    f"Rolled each round: a 5 or 6 gives everyone a {colour} threat marker, a 1 or "
                    f"2 adds to the reputation cost; a {colour} card played for guilders takes what "
                    "it shows."
                ),
                values={"colour": colour},
            )
        )
    out.append(
        Place(
            "statues",
            "Statue pile",
            "statue_pile",
            0.42,
            0.22,
            group="supply",
            text="A player who completes a canal section takes the top statue, worth its points.",
            values={"statues": list(board.statues)},
            source=board.source,
        )
    )
    out += [
        Place(
            pile_id(0),
            "Draw pile 1",
            "draw_pile",
            0.58,
            0.22,
            group="cards",
            text=PILE_TEXT,
            values={"pile": 0},
        ),
        Place(
            pile_id(1),
            "Draw pile 2",
            "draw_pile",
            0.70,
            0.22,
            group="cards",
            text=PILE_TEXT,
            values={"pile": 1},
        ),
        Place(
            "pile.extra",
            "Extra draw pile",
            "draw_pile",
            0.82,
            0.22,
            group="cards",
            text="Set aside at the start; it comes into play in the last round.",
        ),
        Place(
            "discard",
            "Discard pile",
            "discard_pile",
            0.94,
            0.22,
            group="cards",
            text="Cards played for workers, guilders, threats or canals, face up.",
        ),
    ]
    # A seat's threat markers of a colour: the third one strikes the colour's calamity.
    for i, colour in enumerate(COLOURS):
        for n in range(1, THREAT_LIMIT + 1):
            neighbours = tuple(f"threat.{colour}.{k}" for k in (n - 1, n + 1) if 1 <= k <= THREAT_LIMIT)
            out.append(
                Place(
                    f"threat.{colour}.{n}",
                    f"{title_words(colour)} threat marker {n}",
                    "threat_space",
                    round(0.1 + 0.2 * i + (n - 2) * 0.05, 4),
                    0.36,
                    neighbours,
                    group=f"threat.{colour}",
                    text=(
                        "The third marker strikes the calamity."
                        if n == THREAT_LIMIT
                        else f"A {colour} threat marker; the third strikes the calamity."
                    ),
                    values={"colour": colour, "marker": n},
                )
            )
    # The guard houses, each with its seal and two canal sections built outward from it.
    for g, house in enumerate(board.guard_houses):
        cx, cy = GUARD_HOUSE_XY[g]
        first = tuple(canal_space_id(g, s, 1) for s in (0, 1))
        out.append(
            Place(
                guard_house_id(g),
                f"Guard house {g + 1}",
                "guard_house",
                cx,
                cy,
                first,
                group=f"guard_house.{g}",
                text=f"Player {g + 1}'s seal: the sections start here.",
            )
        )
        for s, colours in enumerate((house.left, house.right)):
            sign = -1 if s == 0 else 1
            for n in range(1, SECTION_SPACES + 1):
                inner = guard_house_id(g) if n == 1 else canal_space_id(g, s, n - 1)
                outer = (canal_space_id(g, s, n + 1),) if n < SECTION_SPACES else ()
                out.append(
                    Place(
                        canal_space_id(g, s, n),
                        f"Guard house {g + 1}, {canal_space_name(s, n)}",
                        "canal_space",
                        round(cx + sign * n * CANAL_STEP, 4),
                        cy,
                        (inner, *outer),
                        group=f"guard_house.{g}",
                        text=(
                            f"Build here with a {colours[n - 1]} card and "
                            + count_text(board.canal_costs[n - 1], "guilder")
                            + ("; 3 points at the end of the game with a token here." if n == 3 else ".")
                        ),
                        values={
                            "guard_house": g,
                            "section": s,
                            "space": n,
                            "colour": colours[n - 1],
                            "cost": board.canal_costs[n - 1],
                        },
                        stand_in=bool(house.stand_in),
                        source=house.source,
                    )
                )
    out.append(
        Place(
            "score_track",
            "Scoring track",
            "score_track",
            0.5,
            0.95,
            group="supply",
            text="0-49 around the board; every pawn starts on 5.",
        )
    )
    return tuple(out)
