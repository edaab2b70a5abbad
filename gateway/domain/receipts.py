"""Receipts: the gateway's signed word that a match reached a version with a given chain head.

Pure (stdlib + msgspec): the message format lives here so the gateway, auditors and clients
sign and verify exactly the same bytes; the keys live in `gateway.signing`.

A hash chain without a key proves nothing against whoever can write the store: a consistent
rewrite recomputes every hash. A receipt is an Ed25519 signature by a gateway key over
(tenant, match, version, head hash), kept in the stream entry it covers and handed to the
client that made the append, so a rewrite of any entry at or before `version` no longer
matches a receipt the rewriter cannot forge.
"""

from __future__ import annotations

import hashlib
import hmac

import msgspec

RECEIPT_DOMAIN = b"guildhall-receipt-v1"
SNAPSHOT_DOMAIN = b"guildhall-snapshot-v1"
SEED_DOMAIN = b"guildhall-seed-v1"


class Receipt(msgspec.Struct, frozen=True, gc=False):
    """A signature by key `key_id` over (tenant, match, version, head_hash)."""

    key_id: str
    version: int
    head_hash: str  # hex SHA-256 chain head after entry `version`
    signature: bytes  # Ed25519, 64 bytes


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Receipt)


def _framed(*fields: bytes) -> bytes:
    """Length-prefixed fields: no two different tuples share an encoding."""
    out = bytearray()
    for field in fields:
        out += len(field).to_bytes(8, "big")
        out += field
    return bytes(out)


def receipt_message(tenant: str, match_id: str, version: int, head_hash: str) -> bytes:
    """The exact bytes a receipt signs."""
    return RECEIPT_DOMAIN + _framed(
        tenant.encode(), match_id.encode(), str(version).encode(), head_hash.encode()
    )


def encode_receipt(receipt: Receipt) -> bytes:
    """As stored in the stream entry's `receipt` field."""
    return _ENCODER.encode(receipt)


def decode_receipt(data: bytes) -> Receipt:
    """Raises msgspec.DecodeError (a ValueError) for bytes that are not a receipt."""
    return _DECODER.decode(data)


def snapshot_message(
    tenant: str, match_id: str, version: int, head_hash: str, rules_version: str, state: bytes
) -> bytes:
    """What a snapshot's MAC covers: it binds the cached state to its match and chain head,
    so a snapshot copied from another match or left behind by a rewrite is never trusted."""
    return SNAPSHOT_DOMAIN + _framed(
        tenant.encode(),
        match_id.encode(),
        str(version).encode(),
        head_hash.encode(),
        rules_version.encode(),
        hashlib.sha256(state).digest(),
    )


def seed_commitment(seed: bytes) -> str:
    """The public commitment to a match seed, published at creation: sha256(domain + seed) hex."""
    return hashlib.sha256(SEED_DOMAIN + seed).hexdigest()


def seed_matches(seed: bytes, commitment: str) -> bool:
    """Whether a revealed seed is the one committed to (constant time)."""
    return hmac.compare_digest(seed_commitment(seed), commitment)
