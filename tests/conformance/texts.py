"""The card-text check of every game (tests/conformance/test_texts.py runs it): what a player
chooses or holds says what it does, in words a person reads.

In a seeded random playout, every component or place any decision offers (a choice's kind and
id; a seat is a player, not a component) and every card any view shows (an id of a kind the
game's decks hold, or of a kind a decision offers, in any seat's or the spectator's view) has a
player-facing text in the game data: not empty, not its id or its name again, not an engine
word left as it was, not a placeholder ("reward ;", "TODO", an unfilled "{slot}", "Stand-in"
with nothing after it). A module of its own, like presentation.py, so a game's tests can run it.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from services.gamedata import game_data
from services.kernel import GameSpec
from services.kernel.gamedata import GameData, words
from services.kernel.present import PLACE, SEAT, referenced_ids
from services.kernel.testing import random_playout

# What a text must never hold: a placeholder, an empty slot of a template, an engine identifier.
_PLACEHOLDERS = [
    (re.compile(r"\b(todo|tbd|fixme|placeholder|lorem|xxx)\b", re.I), "a placeholder word"),
    (re.compile(r"[{}]"), "an unfilled template slot"),
    (re.compile(r"\w_\w"), "an engine identifier (snake_case)"),
    (re.compile(r"(^|[\s(])[;,:]|[;,:]\s*($|[;,:)])"), 'a list with an empty item ("reward ;")'),
    (re.compile(r"\(\s*\)"), "empty brackets"),
    (re.compile(r"\b(undefined|null|nan)\b", re.I), "a missing value"),
]
# A stand-in label: a note in brackets "(Stand-in person: ...)", or a lead "Stand-in ability:".
_STAND_IN_NOTE = re.compile(r"\([^()]*\bstand-in\b[^()]*\)", re.I)
_STAND_IN_LABEL = re.compile(r"^\s*stand-in\b[^.:]*[.:]?", re.I)


def _without_stand_in_labels(text: str) -> str:
    rest = _STAND_IN_NOTE.sub("", text)
    label = _STAND_IN_LABEL.match(rest)
    return rest[label.end() :] if label else rest


class Texts:
    """Each (kind, id) of a game's data with its name and text: components, and places by their
    own kind and by PLACE."""

    def __init__(self, document: GameData[Any]) -> None:
        self.entries: dict[tuple[str, str], tuple[str, str]] = {}
        for c in document.components:
            self.entries[(c.kind, c.id)] = (c.name, c.text)
        for p in document.places:
            self.entries[(p.kind, p.id)] = (p.name, p.text)
            self.entries[(PLACE, p.id)] = (p.name, p.text)
        self.card_kinds = {part.kind for deck in document.decks for part in deck.parts}

    def faults(self, kind: str, id_: Any) -> list[str]:
        """What is wrong with the text of (kind, id); nothing for "none" ids and seats."""
        if kind == SEAT or id_ is None or id_ == -1 or id_ == "":
            return []
        found = self.entries.get((kind, str(id_)))
        if found is None:
            return [f"{kind} {id_!r} is not in the game data"]
        return text_faults(kind, str(id_), *found)


def text_faults(kind: str, id_: str, name: str, text: str) -> list[str]:
    """What keeps `text` from telling a player what (kind, id), called `name`, is or does."""
    what = f"{kind} {id_!r} ({name})"
    shown = text.strip()
    if not shown:
        return [f"{what} has no text"]
    if shown.lower().rstrip(".") in {id_.lower(), words(id_).lower(), name.strip().lower()}:
        return [f"{what}: the text is only its id or name: {text!r}"]
    if "stand-in" in shown.lower() and len(_without_stand_in_labels(shown).split()) < 2:
        return [f"{what}: 'Stand-in' with no ability after it: {text!r}"]
    return [f"{what}: {why} in {text!r}" for pattern, why in _PLACEHOLDERS if pattern.search(shown)]


def _json(spec: GameSpec[Any], value: Any) -> Any:
    return msgspec.json.decode(spec.codec.encode_json(value))


def card_text_faults(spec: GameSpec[Any], players: int, seed: int, options: Any = None) -> list[str]:
    """Every fault of the module docstring in one seeded playout (each fault once)."""
    presentation = spec.presentation
    assert presentation is not None, f"{spec.game_id} has no presentation"
    texts = Texts(game_data(spec))
    playout = random_playout(spec, players, seed, options)
    state = spec.start(playout.config)
    offered_kinds: set[str] = set()
    shown: set[tuple[str, Any]] = set()
    faults: list[str] = []
    for step in [*playout.steps, None]:
        for seat in spec.active_players(state):
            decision = presentation.decision(state, seat, list(spec.legal_actions(state, seat)))
            for option in decision.options:
                for choice in option.choices:
                    if choice.kind:
                        offered_kinds.add(choice.kind)
                        faults += [f"offered: {f}" for f in texts.faults(choice.kind, choice.id)]
        for viewer in (*range(players), None):
            view = _json(spec, spec.view(state, viewer))
            shown.update((kind, id_) for _, kind, id_ in referenced_ids(view, presentation))
        if step is None:
            break
        state = spec.evolve(state, step.events)
    held = texts.card_kinds | offered_kinds
    for kind, id_ in sorted(shown, key=str):
        if kind in held:
            faults += [f"shown in a view: {f}" for f in texts.faults(kind, id_)]
    return list(dict.fromkeys(faults))
