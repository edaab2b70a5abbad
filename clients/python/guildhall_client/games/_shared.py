"""The types every game has alike: decisions, descriptions, rejections, outcomes, game data.

Generated from schemas/ by `python -m guildhall_client.games.generate`: do not edit. Each
game's module imports them under the same names (`guildhall_client.games.ys.Decision`).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


class Arg(TypedDict):
    """A named argument of a template (a description's, a decision's): its text, and what it
    stands for (a seat, a card...).
    """

    id: NotRequired[str]
    kind: NotRequired[str]
    name: str
    text: str


class Choice(TypedDict):
    """One step of an option: `step` is the question ("Which broker?"), `label` the answer in
    words; `kind` and `id` name what it stands for in the game data (empty for a plain value).
    A step or label that names players has a template with `{name}` slots for its args (built
    by `choice`); empty when the text names nobody.
    """

    id: NotRequired[str]
    kind: NotRequired[str]
    label: str
    label_args: NotRequired[list[Arg]]
    label_template: NotRequired[str]
    step: str
    step_args: NotRequired[list[Arg]]
    step_template: NotRequired[str]


class Component(TypedDict):
    """One card, tile, area or figure, found by (`kind`, `id`): ids are unique within a kind."""

    count: NotRequired[int]
    id: str
    kind: str
    name: str
    source: NotRequired[str]
    stand_in: NotRequired[bool]
    text: NotRequired[str]
    values: NotRequired[dict[str, Any]]


class Decision(TypedDict):
    """What one seat is asked now. `simultaneous`: other seats decide at the same time, unseen."""

    key: NotRequired[str]
    options: list[Option]
    prompt: str
    prompt_args: NotRequired[list[Arg]]
    prompt_template: NotRequired[str]
    seat: int
    simultaneous: NotRequired[bool]


class Deck(TypedDict):
    """A deck or pile as the box holds it before setup: which components, how many of each."""

    id: str
    name: str
    parts: list[DeckPart]
    text: NotRequired[str]


class DeckPart(TypedDict):
    count: int
    id: str
    kind: str


class Description(TypedDict):
    """An event as a log line: `template` with `{name}` slots for `args`, and `text` rendered
    with the default names. `internal`: engine bookkeeping a log may leave out.
    """

    args: NotRequired[list[Arg]]
    internal: NotRequired[bool]
    key: str
    template: str
    text: str


class Option(TypedDict):
    """A complete answer to a decision: its choices in order, and the legal action it is (the
    index in the same answer's legal actions).
    """

    action: int
    choices: list[Choice]


class Outcome(TypedDict):
    """A finished game: who won (several on a shared win, none if all lost) and every result.
    `reason`: how it ended, in a sentence a person reads (names from the game data, no seat
    named: a client says who won with the names chosen at the table).
    """

    reason: NotRequired[str]
    results: list[PlayerResult]
    winners: list[int]


class Place(TypedDict):
    """A place of the board: area, district, canal, building slot, market row, track space...

    `x`, `y` are a suggested position for a schematic drawing in the unit square (0,0 top
    left); `neighbours` are the places the rules treat as adjacent (empty where adjacency
    plays no part); `group` gathers places drawn together (a neighbourhood, a row).
    """

    group: NotRequired[str]
    id: str
    kind: str
    name: str
    neighbours: NotRequired[list[str]]
    source: NotRequired[str]
    stand_in: NotRequired[bool]
    text: NotRequired[str]
    values: NotRequired[dict[str, Any]]
    x: float
    y: float


class PlayerResult(TypedDict):
    """One seat's final result: `breakdown` says where the points came from (it sums to
    `score`); `facts` are other figures that decided the result (e.g. rats against nuns).
    """

    breakdown: NotRequired[dict[str, int]]
    eliminated: NotRequired[bool]
    facts: NotRequired[dict[str, int]]
    note: NotRequired[str]
    player: int
    score: int


class Rejection(TypedDict):
    """Why an action was refused: a stable `code` and a message a player understands."""

    code: Literal[
        "not_your_turn",
        "illegal_action",
        "game_over",
        "unknown_player",
        "unknown_action",
        "stale_version",
        "unknown_match",
        "wrong_game",
        "command_id_in_use",
        "seat_taken",
        "bad_invite",
        "cannot_undo",
    ]
    message: str


class ScoreSheet(TypedDict):
    """What a game's score means, for a client's players table and end screen.

    Every view's `seats[i].score` is the score a table shows for seat i: while the game runs,
    what `during_play` says (the public part of the score, "so far"); once it is over, the
    final score, equal to the outcome's. `breakdown` and `facts` name the keys of the outcome's
    PlayerResult.breakdown and .facts in words.
    """

    breakdown: NotRequired[dict[str, str]]
    during_play: NotRequired[str]
    facts: NotRequired[dict[str, str]]
