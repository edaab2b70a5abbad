"""guildhall.admin.v1.AdminService: the thin servicer over gateway/admin/usecases.py.

Authentication, the scope table (the roles: `admin` writes, `admin_read` reads), log lines (with
the calling key's id), metrics and the fault-to-status mapping are the GatewayService's own
(gateway/api/server.py's `unary` wrapper); issue 43: served on the admin listener only
(bootstrap.py), gRPC and Connect on one port.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from guildhall.admin.v1 import admin_pb2 as pb
from guildhall.admin.v1 import admin_pb2_grpc

from gateway.admin.ledger import RECONCILED, Ledger
from gateway.admin.log import Checkpoint, now_ms, redact
from gateway.admin.registry import OpenStreams, tenant_of
from gateway.admin.rules import RulesAdmin
from gateway.admin.usecases import Admin, AdminError, invalid
from gateway.api.server import streaming, unary
from gateway.auth import QUOTA_NAMES, Authenticator, Principal

MAX_WAIT_S = 10.0  # DeleteTenant answers with the job's progress after this, at the latest


@dataclass
class AdminPorts:
    auth: Authenticator
    admin: Admin
    ledger: Ledger  # issue 43: usage per game, every tenant's, reconciled
    rules: RulesAdmin | None = None  # issue 40: rules versions (gateway/admin/rules.py)
    open_streams: OpenStreams = field(default_factory=OpenStreams)  # the streaming wrapper's


def settings_of(message: pb.TenantSettings) -> dict[str, Any]:
    """The request's settings as a tenants-file body fragment (absent fields absent)."""
    settings: dict[str, Any] = {}
    quotas = {name: getattr(message.quotas, name) for name in QUOTA_NAMES if message.quotas.HasField(name)}
    if quotas:
        settings["quotas"] = quotas
    timer = _timer_of(message.turn_timer)
    if timer:
        settings["turn_timer"] = timer
    tables: dict[str, Any] = {}
    if message.tables.HasField("unclaimed_seconds"):
        tables["unclaimed_seconds"] = message.tables.unclaimed_seconds
    if _timer_of(message.tables.turn_timer):
        tables["turn_timer"] = _timer_of(message.tables.turn_timer)
    if tables:
        settings["tables"] = tables
    if message.bots.HasField("ticket_wait_seconds"):
        settings["bots"] = {"ticket_wait_seconds": message.bots.ticket_wait_seconds}
    if message.webhooks_json:
        try:
            settings["webhooks"] = json.loads(message.webhooks_json)
        except ValueError as error:
            raise invalid(f"webhooks_json is not JSON: {error}") from None
    return settings


def _timer_of(message: pb.TurnTimer) -> dict[str, Any]:
    return {n: getattr(message, n) for n in ("seconds", "policy") if message.HasField(n)}


def key_info(entry: dict[str, Any], created: dict[str, int]) -> pb.ApiKeyInfo:
    return pb.ApiKeyInfo(
        key_id=str(entry["id"]),
        scopes=list(entry.get("scopes", ["tenant"])),
        sha256_prefix=str(entry["sha256"])[:12],
        created_ms=int(created.get(str(entry["id"]), 0)),
    )


def tenant_message(tenant_id: str, record: dict[str, Any]) -> pb.Tenant:
    tenant = tenant_of(tenant_id, record)  # defaults filled in
    shown = redact(record) or {}
    hooks = shown.get("body", {}).get("webhooks")
    return pb.Tenant(
        tenant_id=tenant_id,
        suspended=tenant.suspended,
        quotas=pb.Quotas(**{name: getattr(tenant.quotas, name) for name in QUOTA_NAMES}),
        turn_timer=pb.TurnTimer(seconds=tenant.turn_timer.seconds, policy=tenant.turn_timer.policy),
        tables=pb.TableSettings(
            unclaimed_seconds=tenant.tables.unclaimed_seconds,
            turn_timer=pb.TurnTimer(
                seconds=tenant.tables.turn_timer.seconds, policy=tenant.tables.turn_timer.policy
            ),
        ),
        bots=pb.BotSettings(ticket_wait_seconds=int(tenant.bot_wait_s)),
        webhooks_json=json.dumps(hooks, sort_keys=True) if hooks is not None else "",
        keys=[key_info(k, record.get("key_created", {})) for k in record["body"].get("keys", [])],
        created_ms=int(record.get("created_ms", 0)),
        updated_ms=int(record.get("updated_ms", 0)),
    )


