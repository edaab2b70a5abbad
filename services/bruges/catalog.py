"""The Bruges data file: the 165 person cards (each naming the effect primitive it uses) and the
board figures (canal spaces, reputation track, statues).

Read from TOML (the shipped `data/bruges.toml` is mostly a STAND-IN: the official card sheet is
not public) and checked on load, so a bad replacement file fails with a message naming the fault.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import msgspec

from services.bruges.model import (
    ARROW,
    CARD_ACTIONS,
    COLOURS,
    GROUPS,
    LAUREL,
    ONCE_PER_ROUND,
    PERMANENT,
    REPUTATION_STEPS,
    SECTION_SPACES,
    TRIGGER,
    WORKER,
)
from services.kernel.data import data_digest, packaged_data, parse_data, read_data

NonNegative = Annotated[int, msgspec.Meta(ge=0)]
SmallCount = Annotated[int, msgspec.Meta(ge=0, le=20)]

CARDS = 165  # [SEED components]
GROUP_SIZE = 15  # [FS cards §4: yucata, 11 groups x 15]
GUARD_HOUSES = 4  # [FS §1]
SCHEMA_VERSION = 1

_USED = (ARROW, WORKER, ONCE_PER_ROUND)  # effects carried out when the person is used
# effect primitive -> the icons it may be printed with
EFFECT_ICONS: dict[str, tuple[str, ...]] = {
    "gain_guilders": _USED,
    "gain_points": _USED,
    "gain_workers": _USED,
    "guilders_per_house": _USED,
    "points_per_house": _USED,
    "gain_reputation": _USED,
    "draw_cards": _USED,
    "draw_and_discard": _USED,
    "return_threats": _USED,
    "opponents_lose_canal": _USED,
    "opponents_give_workers": _USED,
    "die_reward": _USED,
    "extra_play": (WORKER, ONCE_PER_ROUND),
    "canal_without_card": (WORKER, ONCE_PER_ROUND),
    "action_bonus": (PERMANENT,),
    "recruit_discount": (PERMANENT,),
    "hand_size": (TRIGGER,),
    "reputation_points": (TRIGGER,),
    "score_points": (LAUREL,),
    "score_per_workers": (LAUREL,),
    "score_per_group": (LAUREL,),
    "score_per_distinct_group": (LAUREL,),
    "score_per_house": (LAUREL,),
}
EFFECTS = tuple(EFFECT_ICONS)
_NEEDS_AMOUNT = frozenset(EFFECTS) - {"extra_play"}
_BONUS_ACTIONS = ("workers", "guilders", "threat")


class CatalogError(ValueError):
    """A data file does not follow the schema or contradicts the printed components."""


class Person(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One card: its colour (both sides), the person on its front and the effect primitive the
    person uses with its parameters."""

    id: NonNegative
    name: str
    colour: str
    price: NonNegative
    points: NonNegative
    group: str
    icon: str
    effect: str
    worker: str = ""  # icon "worker": the colour of worker paid to use the person
    amount: SmallCount = 0
    param_colour: str = ""  # a colour the effect names ("" = any)
    param_group: str = ""  # a group the effect names
    param_action: str = ""  # action_bonus: the improved action
    threshold: SmallCount = 0  # die_reward: lowest die value; score_per_workers: workers per step
    name_de: str = ""
    stand_in: bool = False  # the whole entry is invented (no such person is known)
    verified: tuple[str, ...] = ()  # the fields a source confirms (the rest are stand-in values)
    source: str = ""


