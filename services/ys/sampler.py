"""A full Ys state from one seat's view: what a search bot plays its determinizations in.

`sample(view, seat, rng, options)` reads nothing but the seat's view, the match options and the
sampling Rng, and deals what the seat cannot see at random, consistent with the view:

- each seat owns a fixed set of brokers (0,0,1,1,1,2,3,3,3,4,4, Express less a 3 and a 1, plus the
  King's Favor twos it took): the values the seat cannot see (behind another's screen, a secret
  bid, face down on the board, in another's throne room) are that set less the values in view,
  dealt at random among those slots; the neutral brokers (2 players) likewise per pool;
- the character cards not in view (hands, cards won this turn, offered cards) go to the
  face-down piles and the box; the ship deck is drawn from the ships not showing in a port;
- counting-phase bookkeeping the view leaves implicit is rebuilt from it: which neighbourhood is
  being counted (the first that still has brokers), its step (from the gems owed), the palace
  winner and the market's biggest contributor (the seat owing that decision);
- a fresh Rng key: the true one is the server's secret.

Approximated (a perfect-memory player could know them; the rules read them in corners): cards
discarded unwon (they may come back in a pile), ships of earlier turns (they may come back in the
deck), the effects of character cards played this turn and the split of a score into its sources.
"""

from __future__ import annotations

from collections import Counter

from services.kernel import Rng
from services.ys.model import AREAS, BID, COLOURS, COUNT, GEM_KINDS, THRONE, Broker, Options, State, View
from services.ys.model import place_neighbourhood as neighbourhood_of
from services.ys.rules import RULES
from services.ys.tables import (
    BROKERS,
    EXPRESS_BROKERS,
    KINGS_FAVOR_TWOS,
    NEUTRAL_BROKERS,
    YELLOW_PER_PILE,
    rank_parties,
)


def _minus(full: list[int], seen: list[int]) -> list[int]:
    """The multiset `full` less `seen` (values in view beyond it are ignored)."""
    left = Counter(full)
    left.subtract(seen)
    return sorted(v for v, k in left.items() for _ in range(max(k, 0)))


