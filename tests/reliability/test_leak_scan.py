"""The hidden-information leak scan: random playouts of every registered game through the gateway.

Everything sent to a seat or a spectator is collected: views, the events of its own actions,
the first results of repeated commands, the answers to another seat's command id, rejections of
bad actions, and Watch streams. Once the match ends (seats resign, which reveals the seed), the
scan rebuilds every state from the stored stream with the game's own rules and checks that:

- each view sent equals the rules' view for that viewer at that version, and each event sent
  equals the rules' redaction for that viewer: the gateway adds nothing of another seat's;
  (the rules' own views and redactions are proven to hide everything in the conformance suite:
  a view does not change when what its viewer cannot see is reshuffled);
- nothing sent before `match_ended` carries the seed, in hex, decimal or base64;
- nothing sent at all carries the generator's key;
- rejections are short (no unbounded echo of the input) and carry neither;
- on the way, actions the seat is not offered (once-legal ones, garbled ones) are rejected and
  leave the match at its version.

LEAK_SCAN_ACTIONS (default 30) sets how many actions each playout has before the seats resign.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest

from devstack.stack import Stack
from guildhall_client import AsyncClient
from guildhall_client.errors import CommandIdInUse, GatewayError, Rejected
from guildhall_client.types import Event
from services.kernel import Rng, SetupConfig
from services.registry import GAMES
from tests.reliability.gateway_helpers import Table, close_all, tenant_clients

ACTIONS = int(os.environ.get("LEAK_SCAN_ACTIONS", "30"))
GATEWAY_EVENTS = {"match_created", "match_ended", "seat_resigned", "turn_timed_out"}
MAX_MESSAGE = 1000  # a rejection longer than this echoes the input


@dataclass
class Sent:
    """Everything one viewer (a seat, or None for the public) was sent."""

    views: list[tuple[int, bytes]] = field(default_factory=list)  # (version, view JSON)
    events: list[tuple[int, str, bytes]] = field(default_factory=list)  # (version, type, JSON)
    messages: list[str] = field(default_factory=list)  # rejections and error details

    def add_events(self, events: list[Event]) -> None:
        self.events.extend((e.version, e.type, e.raw) for e in events)


def secret_forms(secret: bytes) -> list[bytes]:
    """How a secret could show up in JSON or text: hex, base64, and decimal when it is an int."""
    forms = [secret.hex().encode(), base64.b64encode(secret), base64.urlsafe_b64encode(secret)]
    forms.append(str(int.from_bytes(secret, "big")).encode())
    return [form.rstrip(b"=") for form in forms]


def generator_keys(state: Any) -> list[bytes]:
    return [
        getattr(state, name).key for name in state.__struct_fields__ if isinstance(getattr(state, name), Rng)
    ]


async def play_and_collect(
    tenant: AsyncClient, game: str, players: int, seed: int, actions: int = ACTIONS
) -> tuple[Table, dict[int | None, Sent]]:
    sent: dict[int | None, Sent] = {seat: Sent() for seat in range(players)}
    sent[None] = Sent()
    table = await Table.create(tenant, game, players, seed=seed)
    rng = random.Random(seed)
    last_command: dict[int, str] = {}
    seen_actions: list[bytes] = []
    for number in range(actions):
        move = await table.next_move()
        if move is None:
            break
        seat, view = move
        sent[seat].views.append((view.version, json.dumps(view.view).encode()))
        # Illegal actions (a garbled one, and actions once legal but not now for this seat) are
        # rejected, leave the match where it was, and their rejections are scanned too.
        legal_now = set(view.raw_legal_actions)
        illegal = [a for a in seen_actions[-50:] if a not in legal_now][:2]
        if number % 6 == 0:
            illegal.append(b'{"type": "no_such_action", "x": "' + b"A" * 5000 + b'"}')
        for bad in illegal:
            try:
                await table.submit(seat, bad)
            except (Rejected, GatewayError) as refusal:
                sent[seat].messages.append(str(refusal))
            else:
                raise AssertionError(f"seat {seat} was allowed an unlisted action {bad[:100]!r}")
        if illegal:
            assert (await tenant.get_view(table.match_id)).version == view.version, "a rejection wrote"
        seen_actions.extend(view.raw_legal_actions[:5])
        command_id = f"leak-{number}"
        action = rng.choice(view.raw_legal_actions)
        accepted = await table.submit(seat, action, command_id=command_id)
        sent[seat].add_events(accepted.events)
        last_command[seat] = command_id
        if number % 4 == 0:  # a repeated command: its first result, redacted for the caller
            again = await table.submit(seat, action, command_id=command_id)
            assert again.repeated
            sent[seat].add_events(again.events)
        if number % 5 == 0 and players > 1:  # another seat reusing the command id learns nothing
            thief = (seat + 1) % players
            with pytest.raises(CommandIdInUse) as refused:
                await table.submit(thief, action, command_id=command_id)
            sent[thief].messages.append(str(refused.value))
        public = await tenant.get_view(table.match_id)
        sent[None].views.append((public.version, json.dumps(public.view).encode()))

    # Resigning all seats but the last ends the match, which reveals the seed.
    for seat in range(players - 1):
        final = await tenant.get_view(table.match_id)
        if final.finished:
            break
        resigned = await table.seats[seat].resign(table.match_id, command_id=f"leave-{seat}")
        sent[seat].add_events(resigned.events)

    # Watch streams from the start, for every seat and a spectator.
    spectator = tenant.for_token(table.spectator_token)
    for viewer, client in [*enumerate(table.seats), (None, spectator)]:
        async for update in client.watch(table.match_id, 0, until_finished=True):
            sent[viewer].add_events(update.events)
            sent[viewer].views.append((update.view.version, json.dumps(update.view.view).encode()))
    return table, sent


def collect(stack: Stack, game: str, actions: int = ACTIONS) -> tuple[list[Any], dict[int | None, Sent]]:
    """Play one match of `game` (most seats) to its resignations; the stream and what was sent."""

    async def scenario() -> tuple[list[Any], dict[int | None, Sent]]:
        (tenant, other) = tenant_clients(stack, retries=3)
        try:
            players = max(GAMES[game].player_counts)
            table, sent = await play_and_collect(tenant, game, players, seed=len(game), actions=actions)
            return await tenant.read_events(table.match_id), sent
        finally:
            await close_all(tenant, other)

    return asyncio.run(scenario())


def find_leaks(game: str, stored: list[Any], sent: dict[int | None, Sent]) -> list[str]:
    """Every way what was sent differs from what its viewer may see (empty: no leak found)."""
    spec = GAMES[game]
    problems: list[str] = []
    created = json.loads(stored[0].payload)
    ended = [e for e in stored if e.type == "match_ended"]
    if not ended:
        return ["the match did not end, so its seed was never revealed"]
    end_version = ended[0].version
    seed = bytes.fromhex(json.loads(ended[0].payload)["seed"])
    if "seed" in created or len(seed) != 32:
        problems.append("match_created carries a seed, or the revealed seed is not 256 bits")

    # Rebuild each version's state from the stream with the game's own rules.
    options = msgspec.json.encode(created.get("options") or {})
    state = spec.start(SetupConfig(created["players"], int.from_bytes(seed, "big"), msgspec.Raw(options)))
    states: dict[int, Any] = {1: state}
    events: dict[int, Any] = {}
    keys: set[bytes] = set(generator_keys(state))
    for entry in stored[1:]:
        if entry.type not in GATEWAY_EVENTS:
            events[entry.version] = spec.codec.decode_event(entry.payload)
            state = spec.apply(state, events[entry.version])
            keys.update(generator_keys(state))
        states[entry.version] = state

    forbidden_always = [form for key in keys for form in secret_forms(key)]
    seed_forms = secret_forms(seed)
    codec = spec.codec
    for viewer, got in sent.items():
        who = "the spectator" if viewer is None else f"seat {viewer}"
        for version, view in got.views:
            expected = json.loads(codec.encode_json(spec.view(states[version], viewer)))
            if json.loads(view) != expected:
                problems.append(f"{who}'s view at v{version} is not the rules' view for it")
        for version, kind, payload in got.events:
            if kind in GATEWAY_EVENTS:
                if json.loads(payload) != json.loads(stored[version - 1].payload):
                    problems.append(f"{who} got an altered {kind} at v{version}")
            else:
                expected = json.loads(codec.encode_json(spec.redact_event(events[version], viewer)))
                if json.loads(payload) != expected:
                    problems.append(f"{who} got v{version} {kind} not redacted for it")
            if (version < end_version or kind != "match_ended") and any(f in payload for f in seed_forms):
                problems.append(f"{who} got the seed before the end in v{version} {kind}")
        sent_bytes = (
            [p for _, p in got.views] + [p for _, _, p in got.events] + [m.encode() for m in got.messages]
        )
        if any(form in item for item in sent_bytes for form in forbidden_always):
            problems.append(f"{who} was sent the generator's key")
        for message in got.messages:
            if len(message) >= MAX_MESSAGE:
                problems.append(f"{who} got an unbounded echo: {message[:80]}...")
            if any(form.decode() in message for form in seed_forms):
                problems.append(f"{who} got the seed in an error message")
    return problems


@pytest.mark.parametrize("game", sorted(GAMES))
def test_nothing_sent_to_a_seat_or_spectator_leaks_hidden_information(healthy: Stack, game: str) -> None:
    stored, sent = collect(healthy, game)
    assert sum(len(s.views) + len(s.events) for s in sent.values()) > ACTIONS  # the scan saw plenty
    assert find_leaks(game, stored, sent) == []


def test_the_scan_notices_an_unredacted_event_a_foreign_view_and_an_early_seed(healthy: Stack) -> None:
    """The scan can fail: plant what a leaky gateway would send and see each one named."""
    game = "rattus_cartus"
    stored, sent = collect(healthy, game, actions=8)
    assert find_leaks(game, stored, sent) == []
    # Seat 0 gets every stored entry as stored (cards drawn by others, unredacted).
    sent[0].events.extend((e.version, e.type, e.payload) for e in stored if e.type == "cards_drawn")
    # Seat 1 gets seat 0's view (its hand) as if it were its own.
    sent[1].views.append(sent[0].views[0])
    # The spectator gets the seed inside an error message, before the end.
    seed = json.loads(next(e for e in stored if e.type == "match_ended").payload)["seed"]
    sent[None].messages.append(f"debug: seed {seed}")
    problems = find_leaks(game, stored, sent)
    assert any(p.startswith("seat 0 got") and "not redacted" in p for p in problems), problems
    assert any(p.startswith("seat 1's view") for p in problems), problems
    assert "the spectator got the seed in an error message" in problems
