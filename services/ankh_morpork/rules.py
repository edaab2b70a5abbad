"""Discworld: Ankh-Morpork rules: setup, whose decision it is, legal actions, validate, apply.

A turn [SEED Como se Juega]: the seat on turn (its personality checked first) plays a card
from its hand and resolves its symbols left to right, each optional but the random event;
'play another card' chains; City Area abilities may be used at any of its decisions; then it
refills to five. Every choice is one small action answering the top pending `Frame` (see
`engine.py`); `validate` accepts exactly what `legal_actions` lists, then runs the automatic
steps until a seat owes a decision again. Interrupt windows make the victim the active seat.
"""

from __future__ import annotations

from collections.abc import Iterable

from services.ankh_morpork import cards, events, scoring, views
from services.ankh_morpork.board import Tables
from services.ankh_morpork.catalog import Catalog, default_catalog
from services.ankh_morpork.engine import AUTOMATIC, DECISIONS, Ctx, advance, apply, options_for
from services.ankh_morpork.model import (
    AREAS,
    HAND,
    MINIONS,
    START_AREAS,
    START_MONEY,
    Action,
    Assassinate,
    Build,
    ChooseArea,
    ChooseCard,
    ChooseMinion,
    ChooseOption,
    ChoosePlayer,
    EndTurn,
    Event,
    Frame,
    MoveMinion,
    Options,
    PlaceMinion,
    PlayCard,
    PlayInterrupt,
    RemoveTrouble,
    Scroll,
    Skip,
    State,
    TakeMoney,
    UseAbility,
    View,
)
from services.ankh_morpork.present import make_presentation
from services.ankh_morpork.undo import UNDO
from services.kernel import GameSpec, Outcome, Rejection, Rng, SetupError, illegal, rules_version

PLAYER_COUNTS = (2, 3, 4)
_ = (cards, events)  # imported for the frame kinds they register


