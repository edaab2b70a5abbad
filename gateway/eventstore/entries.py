"""How an event is stored in its Redis stream entry: format 2 (written), format 1 (still read).

Format 2, written since issue 25 item 4 (one field per entry, a compact binary record):

    XADD gh:{<tenant>:<match>}:events <version>-0 e <msgpack array>

    an append's first entry:   [type, payload, hash, action, receipt,
                                actor, command_id, rules_version, time_ms]
    the entries after it:      [type, payload, hash]  (+ action, receipt when it has them)

      type     "" when the payload begins with `{"type":"<type>"` (JSON events do): read there
      hash     the entry's chain hash as 32 raw bytes (SHA-256), not 64 hex characters
      action   the seat's action JSON (first entry of a seat's append), b"" when absent
      receipt  on the last entry of a gateway append: [key_id, signature] when it is the
               receipt of exactly this entry's version and hash (rebuilt byte for byte on
               read: gateway.domain.receipts.encode_receipt), else the receipt bytes as given;
               b"" when absent

Decisions (question -> decision):
- What does an entry leave out? What its neighbours already say: the version is the entry id
  (`<version>-0`), the prev_hash is the previous entry's hash, an append's actor, command id,
  rules version and time are on its first entry only, a receipt's version and head hash are the
  entry's own, the type is the payload's first member. The chain hash (base.chain_hash) is
  computed exactly as before over the same values, so hashes, receipts and exports do not change
  with the format.
- What does a reader need besides the entries it wants? The entry before them (its hash), and,
  when they start inside an append, that append's first entry: a read from version v reads from
  v itself, and goes further back (READ_BACK entries, doubling) only when v is inside an append,
  which the gateway's reads never are (they start where an append or a snapshot ended).
- Why not leave the rules version to the match's meta? An entry would then decode only with
  the meta beside it; on an append's first entry it costs ~8 bytes per event, and Redis bytes
  per stored event fell to under half without it (docs/performance.md).
- One field, always named `e`: a stream node stores the field names of its first entry once and
  only the values of every entry with the same names, so the name costs nothing per entry.
- Format 1 (nine named fields `version, type, actor, command_id, payload, rules_version, time_ms,
  prev_hash, hash`, hex hashes, plus `action` and `receipt`) is what streams and archives written
  before hold: `EntryDecoder` reads both, in one stream mixed (an old match appended to now).

Pure (stdlib + msgspec + the receipt format): the stores, the audit, the export and the archive
decode entries through this one module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import msgspec

from gateway.domain.receipts import Receipt, decode_receipt, encode_receipt
from gateway.eventstore.base import GENESIS, StoredEvent

# Format 1: the fields of an entry, in the order the store wrote them.
ENTRY_FIELDS: Final = (
    "version",
    "type",
    "actor",
    "command_id",
    "payload",
    "rules_version",
    "time_ms",
    "prev_hash",
    "hash",
)
# Format 2: the one field of an entry.
ENTRY_FIELD: Final = "e"
_ENTRY_FIELD_BYTES = ENTRY_FIELD.encode()
# Fields stored beside the chain (not hashed): what `extra` may name.
EXTRA_FIELDS: Final = frozenset({"action", "receipt"})
# prev_hash of an entry whose predecessor a reader did not see (it is missing from the stream).
UNKNOWN_PREV: Final = ""


class MalformedEntry(Exception):
    """A stream entry unlike what the store writes: wrong id, missing or undecodable field."""


_ENCODER = msgspec.msgpack.Encoder()
_RAW = msgspec.msgpack.Decoder()
# A first entry's length; a continuation has 3 to 5 elements.
_FULL = 9


class NeedsContext(MalformedEntry):
    """A continuation entry (the append's later entries) read without the entry before it."""


def encode_entry(
    version: int,
    type: str,
    actor: str,
    command_id: str,
    rules_version: str,
    time_ms: int,
    payload: bytes,
    entry_hash: str,
    extra: Mapping[str, bytes] | None = None,
    *,
    continues: bool = False,
) -> bytes:
    """The format-2 value of an entry's `e` field; `continues`: the entry after another of the
    same append (same actor, command id, rules version and time), which it does not repeat.
    ValueError for a hash that is not 64 hex characters or an extra field other than `action`
    and `receipt`."""
    try:
        raw_hash = bytes.fromhex(entry_hash)
    except ValueError:
        raw_hash = b""
    if len(raw_hash) != 32:
        raise ValueError(f"an entry hash is 64 hex characters, got {entry_hash!r}")
    action: bytes = b""
    receipt: bytes | tuple[str, bytes] = b""
    if extra:
        unknown = set(extra) - EXTRA_FIELDS
        if unknown:
            raise ValueError(f"an entry holds no {sorted(unknown)} beside the chain: only action, receipt")
        action = extra.get("action", b"")
        if extra.get("receipt"):
            receipt = _compact_receipt(extra["receipt"], version, entry_hash)
    # An event type is never empty (base.check_append_arguments): "" says "as the payload begins".
    kind = "" if payload.startswith(_TYPE_PREFIX + type.encode() + b'"') and _plain(type) else type
    if not continues:
        return _ENCODER.encode(
            (kind, payload, raw_hash, action, receipt, actor, command_id, rules_version, time_ms)
        )
    if receipt:
        return _ENCODER.encode((kind, payload, raw_hash, action, receipt))
    if action:
        return _ENCODER.encode((kind, payload, raw_hash, action))
    return _ENCODER.encode((kind, payload, raw_hash))


# A payload that begins `{"type":"<type>"` says the event's type (JSON events do): not repeated.
_TYPE_PREFIX = b'{"type":"'


def _plain(type: str) -> bool:
    """A type JSON writes as it is between its quotes (so the payload's prefix gives it back)."""
    return type.isprintable() and '"' not in type and "\\" not in type


def _type_from_payload(payload: bytes) -> str:
    end = payload.find(b'"', len(_TYPE_PREFIX))
    if not payload.startswith(_TYPE_PREFIX) or end < 0:
        raise MalformedEntry("entry leaves its type to a payload that does not begin with it")
    try:
        return payload[len(_TYPE_PREFIX) : end].decode()
    except UnicodeDecodeError as error:
        raise MalformedEntry(f"entry does not decode: {error}") from None


def _compact_receipt(receipt: bytes, version: int, entry_hash: str) -> bytes | tuple[str, bytes]:
    """[key_id, signature] when the entry's version and hash rebuild `receipt` exactly."""
    try:
        parsed = decode_receipt(receipt)
    except (msgspec.DecodeError, ValueError):
        return receipt
    if parsed.version != version or parsed.head_hash != entry_hash or encode_receipt(parsed) != receipt:
        return receipt
    return (parsed.key_id, parsed.signature)


def entry_version(entry_id: bytes) -> int:
    """The version an entry id `<version>-0` names; MalformedEntry for any other id."""
    number, dash, sequence = entry_id.partition(b"-")
    if not (dash and sequence == b"0" and number.isdigit()):
        raise MalformedEntry(f"entry id {entry_id.decode(errors='replace')} is not <version>-0")
    return int(number)


# What a first entry says for the whole append: actor, command id, rules version, time.
_Append = tuple[str, str, str, int]


def _parse(blob: bytes) -> tuple[str, bytes, bytes, bytes, bytes | list[Any], _Append | None]:
    """A format-2 value's parts (its append's values None for a continuation); MalformedEntry."""
    try:
        values = _RAW.decode(blob)
    except msgspec.DecodeError as error:
        raise MalformedEntry(f"entry does not decode: {error}") from None
    if not isinstance(values, list) or not (3 <= len(values) <= 5 or len(values) == _FULL):
        raise MalformedEntry("entry is not a format-2 record")
    values += [b""] * (5 - len(values))
    kind, payload, raw_hash, action, receipt = values[:5]
    append: _Append | None = None
    if len(values) == _FULL:
        append = (values[5], values[6], values[7], values[8])
        if not all(isinstance(v, str) for v in append[:3]) or not isinstance(append[3], int):
            raise MalformedEntry("entry's actor, command id, rules version or time is of the wrong type")
    if not (
        isinstance(kind, str)
        and isinstance(payload, bytes)
        and isinstance(raw_hash, bytes)
        and len(raw_hash) == 32
        and isinstance(action, bytes)
        and (isinstance(receipt, bytes) or _is_compact_receipt(receipt))
    ):
        raise MalformedEntry("entry's type, payload, hash, action or receipt is of the wrong type")
    return kind, payload, raw_hash, action, receipt, append


def _is_compact_receipt(receipt: object) -> bool:
    return (
        isinstance(receipt, list)
        and len(receipt) == 2
        and isinstance(receipt[0], str)
        and isinstance(receipt[1], bytes)
    )


class EntryDecoder:
    """Decodes a stream's entries in order, either format, carrying from the entry before what a
    format-2 entry leaves out: its hash (the prev_hash) and, for a continuation, the append's
    actor, command id, rules version and time. Start it with the hash before the first entry it
    will see (GENESIS from the stream's start; None when unknown: a format-2 entry after a
    version > 1 then gets UNKNOWN_PREV, which no chain check accepts, and a continuation raises
    NeedsContext)."""

    __slots__ = ("append", "prev_hash")

    def __init__(self, prev_hash: str | None = GENESIS) -> None:
        self.prev_hash = prev_hash
        self.append: _Append | None = None

    def decode(self, entry_id: bytes, fields: Mapping[bytes, bytes]) -> StoredEvent:
        blob = fields.get(_ENTRY_FIELD_BYTES)
        event = _format_1(fields) if blob is None else self._format_2(entry_version(entry_id), blob)
        self.prev_hash = event.hash
        self.append = (event.actor, event.command_id, event.rules_version, event.time_ms)
        return event

    def skip(self, entry_id: bytes, fields: Mapping[bytes, bytes]) -> None:
        """Take what the next entries need from an entry the caller does not want."""
        try:
            self.decode(entry_id, fields)
        except NeedsContext:  # a continuation: its hash is still the next one's prev_hash
            self.prev_hash = _parse(fields[_ENTRY_FIELD_BYTES])[2].hex()
            self.append = None

    def _format_2(self, version: int, blob: bytes) -> StoredEvent:
        type, payload, raw_hash, action, receipt, append = _parse(blob)
        if append is None:
            append = self.append
            if append is None or version == 1:
                raise NeedsContext(f"entry {version} continues an append whose first entry was not read")
        actor, command_id, rules_version, time_ms = append
        entry_hash = raw_hash.hex()
        if not type:
            type = _type_from_payload(payload)
        if isinstance(receipt, list):
            key_id, signature = receipt
            receipt = encode_receipt(Receipt(key_id, version, entry_hash, signature))
        prev_hash = self.prev_hash if self.prev_hash is not None else UNKNOWN_PREV
        if version == 1:
            prev_hash = GENESIS
        return StoredEvent(
            version=version,
            type=type,
            actor=actor,
            command_id=command_id,
            payload=payload,
            rules_version=rules_version,
            time_ms=time_ms,
            prev_hash=prev_hash,
            hash=entry_hash,
            action=action,
            receipt=receipt,
        )


def _format_1(fields: Mapping[bytes, bytes]) -> StoredEvent:
    try:
        return StoredEvent(
            version=int(fields[b"version"]),
            type=fields[b"type"].decode(),
            actor=fields[b"actor"].decode(),
            command_id=fields[b"command_id"].decode(),
            payload=fields[b"payload"],
            rules_version=fields[b"rules_version"].decode(),
            time_ms=int(fields[b"time_ms"]),
            prev_hash=fields[b"prev_hash"].decode(),
            hash=fields[b"hash"].decode(),
            action=fields.get(b"action", b""),
            receipt=fields.get(b"receipt", b""),
        )
    except KeyError as missing:
        raise MalformedEntry(f"entry lacks the field {missing.args[0]!r}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise MalformedEntry(f"entry does not decode: {error}") from None


def decode_entries(
    entries: Iterable[tuple[bytes, Mapping[bytes, bytes]]], prev_hash: str | None = GENESIS
) -> list[StoredEvent]:
    """Entries (id, fields) in stream order, from the stream's start unless `prev_hash` says
    which hash comes before the first."""
    decoder = EntryDecoder(prev_hash)
    return [decoder.decode(entry_id, fields) for entry_id, fields in entries]


def readable_events(
    entries: Iterable[tuple[bytes, Mapping[bytes, bytes]]],
) -> tuple[list[StoredEvent], str]:
    """A stream's entries decoded from its start up to the first that does not decode, and why
    that one does not ("" when every entry decodes): what an export of the match holds."""
    decoder = EntryDecoder()
    events: list[StoredEvent] = []
    for position, (entry_id, fields) in enumerate(entries, start=1):
        try:
            events.append(decoder.decode(entry_id, fields))
        except MalformedEntry as error:
            return events, f"entry {position} does not decode: {error}"
    return events, ""


def decode_after(
    entries: Iterable[tuple[bytes, Mapping[bytes, bytes]]], after_version: int, start: int | None = None
) -> list[StoredEvent]:
    """The events after `after_version` of an XRANGE that starts at version `start` (default:
    at `after_version`): the entries up to `after_version` are read only for what the next ones
    leave out (their hash, an append's values). NeedsContext when the first event wanted
    continues an append that starts before `start`: read again from further back."""
    start = after_version if start is None else start
    decoder = EntryDecoder(GENESIS if start <= 0 else None)
    events: list[StoredEvent] = []
    for entry_id, fields in entries:
        if events or entry_version_or_zero(entry_id) > after_version:
            events.append(decoder.decode(entry_id, fields))
        else:
            decoder.skip(entry_id, fields)
    return events


def entry_version_or_zero(entry_id: bytes) -> int:
    try:
        return entry_version(entry_id)
    except MalformedEntry:
        return 0


def read_start(start: int) -> str:
    """Where an XRANGE for the events after version `start` starts: at it, for its hash."""
    return f"{max(start, 1)}-0"


def read_count(after_version: int, limit: int | None, start: int | None = None) -> int | None:
    """The COUNT of an XRANGE from `read_start(start)` (default: `after_version`) for at most
    `limit` events after `after_version`: `limit` plus the entries read for context."""
    if limit is None:
        return None
    start = after_version if start is None else start
    return limit + max(after_version - max(start, 1) + 1, 0)


# How far back a read goes, doubling, for the first entry of an append it starts inside of.
READ_BACK = 16


def fields_of(event: StoredEvent, format: int = 2) -> dict[bytes, bytes]:
    """An event as the fields of its stream entry (names as redis-py returns them), in format 2
    or format 1: what tests and tools that edit raw entries write back."""
    if format == 2:
        extra = {name: blob for name, blob in (("action", event.action), ("receipt", event.receipt)) if blob}
        value = encode_entry(
            event.version, event.type, event.actor, event.command_id, event.rules_version,
            event.time_ms, event.payload, event.hash, extra,
        )  # fmt: skip
        return {_ENTRY_FIELD_BYTES: value}
    if format != 1:
        raise ValueError(f"entry formats are 1 and 2, not {format}")
    fields = {
        b"version": str(event.version).encode(),
        b"type": event.type.encode(),
        b"actor": event.actor.encode(),
        b"command_id": event.command_id.encode(),
        b"payload": event.payload,
        b"rules_version": event.rules_version.encode(),
        b"time_ms": str(event.time_ms).encode(),
        b"prev_hash": event.prev_hash.encode(),
        b"hash": event.hash.encode(),
    }
    if event.action:
        fields[b"action"] = event.action
    if event.receipt:
        fields[b"receipt"] = event.receipt
    return fields
