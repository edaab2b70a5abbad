"""A game's static data as clients see it: every card, tile and place by id, with a name a person
reads, a short text, its values, how many copies a deck holds, whether it is stand-in data and
where each fact comes from.

The same document for every game (`components`, `decks`, `boards`), so a client renders names
without knowing the game, plus the game's whole data file as loaded (`catalog`, typed per game),
so a client that knows the game can use every field. `version` is the rules version, which
already ends with the data's digest: a client caches the document under it.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec

from services.kernel.present import Place, ScoreSheet

C = TypeVar("C")

GAME_DATA_SCHEMA_VERSION = 2


class Component(msgspec.Struct, frozen=True):
    """One card, tile, area or figure, found by (`kind`, `id`): ids are unique within a kind."""

    kind: str
    id: str
    name: str
    text: str = ""
    # The figures printed on it (cost, points, gems, ...), by name.
    values: dict[str, Any] = {}
    # Copies in the game (a deck's composition lists them per deck).
    count: int = 1
    stand_in: bool = False
    source: str = ""


class DeckPart(msgspec.Struct, frozen=True):
    kind: str
    id: str
    count: int


class Deck(msgspec.Struct, frozen=True):
    """A deck or pile as the box holds it before setup: which components, how many of each."""

    id: str
    name: str
    parts: tuple[DeckPart, ...]
    text: str = ""


class GameData(msgspec.Struct, Generic[C], frozen=True):
    """Everything static a client needs to show a match of this game with names, not ids."""

    game_id: str
    title: str
    # The rules version this data belongs to (edition + data digest): cache the document by it.
    version: str
    data_digest: str
    stand_in: bool
    notice: str
    # kind -> what a person calls one of them ("ship card", "area", ...).
    kinds: dict[str, str]
    components: tuple[Component, ...]
    decks: tuple[Deck, ...]
    # Per-game board facts that are not components (tracks, price ladders, ...).
    boards: dict[str, Any]
    # The game's data file as loaded: its schema is the game's own.
    catalog: C
    # Every place of the board with its kind, neighbours and a schematic position.
    places: tuple[Place, ...] = ()
    schema_version: int = GAME_DATA_SCHEMA_VERSION
    # What the score in the views means during play, and the outcome's breakdown in words.
    score: ScoreSheet = ScoreSheet()


def words(identifier: str) -> str:
    """`gain_white_gem` -> `gain white gem`: an identifier as a person reads it."""
    return identifier.replace("_", " ").strip()


def title_words(identifier: str) -> str:
    """`bourgeoisie` -> `Bourgeoisie`."""
    text = words(identifier)
    return text[:1].upper() + text[1:]


# What a game's components builder returns: kind labels, components, decks, board facts.
Built = tuple[dict[str, str], list[Component], list[Deck], dict[str, Any]]


def count_text(n: int, what: str) -> str:
    """`1 rat`, `2 rats`: a count with its noun."""
    return f"{n} {what}" if n == 1 else f"{n} {what}s"