def sample(view: View, seat: int, rng: Rng, options: Options | None = None) -> State:
    options = options or Options()
    cursor = rng.cursor()
    n = view.players
    me = 1 << seat
    parties = n + (1 if view.neutral is not None else 0)
    base = list(EXPRESS_BROKERS if options.express else BROKERS)
    board: list[Broker] = []
    known_bits = {p: (1 << p) if options.see_own_face_down else 0 for p in range(n)}
    screens: list[tuple[int, ...]] = []
    bids: list[tuple[int, ...]] = []
    thrones: list[tuple[Broker, ...]] = []
    pools: list[tuple[int, ...]] = []
    # Board brokers: values in view kept, the others filled per owner (and neutral pool) below.
    slots: dict[tuple[int, int], list[int]] = {}  # (owner, pool) -> board indices to fill
    # A neutral broker's pool (the seat whose set it came from) is not in view: each pool gets as
    # many of the neutral brokers on the board as it is missing.
    neutral_owners = [
        p for p, s in enumerate(view.seats) for _ in range(len(NEUTRAL_BROKERS) - s.neutral_left)
    ]
    for b in view.board:
        pool = -1
        if b.owner == n:
            pool = neutral_owners.pop(0) if neutral_owners else 0
        known = 0 if b.face_up else known_bits.get(b.owner, 0)
        if b.value is not None and not b.face_up:
            known |= me
        board.append(
            Broker(
                b.owner, b.value if b.value is not None else -1, b.place, b.face_up, known, pool, b.mercenary
            )
        )
        if b.value is None:
            slots.setdefault((b.owner, pool), []).append(b.index)
    for p, s in enumerate(view.seats):
        full = base + [2] * ((KINGS_FAVOR_TWOS if options.kings_favor else 0) - s.twos)
        on_board = [b.value for b in view.board if b.owner == p and b.value is not None]
        in_throne = [v for v in (s.throne or ()) if v is not None]
        bid = list(s.bid or ()) if view.phase == BID else []
        if p == seat:
            screens.append(s.screen or ())
            bids.append(tuple(s.bid or ()) if s.has_bid else ())
            thrones.append(
                tuple(
                    Broker(p, v if v is not None else -1, "throne", False, me if v is not None else 0)
                    for v in s.throne or ()
                )
            )
            hidden = _minus(full, [*(s.screen or ()), *s.front, *bid, *on_board, *in_throne])
        else:
            hidden = _minus(full, [*s.front, *on_board, *bid])
        dealt = list(cursor.shuffle(hidden))
        for i in slots.get((p, -1), []):
            board[i] = _with_value(board[i], dealt.pop())
        if p != seat:
            throne = tuple(
                Broker(p, dealt.pop() if dealt else 0, "throne", False, 1 << p) for _ in range(s.throne_size)
            )
            thrones.append(throne)
            secret = 2 if view.phase == BID and s.has_bid and s.bid is None else 0
            bids.append(tuple(sorted(dealt[:secret])) if secret else tuple(s.bid or ()) if s.has_bid else ())
            screens.append(tuple(sorted(dealt[secret : secret + s.screen_size])))
        elif dealt:  # own face-down brokers hidden from their owner
            thrones[p] = tuple(
                _with_value(b, dealt.pop()) if b.value < 0 and dealt else b for b in thrones[p]
            )
        if view.neutral is not None:
            placed = [b.value for b in board if b.owner == n and b.pool == p and b.value >= 0]
            own_pool = s.neutral_pool is not None
            neutral = list(cursor.shuffle(_minus(list(NEUTRAL_BROKERS), [*placed, *(s.neutral_pool or ())])))
            for i in slots.get((n, p), []):
                board[i] = _with_value(board[i], neutral.pop() if neutral else 1)
            pools.append(
                tuple(s.neutral_pool or ()) if own_pool else tuple(sorted(neutral[: s.neutral_left]))
            )
        else:
            pools.append(())
    # Character cards: those in view stay; the piles and the box take the rest.
    catalog = RULES.catalog
    seen_cards = {c for s in view.seats for c in (*s.hand, *s.new_cards)} | set(view.offered)
    yellow = list(cursor.shuffle([c for c in catalog.yellow if c not in seen_cards]))
    piles = []
    for size in view.pile_sizes:
        piles.append(tuple(yellow[:size]))
        yellow = yellow[size:]
    ships = [s.id for s in catalog.ships if not (options.express and s.has_white) and s.id not in view.ports]
    ship_deck = cursor.sample(ships, view.ship_deck_size)
    # Counting bookkeeping.
    counting, stage, last_palace, contributor = _counting(view, board, n)
    state = State(
        players=n,
        parties=parties,
        rng=Rng.from_seed(cursor.next_u64()),
        options=options,
        neighbourhoods=view.neighbourhoods,
        rounds=view.rounds,
        turn=view.turn,
        phase=view.phase,
        window=view.window,
        queue=view.queue,
        prices=tuple(view.prices[c] for c in COLOURS),
        scores=tuple(s.score for s in view.seats) + ((view.neutral["score"],) if view.neutral else ()),
        vp_market=tuple(s.score for s in view.seats) + ((view.neutral["score"],) if view.neutral else ()),
        vp_commercial=(0,) * parties,
        vp_characters=(0,) * parties,
        gems=tuple(tuple(s.gems[g] for g in GEM_KINDS) for s in view.seats)
        + ((tuple(view.neutral[g] for g in GEM_KINDS),) if view.neutral else ()),
        screens=tuple(screens),
        front=tuple(s.front for s in view.seats),
        bids=tuple(bids),
        twos=tuple(s.twos for s in view.seats),
        throne=tuple(thrones),
        throne_pick=tuple(
            (s.throne_pick if s.throne_pick is not None else -1)
            if p == seat
            else (cursor.choice(s.front) if view.phase == THRONE and s.throne_chosen and s.front else -1)
            for p, s in enumerate(view.seats)
        ),
        neutral_pool=tuple(pools),
        board=tuple(board),
        order_cards=tuple(s.order_card for s in view.seats),
        previous_order=tuple(s.order_card for s in view.seats),
        bid_order=view.bid_order,
        ship_deck=ship_deck,
        ports=view.ports,
        market_gems=view.market_gems,
        piles=tuple(piles),
        unused=tuple(yellow),
        blue_left=len(catalog.blue) - (view.neighbourhoods if view.turn > YELLOW_PER_PILE else 0),
        offered=view.offered,
        hands=tuple(s.hand for s in view.seats),
        new_cards=tuple(s.new_cards for s in view.seats),
        played=tuple(s.played for s in view.seats),
        all_face_down=(False,) * n,
        from_front=(False,) * n,
        peeks=tuple(view.peeks_left if p == seat else 0 for p in range(n)),
        closed=view.closed,
        commercial_vp=view.commercial_vp,
        intriguer=view.intriguer,
        round=view.round,
        placed_up=view.placed_up,
        placed_down=view.placed_down,
        neutral_placed=view.neutral_placed,
        just_placed=view.just_placed,
        replacing=view.replacing,
        counting=counting,
        stage=stage,
        port_pool=view.port_pool,
        grants=view.grants,
        last_palace=last_palace,
        deciding=view.deciding,
        contributor=contributor,
    )
    return state


def _with_value(broker: Broker, value: int) -> Broker:
    return Broker(
        broker.owner, value, broker.place, broker.face_up, broker.known, broker.pool, broker.mercenary
    )


def _counting(view: View, board: list[Broker], players: int) -> tuple[int, int, int, int]:
    """(neighbourhood being counted, its step, palace winner, market contributor) from the view."""
    if view.phase != COUNT:
        return 0, 0, -1, -1
    occupied = sorted({neighbourhood_of(b.place) for b in board if not b.place.startswith("m")})
    counting = (occupied[0] - 1) if occupied else view.neighbourhoods
    head = view.grants[0].source if view.grants else ""
    if counting < view.neighbourhoods:
        if head == "port":
            stage = 1
        elif head == "card" or not view.offered[counting]:
            stage = 2
        else:
            stage = 0
        palace: dict[int, int] = {}
        for b in board:
            if neighbourhood_of(b.place) == counting + 1 and b.place.endswith(AREAS[2]):
                palace[b.owner] = palace.get(b.owner, 0) + (5 if b.mercenary else b.value)
        proxy = _RankState(view)
        winner = (rank_parties(proxy, palace) or [-1])[0]  # type: ignore[arg-type]
        return counting, stage, winner, -1
    if head == "row" or view.deciding >= 0:
        return counting, 1, -1, -1
    active = [p for p in view.active if p < players]
    if active:
        return counting, 2, -1, active[0]
    return counting, 0, -1, -1


class _RankState:
    """The fields `rank_parties` reads, from a view."""

    def __init__(self, view: View) -> None:
        self.players = view.players
        self.parties = view.players + (1 if view.neutral is not None else 0)
        self.intriguer = view.intriguer
        self.front = tuple(s.front for s in view.seats)
        self.order_cards = tuple(s.order_card for s in view.seats)
