"""How a client presents Lords of Waterdeep to a person: decisions, event descriptions, board places,
the kinds of ids in its JSON and the sections of its view (services/kernel/present.py).

Every decision a seat owes is the top of the state's stack of pending decisions (model.Decision,
its `kind` one of rules.DECISIONS); each kind has a prompt in words, naming the building, card or
quest that asks it (and the seat that played it when the choice is forced on an opponent), and a
step per choice a person makes. Names come from the data file: the tables are built once per
catalog (`make_presentation`), so a decision is dictionary look-ups over the legal actions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from services.kernel.gamedata import count_text
from services.kernel.present import (
    PLACE,
    SEAT,
    Arg,
    Choice,
    Decision,
    Description,
    Option,
    Presentation,
    Text,
    arg,
    ask,
    choice,
    named,
    player_choice,
    seat_arg,
)
from services.waterdeep import board, game_data
from services.waterdeep.catalog import Catalog, Effect, default_catalog
from services.waterdeep.model import CUBES, CompleteQuest, EndTurn, PlaceAgent
from services.waterdeep.model import Decision as Pending
from services.waterdeep.present_events import DESCRIBE, _base, amounts

_CUBE_NAMES = {"cleric": "Cleric", "fighter": "Fighter", "rogue": "Rogue", "wizard": "Wizard"}
_RES_KEYS = {"c": 0, "f": 1, "r": 2, "w": 3, "gold": 4, "vp": 5}
_ENGINE = "engine"


class Labels:
    """Name tables of one catalog, and the decisions and descriptions built with them."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.spaces = {s.id: s.name for s in catalog.spaces}
        self.tiles = {t.id: t.name for t in catalog.buildings}
        self.quests = {q.id: q.name for q in catalog.quests}
        self.intrigues = {i.id: i.name for i in catalog.intrigues}
        self.effects: dict[str, tuple[Effect, ...]] = {i.id: i.effect for i in catalog.intrigues}
        self.effects.update({q.id: q.extra for q in catalog.quests if q.extra})
        self.lords = {lord.id: lord.name for lord in catalog.lords}
        self.plot_of_flag = {
            q.plot[0].op: q.id for q in catalog.quests if q.plot and q.plot[0].op in ("orb", "miracle")
        }
        garden = next((t for t in catalog.buildings if t.id == "heroes_garden"), None)
        self.garden_vp = next((e.vp for e in garden.action if e.op == "heroes_garden"), 0) if garden else 0
        # Basic spaces of a building with several (Cliffwatch Inn, Waterdeep Harbor): two steps.
        self.space_steps: dict[str, tuple[Choice, ...]] = {}
        for s in catalog.spaces:
            building = board.building_of(s.id)
            if building:
                name = s.name.partition(" (")[0]
                number = s.id.rpartition("_")[2]
                what = game_data.effects_text(s.action)
                steps: tuple[Choice, ...] = (
                    Choice("Which building?", name, PLACE, building),
                    Choice(f"Which space of {name}?", f"Space {number}: {what}", PLACE, s.id),
                )
            else:
                steps = (Choice("Which building?", s.name, PLACE, s.id),)
            self.space_steps[s.id] = steps
        for t in catalog.buildings:
            self.space_steps[t.id] = (Choice("Which building?", t.name, "building", t.id),)
        self._kinds: dict[str, Callable[[Any, int, Pending, Sequence[Any]], Decision]] = {
            k: self._placing for k in ("place", "place_extra", "place_now", "ambassador", "reassign")
        }
        self._kinds["quest"] = self._quest

    # -- names ------------------------------------------------------------------------------

    def source(self, source: str) -> tuple[str, str, str]:
        """A decision's or a gain's source as (name, kind, id): a space, a tile, a card copy,
        a quest; "owner:<tile>" and "quest:<quest>" name the tile and the quest."""
        s = source.partition(":")[2] if source.startswith(("owner:", "quest:")) else source
        if s in self.spaces:
            return self.spaces[s], PLACE, s
        if s in self.tiles:
            return self.tiles[s], "building", s
        b = _base(s)
        quest = source.startswith("quest:") or (s in self.quests and s not in self.intrigues)
        if quest and b in self.quests:
            return self.quests[b], "quest", s
        if b in self.intrigues and "." in s:
            return self.intrigues[b], "intrigue_copy", s
        if b in self.intrigues:
            return self.intrigues[b], "intrigue", b
        return (s.replace("_", " ") if s else "the rules"), "", ""

    def space_arg(self, name: str, space: str) -> Arg:
        if space in self.tiles:
            return arg(name, self.tiles[space], "building", space)
        return arg(name, self.spaces.get(space, space), PLACE, space)

    def space_name(self, space: str) -> str:
        return self.tiles.get(space) or self.spaces.get(space, space)

    def quest_choice(self, step: str, quest: str) -> Choice:
        return Choice(step, self.quests.get(_base(quest), quest), "quest", quest)

    def effect(self, source: str, op: str) -> Effect | None:
        return next((e for e in self.effects.get(_base(source), ()) if e.op == op), None)

    # -- decisions --------------------------------------------------------------------------

    def decision(self, state: Any, seat: int, actions: Sequence[Any]) -> Decision:
        d = owed(state, seat)
        if d is None:  # nothing owed: only called for a seat that owes one
            return Decision(seat, "Nothing to decide", (), "none")
        build = self._kinds.get(d.kind, self._choose)
        return build(state, seat, d, actions)

    def _from(self, state: Any, seat: int, d: Pending) -> Text:
        """Who and what asks: "Player 2's Call for Adventurers" on another seat's turn."""
        name = self.source(d.source)[0]
        current = named("{current}", seat_arg("current", state.current)) if state.current >= 0 else None
        if d.source.startswith("owner:"):
            return f"Owner of {name}" + (" (assigned by " + current + ")" if current else "")
        if current and state.current != seat and d.source:
            return current + f"'s {name}"
        return name

    def _placing(self, state: Any, seat: int, d: Pending, actions: Sequence[Any]) -> Decision:
        if d.kind == "reassign":
            prompt = f"Reassign your agent from {self.space_name(d.items[0])}: choose an action space"
        elif d.kind == "ambassador":
            prompt = (
                "Assign the Ambassador: choose an action space "
                "(it counts as an opponent's agent for everyone)"
            )
        elif d.kind == "place_extra":
            prompt = f"{self.source(d.source)[0]}: assign an extra agent"
        elif d.kind == "place_now":
            prompt = f"{self.source(d.source)[0]}: assign the returned agent at once"
        else:
            prompt = "Assign an agent: choose a building to send it to"
        options = tuple(Option(self.space_steps[a.space], i) for i, a in enumerate(actions))
        return Decision(seat, prompt, options, d.kind, bool(d.group))

    def _quest(self, state: Any, seat: int, d: Pending, actions: Sequence[Any]) -> Decision:
        step = "Complete a quest or end the turn?"
        options = []
        for i, a in enumerate(actions):
            choices: tuple[Choice, ...]
            if isinstance(a, CompleteQuest):
                choices = (Choice(step, "Complete a quest"), self.quest_choice("Which quest?", a.quest))
            elif isinstance(a, EndTurn):
                choices = (Choice(step, "End the turn"),)
            else:  # pragma: no cover - the quest decision lists only these
                choices = (Choice(step, str(a)),)
            options.append(Option(choices, i))
        return Decision(seat, "Complete one quest, or end your turn", tuple(options), d.kind)

    def _choose(self, state: Any, seat: int, d: Pending, actions: Sequence[Any]) -> Decision:
        prompt, label = self._choose_kind(state, seat, d)
        seen: dict[tuple[str, ...], int] = {}
        options = []
        for i, a in enumerate(actions):
            made = label(getattr(a, "option", "") if not isinstance(a, PlaceAgent) else a.space)
            choices = (made,) if isinstance(made, Choice) else tuple(made)
            last = choices[-1]
            key = tuple(c.label for c in choices)
            if key in seen:  # two copies of one card in hand: the same name twice
                seen[key] += 1
                copy = f" (copy {seen[key]})"
                template = last.label_template and last.label_template + copy
                choices = (
                    *choices[:-1],
                    msgspec.structs.replace(last, label=last.label + copy, label_template=template),
                )
            else:
                seen[key] = 1
            options.append(Option(choices, i))
        return ask(seat, prompt, tuple(options), d.kind, bool(d.group))

    def _choose_kind(self, state: Any, seat: int, d: Pending) -> tuple[Text, Callable[[str], Any]]:
        """The prompt of a `choose` decision and the choices of one option string."""
        kind = d.kind
        who = self._from(state, seat, d)

        def cube(step: str) -> Callable[[str], Choice]:
            return lambda o: Choice(step, _CUBE_NAMES.get(o, o), "resource", o)

        def opponent(o: str) -> Choice:
            return player_choice("Which opponent?", int(o))

        def space(step: str) -> Callable[[str], Choice]:
            def made(o: str) -> Choice:
                c = self.space_steps[o][-1]
                return Choice(step, self.space_name(o), c.kind, c.id)

            return made

        def tile(step: str) -> Callable[[str], Choice]:
            return lambda o: Choice(step, self.tiles.get(o, o), "building", o)

        if kind == "cube":
            kinds = " or ".join(_CUBE_NAMES[t] for t in d.items) if len(d.items) < 4 else "of any type"
            if kind and d.source == "defend_the_tower_of_luck":
                who = who + " (start of round)"
            return who + f": take {count_text(d.count, 'adventurer')} ({kinds}), one at a time", cube(
                "Which adventurer?"
            )
        if kind == "return_cube":
            return who + f": return {count_text(d.count, 'adventurer')} to the supply, one at a time", cube(
                "Which adventurer do you return?"
            )
        if kind == "inn_quest":
            return who + ": take a face-up quest from Cliffwatch Inn", lambda o: self.quest_choice(
                "Which quest?", o
            )
        if kind == "garden":
            quest = self.quests.get(_base(d.items[0]), d.items[0])
            step = f"Complete {quest} now?"
            labels = {"complete": f"Complete it now (+{self.garden_vp} VP)", "skip": "Keep it for later"}
            return who + f": complete {quest} now for {self.garden_vp} bonus VP?", lambda o: Choice(
                step, labels.get(o, o)
            )
        if kind == "buy":
            gold = state.seats[seat].gold
            return who + f": buy a building (you have {gold} Gold)", tile("Which building do you buy?")
        if kind == "buy_free":
            return who + ": put a building from Builder's Hall into play for free", tile("Which building?")
        if kind in ("intrigue", "intrigue_optional"):
            step = "Which intrigue card do you play?"

            def card(o: str) -> Choice:
                if o == "skip":
                    return Choice(step, "Play no card")
                return Choice(step, self.intrigues.get(_base(o), o), "intrigue_copy", o)

            verb = "you may play" if kind == "intrigue_optional" else "play"
            return who + f": {verb} an intrigue card from your hand", card
        if kind == "copy":
            return who + ": use the action of a space holding an opponent's agent", space(
                "Whose space do you copy?"
            )
        if kind == "opponent":
            e = self.effect(d.source, "opponent_gain")
            gift = amounts(e.bundle) if e else "a gift"
            return who + f": choose an opponent who takes {gift}", opponent
        if kind == "target":
            return who + ": give this Mandatory Quest to an opponent", opponent
        if kind == "steal":

            def steal(o: str) -> tuple[Choice, Choice]:
                p, _, t = o.partition(":")
                return (
                    player_choice("From which opponent?", int(p)),
                    Choice("Which adventurer?", _CUBE_NAMES.get(t, t), "resource", t),
                )

            return who + ": take 1 adventurer from an opponent's Tavern", steal
        if kind == "offer":
            e = self.effect(d.source, "offer")
            taker = named("{taker}", seat_arg("taker", int(d.items[0])))
            give = amounts((*(int(t in e.types) for t in CUBES), e.gold)) if e else "a gift"
            vp = e.vp if e else 0
            answers: dict[str, Text] = {
                "yes": f"Yes: give {give} to " + taker + f" and score {vp} VP",
                "no": "No",
            }
            return (
                who + f": you may give {give} to " + taker + f" to score {vp} VP",
                lambda o: choice("Do you accept?", answers.get(o, o)),
            )
        if kind == "favor":

            def favor(o: str) -> Choice:
                key, _, n = o.partition("=")
                bundle = [0] * 6
                bundle[_RES_KEYS.get(key, 4)] = int(n) if n.isdigit() else 0
                return Choice("Which reward?", amounts(bundle))

            return who + ": choose one reward", favor
        if kind == "discard_own":
            e = self.effect(d.source, "change_of_plans")
            vp = e.vp if e else 0
            return who + f": discard one of your quests to score {vp} VP", lambda o: self.quest_choice(
                "Which quest do you discard?", o
            )
        if kind == "discard_other":
            e = self.effect(d.source, "change_of_plans")
            vp = e.n if e else 0
            step = "Which quest do you discard?"

            def discard(o: str) -> Choice:
                return Choice(step, "Keep all your quests") if o == "keep" else self.quest_choice(step, o)

            return who + f": you may discard one of your quests to score {vp} VP", discard
        if kind == "bidding":
            return who + ": keep one of the revealed quests", lambda o: self.quest_choice(
                "Which quest do you keep?", o
            )
        if kind == "quest_type":
            step = "Which quest type?"
            names = game_data.QUEST_TYPE_NAMES
            return who + ": name a quest type", lambda o: Choice(step, names.get(o, o), "quest_type", o)
        if kind == "own_building":
            return who + ": discard a building you control (with no agent on it)", tile(
                "Which building do you discard?"
            )
        if kind in ("recall", "chronomancy"):
            return who + ": return one of your agents from the board to your pool", space(
                "Which agent returns?"
            )
        if kind == "accelerate":
            return who + ": return your agent from Waterdeep Harbor to your pool", space(
                "Which agent returns?"
            )
        if kind == "miracle":
            step = "Which adventurer do you swap for a Cleric?"
            swap = cube(step)
            return (
                who + ": you may swap 1 Fighter, Rogue or Wizard for a Cleric",
                lambda o: Choice(step, "No swap") if o == "skip" else swap(o),
            )
        if kind == "sample":
            return who + ": assign an agent from your pool to a building in Builder's Hall", tile(
                "Which building?"
            )
        return who + ": choose", lambda o: Choice("Which option?", o.replace("_", " "))

    # -- descriptions -----------------------------------------------------------------------

    def describe(self, event: Any, viewer: int | None) -> Description:
        return DESCRIBE[type(event).__name__](self, event)


