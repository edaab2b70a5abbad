"""The match export file (`.ghx`, format version 1): one match, self-contained, for auditors who
verify it on their own machine (`guildhall verify match.ghx`).

Pure (stdlib + msgspec): the gateway writes it (ExportMatch), the client library reads it, and
its JSON Schema (`line_schema`) is published as schemas/export/ghx_line.schema.json so anyone can
write a verifier of their own.

JSON Lines, UTF-8, one JSON object per line, `kind` naming what the line is:

    line 1      header: the match (tenant, id, game, rules version and data digest, players,
                seed commitment, the seed once the match has ended), the gateway's public
                keys by id, and the version and chain head the file reaches
    line 2..    event: one stream entry per line, versions 1, 2, 3, ... in order, every field
                the chain hashes, plus the seat's action and the gateway's receipt
    last line   end: how many events the file holds and its head: a file cut short lacks it

Decisions (question -> decision):
- Why lines? A file cut short still parses up to the cut, so a verifier names the first version
  it lost; a malformed line names its own version.
- Payloads and actions are strings holding the stored JSON text exactly: the chain hashes those
  bytes (their UTF-8), and re-encoding a parsed object could change them.
- The seed is in the file only once the match has ended (match_ended reveals it anyway): before,
  it would let whoever holds the file foresee every card still to be drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from gateway.domain.match import MATCH_ENDED, MatchCreated
from gateway.domain.receipts import Receipt, decode_receipt, encode_receipt
from gateway.eventstore.base import StoredEvent

FORMAT = "guildhall-match-export"
FORMAT_VERSION = 1
MEDIA_TYPE = "application/vnd.guildhall.match-export+jsonl"
SUFFIX = ".ghx"


class PublicKeyLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A receipt key of the gateway that exported the file: its id and raw Ed25519 public key (hex)."""

    key_id: str
    ed25519: str


class ReceiptLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The gateway's receipt on the last entry of an append: an Ed25519 signature (hex) by key
    `key_id` over b"guildhall-receipt-v1" and tenant, match id, version and head hash, each
    preceded by its length as 8 big-endian bytes."""

    key_id: str
    version: int
    head_hash: str
    signature: str


class Header(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="header", tag_field="kind"):
    """Line 1: what the file holds."""

    format: str
    format_version: int
    tenant: str
    match_id: str
    game_id: str
    # The rules version the match began under (match_created's): the edition, "+", the digest.
    # `data_digest` is that digest, named before issue 40 made it cover the code as well as the
    # data (docs/versions.md); a moved match names its later versions in its entries.
    rules_version: str
    edition: str
    data_digest: str
    players: list[str]
    # sha256(b"guildhall-seed-v1" + seed), hex, as published in match_created.
    seed_commitment: str
    # The match seed (64 hex digits) once the match has ended; null while it is in play.
    seed: str | None
    created_ms: int
    # Whether match_ended is in the file.
    finished: bool
    # The last version in the file and the chain head after it.
    version: int
    head_hash: str
    # The match's version when it was exported (an export may stop earlier).
    match_version: int
    # "live" (Redis) or "archive".
    source: str
    exported_ms: int
    public_keys: list[PublicKeyLine]


class EventLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="event", tag_field="kind"):
    """One stream entry: what the chain hashes (version, type, actor, command id, rules version,
    time, payload, chained by prev_hash to the entry before), the action that caused its append
    (on the append's first entry) and the gateway's receipt (on its last)."""

    version: int
    type: str
    actor: str
    command_id: str
    payload: str
    rules_version: str
    time_ms: int
    prev_hash: str
    hash: str
    action: str | None = None
    receipt: ReceiptLine | None = None


class EndLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="end", tag_field="kind"):
    """The last line: the events the file holds and its chain head."""

    events: int
    head_hash: str
    # Why the export stopped before the header's match_version, when a stored entry did not
    # decode ("" otherwise).
    incomplete: str = ""


Line = Header | EventLine | EndLine

_ENCODER = msgspec.json.Encoder()
_HEADER = msgspec.json.Decoder(Header)
_BODY = msgspec.json.Decoder(EventLine | EndLine)


class GhxProblem(msgspec.Struct, frozen=True):
    """Where a file stops being readable: the first version it cannot vouch for (0: the header)."""

    version: int
    reason: str


@dataclass
class Parsed:
    """A file as far as it reads: the header, the events in order, the end line, and the first
    problem (None when the whole file reads)."""

    header: Header | None
    events: list[EventLine]
    end: EndLine | None
    problem: GhxProblem | None


def line_schema() -> dict[str, Any]:
    """The JSON Schema every line of a .ghx file follows (one of header, event, end)."""
    schema: dict[str, Any] = msgspec.json.schema(Line)
    return schema


def encode(header: Header, events: list[EventLine], end: EndLine) -> bytes:
    lines = [_ENCODER.encode(header), *(_ENCODER.encode(e) for e in events), _ENCODER.encode(end)]
    return b"\n".join(lines) + b"\n"


def header_of(
    tenant: str,
    match_id: str,
    meta: dict[str, str],
    source: str,
    chosen: list[StoredEvent],
    events: list[StoredEvent],
    exported_ms: int,
    public_keys: list[PublicKeyLine],
) -> Header:
    """The header of a file holding `chosen`, the first versions of the match's `events`, with
    what its meta says; the match's own words (match_created, match_ended) first."""
    try:
        created: MatchCreated | None = msgspec.json.decode(chosen[0].payload, type=MatchCreated)
    except msgspec.DecodeError:
        created = None
    rules_version = created.rules_version if created is not None else chosen[0].rules_version
    edition, _, digest = rules_version.partition("+")
    try:
        players = msgspec.json.decode(meta.get("players", ""), type=list[str])
    except msgspec.DecodeError:
        players = list(created.player_ids) if created is not None else []
    ended = any(e.type == MATCH_ENDED for e in events)
    created_ms = meta.get("created_ms", "")
    return Header(
        format=FORMAT,
        format_version=FORMAT_VERSION,
        tenant=tenant,
        match_id=match_id,
        game_id=created.game_id if created is not None else meta.get("game", ""),
        rules_version=rules_version,
        edition=edition,
        data_digest=digest,
        players=players,
        seed_commitment=created.seed_commitment if created is not None else meta.get("seed_commitment", ""),
        seed=meta.get("seed") if ended else None,
        created_ms=int(created_ms) if created_ms.isdigit() else 0,
        finished=any(e.type == MATCH_ENDED for e in chosen),
        version=len(chosen),
        head_hash=chosen[-1].hash,
        match_version=len(events),
        source=source,
        exported_ms=exported_ms,
        public_keys=public_keys,
    )


def event_line(event: StoredEvent) -> EventLine:
    """A stored entry as a file line (bytes that are not UTF-8 are replaced: the chain check
    then fails at that version, as it should for an entry the gateway never wrote)."""
    receipt = None
    if event.receipt:
        try:
            decoded = decode_receipt(event.receipt)
            receipt = ReceiptLine(decoded.key_id, decoded.version, decoded.head_hash, decoded.signature.hex())
        except (msgspec.DecodeError, ValueError):
            receipt = ReceiptLine("", 0, "", event.receipt.hex())  # kept, and fails its check
    return EventLine(
        version=event.version,
        type=event.type,
        actor=event.actor,
        command_id=event.command_id,
        payload=event.payload.decode(errors="replace"),
        rules_version=event.rules_version,
        time_ms=event.time_ms,
        prev_hash=event.prev_hash,
        hash=event.hash,
        action=event.action.decode(errors="replace") if event.action else None,
        receipt=receipt,
    )


def stored_event(line: EventLine) -> StoredEvent:
    """A file line as the stored entry it stands for (what the audit's checks read)."""
    receipt = b""
    if line.receipt is not None:
        try:
            signature = bytes.fromhex(line.receipt.signature)
        except ValueError:
            receipt = b"\xc1"  # never a receipt: the receipt check says it does not decode
        else:
            r = line.receipt
            receipt = encode_receipt(Receipt(r.key_id, r.version, r.head_hash, signature))
    return StoredEvent(
        version=line.version,
        type=line.type,
        actor=line.actor,
        command_id=line.command_id,
        payload=line.payload.encode(),
        rules_version=line.rules_version,
        time_ms=line.time_ms,
        prev_hash=line.prev_hash,
        hash=line.hash,
        action=line.action.encode() if line.action is not None else b"",
        receipt=receipt,
    )


def parse(data: bytes) -> Parsed:
    """Read a file as far as it goes; the first problem names the first version it loses."""
    lines = data.split(b"\n")
    cut = bool(lines) and lines[-1] != b""  # no newline at the end: the last line may be cut
    if not cut:
        lines.pop()
    if not lines or not lines[0].strip():
        return Parsed(None, [], None, GhxProblem(0, "the file is empty"))
    try:
        header = _HEADER.decode(lines[0])
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as error:
        return Parsed(None, [], None, GhxProblem(0, f"line 1 is not a match export header: {_short(error)}"))
    if header.format != FORMAT:
        return Parsed(
            None, [], None, GhxProblem(0, f"line 1 names format {header.format[:64]!r}, not {FORMAT}")
        )
    if header.format_version != FORMAT_VERSION:
        reason = f"the file is format version {header.format_version}; this verifier reads {FORMAT_VERSION}"
        return Parsed(None, [], None, GhxProblem(0, reason))
    events: list[EventLine] = []
    end: EndLine | None = None
    for number, raw in enumerate(lines[1:], start=2):
        version = len(events) + 1
        if end is not None:
            return Parsed(header, events, end, GhxProblem(version, f"line {number} follows the end line"))
        try:
            line = _BODY.decode(raw)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as error:
            last = number == len(lines) and cut
            reason = (
                f"the file is cut short inside version {version} (line {number})"
                if last
                else f"line {number} (version {version}) is malformed: {_short(error)}"
            )
            return Parsed(header, events, None, GhxProblem(version, reason))
        if isinstance(line, EndLine):
            end = line
        else:
            events.append(line)
    if end is None:
        reason = f"the file ends after version {len(events)} without its end line: it was cut short"
        return Parsed(header, events, None, GhxProblem(len(events) + 1, reason))
    if end.events != len(events):
        reason = f"the end line counts {end.events} events, the file holds {len(events)}"
        return Parsed(header, events, end, GhxProblem(min(end.events, len(events)) + 1, reason))
    return Parsed(header, events, end, None)


def _short(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text if len(text) <= 160 else text[:157] + "..."
