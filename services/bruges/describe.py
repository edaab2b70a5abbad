"""Bruges events as log lines (services/kernel/present.py `Description`): every event type, as
the viewer received it (a redacted draw or house names no card), with the players as seat
arguments and the components and places they name; pending decisions are bookkeeping."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.bruges.catalog import Catalog
from services.bruges.game_data import (
    ACTION_NAMES,
    CALAMITY_NAMES,
    MAJORITY_NAMES,
    PHASE_NAMES,
    SECTION_NAMES,
    house_name,
)
from services.bruges.model import (
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
    CalamityStruck,
    CanalBuilt,
    CanalRemoved,
    CardDiscarded,
    CardDrawn,
    CardPlayed,
    DiceRolled,
    ExtraPlayGranted,
    Gained,
    GameEnded,
    HandLooked,
    HouseLost,
    LastRoundSet,
    MajoritiesChecked,
    PersonActivated,
    PersonLost,
    PhaseStarted,
    PileReplaced,
    ReputationBought,
    RoundEnded,
    RoundStarted,
    StatueTaken,
    TaskDropped,
    TasksAdded,
    ThreatReturned,
    ThreatTaken,
    TurnEnded,
    TurnStarted,
    WorkerGiven,
)
from services.kernel.present import Arg, Description, arg, describe, seat_arg

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


def count(n: int, one: str) -> str:
    return f"{n} {one if abs(n) == 1 else one + 's'}"


class Describer:
    """Event descriptions with the person names of one data file."""

    def __init__(self, catalog: Catalog) -> None:
        self.name = {p.id: p.name for p in catalog.persons}

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
        return describe(
            "round_started",
            "Round {round} begins; {player} is the start player",
            arg("round", e.round),
            seat_arg("player", e.start),
        )

    def _card_drawn(self, e: CardDrawn) -> Description:
        args = [seat_arg("player", e.player), arg("pile", f"draw pile {e.pile + 1}", "draw_pile", e.pile)]
        if e.card >= 0:
            return describe(
                "card_drawn_seen", "{player} draws {card} from {pile}", *args, self.card_arg("card", e.card)
            )
        return describe(
            "card_drawn",
            "{player} draws a {colour} card from {pile}",
            *args,
            arg("colour", e.colour, "colour", e.colour),
        )

    def _pile_replaced(self, e: PileReplaced) -> Description:
        pile = arg("pile", f"Draw pile {e.pile + 1}", "draw_pile", e.pile)
        if e.split:
            return describe(
                "pile_split",
                "{pile} is empty: the other pile is split in two ({sizes} cards)",
                pile,
                arg("sizes", f"{e.sizes[0]} and {e.sizes[1]}"),
            )
        return describe("extra_pile_in", "{pile} is empty: the extra pile replaces it", pile)

    def _last_round_set(self, e: LastRoundSet) -> Description:
        return describe("last_round_set", "Round {round} will be the last", arg("round", e.round))

    def _hand_looked(self, e: HandLooked) -> Description:
        if e.cards:
            cards = ", ".join(self.name[c] for c in e.cards)
            return describe(
                "hand_looked_own",
                "{player} looks at the hand: {cards}",
                seat_arg("player", e.player),
                arg("cards", cards),
            )
        return describe("hand_looked", "{player} looks at the hand", seat_arg("player", e.player))

    def _dice_rolled(self, e: DiceRolled) -> Description:
        args = [arg(c, f"{c} {v}", "colour", c) for c, v in zip(COLOURS, e.dice, strict=True)]
        return describe("dice_rolled", "The dice show {blue}, {brown}, {red}, {purple}, {yellow}", *args)

    def _threat_taken(self, e: ThreatTaken) -> Description:
        return describe(
            "threat_taken",
            "{player} takes a {colour} threat marker",
            seat_arg("player", e.player),
            arg("colour", e.colour, "colour", e.colour),
        )

    def _calamity_struck(self, e: CalamityStruck) -> Description:
        return describe(
            "calamity_struck",
            "{calamity} strikes {player} (third {colour} threat marker)",
            arg("calamity", CALAMITY_NAMES[e.colour], "calamity", e.colour),
            seat_arg("player", e.player),
            arg("colour", e.colour, "colour", e.colour),
        )

    def _reputation_bought(self, e: ReputationBought) -> Description:
        if e.advanced:
            return describe(
                "reputation_bought",
                "{player} pays {cost} and moves up the reputation track",
                seat_arg("player", e.player),
                arg("cost", count(e.cost, "guilder")),
            )
        return describe(
            "reputation_declined", "{player} declines the reputation step", seat_arg("player", e.player)
        )

    def _phase_started(self, e: PhaseStarted) -> Description:
        phase = arg("phase", PHASE_NAMES.get(e.phase, e.phase), "phase", e.phase)
        if e.phase == REPUTATION:
            return describe(
                "reputation_phase",
                "{phase}: a step costs {cost}",
                phase,
                arg("cost", count(e.cost, "guilder")),
            )
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
                return describe(
                    "house_built", "{player} builds a {colour} house" + extra, who, colour, action
                )
            return describe(
                "house_built_own",
                "{player} builds a {colour} house with {card}" + extra,
                who,
                colour,
                self.card_arg("card", e.card),
                action,
            )
        card = self.card_arg("card", e.card)
        if e.action == "recruit":
            return describe(
                "person_recruited",
                "{player} recruits {card} onto {house} for {cost}" + extra,
                who,
                card,
                arg("house", house_name(e.target).lower(), "house_slot", e.target),
                arg("cost", count(e.cost, "guilder")),
                action,
            )
        if e.action == "canal":
            return describe(
                "card_played_canal",
                "{player} discards {card} to build a canal token" + extra,
                who,
                card,
                action,
            )
        return describe("card_played", "{player} plays {card}: {action}" + extra, who, card, action)

    def _gained(self, e: Gained) -> Description:
        parts = []
        if e.guilders:
            parts.append(count(e.guilders, "guilder"))
        for c, n in zip(COLOURS, e.workers, strict=True):
            if n:
                parts.append(f"{n} {c} worker{'s' if abs(n) != 1 else ''}")
        if e.points:
            parts.append(count(e.points, "point"))
        if e.reputation:
            parts.append(count(e.reputation, "reputation step"))
        gains = ", ".join(parts).replace("-", "") or "nothing"
        verb = "loses" if any(v < 0 for v in (e.guilders, e.points, *e.workers)) else "gains"
        why = ACTION_NAMES.get(e.why, e.why)
        return describe(
            "gained",
            "{player} " + verb + " {gains} ({why})",
            seat_arg("player", e.player),
            arg("gains", gains),
            arg("why", why),
        )

    def _threat_returned(self, e: ThreatReturned) -> Description:
        return describe(
            "threat_returned",
            "{player} gives back a {colour} threat marker and scores 1 point",
            seat_arg("player", e.player),
            arg("colour", e.colour, "colour", e.colour),
        )

    def _section(self, section: int) -> Arg:
        return arg("section", SECTION_NAMES[section].lower(), "canal_section", section)

    def _canal_built(self, e: CanalBuilt) -> Description:
        return describe(
            "canal_built",
            "{player} builds a canal token in the {section} for {cost}",
            seat_arg("player", e.player),
            self._section(e.section),
            arg("cost", count(e.cost, "guilder")),
        )

    def _statue_taken(self, e: StatueTaken) -> Description:
        return describe(
            "statue_taken",
            "{player} completes the {section} and takes a statue worth {value}",
            seat_arg("player", e.player),
            self._section(e.section),
            arg("value", count(e.value, "point")),
        )

    def _canal_removed(self, e: CanalRemoved) -> Description:
        return describe(
            "canal_removed",
            "{player} gives back the outermost canal token of the {section}",
            seat_arg("player", e.player),
            self._section(e.section),
        )

    def _person_activated(self, e: PersonActivated) -> Description:
        args = [
            seat_arg("player", e.player),
            self.card_arg("person", e.person),
            arg("house", house_name(e.house).lower(), "house_slot", e.house),
        ]
        if e.worker:
            return describe(
                "person_used_worker",
                "{player} uses {person} ({house}), paying a {worker} worker",
                *args,
                arg("worker", e.worker, "colour", e.worker),
            )
        return describe("person_used", "{player} uses {person} ({house})", *args)

    def _extra_play(self, e: ExtraPlayGranted) -> Description:
        return describe(
            "extra_play_granted", "{player} may play one more card this round", seat_arg("player", e.player)
        )

    def _tasks_added(self, e: TasksAdded) -> Description:
        owed = [(t.seat, TASK_VERBS[t.kind], t.count) for t in e.tasks]
        args = [seat_arg(f"player{i}", s) for i, (s, _, _) in enumerate(owed)]
        template = (
            "; ".join(
                f"{{player{i}}} must {what}" + (f" ({n} times)" if n > 1 else "")
                for i, (_, what, n) in enumerate(owed)
            )
            or "Nothing is owed"
        )
        return describe("tasks_added", template, *args, internal=True)

    def _task_dropped(self, e: TaskDropped) -> Description:
        return describe(
            "task_dropped",
            "{player} cannot {task}: it is void",
            seat_arg("player", e.seat),
            arg("task", TASK_VERBS[e.kind], "task", e.kind),
            internal=True,
        )

    def _card_discarded(self, e: CardDiscarded) -> Description:
        return describe(
            "card_discarded",
            "{player} discards {card}",
            seat_arg("player", e.player),
            self.card_arg("card", e.card),
        )

    def _worker_given(self, e: WorkerGiven) -> Description:
        return describe(
            "worker_given",
            "{player} gives a {colour} worker to {to}",
            seat_arg("player", e.player),
            arg("colour", e.colour, "colour", e.colour),
            seat_arg("to", e.to),
        )

    def _person_lost(self, e: PersonLost) -> Description:
        return describe(
            "person_lost",
            "Plague: {player} loses {person} from {house}",
            seat_arg("player", e.player),
            self.card_arg("person", e.person),
            arg("house", house_name(e.house).lower(), "house_slot", e.house),
        )

    def _house_lost(self, e: HouseLost) -> Description:
        args = [
            seat_arg("player", e.player),
            arg("house", house_name(e.house).lower(), "house_slot", e.house),
            self.card_arg("card", e.card),
        ]
        if e.person >= 0:
            return describe(
                "house_burnt_person_back",
                "Fire: {player} loses {house} ({card}); {person} goes back to the hand",
                *args,
                self.card_arg("person", e.person),
            )
        return describe("house_burnt", "Fire: {player} loses {house} ({card})", *args)

    def _turn_ended(self, e: TurnEnded) -> Description:
        return describe("turn_ended", "{player} ends the turn", seat_arg("player", e.player))

    def _majorities(self, e: MajoritiesChecked) -> Description:
        parts, args = [], []
        for key, winner in zip(MAJORITIES, e.winners, strict=False):
            if winner >= 0:
                parts.append(f"{{{key}}} leads the {{{key}_marker}}")
                args += [
                    seat_arg(key, winner),
                    arg(f"{key}_marker", MAJORITY_NAMES[key].lower(), "majority", key),
                ]
        template = "Majorities: " + ("; ".join(parts) if parts else "nobody leads alone")
        return describe("majorities_checked", template, *args)

    def _round_ended(self, e: RoundEnded) -> Description:
        return describe(
            "round_ended",
            "Round {round} ends; {player} becomes the start player",
            arg("round", e.round),
            seat_arg("player", e.next_start),
        )

    def _game_ended(self, e: GameEnded) -> Description:
        return describe("game_ended", "The game ends after round {round}", arg("round", e.round))

    _describers: dict[type, Callable[[Describer, Any], Description]] = {
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