class AdminServicer(admin_pb2_grpc.AdminServiceServicer):  # type: ignore[misc]
    def __init__(self, ports: AdminPorts) -> None:
        self.ports = ports
        self.admin = ports.admin

    @unary("CreateTenant")
    async def CreateTenant(self, request: Any, context: Any, principal: Principal) -> Any:
        record = await self.admin.create_tenant(
            principal.key_id, request.tenant_id, settings_of(request.settings)
        )
        return pb.TenantResponse(tenant=tenant_message(request.tenant_id, record))

    @unary("UpdateTenant")
    async def UpdateTenant(self, request: Any, context: Any, principal: Principal) -> Any:
        record = await self.admin.update_tenant(
            principal.key_id, request.tenant_id, settings_of(request.settings)
        )
        return pb.TenantResponse(tenant=tenant_message(request.tenant_id, record))

    @unary("GetTenant")
    async def GetTenant(self, request: Any, context: Any, principal: Principal) -> Any:
        return pb.TenantResponse(
            tenant=tenant_message(request.tenant_id, await self.admin.get(request.tenant_id))
        )

    @unary("ListTenants")
    async def ListTenants(self, request: Any, context: Any, principal: Principal) -> Any:
        records = await self.admin.tenants()
        return pb.ListTenantsResponse(tenants=[tenant_message(t, r) for t, r in sorted(records.items())])

    @unary("SuspendTenant")
    async def SuspendTenant(self, request: Any, context: Any, principal: Principal) -> Any:
        record = await self.admin.set_suspended(principal.key_id, request.tenant_id, True, request.reason)
        return pb.TenantResponse(tenant=tenant_message(request.tenant_id, record))

    @unary("ResumeTenant")
    async def ResumeTenant(self, request: Any, context: Any, principal: Principal) -> Any:
        record = await self.admin.set_suspended(principal.key_id, request.tenant_id, False)
        return pb.TenantResponse(tenant=tenant_message(request.tenant_id, record))

    @unary("DeleteTenant")
    async def DeleteTenant(self, request: Any, context: Any, principal: Principal) -> Any:
        report = await self.admin.delete_tenant(
            principal.key_id, request.tenant_id, request.force, _wait_s(context)
        )
        return pb.DeleteTenantResponse(
            tenant_id=request.tenant_id,
            matches_archived=report.matches_archived,
            running_matches_archived=report.running_matches_archived,
            events_archived=report.events_archived,
            archive_verified=report.archive_verified,
            keys_deleted=report.keys_deleted,
            shared_entries_removed=report.shared_entries_removed,
            state=report.state,
            phase=report.phase,
            matches_total=report.matches_total,
            error=report.error,
            started_ms=report.started_ms,
            finished_ms=report.finished_ms,
        )

    @unary("CreateApiKey")
    async def CreateApiKey(self, request: Any, context: Any, principal: Principal) -> Any:
        entry, api_key = await self.admin.create_key(
            principal.key_id, request.tenant_id, request.key_id, list(request.scopes)
        )
        record = await self.admin.get(request.tenant_id)
        return pb.CreateApiKeyResponse(key=key_info(entry, record.get("key_created", {})), api_key=api_key)

    @unary("ListApiKeys")
    async def ListApiKeys(self, request: Any, context: Any, principal: Principal) -> Any:
        record = await self.admin.get(request.tenant_id)
        created = record.get("key_created", {})
        return pb.ListApiKeysResponse(keys=[key_info(k, created) for k in record["body"].get("keys", [])])

    @unary("RevokeApiKey")
    async def RevokeApiKey(self, request: Any, context: Any, principal: Principal) -> Any:
        entry = await self.admin.revoke_key(principal.key_id, request.tenant_id, request.key_id)
        return pb.RevokeApiKeyResponse(key=key_info(entry, {}))

    async def _tenants(self, tenant_id: str, all_tenants: bool) -> list[str]:
        """The tenant named (NOT_FOUND if it is not, or no longer, here), or with `all_tenants`
        every tenant."""
        if all_tenants:
            if tenant_id:
                raise invalid("name a tenant or ask for all tenants, not both")
            return sorted(await self.admin.tenants())
        if not tenant_id:
            raise invalid("tenant_id is required (or all_tenants)")
        await self.admin.get(tenant_id)
        return [tenant_id]

    @unary("GetUsage")
    async def GetUsage(self, request: Any, context: Any, principal: Principal) -> Any:
        tenants = await self._tenants(request.tenant_id, request.all_tenants)
        rows = await self.ports.ledger.rows(
            tenants, request.start, request.end, request.granularity, request.by_game
        )
        return pb.GetUsageResponse(
            rows=[
                pb.UsageRow(tenant_id=r.tenant, period=r.period, counters=r.counters, game_id=r.game)
                for r in rows
            ]
        )

    @unary("ReconcileUsage")
    async def ReconcileUsage(self, request: Any, context: Any, principal: Principal) -> Any:
        tenants = await self._tenants(request.tenant_id, not request.tenant_id)
        report = await self.ports.ledger.reconcile(tenants, request.start, request.end)
        return pb.ReconcileUsageResponse(
            ok=report.ok,
            differences=[
                pb.UsageDifference(
                    tenant_id=d.tenant,
                    game_id=d.game,
                    period=d.period,
                    counter=d.counter,
                    usage=d.usage,
                    event_store=d.event_store,
                )
                for d in report.differences
            ],
            tenants_checked=report.tenants,
            matches_checked=report.matches,
            events_checked=report.events,
            first_period=report.first,
            last_period=report.last,
            counters=list(RECONCILED),
        )

    @unary("ListAdminLog")
    async def ListAdminLog(self, request: Any, context: Any, principal: Principal) -> Any:
        entries, report = await self.admin.read_log(request.after_version, request.limit)
        return pb.ListAdminLogResponse(
            entries=[
                pb.AdminLogEntry(
                    version=e.version,
                    time_ms=e.time_ms,
                    operator_key_id=e.operator,
                    action=e.action,
                    tenant_id=e.tenant,
                    before_json=json.dumps(e.before, sort_keys=True),
                    after_json=json.dumps(e.after, sort_keys=True),
                    hash=e.hash,
                )
                for e in entries
            ],  # fmt: skip
            chain_ok=report.ok,
            chain_problem=report.problem,
            first_bad_version=report.first_bad_version or 0,
            head_hash=report.head_hash,
        )

    @unary("GetAdminLogCheckpoint")
    async def GetAdminLogCheckpoint(self, request: Any, context: Any, principal: Principal) -> Any:
        taken = await self.admin.checkpoint()
        return pb.AdminLogCheckpoint(
            length=taken.length,
            head_hash=taken.head_hash,
            key_id=taken.key_id,
            signature=taken.signature,
            time_ms=taken.time_ms,
        )

    @unary("VerifyAdminLog")
    async def VerifyAdminLog(self, request: Any, context: Any, principal: Principal) -> Any:
        given = None
        if request.HasField("checkpoint"):
            kept = request.checkpoint
            given = Checkpoint(kept.length, kept.head_hash, kept.key_id, kept.signature, kept.time_ms)
        report = await self.admin.verify_log(given)
        return pb.VerifyAdminLogResponse(
            ok=report.ok,
            problems=report.problems,
            length=report.length,
            head_hash=report.head_hash,
            unsigned_versions=report.unsigned,
            chain_ok=not report.chain_problem,
            first_bad_version=report.first_bad_version or 0,
            checkpoint_ok=not report.checkpoint_problem,
            unexplained=[pb.UnexplainedRecord(tenant_id=t, problem=why) for t, why in report.unexplained],
        )

    # -- admin keys (issue 43) -------------------------------------------------------------------

    @unary("CreateAdminKey")
    async def CreateAdminKey(self, request: Any, context: Any, principal: Principal) -> Any:
        entry, api_key = await self.admin.create_admin_key(
            principal.key_id, request.key_id, request.role, int(request.ttl_seconds)
        )
        return pb.CreateAdminKeyResponse(key=admin_key_info(entry, now_ms()), api_key=api_key)

    @unary("ListAdminKeys")
    async def ListAdminKeys(self, request: Any, context: Any, principal: Principal) -> Any:
        now = now_ms()
        return pb.ListAdminKeysResponse(keys=[admin_key_info(k, now) for k in await self.admin.admin_keys()])

    @unary("RevokeAdminKey")
    async def RevokeAdminKey(self, request: Any, context: Any, principal: Principal) -> Any:
        entry = await self.admin.revoke_admin_key(principal.key_id, request.key_id)
        return pb.RevokeAdminKeyResponse(key=admin_key_info(entry, now_ms()))

    @unary("RestoreTenant")
    async def RestoreTenant(self, request: Any, context: Any, principal: Principal) -> Any:
        restored = await self.admin.restore_tenant(principal.key_id, request.tenant_id)
        response = pb.RestoreTenantResponse(
            changed=restored.changed, removed=restored.removed, webhooks_dropped=restored.webhooks_dropped
        )
        if restored.record is not None and not restored.record.get("deleted"):
            response.tenant.CopyFrom(tenant_message(request.tenant_id, restored.record))
        return response

    # -- rules versions (issue 40) ---------------------------------------------------------------

    def _rules(self) -> RulesAdmin:
        if self.ports.rules is None:
            raise AdminError(grpc.StatusCode.FAILED_PRECONDITION, "this gateway has no rules directory")
        return self.ports.rules

    async def _listed(self, game: str = "") -> pb.ListRulesResponse:
        return pb.ListRulesResponse(games=[_game_rules(g) for g in await self._rules().listing(game)])

    @unary("ListRules")
    async def ListRules(self, request: Any, context: Any, principal: Principal) -> Any:
        return await self._listed(request.game_id)

    @unary("SetCurrentRules")
    async def SetCurrentRules(self, request: Any, context: Any, principal: Principal) -> Any:
        await self._rules().set_current(
            principal.key_id,
            request.game_id,
            request.rules_version,
            request.ramp_version,
            request.ramp_percent,
        )
        return await self._listed(request.game_id)

    @unary("AddRulesTarget")
    async def AddRulesTarget(self, request: Any, context: Any, principal: Principal) -> Any:
        await self._rules().add_target(principal.key_id, request.game_id, request.target)
        return await self._listed(request.game_id)

    @unary("RemoveRulesTarget")
    async def RemoveRulesTarget(self, request: Any, context: Any, principal: Principal) -> Any:
        await self._rules().remove_target(principal.key_id, request.game_id, request.target)
        return await self._listed(request.game_id)

    @unary("MoveMatch")
    async def MoveMatch(self, request: Any, context: Any, principal: Principal) -> Any:
        moved = await self._rules().move(
            principal.key_id, request.tenant_id, request.match_id, request.rules_version
        )
        return pb.MoveMatchResponse(
            from_version=moved.from_version, to_version=moved.to_version, moved_at_version=moved.at_version
        )

    @unary("ReconcilePinnedMatches")
    async def ReconcilePinnedMatches(self, request: Any, context: Any, principal: Principal) -> Any:
        await self._rules().reconcile(principal.key_id)
        return await self._listed()

    @streaming("CheckRules")
    async def CheckRules(self, request: Any, context: Any, principal: Principal) -> AsyncIterator[Any]:
        golden = [(g.name, g.text) for g in request.golden]
        checked = diverging = 0
        total = 0
        async for total, result in self._rules().check(
            request.game_id,
            request.rules_version,
            tenant=request.tenant_id,
            sample=request.sample,
            golden=golden,
        ):
            checked += 1
            diverging += int(result.diverges)
            yield pb.CheckRulesProgress(
                checked=checked,
                total=total,
                diverging=diverging,
                match=pb.CheckedMatch(
                    name=result.name,
                    diverges=result.diverges,
                    first_divergent_version=result.first_divergent_version,
                    reason=result.reason,
                    recorded_version=result.recorded_version,
                ),
            )
        yield pb.CheckRulesProgress(checked=checked, total=total, diverging=diverging, done=True)


