"""A tiny game for testing the kernel, server and stores without any real game's rules.

Secret Nim: a pile of counters; each seat holds a hidden hand of number cards dealt
from a shuffled deck. On your turn take 1-3 counters, or play a card from your
hand to take exactly its value. Whoever takes the last counter wins. It exercises
the PRNG, hidden hands, event redaction, outcomes and undo (taking counters may be taken
back), in a page.
"""

from __future__ import annotations

from typing import Any

import msgspec

from services.kernel import GameSpec, Outcome, PlayerResult, Rejection, Rng, UndoRule, illegal
from services.kernel.present import (
    Choice,
    Decision,
    Description,
    Option,
    Presentation,
    arg,
    describe,
    seat_arg,
)


class Options(msgspec.Struct, frozen=True, kw_only=True):
    pile: int = 15
    hand_size: int = 2


class State(msgspec.Struct, frozen=True):
    players: int
    pile: int
    turn: int
    hands: tuple[tuple[int, ...], ...]
    rng: Rng
    winner: int | None = None


class Take(msgspec.Struct, frozen=True, tag="take"):
    count: int


class PlayCard(msgspec.Struct, frozen=True, tag="play_card"):
    value: int


Action = Take | PlayCard


class CountersTaken(msgspec.Struct, frozen=True, tag="counters_taken"):
    player: int
    count: int
    card: int | None = None  # the card played, if any (public once played)


class CardDealt(msgspec.Struct, frozen=True, tag="card_dealt"):
    player: int
    value: int | None  # hidden from everyone but the receiver
    rng_counter: int = 0


Event = CountersTaken | CardDealt


class View(msgspec.Struct, frozen=True):
    players: int
    pile: int
    turn: int
    hand: tuple[int, ...] | None
    hand_sizes: tuple[int, ...]
    winner: int | None


def setup(players: int, seed: int, options: Options) -> State:
    cursor = Rng.from_seed(seed).cursor()
    deck = cursor.shuffle(range(1, 10))
    size = options.hand_size
    hands = tuple(tuple(sorted(deck[i * size : (i + 1) * size])) for i in range(players))
    return State(players, options.pile, 0, hands, cursor.rng)


def active_players(state: State) -> tuple[int, ...]:
    return () if state.winner is not None else (state.turn,)


def legal_actions(state: State, player: int) -> list[Action]:
    if player not in active_players(state):
        return []
    takes: list[Action] = [Take(n) for n in range(1, 4) if n <= state.pile]
    cards: list[Action] = [PlayCard(v) for v in sorted(set(state.hands[player])) if v <= state.pile]
    return takes + cards


def validate(state: State, player: int, action: Action) -> list[Event] | Rejection:
    if isinstance(action, Take):
        if not 1 <= action.count <= 3:
            return illegal("Take 1, 2 or 3 counters.")
        if action.count > state.pile:
            return illegal("There are not that many counters left.")
        return [CountersTaken(player, action.count)]
    if action.value not in state.hands[player]:
        return illegal("You do not hold that card.")
    if action.value > state.pile:
        return illegal("There are not that many counters left.")
    cursor = state.rng.cursor()
    new_card = cursor.die(9)
    return [
        CountersTaken(player, action.value, card=action.value),
        CardDealt(player, new_card, cursor.rng.counter),
    ]


def apply(state: State, event: Event) -> State:
    if isinstance(event, CountersTaken):
        pile = state.pile - event.count
        hands = state.hands
        if event.card is not None:
            hand = list(hands[event.player])
            hand.remove(event.card)
            hands = _replace(hands, event.player, tuple(hand))
        winner = event.player if pile == 0 else None
        return msgspec.structs.replace(
            state, pile=pile, hands=hands, turn=(state.turn + 1) % state.players, winner=winner
        )
    assert event.value is not None
    hand = tuple(sorted((*state.hands[event.player], event.value)))
    rng = state.rng.at(event.rng_counter)
    return msgspec.structs.replace(state, hands=_replace(state.hands, event.player, hand), rng=rng)


def _replace(
    hands: tuple[tuple[int, ...], ...], seat: int, hand: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]:
    return tuple(hand if i == seat else h for i, h in enumerate(hands))


def view(state: State, viewer: int | None) -> View:
    hand = state.hands[viewer] if viewer is not None else None
    return View(state.players, state.pile, state.turn, hand, tuple(len(h) for h in state.hands), state.winner)


def outcome(state: State) -> Outcome | None:
    if state.winner is None:
        return None
    results = tuple(PlayerResult(p, int(p == state.winner)) for p in range(state.players))
    return Outcome((state.winner,), results)


def redact_event(event: Event, viewer: int | None) -> Event:
    if isinstance(event, CardDealt) and viewer != event.player:
        return msgspec.structs.replace(event, value=None, rng_counter=0)
    return event


def resample_hidden(state: State, viewer: int, rng: Rng) -> State:
    cursor = rng.cursor()
    hands = tuple(
        h if p == viewer else tuple(sorted(cursor.die(9) for _ in h)) for p, h in enumerate(state.hands)
    )
    return msgspec.structs.replace(
        state, hands=hands, rng=Rng.from_seed(cursor.next_u64()).at(state.rng.counter)
    )


def probe_actions(state: State, player: int) -> list[Action]:
    return [Take(n) for n in range(0, 5)] + [PlayCard(v) for v in range(1, 10)]


def decision(state: State, seat: int, actions: Any) -> Decision:
    """Two steps, as a client walks them: how to take (counters or a card), then how many."""
    options = []
    for index, action in enumerate(actions):
        if isinstance(action, Take):
            how = Choice("How?", "Take counters")
            amount = Choice("How many?", f"{action.count} counter{'s' if action.count > 1 else ''}")
        else:
            how = Choice("How?", "Play a card")
            amount = Choice("Which card?", f"Card {action.value}")
        options.append(Option((how, amount), index))
    return Decision(seat, f"Take from the pile of {state.pile}", tuple(options), key="nim.take")


def describe_event(event: Event, viewer: int | None) -> Description:
    """A viewer's own hidden card is named to them alone; a deal is bookkeeping."""
    if isinstance(event, CountersTaken):
        if event.card is not None:
            return describe(
                "nim.card_played",
                "{player} plays a {card} and takes {count}",
                seat_arg("player", event.player),
                arg("card", event.card),
                arg("count", event.count),
            )
        return describe(
            "nim.counters_taken",
            "{player} takes {count}",
            seat_arg("player", event.player),
            arg("count", event.count),
        )
    if event.value is None:
        return describe(
            "nim.card_dealt", "{player} draws a card", seat_arg("player", event.player), internal=True
        )
    return describe(
        "nim.card_dealt_to_you",
        "{player} draws a {card}",
        seat_arg("player", event.player),
        arg("card", event.value),
        internal=True,
    )


PRESENTATION = Presentation(
    decision=decision, describe=describe_event, components=lambda catalog: None, places=lambda catalog: ()
)


GAME = GameSpec(
    game_id="secret_nim",
    title="Secret Nim (test game)",
    rules_version="1",
    player_counts=(2, 3, 4),
    options_type=Options,
    state_type=State,
    action_type=Action,
    event_type=Event,
    view_type=View,
    setup=setup,
    active_players=active_players,
    legal_actions=legal_actions,
    validate=validate,
    apply=apply,
    view=view,
    outcome=outcome,
    redact_event=redact_event,
    probe_actions=probe_actions,
    resample_hidden=resample_hidden,
    presentation=PRESENTATION,
    # Taking counters may be taken back; playing a card deals a new one (a draw): never.
    undoable=UndoRule(frozenset({"counters_taken"})),
)
