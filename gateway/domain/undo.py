"""Undo within a turn, as the gateway keeps it (issue 41 item 4). Pure.

A seat may take back its own moves until something is revealed, randomness is drawn, or another
seat acts (Board Game Arena's rule). The rules say the first two when they accept an action
(`Accepted.undoable`: services/kernel/undo.py); the gateway adds the third and keeps the truth in
the stream:

- `UndoStack`: the appends a seat may take back now, oldest first: its own consecutive actions
  the rules called undoable, since anyone else appended. An append by any other actor (another
  seat, the gateway on a seat's behalf when a timer ran out or a seat resigned, the gateway
  itself), an action the rules did not call undoable, or one that ends the match, empties it;
  an undo pops its top, so undoing again takes back the move before, under the same conditions.
- `action_undone` names the versions it takes back; nothing is deleted. A fold skips the entries
  taken back (`taken_back`): since every entry after a taken-back append is the same seat's and
  taken back too, skipping them gives the state before that append, exactly.

Decisions (question -> decision):
- Where is the stack kept? In the match's meta (`undo`), written by every append in the same
  atomic script, so any replica answers "may this seat undo?" with no rules call and no stream
  read. Like the snapshot it is a cache of what the stream says: the audit recomputes it by
  re-execution (gateway/domain/audit.py), and the Undo use case checks the stream itself before
  it appends (`stream_problem`), so a stale or forged stack can never undo another seat's move.
- May a seat take back a move once its turn has passed? Yes, until the next seat acts: what the
  others saw of the move was public or theirs to see anyway, and nothing they did depends on it.
- One undo takes back one append (one accepted action and the automatic flow it caused).
- May a returning player take back what the platform's bot played for their away seat (under
  the seat's own actor)? No, nor the move that took the seat back from the bot: only the
  player's own moves (`players_own`), read from the stream so the audit agrees.
- Across rules versions? A `rules_version_moved` is the gateway's append: it empties the stack,
  so a take-back always restores a state of the version the match plays under now.
- Does a take-back restart the turn clock? No: `action_undone` records when the decision it gives
  back was first asked (`asked_at`), and the clocks run from then; else moving and taking back
  again and again would hold a match past its turn timer forever.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

import msgspec

from gateway.domain.match import ACTION_UNDONE, ActionUndone, acting_seat, seat_actor
from gateway.eventstore.base import StoredEvent

# Moves one seat may take back in a row, at most (a bound on meta's size, far beyond any turn).
MAX_UNDO = 64


class UndoStack(msgspec.Struct, frozen=True):
    """The appends (first, last version) `seat` may take back now, oldest first."""

    seat: int = -1
    appends: tuple[tuple[int, int], ...] = ()

    def top(self, seat: int) -> tuple[int, int] | None:
        """The append `seat` would take back now, if any."""
        return self.appends[-1] if self.appends and seat == self.seat else None

    def after(self, actor: str, first: int, last: int, undoable: bool) -> UndoStack:
        """The stack after `actor` appended versions `first` to `last`; `undoable`: the rules
        called the action undoable and it did not end the match."""
        seat = acting_seat(actor)  # -1 for the gateway, also when it acts on a seat's behalf
        if not undoable or seat < 0:
            return NOTHING
        kept = self.appends if seat == self.seat else ()
        return UndoStack(seat, (*kept, (first, last))[-MAX_UNDO:])

    def popped(self) -> UndoStack:
        rest = self.appends[:-1]
        return UndoStack(self.seat, rest) if rest else NOTHING


NOTHING = UndoStack()
_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(UndoStack)
_UNDONE = msgspec.json.Decoder(ActionUndone)


def encode_stack(stack: UndoStack) -> str:
    """Meta's `undo` field: "" when nothing may be taken back."""
    return _ENCODER.encode(stack).decode() if stack.appends else ""


def decode_stack(text: str | None) -> UndoStack:
    """Meta's `undo` field; nothing may be taken back when it is absent or does not parse."""
    if not text:
        return NOTHING
    try:
        return _DECODER.decode(text)
    except msgspec.DecodeError:
        return NOTHING


def undone(entry: StoredEvent) -> ActionUndone | None:
    """The take-back an entry records, or None (another kind of entry, or one that does not parse)."""
    if entry.type != ACTION_UNDONE:
        return None
    try:
        return _UNDONE.decode(entry.payload)
    except msgspec.DecodeError:
        return None


def taken_back(entries: Iterable[StoredEvent]) -> set[int]:
    """The versions the action_undone entries among `entries` take back."""
    versions: set[int] = set()
    for entry in entries:
        record = undone(entry)
        if record is not None:
            versions.update(range(record.first_version, record.last_version + 1))
    return versions


def asked_at(entry: StoredEvent) -> int:
    """When the decisions owed just after `entry` were asked: its time, or for a take-back the
    time the decisions it gave back were first asked."""
    record = undone(entry)
    return record.asked_ms if record is not None and record.asked_ms else entry.time_ms


def players_own(seat: int, away: Collection[int], bot_seats: Collection[int]) -> bool:
    """Whether an accepted action of `seat` is its player's own move, the only kind a take-back
    may give back: not the platform's bot playing a bot seat or an away seat (it acts under the
    seat's own actor: a returning player must never take back the bot's moves), nor the move by
    which an away seat's player took the seat back (its seat_returned is the gateway's record,
    and the bot has left). `away`: the away seats before the append. The gateway and the audit
    both read this from the stream, so they agree on every take-back."""
    return seat not in away and seat not in bot_seats


def undo_problem(stack: UndoStack, actor: str, record: ActionUndone) -> str:
    """Why `actor` may not append this take-back where the stack is `stack` ("" if it may)."""
    if actor != seat_actor(record.seat):
        return f"a take-back of seat {record.seat}'s move appended by {actor!r}"
    target = stack.top(record.seat)
    if target is None:
        return f"seat {record.seat} has no move it may take back here"
    if target != (record.first_version, record.last_version):
        return (
            f"seat {record.seat} may take back versions {target[0]}-{target[1]} here, "
            f"not {record.first_version}-{record.last_version}"
        )
    return ""


def stream_problem(entries: Sequence[StoredEvent], seat: int, first: int, last: int) -> str:
    """Why the stream from version `first` on does not let `seat` take back `first`-`last` (""
    if it does): the append must be the seat's own action, and everything after it the same
    seat's moves and take-backs (so nobody else has acted since)."""
    actor = seat_actor(seat)
    if not entries or entries[0].version != first or not entries[0].action:
        return f"version {first} does not begin an action of seat {seat}"
    if any(e.version <= last and e.command_id != entries[0].command_id for e in entries):
        return f"versions {first}-{last} are not one append"
    if any(e.actor != actor for e in entries):
        return "another seat has acted since"
    return ""


# What a seat with nothing to take back is told. The same words whatever the reason: whether
# another seat's last move may be taken back is that seat's business.
REFUSAL = (
    "You have no move to take back: your last move revealed something or was left to chance, "
    "or another player (or the turn timer) has acted since."
)
