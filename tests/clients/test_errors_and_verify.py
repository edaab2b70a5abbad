"""Typed errors, receipt and seed verification: the parts of the client that need no gateway."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import get_args

import grpc
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gateway.domain import receipts
from gateway.domain.receipts import receipt_message
from guildhall_client import errors, verify
from guildhall_client.types import Event, Receipt
from guildhall_client.verify import seed_commitment, verify_events, verify_receipt, verify_seed
from services.kernel.rejection import CODES


def test_every_rejection_code_has_its_own_exception_class():
    for code in CODES:
        error = errors.rejection(code, "no")
        assert type(error) is not errors.Rejected, code
        assert error.code == code and isinstance(error, errors.Rejected)


def test_both_clients_name_every_known_rejection_code_in_their_types():
    assert set(get_args(errors.KnownRejectionCode)) == set(CODES) == set(errors.REJECTIONS)
    errors_ts = (Path(__file__).resolve().parents[2] / "clients" / "web" / "src" / "errors.ts").read_text()
    union = errors_ts.split("export type KnownRejectionCode =", 1)[1].split(";", 1)[0]
    assert set(re.findall(r'"(\w+)"', union)) == set(CODES)
    # ... and keep the type open to codes a later gateway may send.
    assert "export type RejectionCode = KnownRejectionCode | (string & {});" in errors_ts


def test_a_code_the_client_does_not_know_is_still_a_rejection_with_that_code():
    error = errors.rejection("some_future_code", "later")
    assert type(error) is errors.Rejected and error.code == "some_future_code" and error.message == "later"


class _FakeRpcError(grpc.RpcError):
    def __init__(self, status, details="", trailing=()):
        self._status, self._details, self._trailing = status, details, trailing

    def code(self):
        return self._status

    def details(self):
        return self._details

    def trailing_metadata(self):
        return self._trailing


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (grpc.StatusCode.UNAUTHENTICATED, errors.Unauthenticated),
        (grpc.StatusCode.PERMISSION_DENIED, errors.PermissionDenied),
        (grpc.StatusCode.NOT_FOUND, errors.NotFound),
        (grpc.StatusCode.INVALID_ARGUMENT, errors.InvalidArgument),
        (grpc.StatusCode.ABORTED, errors.Conflict),
        (grpc.StatusCode.UNAVAILABLE, errors.Unavailable),
        (grpc.StatusCode.DEADLINE_EXCEEDED, errors.DeadlineExceeded),
        (grpc.StatusCode.INTERNAL, errors.GatewayError),
    ],
)
def test_grpc_statuses_become_typed_errors(status, cls):
    error = errors.from_rpc_error(_FakeRpcError(status, "why"))
    assert type(error) is cls and error.status == status and error.details == "why"


def test_quota_errors_carry_the_gateways_retry_hint():
    error = errors.from_rpc_error(
        _FakeRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down", (("retry-after-ms", "250"),))
    )
    assert isinstance(error, errors.QuotaExceeded) and error.retry_after_s == 0.25
    assert errors.from_rpc_error(_FakeRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED)).retry_after_s is None


def _signed(key: Ed25519PrivateKey, key_id: str, tenant: str, match: str, version: int, head: str) -> Receipt:
    signature = key.sign(receipt_message(tenant, match, version, head))
    return Receipt(key_id, version, head, signature, tenant, match)


def _raw(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def test_a_receipt_verifies_with_the_published_key_it_names_and_nothing_else():
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    receipt = _signed(key, "k1", "acme", "m1", 7, "ab" * 32)
    assert verify_receipt(receipt, {"k1": _raw(key)})
    assert not verify_receipt(receipt, {"k1": _raw(other)})  # wrong key under that id
    assert not verify_receipt(receipt, {"k2": _raw(key)})  # unknown key id
    for changed in (
        Receipt("k1", 8, receipt.head_hash, receipt.signature, "acme", "m1"),
        Receipt("k1", 7, "cd" * 32, receipt.signature, "acme", "m1"),
        Receipt("k1", 7, receipt.head_hash, receipt.signature, "other", "m1"),
        Receipt("k1", 7, receipt.head_hash, receipt.signature, "acme", "m2"),
    ):
        assert not verify_receipt(changed, {"k1": _raw(key)})


def test_the_seed_commitment_is_sha256_of_the_domain_and_the_seed():
    seed = bytes(range(32))
    assert seed_commitment(seed) == hashlib.sha256(b"guildhall-seed-v1" + seed).hexdigest()
    assert verify_seed(seed.hex(), seed_commitment(seed))
    assert verify_seed(int.from_bytes(seed, "big"), seed_commitment(seed))
    assert not verify_seed(bytes(32).hex(), seed_commitment(seed))
    assert not verify_seed("not hex", seed_commitment(seed))


@pytest.mark.parametrize(
    "fields",
    [
        ("acme", "m1", 7, "ab" * 32),
        ("", "", 0, ""),
        ("tenant with spaces", "mm-é-ü-🎲", 2**40, "ff" * 32),
        ("a" * 300, "b" * 70, 1, "0"),  # longer than one length byte could say
        ("ab", "c", 1, "x"),  # the same characters split elsewhere: another message
        ("a", "bc", 1, "x"),
    ],
)
def test_the_client_signs_and_hashes_exactly_the_gateways_bytes(fields):
    """The client carries the contract's formats itself (it installs without the server): they are
    the gateway's, byte for byte."""
    assert verify.receipt_message(*fields) == receipts.receipt_message(*fields)
    seed = "".join(map(str, fields)).encode()
    assert verify.seed_commitment(seed) == receipts.seed_commitment(seed)
    assert verify_seed(seed.hex(), receipts.seed_commitment(seed))


