"""The admin operations: check, record in the admin log with the change, apply here at once.

Every change follows the same steps: read the tenant's record, build the new one, validate it
with the tenants file's own parser (so the API can write nothing the file could not hold),
append the admin log entry (who, what, before and after, secrets redacted) that writes the
record in the same script run (gateway/admin/log.py; a change landed since the read: read and
build again), and refresh this replica's tenants.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from gateway.admin.keys import (
    ADMIN_KEYS_RECORD,
    DEFAULT_TTL_S,
    MAX_TTL_S,
    MIN_TTL_S,
    ROLES,
    key_entry,
    role_of,
)
from gateway.admin.log import (
    AdminLog,
    Checkpoint,
    LogConflict,
    LogEntry,
    LogReport,
    now_ms,
    record_digest,
    redact,
)
from gateway.admin.offboard import OffboardJobs, OffboardReport, StillRunning, running_matches
from gateway.admin.registry import (
    TenantRecords,
    TenantRegistry,
    Unexplained,
    encode_record,
    new_record,
    tenant_of,
)
from gateway.auth import (
    TENANT,
    ApiKey,
    AuthError,
    TenantsError,
    check_key_scopes,
    hash_key,
    new_api_key,
)
from gateway.eventstore.base import AuditReport

_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
# `gh:{quota:<tenant>}` would read as the keys of a tenant named "quota": offboarding it would
# take every tenant's quota buckets with it (gateway/admin/offboard.py tenant_patterns).
RESERVED_TENANT_IDS = frozenset({"quota"})


class AdminError(AuthError):
    """A refused admin request with its status (AuthError carries code and message, and
    gateway/api/faults.py maps it as it is)."""


def not_found(tenant_id: str) -> AdminError:
    return AdminError(grpc.StatusCode.NOT_FOUND, f"no tenant {tenant_id!r}")


def invalid(message: str) -> AdminError:
    return AdminError(grpc.StatusCode.INVALID_ARGUMENT, message)


def being_deleted(tenant_id: str) -> AdminError:
    return AdminError(
        grpc.StatusCode.FAILED_PRECONDITION,
        f"tenant {tenant_id!r} is being deleted "
        f"(guildhall admin delete-tenant {tenant_id} --wait shows how far)",
    )


def merge_settings(body: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """The body with `settings` laid over it: quotas, turn_timer, bots and tables field by field;
    webhooks whole (None removes them)."""
    out = copy.deepcopy(dict(body))
    for part in ("quotas", "turn_timer", "bots", "tables"):
        if settings.get(part):
            out[part] = {**out.get(part, {}), **settings[part]}
    if settings.get("tables", {}).get("turn_timer"):  # field by field there too
        old = body.get("tables", {}).get("turn_timer", {})
        out["tables"]["turn_timer"] = {**old, **settings["tables"]["turn_timer"]}
    if "webhooks" in settings:
        if settings["webhooks"] is None:
            out.pop("webhooks", None)
        else:
            out["webhooks"] = settings["webhooks"]
    return out


@dataclass(frozen=True)
class Restored:
    record: dict[str, Any] | None  # None: the tenant has no record (the log wrote none)
    changed: bool
    removed: bool = False
    webhooks_dropped: bool = False


def _as_logged(logged: Any, held: dict[str, Any] | None, digest: str) -> tuple[dict[str, Any], bool]:
    """The record the log wrote (`logged`, redacted) with its webhook secrets from `held` when
    that gives back exactly the logged bytes (`digest`); else without webhooks. And whether
    the webhooks were dropped."""
    if not isinstance(logged, dict):
        raise AdminError(grpc.StatusCode.DATA_LOSS, "the admin log's entry does not hold the record it wrote")
    record = copy.deepcopy(logged)
    hooks = record.get("body", {}).get("webhooks")
    if not (isinstance(hooks, dict) and "secrets" in hooks):
        return record, False
    held_hooks = ((held or {}).get("body") or {}).get("webhooks")
    if isinstance(held_hooks, dict) and isinstance(held_hooks.get("secrets"), list):
        hooks["secrets"] = list(held_hooks["secrets"])
        if record_digest(encode_record(record)) == digest:
            return record, False
    record["body"].pop("webhooks")
    return record, True


@dataclass
class Admin:
    records: TenantRecords
    log: AdminLog
    registry: TenantRegistry
    # Offboarding jobs (gateway/admin/offboard.py), None without an archive configured.
    jobs: OffboardJobs | None = None
    allow_http_webhooks: bool = False
    operators: tuple[ApiKey, ...] = ()  # issue 43: the tenants file's platform keys

    # -- reading -------------------------------------------------------------------------------

    async def get(self, tenant_id: str) -> dict[str, Any]:
        record = await self.records.get(tenant_id)
        if record is None:
            raise not_found(tenant_id)
        return record

    async def tenants(self) -> dict[str, dict[str, Any]]:
        return await self.records.all()

    # -- changes -------------------------------------------------------------------------------

    async def create_tenant(
        self, operator: str, tenant_id: str, settings: Mapping[str, Any]
    ) -> dict[str, Any]:
        if not _ID.fullmatch(tenant_id or ""):
            raise invalid("a tenant id is 1-64 of A-Z a-z 0-9 . _ -")
        if tenant_id in RESERVED_TENANT_IDS:
            raise invalid(f"{tenant_id!r} is reserved")
        if await self.records.deleted(tenant_id):
            # Issue 39: the archive keeps the deleted tenant's matches under this id, and its
            # old tokens name it: a tenant id is never given to another tenant.
            raise AdminError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"tenant id {tenant_id!r} belonged to a deleted tenant and is never reused; choose another",
            )
        record = new_record(merge_settings({"keys": []}, settings))

        def create(before: dict[str, Any] | None) -> dict[str, Any]:
            if before is not None:
                raise AdminError(grpc.StatusCode.ALREADY_EXISTS, f"tenant {tenant_id!r} exists")
            return record

        return await self._change(operator, "create_tenant", tenant_id, create)

    async def update_tenant(
        self, operator: str, tenant_id: str, settings: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await self._change(
            operator, "update_tenant", tenant_id,
            lambda before: {**before, "body": merge_settings(before["body"], settings)},
        )  # fmt: skip

    async def set_suspended(
        self, operator: str, tenant_id: str, suspended: bool, reason: str = ""
    ) -> dict[str, Any]:
        job = await self.jobs.get(tenant_id) if self.jobs is not None and not suspended else None
        if job is not None and job.state == "running":
            raise being_deleted(tenant_id)
        action = "suspend_tenant" if suspended else "resume_tenant"

        def suspend(before: dict[str, Any]) -> dict[str, Any]:
            after = {**before, "suspended": suspended}
            if not suspended:
                after.pop("offboarding", None)  # its offboarding failed: resumed, the tenant stays
            return after

        after = await self._change(
            operator, action, tenant_id, suspend, reason=reason, offboarding_ok=not suspended
        )
        if job is not None and self.jobs is not None:  # the failed job is over: a delete starts anew
            await self.jobs.forget(tenant_id)
        return after

    async def create_key(
        self, operator: str, tenant_id: str, key_id: str, scopes: list[str]
    ) -> tuple[dict[str, Any], str]:
        """A new key (returned once; only its sha256 is stored) and its entry."""
        if not key_id:
            taken = {str(k.get("id")) for k in (await self.get(tenant_id))["body"].get("keys", [])}
            key_id = next(f"k{n}" for n in range(1, len(taken) + 2) if f"k{n}" not in taken)
        if not _ID.fullmatch(key_id):
            raise invalid("a key id is 1-64 of A-Z a-z 0-9 . _ -")
        scopes = scopes or [TENANT]
        problem = check_key_scopes(list(scopes))
        if problem:
            raise invalid(f"a tenant key's {problem}")
        api_key = new_api_key()
        entry = {"id": key_id, "sha256": hash_key(api_key), "scopes": sorted(set(scopes))}

        def add(before: dict[str, Any]) -> dict[str, Any]:
            keys = list(before["body"].get("keys", []))
            if key_id in {str(k.get("id")) for k in keys}:
                raise AdminError(grpc.StatusCode.ALREADY_EXISTS, f"tenant {tenant_id!r} has a key {key_id!r}")
            return {
                **before,
                "body": {**before["body"], "keys": [*keys, entry]},
                "key_created": {**before.get("key_created", {}), key_id: now_ms()},
            }

        await self._change(operator, "create_key", tenant_id, add, key_id=key_id)
        return entry, api_key

    async def revoke_key(self, operator: str, tenant_id: str, key_id: str) -> dict[str, Any]:
        revoked: list[dict[str, Any]] = []

        def revoke(before: dict[str, Any]) -> dict[str, Any]:
            keys = list(before["body"].get("keys", []))
            revoked[:] = [k for k in keys if str(k.get("id")) == key_id]
            if not revoked:
                raise AdminError(grpc.StatusCode.NOT_FOUND, f"tenant {tenant_id!r} has no key {key_id!r}")
            return {**before, "body": {**before["body"], "keys": [k for k in keys if k not in revoked]}}

        await self._change(operator, "revoke_key", tenant_id, revoke, key_id=key_id)
        return revoked[0]

    async def delete_tenant(
        self, operator: str, tenant_id: str, force: bool, wait_s: float
    ) -> OffboardReport:
        """Start or continue the tenant's offboarding job (gateway/admin/offboard.py) and answer
        with its progress once it ended or after `wait_s`, whichever comes first."""
        if self.jobs is None:
            raise AdminError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "no archive configured (ARCHIVE_DIR or ARCHIVE_S3_BUCKET)",
            )
        job = await self.jobs.get(tenant_id)
        if job is None or job.state == "failed":
            if job is None:
                await self.get(tenant_id)  # NOT_FOUND for a tenant that is not (or no longer) here
            if tenant_id in RESERVED_TENANT_IDS:
                raise invalid(f"{tenant_id!r} is reserved and cannot be offboarded by pattern")
            if not (force or (job is not None and job.force)):
                running = await self._running_matches(tenant_id)
                if running:
                    raise AdminError(grpc.StatusCode.FAILED_PRECONDITION, str(StillRunning(running)))
            await self.jobs.start(operator, tenant_id, force)
        else:
            await self.jobs.resume(tenant_id)
        report = await self.jobs.wait(tenant_id, wait_s)
        assert report is not None
        return report

    async def _running_matches(self, tenant_id: str) -> list[str]:
        assert self.jobs is not None
        client = await asyncio.to_thread(self.jobs.blocking_client)
        try:
            return await asyncio.to_thread(running_matches, client, tenant_id)
        finally:
            await asyncio.to_thread(client.close)

    async def _change(
        self,
        operator: str,
        action: str,
        tenant_id: str,
        make: Callable[[Any], dict[str, Any]],
        *,
        offboarding_ok: bool = False,
        **more: Any,
    ) -> dict[str, Any]:
        """One change of one record: `make` builds the new record from the one stored (None
        only for create_tenant), validated with the tenants file's parser; then written with
        its log entry, and applied on this replica at once."""

        def change(before: dict[str, Any] | None) -> dict[str, Any]:
            if before is not None and before.get("deleted"):
                before = None
            if before is None and action != "create_tenant":
                raise not_found(tenant_id)
            if before is not None and before.get("offboarding") and not offboarding_ok:
                raise being_deleted(tenant_id)
            after = make(before)
            self._check(tenant_id, after)
            return after if before is None else {**after, "updated_ms": now_ms()}

        try:
            _before, after = await self.records.change(
                operator, action, tenant_id, change, guard=self.registry.require_explained, **more
            )
        except Unexplained as error:
            raise AdminError(grpc.StatusCode.FAILED_PRECONDITION, str(error)) from None
        await self.registry.refresh()
        assert after is not None
        return after

    async def restore_tenant(self, operator: str, tenant_id: str) -> Restored:
        """Put back what the admin log wrote last for the tenant (the repair of a record written
        outside the log, which `verify_log` names): that record, its webhook secrets kept from
        the one in Redis if they are the logged ones (else without webhooks: they cannot be
        read back from the log, which never holds secrets); or, when the log wrote none, no
        record at all."""
        for _ in range(20):
            version, head, raw = await self.records.read(tenant_id)
            follower = await self.registry.follow(version)
            if follower.length != version:
                continue  # the log moved since the read
            if follower.explains(tenant_id, raw):
                return Restored(json.loads(raw) if raw is not None else None, changed=False)
            held = json.loads(raw) if raw is not None else None
            expected = follower.explained.get(tenant_id, "")
            try:
                if not expected:
                    await self.log.append(
                        operator, "restore_tenant", tenant_id, redact(held), None,
                        removes=[tenant_id], expected=(version, head),
                    )  # fmt: skip
                    await self.records.remove(tenant_id)
                    await self.registry.refresh()
                    return Restored(None, changed=True, removed=True)
                record, dropped = _as_logged(follower.logged.get(tenant_id), held, expected)
                await self.log.append(
                    operator, "restore_tenant", tenant_id, redact(held), redact(record),
                    writes={tenant_id: encode_record(record)}, expected=(version, head),
                    webhooks_dropped=dropped,
                )  # fmt: skip
            except LogConflict:
                continue
            await self.registry.refresh()
            return Restored(record, changed=True, webhooks_dropped=dropped)
        raise AdminError(grpc.StatusCode.ABORTED, f"tenant {tenant_id!r} kept changing; try again")

    def _check(self, tenant_id: str, record: dict[str, Any]) -> None:
        """INVALID_ARGUMENT for a record the tenants file could not hold, or a plain-http webhook."""
        try:
            tenant = tenant_of(tenant_id, record)
        except TenantsError as error:
            raise invalid(str(error)) from None
        for endpoint in tenant.webhooks.endpoints if tenant.webhooks else ():
            if not self.allow_http_webhooks and not endpoint.url.startswith("https://"):
                raise invalid(
                    f"webhook endpoint {endpoint.endpoint_id!r} must be https (WEBHOOK_ALLOW_HTTP=1: dev)"
                )

    # -- admin keys (issue 43) -------------------------------------------------------------------

    async def admin_keys(self) -> list[dict[str, Any]]:
        """Every admin key: the tenants file's (source "file") and the runtime ones ("api")."""
        listed = [
            {"id": k.key_id, "sha256": k.sha256, "role": role_of(k.scopes), "expires_ms": k.expires_ms,
             "source": "file"}
            for k in self.operators
            if role_of(k.scopes)
        ]  # fmt: skip
        record = await self.records.get_any(ADMIN_KEYS_RECORD) or {}
        return listed + [{**entry, "source": "api"} for entry in record.get("keys", [])]

    async def create_admin_key(
        self, operator: str, key_id: str, role: str, ttl_s: int
    ) -> tuple[dict[str, Any], str]:
        """A new admin key (returned once; only its sha256 is stored) and its entry."""
        if not _ID.fullmatch(key_id or ""):
            raise invalid("an admin key id is 1-64 of A-Z a-z 0-9 . _ -")
        if role not in ROLES:
            raise invalid(f"an admin key's role is one of {', '.join(ROLES)}, not {role[:32]!r}")
        ttl_s = ttl_s or DEFAULT_TTL_S
        if not MIN_TTL_S <= ttl_s <= MAX_TTL_S:
            raise invalid(f"an admin key lives {MIN_TTL_S} to {MAX_TTL_S} seconds (1 hour to 400 days)")
        if key_id in {k.key_id for k in self.operators}:
            raise AdminError(
                grpc.StatusCode.ALREADY_EXISTS, f"the tenants file has an operators key {key_id!r}"
            )
        api_key = new_api_key()
        entry = key_entry(key_id, hash_key(api_key), role, operator, now_ms(), ttl_s)

        def add(before: dict[str, Any] | None) -> dict[str, Any]:
            keys = list((before or {}).get("keys", []))
            if key_id in {str(k.get("id")) for k in keys}:
                raise AdminError(grpc.StatusCode.ALREADY_EXISTS, f"there is an admin key {key_id!r}")
            return {"keys": [*keys, entry], "updated_ms": now_ms()}

        await self._change_admin_keys(operator, "create_admin_key", add, key_id=key_id, role=role)
        return entry, api_key

    async def revoke_admin_key(self, operator: str, key_id: str) -> dict[str, Any]:
        if key_id in {k.key_id for k in self.operators}:
            raise AdminError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"{key_id!r} is a key of the tenants file: remove it from the file's operators section",
            )
        revoked: list[dict[str, Any]] = []

        def revoke(before: dict[str, Any] | None) -> dict[str, Any]:
            keys = list((before or {}).get("keys", []))
            revoked[:] = [k for k in keys if str(k.get("id")) == key_id]
            if not revoked:
                raise AdminError(grpc.StatusCode.NOT_FOUND, f"no admin key {key_id!r}")
            return {"keys": [k for k in keys if k not in revoked], "updated_ms": now_ms()}

        await self._change_admin_keys(operator, "revoke_admin_key", revoke, key_id=key_id)
        return revoked[0]

    async def _change_admin_keys(
        self, operator: str, action: str, make: Callable[[Any], dict[str, Any]], **more: Any
    ) -> None:
        """The admin keys' record changed with its log entry, as a tenant's is, and applied here."""
        try:
            await self.records.change(
                operator, action, ADMIN_KEYS_RECORD, make, guard=self.registry.require_explained, **more
            )
        except Unexplained as error:
            raise AdminError(grpc.StatusCode.FAILED_PRECONDITION, str(error)) from None
        await self.registry.refresh()

    # -- the log ----------------------------------------------------------------------------------

    async def read_log(self, after_version: int, limit: int) -> tuple[list[LogEntry], AuditReport]:
        if after_version < 0 or limit < 0:
            raise invalid("after_version and limit are >= 0")
        entries = await self.log.entries(after_version, min(limit or 100, 1000))
        return entries, await self.log.chain()

    async def checkpoint(self) -> Checkpoint:
        try:
            return await self.log.checkpoint()
        except ValueError as error:
            raise AdminError(grpc.StatusCode.FAILED_PRECONDITION, f"no checkpoint: {error}") from None

    async def verify_log(self, checkpoint: Checkpoint | None) -> LogReport:
        """The admin log's chain and receipts, against `checkpoint` if given, and every tenant
        record Redis holds against what the log explains."""
        _version, _head, records = await self.records.snapshot()
        return await self.log.verify(checkpoint, records)