def owed(state: Any, seat: int) -> Pending | None:
    """The decision `seat` owes now: the top of the stack, or its own in the top group."""
    pending: tuple[Pending, ...] = state.pending
    if not pending:
        return None
    top = pending[-1]
    if not top.group:
        return top if top.player == seat else None
    for d in reversed(pending):
        if d.group != top.group:
            return None
        if d.player == seat:
            return d
    return None


# -- ids in the JSON, view sections ---------------------------------------------------------

REFS: dict[str, str] = {
    "player": SEAT,
    "target": SEAT,
    "owner": SEAT,
    "viewer": SEAT,
    "first": SEAT,
    "current": SEAT,
    "active": SEAT,
    "space": "space",
    "shares": "space",
    "harbor": "space",
    "tile": "building",
    "hall": "building",
    "quest": "quest",
    "quests": "quest",
    "completed": "quest",
    "plots": "quest",
    "inn": "quest",
    "revealed": "quest",
    "quest_discard": "quest",
    "plot": "quest",
    "quest_completed.plot": "",  # a flag there
    "card": "intrigue_copy",
    "intrigue": "intrigue_copy",  # a seat's hand in the view
    "intrigue_discard": "intrigue_copy",
    "lord": "lord",
    "lords": "lord",
    "quest_taken.slot": "inn_position",
    "inn_refilled.slot": "inn_position",
    "building_bought.slot": "hall_position",
    "hall_refilled.slot": "hall_position",
    "deck_shuffled.deck": "deck",
}
KEY_REFS: dict[str, str] = {"cubes": "resource"}
VIEW_SECTIONS: dict[str, str] = {
    "viewer": "self",
    "players": "players",
    "round": "turn",
    "phase": "turn",
    "first": "turn",
    "current": "turn",
    "reassigning": "turn",
    "active": "turn",
    "seats": "players",
    "placed": "board",
    "ambassador": "board",
    "buildings": "board",
    "hall": "board",
    "hall_vp": "board",
    "stack_size": "board",
    "inn": "board",
    "quest_deck_size": "board",
    "quest_discard": "board",
    "intrigue_deck_size": "board",
    "intrigue_discard": "board",
    "revealed": "board",
    "pending": _ENGINE,
}


def make_presentation(catalog: Catalog) -> Presentation:
    """The presentation of the game played with this data file (names from its entries)."""
    labels = Labels(catalog)
    return Presentation(
        decision=labels.decision,
        describe=labels.describe,
        components=game_data.components,
        places=board.places,
        refs=REFS,
        key_refs=KEY_REFS,
        view_sections=VIEW_SECTIONS,
        score=game_data.SCORE,
    )


PRESENTATION = make_presentation(default_catalog())
__all__ = ["PRESENTATION", "Labels", "amounts", "make_presentation", "owed"]
