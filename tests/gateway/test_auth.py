"""Identity: API keys stored hashed, signed expiring seat tokens, the tenants file, the key tool."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest

from gateway import auth
from gateway.auth import (
    AUDITOR,
    SCOPES,
    SEAT,
    SPECTATOR,
    TENANT,
    Authenticator,
    AuthError,
    TenantsError,
    Tokens,
    hash_key,
    load_tenants,
    new_api_key,
    parse_tenants,
)
from gateway.signing import KeyRing

KEY_A = "ghk_tenant-a-key-for-tests-only-00000000000000"
KEY_A_OLD = "ghk_tenant-a-old-key-for-tests-only-000000000"
AUDIT_A = "ghk_tenant-a-auditor-for-tests-only-000000000"


def tenants_document() -> dict[str, object]:
    return {
        "tenants": {
            "acme": {
                "keys": [
                    {"id": "new", "sha256": hash_key(KEY_A), "scopes": ["tenant"]},
                    {"id": "old", "sha256": hash_key(KEY_A_OLD), "scopes": ["tenant"]},
                    {"id": "audit", "sha256": hash_key(AUDIT_A), "scopes": ["auditor"]},
                ],
                "quotas": {"open_tickets": 3, "active_matches": 2, "actions_per_second": 50},
                "turn_timer": {"seconds": 30, "policy": "forfeit"},
            }
        }
    }


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def keyring() -> KeyRing:
    return KeyRing.generate("k1")


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def authenticator(keyring: KeyRing, clock: Clock) -> Authenticator:
    tokens = Tokens(keyring.sign, keyring.verify, ttl_s=60, clock=clock)
    return Authenticator(parse_tenants(tenants_document()), tokens)


def bearer(credential: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {credential}")]


def refused(authenticator: Authenticator, metadata: list[tuple[str, str]], rpc: str) -> grpc.StatusCode:
    with pytest.raises(AuthError) as caught:
        authenticator.authenticate(metadata, rpc)
    return caught.value.code


def test_every_rpc_of_the_service_is_in_the_scope_table() -> None:
    from guildhall.admin.v1 import admin_pb2
    from guildhall.gateway.v1 import gateway_pb2

    methods = {m.name for m in gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"].methods}
    admin = {m.name for m in admin_pb2.DESCRIPTOR.services_by_name["AdminService"].methods}  # issue 34
    assert not methods & admin  # one table for both services: no name in both
    assert methods | admin == set(SCOPES)


def test_an_rpc_missing_from_the_table_is_refused_not_open(authenticator: Authenticator) -> None:
    assert refused(authenticator, bearer(KEY_A), "SomethingNew") == grpc.StatusCode.PERMISSION_DENIED


def test_a_tenant_key_authenticates_as_its_tenant_with_its_scopes(authenticator: Authenticator) -> None:
    principal = authenticator.authenticate(bearer(KEY_A), "CreateMatch")
    assert (principal.tenant, principal.scopes, principal.key_id) == ("acme", frozenset({TENANT}), "new")
    assert principal.seat is None and principal.match_id is None


def test_rotation_both_keys_of_a_tenant_work(authenticator: Authenticator) -> None:
    assert authenticator.authenticate(bearer(KEY_A_OLD), "CreateMatch").key_id == "old"


def test_missing_malformed_or_unknown_credentials_are_unauthenticated(authenticator: Authenticator) -> None:
    cases: list[list[tuple[str, str]]] = [
        [],
        [("authorization", KEY_A)],  # no scheme
        [("authorization", f"Basic {KEY_A}")],
        [("authorization", "Bearer ")],
        bearer("ghk_not-a-key-anyone-has"),
        bearer("something-else"),
        bearer("ght1.garbage"),
        bearer("ght1.a.b.c"),
        bearer("x" * 5000),
        [*bearer(KEY_A), *bearer(KEY_A)],  # two headers: ambiguous
    ]
    for metadata in cases:
        assert refused(authenticator, metadata, "GetView") == grpc.StatusCode.UNAUTHENTICATED, metadata


def test_a_valid_credential_without_the_scope_is_permission_denied(authenticator: Authenticator) -> None:
    assert refused(authenticator, bearer(AUDIT_A), "CreateMatch") == grpc.StatusCode.PERMISSION_DENIED
    assert refused(authenticator, bearer(KEY_A), "ReadEvents") == grpc.StatusCode.PERMISSION_DENIED
    assert refused(authenticator, bearer(KEY_A), "SubmitAction") == grpc.StatusCode.PERMISSION_DENIED


def test_public_keys_need_no_credentials(authenticator: Authenticator) -> None:
    assert authenticator.authenticate([], "GetPublicKeys").tenant == ""


def test_a_seat_token_is_bound_to_tenant_match_and_seat(authenticator: Authenticator) -> None:
    token, expires = authenticator.tokens.issue("acme", "m1", 2)
    principal = authenticator.authenticate(bearer(token), "SubmitAction")
    assert (principal.tenant, principal.match_id, principal.seat) == ("acme", "m1", 2)
    assert principal.scopes == frozenset({SEAT})
    assert principal.expires_at_ms == expires
    with pytest.raises(AuthError) as caught:
        auth.for_match(principal, "m2")
    assert caught.value.code == grpc.StatusCode.PERMISSION_DENIED


def test_a_spectator_token_may_watch_but_not_act(authenticator: Authenticator) -> None:
    token, _ = authenticator.tokens.issue("acme", "m1", None)
    assert authenticator.authenticate(bearer(token), "Watch").scopes == frozenset({SPECTATOR})
    assert refused(authenticator, bearer(token), "SubmitAction") == grpc.StatusCode.PERMISSION_DENIED
    assert refused(authenticator, bearer(token), "Audit") == grpc.StatusCode.PERMISSION_DENIED


def test_an_expired_token_is_unauthenticated(authenticator: Authenticator, clock: Clock) -> None:
    token, _ = authenticator.tokens.issue("acme", "m1", 0)
    authenticator.authenticate(bearer(token), "GetView")  # fine now (and cached)
    clock.now += 61
    assert refused(authenticator, bearer(token), "GetView") == grpc.StatusCode.UNAUTHENTICATED


def test_an_edited_token_does_not_verify(authenticator: Authenticator) -> None:
    import base64

    token, _ = authenticator.tokens.issue("acme", "m1", 0)
    prefix, key_id, payload, signature = token.split(".")
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    body["s"] = 1  # claim another seat
    forged_payload = base64.urlsafe_b64encode(json.dumps(body).encode()).rstrip(b"=").decode()
    forged = ".".join((prefix, key_id, forged_payload, signature))
    assert refused(authenticator, bearer(forged), "GetView") == grpc.StatusCode.UNAUTHENTICATED


def test_a_token_signed_by_another_gateways_key_does_not_verify(authenticator: Authenticator) -> None:
    other = KeyRing.generate("k1")  # same key id, different key
    token, _ = Tokens(other.sign, other.verify).issue("acme", "m1", 0)
    assert refused(authenticator, bearer(token), "GetView") == grpc.StatusCode.UNAUTHENTICATED


def test_a_token_of_a_tenant_no_longer_configured_is_unauthenticated(authenticator: Authenticator) -> None:
    token, _ = authenticator.tokens.issue("gone", "m1", 0)
    assert refused(authenticator, bearer(token), "GetView") == grpc.StatusCode.UNAUTHENTICATED


def test_a_token_dies_with_the_api_key_that_minted_it(authenticator: Authenticator) -> None:
    """Issue 39: revoking a key ends the seat and spectator tokens it minted, and only those."""
    from dataclasses import replace

    minted_by_old = authenticator.authenticate(bearer(KEY_A_OLD), "IssueToken")
    seat, _ = authenticator.issue(minted_by_old, "m1", 0)
    spectator, _ = authenticator.issue(minted_by_old, "m1", None)
    kept, _ = authenticator.issue(authenticator.authenticate(bearer(KEY_A), "IssueToken"), "m1", 1)
    for token in (seat, spectator, kept):
        authenticator.authenticate(bearer(token), "Watch")  # fine now (and cached)
    acme = authenticator.tenants["acme"]
    authenticator.replace_tenants(
        {"acme": replace(acme, keys=tuple(k for k in acme.keys if k.key_id != "old"))}
    )
    for token in (seat, spectator):
        with pytest.raises(AuthError) as caught:
            authenticator.authenticate(bearer(token), "GetView")
        assert caught.value.code == grpc.StatusCode.UNAUTHENTICATED and "revoked" in caught.value.message
    assert authenticator.authenticate(bearer(kept), "SubmitAction").seat == 1


def test_a_token_of_an_earlier_incarnation_of_the_tenant_is_refused(authenticator: Authenticator) -> None:
    """Issue 39: a tenant id deleted and seeded again (a Redis that lost everything) is a new
    incarnation; the old one's tokens are refused even for a match id that repeats."""
    from dataclasses import replace

    acme = replace(authenticator.tenants["acme"], generation="first")
    authenticator.replace_tenants({"acme": acme})
    old, _ = authenticator.issue(authenticator.authenticate(bearer(KEY_A), "IssueToken"), "m1", 0)
    assert authenticator.authenticate(bearer(old), "SubmitAction").seat == 0
    authenticator.replace_tenants({"acme": replace(acme, generation="second")})  # same keys, same ids
    with pytest.raises(AuthError) as caught:
        authenticator.authenticate(bearer(old), "SubmitAction")
    assert caught.value.code == grpc.StatusCode.UNAUTHENTICATED and "earlier tenant" in caught.value.message
    fresh, _ = authenticator.issue(authenticator.authenticate(bearer(KEY_A), "IssueToken"), "m1", 0)
    assert authenticator.authenticate(bearer(fresh), "SubmitAction").seat == 0


