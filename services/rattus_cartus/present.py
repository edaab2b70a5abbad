"""How a client presents Rattus Cartus to a person: decisions, event descriptions, board places,
the kinds of ids in its JSON and the sections of its view (services/kernel/present.py).

Ids a client receives: seats; building ids ("farm"); this round's building row by index (the
places "0", "1", "2"); Nun-row positions 0-4 (components of kind "nun_position"); cards as
"<class>:<nuns>" or a special card's kind (components of kind "card"); supply items
("special"); classes, which are also the influence tracks (places "peasantry", ...); phases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from services.kernel.gamedata import count_text
from services.kernel.present import (
    SEAT,
    Arg,
    Choice,
    Decision,
    Description,
    Option,
    Place,
    Presentation,
    arg,
    describe as make,
    player_name,
    seat_arg,
)
from services.rattus_cartus import game_data
from services.rattus_cartus.game_data import (
    BUILDING_ACTIONS,
    BUILDING_NAMES,
    CLASS_NAMES,
    FINAL_ROUND_BONUS,
    NUN_ROW_SIZE,
    ORDINALS,
    ROW_SLOTS,
    SPECIAL_NAMES,
    card_name,
    nun_position_name,
    slot_name,
    supply_text,
)
from services.rattus_cartus.model import (
    BUILDING_CLASS,
    CLASSES,
    SUPPLIES,
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
    ChooseSupply,
    ChooseVictim,
    DeckReshuffled,
    DiscardForRat,
    DuelLost,
    EnterBuilding,
    EnteringFinished,
    EnteringStarted,
    FinishEntering,
    GiveCard,
    HospitalLeft,
    HospitalOpened,
    InfluenceGained,
    LookAtNun,
    LooksGranted,
    NunLooked,
    PassPlayed,
    PlayCard,
    PlayPass,
    RatsDiscarded,
    ResolutionStarted,
    RoundEnded,
    State,
    StopDiscarding,
    SuppliesTaken,
    SupplyChosen,
    TributeDemanded,
)

# Kinds of ids (components in game_data.py, places below).
CARD = "card"
BUILDING = "building"
SLOT = "building_slot"
NUN = "nun_position"
SPECIAL = "special"
TRACK = "influence_track"

# -- label tables, built once -------------------------------------------------------------------

_CARD_CHOICE: dict[str, Choice] = {}


def _card_choice(card: str) -> Choice:
    choice = _CARD_CHOICE.get(card)
    if choice is None:
        choice = _CARD_CHOICE[card] = Choice("Which card?", card_name(card), CARD, card)
    return choice


for _klass in CLASSES:
    for _nuns in range(5):
        _card_choice(f"{_klass}:{_nuns}")
for _special in SPECIAL_NAMES:
    _card_choice(_special)

_NUN_CHOICES = tuple(
    Choice("Which Nun-row card?", f"{nun_position_name(i)} (the {ORDINALS[i]} from the left)", NUN, str(i))
    for i in range(NUN_ROW_SIZE)
)
_SEAT_CHOICES: dict[int, Choice] = {}


def _building_label(building: str) -> str:
    return BUILDING_NAMES.get(building, building)


def _slot_label(state: State, slot: int) -> str:
    """`Castle (2nd building)`: the building card at that place of this round's row."""
    name = _building_label(state.row[slot].building) if 0 <= slot < len(state.row) else "?"
    return f"{name} ({slot_name(slot)})"


# -- decisions ---------------------------------------------------------------------------------

ENTER_STEP = "What do you do?"
PLAY_STEP = "Play another card or stop?"
HOSPITAL_STEP = "Discard a card or stop?"


def _supply_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    options = []
    for index, action in enumerate(actions):
        slot = action.building
        card = state.row[slot]
        label = f"{_slot_label(state, slot)}: {supply_text(card)}"
        options.append(Option((Choice("Which building's supply action?", label, SLOT, str(slot)),), index))
    simultaneous = state.options.simultaneous_supplies
    prompt = "Choose a building card and carry out its supply action" + (
        " (everyone chooses at once)" if simultaneous else ""
    )
    return Decision(seat, prompt, tuple(options), "choose_supply", simultaneous)