class GuardHouse(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The two canal sections beside one guard house: space colours from the seal outward."""

    left: tuple[str, ...]
    right: tuple[str, ...]
    stand_in: bool = False
    source: str = ""


class Board(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    reputation_points: tuple[int, ...]  # points of steps 1..12
    canal_costs: tuple[int, ...]  # guilders for spaces 1..5 from the seal
    statues: tuple[int, ...]  # the statue pile, top first
    guard_houses: tuple[GuardHouse, ...]
    stand_in: bool = False
    source: str = ""


class Catalog(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    schema_version: int
    stand_in: bool
    notice: str
    board: Board
    persons: tuple[Person, ...]


def load_catalog(path: str | Path) -> Catalog:
    """Read and check a data file; CatalogError explains what is wrong."""
    return parse_catalog(read_data(path, CatalogError, "Bruges data"), str(path))


def parse_catalog(data: bytes | str, where: str = "data") -> Catalog:
    return parse_data(data, Catalog, where, check_catalog, CatalogError, most=20)


def default_catalog() -> Catalog:
    """The data shipped with the package (mostly stand-in persons and board figures)."""
    return parse_catalog(packaged_data("services.bruges", "data/bruges.toml"), "data/bruges.toml")


def check_catalog(catalog: Catalog) -> list[str]:
    """Every way the data contradicts the schema or the printed components."""
    problems: list[str] = []
    if catalog.schema_version != SCHEMA_VERSION:
        problems.append(f"schema_version must be {SCHEMA_VERSION}, not {catalog.schema_version}")
    board = catalog.board
    if len(board.reputation_points) != REPUTATION_STEPS:
        problems.append(f"the reputation track has {REPUTATION_STEPS} steps")
    if len(board.canal_costs) != SECTION_SPACES or any(c < 0 for c in board.canal_costs):
        problems.append(f"a canal section has {SECTION_SPACES} spaces, each costing 0 or more guilders")
    if not board.statues or any(v < 0 for v in board.statues):
        problems.append("the statue pile holds statues of 0 points or more")
    if len(board.guard_houses) != GUARD_HOUSES:
        problems.append(f"the board has {GUARD_HOUSES} guard houses")
    for g, house in enumerate(board.guard_houses):
        for side in (house.left, house.right):
            if len(side) != SECTION_SPACES or any(c not in COLOURS for c in side):
                problems.append(f"guard house {g}: each section is {SECTION_SPACES} coloured spaces")
    if not board.source:
        problems.append("the board names its source")
    persons = catalog.persons
    if len(persons) != CARDS:
        problems.append(f"there are {CARDS} person cards, not {len(persons)}")
    if sorted(p.id for p in persons) != list(range(len(persons))):
        problems.append("card ids are 0..164, each once")
    names = Counter(p.name for p in persons)
    duplicated = sorted(n for n, k in names.items() if k > 1)
    if duplicated:
        problems.append(f"every person is different; repeated: {duplicated[:5]}")
    groups = Counter(p.group for p in persons)
    if any(groups[g] != GROUP_SIZE for g in GROUPS):
        problems.append(f"each of the {len(GROUPS)} groups has {GROUP_SIZE} persons: {dict(groups)}")
    for p in persons:
        problems.extend(f"person {p.id} ({p.name}): {fault}" for fault in _person_faults(p))
    return problems


def _person_faults(p: Person) -> list[str]:
    faults = []
    if p.colour not in COLOURS:
        faults.append(f"unknown colour {p.colour!r}")
    if p.group not in GROUPS:
        faults.append(f"unknown group {p.group!r}")
    if p.points != p.price // 3:
        faults.append("points are a third of the price (rounded down)")
    if p.icon not in EFFECT_ICONS.get(p.effect, ()):
        faults.append(f"effect {p.effect!r} cannot have icon {p.icon!r}")
    if (p.icon == WORKER) != (p.worker in COLOURS):
        faults.append("a worker icon names the worker's colour, other icons none")
    if p.effect in _NEEDS_AMOUNT and p.amount < 1:
        faults.append("the effect needs an amount of 1 or more")
    if p.param_colour and p.param_colour not in COLOURS:
        faults.append(f"unknown colour {p.param_colour!r}")
    if p.effect == "die_reward" and (p.param_colour not in COLOURS or not 1 <= p.threshold <= 6):
        faults.append("die_reward names a die colour and a lowest value 1-6")
    if p.effect == "gain_workers" and p.param_colour not in COLOURS:
        faults.append("gain_workers names the workers' colour")
    if p.effect == "score_per_group" and p.param_group not in GROUPS:
        faults.append("score_per_group names a group")
    if p.effect == "score_per_workers" and p.threshold < 1:
        faults.append("score_per_workers names how many workers make a step")
    if p.effect == "draw_and_discard" and p.threshold < 1:
        faults.append("draw_and_discard names how many cards to discard")
    if p.effect == "action_bonus" and p.param_action not in _BONUS_ACTIONS:
        faults.append(f"action_bonus improves one of {_BONUS_ACTIONS}")
    if p.param_action and p.param_action not in CARD_ACTIONS:
        faults.append(f"unknown action {p.param_action!r}")
    if p.effect == "hand_size" and p.amount < 5:
        faults.append("hand_size is a hand of 5 or more")
    if not p.source:
        faults.append("every entry names its source")
    return faults


def catalog_digest(catalog: Catalog) -> str:
    """A short fingerprint of the data, so a replay notices when the data changed."""
    return data_digest(catalog)
