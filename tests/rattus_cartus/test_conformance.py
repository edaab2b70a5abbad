"""Beyond the registry's conformance suite (every player count and variant): many seeds end."""

from __future__ import annotations

from services.kernel.testing import random_playout
from services.rattus_cartus import GAME
from services.rattus_cartus.model import Options
from services.rattus_cartus.rules import VARIANTS


def test_random_playouts_reach_an_outcome_over_many_seeds() -> None:
    for seed in range(40):
        options = Options(building_selection="random_cards")
        playout = random_playout(GAME, 2 + seed % 4, seed, options)
        assert playout.outcome is not None


def test_every_selection_mode_and_optional_rule_is_a_registered_variant() -> None:
    modes = {options.building_selection for options in VARIANTS.values()}
    assert modes == {"recommended", "random_buildings", "random_cards", "explicit"}
    assert any(not o.simultaneous_supplies for o in VARIANTS.values())
    assert any(o.all_eliminated_lowest_rats_wins for o in VARIANTS.values())
    assert GAME.variants == VARIANTS