def _look_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    owed = state.looks_owed[seat]
    options = tuple(Option((_NUN_CHOICES[a.position],), i) for i, a in enumerate(actions))
    prompt = f"Look at a Nun-row card you have not seen ({count_text(owed, 'look')} left)"
    others = [p for p in range(state.players) if p != seat and state.looks_owed[p] > 0]
    simultaneous = state.phase == SUPPLIES and state.options.simultaneous_supplies or bool(others)
    return Decision(seat, prompt, options, "look_at_nun", simultaneous)


def _enter_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    options = []
    for index, action in enumerate(actions):
        if isinstance(action, PlayPass):
            choices: tuple[Choice, ...] = (Choice(ENTER_STEP, "Play a Pass and enter later", "card", "pass"),)
        else:
            slot = action.building
            building = state.row[slot].building
            premium, standard = BUILDING_ACTIONS.get(building, ("", ""))
            space = len(state.entries[slot]) + 1
            label = (
                f"{_slot_label(state, slot)}, space {space}: premium {premium}; standard {standard}"
            )
            choices = (Choice(ENTER_STEP, "Enter a building"), Choice("Which building?", label, SLOT, str(slot)))
        options.append(Option(choices, index))
    return Decision(seat, "Enter a building (then play cards into it face down)", tuple(options), "enter_building")


def _place_cards_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    played = len(state.played[seat])
    slot = next((b for b, entrants in enumerate(state.entries) if seat in entrants), -1)
    where = _slot_label(state, slot) if slot >= 0 else "your building"
    options = []
    for index, action in enumerate(actions):
        if isinstance(action, PlayCard):
            choices: tuple[Choice, ...] = (Choice(PLAY_STEP, "Play a card face down"), _card_choice(action.card))
        else:
            choices = (Choice(PLAY_STEP, f"Stop: enter with {count_text(played, 'card')}"),)
        options.append(Option(choices, index))
    prompt = f"Play cards face down into the {where} ({count_text(played, 'card')} played so far)"
    return Decision(seat, prompt, tuple(options), "play_cards")


def _give_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    gift = next((g for g in state.gifts if g.giver == seat), None)
    receiver = player_name(gift.receiver) if gift is not None else "the winner"
    owed = count_text(gift.count, "card") if gift is not None else "cards"
    options = tuple(Option((_card_choice(a.card),), i) for i, a in enumerate(actions))
    givers = {g.giver for g in state.gifts}
    return Decision(
        seat,
        f"Give {receiver} a card of your choice ({owed} still owed)",
        options,
        "give_card",
        simultaneous=len(givers) > 1,
    )


def _seat_choice(seat: int) -> Choice:
    choice = _SEAT_CHOICES.get(seat)
    if choice is None:
        choice = _SEAT_CHOICES[seat] = Choice("Which player pays?", player_name(seat), SEAT, str(seat))
    return choice


def _victim_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    kind = state.duels[0].kind if state.duels else SWORD
    what = "gives you half their hand" if kind == SWORD else "takes a rat from you"
    options = tuple(Option((_seat_choice(a.player),), i) for i, a in enumerate(actions))
    prompt = f"You win the {SPECIAL_NAMES[kind][0]} duel: choose which tied player {what}"
    return Decision(seat, prompt, options, "choose_victim")


def _hospital_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    left = state.hospital.cards if state.hospital is not None else 0
    options = []
    for index, action in enumerate(actions):
        if isinstance(action, DiscardForRat):
            choices: tuple[Choice, ...] = (Choice(HOSPITAL_STEP, "Discard a card and a rat"), _card_choice(action.card))
        else:
            choices = (Choice(HOSPITAL_STEP, "Stop discarding"),)
        options.append(Option(choices, index))
    prompt = f"Hospital: discard a card from your hand to discard a rat (up to {count_text(left, 'card')} more)"
    return Decision(seat, prompt, tuple(options), "hospital")


