"""The Ys board as places a client draws, and the names every label uses (computed once).

Place ids are the engine's own: "n<k>.<area>" (city areas), "m<row>.<colour>" (market squares),
"n<k>" and "market" (where `brokers_returned` says brokers come from). The rest name the parts
of the printed board a drawing needs: market rows "m<row>" (where the row's gem lies), the four
quotation scales "scale.<colour>" and the King's Favor throne room "throne".

Names follow the Spanish rulebook (SEED): "vecindario" 1-4 (numbered on the board, no other
name) = Neighbourhood 1-4; "área de puerto / comercial / de palacio" = port / commercial area /
palace; "mercado", "fila", "columna" = market, row, column; "lugar del trono" = throne room.
docs/rules/ys.md "Names used by clients" records these choices.
"""

from __future__ import annotations

from services.kernel.present import Place
from services.ys.model import AREAS, COLOURS, city_place, market_place

SOURCE = (
    "SEED p.3 board figure (vecindario 1-4, areas, mercado, filas 0-3, cotización, trono); positions ENGINE"
)

AREA_NAMES = {"port": "port", "commercial": "commercial area", "palace": "palace"}
AREA_KINDS = {"port": "port", "commercial": "commercial_area", "palace": "palace"}
COLOUR_NAMES = {c: c for c in (*COLOURS, "black", "white")}

# Neighbourhood k's centre: 1 top left, 2 top right, 3 bottom right, 4 bottom left, around the
# market in the middle (ENGINE layout: the board's real geometry is not in any text source).
_CENTRES = {1: (0.15, 0.18), 2: (0.85, 0.18), 3: (0.85, 0.82), 4: (0.15, 0.82)}
# Each area's offset from its neighbourhood's centre.
_AREA_OFFSETS = {"port": (-0.08, 0.02), "commercial": (0.0, 0.09), "palace": (0.08, 0.02)}
_COLUMN_X = {c: 0.38 + 0.08 * i for i, c in enumerate(COLOURS)}
_ROW_Y = {r: 0.34 + 0.08 * r for r in range(4)}


def neighbourhood_name(k: int) -> str:
    return f"Neighbourhood {k}"


def area_name(k: int, area: str) -> str:
    return f"{neighbourhood_name(k)} {AREA_NAMES[area]}"


def square_name(row: int, colour: str) -> str:
    return f"Market row {row}, {colour} column"


def places() -> tuple[Place, ...]:
    """Every place of the board (the same for every data file and player count)."""
    out: list[Place] = []
    for k in range(1, 5):
        cx, cy = _CENTRES[k]
        areas = [city_place(k, a) for a in AREAS]
        out.append(
            Place(
                f"n{k}",
                neighbourhood_name(k),
                "neighbourhood",
                cx,
                round(cy - 0.09, 3),
                group=f"n{k}",
                text="three areas counted together for the port's gems; "
                + ("used with 4 neighbourhoods only" if k == 4 else "always in play"),
                values={"number": k},
                source=SOURCE,
            )
        )
        for area in AREAS:
            dx, dy = _AREA_OFFSETS[area]
            place = city_place(k, area)
            out.append(
                Place(
                    place,
                    area_name(k, area),
                    AREA_KINDS[area],
                    round(cx + dx, 3),
                    round(cy + dy, 3),
                    # The three areas of a neighbourhood are counted together (its ranking).
                    neighbours=tuple(p for p in areas if p != place),
                    group=f"n{k}",
                    text=_AREA_TEXT[area],
                    values={"neighbourhood": k, "area": area},
                    source=SOURCE,
                )
            )
    out.append(
        Place(
            "market",
            "Market",
            "market",
            0.5,
            0.25,
            group="market",
            text="4 columns (blue, green, yellow, red) by 4 rows (0-3); one broker per square",
            source=SOURCE,
        )
    )
    for row in range(4):
        y = _ROW_Y[row]
        out.append(
            Place(
                f"m{row}",
                f"Market row {row}",
                "market_row",
                0.29,
                y,
                group="market",
                text=_ROW_TEXT[row],
                values={"row": row},
                source=SOURCE,
            )
        )
        for colour in COLOURS:
            out.append(
                Place(
                    market_place(row, colour),
                    square_name(row, colour),
                    "market_square",
                    round(_COLUMN_X[colour], 3),
                    y,
                    group=f"m{row}",
                    text=_square_text(row, colour),
                    values={"row": row, "column": colour},
                    source=SOURCE,
                )
            )
    for colour in COLOURS:
        out.append(
            Place(
                f"scale.{colour}",
                f"{colour.capitalize()} quotation scale",
                "quotation_scale",
                round(_COLUMN_X[colour], 3),
                0.7,
                group="scales",
                text=f"the {colour} gem's price, moved by its market column; only the order scores",
                values={"colour": colour},
                source=SOURCE,
            )
        )
    out.append(
        Place(
            "throne",
            "Throne room",
            "throne_room",
            0.5,
            0.84,
            group="throne",
            text="King's Favor variant: one broker a turn goes face down here (12/7/3/0 at the end)",
            source="SEED p.13",
        )
    )
    return tuple(out)


_AREA_TEXT = {
    "port": "majority: 1 black gem",
    "commercial": "majority: 3 gold (5 with the Merchant)",
    "palace": "majority: the neighbourhood's character card",
}
_ROW_TEXT = {
    0: "Row 0: only for the 5-6 player edition, never used here.",
    1: "Row 1: used with 4 players only; the highest total of brokers in the row takes its gem.",
    2: "Row 2: the highest total of brokers in the row takes its gem.",
    3: "Row 3: the highest total of brokers in the row takes its gem.",
}


def _square_text(row: int, colour: str) -> str:
    """A market square: what a broker there earns, and what it counts for [SEED p.7-8]."""
    if row == 0:
        return _ROW_TEXT[0]
    return ("Used with 4 players only. " if row == 1 else "") + (
        f"One broker per square; placing one here earns 1 gold at once. It counts for row {row}'s "
        f"gem and for the {colour} column, whose total moves the {colour} gem's price."
    )


PLACES: tuple[Place, ...] = places()
PLACE_NAMES: dict[str, str] = {p.id: p.name for p in PLACES}
