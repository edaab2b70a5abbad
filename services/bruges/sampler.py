"""A full Bruges state from one seat's view: what a search bot plays its determinizations in.

`sample(view, seat, rng, options)` reads nothing but the seat's view, the match options and the
sampling Rng. The cards the seat cannot identify (all 165 less its looked-at hand, its own house
cards, the persons in play, the discard pile and the cards known to be back in a hand) are dealt
at random to the slots it cannot see, keeping every colour it can see: the back of each card in
a hand, of each house and of each pile's top card. The rest of the piles and the extra pile take
the others. The Rng key is fresh (the server's is secret).

Not in the view and rebuilt: whether a seat's turn is under way (the game only rests inside a
turn during the action phase), which canal section earned a statue (the full ones), and other
seats' cards drawn but not yet looked at (treated as looked at: only their owner's view differs).
"""

from __future__ import annotations

from services.bruges.model import COLOURS, MAJORITIES, PLAY, SECTION_SPACES, House, Options, Seat, State, View
from services.bruges.rules import RULES
from services.kernel import Rng

Slot = tuple[str, int, int]  # ("hand" | "house", seat, index) or ("pile", pile, index) or ("extra", 0, i)


def sample(view: View, seat: int, rng: Rng, options: Options | None = None) -> State:
    options = options or Options()
    colour = RULES.colour
    cursor = rng.cursor()
    known: set[int] = set(view.discard)
    for p, s in enumerate(view.seats):
        known |= set(s.known_hand)
        known |= {h.person for h in s.houses if h.person >= 0}
        if p == seat:
            known |= set(s.hand or ())
            known |= {h.card for h in s.houses if h.card is not None}
    # Slots whose colour the seat sees, and slots it knows nothing about.
    coloured: dict[Slot, str] = {}
    hands: list[list[int]] = []
    for p, s in enumerate(view.seats):
        own = list(s.hand or ()) if p == seat else []
        fixed = own + [c for c in s.known_hand if c not in own]
        colours = list(s.hand_colours)
        for card in fixed:
            colours.remove(colour[card])
        hands.append(fixed)
        for i, c in enumerate(colours):
            coloured[("hand", p, i)] = c
        if p != seat:
            for i, h in enumerate(s.houses):
                coloured[("house", p, i)] = h.colour
    blind: list[Slot] = []
    for k, size in enumerate(view.pile_sizes):
        for i in range(size):
            if i == 0:
                coloured[("pile", k, 0)] = view.pile_tops[k]
            else:
                blind.append(("pile", k, i))
    blind += [("extra", 0, i) for i in range(view.extra_size)]
    by_colour: dict[str, list[int]] = {c: [] for c in COLOURS}
    for card in cursor.shuffle([c for c in range(len(colour)) if c not in known]):
        by_colour[colour[card]].append(card)
    placed: dict[Slot, int] = {slot: by_colour[c].pop() for slot, c in coloured.items()}
    rest = list(cursor.shuffle([c for cards in by_colour.values() for c in cards]))
    for slot in blind:
        placed[slot] = rest.pop()
    seats = []
    for p, s in enumerate(view.seats):
        extra = [placed[("hand", p, i)] for i in range(s.hand_size - len(hands[p]))]
        houses = tuple(
            House(h.card if h.card is not None else placed[("house", p, i)], h.person, h.used)
            for i, h in enumerate(s.houses)
        )
        seats.append(
            Seat(
                score=s.score,
                guilders=s.guilders,
                workers=tuple(s.workers[c] for c in COLOURS),
                threats=tuple(s.threats[c] for c in COLOURS),
                reputation=s.reputation,
                hand=tuple(hands[p] + extra),
                unseen=len(extra) if p == seat else 0,
                known=s.known_hand,
                houses=houses,
                canals=s.canals,
                statue_sections=(
                    bool(s.statues) and s.canals[0] == SECTION_SPACES,
                    len(s.statues) > (s.canals[0] == SECTION_SPACES) and s.canals[1] == SECTION_SPACES,
                ),
                statues=s.statues,
                majorities=(
                    s.majorities[MAJORITIES[0]],
                    s.majorities[MAJORITIES[1]],
                    s.majorities[MAJORITIES[2]],
                ),
                plays_left=s.plays_left,
            )
        )
    piles = tuple(
        tuple(placed[("pile", k, i)] for i in range(size)) for k, size in enumerate(view.pile_sizes)
    )
    return State(
        players=view.players,
        rng=Rng.from_seed(cursor.next_u64()),
        options=options,
        round=view.round,
        phase=view.phase,
        start=view.start,
        seats=tuple(seats),
        piles=(piles[0], piles[1]),
        extra=tuple(placed[("extra", 0, i)] for i in range(view.extra_size)),
        extra_in=view.extra_in,
        last_round=view.last_round,
        discard=view.discard,
        statues=view.statues,
        dice=tuple(view.dice[c] for c in COLOURS),
        queue=view.queue,
        current=view.current,
        in_turn=view.phase == PLAY,
        reputation_cost=view.reputation_cost,
        played=view.played,
        allowed=view.allowed,
        tasks=view.tasks,
    )
