"""The rulebook's worked examples (SEED) and the fact sheet's play-log examples (FS 8.3-8.4)."""

from __future__ import annotations

from services.ankh_morpork.model import (
    Assassinate,
    Build,
    BuildingPlaced,
    ChooseArea,
    ChooseCard,
    ChooseMinion,
    ChoosePlayer,
    Frame,
    GameEnded,
    Interrupted,
    MinionPlaced,
    MoveMinion,
    PersonalitiesSeen,
    PlaceMinion,
    PlayCard,
    PlayInterrupt,
    RemoveTrouble,
    Scroll,
    Skip,
    TakeMoney,
)
from tests.ankh_morpork.helpers import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    dice,
    legal,
    minions_at,
    of_type,
    play,
    put,
    run,
    table,
    top,
)

FILLER = ["groat", "dwarves", "ruby", "hex"]


def test_seed_placement_from_dolly_sisters_reaches_its_neighbours_over_the_bridges() -> None:
    state = table(hands={RED: ["groat", *FILLER[1:]]}, minions={1: {RED: 1}})
    state, _ = play(state, RED, PlayCard("groat"))
    assert {a.area for a in legal(state, RED) if isinstance(a, PlaceMinion)} == {1, 2, 3, 12}


def test_seed_building_example_only_nap_hill_is_possible() -> None:
    state = table(
        hands={RED: ["the_watch", *FILLER]},
        minions={1: {RED: 1}, 11: {RED: 1}, 12: {RED: 1, YELLOW: 3}},
        trouble=[1],
        buildings={11: YELLOW},
        money=[20, 10, 10],
    )
    state, _ = play(state, RED, PlayCard("the_watch"))
    assert [a for a in legal(state, RED) if isinstance(a, Build)] == [Build(12)]
    state, events = play(state, RED, Build(12))
    assert of_type(events, BuildingPlaced) == [BuildingPlaced(RED, 12, 12)]
    assert state.money[RED] == 8 and state.buildings[11] == RED


def test_seed_placing_in_an_occupied_area_adds_a_trouble_marker() -> None:
    state = table(hands={RED: ["groat", *FILLER[1:]]}, minions={8: {YELLOW: 1, RED: 1}})
    state, events = run(state, (RED, PlayCard("groat")), (RED, PlaceMinion(8)))
    assert of_type(events, MinionPlaced)[0].trouble and state.trouble[7]


def test_seed_treasurer_example_event_first_then_the_swap_then_another_card() -> None:
    """The Bursar: random event (mandatory, first), then the scroll, then play another card."""
    state = table(hands={RED: ["the_bursar", *FILLER]}, minions={1: {RED: 1}, 5: {YELLOW: 1}}, trouble=[])
    state = put(state, events_deck=("riots", *[e for e in state.events_deck if e != "riots"]))
    state, events = play(state, RED, PlayCard("the_bursar"))
    assert state.events_done == ("riots",)
    assert Scroll() in legal(state, RED)
    state, _ = run(state, (RED, Scroll()), (RED, ChooseMinion(1, RED)), (RED, ChooseMinion(5, YELLOW)))
    assert minions_at(state, 5, RED) == 1 and minions_at(state, 1, YELLOW) == 1
    assert PlayCard("groat") in legal(state, RED)


def test_mr_boggis_takes_two_from_each_and_only_what_a_poor_player_has() -> None:
    state = table(4, hands={RED: ["mr_boggis", *FILLER]}, money=[0, 5, 5, 1])
    state, _ = run(state, (RED, PlayCard("mr_boggis")), (RED, Scroll()))
    assert state.money == (5, 3, 3, 0)


def test_mrs_cake_shows_three_unused_personalities_with_three_players_and_two_with_four() -> None:
    for players, shown in ((3, 3), (4, 2)):
        state = table(players, hands={RED: ["mrs_cake", *FILLER]})
        state, events = run(state, (RED, PlayCard("mrs_cake")), (RED, Scroll()))
        seen = of_type(events, PersonalitiesSeen)[0]
        assert seen.count == shown and set(seen.cards) < set(state.unused_personalities)


def test_opera_house_pays_a_dollar_per_minion_in_isle_of_gods() -> None:
    # no money to build: the building symbol lapses by itself
    state = table(
        hands={RED: ["opera_house", *FILLER]}, minions={10: {RED: 1, YELLOW: 2, GREEN: 1}}, money=[0, 0, 0]
    )
    state, _ = run(state, (RED, PlayCard("opera_house")), (RED, Scroll()))
    assert state.money[RED] == 4


