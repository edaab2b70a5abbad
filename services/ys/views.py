"""Hidden information: what each seat may see, events as each seat may see them, and the
resampling of everything a seat cannot see (conformance proves the views leak nothing).

Hidden: what is behind each screen, a bid until all are revealed, face-down brokers (from
everyone; from their owner too when `see_own_face_down` is off), neutral brokers (from
everyone), the throne brokers (but from their owner), the ship deck order, the face-down
character piles and the unused cards. Not hidden: character cards in hand, since each is
revealed face up before it is won and the winner is public [SEED p.10: players must remember
who holds what]; the front of the screens; every count. A spectator sees whatever every seat
sees: a face-down broker known to every seat shows its value to spectators too.
"""

from __future__ import annotations

import msgspec

from services.kernel import Rng
from services.ys.model import (
    BID,
    COLOURS,
    GEM_KINDS,
    OVER,
    THRONE,
    BidPlaced,
    Broker,
    BrokerPeeked,
    BrokerPlaced,
    BrokerView,
    Event,
    NeutralPlaced,
    SeatView,
    State,
    ThroneChosen,
    View,
)


def _sees(broker: Broker, viewer: int | None, over: bool, everyone: int) -> bool:
    """A broker's value shows when it is face up, when the game is over, or when the viewer
    knows it; a spectator knows what every seat knows (`everyone`: the mask of all seats), e.g.
    a face-down broker every seat saw leave the front of a screen (Conjurer)."""
    if broker.face_up or over:
        return True
    if viewer is None:
        return broker.known & everyone == everyone
    return bool(broker.known & (1 << viewer))


def view(
    state: State, viewer: int | None, active: tuple[int, ...], complete: bool, scores: tuple[int, ...]
) -> View:
    """`scores`: what the table shows as each party's score (scoring.table_scores)."""
    over = state.phase == OVER
    n = state.players
    everyone = (1 << n) - 1
    seats = []
    for p in range(n):
        mine = p == viewer
        revealed_bid = state.phase != BID or mine
        seats.append(
            SeatView(
                player=p,
                score=scores[p],
                gems=dict(zip(GEM_KINDS, state.gems[p], strict=True)),
                order_card=state.order_cards[p],
                screen_size=len(state.screens[p]),
                screen=state.screens[p] if mine or over else None,
                front=state.front[p],
                has_bid=bool(state.bids[p]),
                bid=state.bids[p] if revealed_bid else None,
                hand=state.hands[p],
                new_cards=state.new_cards[p],
                played=state.played[p],
                twos=state.twos[p],
                throne_size=len(state.throne[p]),
                throne=tuple(b.value if _sees(b, viewer, over, everyone) else None for b in state.throne[p])
                if mine or over
                else None,
                throne_chosen=state.throne_pick[p] >= 0 if state.phase == THRONE else False,
                throne_pick=state.throne_pick[p] if mine and state.throne_pick[p] >= 0 else None,
                neutral_left=len(state.neutral_pool[p]),
                neutral_pool=state.neutral_pool[p] if mine and state.options.neutral_chosen else None,
            )
        )
    neutral = None
    if state.parties > n:
        neutral = {"score": scores[n], **dict(zip(GEM_KINDS, state.gems[n], strict=True))}
    board = tuple(
        BrokerView(
            i, b.owner, b.place, b.face_up, b.value if _sees(b, viewer, over, everyone) else None, b.mercenary
        )
        for i, b in enumerate(state.board)
    )
    return View(
        players=n,
        viewer=viewer,
        turn=state.turn,
        phase=state.phase,
        window=state.window,
        active=active,
        queue=state.queue,
        round=state.round,
        rounds=state.rounds,
        neighbourhoods=state.neighbourhoods,
        prices=dict(zip(COLOURS, state.prices, strict=True)),
        price_limit=state.options.price_limit,
        seats=tuple(seats),
        neutral=neutral,
        board=board,
        ports=state.ports,
        port_pool=state.port_pool,
        market_gems=state.market_gems,
        offered=state.offered,
        pile_sizes=tuple(len(p) for p in state.piles),
        ship_deck_size=len(state.ship_deck),
        closed=state.closed,
        commercial_vp=state.commercial_vp,
        intriguer=state.intriguer,
        peeks_left=state.peeks[viewer] if viewer is not None else 0,
        bid_order=state.bid_order,
        grants=state.grants,
        deciding=state.deciding,
        placed_up=state.placed_up,
        placed_down=state.placed_down,
        neutral_placed=state.neutral_placed,
        just_placed=state.just_placed,
        replacing=state.replacing,
        after=complete,
    )


