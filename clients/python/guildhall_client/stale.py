"""When a decision answered `stale_version` is sent again, in one place for `AsyncClient.submit`
and the Play stream (`PlayStream.submit`, which the CLI plays through).

Several seats deciding at once (Ys bids, Rattus Cartus supplies): another seat's action can land
between this seat's view and its action, which then names a version that is no longer the
match's latest. The action is sent again for the new version, with a command id derived from the
first (`<id>.1`, `<id>.2`, ... up to `MAX_RESUBMITS`), only when:
- the version it named was really overtaken (the match is past it),
- the same action is still among this seat's legal actions at the new version, and
- nobody but other seats acted in between: this seat's own action in between (another of its
  submits won the race) means its decision was already taken, so StaleVersion stands.
"""

from __future__ import annotations

import json
from typing import Any

MAX_RESUBMITS = 3


def canonical(value: Any) -> str:
    """Two actions are the same action when their sorted-key JSON is the same (an action given
    as JSON text or bytes is read first)."""
    if isinstance(value, bytes | bytearray | str):
        value = json.loads(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def resubmit_id(command_id: str, resubmits: int) -> str:
    """The command id of the `resubmits`-th resubmission (1, 2, ...) of `command_id`."""
    return f"{command_id}.{resubmits}"


async def still_decided(client: Any, match_id: str, action: Any, expected_version: int | None) -> int | None:
    """After a stale_version answer: the version to send `action` again for, or None when it must
    not be sent again (see the module). `client` is the seat's AsyncClient."""
    if expected_version is None:
        return None
    now = await client.get_view(match_id)
    if now.version <= expected_version:
        return None  # not overtaken: the version named was never the match's latest
    if not now.my_turn or canonical(action) not in {canonical(a) for a in now.legal_actions}:
        return None
    moved_by = {event.actor for event in await client.events(match_id, expected_version)}
    if now.seat in moved_by:
        return None  # this seat acted meanwhile: its decision was taken, not overtaken
    return int(now.version)
