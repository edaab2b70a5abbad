"""Admin keys made at runtime (issue 43): their record, and what the Authenticator makes of it.

Decisions (question -> decision):
- Where do they live? In one record, `ADMIN_KEYS_RECORD`, of the tenants hash the admin log
  writes (`gh:{admin}:tenants`): every change is a log entry that writes the record in the same
  script run and names its sha256, exactly as for a tenant, so the log explains it, every
  replica applies it within 2 s (gateway/admin/registry.py), `guildhall admin log verify` names
  a record written behind the log's back, and a replica serves only what the log explains.
  Its id holds "@", which no tenant id does.
- What is stored? Each key's sha256 (the key is shown once), its role, who made it and when,
  and when it expires. A role is a scope of the scope table (gateway/auth.py ADMIN_ROLES):
  `write` is the scope `admin`, `read` the scope `admin_read`.
- Expiry: every key made here has one (ttl 1 hour to 400 days, 90 days unless asked); an
  expired key is refused UNAUTHENTICATED and stays listed until it is revoked.
- The tenants file's `operators` keys are the bootstrap credential: they stay in the file (its
  Secret), are listed beside these with source "file", and are revoked by editing the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gateway.auth import ADMIN_ROLES, ApiKey, TenantsError

ADMIN_KEYS_RECORD = "@admin-keys"  # its id in the tenants hash: "@" is in no tenant id
DEFAULT_TTL_S = 90 * 86400
MIN_TTL_S = 3600
MAX_TTL_S = 400 * 86400
ROLES = tuple(ADMIN_ROLES)  # write, read


def role_of(scopes: frozenset[str]) -> str:
    """The role an admin key's scopes grant ("" for a key with neither admin scope)."""
    return next((role for role, scope in ADMIN_ROLES.items() if scope in scopes), "")


def parse_admin_keys(record: Mapping[str, Any]) -> tuple[ApiKey, ...]:
    """The keys of the record; TenantsError names the first fault."""
    entries = record.get("keys")
    if not isinstance(entries, list):
        raise TenantsError("the admin keys record holds no list of keys")
    keys = []
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise TenantsError(f"admin key {number} is not an object")
        role, digest, expires = entry.get("role"), entry.get("sha256"), entry.get("expires_ms")
        if role not in ADMIN_ROLES or not isinstance(digest, str) or len(digest) != 64:
            raise TenantsError(f"admin key {number}: a role (read, write) and a sha256 are required")
        if isinstance(expires, bool) or not isinstance(expires, int) or expires <= 0:
            raise TenantsError(f"admin key {number}: every admin key expires (expires_ms)")
        keys.append(ApiKey("", str(entry.get("id", "")), digest, frozenset({ADMIN_ROLES[role]}), expires))
    return tuple(keys)


def key_entry(
    key_id: str, sha256: str, role: str, created_by: str, now_ms: int, ttl_s: int
) -> dict[str, Any]:
    """A key's entry in the record."""
    return {
        "id": key_id,
        "sha256": sha256,
        "role": role,
        "created_ms": now_ms,
        "created_by": created_by,
        "expires_ms": now_ms + ttl_s * 1000,
    }
