"""An archived match's blob (`.ghz`, `guildhall-archive-v1`): the format gateway/archive.py writes
and reads, and what `guildhall verify` reads offline (issue 43: as it reads a `.ghx` export).

Pure (stdlib, msgspec, zstandard, the entry format): the gateway and the client library share it.

Blob: zstd-compressed msgpack of `{"format", "tenant", "match_id", "meta", "commands",
"entries"}` where `entries` is the stream in order, each entry a map of its raw Redis fields
(entry format 1 or 2, as the stream held it: gateway.eventstore.entries decodes both).
"""

from __future__ import annotations

import msgspec
import zstandard

from gateway.domain import ghx
from gateway.eventstore.base import AuditReport, StoredEvent, audit_events
from gateway.eventstore.entries import decode_entries, readable_events

FORMAT = "guildhall-archive-v1"
SUFFIX = ".ghz"
ZSTD_LEVEL = 10  # archives are written once and read rarely: favour size


class ArchiveError(Exception):
    """The match could not be archived (Redis still holds it unchanged), or a blob is not one."""


class ArchivedMatch(msgspec.Struct, frozen=True):
    format: str
    tenant: str
    match_id: str
    meta: dict[str, str]
    commands: dict[str, str]
    entries: list[dict[str, bytes]]

    @property
    def version(self) -> int:
        return int(self.meta.get("version", 0))

    def raw_entries(self) -> list[tuple[bytes, dict[bytes, bytes]]]:
        """The entries as a stream read gives them, numbered from 1 as the stream's ids were."""
        return [
            (f"{n}-0".encode(), {name.encode(): value for name, value in fields.items()})
            for n, fields in enumerate(self.entries, start=1)
        ]

    def events(self) -> list[StoredEvent]:
        """The entries decoded in order (format 1 or 2: gateway.eventstore.entries)."""
        return decode_entries(self.raw_entries())

    def audit(self) -> AuditReport:
        return audit_events(self.events(), self.version, self.meta.get("head_hash", ""))


def encode(match: ArchivedMatch) -> bytes:
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(msgspec.msgpack.encode(match))


def decode(blob: bytes) -> ArchivedMatch:
    """ArchiveError when the blob is not an archived match (not zstd, not the format, cut short)."""
    try:
        match = msgspec.msgpack.decode(zstandard.ZstdDecompressor().decompress(blob), type=ArchivedMatch)
    except (zstandard.ZstdError, msgspec.DecodeError) as error:
        raise ArchiveError(f"not an archived match: {error}") from None
    if match.format != FORMAT:
        raise ArchiveError(f"unknown archive format {match.format!r}")
    return match


def as_export(match: ArchivedMatch, public_keys: list[ghx.PublicKeyLine]) -> bytes:
    """The archived match as a `.ghx` file (gateway/domain/ghx.py), for the verifier: its header
    claims what the archive recorded (the version and chain head of its meta), so a blob whose
    stream was cut or edited fails as an export would. A blob carries no public keys: the
    caller gives the operator's published ones."""
    events, incomplete = readable_events(match.raw_entries())
    if not events:
        raise ArchiveError(f"{match.tenant}/{match.match_id}: the archive holds no entry that decodes")
    header = ghx.header_of(
        match.tenant, match.match_id, match.meta, "archive", events, events, 0, public_keys
    )
    header = msgspec.structs.replace(
        header,
        version=match.version,
        head_hash=match.meta.get("head_hash", ""),
        match_version=match.version,
    )
    end = ghx.EndLine(len(events), events[-1].hash, incomplete)
    return ghx.encode(header, [ghx.event_line(e) for e in events], end)
