"""A full Lords of Waterdeep state from one seat's view: what a search bot plays its
determinizations in.

`sample(view, seat, rng, options)` reads nothing but the seat's view, the match options and the
sampling Rng. Hidden are the other intrigue hands, the other Lords and the orders of the Quest
deck, the Intrigue deck and the Building stack; each is dealt at random from the cards the seat
has not seen: intrigue cards less its hand and the discard pile, Lords less its own, quests less
every quest in view (Cliffwatch Inn, active, completed, revealed, discarded), tiles less the Hall
and the buildings in play. The Rng key is fresh (the server's is secret).

Turn bookkeeping the view leaves implicit is rebuilt: the seat on turn has completed its quest
when its "quest" decision is no longer owed, the next turn starts after the seat on turn, and an
Ambassador turn is one the Ambassador's holder is taking. Not rebuilt: which plot quests already
fired for the action under way (none).
"""

from __future__ import annotations

from services.kernel import Rng
from services.waterdeep.model import CUBES, Options, Seat, State, View
from services.waterdeep.rules import RULES


def _unseen(everything: tuple[str, ...], seen: list[str]) -> list[str]:
    gone = set(seen)
    return [c for c in everything if c not in gone]


def sample(view: View, seat: int, rng: Rng, options: Options | None = None) -> State:
    options = options or Options()
    catalog = RULES.catalog
    cursor = rng.cursor()
    n = view.players
    me = view.seats[seat]
    intrigue = list(
        cursor.shuffle(_unseen(RULES.intrigue_copies, [*(me.intrigue or ()), *view.intrigue_discard]))
    )
    lords = [
        lord.id
        for lord in catalog.lords
        if lord.id != me.lord and (options.larissa or lord.vp_per_building == 0)
    ]
    dealt_lords = list(cursor.sample(lords, n - 1))
    seats = []
    for p, s in enumerate(view.seats):
        if p == seat or s.intrigue is not None:
            hand, lord = s.intrigue or (), s.lord or ""
        else:
            hand = tuple(intrigue[: s.intrigue_count])
            intrigue = intrigue[s.intrigue_count :]
            lord = s.lord if s.lord is not None else dealt_lords.pop()
        seats.append(
            Seat(
                gold=s.gold,
                vp=s.vp,
                cubes=tuple(s.cubes[c] for c in CUBES),
                agents=s.agents,
                pool=s.pool,
                intrigue=hand,
                lord=lord,
                quests=s.quests,
                completed=s.completed,
                plots=s.plots,
                orb_used=s.orb_used,
                miracle_used=s.miracle_used,
                lieutenant=s.lieutenant,
            )
        )
    seen_quests = [*view.inn, *view.revealed, *view.quest_discard]
    seen_quests += [q for s in view.seats for q in (*s.quests, *s.completed)]
    quests = cursor.sample(_unseen(RULES.quest_ids, seen_quests), view.quest_deck_size)
    in_play = [b.tile for b in view.buildings]
    stack = cursor.sample(
        _unseen(tuple(t.id for t in catalog.buildings), [*view.hall, *in_play]), view.stack_size
    )
    current = view.current
    owes_quest = any(d.kind == "quest" and d.player == current for d in view.pending)
    return State(
        players=n,
        rng=Rng.from_seed(cursor.next_u64()),
        options=options,
        round=view.round,
        phase=view.phase,
        first=view.first,
        current=current,
        next_seat=(current + 1) % n if current >= 0 else view.first,
        reassigning=view.reassigning,
        ambassador_turn=current >= 0 and any(d.kind == "ambassador" for d in view.pending),
        seats=tuple(seats),
        placed=view.placed,
        ambassador=view.ambassador,
        buildings=view.buildings,
        hall=view.hall,
        hall_vp=view.hall_vp,
        stack=stack,
        inn=view.inn,
        quest_deck=quests,
        quest_discard=view.quest_discard,
        intrigue_deck=tuple(intrigue[: view.intrigue_deck_size]),
        intrigue_discard=view.intrigue_discard,
        revealed=view.revealed,
        pending=view.pending,
        completed_turn=current >= 0 and not owes_quest,
    )