def test_a_token_minted_before_key_binding_is_judged_as_before(authenticator: Authenticator) -> None:
    """Tokens without the minting key and generation (minted by an older gateway during a
    rolling upgrade) keep working for a tenant of before generations, until they expire."""
    token, _ = authenticator.tokens.issue("acme", "m1", 0)  # neither `k` nor `g`
    assert authenticator.authenticate(bearer(token), "SubmitAction").key_print == ""


def test_tokens_survive_a_key_rotation(tmp_path: Path) -> None:
    KeyRing.write_new_key(tmp_path, "2026-01")
    before = KeyRing.from_dir(tmp_path)
    token, _ = Tokens(before.sign, before.verify).issue("acme", "m1", 0)
    KeyRing.write_new_key(tmp_path, "2026-02")  # now the active key (lexicographically last)
    after = KeyRing.from_dir(tmp_path)
    assert after.active == "2026-02"
    assert Tokens(after.sign, after.verify).check(token).seat == 0


def test_the_tenants_file_is_read_with_quotas_and_timer(tmp_path: Path) -> None:
    path = tmp_path / "tenants.json"
    path.write_text(json.dumps(tenants_document()))
    tenant = load_tenants(path)["acme"]
    assert tenant.quotas.open_tickets == 3 and tenant.quotas.active_matches == 2
    assert tenant.quotas.actions_per_second == 50
    assert tenant.quotas.reads_per_second == 2000  # the default when a file does not name it
    assert (tenant.turn_timer.seconds, tenant.turn_timer.policy) == (30, "forfeit")
    assert {key.key_id for key in tenant.keys} == {"new", "old", "audit"}


