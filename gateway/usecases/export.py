"""The export use case: a match as one self-contained file (gateway/domain/ghx.py) an auditor
verifies on their own machine, with no gateway, Redis or rules service (`guildhall verify`).

Decisions (question -> decision):
- Export or audit first? Export what the store holds, as it holds it, and let the verifier judge:
  a tampered match exports as tampered (an entry that does not even decode ends the file, its
  end line says why).
- Up to which version? The whole match, or the end of any append (a receipt signs an append's
  last entry: a file that stops inside an append could not be vouched for).
- The seed travels only once the stream holds match_ended (the stream's word, not meta's).
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.domain import ghx
from gateway.eventstore.base import MatchKey, StoredEvent
from gateway.eventstore.entries import readable_events
from gateway.usecases.audit import load_record
from gateway.usecases.results import InvalidRequest
from gateway.usecases.store import MatchStore


@dataclass(frozen=True)
class Exported:
    data: bytes  # the .ghx file
    version: int  # the last version in it
    finished: bool  # whether it holds match_ended


class ExportUseCases(MatchStore):
    """ExportMatch: the match as a .ghx file."""

    async def export(self, key: MatchKey, up_to_version: int | None = None) -> Exported:
        """The match (live or archived, in play or finished) up to `up_to_version` (None: all),
        which must end an append; InvalidRequest names the nearest versions that do."""
        record = await load_record(self, key)
        events, incomplete = readable_events(record.entries)
        if not events:
            raise InvalidRequest("the match has no entry that can be exported")
        last = len(events) if up_to_version is None else up_to_version
        if not 1 <= last <= len(events):
            raise InvalidRequest(f"the match has versions 1 to {len(events)}, not {up_to_version}")
        if last < len(events) and events[last - 1].command_id == events[last].command_id:
            first, end = _append_around(events, last)
            raise InvalidRequest(
                f"version {last} is inside the append of versions {first} to {end}: "
                f"export up to {first - 1} or {end}"
            )
        if last < len(events):
            incomplete = ""  # the file stops where it was asked to, not at a bad entry
        chosen = events[:last]
        keys = [ghx.PublicKeyLine(k.key_id, k.public_key.hex()) for k in self.keyring.public_keys()]
        header = ghx.header_of(
            record.key.tenant, record.key.match_id, record.meta, record.source, chosen, events,
            self.clock(), keys,
        )  # fmt: skip
        closing = ghx.EndLine(len(chosen), chosen[-1].hash, incomplete)
        data = ghx.encode(header, [ghx.event_line(e) for e in chosen], closing)
        return Exported(data, last, header.finished)


def _append_around(events: list[StoredEvent], version: int) -> tuple[int, int]:
    """The first and last version of the append that holds `version`."""
    command = events[version - 1].command_id
    first = version
    while first > 1 and events[first - 2].command_id == command:
        first -= 1
    last = version
    while last < len(events) and events[last].command_id == command:
        last += 1
    return first, last
