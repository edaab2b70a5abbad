"""How a client presents this game to a person: decisions, event descriptions, board places, the
kinds of ids in its JSON and the sections of its view (services/kernel/present.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.kernel.present import (
    Decision,
    Description,
    Place,
    Presentation,
    plain_decision,
    plain_description,
)
from services.rattus_cartus import game_data


def decision(state: Any, seat: int, actions: Sequence[Any]) -> Decision:
    return plain_decision(state, seat, actions)


def describe(event: Any, viewer: int | None) -> Description:
    return plain_description(event, viewer)


def places(catalog: Any) -> Sequence[Place]:
    return ()


PRESENTATION = Presentation(
    decision=decision,
    describe=describe,
    components=game_data.components,
    places=places,
)
