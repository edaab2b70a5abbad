"""The admin operations: check, record in the admin log, change Redis, apply here at once.

Every change follows the same steps: read the tenant's record, build the new one, validate it
with the tenants file's own parser (so the API can write nothing the file could not hold),
append the admin log entry (who, what, before and after, secrets redacted), write the record
(which bumps the version other replicas follow), and refresh this replica's tenants.
"""

from __future__ import annotations

import asyncio
import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import grpc

from gateway.admin.log import AdminLog, LogEntry
from gateway.admin.offboard import OffboardReport, StillRunning, offboard, running_matches
from gateway.admin.registry import TenantRecords, TenantRegistry, new_record, now_ms, tenant_of
from gateway.admin.usage import DAY, HOUR, UsageMeter, parse_period
from gateway.auth import TENANT, AuthError, TenantsError, check_key_scopes, hash_key, new_api_key
from gateway.eventstore.base import AuditReport

_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
# `gh:{quota:<tenant>}` would read as the keys of a tenant named "quota": offboarding it would
# take every tenant's quota buckets with it (gateway/admin/offboard.py tenant_patterns).
RESERVED_TENANT_IDS = frozenset({"quota"})
REDACTED = "<redacted>"


class AdminError(AuthError):
    """A refused admin request with its status (AuthError carries code and message, and
    gateway/api/faults.py maps it as it is)."""


def not_found(tenant_id: str) -> AdminError:
    return AdminError(grpc.StatusCode.NOT_FOUND, f"no tenant {tenant_id!r}")


def invalid(message: str) -> AdminError:
    return AdminError(grpc.StatusCode.INVALID_ARGUMENT, message)