def test_the_dev_overlay_tenants_file_loads() -> None:
    root = Path(__file__).resolve().parents[2]
    tenants = load_tenants(root / "deploy/k8s/overlays/dev/secrets/tenants.json")
    key = "ghk_dev-only-tenant-key-do-not-use-in-production"  # an API key begins ghk_
    assert tenants["dev"].keys[0].sha256 == hash_key(key)


@pytest.mark.parametrize(
    ("document", "fault"),
    [
        ([], "must be an object"),
        ({"tenants": {"a:b": {}}}, "ids are"),
        ({"tenants": {"a": {"keys": [{"id": "k", "sha256": "zz"}]}}}, "64 hex"),
        ({"tenants": {"a": {"keys": [{"id": "k", "sha256": "a" * 64, "scopes": ["seat"]}]}}}, "scopes"),
        ({"tenants": {"a": {"quotas": {"actions_per_second": 0}}}}, "positive"),
        ({"tenants": {"a": {"quotas": {"tickets": 1}}}}, "quotas take"),
        ({"tenants": {"a": {"turn_timer": {"policy": "explode"}}}}, "policy"),
        ({"tenants": {"a": {"extra": 1}}}, "unknown fields"),
        (
            {
                "tenants": {
                    "a": {"keys": [{"id": "k", "sha256": "a" * 64}]},
                    "b": {"keys": [{"id": "k", "sha256": "a" * 64}]},
                }
            },
            "twice",
        ),
    ],
)
def test_a_malformed_tenants_file_names_its_fault(document: object, fault: str) -> None:
    with pytest.raises(TenantsError, match=fault):
        parse_tenants(document)


