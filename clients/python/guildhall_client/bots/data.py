"""The public card data some greedy bots read (Bruges' persons; Waterdeep's spaces, buildings,
quests and lords): the `catalog` of the game's `GetGameData` document, read by attribute
(`quest.requires.c`) as the rules package's own catalog is.

A bot sees what any client sees, so its data comes from the gateway: whoever plays bots over a
connection fetches the game's document once (`await fetch(client, game)`; bots/runner.py and the
command line do). Where the server's rules are installed and nothing was fetched (benchmarks and
the demo in process, the bot worker in the image) the game's catalog is taken from its rules
package, the same data.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from guildhall_client import errors

if TYPE_CHECKING:
    from guildhall_client.aio import AsyncClient

_FETCHED: dict[str, Any] = {}  # game -> its catalog as attributes


async def fetch(client: AsyncClient, game: str) -> None:
    """Read the game's data from the gateway once per process (GetGameData, cached per version
    by the client), for the bots that need it."""
    if game not in _FETCHED:
        try:
            document = (await client.game_data(game)).data
        except errors.NotFound:  # a game without data: its bots need none
            return
        if isinstance(document, dict) and "catalog" in document:
            _FETCHED[game] = as_attributes(document["catalog"])


def as_attributes(catalog: Any) -> Any:
    """A catalog as JSON gives it, readable by attribute like the rules package's own."""
    return json.loads(json.dumps(catalog), object_hook=lambda fields: SimpleNamespace(**fields))


def catalog(game: str) -> Any:
    """The game's catalog: fetched from a gateway, else its installed rules package's."""
    held = _FETCHED.get(game)
    if held is not None:
        return held
    try:
        from services.registry import GAMES
    except ModuleNotFoundError:
        raise LookupError(
            f"the greedy {game} bot reads the game's card data: fetch it from the gateway first "
            "(guildhall_client.bots.data.fetch), or install the rules (guildhall-client[rules])"
        ) from None
    return GAMES[game].data