def redact_event(event: Event, viewer: int | None) -> Event:
    """Blank bids, face-down and throne values, neutral draws and what the Spy saw."""
    if isinstance(event, BidPlaced) and viewer != event.player:
        return msgspec.structs.replace(event, values=())
    if (
        isinstance(event, BrokerPlaced)
        and not event.face_up
        and not event.from_front
        and (viewer != event.player or event.hidden_from_owner)
    ):
        return msgspec.structs.replace(event, value=-1)
    if isinstance(event, NeutralPlaced):
        value = event.value if event.chosen and viewer == event.pool else -1
        return msgspec.structs.replace(event, value=value, rng_counter=0)
    if isinstance(event, (BrokerPeeked, ThroneChosen)) and viewer != event.player:
        return msgspec.structs.replace(event, value=-1)
    return event


def resample_hidden(state: State, viewer: int, rng: Rng) -> State:
    """A state `viewer` cannot tell from this one: for every owner, the values of the brokers the
    viewer cannot see (behind the screen, a secret bid, face-down, in the throne) dealt anew among
    those slots; neutral brokers likewise; the ship deck and the unseen character cards reshuffled."""
    cursor = rng.cursor()
    me = 1 << viewer
    board = list(state.board)
    screens = list(state.screens)
    bids = list(state.bids)
    thrones = [list(t) for t in state.throne]
    picks = list(state.throne_pick)
    pools = list(state.neutral_pool)
    for owner in range(state.players + (1 if state.parties > state.players else 0)):
        for pool_seat in range(state.players) if owner == state.players else (owner,):
            slots: list[tuple[str, int]] = []
            values: list[int] = []
            own_pool = state.options.neutral_chosen and pool_seat == viewer
            if owner == state.players:
                values += () if own_pool else pools[pool_seat]
            elif owner != viewer:
                values += screens[owner]
                if state.phase == BID:
                    values += bids[owner]
            for i, b in enumerate(board):
                if (
                    b.owner == owner
                    and (owner < state.players or b.pool == pool_seat)
                    and not _sees(b, viewer, False, (1 << state.players) - 1)
                ):
                    slots.append(("board", i))
                    values.append(b.value)
            if owner < state.players:
                for k, b in enumerate(thrones[owner]):
                    if not b.known & me:
                        slots.append(("throne", k))
                        values.append(b.value)
            dealt = list(cursor.shuffle(values))
            for kind, i in slots:
                value = dealt.pop()
                if kind == "board":
                    board[i] = msgspec.structs.replace(board[i], value=value)
                else:
                    thrones[owner][i] = msgspec.structs.replace(thrones[owner][i], value=value)
            if owner == state.players and not own_pool:
                pools[pool_seat] = tuple(sorted(dealt))
            elif owner != viewer:
                if state.phase == BID and bids[owner]:
                    bids[owner] = tuple(sorted(dealt[: len(bids[owner])]))
                    dealt = dealt[len(bids[owner]) :]
                screens[owner] = tuple(sorted(dealt))
                if state.phase == THRONE and picks[owner] >= 0:
                    picks[owner] = cursor.choice(state.front[owner])
    cards = list(cursor.shuffle([c for pile in state.piles for c in pile] + list(state.unused)))
    piles = []
    for pile in state.piles:
        piles.append(tuple(cards[: len(pile)]))
        cards = cards[len(pile) :]
    return msgspec.structs.replace(
        state,
        board=tuple(board),
        screens=tuple(screens),
        bids=tuple(bids),
        throne=tuple(tuple(t) for t in thrones),
        throne_pick=tuple(picks),
        neutral_pool=tuple(pools),
        ship_deck=cursor.shuffle(state.ship_deck),
        piles=tuple(piles),
        unused=tuple(cards),
    )
