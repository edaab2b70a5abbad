"""Each game's types, generated from its published JSON Schemas (schemas/<game>/).

`guildhall_client.games.ys` and the others hold TypedDicts for the game's actions (`Action`, a union
discriminated by `type`), events (`Event`), views (`View`), match options (`Options`), outcome,
game data, rejections, and the shared `Decision` and `Description`. The client hands views and
events back as decoded JSON (dicts), so these type them without converting anything:

    from typing import cast
    from guildhall_client.games import ys

    view = cast(ys.View, (await seat.get_view(match_id)).view)
    action: ys.Action = {"type": "place_broker", "place": "harbour", "value": 2, "face_up": True}
    await seat.submit(match_id, action)       # mypy checks `action` against the game's actions

Regenerate after `make schemas` with `python -m guildhall_client.games.generate`; a test fails
when a module differs from the generator's output.
"""

GAMES = ("ankh_morpork", "bruges", "rattus_cartus", "waterdeep", "ys")
