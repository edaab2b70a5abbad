"""Issue 41 item 4's RPC: Undo, a seat taking back its own last move (gateway/usecases/undo.py).

A method body `(servicer, request, context, principal)` that gateway/api/server.py attaches to
GatewayServicer under its `unary` wrapper, as it does gateway/api/integrations.py's.
"""

from __future__ import annotations

from typing import Any

from gateway.api import wire
from gateway.auth import Principal, denied


async def undo(servicer: Any, request: Any, context: Any, principal: Principal) -> Any:
    """Answers like SubmitAction: accepted (the action_undone event, its receipt) or a rejection.
    It spends the tenant's action quota: a take-back costs what an action does."""
    key = wire.match_key(principal, request.match_id)
    seat = wire.seat_of(principal)
    if principal.by_bot:  # its moves are never undoable anyway: a clear answer, not cannot_undo
        raise denied("Undo is the player's: the platform's bot worker cannot call it")
    command_id = wire.command_id(request.command_id)
    quota = servicer.ports.auth.tenant(principal.tenant).quotas.actions_per_second
    await servicer.ports.quotas.take_action(principal.tenant, quota)
    expected = request.expected_version if request.HasField("expected_version") else None
    outcome = await servicer.ports.matches.undo(key, seat, command_id=command_id, expected_version=expected)
    return await servicer._after_submit(key, outcome)


HANDLERS = {"Undo": undo}
