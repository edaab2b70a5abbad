"""How a client presents this game to a person: decisions, event descriptions, board places, the
kinds of ids in its JSON and the sections of its view (services/kernel/present.py).

`make_presentation(catalog)` builds the label tables once from the data file the game plays with
(person names, colours, canal spaces); `PRESENTATION` is the one for the shipped data. Decisions
read only the state's few fields they name (no copies). The board's places are in `board.py`, the
event descriptions in `describe.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from services.bruges import game_data
from services.bruges.board import canal_space_id, pile_id, places
from services.bruges.catalog import Catalog, default_catalog
from services.bruges.describe import Describer
from services.bruges.game_data import (
    ACTION_NAMES,
    CALAMITY_NAMES,
    house_name,
)
from services.bruges.model import (
    CALAMITY_TASKS,
    COLOURS,
    REPUTATION,
    T_DISCARD,
    T_DRAW,
    T_FIRE,
    T_GIVE,
    T_PLAGUE,
    T_THREAT,
    Activate,
    BuyReputation,
    DrawCard,
    EndTurn,
    PlayCard,
    StopDrawing,
    SufferCalamity,
)
from services.kernel.present import (
    PLACE,
    SEAT,
    Choice,
    Decision,
    Presentation,
    Text,
    named,
    seat_arg,
    single_step,
)

# -- which JSON fields hold ids of what kind ------------------------------------------------

REFS: dict[str, str] = {
    # seats
    "player": SEAT,
    "viewer": SEAT,
    "start": SEAT,
    "current": SEAT,
    "active": SEAT,
    "queue": SEAT,
    "next_start": SEAT,
    "to": SEAT,
    "other": SEAT,
    "seat": SEAT,
    "winners": SEAT,
    # cards (a card is its person)
    "card": "person",
    "cards": "person",
    "person": "person",
    "hand": "person",
    "known_hand": "person",
    "discard": "person",
    # the engine's small vocabularies (game_data.py)
    "colour": "colour",
    "hand_colours": "colour",
    "action": "card_action",
    "phase": "phase",
    "kind": "task",
    "pile": "draw_pile",
    "section": "canal_section",
    "activate.target": "canal_section",
    "house": "house_slot",
}
KEY_REFS: dict[str, str] = {
    "workers": "colour",
    "threats": "colour",
    "dice": "colour",
    "majorities": "majority",
}
VIEW_SECTIONS: dict[str, str] = {
    "players": "players",
    "viewer": "self",
    "round": "turn",
    "phase": "turn",
    "start": "turn",
    "active": "turn",
    "current": "turn",
    "played": "turn",
    "allowed": "turn",
    "queue": "turn",
    "dice": "board",
    "reputation_cost": "turn",
    "pile_sizes": "board",
    "pile_tops": "board",
    "extra_size": "board",
    "extra_in": "board",
    "last_round": "turn",
    "discard": "board",
    "statues": "board",
    "seats": "players",
    "tasks": "engine",
    "canal_costs": "board",
    "reputation_points": "board",
}

SIDE_WORDS = ("left", "right")
WHAT = "What do you do?"


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


class Labels:
    """Label tables from one data file, built once."""

    def __init__(self, catalog: Catalog) -> None:
        persons = sorted(catalog.persons, key=lambda p: p.id)
        self.name = {p.id: p.name for p in persons}
        self.colour = {p.id: p.colour for p in persons}
        self.card_label = {p.id: f"{p.name} ({p.colour})" for p in persons}
        self.price = {p.id: p.price for p in persons}
        self.effect = {p.id: p.effect for p in persons}
        self.amount = {p.id: p.amount for p in persons}
        self.guard_houses = catalog.board.guard_houses
        self.canal_costs = catalog.board.canal_costs

    # choices ----------------------------------------------------------------------------------

    def card_choice(self, step: str, card: int) -> Choice:
        return Choice(step, self.card_label[card], "person", str(card))

    def pile_choice(self, state: Any, pile: int) -> Choice:
        top = state.piles[pile]
        back = f" ({self.colour[top[0]]} card on top)" if top else ""
        return Choice("Which pile?", f"Draw pile {pile + 1}{back}", PLACE, pile_id(pile))

    def next_space(self, state: Any, seat: int, section: int, multiplier: int = 1) -> Choice:
        """The space a section's next token goes on, with its colour and cost."""
        n = state.seats[seat].canals[section] + 1
        house = self.guard_houses[seat]
        colour = (house.left, house.right)[section][n - 1]
        cost = self.canal_costs[n - 1] * multiplier
        label = f"{SIDE_WORDS[section].capitalize()} section, space {n} ({colour}, {_count(cost, 'guilder')})"
        return Choice("Which canal space?", label, PLACE, canal_space_id(seat, section, n))

    def outer_token(self, step: str, state: Any, seat: int, section: int) -> Choice:
        n = state.seats[seat].canals[section]
        label = f"The token on the {SIDE_WORDS[section]} section, space {n}"
        return Choice(step, label, PLACE, canal_space_id(seat, section, n))

    def house_label(self, house: Any) -> str:
        who = self.name[house.person] if house.person >= 0 else "empty"
        return f"{self.colour[house.card]}, {who}"

    # the decisions ------------------------------------------------------------------------------

    def decision(self, state: Any, seat: int, actions: Sequence[Any]) -> Decision:
        mine = [t for t in state.tasks if t.seat == seat]
        if mine:
            return self._task(state, seat, actions, mine)
        if state.phase == REPUTATION:
            cost = state.reputation_cost
            step = "Buy a reputation step?"

            def buy(a: BuyReputation) -> Choice:
                if a.advance:
                    return Choice(step, f"Advance one step for {_count(cost, 'guilder')}")
                return Choice(step, "Decline")

            return _decide(
                seat, f"Buy a reputation step for {_count(cost, 'guilder')}?", actions, buy, "reputation"
            )
        if any(isinstance(a, (DrawCard, StopDrawing)) for a in actions):
            return _decide(
                seat, "Draw a card: choose a pile", actions, lambda a: self._draw(state, a), "draw"
            )
        return self._turn(state, seat, actions)

    def _draw(self, state: Any, a: Any) -> Choice:
        if isinstance(a, StopDrawing):
            return Choice("Which pile?", "Stop drawing (keep five cards)")
        return self.pile_choice(state, a.pile)

    def _turn(self, state: Any, seat: int, actions: Sequence[Any]) -> Decision:
        houses = state.seats[seat].houses
        kinds = {type(a) for a in actions}
        several = len(kinds) > 1

        def path(a: Any) -> list[Choice]:
            if isinstance(a, EndTurn):
                return [Choice(WHAT, "End your turn")]
            out = []
            if isinstance(a, PlayCard):
                if several:
                    out.append(Choice(WHAT, "Play a card"))
                out.append(self.card_choice("Which card?", a.card))
                out.append(
                    Choice("Which action?", self._action_label(state, seat, a), "card_action", a.action)
                )
                if a.action == "canal":
                    out.append(self.next_space(state, seat, a.target))
                elif a.action == "recruit":
                    house = houses[a.target]
                    label = f"{house_name(a.target)} ({self.colour[house.card]})"
                    out.append(Choice("Onto which house?", label, "house_slot", str(a.target)))
                return out
            if several:
                out.append(Choice(WHAT, "Use a person"))
            person = houses[a.house].person
            out.append(
                Choice("Which person?", f"{self.name[person]} ({house_name(a.house)})", "person", str(person))
            )
            if self.effect[person] == "canal_without_card":
                out.append(self.next_space(state, seat, a.target, self.amount[person]))
            return out

        played, allowed = state.played, state.allowed
        if PlayCard in kinds:
            prompt = "Play a card, use a person or end your turn" if several else "Play a card"
        else:
            prompt = "Use a person or end your turn" if Activate in kinds else "End your turn"
        if played >= 1 and PlayCard in kinds:
            prompt += f" (card {played + 1} of {allowed} this turn)"
        return _decide(seat, prompt, actions, path, "turn")

    def _action_label(self, state: Any, seat: int, a: PlayCard) -> str:
        name = ACTION_NAMES[a.action]
        colour = self.colour[a.card]
        if a.action == "workers":
            return f"{name} ({colour})"
        if a.action == "guilders":
            return f"{name} (the {colour} die shows {state.dice[COLOURS.index(colour)]})"
        if a.action == "threat":
            return f"{name} ({colour})"
        if a.action == "house":
            return f"{name} ({colour}, pay a {colour} worker)"
        if a.action == "recruit":
            return f"{name} (price {self.price[a.card]})"
        return name

    def _task(self, state: Any, seat: int, actions: Sequence[Any], mine: list[Any]) -> Decision:
        simultaneous = len({t.seat for t in state.tasks}) > 1
        first = mine[0]
        left = f" ({first.count} to go)" if first.count > 1 else ""
        houses = state.seats[seat].houses
        if first.kind in CALAMITY_TASKS:
            struck = [k for k in CALAMITY_TASKS if any(t.kind == k for t in mine)]
            both = len(struck) > 1

            def calamity(a: SufferCalamity) -> list[Choice]:
                out = []
                if both:
                    out.append(
                        Choice("Which calamity first?", CALAMITY_NAMES[a.colour], "calamity", a.colour)
                    )
                if a.colour == "brown":
                    h = houses[a.house]
                    label = f"{self.name[h.person]} ({house_name(a.house)})"
                    out.append(Choice("Which person do you lose?", label, "person", str(h.person)))
                elif a.house >= 0:
                    h = houses[a.house]
                    back = f"; {self.name[h.person]} goes back to your hand" if h.person >= 0 else ""
                    label = f"{house_name(a.house)} ({self.colour[h.card]}{back})"
                    out.append(Choice("What burns?", label, "house_slot", str(a.house)))
                else:
                    out.append(self.outer_token("What burns?", state, seat, a.section))
                return out

            names = " and ".join(CALAMITY_NAMES[{T_PLAGUE: "brown", T_FIRE: "red"}[k]] for k in struck)
            prompt = (
                {
                    T_PLAGUE: "Plague: discard one of your persons",
                    T_FIRE: "Fire: lose a house or a canal token",
                }[struck[0]]
                if not both
                else f"{names} strike: choose what you lose first"
            )
            return _decide(seat, prompt, actions, calamity, "calamity", simultaneous)
        kind = first.kind
        if kind == T_DRAW:
            return _decide(
                seat,
                "Draw a card: choose a pile" + left,
                actions,
                lambda a: self.pile_choice(state, a.pile),
                kind,
                simultaneous,
            )
        if kind == T_DISCARD:
            return _decide(
                seat,
                "Discard a card from your hand" + left,
                actions,
                lambda a: self.card_choice("Which card?", a.card),
                kind,
                simultaneous,
            )
        if kind == T_THREAT:
            return _decide(
                seat,
                "Give back a threat marker (1 point)" + left,
                actions,
                lambda a: Choice(
                    "Which colour?", f"{a.colour.capitalize()} threat marker", "colour", a.colour
                ),
                kind,
                simultaneous,
            )
        if kind == T_GIVE:
            return _decide(
                seat,
                named("Give a worker to {player}" + left, seat_arg("player", first.other)),
                actions,
                lambda a: Choice("Which worker?", f"{a.colour.capitalize()} worker", "colour", a.colour),
                kind,
                simultaneous,
            )
        # T_CANAL
        return _decide(
            seat,
            "Give back a canal token" + left,
            actions,
            lambda a: self.outer_token("Which token?", state, seat, a.section),
            kind,
            simultaneous,
        )


def _decide(
    seat: int,
    prompt: Text,
    actions: Sequence[Any],
    choose: Callable[[Any], Choice | list[Choice]],
    key: str,
    simultaneous: bool = False,
) -> Decision:
    return single_step(seat, prompt, actions, choose, key=key, simultaneous=simultaneous)


def make_presentation(catalog: Catalog) -> Presentation:
    """The presentation for a game played with this data file."""
    labels = Labels(catalog)
    return Presentation(
        decision=labels.decision,
        describe=Describer(catalog).describe,
        components=game_data.components,
        places=places,
        refs=REFS,
        key_refs=KEY_REFS,
        view_sections=VIEW_SECTIONS,
        score=game_data.SCORE,
    )


PRESENTATION = make_presentation(default_catalog())

__all__ = ["PRESENTATION", "make_presentation"]