_DECISIONS: dict[type, Callable[[State, int, Sequence[Any]], Decision]] = {
    ChooseSupply: _supply_decision,
    LookAtNun: _look_decision,
    EnterBuilding: _enter_decision,
    PlayPass: _enter_decision,
    PlayCard: _place_cards_decision,
    FinishEntering: _place_cards_decision,
    GiveCard: _give_decision,
    ChooseVictim: _victim_decision,
    DiscardForRat: _hospital_decision,
    StopDiscarding: _hospital_decision,
}


def decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    """The seat's decision over exactly `actions` (one kind of decision at a time: the type of
    the first action says which)."""
    if not actions:
        return Decision(seat, "Nothing to decide", ())
    return _DECISIONS[type(actions[0])](state, seat, actions)


# -- descriptions --------------------------------------------------------------------------------


def _slot_arg(name: str, slot: int) -> Arg:
    return arg(name, f"the {slot_name(slot)}", SLOT, slot)


def _building_arg(name: str, building: str) -> Arg:
    return arg(name, _building_label(building), BUILDING, building)


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
    return make("rats_discarded", f"{{player}} discards {count_text(e.count, 'rat')}", seat_arg("player", e.player))


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
        "card_played", "{player} plays {card} face down", seat_arg("player", e.player), _card_arg("card", e.card)
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
        parts.append(
            f"{{player_{i}}} played {played}: +{influence} influence, +{count_text(rats, 'rat')}"
        )
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
            f"{{winner}} wins the {{duel}} duel against {{loser}}, who owes {{winner}} {count_text(e.cards_owed, 'card')}",
            *args,
        )
    return make("flute_duel_won", "{winner} wins the {duel} duel against {loser}, who takes a rat from {winner}", *args)


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
    args.append(arg("action", f"{_building_label(e.action)} action", "building_action", e.action))
    return make(
        f"{which}_action_taken",
        f"{{player}} takes the {which} {{action}} in {{building}}: {premium if e.premium else standard}",
        *args,
    )


def _supplies_taken(e: SuppliesTaken, viewer: int | None) -> Description:
    one, many = SPECIAL_NAMES.get(e.kind, (e.kind, e.kind))
    if e.count == 1:
        items = "a Gold card" if e.kind == "gold" else f"a {one}"
    else:
        items = f"{e.count} {many}"
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
    return make(
        "tribute_demanded", "Guard Tower tribute to {receiver}: " + ", ".join(parts), *args
    )


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
    return make("buildings_revealed", f"Round {e.round}: the buildings are " + ", ".join(parts) + swaps, *args)


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


# -- places -------------------------------------------------------------------------------------

_SOURCE = "FS §1-§2 (SEED components and setup): the table layout is schematic"


