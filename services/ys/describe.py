"""Ys events as log lines (services/kernel/present.py `describe`): one description per event
type, as the viewer received it (a redacted event says only what that viewer may know).

Players are seat arguments ("Player 1"); a *party* is a seat or, with 2 players, the neutral
player (party 2). An event does not carry the player count, so party 2 is named "Player 3" with
the `party` kind, except where the event itself shows it is the neutral player.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.kernel.present import PLACE as PLACE_KIND
from services.kernel.present import Arg, Description, arg, player_name, seat_arg
from services.kernel.present import describe as make_description
from services.ys import game_data
from services.ys.board import PLACE_NAMES
from services.ys.catalog import Catalog
from services.ys.model import (
    COLOURS,
    BidPlaced,
    BidsRevealed,
    BrokerPeeked,
    BrokerPlaced,
    BrokersReturned,
    CharacterDiscarded,
    CharacterPlayed,
    CharacterWon,
    ColumnsRanked,
    CountingStarted,
    FrontReplaced,
    GemsTaken,
    LeftoversShown,
    MarketCounted,
    NeighbourhoodCounted,
    NeutralPlaced,
    NoContributor,
    OrderCardChosen,
    PlacementFinished,
    PlacementRoundStarted,
    QuotationMoved,
    ThroneChosen,
    ThroneFilled,
    ThroneOpened,
    TurnEnded,
    TurnStarted,
    WindowOpened,
    WindowPassed,
)


def and_list(items: Sequence[str]) -> str:
    items = list(items)
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def gems_label(gems: Sequence[str]) -> str:
    """`("blue", "blue", "red")` -> "2 blue and red"."""
    counts: dict[str, int] = {}
    for g in gems:
        counts[g] = counts.get(g, 0) + 1
    return and_list([f"{n} {g}" if n > 1 else g for g, n in counts.items()])


class Labels:
    """Names for one data file, computed once: character cards (with their effect), places."""

    def __init__(self, catalog: Catalog) -> None:
        self.cards = {c.id: c for c in catalog.characters}
        self.card_names = {c.id: c.name for c in catalog.characters}
        self.place_names = PLACE_NAMES

    def card_label(self, card: str) -> str:
        entry = self.cards.get(card)
        if entry is None or entry.edge == "blue":
            return self.card_names.get(card, card) if card else "no card"
        return f"the {entry.name}"

    def card_arg(self, name: str, card: str) -> Arg:
        return arg(name, self.card_label(card), "character", card)

    def place_arg(self, name: str, place: str) -> Arg:
        return arg(name, self.place_names.get(place, place), PLACE_KIND, place)

    def describe(self, event: Any, viewer: int | None) -> Description:
        handler = _DESCRIBERS.get(type(event))
        if handler is None:
            tag = str(type(event).__struct_config__.tag)
            return make_description(tag, tag.replace("_", " "))
        description: Description = handler(self, event, viewer)
        return description


def _neighbourhood(k: int) -> str:
    return f"Neighbourhood {k}"


def _party_arg(name: str, party: int) -> Arg:
    """A party: always a seat but for party 2, which is the neutral player with 2 players (a
    description does not know the player count, so it names it by the party component)."""
    if party < 0:
        return arg(name, "nobody")
    if party == 2:
        return arg(name, player_name(party), "party", party)
    return seat_arg(name, party)


def _neutral_arg(name: str, party: int) -> Arg:
    """A party the event shows is the neutral player (2 players)."""
    return arg(name, "The neutral player", "party", party)


def _neighbourhood_arg(name: str, k: int) -> Arg:
    return arg(name, _neighbourhood(k), "neighbourhood", k)


# -- one description per event type ------------------------------------------------------------


def _turn_started(t: Labels, e: TurnStarted, viewer: int | None) -> Description:
    cards = [t.card_arg(f"card{i + 1}", c) for i, c in enumerate(e.characters)]
    gems = [g for g in e.market_gems if g]
    template = "Turn {turn} begins: " + and_list(["{" + a.name + "}" for a in cards]) + " in the palaces"
    template += "; market gems: {gems}" if gems else ""
    args = [arg("turn", e.turn), *cards]
    if gems:
        args.append(arg("gems", and_list(gems)))
    return make_description("turn_started", template, *args)


def _bid_placed(t: Labels, e: BidPlaced, viewer: int | None) -> Description:
    if e.values:
        return make_description(
            "bid_placed",
            "{player} bids {first} and {second} (secret)",
            seat_arg("player", e.player),
            arg("first", e.values[0], "broker", e.values[0]),
            arg("second", e.values[1], "broker", e.values[1]),
        )
    return make_description("bid_placed", "{player} places a secret bid", seat_arg("player", e.player))


def _bids_revealed(t: Labels, e: BidsRevealed, viewer: int | None) -> Description:
    args = []
    parts = []
    for seat, bid in enumerate(e.bids):
        args += [seat_arg(f"p{seat}", seat), arg(f"b{seat}", sum(bid))]
        parts.append(f"{{p{seat}}} bids {{b{seat}}}")
    order = [seat_arg(f"o{i}", s) for i, s in enumerate(e.choosing_order)]
    template = "Bids revealed: " + ", ".join(parts)
    if order:
        template += "; order cards are chosen by " + ", ".join("{" + a.name + "}" for a in order)
    return make_description("bids_revealed", template, *args, *order)


def _order_card_chosen(t: Labels, e: OrderCardChosen, viewer: int | None) -> Description:
    return make_description(
        "order_card_chosen",
        "{player} takes {card}",
        seat_arg("player", e.player),
        arg("card", f"order card {e.card}", "order_card", e.card),
    )


def _window_opened(t: Labels, e: WindowOpened, viewer: int | None) -> Description:
    window = arg("window", game_data.WINDOW_NAMES.get(e.window, e.window), "window", e.window)
    if not e.seats:
        return make_description(
            "window_opened", "{window}: nobody plays a character card", window, internal=True
        )
    seats = [seat_arg(f"s{i}", s) for i, s in enumerate(e.seats)]
    template = "{window}: " + and_list(["{" + a.name + "}" for a in seats]) + " may play a character card"
    return make_description("window_opened", template, window, *seats)


def _window_passed(t: Labels, e: WindowPassed, viewer: int | None) -> Description:
    return make_description(
        "window_passed", "{player} plays no character card now", seat_arg("player", e.player)
    )


def _round_started(t: Labels, e: PlacementRoundStarted, viewer: int | None) -> Description:
    return make_description(
        "placement_round_started", "Placement round {round} begins", arg("round", e.round)
    )


def _broker_placed(t: Labels, e: BrokerPlaced, viewer: int | None) -> Description:
    args = [seat_arg("player", e.player), t.place_arg("place", e.place)]
    if e.value >= 0:
        face = "face up" if e.face_up else "face down"
        template = "{player} places a broker (value {value}) " + face
        args.append(arg("value", e.value, "broker", e.value))
    else:
        template = "{player} places a face-down broker"
    if e.from_front:
        template += " from in front of the screen"
    template += " in the {place}"
    if e.gold:
        template += " (+{gold} gold)"
        args.append(arg("gold", e.gold))
    return make_description("broker_placed", template, *args)


def _neutral_placed(t: Labels, e: NeutralPlaced, viewer: int | None) -> Description:
    args = [seat_arg("player", e.pool), t.place_arg("place", e.place)]
    template = "{player} places a neutral broker face down"
    if e.value >= 0:
        template = "{player} places a neutral broker (value {value}) face down"
        args.append(arg("value", e.value, "broker", e.value))
    template += " in the {place}"
    if e.gold:
        template += " (+{gold} gold to the neutral player)"
        args.append(arg("gold", e.gold))
    return make_description("neutral_placed", template, *args)


def _front_replaced(t: Labels, e: FrontReplaced, viewer: int | None) -> Description:
    return make_description(
        "front_replaced",
        "{player} puts a broker (value {value}) face up in front of the screen (Conjurer)",
        seat_arg("player", e.player),
        arg("value", e.value, "broker", e.value),
    )


def _placement_finished(t: Labels, e: PlacementFinished, viewer: int | None) -> Description:
    return make_description(
        "placement_finished", "{player} ends their placement", seat_arg("player", e.player), internal=True
    )


def _character_played(t: Labels, e: CharacterPlayed, viewer: int | None) -> Description:
    args = [seat_arg("player", e.player), t.card_arg("card", e.card)]
    template = "{player} plays {card}"
    effect = t.cards[e.card].effect if e.card in t.cards else ""
    if effect == "close_area" and e.place:
        template += " and closes the {place}"
        args.append(t.place_arg("place", e.place))
    elif effect == "swap_ships" and len(e.ports) == 2:
        template += " and swaps the ships of the {first} and the {second}"
        args += [t.place_arg("first", f"n{e.ports[0]}.port"), t.place_arg("second", f"n{e.ports[1]}.port")]
    elif effect == "move_own_broker" and e.place:
        template += " and moves a broker to the {place}"
        args.append(t.place_arg("place", e.place))
    elif effect == "swap_own_brokers":
        template += " and swaps two of their brokers"
    elif effect == "fixed_value":
        template += ": one of their brokers counts 5 this turn"
    elif effect == "exchange_gem" and len(e.colours) == 2:
        template += " and exchanges a {give} gem for a {take} gem"
        args += [
            arg("give", e.colours[0], "gem", e.colours[0]),
            arg("take", e.colours[1], "gem", e.colours[1]),
        ]
    elif effect == "shift_prices" and len(e.colours) == 2:
        template += ": {up} goes up, {down} goes down"
        args += [arg("up", e.colours[0], "gem", e.colours[0]), arg("down", e.colours[1], "gem", e.colours[1])]
    elif effect == "gain_gems" and e.colours:
        template += " and takes two {colour} gems"
        args.append(arg("colour", e.colours[0], "gem", e.colours[0]))
    return make_description("character_played", template, *args)


def _broker_peeked(t: Labels, e: BrokerPeeked, viewer: int | None) -> Description:
    args = [seat_arg("player", e.player)]
    if e.throne_seat >= 0:
        template = "{player} looks at a broker in {owner}'s throne (Spy)"
        args.append(seat_arg("owner", e.throne_seat))
    else:
        template = "{player} looks at a face-down broker (Spy)"
    if e.value >= 0:
        template += ": it is a {value}"
        args.append(arg("value", e.value, "broker", e.value))
    return make_description("broker_peeked", template, *args)


def _leftovers_shown(t: Labels, e: LeftoversShown, viewer: int | None) -> Description:
    args = []
    parts = []
    for seat, values in enumerate(e.leftovers):
        args += [seat_arg(f"p{seat}", seat), arg(f"v{seat}", and_list([str(v) for v in values]))]
        parts.append(f"{{p{seat}}} a {{v{seat}}}")
    template = "Leftover brokers go in front of the screens: " + ", ".join(parts)
    return make_description("leftovers_shown", template, *args)


def _counting_started(t: Labels, e: CountingStarted, viewer: int | None) -> Description:
    return make_description("counting_started", "Counting begins")


def _neighbourhood_counted(t: Labels, e: NeighbourhoodCounted, viewer: int | None) -> Description:
    template = "{neighbourhood} is counted: port {port}, commercial area {commercial}"
    if e.commercial >= 0:
        template += " (+{gold} gold)"
    template += ", palace {palace}"
    args = [
        _neighbourhood_arg("neighbourhood", e.neighbourhood),
        _party_arg("port", e.port),
        _party_arg("commercial", e.commercial),
        arg("gold", e.gold),
        _party_arg("palace", e.palace),
    ]
    return make_description("neighbourhood_counted", template, *args)


def _gems_taken(t: Labels, e: GemsTaken, viewer: int | None) -> Description:
    source = {"port": "from the port", "row": "from a market row", "card": "from a blue-edged card"}
    template = "{party} takes {gems} " + source.get(e.source, "")
    args = [_party_arg("party", e.party), arg("gems", gems_label(e.gems))]
    if e.white_as:
        template += " (the white gem as {white})"
        args.append(arg("white", e.white_as, "gem", e.white_as))
    return make_description("gems_taken", template.strip(), *args)


def _character_won(t: Labels, e: CharacterWon, viewer: int | None) -> Description:
    args = [
        _party_arg("party", e.party),
        t.card_arg("card", e.card),
        _neighbourhood_arg("neighbourhood", e.neighbourhood),
    ]
    template = "{party} wins {card} in {neighbourhood}"
    if e.gold:
        template += " (+{gold} gold)"
        args.append(arg("gold", e.gold))
    if e.neutral_gem:  # only the neutral player trades a card for a gem
        args[0] = _neutral_arg("party", e.party)
        template = "{party} wins {card} in {neighbourhood}, discards it and takes a {gem} gem"
        args.append(arg("gem", e.neutral_gem, "gem", e.neutral_gem))
    return make_description("character_won", template, *args)


def _character_discarded(t: Labels, e: CharacterDiscarded, viewer: int | None) -> Description:
    where = _neighbourhood_arg("neighbourhood", e.neighbourhood)
    if not e.card:
        return make_description("character_discarded", "No character card is won in {neighbourhood}", where)
    return make_description(
        "character_discarded",
        "Nobody is in the palace of {neighbourhood}: {card} is discarded",
        where,
        t.card_arg("card", e.card),
    )


def _brokers_returned(t: Labels, e: BrokersReturned, viewer: int | None) -> Description:
    return make_description(
        "brokers_returned",
        "The brokers in the {where} go back behind the screens",
        t.place_arg("where", e.where),
        internal=True,
    )


def _market_counted(t: Labels, e: MarketCounted, viewer: int | None) -> Description:
    args = []
    rows = []
    for row, party in enumerate(e.rows):
        if party >= 0:
            args.append(_party_arg(f"row{row}", party))
            rows.append(f"row {row} to {{row{row}}}")
    columns = ", ".join(f"{c} {v}" for c, v in zip(COLOURS, e.column_values, strict=False))
    template = (
        "The market is counted: " + ("; ".join(rows) if rows else "no row is won") + "; columns {columns}"
    )
    args.append(arg("columns", columns))
    if e.contributor >= 0:
        template += "; biggest contributor {contributor}"
        args.append(_party_arg("contributor", e.contributor))
    return make_description("market_counted", template, *args)


def _columns_ranked(t: Labels, e: ColumnsRanked, viewer: int | None) -> Description:
    moves = dict(zip(COLOURS, e.moves, strict=False))
    ranked = ", ".join(f"{c} {moves.get(c, 0):+d}" for c in e.order)
    args = [arg("ranked", ranked)]
    template = "Market columns ranked: {ranked}"
    if e.decided_by >= 0:
        template += " (tie ordered by {player})"
        args.append(seat_arg("player", e.decided_by))
    return make_description("columns_ranked", template, *args)


def _quotation_moved(t: Labels, e: QuotationMoved, viewer: int | None) -> Description:
    direction = "up" if e.step > 0 else "down"
    template = "{party} moves the {colour} quotation " + direction + " one step"
    if e.moved == 0:
        template += " (it is already at the end of its scale)"
    return make_description(
        "quotation_moved", template, _party_arg("party", e.party), arg("colour", e.colour, "gem", e.colour)
    )


def _no_contributor(t: Labels, e: NoContributor, viewer: int | None) -> Description:
    if e.party >= 0:
        return make_description(
            "no_contributor",
            "{party} is the biggest market contributor: no quotation moves",
            _neutral_arg("party", e.party),
        )
    return make_description("no_contributor", "Nobody is in the market: no quotation moves")


def _throne_opened(t: Labels, e: ThroneOpened, viewer: int | None) -> Description:
    return make_description("throne_opened", "The throne room opens: everyone secretly sends a broker there")


def _throne_chosen(t: Labels, e: ThroneChosen, viewer: int | None) -> Description:
    if e.value >= 0:
        return make_description(
            "throne_chosen",
            "{player} sends a broker (value {value}) to the throne (secret)",
            seat_arg("player", e.player),
            arg("value", e.value, "broker", e.value),
        )
    return make_description(
        "throne_chosen", "{player} secretly chooses a broker for the throne", seat_arg("player", e.player)
    )


def _throne_filled(t: Labels, e: ThroneFilled, viewer: int | None) -> Description:
    text = "The chosen brokers go face down to the throne"
    text += "; everyone takes a 2 broker behind the screen" if e.twos_taken else ""
    return make_description("throne_filled", text)


def _turn_ended(t: Labels, e: TurnEnded, viewer: int | None) -> Description:
    if e.last:
        return make_description("turn_ended", "Turn {turn} ends: the game is over", arg("turn", e.turn))
    return make_description("turn_ended", "Turn {turn} ends", arg("turn", e.turn))


_DESCRIBERS: dict[type, Any] = {
    TurnStarted: _turn_started,
    BidPlaced: _bid_placed,
    BidsRevealed: _bids_revealed,
    OrderCardChosen: _order_card_chosen,
    WindowOpened: _window_opened,
    WindowPassed: _window_passed,
    PlacementRoundStarted: _round_started,
    BrokerPlaced: _broker_placed,
    NeutralPlaced: _neutral_placed,
    FrontReplaced: _front_replaced,
    PlacementFinished: _placement_finished,
    CharacterPlayed: _character_played,
    BrokerPeeked: _broker_peeked,
    LeftoversShown: _leftovers_shown,
    CountingStarted: _counting_started,
    NeighbourhoodCounted: _neighbourhood_counted,
    GemsTaken: _gems_taken,
    CharacterWon: _character_won,
    CharacterDiscarded: _character_discarded,
    BrokersReturned: _brokers_returned,
    MarketCounted: _market_counted,
    ColumnsRanked: _columns_ranked,
    QuotationMoved: _quotation_moved,
    NoContributor: _no_contributor,
    ThroneOpened: _throne_opened,
    ThroneChosen: _throne_chosen,
    ThroneFilled: _throne_filled,
    TurnEnded: _turn_ended,
}
