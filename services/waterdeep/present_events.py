"""Lords of Waterdeep events as log lines (services/kernel/present.py, Description): one
describer per event class, with the names of a catalog (present.Labels)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from services.kernel.present import Arg, Description, arg, describe, seat_arg


class Labels(Protocol):
    """The name tables a describer reads (present.Labels has them): a protocol, so this module
    does not import present.py, which imports it."""

    tiles: dict[str, str]
    quests: dict[str, str]
    intrigues: dict[str, str]
    lords: dict[str, str]
    plot_of_flag: dict[str, str]

    def source(self, source: str) -> tuple[str, str, str]: ...

    def space_arg(self, name: str, space: str) -> Arg: ...


_RES_NAMES = (("Cleric", "Clerics"), ("Fighter", "Fighters"), ("Rogue", "Rogues"), ("Wizard", "Wizards"))


def amounts(bundle: Sequence[int]) -> str:
    """(0, 2, 0, 0, 4, 0) -> "2 Fighters and 4 Gold" (absolute values, RES order)."""
    parts = []
    for k, n in enumerate(bundle[:4]):
        if n:
            parts.append(f"{abs(n)} {_RES_NAMES[k][0] if abs(n) == 1 else _RES_NAMES[k][1]}")
    if len(bundle) > 4 and bundle[4]:
        parts.append(f"{abs(bundle[4])} Gold")
    if len(bundle) > 5 and bundle[5]:
        parts.append(f"{abs(bundle[5])} VP")
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _base(card: str) -> str:
    return card.partition(".")[0]


# -- event descriptions, by event class -----------------------------------------------------


def _gained(lab: Labels, e: Any) -> Description:
    player = seat_arg("player", e.player)
    name, kind, id_ = lab.source(e.why)
    source = arg("source", name, kind, id_)
    minus = tuple(-v if v < 0 else 0 for v in e.delta)
    plus = tuple(v if v > 0 else 0 for v in e.delta)
    tail = " ({source})" if e.why else ""
    extra = (source,) if e.why else ()
    if any(minus) and any(plus):
        return describe(
            "resources_exchanged",
            "{player} gives up {lost} and gains {gained}" + tail,
            player,
            arg("lost", amounts(minus)),
            arg("gained", amounts(plus)),
            *extra,
        )
    if any(minus):
        verb = "spends" if e.why.startswith("quest:") else "pays" if not any(minus[:4]) else "returns"
        return describe(
            f"resources_{'spent' if verb == 'spends' else 'paid' if verb == 'pays' else 'returned'}",
            "{player} " + verb + " {lost}" + tail,
            player,
            arg("lost", amounts(minus)),
            *extra,
        )
    if plus[:5] == (0, 0, 0, 0, 0):
        return describe(
            "vp_scored", "{player} scores {gained}" + tail, player, arg("gained", amounts(plus)), *extra
        )
    return describe(
        "resources_gained", "{player} gains {gained}" + tail, player, arg("gained", amounts(plus)), *extra
    )


def _agent_placed(lab: Labels, e: Any) -> Description:
    player = seat_arg("player", e.player)
    space = lab.space_arg("space", e.space)
    if e.ambassador:
        return describe("ambassador_placed", "{player} assigns the Ambassador to {space}", player, space)
    if e.orb:
        return describe(
            "agent_placed_shared",
            "{player} assigns an agent to {space}, already occupied (Recover the Magister's Orb)",
            player,
            space,
        )
    if not e.from_pool:
        return describe("agent_reassigned", "{player} reassigns an agent to {space}", player, space)
    return describe("agent_placed", "{player} assigns an agent to {space}", player, space)


def _agent_removed(lab: Labels, e: Any) -> Description:
    space = lab.space_arg("space", e.space)
    if e.ambassador:
        return describe("ambassador_removed", "The Ambassador leaves {space}", space)
    player = seat_arg("player", e.player)
    if e.to_pool:
        return describe("agent_recalled", "{player}'s agent returns from {space} to the pool", player, space)
    return describe("agent_left", "{player}'s agent leaves {space}", player, space)


def _quest(lab: Labels, name: str, quest: str) -> Arg:
    if not quest:
        return arg(name, "no quest", "quest", "")
    return arg(name, lab.quests.get(_base(quest), quest), "quest", quest)


def _quests(lab: Labels, key: str, template: str, quests: Sequence[str]) -> Description:
    args = [_quest(lab, f"quest_{i}", q) for i, q in enumerate(quests)]
    listed = ", ".join("{" + a.name + "}" for a in args) or "no quest"
    return describe(key, template.replace("{quests}", listed), *args)


def _quest_taken(lab: Labels, e: Any) -> Description:
    player, quest = seat_arg("player", e.player), _quest(lab, "quest", e.quest)
    if e.slot >= 0:
        return describe("quest_taken", "{player} takes {quest} from Cliffwatch Inn", player, quest)
    if e.slot == -2:
        return describe("quest_kept", "{player} keeps {quest} from the revealed quests", player, quest)
    return describe("quest_drawn", "{player} draws {quest} from the Quest deck", player, quest)


def _card(lab: Labels, name: str, card: str) -> Arg:
    if not card:
        return arg(name, "an intrigue card", "intrigue_copy", "")
    return arg(name, lab.intrigues.get(_base(card), card), "intrigue_copy", card)


def _tile(lab: Labels, name: str, tile: str) -> Arg:
    return arg(name, lab.tiles.get(tile, tile or "no building"), "building", tile)


def _building_bought(lab: Labels, e: Any) -> Description:
    player, tile = seat_arg("player", e.player), _tile(lab, "tile", e.tile)
    vp = arg("vp", e.vp)
    scored = " and scores {vp} VP" if e.vp else ""
    if e.slot < 0:
        return describe(
            "building_from_stack",
            "{player} puts {tile} from the top of the stack into play for free",
            player,
            tile,
        )
    if e.cost:
        return describe(
            "building_bought",
            "{player} buys {tile} for {cost} Gold" + scored,
            player,
            tile,
            arg("cost", e.cost),
            vp,
        )
    return describe("building_free", "{player} puts {tile} into play for free" + scored, player, tile, vp)


def _game_ended(lab: Labels, e: Any) -> Description:
    args: list[Arg] = []
    parts = []
    for p, lord in enumerate(e.lords):
        args += [seat_arg(f"player_{p}", p), arg(f"lord_{p}", lab.lords.get(lord, lord), "lord", lord)]
        parts.append(f"{{player_{p}}} was {{lord_{p}}}")
    return describe("game_ended", "The game ends; the Lords are revealed: " + ", ".join(parts), *args)


def _flag(lab: Labels, e: Any) -> Description:
    quest = lab.plot_of_flag.get(e.flag, "")
    return describe(
        f"{e.flag}_used",
        "{player} uses {quest} this round",
        seat_arg("player", e.player),
        _quest(lab, "quest", quest),
    )


_D = Callable[["Labels", Any], Description]
DESCRIBE: dict[str, _D] = {
    "RoundStarted": lambda lab, e: describe("round_started", "Round {round} begins", arg("round", e.round)),
    "TurnStarted": lambda lab, e: (
        describe(
            "ambassador_turn",
            "{player} assigns the Ambassador before the round's turns",
            seat_arg("player", e.player),
        )
        if e.ambassador
        else describe("turn_started", "{player}'s turn", seat_arg("player", e.player))
    ),
    "TurnEnded": lambda lab, e: describe(
        "turn_ended", "{player}'s turn ends", seat_arg("player", e.player), internal=True
    ),
    "ReassignmentStarted": lambda lab, e: describe(
        "reassignment_started", "The agents on Waterdeep Harbor are reassigned"
    ),
    "RoundEnded": lambda lab, e: describe(
        "round_ended", "Round {round} ends; every agent returns to its pool", arg("round", e.round)
    ),
    "GameEnded": _game_ended,
    "DecisionsPushed": lambda lab, e: describe(
        "decisions_pushed", "New decisions owed: {count}", arg("count", len(e.decisions)), internal=True
    ),
    "DecisionDone": lambda lab, e: describe("decision_done", "A decision is settled", internal=True),
    "AgentPlaced": _agent_placed,
    "AgentRemoved": _agent_removed,
    "HarborShared": lambda lab, e: describe(
        "harbor_shared",
        "{player}'s agent on The Zoarstar copies {harbor} and will be reassigned with it",
        seat_arg("player", e.player),
        lab.space_arg("harbor", e.harbor),
    ),
    "PlacementPassed": lambda lab, e: describe(
        "placement_passed",
        "{player} has no action space to use and sits out the rest of the round",
        seat_arg("player", e.player),
    ),
    "ActionBegun": lambda lab, e: describe(
        "action_begun",
        "{player} resolves {what}",
        seat_arg("player", e.player),
        arg("what", *lab.source(e.what)),
        internal=True,
    ),
    "Gained": _gained,
    "PlotFired": lambda lab, e: describe(
        "plot_fired",
        "{player}'s plot quest {quest} takes effect",
        seat_arg("player", e.player),
        _quest(lab, "quest", e.plot),
        internal=True,
    ),
    "StockTaken": lambda lab, e: describe(
        "stock_taken", "What lay on {tile} is taken", _tile(lab, "tile", e.tile), internal=True
    ),
    "DeckShuffled": lambda lab, e: describe(
        "deck_shuffled",
        "The discard pile is shuffled into a new {deck}",
        arg("deck", "Quest deck" if e.deck == "quest" else "Intrigue deck", "deck", e.deck),
    ),
    "IntrigueDrawn": lambda lab, e: describe(
        "intrigue_drawn" if e.card else "intrigue_drawn_hidden",
        "{player} draws {card}",
        seat_arg("player", e.player),
        _card(lab, "card", e.card),
    ),
    "IntriguePlayed": lambda lab, e: describe(
        "intrigue_played", "{player} plays {card}", seat_arg("player", e.player), _card(lab, "card", e.card)
    ),
    "MandatoryQuestGiven": lambda lab, e: describe(
        "mandatory_quest_given",
        "{player} gives the Mandatory Quest {card} to {target}",
        seat_arg("player", e.player),
        _card(lab, "card", e.card),
        seat_arg("target", e.target),
    ),
    "QuestTaken": _quest_taken,
    "InnRefilled": lambda lab, e: (
        describe(
            "inn_refilled",
            "{quest} is dealt to {slot}",
            _quest(lab, "quest", e.quest),
            arg("slot", f"Cliffwatch Inn, quest {e.slot + 1}", "inn_position", e.slot),
        )
        if e.quest
        else describe(
            "inn_slot_empty",
            "{slot} stays empty: no quest is left",
            arg("slot", f"Cliffwatch Inn, quest {e.slot + 1}", "inn_position", e.slot),
        )
    ),
    "InnCleared": lambda lab, e: _quests(
        lab, "inn_cleared", "The quests at Cliffwatch Inn are discarded: {quests}", e.quests
    ),
    "QuestsRevealed": lambda lab, e: _quests(
        lab,
        "quests_revealed" if e.keep else "quests_revealed_discarded",
        "Revealed from the Quest deck: {quests}" if e.keep else "Revealed and discarded: {quests}",
        e.quests,
    ),
    "QuestDiscarded": lambda lab, e: (
        describe(
            "quest_discarded",
            "{player} discards {quest}",
            seat_arg("player", e.player),
            _quest(lab, "quest", e.quest),
        )
        if e.player >= 0
        else describe(
            "revealed_quest_discarded",
            "{quest} is discarded from the revealed quests",
            _quest(lab, "quest", e.quest),
        )
    ),
    "QuestCompleted": lambda lab, e: describe(
        "quest_completed",
        "{player} completes {quest} for {vp} VP" + (" (plot quest: its effect lasts)" if e.plot else ""),
        seat_arg("player", e.player),
        _quest(lab, "quest", e.quest),
        arg("vp", e.vp),
    ),
    "BuildingBought": _building_bought,
    "HallRefilled": lambda lab, e: (
        describe("hall_refilled", "{tile} is put face up in Builder's Hall", _tile(lab, "tile", e.tile))
        if e.tile
        else describe("hall_slot_empty", "A Builder's Hall slot stays empty: the stack is used up")
    ),
    "BuildingDiscarded": lambda lab, e: describe(
        "building_discarded",
        "{player} discards {tile} from play",
        seat_arg("player", e.player),
        _tile(lab, "tile", e.tile),
    ),
    "FirstPlayerTaken": lambda lab, e: describe(
        "first_player_taken", "{player} takes the First Player marker", seat_arg("player", e.player)
    ),
    "AmbassadorTaken": lambda lab, e: (
        describe("ambassador_taken", "{player} takes the Ambassador", seat_arg("player", e.player))
        if e.player >= 0
        else describe("ambassador_unavailable", "The Ambassador is not available: nothing happens")
    ),
    "LieutenantJoined": lambda lab, e: describe(
        "lieutenant_joined", "The Lieutenant joins {player}'s agents", seat_arg("player", e.player)
    ),
    "RoundFlagUsed": _flag,
    "QuestCompletedThisTurn": lambda lab, e: describe(
        "quest_limit_reached",
        "{player} has completed this turn's quest",
        seat_arg("player", e.player),
        internal=True,
    ),
}
