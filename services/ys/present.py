"""How a client presents Ys to a person: decisions, event descriptions, board places, the kinds
of ids in its JSON and the sections of its view (services/kernel/present.py).

A placement is asked in steps: (what to do, when the seat may also play a card, look with the
Spy or place a neutral broker), which broker, face up or face down (when both are allowed), then
where. Cards are played in steps too: which card, then its targets one by one. Bids and the
King's Favor throne are simultaneous secret decisions. Label tables are built once per data file
(`make_presentation`); a decision reads the state, never copies it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import msgspec

from services.kernel.present import PLACE as PLACE_KIND
from services.kernel.present import (
    SEAT,
    Choice,
    Decision,
    Named,
    Option,
    Presentation,
    choice,
    named,
    seat_arg,
)
from services.ys import game_data
from services.ys.board import PLACES
from services.ys.catalog import Catalog, default_catalog
from services.ys.describe import Labels, gems_label
from services.ys.model import (
    BID,
    COUNT,
    ORDER,
    PLACE,
    THRONE,
    WINDOW,
    MoveQuotation,
    Pass,
    Peek,
    PlaceBroker,
    PlaceNeutral,
    PlayCharacter,
    RankColumns,
    State,
    TakeGems,
)

# -- what each id field of the JSON holds ----------------------------------------------------------

REFS: dict[str, str] = {
    # seats
    "player": SEAT,
    "viewer": SEAT,
    "active": SEAT,
    "queue": SEAT,
    "bid_order": SEAT,
    "choosing_order": SEAT,
    "seats": SEAT,  # window_opened (the view's `seats` holds objects, which are not checked)
    "pool": SEAT,
    "throne_seat": SEAT,
    "intriguer": SEAT,
    "deciding": SEAT,
    "decided_by": SEAT,
    "column_decider": SEAT,
    "placement_round_started.order": SEAT,
    # parties (a seat, or the neutral player with 2 players)
    "party": "party",
    "owner": "party",
    "ranking": "party",
    "port": "party",
    "commercial": "party",
    "palace": "party",
    "rows": "party",
    "contributor": "party",
    # components
    "card": "character",
    "choose_order_card.card": "order_card",
    "order_card_chosen.card": "order_card",
    "order_card": "order_card",
    "characters": "character",
    "offered": "character",
    "hand": "character",
    "new_cards": "character",
    "ports": "ship",
    "play_character.ports": "neighbourhood",
    "character_played.ports": "neighbourhood",
    "market_ship": "ship",
    "neighbourhood": "neighbourhood",
    "gems": "gem",
    "gem": "gem",
    "colour": "gem",
    "colours": "gem",
    "white_as": "gem",
    "neutral_gem": "gem",
    "market_gems": "gem",
    "port_pool": "gem",
    "rank_columns.order": "gem",
    "columns_ranked.order": "gem",
    "value": "broker",
    "values": "broker",
    "screen": "broker",
    "front": "broker",
    "bid": "broker",
    "throne": "broker",
    "neutral_pool": "broker",
    "window": "window",
    "phase": "phase",
    # places
    "place": PLACE_KIND,
    "closed": PLACE_KIND,
    "where": PLACE_KIND,
}
KEY_REFS: dict[str, str] = {"prices": "gem", "gems": "gem"}
VIEW_SECTIONS: dict[str, str] = {
    "players": "turn",
    "viewer": "self",
    "turn": "turn",
    "phase": "turn",
    "window": "turn",
    "active": "turn",
    "queue": "turn",
    "round": "turn",
    "rounds": "turn",
    "bid_order": "turn",
    "neighbourhoods": "board",
    "prices": "board",
    "price_limit": "board",
    "board": "board",
    "ports": "board",
    "port_pool": "board",
    "market_gems": "board",
    "offered": "board",
    "pile_sizes": "board",
    "ship_deck_size": "board",
    "closed": "board",
    "commercial_vp": "board",
    "seats": "players",
    "neutral": "players",
    "intriguer": "players",
    "peeks_left": "engine",
    "grants": "engine",
    "deciding": "engine",
    "placed_up": "engine",
    "placed_down": "engine",
    "neutral_placed": "engine",
    "just_placed": "engine",
    "replacing": "engine",
    "after": "engine",
}

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_WHAT = "What do you do?"
_PLACE_ONE = Choice(_WHAT, "Place one of your brokers")
_FACE_UP = Choice("Face up or face down?", "face up")
_FACE_DOWN = Choice("Face up or face down?", "face down")


@functools.lru_cache(maxsize=4096)
def _choice(step: str, label: str, kind: str = "", id: str = "") -> Choice:
    """The same Choice for the same words: a placement decision lists up to 190 options of a few
    dozen distinct choices, built on every action (issue 31 asks decisions to cost little)."""
    return Choice(step, label, kind, id)


def _ordinal(n: int) -> str:
    return _ORDINALS[n] if n < len(_ORDINALS) else f"#{n + 1}"


class _Text(Labels):
    """Decision labels for one data file (names computed once; descriptions in describe.py)."""

    # -- small builders ----------------------------------------------------------------------

    def card_choice(self, step: str, card: str, prefix: str = "") -> Choice:
        return Choice(step, f"{prefix}{self.card_label(card)}", "character", card)

    def place_choice(self, step: str, place: str) -> Choice:
        return _choice(step, self.place_names.get(place, place), PLACE_KIND, place)

    def gem_choice(self, step: str, colour: str, label: str = "") -> Choice:
        return Choice(step, label or colour, "gem", colour)

    # -- decisions ---------------------------------------------------------------------------

    def decision(self, state: State, seat: int, actions: Sequence[Any]) -> Decision:
        phase = state.phase
        if phase == BID:
            return self._simple(
                seat,
                "Bid two brokers for the turn order (secret)",
                actions,
                lambda a: (
                    Choice(
                        "Which two brokers do you bid?",
                        f"{a.values[0]} and {a.values[1]} (total {sum(a.values)})",
                    ),
                ),
                "bid",
                True,
            )
        if phase == THRONE:
            return self._simple(
                seat,
                "Send one of the brokers in front of your screen to the throne (secret)",
                actions,
                lambda a: (
                    Choice("Which broker goes to the throne?", f"Broker {a.value}", "broker", str(a.value)),
                ),
                "throne",
                True,
            )
        if phase == ORDER:
            return self._simple(
                seat,
                "Choose your order card",
                actions,
                lambda a: (Choice("Which order card?", f"Order card {a.card}", "order_card", str(a.card)),),
                "order",
            )
        if phase == COUNT:
            return self._counting(state, seat, actions)
        if phase == PLACE and state.replacing:
            return self._simple(
                seat,
                "Conjurer: put a broker from behind your screen face up in front of it",
                actions,
                lambda a: (
                    Choice(
                        "Which broker goes in front of your screen?",
                        f"Broker {a.value}",
                        "broker",
                        str(a.value),
                    ),
                ),
                "replace_front",
            )
        return self._turn(state, seat, actions)

    def _simple(
        self,
        seat: int,
        prompt: str,
        actions: Sequence[Any],
        choose: Any,
        key: str,
        simultaneous: bool = False,
    ) -> Decision:
        options = tuple(Option(choose(a), i) for i, a in enumerate(actions))
        return Decision(seat, prompt, options, key, simultaneous)

    def _counting(self, state: State, seat: int, actions: Sequence[Any]) -> Decision:
        first = actions[0] if actions else None
        if isinstance(first, TakeGems):
            grant = state.grants[0] if state.grants else None
            source = grant.source if grant else "port"
            if source == "port":
                prompt = f"Take the gems you won in Neighbourhood {state.counting + 1}'s port"
            elif source == "row":
                prompt = "Take the gem of the market row you won"
            else:
                prompt = "Take the gem of the blue-edged card you won"

            def gems(a: TakeGems) -> tuple[Choice, ...]:
                if len(a.gems) == 1:
                    pick = self.gem_choice("Which gems do you take?", a.gems[0])
                else:
                    pick = Choice("Which gems do you take?", gems_label(a.gems))
                if not a.white_as:
                    return (pick,)
                return (pick, self.gem_choice("Which colour does the white gem become?", a.white_as))

            return self._simple(seat, prompt, actions, gems, "take_gems")
        if isinstance(first, RankColumns):
            return self._simple(
                seat,
                "Rank the market columns tied on value and brokers (best first)",
                actions,
                lambda a: (Choice("Which order, best first?", ", ".join(a.order)),),
                "rank_columns",
            )

        def move(a: MoveQuotation) -> tuple[Choice, ...]:
            return (
                self.gem_choice("Which quotation do you move?", a.colour, f"the {a.colour} quotation"),
                Choice("Up or down?", "one step up" if a.step > 0 else "one step down"),
            )

        return self._simple(
            seat, "Biggest market contributor: move one quotation one step", actions, move, "move_quotation"
        )

    def _turn(self, state: State, seat: int, actions: Sequence[Any]) -> Decision:
        """Placement and card windows: the kind of move first (when there are several), then
        its steps."""
        kinds = {self._kind(a) for a in actions}
        several = len(kinds) > 1
        brokers = _BrokerLabels(self, state, seat)
        faces = {a.face_up for a in actions if isinstance(a, PlaceBroker)}
        fronts = {a.from_front for a in actions if isinstance(a, PlaceBroker)}
        options = []
        for i, a in enumerate(actions):
            steps: list[Choice] = []
            if isinstance(a, PlaceBroker):
                if several:
                    steps.append(_PLACE_ONE)
                where = ""
                if len(fronts) > 1:
                    where = " from in front of your screen" if a.from_front else " from behind your screen"
                steps.append(_choice("Which broker?", f"Broker {a.value}{where}", "broker", str(a.value)))
                if len(faces) > 1:
                    steps.append(_FACE_UP if a.face_up else _FACE_DOWN)
                steps.append(self.place_choice("Where?", a.place))
            elif isinstance(a, PlaceNeutral):
                if several:
                    steps.append(Choice(_WHAT, "Place a neutral broker (face down)"))
                if a.value >= 0:
                    steps.append(
                        Choice("Which neutral broker?", f"Neutral broker {a.value}", "broker", str(a.value))
                    )
                steps.append(self.place_choice("Where does the neutral broker go?", a.place))
            elif isinstance(a, PlayCharacter):
                steps.append(self.card_choice(_WHAT, a.card, "Play "))
                steps += self._card_steps(state, a, brokers)
            elif isinstance(a, Peek):
                steps.append(Choice(_WHAT, "Look at a hidden broker (Spy)", "character", "spy"))
                steps.append(brokers.peek_choice(a))
            elif isinstance(a, Pass):
                label = "Pass (play no card now)" if state.phase == WINDOW else "Finish your turn"
                steps.append(Choice(_WHAT, label))
            else:  # an action this presentation does not know: still one named option
                steps.append(Choice(_WHAT, type(a).__name__))
            options.append(Option(tuple(steps), i))
        prompt, key = self._turn_prompt(state, kinds)
        return Decision(seat, prompt, _distinct(options), key)

    @staticmethod
    def _kind(action: Any) -> str:
        if isinstance(action, PlayCharacter):
            return "card:" + action.card
        return type(action).__name__

    def _turn_prompt(self, state: State, kinds: set[str]) -> tuple[str, str]:
        if state.phase == WINDOW:
            window = game_data.WINDOW_NAMES.get(state.window, state.window).lower()
            return f"{window.capitalize()}: play a character card or pass", "play_card"
        if kinds == {"PlaceNeutral"}:
            return (
                f"Placement round {state.round}: place your neutral broker face down, where?",
                "place_neutral",
            )
        if "PlaceBroker" in kinds or "PlaceNeutral" in kinds:
            return f"Placement round {state.round}: place a broker, which one, then where", "place_broker"
        return "Your brokers are placed: play a character card, look with the Spy, or finish", "after_placing"

    def _card_steps(self, state: State, a: PlayCharacter, brokers: _BrokerLabels) -> list[Choice]:
        effect = self.cards[a.card].effect if a.card in self.cards else ""
        steps: list[Choice] = []
        if effect == "close_area":
            steps.append(self.place_choice("Which city area do you close?", a.place))
        elif effect == "swap_ships":
            first, second = a.ports
            steps.append(self.place_choice("Which port's ship do you swap?", f"n{first}.port"))
            steps.append(self.place_choice("With which port?", f"n{second}.port"))
        elif effect == "fixed_value":
            steps.append(brokers.own_choice("Which broker counts 5?", a.brokers[0]))
        elif effect == "swap_own_brokers":
            steps.append(brokers.own_choice("Which of your brokers?", a.brokers[0]))
            steps.append(brokers.own_choice("Swap it with which broker?", a.brokers[1]))
        elif effect == "move_own_broker":
            steps.append(brokers.own_choice("Which of your brokers moves?", a.brokers[0]))
            steps.append(self.place_choice("Where to?", a.place))
        elif effect == "exchange_gem":
            steps.append(self.gem_choice("Which gem do you give?", a.colours[0]))
            steps.append(self.gem_choice("Which gem do you take?", a.colours[1]))
        elif effect == "shift_prices":
            steps.append(self.gem_choice("Which quotation goes up?", a.colours[0]))
            steps.append(self.gem_choice("Which quotation goes down?", a.colours[1]))
        elif effect == "gain_gems":
            steps.append(self.gem_choice("Which colour (two gems)?", a.colours[0]))
        return steps


class _BrokerLabels:
    """Names of the brokers on the board and in the throne as one seat sees them ("your 3, face
    up, in the Neighbourhood 1 palace"), with an ordinal where two would read the same."""

    def __init__(self, text: _Text, state: State, seat: int) -> None:
        self.text = text
        self.state = state
        self.seat = seat
        self._labels: dict[int, Named] | None = None

    def _label(self, owner: int, body: str) -> Named:
        """ "{owner}'s <body>" for another seat's broker (a template a client names), "Your
        <body>" and "The neutral <body>" otherwise."""
        if owner == self.seat:
            return named(f"Your {body}")
        if owner >= self.state.players:
            return named(f"The neutral {body}")
        return named(f"{{owner}}'s {body}", seat_arg("owner", owner))

    def labels(self) -> dict[int, Named]:
        if self._labels is None:
            raw: dict[int, Named] = {}
            me = 1 << self.seat
            for i, b in enumerate(self.state.board):
                where = self.text.place_names.get(b.place, b.place)
                if b.face_up:
                    body = f"{b.value}, face up"
                elif b.known & me:
                    body = f"{b.value}, face down"
                else:
                    body = "face-down broker"
                raw[i] = self._label(b.owner, f"{body}, in the {where}")
            for k, throne in enumerate(self.state.throne):
                for slot, b in enumerate(throne):
                    seen = b.known & me
                    body = "throne broker" + (f" ({b.value})" if seen else "")
                    raw[-1 - slot if k == self.seat else -100 - 10 * k - slot] = self._label(k, body)
            self._labels = _number_duplicates(raw)
        return self._labels

    def own_choice(self, step: str, index: int) -> Choice:
        label = self.labels().get(index, named(f"Broker {index}"))
        if index >= 0:
            place = self.state.board[index].place
            return choice(step, label, PLACE_KIND, place)
        return choice(step, label, PLACE_KIND, "throne")

    def peek_choice(self, a: Peek) -> Choice:
        step = "Which hidden broker?"
        if a.broker >= 0:
            return choice(step, self.labels()[a.broker], PLACE_KIND, self.state.board[a.broker].place)
        key = -1 - a.throne_slot if a.throne_seat == self.seat else -100 - 10 * a.throne_seat - a.throne_slot
        return choice(step, self.labels()[key], PLACE_KIND, "throne")


def _number_duplicates(labels: dict[int, Named]) -> dict[int, Named]:
    """Two labels that read the same get an ordinal ("(first)", "(second)")."""
    seen: dict[str, int] = {}
    counts: dict[str, int] = {}
    for label in labels.values():
        counts[str(label)] = counts.get(str(label), 0) + 1
    out = {}
    for key, label in labels.items():
        text = str(label)
        if counts[text] > 1:
            n = seen.get(text, 0)
            seen[text] = n + 1
            label = Named(f"{label.template} ({_ordinal(n)})", label.args)
        out[key] = label
    return out


def _distinct(options: list[Option]) -> tuple[Option, ...]:
    """A safety net: two options that read the same get a number on their last choice."""
    paths: dict[tuple[tuple[str, str], ...], int] = {}
    out = []
    for option in options:
        path = tuple([(c.step, c.label) for c in option.choices])
        n = paths.get(path, 0)
        paths[path] = n + 1
        if n:
            last = option.choices[-1]
            numbered = msgspec.structs.replace(
                last,
                label=f"{last.label} ({n + 1})",
                label_template=f"{last.label_template} ({n + 1})" if last.label_template else "",
            )
            choices = (*option.choices[:-1], numbered)
            option = Option(choices, option.action)
        out.append(option)
    return tuple(out)


def _places(catalog: Any) -> Sequence[Any]:
    return PLACES


def make_presentation(catalog: Catalog) -> Presentation:
    """The presentation of Ys played with this data file (card and ship names from it)."""
    text = _Text(catalog)
    return Presentation(
        decision=text.decision,
        describe=text.describe,
        components=game_data.components,
        places=_places,
        refs=REFS,
        key_refs=KEY_REFS,
        view_sections=VIEW_SECTIONS,
        score=game_data.SCORE,
    )


PRESENTATION = make_presentation(default_catalog())

__all__ = ["KEY_REFS", "PRESENTATION", "REFS", "VIEW_SECTIONS", "make_presentation"]