def test_the_dysk_with_two_minions_in_isle_of_gods_pays_two() -> None:
    state = table(hands={RED: ["the_dysk", *FILLER]}, minions={10: {RED: 1, YELLOW: 1}}, money=[0, 0, 0])
    state, _ = run(state, (RED, PlayCard("the_dysk")), (RED, Scroll()))
    assert state.money[RED] == 2


def test_mr_slant_on_isle_of_gods_with_four_minions_pays_eight() -> None:
    state = table(
        hands={RED: ["mr_slant", *FILLER]},
        minions={10: {RED: 2, YELLOW: 2}, 1: {RED: 1}},
        trouble=[10],
        money=[0, 0, 0],
    )
    state, _ = run(state, (RED, PlayCard("mr_slant")), (RED, Scroll()), (RED, ChooseArea(10)))
    assert state.money[RED] == 8


def test_rincewind_draws_riots_with_fewer_than_eight_trouble_markers_and_play_goes_on() -> None:
    state = table(hands={RED: ["rincewind", *FILLER]}, minions={7: {RED: 1}}, trouble=[7])
    state = put(state, events_deck=("riots", *[e for e in state.events_deck if e != "riots"]))
    state, events = play(state, RED, PlayCard("rincewind"))
    assert not of_type(events, GameEnded) and not state.over and top(state).kind == "card"


def test_wallace_sonky_cancels_the_beggars_guild_text_but_the_minion_is_still_placed() -> None:
    state = table(
        hands={RED: ["beggars_guild", *FILLER], YELLOW: ["wallace_sonky", "hex", "dwarves"]},
        minions={1: {RED: 1}},
    )
    state, _ = run(state, (RED, PlayCard("beggars_guild")), (RED, Scroll()), (RED, ChoosePlayer(YELLOW)))
    assert state.stack[-1].kind == "interrupt" and state.stack[-1].player == YELLOW
    state, events = play(state, YELLOW, PlayInterrupt("wallace_sonky"))
    assert of_type(events, Interrupted)[0].card == "wallace_sonky"
    assert state.hands[YELLOW] == ("hex", "dwarves")
    state, _ = play(state, RED, PlaceMinion(2))
    assert minions_at(state, 2, RED) == 1


def test_foul_ole_ron_moving_a_minion_into_occupied_isle_of_gods_makes_trouble() -> None:
    state = table(hands={RED: ["foul_ole_ron", *FILLER]}, minions={5: {YELLOW: 1}, 10: {GREEN: 1}})
    state, _ = run(
        state,
        (RED, PlayCard("foul_ole_ron")),
        (RED, Scroll()),
        (RED, ChooseMinion(5, YELLOW)),
        (RED, ChooseArea(10)),
    )
    assert minions_at(state, 10, YELLOW) == 1 and state.trouble[9]


def test_mr_pin_and_mr_tulip_in_dimwell_remove_the_minion_and_the_trouble_then_take_one() -> None:
    state = table(
        hands={RED: ["mr_pin_and_mr_tulip", *FILLER]},
        minions={8: {YELLOW: 1, RED: 1}},
        trouble=[8],
        money=[0, 0, 0],
    )
    state, _ = run(state, (RED, PlayCard("mr_pin_and_mr_tulip")), (RED, Assassinate(8, YELLOW)))
    assert minions_at(state, 8, YELLOW) == 0 and not state.trouble[7]
    state, _ = play(state, RED, TakeMoney())
    assert state.money[RED] == 1


def test_captain_carrot_places_in_longwall_removes_that_trouble_and_takes_a_dollar() -> None:
    state = table(
        hands={RED: ["captain_carrot", *FILLER]}, minions={9: {YELLOW: 1}, 8: {RED: 1}}, money=[0, 0, 0]
    )
    state, _ = run(state, (RED, PlayCard("captain_carrot")), (RED, PlaceMinion(9)))
    assert state.trouble[8]
    state, _ = run(state, (RED, RemoveTrouble(9)), (RED, TakeMoney()))
    assert not state.trouble[8] and state.money[RED] == 1


def test_flood_on_dolly_sisters_and_the_shades_moves_minions_out() -> None:
    state = table(
        hands={RED: ["rincewind", *FILLER]}, minions={7: {RED: 1, YELLOW: 1}, 3: {RED: 1}}, trouble=[7]
    )
    state = put(state, events_deck=("flood", *[e for e in state.events_deck if e != "flood"]))
    state = dice(state, 1, 7)
    state, _ = play(state, RED, PlayCard("rincewind"))
    assert top(state).kind == "flood" and top(state).player == RED
    assert legal(state, RED) == [MoveMinion(7, 5), MoveMinion(7, 6), MoveMinion(7, 8)]
    state, _ = play(state, RED, MoveMinion(7, 8))
    state, _ = play(state, YELLOW, MoveMinion(7, 5))
    assert minions_at(state, 7, RED) == minions_at(state, 7, YELLOW) == 0
    assert not state.trouble[6]


