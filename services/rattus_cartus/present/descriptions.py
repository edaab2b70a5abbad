"""Rattus Cartus events as log lines, as each viewer receives them (a redacted event names
nothing hidden)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from services.kernel.gamedata import count_text
from services.kernel.present import (
    Arg,
    Description,
    arg,
    seat_arg,
)
from services.kernel.present import (
    describe as make,
)
from services.rattus_cartus import game_data
from services.rattus_cartus.game_data import (
    BUILDING_ACTIONS,
    CLASS_NAMES,
    FINAL_ROUND_BONUS,
    SPECIAL_NAMES,
    card_name,
    nun_position_name,
    slot_name,
    supply_text,
)
from services.rattus_cartus.model import (
    SWORD,
    ActionTaken,
    BuildingCleared,
    BuildingEntered,
    BuildingRevealed,
    BuildingsRevealed,
    CardDiscardedForRat,
    CardGiven,
    CardPlayed,
    CardsDrawn,
    DeckReshuffled,
    DuelLost,
    EnteringFinished,
    EnteringStarted,
    HospitalLeft,
    HospitalOpened,
    InfluenceGained,
    LooksGranted,
    NunLooked,
    PassPlayed,
    RatsDiscarded,
    ResolutionStarted,
    RoundEnded,
    SuppliesTaken,
    SupplyChosen,
    TributeDemanded,
)
from services.rattus_cartus.present.labels import (
    BUILDING,
    CARD,
    NUN,
    SLOT,
    SPECIAL,
    TRACK,
    building_label,
)

# -- descriptions --------------------------------------------------------------------------------


def _slot_arg(name: str, slot: int) -> Arg:
    return arg(name, f"the {slot_name(slot)}", SLOT, slot)


def _building_arg(name: str, building: str) -> Arg:
    return arg(name, building_label(building), BUILDING, building)


def _card_arg(name: str, card: str) -> Arg:
    return arg(name, card_name(card), CARD, card)


def _cards_part(cards: Sequence[str], prefix: str = "card") -> tuple[str, list[Arg]]:
    """`{card_1}, {card_2}` and its arguments."""
    args = [_card_arg(f"{prefix}_{i}", c) for i, c in enumerate(cards, start=1)]
    return ", ".join("{" + a.name + "}" for a in args), args


def _supply_chosen(e: SupplyChosen, viewer: int | None) -> Description:
    return make(
        "supply_chosen",
        "{player} takes the supply action of {building}",
        seat_arg("player", e.player),
        _slot_arg("building", e.building),
    )


def _deck_reshuffled(e: DeckReshuffled, viewer: int | None) -> Description:
    return make(
        "deck_reshuffled",
        f"The discard pile ({count_text(e.count, 'card')}) is shuffled into the population deck",
    )


def _cards_drawn(e: CardsDrawn, viewer: int | None) -> Description:
    what = count_text(e.count, "population card")
    if not e.cards:
        return make("cards_drawn", "{player} draws " + what, seat_arg("player", e.player))
    listed, args = _cards_part(e.cards)
    return make("cards_drawn", "{player} draws " + what + ": " + listed, seat_arg("player", e.player), *args)


def _rats_discarded(e: RatsDiscarded, viewer: int | None) -> Description:
    return make(
        "rats_discarded", f"{{player}} discards {count_text(e.count, 'rat')}", seat_arg("player", e.player)
    )


def _looks_granted(e: LooksGranted, viewer: int | None) -> Description:
    return make(
        "looks_granted",
        f"{{player}} may look at {count_text(e.count, 'Nun-row card')}",
        seat_arg("player", e.player),
    )


def _nun_looked(e: NunLooked, viewer: int | None) -> Description:
    args = [seat_arg("player", e.player), arg("position", nun_position_name(e.position), NUN, e.position)]
    if e.card is None:
        return make("nun_looked", "{player} looks at {position}", *args)
    return make("nun_looked", "{player} looks at {position}: {card}", *args, _card_arg("card", e.card))


def _entering_started(e: EnteringStarted, viewer: int | None) -> Description:
    args = [seat_arg(f"player_{i}", p) for i, p in enumerate(e.order, start=1)]
    order = ", ".join("{" + a.name + "}" for a in args)
    return make("entering_started", "Players enter buildings in this order: " + order, *args)


def _pass_played(e: PassPlayed, viewer: int | None) -> Description:
    return make("pass_played", "{player} plays a Pass and will enter later", seat_arg("player", e.player))


def _building_entered(e: BuildingEntered, viewer: int | None) -> Description:
    return make(
        "building_entered",
        f"{{player}} enters {{building}} (space {e.space})",
        seat_arg("player", e.player),
        _slot_arg("building", e.building),
    )


def _card_played(e: CardPlayed, viewer: int | None) -> Description:
    if e.card is None:
        return make("card_played", "{player} plays a card face down", seat_arg("player", e.player))
    return make(
        "card_played",
        "{player} plays {card} face down",
        seat_arg("player", e.player),
        _card_arg("card", e.card),
    )


def _entering_finished(e: EnteringFinished, viewer: int | None) -> Description:
    return make(
        "entering_finished",
        f"{{player}} enters with {count_text(e.cards, 'card')}",
        seat_arg("player", e.player),
    )


def _resolution_started(e: ResolutionStarted, viewer: int | None) -> Description:
    return make("resolution_started", "The buildings resolve in row order")


def _building_revealed(e: BuildingRevealed, viewer: int | None) -> Description:
    args: list[Arg] = [_building_arg("building", e.name), _slot_arg("slot", e.building)]
    if not e.entrants:
        return make("building_revealed", "{building} ({slot}) stays empty", *args)
    parts = []
    for i, (player, cards, influence, rats) in enumerate(
        zip(e.entrants, e.cards, e.influence, e.rats, strict=False), start=1
    ):
        args.append(seat_arg(f"player_{i}", player))
        listed, card_args = _cards_part(cards, f"card_{i}")
        args += card_args
        played = listed or "no cards"
        parts.append(f"{{player_{i}}} played {played}: +{influence} influence, +{count_text(rats, 'rat')}")
    template = "{building} ({slot}) is revealed. " + "; ".join(parts)
    if e.premium >= 0:
        args.append(seat_arg("premium", e.premium))
        template += ". {premium} takes the premium action"
    return make("building_revealed", template, *args)


def _duel_lost(e: DuelLost, viewer: int | None) -> Description:
    what = SPECIAL_NAMES.get(e.kind, (e.kind, ""))[0]
    args = (
        seat_arg("winner", e.winner),
        seat_arg("loser", e.loser),
        arg("duel", what, SPECIAL, e.kind),
    )
    if e.kind == SWORD:
        return make(
            "sword_duel_won",
            "{winner} wins the {duel} duel against {loser}, who owes {winner} "
            + count_text(e.cards_owed, "card"),
            *args,
        )
    return make(
        "flute_duel_won",
        "{winner} wins the {duel} duel against {loser}, who takes a rat from {winner}",
        *args,
    )


def _card_given(e: CardGiven, viewer: int | None) -> Description:
    args = [seat_arg("giver", e.giver), seat_arg("receiver", e.receiver)]
    if e.card is None:
        return make("card_given", "{giver} gives a card to {receiver}", *args)
    return make("card_given", "{giver} gives {card} to {receiver}", *args, _card_arg("card", e.card))


def _action_taken(e: ActionTaken, viewer: int | None) -> Description:
    args = [seat_arg("player", e.player), _slot_arg("building", e.building)]
    if e.action == FINAL_ROUND_BONUS:
        return make(
            "final_round_bonus",
            "{player} holds the premium in {building}: last round, 1 influence instead of an action",
            *args,
            arg("action", game_data.FINAL_ROUND_BONUS_NAME, "building_action", FINAL_ROUND_BONUS),
        )
    premium, standard = BUILDING_ACTIONS.get(e.action, (e.action, e.action))
    which = "premium" if e.premium else "standard"
    args.append(arg("action", f"{building_label(e.action)} action", "building_action", e.action))
    return make(
        f"{which}_action_taken",
        f"{{player}} takes the {which} {{action}} in {{building}}: {premium if e.premium else standard}",
        *args,
    )


def _supplies_taken(e: SuppliesTaken, viewer: int | None) -> Description:
    one, many = SPECIAL_NAMES.get(e.kind, (e.kind, e.kind))
    items = f"{e.count} {many}"
    if e.count == 1:
        items = "a Gold card" if e.kind == "gold" else f"a {one}"
    return make(
        "supplies_taken",
        "{player} takes {items}",
        seat_arg("player", e.player),
        arg("items", items, SPECIAL, e.kind),
    )


def _influence_gained(e: InfluenceGained, viewer: int | None) -> Description:
    return make(
        "influence_gained",
        f"{{player}} gains {e.amount} influence in {{track}}",
        seat_arg("player", e.player),
        arg("track", CLASS_NAMES.get(e.track, e.track), TRACK, e.track),
    )


def _hospital_opened(e: HospitalOpened, viewer: int | None) -> Description:
    return make(
        "hospital_opened",
        f"{{player}} may discard up to {count_text(e.cards, 'card')} at the Hospital, a rat for each",
        seat_arg("player", e.player),
    )


def _card_discarded_for_rat(e: CardDiscardedForRat, viewer: int | None) -> Description:
    return make(
        "card_discarded_for_rat",
        "{player} discards {card} and a rat at the Hospital",
        seat_arg("player", e.player),
        _card_arg("card", e.card),
    )


def _hospital_left(e: HospitalLeft, viewer: int | None) -> Description:
    return make("hospital_left", "{player} stops discarding at the Hospital", seat_arg("player", e.player))


def _tribute_demanded(e: TributeDemanded, viewer: int | None) -> Description:
    args = [seat_arg("receiver", e.receiver)]
    parts = []
    for i, (giver, count) in enumerate(zip(e.givers, e.counts, strict=False), start=1):
        args.append(seat_arg(f"giver_{i}", giver))
        parts.append(f"{{giver_{i}}} owes {count_text(count, 'card')}")
    return make("tribute_demanded", "Guard Tower tribute to {receiver}: " + ", ".join(parts), *args)


def _building_cleared(e: BuildingCleared, viewer: int | None) -> Description:
    return make(
        "building_cleared",
        "The cards played into {building} are discarded",
        _slot_arg("building", e.building),
        internal=True,
    )


def _round_ended(e: RoundEnded, viewer: int | None) -> Description:
    if e.last:
        return make("game_ended", f"Round {e.round}, the last, ends: the game is over")
    return make(
        "round_ended",
        f"Round {e.round} ends; {{player}} takes the start player card",
        seat_arg("player", e.next_start_player),
    )


def _buildings_revealed(e: BuildingsRevealed, viewer: int | None) -> Description:
    args = []
    parts = []
    for i, card in enumerate(e.row, start=1):
        args.append(_building_arg(f"building_{i}", card.building))
        parts.append(f"{{building_{i}}} (supply: {supply_text(card)})")
    swaps = f" after {count_text(e.swaps, 'swap')} with the reserve" if e.swaps else ""
    return make(
        "buildings_revealed", f"Round {e.round}: the buildings are " + ", ".join(parts) + swaps, *args
    )


_DESCRIBERS: dict[type, Callable[[Any, int | None], Description]] = {
    SupplyChosen: _supply_chosen,
    DeckReshuffled: _deck_reshuffled,
    CardsDrawn: _cards_drawn,
    RatsDiscarded: _rats_discarded,
    LooksGranted: _looks_granted,
    NunLooked: _nun_looked,
    EnteringStarted: _entering_started,
    PassPlayed: _pass_played,
    BuildingEntered: _building_entered,
    CardPlayed: _card_played,
    EnteringFinished: _entering_finished,
    ResolutionStarted: _resolution_started,
    BuildingRevealed: _building_revealed,
    DuelLost: _duel_lost,
    CardGiven: _card_given,
    ActionTaken: _action_taken,
    SuppliesTaken: _supplies_taken,
    InfluenceGained: _influence_gained,
    HospitalOpened: _hospital_opened,
    CardDiscardedForRat: _card_discarded_for_rat,
    HospitalLeft: _hospital_left,
    TributeDemanded: _tribute_demanded,
    BuildingCleared: _building_cleared,
    RoundEnded: _round_ended,
    BuildingsRevealed: _buildings_revealed,
}


def describe(event: Any, viewer: int | None) -> Description:
    """The event, as `viewer` received it (redacted), as a log line."""
    return _DESCRIBERS[type(event)](event, viewer)