def places(catalog: Any) -> Sequence[Place]:
    """The table: the building row (2 or 3 places, ids "0".."2" as in actions and events), the
    decks beside it, the Nun-row, the general supply and the influence board's six tracks (ids
    the class ids) with its start space. No adjacency plays a part in Rattus Cartus."""
    found: list[Place] = [
        Place("building_deck", "Building deck", "deck", 0.08, 0.12, group="buildings",
              text="this game's building cards still to come, face down", source=_SOURCE),
        Place("reserve", "Reserve deck", "deck", 0.08, 0.30, group="buildings",
              text="building cards set aside face down; they replace a row of one building only",
              source=_SOURCE),
    ]
    for slot in range(ROW_SLOTS):
        found.append(
            Place(
                str(slot),
                f"{slot_name(slot)[:1].upper()}{slot_name(slot)[1:]} of the round",
                SLOT,
                0.30 + 0.2 * slot,
                0.20,
                group="building_row",
                text="a building card turned up this round; entry spaces 1, 2, ... are filled in order"
                + (" (4-5 players only)" if slot == 2 else ""),
                values={"position": slot, "players": [4, 5] if slot == 2 else [2, 3, 4, 5]},
                source="SEED phase A: 2 buildings with 2-3 players, 3 with 4-5",
            )
        )
    found += [
        Place("supply", "General supply", "supply", 0.92, 0.20, group="supply",
              text="Jokers, special cards and victory-point tokens", source=_SOURCE),
        Place("population_deck", "Population deck", "deck", 0.10, 0.50, group="population",
              text="face down; reshuffled from the discard pile when it runs out", source=_SOURCE),
        Place("nun_row", "Nun-row", "nun_row", 0.50, 0.50, group="population",
              text="5 population cards face down in a fixed order; their nuns decide who the plague takes",
              values={"cards": NUN_ROW_SIZE}, source="SEED setup step 3"),
        Place("discard_pile", "Discard pile", "deck", 0.90, 0.50, group="population",
              text="played and discarded population cards, face up", source=_SOURCE),
        Place("influence_start", "Start space", "influence_space", 0.08, 0.82, group="influence_board",
              text="every player's marker starts here on each of the six tracks", source="SEED setup step 1"),
    ]
    for i, klass in enumerate(CLASSES):
        buildings = [b for b, k in BUILDING_CLASS.items() if k == klass]
        found.append(
            Place(
                klass,
                f"{CLASS_NAMES[klass]} track",
                TRACK,
                0.22 + 0.14 * i,
                0.82,
                group="influence_board",
                text=f"influence in the {CLASS_NAMES[klass]}; buildings of this class: "
                + ", ".join(BUILDING_NAMES[b] for b in buildings),
                values={"class": klass, "buildings": buildings},
                source="SEED components: the influence board has 6 tracks, one per class",
            )
        )
    return tuple(found)


# -- id fields and view sections ---------------------------------------------------------------

_SLOT_EVENTS = ("choose_supply", "enter_building", "supply_chosen", "building_entered", "building_revealed",
                "action_taken", "building_cleared")

REFS: dict[str, str] = {
    # seats
    **{field: SEAT for field in (
        "player", "viewer", "start_player", "active", "entries", "premium", "standing", "enter_queue",
        "placing", "actors", "winner", "candidates", "loser", "giver", "receiver", "givers", "entrants",
        "order", "next_start_player",
    )},
    "action_taken.premium": "",  # a flag there, not a seat
    "deck_reshuffled.order": CARD,
    # cards
    "card": CARD,
    "hand": CARD,
    "my_played": CARD,
    "revealed_cards": CARD,
    "nun_row": CARD,
    "discard": CARD,
    "cards_drawn.cards": CARD,
    "building_revealed.cards": CARD,
    # buildings: an id in building cards, an index into this round's row in actions and events
    "building": BUILDING,
    **{f"{tag}.building": SLOT for tag in _SLOT_EVENTS},
    "building_revealed.name": BUILDING,
    "supply_choice": SLOT,
    "resolving": SLOT,
    "action_taken.action": "building_action",
    # the rest
    "position": NUN,
    "nun_looked": NUN,
    "kind": SPECIAL,
    "track": TRACK,
    "phase": "phase",
}
KEY_REFS: dict[str, str] = {"supply": SPECIAL}

VIEW_SECTIONS: dict[str, str] = {
    "players": "turn",
    "viewer": "self",
    "round": "turn",
    "rounds": "turn",
    "phase": "turn",
    "start_player": "turn",
    "active": "turn",
    "row": "board",
    "entries": "board",
    "premium": "board",
    "resolving": "turn",
    "revealed_cards": "board",
    "hand": "self",
    "my_played": "self",
    "nun_row": "board",
    "seats": "players",
    "tracks": "board",
    "supply": "board",
    "deck_size": "board",
    "discard": "board",
    "building_deck_size": "board",
    "reserve_size": "board",
    "enter_queue": "turn",
    "placing": "turn",
    "duels": "engine",
    "gifts": "turn",
    "actors": "engine",
    "hospital": "turn",
}

PRESENTATION = Presentation(
    decision=decision,
    describe=describe,
    components=game_data.components,
    places=places,
    refs=REFS,
    key_refs=KEY_REFS,
    view_sections=VIEW_SECTIONS,
)