def test_the_peeled_nuts_do_nothing() -> None:
    state = table(hands={RED: ["peeled_nuts", *FILLER]})
    before = (state.minions, state.money, state.trouble, state.buildings)
    state, _ = play(state, RED, PlayCard("peeled_nuts"))
    assert (state.minions, state.money, state.trouble, state.buildings) == before
    assert "peeled_nuts" in state.discard and state.current == YELLOW


def test_death_needs_one_interrupt_per_assassination() -> None:
    """FAQ: one Gaspode stops one of DEATH's two assassinations."""
    state = table(
        hands={RED: ["death", *FILLER], YELLOW: ["gaspode", "hex"]},
        minions={5: {YELLOW: 1}, 7: {YELLOW: 1}, 1: {RED: 1}},
        trouble=[5, 7],
    )
    state, _ = run(
        state, (RED, PlayCard("death")), (RED, Assassinate(5, YELLOW)), (YELLOW, PlayInterrupt("gaspode"))
    )
    assert minions_at(state, 5, YELLOW) == 1
    state, _ = play(state, RED, Assassinate(7, YELLOW))
    assert minions_at(state, 7, YELLOW) == 0


def test_drumknott_plays_two_cards_each_resolved_in_full() -> None:
    state = table(
        hands={RED: ["drumknott", "groat", "pink_pussy_cat_club", "hex"]},
        minions={1: {RED: 1}},
        money=[0, 0, 0],
    )
    state, _ = run(
        state, (RED, PlayCard("drumknott")), (RED, Scroll()), (RED, PlayCard("pink_pussy_cat_club"))
    )
    state, _ = run(state, (RED, TakeMoney()), (RED, Skip()))  # its own 'play another' declined
    assert top(state).kind == "play_two"
    state, _ = run(state, (RED, PlayCard("groat")), (RED, PlaceMinion(2)))
    assert state.money[RED] == 3 and minions_at(state, 2, RED) == 1
    assert {"drumknott", "pink_pussy_cat_club", "groat"} <= set(state.discard)


def test_a_turn_ends_with_a_refill_to_five_and_the_next_seat_starts() -> None:
    state = table(hands={RED: ["pink_pussy_cat_club", "hex"]})
    deck_top = state.deck[:4]
    state, _ = run(state, (RED, PlayCard("pink_pussy_cat_club")), (RED, TakeMoney()), (RED, Skip()))
    assert state.hands[RED] == ("hex", *deck_top) and state.current == YELLOW
    assert state.stack == (Frame(kind="turn", player=YELLOW),)


def test_with_more_than_five_cards_nothing_is_drawn_or_discarded() -> None:
    hand = ["pink_pussy_cat_club", "hex", "groat", "ruby", "dwarves", "modo", "errol"]
    state = table(hands={RED: hand})
    state, _ = run(state, (RED, PlayCard("pink_pussy_cat_club")), (RED, TakeMoney()), (RED, Skip()))
    assert len(state.hands[RED]) == 6


__all__ = ["BLUE", "ChooseCard"]


def test_the_listed_placements_are_exactly_those_the_placement_rule_allows() -> None:
    """With minions spread at random (all 12 out on every other try), the listing offered for
    the M symbol equals the rule checked area by area (and source by source)."""
    import msgspec

    from services.ankh_morpork.board import placement_ok, placements, supply
    from services.ankh_morpork.rules import RULES
    from services.kernel import Rng

    cursor = Rng.from_seed(5).cursor()
    base = table()
    areas = tuple(range(1, 13))
    for trial in range(300):
        counts = [0] * 12
        for _ in range(12 if trial % 2 else cursor.randbelow(13)):
            counts[cursor.randbelow(12)] += 1
        state = msgspec.structs.replace(base, minions=tuple((c, 0, 0) for c in counts))
        if supply(state, RED):
            expected = [PlaceMinion(a) for a in areas if placement_ok(RULES.t, state, RED, a)]
        else:
            sources = [a for a in areas if counts[a - 1]]
            expected = [
                PlaceMinion(a, f) for a in areas for f in sources if placement_ok(RULES.t, state, RED, a, f)
            ]
        assert placements(RULES.t, state, RED, areas, True) == expected