def test_new_key_tool_prints_a_key_and_its_hash(capsys: pytest.CaptureFixture[str]) -> None:
    assert auth.main(["new-key", "--id", "k9", "--scopes", "tenant,auditor"]) == 0
    lines = capsys.readouterr().out.splitlines()
    key = lines[0].rsplit(" ", 1)[1]
    entry = json.loads(lines[-1])
    assert key.startswith("ghk_") and entry == {
        "id": "k9",
        "sha256": hash_key(key),
        "scopes": ["tenant", "auditor"],
    }
    parse_tenants({"tenants": {"t": {"keys": [entry]}}})  # the printed entry is a valid key entry


def test_new_keys_differ() -> None:
    assert len({new_api_key() for _ in range(20)}) == 20


def test_auditor_scope_reads_raw_events(authenticator: Authenticator) -> None:
    assert authenticator.authenticate(bearer(AUDIT_A), "ReadEvents").scopes == frozenset({AUDITOR})


# -- issue 43: admin keys' roles and expiry --------------------------------------------------------


def test_an_admin_key_expires_and_says_when(keyring: KeyRing, clock: Clock) -> None:
    from gateway.admin.keys import key_entry, parse_admin_keys

    key = new_api_key()
    now_ms = int(clock.now * 1000)
    entry = key_entry("ops-1", hash_key(key), "write", "stack-admin", now_ms, 3600)
    authenticator = Authenticator({}, Tokens(keyring.sign, keyring.verify, clock=clock), clock=clock)
    authenticator.replace_admin_keys(parse_admin_keys({"keys": [entry]}))
    assert authenticator.authenticate(bearer(key), "CreateTenant").key_id == "ops-1"
    clock.now += 3600
    with pytest.raises(AuthError) as caught:
        authenticator.authenticate(bearer(key), "ListTenants")
    assert (
        caught.value.code == grpc.StatusCode.UNAUTHENTICATED and "'ops-1' expired at" in caught.value.message
    )


def test_a_read_admin_key_is_refused_writes_naming_the_role_and_a_file_key_may_expire(
    keyring: KeyRing, clock: Clock
) -> None:
    from gateway.auth import ADMIN_READ_RPCS, parse_operators

    reader, writer = new_api_key(), new_api_key()
    operators = parse_operators(
        {
            "operators": {
                "keys": [
                    {"id": "ro", "sha256": hash_key(reader), "scopes": ["admin_read"]},
                    {
                        "id": "rw",
                        "sha256": hash_key(writer),
                        "scopes": ["admin"],
                        "expires_ms": 1_000_001_000,
                    },
                ]
            }
        }
    )
    authenticator = Authenticator(
        {}, Tokens(keyring.sign, keyring.verify, clock=clock), operators, clock=clock
    )
    for rpc in ADMIN_READ_RPCS:
        assert authenticator.authenticate(bearer(reader), rpc).key_id == "ro"
    with pytest.raises(AuthError) as caught:
        authenticator.authenticate(bearer(reader), "UpdateTenant")
    assert caught.value.code == grpc.StatusCode.PERMISSION_DENIED
    assert (
        caught.value.message
        == "UpdateTenant needs an admin key with the role write; the key 'ro' has the role read"
    )
    assert authenticator.authenticate(bearer(writer), "UpdateTenant").key_id == "rw"
    clock.now = 1_000_001.0
    assert refused(authenticator, bearer(writer), "ListTenants") == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(TenantsError, match="expires_ms"):
        parse_operators(
            {
                "operators": {
                    "keys": [{"id": "x", "sha256": "a" * 64, "scopes": ["admin"], "expires_ms": "soon"}]
                }
            }
        )
