"""The Ankh-Morpork data file: areas, player cards, random events and personalities.

Read from TOML (`data/ankh_morpork.toml`) and checked on load, so a bad replacement file fails
with a message naming every fault. Card effects are data: each scroll names one effect primitive
of `services.ankh_morpork.cards` with its parameters, each interrupt one interrupt primitive.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import msgspec

from services.kernel.data import data_digest, packaged_data, parse_data, read_data

NonNegative = Annotated[int, msgspec.Meta(ge=0)]
SCHEMA_VERSION = 1
AREA_COUNT = 12
GREEN_CARDS = 48  # [FS 5]
BROWN_CARDS = 53  # [FS 5]

SYMBOLS = ("M", "B", "A", "T", "S", "E", "P", "I")  # plus "$n"
EFFECTS = (
    "loan", "receive_cards", "tribute", "trade_card", "steal_each", "penalty", "swap_personality",
    "flee_trouble", "gain_per_trouble", "discard_for_money", "discard_one", "take_from_player",
    "gain_per_minion_in_area", "gamble", "draw", "draw_from_discard", "move_other", "fire_brigade",
    "peek_personalities", "play_two", "take_over_calm", "take_over_troubled", "build_half",
    "place_at_building", "place_near", "place_quiet", "gain_per_minion_in_trouble",
    "place_in_trouble", "snatch_cards", "gain_per_building", "spread_trouble", "draw_per_building",
    "place_trouble", "pay_then_move", "make_pay", "move_own_anywhere", "bribe", "remove_in_area",
    "swap_minions", "inspect_hand", "random_removals", "swap_hands", "discard_and_refill",
    "others_remove_own", "pay_then_assassinate",
)  # fmt: skip
INTERRUPTS = ("sonky", "gaspode", "relocate", "shield", "mossy")
GAMBLE_WINS = ("take_from_player", "bank", "assassinate_trouble")
GAMBLE_LOSSES = ("remove_own", "pay_or_remove")
ABILITIES = (
    "place_minion_paid", "draw_then_discard", "income", "small_gods", "discard_for_money",
    "place_trouble", "remove_trouble_paid",
)  # fmt: skip
EVENT_EFFECTS = (
    "dragon", "flood", "fire", "fog", "riots", "explosion", "murders", "demons", "subsidence",
    "bsj", "trolls", "earthquake",
)  # fmt: skip
GOALS = ("spread", "control", "trouble", "wealth", "deck_out")


class CatalogError(ValueError):
    """A data file does not follow the schema or contradicts the printed components."""


class Area(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    number: int
    name: str
    cost: NonNegative
    adjacent: tuple[int, ...]
    river: bool
    ability: str
    amount: NonNegative = 0
    source: str = ""


class Card(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    deck: str  # "green" (top of the draw pile) or "brown"
    symbols: tuple[str, ...]
    effect: str = ""
    interrupt: str = ""
    win: str = ""
    lose: str = ""
    amount: NonNegative = 0
    count: NonNegative = 0
    area: NonNegative = 0
    penalty: NonNegative = 0
    two_player: bool = True  # False: removed before dealing in a 2-player game
    source: str = ""
    stand_in: bool = False


class RandomEvent(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    effect: str
    amount: NonNegative = 0  # die rolls (or cards for Fog, trouble markers for Riots)
    source: str = ""
    stand_in: bool = False


class Personality(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    goal: str
    thresholds: tuple[int, int, int]  # for 2, 3 and 4 players
    two_player: bool = True
    source: str = ""
    stand_in: bool = False


class Catalog(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    schema_version: int
    stand_in: bool
    notice: str
    areas: tuple[Area, ...]
    cards: tuple[Card, ...]
    events: tuple[RandomEvent, ...]
    personalities: tuple[Personality, ...]


def load_catalog(path: str | Path) -> Catalog:
    """Read and check a data file; CatalogError explains what is wrong."""
    return parse_catalog(read_data(path, CatalogError, "Ankh-Morpork data"), str(path))


def parse_catalog(data: bytes | str, where: str = "data") -> Catalog:
    return parse_data(data, Catalog, where, check_catalog, CatalogError)


def default_catalog() -> Catalog:
    """The data shipped with the package."""
    return parse_catalog(
        packaged_data("services.ankh_morpork", "data/ankh_morpork.toml"), "data/ankh_morpork.toml"
    )


def _symbol_ok(symbol: str) -> bool:
    if symbol.startswith("$"):
        return symbol[1:].isdigit() and int(symbol[1:]) > 0
    return symbol in SYMBOLS


def check_catalog(catalog: Catalog) -> list[str]:  # noqa: C901 - one check per printed fact
    """Every way the data contradicts the schema or the printed components."""
    problems: list[str] = []
    if catalog.schema_version != SCHEMA_VERSION:
        problems.append(f"schema_version must be {SCHEMA_VERSION}, not {catalog.schema_version}")
    numbers = [a.number for a in catalog.areas]
    if numbers != list(range(1, AREA_COUNT + 1)):
        problems.append(f"the {AREA_COUNT} areas are numbered 1..{AREA_COUNT} in order")
    else:
        for area in catalog.areas:
            for other in area.adjacent:
                if not 1 <= other <= AREA_COUNT or other == area.number:
                    problems.append(f"area {area.number}: bad neighbour {other}")
                elif area.number not in catalog.areas[other - 1].adjacent:
                    problems.append(f"adjacency {area.number}-{other} is not symmetric")
            if area.ability not in ABILITIES:
                problems.append(f"area {area.number}: unknown ability {area.ability!r}")
            if not area.source:
                problems.append(f"area {area.number}: every entry names its source")
    ids = (
        [c.id for c in catalog.cards] + [e.id for e in catalog.events] + [p.id for p in catalog.personalities]
    )
    duplicated = sorted(i for i, n in Counter(ids).items() if n > 1)
    if duplicated:
        problems.append(f"duplicated ids: {duplicated}")
    green = sum(c.deck == "green" for c in catalog.cards)
    brown = sum(c.deck == "brown" for c in catalog.cards)
    if green != GREEN_CARDS or brown != BROWN_CARDS or len(catalog.cards) != green + brown:
        problems.append(f"{GREEN_CARDS} green and {BROWN_CARDS} brown player cards, not {green} and {brown}")
    for card in catalog.cards:
        where = f"card {card.id}"
        if not all(_symbol_ok(s) for s in card.symbols):
            problems.append(f"{where}: unknown symbol in {list(card.symbols)}")
        if ("S" in card.symbols) != bool(card.effect):
            problems.append(f"{where}: a scroll symbol and an effect go together")
        if card.effect and card.effect not in EFFECTS:
            problems.append(f"{where}: unknown effect {card.effect!r}")
        if ("I" in card.symbols) != bool(card.interrupt):
            problems.append(f"{where}: an interrupt symbol and an interrupt primitive go together")
        if card.interrupt and (card.interrupt not in INTERRUPTS or card.symbols != ("I",)):
            problems.append(
                f"{where}: an interrupt card carries only the interrupt symbol and a known primitive"
            )
        if card.effect == "gamble" and (card.win not in GAMBLE_WINS or card.lose not in GAMBLE_LOSSES):
            problems.append(f"{where}: a gamble names a known win and loss")
        if card.area and not 1 <= card.area <= AREA_COUNT:
            problems.append(f"{where}: area {card.area} is not on the board")
        if "P" in card.symbols and card.symbols[-1] != "P":
            problems.append(f"{where}: 'play another card' is the last symbol")
        if not card.source:
            problems.append(f"{where}: every entry names its source")
    if len(catalog.events) != 12:
        problems.append(f"there are 12 random events, not {len(catalog.events)}")
    for event in catalog.events:
        if event.effect not in EVENT_EFFECTS:
            problems.append(f"event {event.id}: unknown effect {event.effect!r}")
        if not event.source:
            problems.append(f"event {event.id}: every entry names its source")
    if len(catalog.personalities) != 7:
        problems.append(f"there are 7 personalities, not {len(catalog.personalities)}")
    for person in catalog.personalities:
        if person.goal not in GOALS:
            problems.append(f"personality {person.id}: unknown goal {person.goal!r}")
        if not person.source:
            problems.append(f"personality {person.id}: every entry names its source")
    if sum(p.two_player for p in catalog.personalities) < 2:
        problems.append("a 2-player game needs 2 personalities")
    return problems


def catalog_digest(catalog: Catalog) -> str:
    """A short fingerprint of the data, so a replay notices when the data changed."""
    return data_digest(catalog)