def test_verify_events_checks_every_receipt_and_the_revealed_seed():
    key = Ed25519PrivateKey.generate()
    keys = {"k1": _raw(key)}
    seed = b"\x07" * 32
    good = _signed(key, "k1", "acme", "m1", 2, "11" * 32)
    forged = Receipt("k1", 3, "22" * 32, b"\x00" * 64, "acme", "m1")
    events = [
        Event(1, "match_created", -1, {"seed_commitment": seed_commitment(seed)}, 0, None),
        Event(2, "supply_chosen", 0, {"player": 0}, 0, good),
        Event(3, "supply_chosen", 1, {"player": 1}, 0, forged),
        Event(4, "match_ended", -1, {"seed": seed.hex()}, 0, None),
    ]
    result = verify_events(events, keys, match_id="m1")
    assert result.receipts_checked == 2 and result.bad_receipts == [3]
    assert result.seed_revealed and result.seed_ok and not result.ok
    # The same events with a wrong revealed seed fail the seed check.
    lying = [*events[:3], Event(4, "match_ended", -1, {"seed": (b"\x08" * 32).hex()}, 0, None)]
    assert verify_events(lying, keys).seed_ok is False
    # A receipt for another match does not vouch for this one.
    assert verify_events(events[:2], keys, match_id="m9").bad_receipts == [2]


def test_a_stream_torn_down_by_the_transport_is_resumed_but_a_server_bug_is_not() -> None:
    import grpc

    from guildhall_client.errors import stream_broken

    def rpc_error(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
        return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details)

    assert stream_broken(rpc_error(grpc.StatusCode.INTERNAL, "Internal error from Core"))
    assert stream_broken(rpc_error(grpc.StatusCode.INTERNAL, "Received RST_STREAM with error code 2"))
    assert stream_broken(rpc_error(grpc.StatusCode.UNAVAILABLE, "Socket closed"))
    assert not stream_broken(
        rpc_error(grpc.StatusCode.INTERNAL, "internal error in Play; the server log has details")
    )
    assert not stream_broken(rpc_error(grpc.StatusCode.PERMISSION_DENIED, "not your match"))
