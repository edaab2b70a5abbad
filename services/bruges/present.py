"""How a client presents this game to a person: decisions, event descriptions, board places, the
kinds of ids in its JSON and the sections of its view (services/kernel/present.py).

`make_presentation(catalog)` builds the label tables once from the data file the game plays with
(person names, colours, canal spaces); `PRESENTATION` is the one for the shipped data. Decisions
read only the state's few fields they name (no copies). The board's places are in `board.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from services.bruges import game_data
from services.bruges.board import canal_space_id, pile_id, places
from services.bruges.catalog import Catalog, default_catalog
from services.bruges.game_data import (
    ACTION_NAMES,
    CALAMITY_NAMES,
    MAJORITY_NAMES,
    PHASE_NAMES,
    SECTION_NAMES,
    house_name,
)
from services.bruges.model import (
    CALAMITY_TASKS,
    COLOURS,
    MAJORITIES,
    REPUTATION,
    T_CANAL,
    T_DISCARD,
    T_DRAW,
    T_FIRE,
    T_GIVE,
    T_PLAGUE,
    T_THREAT,
    Activate,
    BuyReputation,
    CalamityStruck,
    CanalBuilt,
    CanalRemoved,
    CardDiscarded,
    CardDrawn,
    CardPlayed,
    DiceRolled,
    DiscardCard,
    DrawCard,
    EndTurn,
    ExtraPlayGranted,
    Gained,
    GameEnded,
    GiveWorker,
    HandLooked,
    HouseLost,
    LastRoundSet,
    MajoritiesChecked,
    PersonActivated,
    PersonLost,
    PhaseStarted,
    PileReplaced,
    PlayCard,
    RemoveCanal,
    ReputationBought,
    ReturnThreat,
    RoundEnded,
    RoundStarted,
    StatueTaken,
    StopDrawing,
    SufferCalamity,
    TaskDropped,
    TasksAdded,
    ThreatReturned,
    ThreatTaken,
    TurnEnded,
    TurnStarted,
    WorkerGiven,
)
from services.kernel.present import (
    PLACE,
    SEAT,
    Arg,
    Choice,
    Decision,
    Description,
    Option,
    Presentation,
    arg,
    describe,
    player_name,
    seat_arg,
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
# What a seat owing a task must do, as a log line says it.
TASK_VERBS = {
    T_DRAW: "draw a card",
    T_DISCARD: "discard a card",
    T_THREAT: "give back a threat marker",
    T_GIVE: "give a worker",
    T_CANAL: "give back a canal token",
    T_PLAGUE: "lose a person to the Plague",
    T_FIRE: "lose a house or a canal token to the Fire",
}
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

            return _decide(seat, f"Buy a reputation step for {_count(cost, 'guilder')}?", actions, buy,
                           "reputation")
        if any(isinstance(a, (DrawCard, StopDrawing)) for a in actions):
            return _decide(seat, "Draw a card: choose a pile", actions, lambda a: self._draw(state, a),
                           "draw")
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
                out.append(Choice("Which action?", self._action_label(state, seat, a), "card_action", a.action))
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
            out.append(Choice("Which person?", f"{self.name[person]} ({house_name(a.house)})", "person",
                              str(person)))
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
                    out.append(Choice("Which calamity first?", CALAMITY_NAMES[a.colour], "calamity", a.colour))
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
            prompt = {
                T_PLAGUE: "Plague: discard one of your persons",
                T_FIRE: "Fire: lose a house or a canal token",
            }[struck[0]] if not both else f"{names} strike: choose what you lose first"
            return _decide(seat, prompt, actions, calamity, "calamity", simultaneous)
        kind = first.kind
        if kind == T_DRAW:
            return _decide(seat, "Draw a card: choose a pile" + left, actions,
                           lambda a: self.pile_choice(state, a.pile), kind, simultaneous)
        if kind == T_DISCARD:
            return _decide(seat, "Discard a card from your hand" + left, actions,
                           lambda a: self.card_choice("Which card?", a.card), kind, simultaneous)
        if kind == T_THREAT:
            return _decide(seat, "Give back a threat marker (1 point)" + left, actions,
                           lambda a: Choice("Which colour?", f"{a.colour.capitalize()} threat marker", "colour",
                                            a.colour), kind, simultaneous)
        if kind == T_GIVE:
            return _decide(seat, f"Give a worker to {player_name(first.other)}" + left, actions,
                           lambda a: Choice("Which worker?", f"{a.colour.capitalize()} worker", "colour", a.colour),
                           kind, simultaneous)
        # T_CANAL
        return _decide(seat, "Give back a canal token" + left, actions,
                       lambda a: self.outer_token("Which token?", state, seat, a.section), kind, simultaneous)

    # descriptions -------------------------------------------------------------------------------

    def card_arg(self, name: str, card: int) -> Arg:
        return arg(name, self.name[card], "person", card)

    def describe(self, event: Any, viewer: int | None) -> Description:
        handler = self._describers.get(type(event))
        if handler is None:  # an event type added later: its tag, never its fields
            tag = str(type(event).__struct_config__.tag)
            return describe(tag, tag.replace("_", " "), internal=True)
        return handler(self, event)

    def _round_started(self, e: RoundStarted) -> Description:
        return describe("round_started", "Round {round} begins; {player} is the start player",
                        arg("round", e.round), seat_arg("player", e.start))

    def _card_drawn(self, e: CardDrawn) -> Description:
        args = [seat_arg("player", e.player), arg("pile", f"draw pile {e.pile + 1}", "draw_pile", e.pile)]
        if e.card >= 0:
            return describe("card_drawn_seen", "{player} draws {card} from {pile}", *args,
                            self.card_arg("card", e.card))
        return describe("card_drawn", "{player} draws a {colour} card from {pile}", *args,
                        arg("colour", e.colour, "colour", e.colour))

    def _pile_replaced(self, e: PileReplaced) -> Description:
        pile = arg("pile", f"Draw pile {e.pile + 1}", "draw_pile", e.pile)
        if e.split:
            return describe("pile_split", "{pile} is empty: the other pile is split in two ({sizes} cards)",
                            pile, arg("sizes", f"{e.sizes[0]} and {e.sizes[1]}"))
        return describe("extra_pile_in", "{pile} is empty: the extra pile replaces it", pile)

    def _last_round_set(self, e: LastRoundSet) -> Description:
        return describe("last_round_set", "Round {round} will be the last", arg("round", e.round))

    def _hand_looked(self, e: HandLooked) -> Description:
        if e.cards:
            cards = ", ".join(self.name[c] for c in e.cards)
            return describe("hand_looked_own", "{player} looks at the hand: {cards}",
                            seat_arg("player", e.player), arg("cards", cards))
        return describe("hand_looked", "{player} looks at the hand", seat_arg("player", e.player))

    def _dice_rolled(self, e: DiceRolled) -> Description:
        args = [arg(c, f"{c} {v}", "colour", c) for c, v in zip(COLOURS, e.dice, strict=True)]
        return describe("dice_rolled", "The dice show {blue}, {brown}, {red}, {purple}, {yellow}", *args)

    def _threat_taken(self, e: ThreatTaken) -> Description:
        return describe("threat_taken", "{player} takes a {colour} threat marker", seat_arg("player", e.player),
                        arg("colour", e.colour, "colour", e.colour))

    def _calamity_struck(self, e: CalamityStruck) -> Description:
        return describe("calamity_struck", "{calamity} strikes {player} (third {colour} threat marker)",
                        arg("calamity", CALAMITY_NAMES[e.colour], "calamity", e.colour),
                        seat_arg("player", e.player), arg("colour", e.colour, "colour", e.colour))

    def _reputation_bought(self, e: ReputationBought) -> Description:
        if e.advanced:
            return describe("reputation_bought", "{player} pays {cost} and moves up the reputation track",
                            seat_arg("player", e.player), arg("cost", _count(e.cost, "guilder")))
        return describe("reputation_declined", "{player} declines the reputation step",
                        seat_arg("player", e.player))

    def _phase_started(self, e: PhaseStarted) -> Description:
        phase = arg("phase", PHASE_NAMES.get(e.phase, e.phase), "phase", e.phase)
        if e.phase == REPUTATION:
            return describe("reputation_phase", "{phase}: a step costs {cost}", phase,
                            arg("cost", _count(e.cost, "guilder")))
        return describe("phase_started", "{phase} begins", phase)

    def _turn_started(self, e: TurnStarted) -> Description:
        return describe("turn_started", "{player}'s turn", seat_arg("player", e.player))

    def _card_played(self, e: CardPlayed) -> Description:
        who = seat_arg("player", e.player)
        action = arg("action", ACTION_NAMES[e.action], "card_action", e.action)
        colour = arg("colour", e.colour, "colour", e.colour)
        extra = " (an extra card)" if e.extra else ""
        if e.action == "house":
            if e.card < 0:
                return describe("house_built", "{player} builds a {colour} house" + extra, who, colour, action)
            return describe("house_built_own", "{player} builds a {colour} house with {card}" + extra, who,
                            colour, self.card_arg("card", e.card), action)
        card = self.card_arg("card", e.card)
        if e.action == "recruit":
            return describe("person_recruited", "{player} recruits {card} onto {house} for {cost}" + extra, who,
                            card, arg("house", house_name(e.target).lower(), "house_slot", e.target),
                            arg("cost", _count(e.cost, "guilder")), action)
        if e.action == "canal":
            return describe("card_played_canal", "{player} discards {card} to build a canal token" + extra,
                            who, card, action)
        return describe("card_played", "{player} plays {card}: {action}" + extra, who, card, action)

    def _gained(self, e: Gained) -> Description:
        parts = []
        if e.guilders:
            parts.append(_count(e.guilders, "guilder"))
        for c, n in zip(COLOURS, e.workers, strict=True):
            if n:
                parts.append(f"{n} {c} worker{'s' if abs(n) != 1 else ''}")
        if e.points:
            parts.append(_count(e.points, "point"))
        if e.reputation:
            parts.append(_count(e.reputation, "reputation step"))
        gains = ", ".join(parts).replace("-", "") or "nothing"
        verb = "loses" if any(v < 0 for v in (e.guilders, e.points, *e.workers)) else "gains"
        why = ACTION_NAMES.get(e.why, e.why)
        return describe("gained", "{player} " + verb + " {gains} ({why})", seat_arg("player", e.player),
                        arg("gains", gains), arg("why", why))

    def _threat_returned(self, e: ThreatReturned) -> Description:
        return describe("threat_returned", "{player} gives back a {colour} threat marker and scores 1 point",
                        seat_arg("player", e.player), arg("colour", e.colour, "colour", e.colour))

    def _section(self, section: int) -> Arg:
        return arg("section", SECTION_NAMES[section].lower(), "canal_section", section)

    def _canal_built(self, e: CanalBuilt) -> Description:
        return describe("canal_built", "{player} builds a canal token in the {section} for {cost}",
                        seat_arg("player", e.player), self._section(e.section), arg("cost", _count(e.cost, "guilder")))

    def _statue_taken(self, e: StatueTaken) -> Description:
        return describe("statue_taken", "{player} completes the {section} and takes a statue worth {value}",
                        seat_arg("player", e.player), self._section(e.section), arg("value", _count(e.value, "point")))

    def _canal_removed(self, e: CanalRemoved) -> Description:
        return describe("canal_removed", "{player} gives back the outermost canal token of the {section}",
                        seat_arg("player", e.player), self._section(e.section))

    def _person_activated(self, e: PersonActivated) -> Description:
        args = [seat_arg("player", e.player), self.card_arg("person", e.person),
                arg("house", house_name(e.house).lower(), "house_slot", e.house)]
        if e.worker:
            return describe("person_used_worker", "{player} uses {person} ({house}), paying a {worker} worker",
                            *args, arg("worker", e.worker, "colour", e.worker))
        return describe("person_used", "{player} uses {person} ({house})", *args)

    def _extra_play(self, e: ExtraPlayGranted) -> Description:
        return describe("extra_play_granted", "{player} may play one more card this round",
                        seat_arg("player", e.player))

    def _tasks_added(self, e: TasksAdded) -> Description:
        owed = [(t.seat, TASK_VERBS[t.kind], t.count) for t in e.tasks]
        args = [seat_arg(f"player{i}", s) for i, (s, _, _) in enumerate(owed)]
        template = "; ".join(
            f"{{player{i}}} must {what}" + (f" ({n} times)" if n > 1 else "") for i, (_, what, n) in enumerate(owed)
        ) or "Nothing is owed"
        return describe("tasks_added", template, *args, internal=True)

    def _task_dropped(self, e: TaskDropped) -> Description:
        return describe("task_dropped", "{player} cannot {task}: it is void", seat_arg("player", e.seat),
                        arg("task", TASK_VERBS[e.kind], "task", e.kind), internal=True)

    def _card_discarded(self, e: CardDiscarded) -> Description:
        return describe("card_discarded", "{player} discards {card}", seat_arg("player", e.player),
                        self.card_arg("card", e.card))

    def _worker_given(self, e: WorkerGiven) -> Description:
        return describe("worker_given", "{player} gives a {colour} worker to {to}", seat_arg("player", e.player),
                        arg("colour", e.colour, "colour", e.colour), seat_arg("to", e.to))

    def _person_lost(self, e: PersonLost) -> Description:
        return describe("person_lost", "Plague: {player} loses {person} from {house}",
                        seat_arg("player", e.player), self.card_arg("person", e.person),
                        arg("house", house_name(e.house).lower(), "house_slot", e.house))

    def _house_lost(self, e: HouseLost) -> Description:
        args = [seat_arg("player", e.player), arg("house", house_name(e.house).lower(), "house_slot", e.house),
                self.card_arg("card", e.card)]
        if e.person >= 0:
            return describe("house_burnt_person_back", "Fire: {player} loses {house} ({card}); {person} goes back to the hand",
                            *args, self.card_arg("person", e.person))
        return describe("house_burnt", "Fire: {player} loses {house} ({card})", *args)

    def _turn_ended(self, e: TurnEnded) -> Description:
        return describe("turn_ended", "{player} ends the turn", seat_arg("player", e.player))

    def _majorities(self, e: MajoritiesChecked) -> Description:
        parts, args = [], []
        for key, winner in zip(MAJORITIES, e.winners, strict=False):
            if winner >= 0:
                parts.append(f"{{{key}}} leads the {{{key}_marker}}")
                args += [seat_arg(key, winner), arg(f"{key}_marker", MAJORITY_NAMES[key].lower(), "majority", key)]
        template = "Majorities: " + ("; ".join(parts) if parts else "nobody leads alone")
        return describe("majorities_checked", template, *args)

    def _round_ended(self, e: RoundEnded) -> Description:
        return describe("round_ended", "Round {round} ends; {player} becomes the start player",
                        arg("round", e.round), seat_arg("player", e.next_start))

    def _game_ended(self, e: GameEnded) -> Description:
        return describe("game_ended", "The game ends after round {round}", arg("round", e.round))

    _describers: dict[type, Callable[[Labels, Any], Description]] = {
        RoundStarted: _round_started,
        CardDrawn: _card_drawn,
        PileReplaced: _pile_replaced,
        LastRoundSet: _last_round_set,
        HandLooked: _hand_looked,
        DiceRolled: _dice_rolled,
        ThreatTaken: _threat_taken,
        CalamityStruck: _calamity_struck,
        ReputationBought: _reputation_bought,
        PhaseStarted: _phase_started,
        TurnStarted: _turn_started,
        CardPlayed: _card_played,
        Gained: _gained,
        ThreatReturned: _threat_returned,
        CanalBuilt: _canal_built,
        StatueTaken: _statue_taken,
        CanalRemoved: _canal_removed,
        PersonActivated: _person_activated,
        ExtraPlayGranted: _extra_play,
        TasksAdded: _tasks_added,
        TaskDropped: _task_dropped,
        CardDiscarded: _card_discarded,
        WorkerGiven: _worker_given,
        PersonLost: _person_lost,
        HouseLost: _house_lost,
        TurnEnded: _turn_ended,
        MajoritiesChecked: _majorities,
        RoundEnded: _round_ended,
        GameEnded: _game_ended,
    }


def _decide(
    seat: int,
    prompt: str,
    actions: Sequence[Any],
    choose: Callable[[Any], Choice | list[Choice]],
    key: str,
    simultaneous: bool = False,
) -> Decision:
    options = []
    for index, action in enumerate(actions):
        made = choose(action)
        options.append(Option((made,) if isinstance(made, Choice) else tuple(made), index))
    return Decision(seat, prompt, tuple(options), key, simultaneous)


def make_presentation(catalog: Catalog) -> Presentation:
    """The presentation for a game played with this data file."""
    labels = Labels(catalog)
    return Presentation(
        decision=labels.decision,
        describe=labels.describe,
        components=game_data.components,
        places=places,
        refs=REFS,
        key_refs=KEY_REFS,
        view_sections=VIEW_SECTIONS,
    )


PRESENTATION = make_presentation(default_catalog())

__all__ = ["PRESENTATION", "make_presentation"]
