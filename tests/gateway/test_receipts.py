"""Receipts and the key ring: what a receipt signs, how keys load, rotate and verify."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from gateway.domain.receipts import (
    Receipt,
    decode_receipt,
    encode_receipt,
    receipt_message,
    seed_commitment,
    seed_matches,
    snapshot_message,
)
from gateway.signing import KeyRing, KeyRingError


def test_a_receipt_signs_tenant_match_version_and_head_and_nothing_else_verifies() -> None:
    ring = KeyRing.generate("k1")
    message = receipt_message("acme", "m1", 7, "ab" * 32)
    key_id, signature = ring.sign(message)

    assert key_id == "k1" and ring.verify("k1", message, signature)
    for other in (
        receipt_message("acme2", "m1", 7, "ab" * 32),
        receipt_message("acme", "m2", 7, "ab" * 32),
        receipt_message("acme", "m1", 8, "ab" * 32),
        receipt_message("acme", "m1", 7, "cd" * 32),
    ):
        assert not ring.verify("k1", other, signature)
    assert not ring.verify("unknown", message, signature)
    assert not ring.verify("k1", message, bytes(64))


def test_fields_are_framed_so_shifting_bytes_between_them_changes_the_message() -> None:
    assert receipt_message("ab", "c", 1, "h") != receipt_message("a", "bc", 1, "h")


def test_the_published_public_key_verifies_a_receipt_outside_the_gateway() -> None:
    ring = KeyRing.generate("k1")
    message = receipt_message("acme", "m1", 1, "00" * 32)
    _, signature = ring.sign(message)
    (published,) = ring.public_keys()

    Ed25519PublicKey.from_public_bytes(published.public_key).verify(signature, message)  # raises if bad
    assert published.key_id == "k1" and len(published.public_key) == 32


def test_a_receipt_round_trips_through_its_stored_form_and_junk_does_not_decode() -> None:
    receipt = Receipt("k1", 3, "ff" * 32, b"s" * 64)
    assert decode_receipt(encode_receipt(receipt)) == receipt
    with pytest.raises(ValueError):
        decode_receipt(b"not a receipt")


def test_the_seed_commitment_is_sha256_of_the_domain_and_the_seed() -> None:
    import hashlib

    seed = bytes(range(32))
    assert seed_commitment(seed) == hashlib.sha256(b"guildhall-seed-v1" + seed).hexdigest()
    assert seed_matches(seed, seed_commitment(seed))
    assert not seed_matches(seed[:-1] + b"\x00", seed_commitment(seed))


def _write_key(directory: Path, key_id: str) -> Ed25519PrivateKey:
    KeyRing.write_new_key(directory, key_id)
    loaded = serialization.load_pem_private_key((directory / f"{key_id}.pem").read_bytes(), None)
    assert isinstance(loaded, Ed25519PrivateKey)
    return loaded


def test_the_lexicographically_last_key_signs_unless_a_file_names_the_active_one(tmp_path: Path) -> None:
    _write_key(tmp_path, "2026-01")
    _write_key(tmp_path, "2026-02")
    assert KeyRing.from_dir(tmp_path).active == "2026-02"

    (tmp_path / "active").write_text("2026-01\n")
    ring = KeyRing.from_dir(tmp_path)
    assert ring.active == "2026-01"
    assert [k.key_id for k in ring.public_keys()] == ["2026-01", "2026-02"]


def test_after_a_rotation_old_receipts_still_verify(tmp_path: Path) -> None:
    _write_key(tmp_path, "a")
    message = receipt_message("acme", "m1", 1, "00" * 32)
    key_id, signature = KeyRing.from_dir(tmp_path).sign(message)

    _write_key(tmp_path, "b")  # the new active key
    rotated = KeyRing.from_dir(tmp_path)
    assert rotated.active == "b" and rotated.sign(message)[0] == "b"
    assert rotated.verify(key_id, message, signature)


def test_a_retired_key_kept_as_public_only_still_verifies(tmp_path: Path) -> None:
    old = Ed25519PrivateKey.generate()
    message = receipt_message("acme", "m1", 1, "00" * 32)
    signature = old.sign(message)
    public_pem = old.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    (tmp_path / "old.pub.pem").write_bytes(public_pem)
    _write_key(tmp_path, "new")

    ring = KeyRing.from_dir(tmp_path)
    assert ring.active == "new"
    assert ring.verify("old", message, signature)
    assert {k.key_id for k in ring.public_keys()} == {"old", "new"}


def test_bad_key_directories_are_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(KeyRingError, match="not a directory"):
        KeyRing.from_dir(tmp_path / "missing")
    with pytest.raises(KeyRingError, match="no Ed25519 private key"):
        KeyRing.from_dir(tmp_path)
    (tmp_path / "junk.pem").write_text("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n")
    with pytest.raises(KeyRingError, match="junk.pem"):
        KeyRing.from_dir(tmp_path)
    (tmp_path / "junk.pem").unlink()
    _write_key(tmp_path, "k1")
    (tmp_path / "active").write_text("k9")
    with pytest.raises(KeyRingError, match="active key"):
        KeyRing.from_dir(tmp_path)


def test_a_key_file_is_never_overwritten(tmp_path: Path) -> None:
    KeyRing.write_new_key(tmp_path, "k1")
    with pytest.raises(FileExistsError):
        KeyRing.write_new_key(tmp_path, "k1")


def test_a_snapshot_mac_binds_the_state_to_its_match_and_head() -> None:
    ring = KeyRing.generate("k1")
    message = snapshot_message("acme", "m1", 4, "aa" * 32, "1", b"state")
    key_id, tag = ring.mac(message)

    assert ring.check_mac(key_id, message, tag)
    assert not ring.check_mac(key_id, snapshot_message("acme", "m2", 4, "aa" * 32, "1", b"state"), tag)
    assert not ring.check_mac(key_id, snapshot_message("acme", "m1", 4, "aa" * 32, "1", b"other"), tag)
    assert not KeyRing.generate("k1").check_mac(key_id, message, tag)  # another gateway's key
