"""Rattus Cartus decisions: each legal action as a path of named choices."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from services.kernel.gamedata import count_text
from services.kernel.present import (
    Choice,
    Decision,
    Option,
    Text,
    ask,
    named,
    seat_arg,
)
from services.rattus_cartus.game_data import (
    BUILDING_ACTIONS,
    SPECIAL_NAMES,
    supply_text,
)
from services.rattus_cartus.model import (
    SUPPLIES,
    SWORD,
    ChooseSupply,
    ChooseVictim,
    DiscardForRat,
    EnterBuilding,
    FinishEntering,
    GiveCard,
    LookAtNun,
    PlayCard,
    PlayPass,
    State,
    StopDiscarding,
)
from services.rattus_cartus.present.labels import (
    ENTER_STEP,
    HOSPITAL_STEP,
    NUN_CHOICES,
    PLAY_STEP,
    SLOT,
    card_choice,
    seat_choice,
    slot_label,
)

# -- decisions ---------------------------------------------------------------------------------


def _supply_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    options = []
    for index, action in enumerate(actions):
        slot = action.building
        card = state.row[slot]
        label = f"{slot_label(state, slot)}: {supply_text(card)}"
        options.append(Option((Choice("Which building's supply action?", label, SLOT, str(slot)),), index))
    simultaneous = state.options.simultaneous_supplies
    prompt = "Choose a building card and carry out its supply action" + (
        " (everyone chooses at once)" if simultaneous else ""
    )
    return Decision(seat, prompt, tuple(options), "choose_supply", simultaneous)


def _look_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    owed = state.looks_owed[seat]
    options = tuple(Option((NUN_CHOICES[a.position],), i) for i, a in enumerate(actions))
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
            label = f"{slot_label(state, slot)}, space {space}: premium {premium}; standard {standard}"
            choices = (
                Choice(ENTER_STEP, "Enter a building"),
                Choice("Which building?", label, SLOT, str(slot)),
            )
        options.append(Option(choices, index))
    return Decision(
        seat, "Enter a building (then play cards into it face down)", tuple(options), "enter_building"
    )


def _place_cards_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    played = len(state.played[seat])
    slot = next((b for b, entrants in enumerate(state.entries) if seat in entrants), -1)
    where = slot_label(state, slot) if slot >= 0 else "your building"
    options = []
    for index, action in enumerate(actions):
        if isinstance(action, PlayCard):
            choices: tuple[Choice, ...] = (
                Choice(PLAY_STEP, "Play a card face down"),
                card_choice(action.card),
            )
        else:
            choices = (Choice(PLAY_STEP, f"Stop: enter with {count_text(played, 'card')}"),)
        options.append(Option(choices, index))
    prompt = f"Play cards face down into the {where} ({count_text(played, 'card')} played so far)"
    return Decision(seat, prompt, tuple(options), "play_cards")


def _give_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    gift = next((g for g in state.gifts if g.giver == seat), None)
    owed = count_text(gift.count, "card") if gift is not None else "cards"
    prompt: Text = f"Give the winner a card of your choice ({owed} still owed)"
    if gift is not None:
        prompt = named(
            f"Give {{receiver}} a card of your choice ({owed} still owed)",
            seat_arg("receiver", gift.receiver),
        )
    options = tuple(Option((card_choice(a.card),), i) for i, a in enumerate(actions))
    givers = {g.giver for g in state.gifts}
    return ask(
        seat,
        prompt,
        options,
        "give_card",
        simultaneous=len(givers) > 1,
    )


def _victim_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    kind = state.duels[0].kind if state.duels else SWORD
    what = "gives you half their hand" if kind == SWORD else "takes a rat from you"
    options = tuple(Option((seat_choice(a.player),), i) for i, a in enumerate(actions))
    prompt = f"You win the {SPECIAL_NAMES[kind][0]} duel: choose which tied player {what}"
    return Decision(seat, prompt, options, "choose_victim")


def _hospital_decision(state: State, seat: int, actions: Sequence[Any]) -> Decision:
    left = state.hospital.cards if state.hospital is not None else 0
    options = []
    for index, action in enumerate(actions):
        if isinstance(action, DiscardForRat):
            choices: tuple[Choice, ...] = (
                Choice(HOSPITAL_STEP, "Discard a card and a rat"),
                card_choice(action.card),
            )
        else:
            choices = (Choice(HOSPITAL_STEP, "Stop discarding"),)
        options.append(Option(choices, index))
    prompt = (
        f"Hospital: discard a card from your hand to discard a rat (up to {count_text(left, 'card')} more)"
    )
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