def redact(record: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A record fit for the log and for answers: key hashes stay, webhook secrets do not."""
    if record is None:
        return None
    out = copy.deepcopy(dict(record))
    hooks = out.get("body", {}).get("webhooks")
    if isinstance(hooks, dict) and "secrets" in hooks:
        hooks["secrets"] = [REDACTED for _ in hooks.get("secrets") or ()]
    return out


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


@dataclass
class Admin:
    records: TenantRecords
    log: AdminLog
    usage: UsageMeter
    registry: TenantRegistry
    # The archive (gateway.archive store) and a factory of blocking Redis clients: offboarding.
    archive: Any = None
    blocking_client: Callable[[], Any] | None = None
    allow_http_webhooks: bool = False

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
        if await self.records.get(tenant_id) is not None:
            raise AdminError(grpc.StatusCode.ALREADY_EXISTS, f"tenant {tenant_id!r} exists")
        record = new_record(merge_settings({"keys": []}, settings))
        return await self._change(operator, "create_tenant", tenant_id, None, record)

    async def update_tenant(
        self, operator: str, tenant_id: str, settings: Mapping[str, Any]
    ) -> dict[str, Any]:
        before = await self.get(tenant_id)
        after = {**before, "body": merge_settings(before["body"], settings)}
        return await self._change(operator, "update_tenant", tenant_id, before, after)

    async def set_suspended(
        self, operator: str, tenant_id: str, suspended: bool, reason: str = ""
    ) -> dict[str, Any]:
        before = await self.get(tenant_id)
        after = {**before, "suspended": suspended}
        action = "suspend_tenant" if suspended else "resume_tenant"
        return await self._change(operator, action, tenant_id, before, after, reason=reason)

    async def create_key(
        self, operator: str, tenant_id: str, key_id: str, scopes: list[str]
    ) -> tuple[dict[str, Any], str]:
        """A new key (returned once; only its sha256 is stored) and its entry."""
        before = await self.get(tenant_id)
        keys = list(before["body"].get("keys", []))
        taken = {str(k.get("id")) for k in keys}
        if not key_id:
            key_id = next(f"k{n}" for n in range(1, len(keys) + 2) if f"k{n}" not in taken)
        if not _ID.fullmatch(key_id):
            raise invalid("a key id is 1-64 of A-Z a-z 0-9 . _ -")
        if key_id in taken:
            raise AdminError(grpc.StatusCode.ALREADY_EXISTS, f"tenant {tenant_id!r} has a key {key_id!r}")
        scopes = scopes or [TENANT]
        problem = check_key_scopes(list(scopes))
        if problem:
            raise invalid(f"a tenant key's {problem}")
        api_key = new_api_key()
        entry = {"id": key_id, "sha256": hash_key(api_key), "scopes": sorted(set(scopes))}
        after = {
            **before,
            "body": {**before["body"], "keys": [*keys, entry]},
            "key_created": {**before.get("key_created", {}), key_id: now_ms()},
        }
        await self._change(operator, "create_key", tenant_id, before, after, key_id=key_id)
        return entry, api_key

    async def revoke_key(self, operator: str, tenant_id: str, key_id: str) -> dict[str, Any]:
        before = await self.get(tenant_id)
        keys = list(before["body"].get("keys", []))
        revoked = [k for k in keys if str(k.get("id")) == key_id]
        if not revoked:
            raise AdminError(grpc.StatusCode.NOT_FOUND, f"tenant {tenant_id!r} has no key {key_id!r}")
        after = {**before, "body": {**before["body"], "keys": [k for k in keys if k not in revoked]}}
        await self._change(operator, "revoke_key", tenant_id, before, after, key_id=key_id)
        revoked_key: dict[str, Any] = revoked[0]
        return revoked_key

    async def delete_tenant(self, operator: str, tenant_id: str, force: bool) -> OffboardReport:
        """Offboarding (gateway/admin/offboard.py): suspend, archive, verify, remove, forget."""
        before = await self.get(tenant_id)
        if tenant_id in RESERVED_TENANT_IDS:
            raise invalid(f"{tenant_id!r} is reserved and cannot be offboarded by pattern")
        if self.archive is None or self.blocking_client is None:
            raise AdminError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "no archive configured (ARCHIVE_DIR or ARCHIVE_S3_BUCKET)",
            )
        client = await asyncio.to_thread(self.blocking_client)
        try:
            running = await asyncio.to_thread(running_matches, client, tenant_id)
            if running and not force:
                raise AdminError(grpc.StatusCode.FAILED_PRECONDITION, str(StillRunning(running)))
            # Suspended first: no action lands while its matches are archived, streams end.
            suspended = {**before, "suspended": True}
            await self._change(
                operator, "delete_tenant", tenant_id, before, suspended, force=force, running=len(running)
            )
            try:
                report = await asyncio.to_thread(offboard, client, self.archive, tenant_id, force=force)
            except Exception as error:
                await self.log.append(
                    operator, "delete_tenant_failed", tenant_id, None, None, error=str(error)[:500]
                )
                if isinstance(error, StillRunning):
                    raise AdminError(grpc.StatusCode.FAILED_PRECONDITION, str(error)) from None
                raise AdminError(
                    grpc.StatusCode.ABORTED, f"offboarding stopped, nothing more removed: {error}"
                ) from None
            summary = {k: v for k, v in report.__dict__.items() if k != "verified"}
            await self.log.append(
                operator, "tenant_deleted", tenant_id, redact(suspended), None, report=summary
            )
            await self.records.put(tenant_id, None)
            await self.registry.refresh()
            return report
        finally:
            await asyncio.to_thread(client.close)

    async def _change(
        self, operator: str, action: str, tenant_id: str, before: Any, after: dict[str, Any], **more: Any
    ) -> dict[str, Any]:
        try:
            tenant = tenant_of(tenant_id, after)
        except TenantsError as error:
            raise invalid(str(error)) from None
        for endpoint in tenant.webhooks.endpoints if tenant.webhooks else ():
            if not self.allow_http_webhooks and not endpoint.url.startswith("https://"):
                raise invalid(
                    f"webhook endpoint {endpoint.endpoint_id!r} must be https (WEBHOOK_ALLOW_HTTP=1: dev)"
                )
        if before is not None:
            after = {**after, "updated_ms": now_ms()}
        await self.log.append(operator, action, tenant_id, redact(before), redact(after), **more)
        await self.records.put(tenant_id, after)
        await self.registry.refresh()
        return after

    # -- usage and the log ---------------------------------------------------------------------

    async def read_usage(
        self, tenant_id: str, start: str, end: str, granularity: str
    ) -> list[tuple[str, dict[str, int]]]:
        granularity = granularity or DAY
        if granularity not in (HOUR, DAY):
            raise invalid("granularity is hour or day")
        if not _ID.fullmatch(tenant_id or ""):
            raise invalid("a tenant id is 1-64 of A-Z a-z 0-9 . _ -")
        try:
            first = (
                parse_period(start)
                if start
                else datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
            )
            last = parse_period(end) if end else datetime.now(UTC)
            if last < first:
                raise ValueError("the end comes before the start")
            return await self.usage.read(tenant_id, granularity, first, last)
        except ValueError as error:
            raise invalid(str(error)) from None

    async def read_log(self, after_version: int, limit: int) -> tuple[list[LogEntry], AuditReport]:
        if after_version < 0 or limit < 0:
            raise invalid("after_version and limit are >= 0")
        entries = await self.log.entries(after_version, min(limit or 100, 1000))
        return entries, await self.log.verify()
