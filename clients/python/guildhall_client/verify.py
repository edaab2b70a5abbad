"""Local checks anyone can run: receipts against the gateway's published keys, and a revealed
seed against the commitment published when the match was created.

The bytes signed and hashed are the contract's (docs/clients.md, "Verify it yourself"), written
here as the TypeScript client writes them (clients/web/src/verify.ts): the client installs
without the server, and tests/clients/test_errors_and_verify.py holds both to the gateway's own
definitions (gateway/domain/receipts.py), so none of the three can drift.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from guildhall_client.types import Event, Receipt

__all__ = [
    "Verification",
    "receipt_message",
    "seed_commitment",
    "verify_events",
    "verify_receipt",
    "verify_seed",
]

RECEIPT_DOMAIN = b"guildhall-receipt-v1"
SEED_DOMAIN = b"guildhall-seed-v1"


def receipt_message(tenant: str, match_id: str, version: int, head_hash: str) -> bytes:
    """The exact bytes a receipt signs: the domain, then each field as its UTF-8 bytes behind an
    8-byte big-endian length (no two tuples share an encoding)."""
    fields = (tenant, match_id, str(version), head_hash)
    return RECEIPT_DOMAIN + b"".join(len(f.encode()).to_bytes(8, "big") + f.encode() for f in fields)


def seed_commitment(seed: bytes) -> str:
    """The public commitment to a match seed, published at creation: sha256(domain + seed) hex."""
    return hashlib.sha256(SEED_DOMAIN + seed).hexdigest()


def verify_receipt(receipt: Receipt, keys: Mapping[str, bytes]) -> bool:
    """Whether `receipt` is a valid signature by the published key it names (unknown key: False)."""
    raw = keys.get(receipt.key_id)
    if raw is None:
        return False
    message = receipt_message(receipt.tenant, receipt.match_id, receipt.version, receipt.head_hash)
    try:
        Ed25519PublicKey.from_public_bytes(raw).verify(receipt.signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def seed_bytes(seed: Any) -> bytes:
    """A revealed seed as bytes: hex text (what `match_ended` carries) or a 256-bit integer."""
    if isinstance(seed, bytes):
        return seed
    if isinstance(seed, int):
        return seed.to_bytes(32, "big")
    if isinstance(seed, str):
        return bytes.fromhex(seed)
    raise ValueError(f"a seed is hex text or an integer, not {type(seed).__name__}")


def verify_seed(seed: Any, commitment: str) -> bool:
    """Whether the revealed `seed` is the one committed to: sha256(b"guildhall-seed-v1" + seed)."""
    try:
        return hmac.compare_digest(seed_commitment(seed_bytes(seed)), commitment)
    except ValueError:
        return False


@dataclass
class Verification:
    """What a client could check of a match from the events it was given."""

    receipts_checked: int = 0
    bad_receipts: list[int] = field(default_factory=list)  # versions whose receipt failed
    seed_commitment: str = ""
    seed_revealed: bool = False
    seed_ok: bool | None = None  # None until the match ended and revealed its seed

    @property
    def ok(self) -> bool:
        return not self.bad_receipts and self.seed_ok is not False


def _find(data: Any, key: str) -> Any:
    """A field of an event's JSON, at the top or one level down (e.g. {"match_ended": {...}})."""
    if isinstance(data, dict):
        if key in data:
            return data[key]
        for value in data.values():
            if isinstance(value, dict) and key in value:
                return value[key]
    return None


def verify_events(
    events: Iterable[Event], keys: Mapping[str, bytes], *, tenant: str = "", match_id: str = ""
) -> Verification:
    """Check every receipt among `events` and, once the seed is revealed, the seed commitment."""
    result = Verification()
    for event in events:
        if event.receipt is not None:
            result.receipts_checked += 1
            r = event.receipt
            bound = (not tenant or r.tenant == tenant) and (not match_id or r.match_id == match_id)
            if not bound or r.version != event.version or not verify_receipt(r, keys):
                result.bad_receipts.append(event.version)
        commitment = _find(event.data, "seed_commitment")
        if commitment:
            result.seed_commitment = str(commitment)
        seed = _find(event.data, "seed") if event.type != "match_created" else None
        if seed is not None and seed != "":
            result.seed_revealed = True
            result.seed_ok = bool(result.seed_commitment) and verify_seed(seed, result.seed_commitment)
    return result
