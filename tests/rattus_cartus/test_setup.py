"""Setup per player count and the four ways of choosing the 30 building cards."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from services.kernel import SetupConfig, SetupError
from services.rattus_cartus import GAME
from services.rattus_cartus.model import (
    BUILDING_CLASS,
    CLASSES,
    FLUTE,
    GOLD,
    JOKER,
    PASS,
    SUPPLIES,
    SWORD,
    VP_TOKEN,
    Options,
    State,
)
from services.rattus_cartus.rules import RECOMMENDED_BUILDINGS, active_players
from tests.rattus_cartus.helpers import supply_of


def all_building_cards(state: State) -> list[tuple[str, int]]:
    return [(c.building, c.copy) for c in (*state.row, *state.building_deck, *state.reserve)]


@pytest.mark.parametrize(
    ("players", "reserve", "rounds", "per_round"),
    [(2, 10, 10, 2), (3, 12, 9, 2), (4, 6, 8, 3), (5, 6, 8, 3)],
)
def test_setup_follows_the_player_count_table(
    players: int, reserve: int, rounds: int, per_round: int
) -> None:
    state = GAME.setup(players, 11, Options())
    assert len(state.reserve) == reserve
    assert state.rounds == rounds and state.buildings_per_round == per_round
    assert len(state.row) == per_round
    assert len(state.building_deck) == rounds * per_round - per_round
    assert len(all_building_cards(state)) == 30
    assert len(state.nun_row) == 5
    assert all(len(hand) == 5 for hand in state.hands)
    assert len(state.deck) == 84 - 5 - 5 * players
    assert state.rats == (10,) * players
    assert state.phase == SUPPLIES and active_players(state) == tuple(range(players))


def test_the_population_deck_has_84_cards_with_the_printed_nuns() -> None:
    state = GAME.setup(4, 2, Options())
    cards = [*state.nun_row, *state.deck, *(c for h in state.hands for c in h)]
    assert len(cards) == 84
    assert Counter(c.split(":")[0] for c in cards) == {klass: 14 for klass in CLASSES}
    assert Counter(int(c.split(":")[1]) for c in cards) == {4: 24, 3: 12, 2: 12, 1: 12, 0: 24}


def test_the_start_player_is_drawn_at_random() -> None:
    starts = {GAME.setup(4, seed, Options()).start_player for seed in range(40)}
    assert starts == {0, 1, 2, 3}


def test_setup_is_deterministic_from_the_seed() -> None:
    config = SetupConfig(players=3, seed=99, options=msgspec.Raw(b'{"building_selection":"random_cards"}'))
    assert GAME.codec.encode_state(GAME.start(config)) == GAME.codec.encode_state(GAME.start(config))


def test_recommended_first_game_uses_five_copies_of_the_six_recommended_buildings() -> None:
    state = GAME.setup(4, 5, Options())
    counts = Counter(b for b, _ in all_building_cards(state))
    assert counts == {b: 5 for b in RECOMMENDED_BUILDINGS}


def test_only_the_special_cards_of_chosen_buildings_are_in_the_supply() -> None:
    state = GAME.setup(4, 5, Options())  # Castle but no Office, Piper's Hut or Treasury
    assert supply_of(state, SWORD) == 12
    assert (supply_of(state, FLUTE), supply_of(state, PASS), supply_of(state, GOLD)) == (0, 0, 0)
    assert supply_of(state, JOKER) == 15 and supply_of(state, VP_TOKEN) == 20


def test_random_buildings_takes_one_building_per_class_with_all_its_copies() -> None:
    seen: set[str] = set()
    for seed in range(12):
        state = GAME.setup(4, seed, Options(building_selection="random_buildings"))
        counts = Counter(b for b, _ in all_building_cards(state))
        assert sorted(BUILDING_CLASS[b] for b in counts) == sorted(CLASSES)
        assert set(counts.values()) == {5}
        seen |= set(counts)
    assert seen == set(BUILDING_CLASS)


def test_random_cards_takes_five_random_cards_of_each_class() -> None:
    mixed = False
    for seed in range(12):
        state = GAME.setup(4, seed, Options(building_selection="random_cards"))
        cards = all_building_cards(state)
        assert len(set(cards)) == 30
        assert Counter(BUILDING_CLASS[b] for b, _ in cards) == {klass: 5 for klass in CLASSES}
        mixed |= len({b for b, _ in cards}) > 6
    assert mixed


def test_random_selection_leaves_out_the_guard_tower_with_two_players() -> None:
    for mode in ("random_buildings", "random_cards"):
        for seed in range(10):
            state = GAME.setup(2, seed, Options(building_selection=mode))
            assert "guard_tower" not in {b for b, _ in all_building_cards(state)}


def test_the_guard_tower_can_be_allowed_with_two_players() -> None:
    options = Options(building_selection="random_buildings", allow_guard_tower_with_two=True)
    towers = {
        "guard_tower" in {b for b, _ in all_building_cards(GAME.setup(2, seed, options))}
        for seed in range(16)
    }
    assert towers == {True, False}


def test_an_explicit_list_of_six_buildings_uses_all_their_copies() -> None:
    chosen = ("brewery", "office", "hospital", "guard_tower", "pipers_hut", "treasury")
    state = GAME.setup(3, 4, Options(building_selection="explicit", buildings=chosen))
    assert Counter(b for b, _ in all_building_cards(state)) == {b: 5 for b in chosen}
    assert supply_of(state, PASS) == 12 and supply_of(state, FLUTE) == 12 and supply_of(state, GOLD) == 15
    assert supply_of(state, SWORD) == 0


def test_an_explicit_list_of_thirty_cards_may_mix_buildings_of_a_class() -> None:
    chosen = (
        ("farm",) * 3
        + ("brewery",) * 2
        + ("office",) * 5
        + ("monastery",) * 5
        + ("castle",) * 4
        + ("guard_tower",)
        + ("pipers_hut",) * 5
        + ("palace",) * 5
    )
    state = GAME.setup(4, 4, Options(building_selection="explicit", buildings=chosen))
    assert Counter(b for b, _ in all_building_cards(state)) == Counter(chosen)


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (4, Options(building_selection="explicit", buildings=("farm", "castle")), "list 6 buildings"),
        (4, Options(building_selection="explicit", buildings=("dragon_lair",) * 6), "unknown buildings"),
        (
            4,
            Options(
                building_selection="explicit",
                buildings=("farm", "brewery", "monastery", "castle", "palace", "pipers_hut"),
            ),
            "5 cards of each class",
        ),
        (
            2,
            Options(
                building_selection="explicit",
                buildings=("farm", "office", "monastery", "guard_tower", "palace", "pipers_hut"),
            ),
            "Guard Tower",
        ),
        (4, Options(buildings=("farm",)), "only read with"),
    ],
)
def test_bad_building_choices_are_refused_with_a_clear_error(
    players: int, options: Options, message: str
) -> None:
    with pytest.raises(SetupError, match=message):
        GAME.setup(players, 1, options)


def test_unknown_or_invalid_options_are_refused() -> None:
    for raw in (b'{"colour":"red"}', b'{"vp_token_value":0}', b'{"building_selection":"chaos"}'):
        with pytest.raises(SetupError):
            GAME.start(SetupConfig(players=3, seed=1, options=msgspec.Raw(raw)))


def test_one_and_six_players_cannot_play() -> None:
    for players in (1, 6):
        with pytest.raises(SetupError):
            GAME.start(SetupConfig(players=players, seed=1))
