"""A full Ankh-Morpork state from one seat's view: what a search bot plays its determinizations in.

`sample(view, seat, rng, options)` reads nothing but the seat's view, the match options and the
sampling Rng. Hidden are the other hands, the other personalities, the draw pile's order and the
random events' order. The draw pile was the shuffled green cards on top of the shuffled brown
ones, so the cards drawn so far are its first cards: the cards the seat has not seen are laid out
green then brown, the last `deck_size` of them are the draw pile and the others fill the hands it
cannot see. Cards it knows in another hand (Cable Street Particulars, Stanley's two cards) stay
there. Personalities are drawn from those it has not seen, the events from those not yet done.
The Rng key is fresh (the server's is secret).

Not rebuilt: the two cards Stanley's taker saw, for a seat that is not the taker (left blank in
the pending step, as the view shows it; only the taker's own decisions read them).
"""

from __future__ import annotations

from services.ankh_morpork.model import Options, State, View
from services.ankh_morpork.rules import RULES
from services.kernel import Rng


def sample(view: View, seat: int, rng: Rng, options: Options | None = None) -> State:
    options = options or Options()
    catalog = RULES.catalog
    cursor = rng.cursor()
    n = view.players
    two = n == 2
    # Cards the seat knows to be in each hand.
    known: list[list[str]] = [[] for _ in range(n)]
    known[seat] = list(view.seats[seat].hand or ())
    shown_to = -1
    if view.shown_hand is not None and view.pending:
        shown_to = view.pending[-1].target
        known[shown_to] = list(view.shown_hand)
    for frame in view.pending:
        if frame.cards and frame.player == seat and frame.target >= 0 and frame.target != shown_to:
            known[frame.target] = [c for c in frame.cards if c not in known[frame.target]] + known[
                frame.target
            ]
    seen = {c for hand in known for c in hand} | set(view.discard) | set(view.played)
    seen |= {c for s in view.seats for c in (*s.loans, *s.penalties)}
    deck_cards = [c for c in catalog.cards if c.two_player or not two]
    green = [c.id for c in deck_cards if c.deck == "green" and c.id not in seen]
    brown = [c.id for c in deck_cards if c.deck == "brown" and c.id not in seen]
    order = list(cursor.shuffle(green)) + list(cursor.shuffle(brown))
    split = max(0, len(order) - view.deck_size)
    deck = tuple(order[split:])
    drawn = list(cursor.shuffle(order[:split]))
    hands = []
    for p, s in enumerate(view.seats):
        missing = s.hand_size - len(known[p])
        hands.append(tuple(known[p] + drawn[:missing]))
        drawn = drawn[missing:]
    people = [p.id for p in catalog.personalities if p.two_player or not two]
    mine = view.seats[seat].personality
    unseen_people = list(
        cursor.shuffle([p for p in people if p != mine and p not in {s.personality for s in view.seats}])
    )
    personalities = []
    for s in view.seats:
        personalities.append(s.personality if s.personality is not None else unseen_people.pop())
    done = set(view.events_done)
    events = cursor.sample([e.id for e in catalog.events if e.id not in done], view.events_left)
    return State(
        players=n,
        rng=Rng.from_seed(cursor.next_u64()),
        options=options,
        turn=view.turn,
        current=view.current,
        minions=tuple(a.minions for a in view.areas),
        trolls=tuple(a.trolls for a in view.areas),
        demons=tuple(a.demons for a in view.areas),
        trouble=tuple(a.trouble for a in view.areas),
        buildings=tuple(a.building for a in view.areas),
        lost_cards=tuple(a.card_lost for a in view.areas),
        money=tuple(s.money for s in view.seats),
        hands=tuple(hands),
        deck=deck,
        discard=view.discard,
        events_deck=events,
        events_done=view.events_done,
        personalities=tuple(personalities),
        unused_personalities=tuple(sorted(unseen_people[: view.unused_personalities])),
        loans=tuple(s.loans for s in view.seats),
        penalties=tuple(s.penalties for s in view.seats),
        used_abilities=view.used_abilities,
        gained=view.gained,
        played=view.played,
        stack=view.pending,
        over=view.over,
        end_reason=view.end_reason,
        winners=view.winners,
    )