class Rules:
    """The rules of Ankh-Morpork played with one data file."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.t = Tables(catalog)

    # -- setup ----------------------------------------------------------------------------------

    def setup(self, players: int, seed: int, options: Options) -> State:
        """[SEED Preparar]: one minion of each colour in The Shades, The Scours and Dolly
        Sisters with a trouble marker in each; $10 each; events shuffled; a secret personality
        each; brown pile shuffled under the shuffled green pile; five cards each; a random
        first player. With 2 players Chrysoprase, Hubert and Cosmo Lavish are left out."""
        if players not in PLAYER_COUNTS:
            raise SetupError(f"Ankh-Morpork is played by 2, 3 or 4 players, not {players}")
        two = players == 2
        cursor = Rng.from_seed(seed).cursor()
        people = [p.id for p in self.catalog.personalities if p.two_player or not two]
        people = list(cursor.shuffle(people))
        deck_cards = [c for c in self.catalog.cards if c.two_player or not two]
        green = cursor.shuffle([c.id for c in deck_cards if c.deck == "green"])
        brown = cursor.shuffle([c.id for c in deck_cards if c.deck == "brown"])
        deck = green + brown
        hands = tuple(tuple(deck[k * HAND : (k + 1) * HAND]) for k in range(players))
        minions = tuple(tuple(1 if a + 1 in START_AREAS else 0 for _ in range(players)) for a in range(AREAS))
        first = cursor.randbelow(players)
        state = State(
            players=players,
            rng=cursor.rng,
            options=options,
            current=first,
            minions=minions,
            trouble=tuple(a + 1 in START_AREAS for a in range(AREAS)),
            money=(START_MONEY,) * players,
            hands=hands,
            deck=tuple(deck[players * HAND :]),
            events_deck=cursor.shuffle([e.id for e in self.catalog.events]),
            personalities=tuple(people[:players]),
            unused_personalities=tuple(sorted(people[players:])),
            loans=((),) * players,
            penalties=((),) * players,
            stack=(Frame(kind="turn", player=first),),
        )
        if scoring.meets_goal(self.t, state, first):  # cannot happen with the printed goals
            raise SetupError("a personality's goal is met before the first turn")
        return state

    # -- whose decision --------------------------------------------------------------------------

    def active_players(self, state: State) -> tuple[int, ...]:
        if state.over or not state.stack:
            return ()
        return (state.stack[-1].player,)

    def legal_actions(self, state: State, player: int) -> list[Action]:
        if state.over or not state.stack or state.stack[-1].player != player:
            return []
        return options_for(self.t, state, state.stack[-1])

    def validate(self, state: State, player: int, action: Action) -> list[Event] | Rejection:
        if state.over:
            return Rejection("game_over", "The game is over.")
        if not state.stack or state.stack[-1].player != player:
            return Rejection("not_your_turn", "It is not your turn.")
        frame = state.stack[-1]
        if action not in options_for(self.t, state, frame):
            return illegal(_why(frame, action))
        ctx = Ctx(self.t, state)
        DECISIONS[frame.kind][1](ctx, frame, action)
        advance(ctx)
        return ctx.finish()

    def apply(self, state: State, event: Event) -> State:
        return apply(state, event)

    def outcome(self, state: State) -> Outcome | None:
        return scoring.outcome(self.t, state)

    def view(self, state: State, viewer: int | None) -> View:
        return views.view(
            self.t, state, viewer, self.active_players(state), scoring.table_scores(self.t, state)
        )

    def resample_hidden(self, state: State, viewer: int, rng: Rng) -> State:
        return views.resample_hidden(state, viewer, rng)

    def probe_actions(self, state: State, player: int) -> Iterable[Action]:
        """Plausible actions the rules may refuse now: conformance proves each is rejected."""
        yield Skip()
        yield EndTurn()
        yield TakeMoney()
        yield Scroll()
        for area in (1, 2, 4, 5, 7, 10, 12):
            yield PlaceMinion(area)
            yield Build(area)
            yield RemoveTrouble(area)
            yield ChooseArea(area)
            yield UseAbility(area)
            yield Assassinate(area, (player + 1) % state.players)
            yield Assassinate(area, player)
            yield ChooseMinion(area, player)
            yield MoveMinion(area, area % AREAS + 1)
        for seat in range(state.players):
            yield ChoosePlayer(seat)
        for card in state.hands[(player + 1) % state.players][:2]:
            yield PlayCard(card)
            yield ChooseCard(card)
        for card in state.hands[player]:
            yield PlayCard(card)
            yield PlayInterrupt(card)
            yield ChooseCard(card)
        yield PlayCard("no_such_card")
        yield ChooseOption("pay")
        yield ChooseOption("steal")
        yield PlaceMinion(3, 7)

    def check_state(self, state: State) -> None:
        """Refuse a state that decodes but does not fit the game."""
        n = state.players
        if n not in PLAYER_COUNTS:
            raise ValueError(f"players must be 2-4, not {n}")
        for name in ("money", "hands", "personalities", "loans", "penalties"):
            if len(getattr(state, name)) != n:
                raise ValueError(f"{name} needs one entry per seat")
        if len(state.minions) != AREAS or any(len(row) != n for row in state.minions):
            raise ValueError("minions are counted per area and seat")
        for name in ("trolls", "demons", "trouble", "buildings", "lost_cards"):
            if len(getattr(state, name)) != AREAS:
                raise ValueError(f"{name} has one entry per area")
        if any(sum(row[p] for row in state.minions) > MINIONS for p in range(n)):
            raise ValueError("a seat has more than 12 minions on the board")
        if any(m < 0 for m in state.money) or any(min(row) < 0 for row in state.minions):
            raise ValueError("negative money or minions")
        if any(b < -1 or b >= n for b in state.buildings):
            raise ValueError("a building belongs to no seat")
        known = self.t.cards
        every = [c for hand in state.hands for c in hand] + list(state.deck) + list(state.discard)
        every += [c for row in state.loans for c in row] + [c for row in state.penalties for c in row]
        if any(c not in known for c in every):
            raise ValueError("unknown card id")
        if any(p not in self.t.personalities for p in (*state.personalities, *state.unused_personalities)):
            raise ValueError("unknown personality")
        if any(e not in self.t.events for e in (*state.events_deck, *state.events_done)):
            raise ValueError("unknown random event")
        if not state.over and (not state.stack or not 0 <= state.current < n):
            raise ValueError("an unfinished game owes a decision")
        if any(v < 0 for v in (*state.trolls, *state.demons)):
            raise ValueError("negative trolls or demons")
        for frame in state.stack:
            if frame.kind not in DECISIONS and frame.kind not in AUTOMATIC:
                raise ValueError(f"unknown pending step {frame.kind!r}")
            if not 0 <= frame.player < n and frame.kind in DECISIONS:
                raise ValueError("a pending decision belongs to no seat")
            if frame.kind in ("card", "choose_player", "penalty") and frame.card not in known:
                raise ValueError("a pending step names an unknown card")
            areas = (frame.area, frame.to_area, *frame.areas)
            if any(not 0 <= a <= AREAS for a in areas) or any(not 0 <= s < n for s in frame.seats):
                raise ValueError("a pending step names an area or seat that does not exist")
            if not -2 <= frame.owner < n or not -1 <= frame.target < n or not -1 <= frame.actor < n:
                raise ValueError("a pending step names a seat that does not exist")


def _why(frame: Frame, action: Action) -> str:
    what = {
        "turn": "play a card from your hand (not an interrupt), use a City Area card or end your turn",
        "card": "do or skip the card's next symbol, use a City Area card, or play Doctor Mossy Lawn",
        "interrupt": "play a fitting interrupt card (or Small Gods against an event) or skip",
        "place": "place a minion where this allows",
    }.get(frame.kind, f"answer the pending {frame.kind.replace('_', ' ')}")
    return f"{type(action).__name__} is not possible now: {what}."


def make_game(catalog: Catalog) -> GameSpec[State]:
    """Ankh-Morpork played with this data file; its rules version digests the code and this data."""
    return _make_game(Rules(catalog))


def _make_game(rules: Rules) -> GameSpec[State]:
    return GameSpec(
        game_id="ankh_morpork",
        title="Discworld: Ankh-Morpork",
        rules_version=rules_version("1.0", rules.catalog, package=__package__),
        player_counts=PLAYER_COUNTS,
        options_type=Options,
        state_type=State,
        action_type=Action,
        event_type=Event,
        view_type=View,
        setup=rules.setup,
        active_players=rules.active_players,
        legal_actions=rules.legal_actions,
        validate=rules.validate,
        apply=rules.apply,
        view=rules.view,
        outcome=rules.outcome,
        redact_event=views.redact_event,
        probe_actions=rules.probe_actions,
        resample_hidden=rules.resample_hidden,
        variants={"pieces_count_beside_demons": Options(demons_void_scoring=False)},
        check_state=rules.check_state,
        data=rules.catalog,
        presentation=make_presentation(rules.catalog),
        undoable=UNDO,
    )


RULES = Rules(default_catalog())
GAME = _make_game(RULES)