def _game_rules(listing: Any) -> pb.GameRules:
    return pb.GameRules(
        game_id=listing.game,
        current_version=listing.current,
        current_is_default=listing.current_is_default,
        ramp_version=listing.ramp_version,
        ramp_percent=listing.ramp_percent,
        versions=[
            pb.RulesVersion(
                rules_version=v.version,
                targets=[
                    pb.RulesTarget(
                        target=t.address, registered=t.registered, answering=t.answering, problem=t.problem
                    )
                    for t in v.targets
                ],
                answering=v.answering,
                current=v.current,
                ramp_percent=v.ramp_percent,
                live_matches=v.live_matches,
                bundle=v.bundle,
            )
            for v in listing.versions
        ],
    )


def admin_key_info(entry: dict[str, Any], now_ms: int) -> pb.AdminKeyInfo:
    expires = int(entry.get("expires_ms", 0))
    return pb.AdminKeyInfo(
        key_id=str(entry["id"]),
        role=str(entry["role"]),
        sha256_prefix=str(entry["sha256"])[:12],
        created_ms=int(entry.get("created_ms", 0)),
        expires_ms=expires,
        created_by=str(entry.get("created_by", "")),
        source=str(entry.get("source", "api")),
        expired=bool(expires) and now_ms >= expires,
    )


def _wait_s(context: Any) -> float:
    """How long DeleteTenant waits for its job: until shortly before the caller's deadline, and
    MAX_WAIT_S at most (a caller without a deadline gets MAX_WAIT_S)."""
    remaining = getattr(context, "time_remaining", None)
    left = remaining() if callable(remaining) else None
    return MAX_WAIT_S if left is None else max(min(left - 1.0, MAX_WAIT_S), 0.0)
