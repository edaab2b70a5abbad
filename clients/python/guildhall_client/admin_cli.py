"""`guildhall admin ...`: the operator plane (issue 34) over guildhall.admin.v1.AdminService.

Every command needs an admin key (--api-key / GUILDHALL_API_KEY): the role write for changes, read
(or write) for listing and reading; and the gateway's admin listener as its target (issue 43:
--target / GUILDHALL_TARGET host:50052, not the public port). docs/deploy.md "Tenants at runtime"
walks through onboarding, revoking, billing, offboarding; "The admin plane" through admin keys.
"""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from guildhall.admin.v1 import admin_pb2 as pb
from rich.console import Console
from rich.table import Table

from guildhall_client.cli_base import admin_call as _call

T = TypeVar("T")
admin_app = typer.Typer(
    help="Tenants, API keys, usage, offboarding and rules versions: an admin key, and the gateway's "
    "admin listener as --target (ADMIN_PORT, default 50052).",
    no_args_is_help=True,
)
console = Console(highlight=False)
COUNTERS = (
    "matches_created", "matches_finished", "actions_accepted", "events_stored", "bytes_stored",
    "webhook_deliveries", "stream_seconds", "bot_seat_seconds",
)  # fmt: skip


def _settings(
    open_tickets: int | None,
    active_matches: int | None,
    actions_per_second: float | None,
    reads_per_second: float | None,
    turn_timer_seconds: int | None,
    turn_timer_policy: str | None,
    bot_wait_seconds: int | None,
    webhooks_file: Path | None,
    no_webhooks: bool,
) -> pb.TenantSettings:
    quotas: dict[str, Any] = {
        k: v
        for k, v in dict(
            open_tickets=open_tickets, active_matches=active_matches,
            actions_per_second=actions_per_second, reads_per_second=reads_per_second,
        ).items()
        if v is not None
    }  # fmt: skip
    timer: dict[str, Any] = {
        k: v for k, v in dict(seconds=turn_timer_seconds, policy=turn_timer_policy).items() if v is not None
    }
    hooks = "null" if no_webhooks else (webhooks_file.read_text() if webhooks_file else "")
    return pb.TenantSettings(
        quotas=pb.Quotas(**quotas),
        turn_timer=pb.TurnTimer(**timer),
        bots=pb.BotSettings(ticket_wait_seconds=bot_wait_seconds) if bot_wait_seconds is not None else None,
        webhooks_json=hooks,
    )


OpenTickets = Annotated[int | None, typer.Option(help="Quota: open tickets")]
ActiveMatches = Annotated[int | None, typer.Option(help="Quota: active matches")]
ActionsPerSecond = Annotated[float | None, typer.Option(help="Quota: actions per second")]
ReadsPerSecond = Annotated[float | None, typer.Option(help="Quota: reads per second")]
TimerSeconds = Annotated[int | None, typer.Option(help="Default turn timer, seconds (0: none)")]
TimerPolicy = Annotated[str | None, typer.Option(help="Turn timer policy: random_action | forfeit")]
BotWait = Annotated[int | None, typer.Option(help="Bots: a ticket's default wait, seconds")]
WebhooksFile = Annotated[Path | None, typer.Option(help="The tenants file's webhooks object (JSON)")]
NoWebhooks = Annotated[bool, typer.Option("--no-webhooks", help="Remove the tenant's webhooks")]


def _show(tenant: pb.Tenant) -> None:
    state = "[red]suspended[/red]" if tenant.suspended else "active"
    console.print(f"tenant {tenant.tenant_id}: {state}")
    q = tenant.quotas
    console.print(
        f"  quotas: open_tickets={q.open_tickets} active_matches={q.active_matches} "
        f"actions_per_second={q.actions_per_second:g} reads_per_second={q.reads_per_second:g}"
    )
    console.print(f"  turn timer: {tenant.turn_timer.seconds}s {tenant.turn_timer.policy}")
    console.print(f"  bots: ticket_wait_seconds={tenant.bots.ticket_wait_seconds}")
    console.print(f"  webhooks: {tenant.webhooks_json or 'none'}")
    shown = ", ".join(f"{k.key_id} ({','.join(k.scopes)})" for k in tenant.keys)
    console.print(f"  keys: {shown or 'none'}")


@admin_app.command("create-tenant")
def create_tenant(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Argument(help="Tenant id")],
    open_tickets: OpenTickets = None, active_matches: ActiveMatches = None,
    actions_per_second: ActionsPerSecond = None, reads_per_second: ReadsPerSecond = None,
    turn_timer_seconds: TimerSeconds = None, turn_timer_policy: TimerPolicy = None,
    bot_wait_seconds: BotWait = None, webhooks_file: WebhooksFile = None,
) -> None:  # fmt: skip
    """Onboard a tenant (then: create-key)."""
    settings = _settings(
        open_tickets, active_matches, actions_per_second, reads_per_second,
        turn_timer_seconds, turn_timer_policy, bot_wait_seconds, webhooks_file, False,
    )  # fmt: skip
    _show(_call(ctx, "CreateTenant", pb.CreateTenantRequest(tenant_id=tenant, settings=settings)).tenant)


@admin_app.command("update-tenant")
def update_tenant(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Argument(help="Tenant id")],
    open_tickets: OpenTickets = None, active_matches: ActiveMatches = None,
    actions_per_second: ActionsPerSecond = None, reads_per_second: ReadsPerSecond = None,
    turn_timer_seconds: TimerSeconds = None, turn_timer_policy: TimerPolicy = None,
    bot_wait_seconds: BotWait = None, webhooks_file: WebhooksFile = None, no_webhooks: NoWebhooks = False,
) -> None:  # fmt: skip
    """Change the settings given; the others keep their values."""
    settings = _settings(
        open_tickets, active_matches, actions_per_second, reads_per_second,
        turn_timer_seconds, turn_timer_policy, bot_wait_seconds, webhooks_file, no_webhooks,
    )  # fmt: skip
    _show(_call(ctx, "UpdateTenant", pb.UpdateTenantRequest(tenant_id=tenant, settings=settings)).tenant)


@admin_app.command("show")
def show(ctx: typer.Context, tenant: Annotated[str, typer.Argument(help="Tenant id")]) -> None:
    """One tenant's settings and keys."""
    _show(_call(ctx, "GetTenant", pb.GetTenantRequest(tenant_id=tenant)).tenant)


@admin_app.command("tenants")
def tenants(ctx: typer.Context) -> None:
    """Every tenant."""
    table = Table(title="Tenants")
    for column in ("tenant", "state", "keys", "active matches", "actions/s"):
        table.add_column(column)
    for t in _call(ctx, "ListTenants", pb.ListTenantsRequest()).tenants:
        state = "suspended" if t.suspended else "active"
        table.add_row(
            t.tenant_id,
            state,
            str(len(t.keys)),
            str(t.quotas.active_matches),
            f"{t.quotas.actions_per_second:g}",
        )
    console.print(table)


@admin_app.command("suspend")
def suspend(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Argument(help="Tenant id")],
    reason: Annotated[str, typer.Option(help="Recorded in the admin log")] = "",
) -> None:
    """Refuse every key and token of the tenant and end its open streams (every replica, < 2 s)."""
    _call(ctx, "SuspendTenant", pb.SuspendTenantRequest(tenant_id=tenant, reason=reason))
    typer.echo(f"{tenant} suspended")


@admin_app.command("resume")
def resume(ctx: typer.Context, tenant: Annotated[str, typer.Argument(help="Tenant id")]) -> None:
    """Lift a suspension."""
    _call(ctx, "ResumeTenant", pb.ResumeTenantRequest(tenant_id=tenant))
    typer.echo(f"{tenant} resumed")


@admin_app.command("delete-tenant")
def delete_tenant(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Argument(help="Tenant id")],
    force: Annotated[bool, typer.Option("--force", help="Archive and remove running matches too")] = False,
    wait: Annotated[bool, typer.Option("--wait", help="Follow the job to its end")] = False,
) -> None:  # fmt: skip
    """Offboard: archive and verify every match, then remove every Redis key of the tenant.

    A job on the gateways: it goes on if this command stops or a gateway dies (another takes it
    over). Run the command again, or with --wait, to follow it; again after a failure to retry."""
    request = pb.DeleteTenantRequest(tenant_id=tenant, force=force)
    r = _call(ctx, "DeleteTenant", request)
    shown = ""
    while wait and r.state == "running":
        line = _progress(r)
        if line != shown:
            typer.echo(line)
            shown = line
        time.sleep(0.5)
        r = _call(ctx, "DeleteTenant", request)
    if r.state == "failed":
        typer.echo(f"{tenant}: offboarding stopped in {r.phase}: {r.error}", err=True)
        typer.echo("nothing was removed after the failed step; run delete-tenant again to retry", err=True)
        raise typer.Exit(1)
    if r.state == "running":
        typer.echo(_progress(r))
        typer.echo(f"the job goes on; follow it with: guildhall admin delete-tenant {tenant} --wait")
        return
    typer.echo(
        f"{tenant} deleted: {r.matches_archived} matches archived ({r.running_matches_archived} running), "
        f"{r.events_archived} events, archive verified: {'yes' if r.archive_verified else 'NO'}, "
        f"{r.keys_deleted} Redis keys removed, {r.shared_entries_removed} shared entries removed"
    )


def _progress(r: pb.DeleteTenantResponse) -> str:
    total = f" of {r.matches_total}" if r.phase not in ("suspending", "settling") else ""
    return (
        f"{r.tenant_id}: {r.phase}: {r.matches_archived}{total} matches archived, "
        f"{r.keys_deleted} Redis keys removed"
    )


@admin_app.command("restore-tenant")
def restore_tenant(ctx: typer.Context, tenant: Annotated[str, typer.Argument(help="Tenant id")]) -> None:
    """Put back the record the admin log wrote last for the tenant (after `admin log verify`
    named it), or remove a tenant record the log never wrote."""
    r = _call(ctx, "RestoreTenant", pb.RestoreTenantRequest(tenant_id=tenant))
    if not r.changed:
        typer.echo(f"{tenant}: Redis already holds the record the admin log wrote")
    elif r.removed:
        typer.echo(f"{tenant}: the admin log never wrote this tenant; its record was removed")
    else:
        _show(r.tenant)
        if r.webhooks_dropped:
            typer.echo("its webhook secrets were not the logged ones: webhooks removed, configure them again")


@admin_app.command("create-key")
def create_key(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Argument(help="Tenant id")],
    key_id: Annotated[str, typer.Option("--id", help="The key's id (default k<n>)")] = "",
    scopes: Annotated[str, typer.Option(help="Comma-separated: tenant, auditor")] = "tenant",
) -> None:
    """A new API key for the tenant: shown once, stored only as its sha256."""
    r = _call(
        ctx, "CreateApiKey",
        pb.CreateApiKeyRequest(tenant_id=tenant, key_id=key_id, scopes=[s for s in scopes.split(",") if s]),
    )  # fmt: skip
    typer.echo(f"key {r.key.key_id} ({','.join(r.key.scopes)}) for {tenant}; shown once, not stored:")
    typer.echo(r.api_key)


@admin_app.command("keys")
def keys(ctx: typer.Context, tenant: Annotated[str, typer.Argument(help="Tenant id")]) -> None:
    """The tenant's keys (ids, scopes, hash prefixes; never the keys)."""
    table = Table(title=f"Keys of {tenant}")
    for column in ("id", "scopes", "sha256", "created"):
        table.add_column(column)
    for k in _call(ctx, "ListApiKeys", pb.ListApiKeysRequest(tenant_id=tenant)).keys:
        created = (
            time.strftime("%Y-%m-%d %H:%M", time.gmtime(k.created_ms / 1000)) if k.created_ms else "(file)"
        )
        table.add_row(k.key_id, ",".join(k.scopes), k.sha256_prefix + "...", created)
    console.print(table)


@admin_app.command("revoke-key")
def revoke_key(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Argument(help="Tenant id")],
    key_id: Annotated[str, typer.Argument(help="The key's id (guildhall admin keys)")],
) -> None:
    """Refuse the key on every replica within 2 seconds."""
    _call(ctx, "RevokeApiKey", pb.RevokeApiKeyRequest(tenant_id=tenant, key_id=key_id))
    typer.echo(f"key {key_id} of {tenant} revoked")


@admin_app.command("usage")
def usage(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option(help="Tenant id (or --all)")] = "",
    all_tenants: Annotated[bool, typer.Option("--all", help="Every tenant's rows, tenant by tenant")] = False,
    start: Annotated[
        str, typer.Option("--from", help="UTC YYYY-MM-DD or YYYY-MM-DDTHH (default today)")
    ] = "",
    end: Annotated[str, typer.Option("--to", help="UTC, inclusive (default now)")] = "",
    granularity: Annotated[str, typer.Option(help="hour | day")] = "day",
    by_game: Annotated[
        bool, typer.Option("--by-game", help="A row per game too (column game; empty: all games)")
    ] = False,
    output: Annotated[str, typer.Option("--format", help="csv | json")] = "csv",
) -> None:
    """Usage for billing: one row per tenant and period with usage (and per game); every counter a
    column."""
    if output not in ("csv", "json"):
        raise typer.BadParameter("--format is csv or json")
    if all_tenants == bool(tenant):
        raise typer.BadParameter("give --tenant TENANT or --all")
    request = pb.GetUsageRequest(
        tenant_id=tenant,
        start=start,
        end=end,
        granularity=granularity,
        by_game=by_game,
        all_tenants=all_tenants,
    )
    columns = ["tenant", "period", *(["game"] if by_game else []), *COUNTERS]
    rows = [
        {
            "tenant": r.tenant_id,
            "period": r.period,
            **({"game": r.game_id} if by_game else {}),
            **{c: int(r.counters.get(c, 0)) for c in COUNTERS},
        }
        for r in _call(ctx, "GetUsage", request).rows
    ]
    if output == "json":
        typer.echo(json.dumps(rows, indent=2))
        return
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    typer.echo(out.getvalue(), nl=False)


@admin_app.command("reconcile")
def reconcile(
    ctx: typer.Context,
    start: Annotated[str, typer.Option("--from", help="UTC YYYY-MM-DD or YYYY-MM-DDTHH")],
    end: Annotated[str, typer.Option("--to", help="UTC, inclusive (default: --from's day or hour)")] = "",
    tenant: Annotated[str, typer.Option(help="One tenant (default every tenant)")] = "",
    as_json: Annotated[bool, typer.Option("--json", help="The report as JSON")] = False,
) -> None:
    """Before invoicing: the usage counters against the event store (every match's entries, live
    and archived), hour by hour, per tenant and game. Exit 3 when they differ, each difference
    named. Run it on closed hours (the current one is still being flushed)."""
    r = _call(ctx, "ReconcileUsage", pb.ReconcileUsageRequest(tenant_id=tenant, start=start, end=end))
    differences = [
        {
            "tenant": d.tenant_id, "game": d.game_id, "period": d.period, "counter": d.counter,
            "usage": d.usage, "event_store": d.event_store,
        }
        for d in r.differences
    ]  # fmt: skip
    if as_json:
        typer.echo(json.dumps({
            "ok": r.ok, "from": r.first_period, "to": r.last_period, "tenants": r.tenants_checked,
            "matches": r.matches_checked, "events": r.events_checked, "counters": list(r.counters),
            "differences": differences,
        }, indent=2))  # fmt: skip
    else:
        typer.echo(
            f"{r.first_period} to {r.last_period}: {r.tenants_checked} tenants, {r.matches_checked} matches, "
            f"{r.events_checked} events; {', '.join(r.counters)}"
        )
        for d in differences:
            game = d["game"] or "all games"
            typer.echo(
                f"DIFFERENT {d['tenant']} {game} {d['period']} {d['counter']}: usage {d['usage']}, "
                f"event store {d['event_store']} ({d['usage'] - d['event_store']:+d})"
            )
        if r.ok:
            typer.echo("usage agrees with the event store")
    if not r.ok:
        raise typer.Exit(3)


log_app = typer.Typer(help="The admin log: read it, keep a signed checkpoint, verify it against one.")
admin_app.add_typer(log_app, name="log")


@log_app.callback(invoke_without_command=True)
def log(
    ctx: typer.Context,
    after: Annotated[int, typer.Option(help="Entries after this version")] = 0,
    limit: Annotated[int, typer.Option(help="At most this many")] = 100,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line")] = False,
) -> None:
    """The admin log, and whether its hash chain verifies."""
    if ctx.invoked_subcommand is not None:
        return
    r = _call(ctx, "ListAdminLog", pb.ListAdminLogRequest(after_version=after, limit=limit))
    for e in r.entries:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(e.time_ms / 1000))
        if as_json:
            typer.echo(json.dumps({
                "version": e.version, "time": when, "operator": e.operator_key_id, "action": e.action,
                "tenant": e.tenant_id, "before": json.loads(e.before_json), "after": json.loads(e.after_json),
                "hash": e.hash,
            }))  # fmt: skip
        else:
            typer.echo(f"{e.version:>5} {when} {e.operator_key_id:<16} {e.action:<16} {e.tenant_id}")
    verdict = "chain verifies" if r.chain_ok else f"CHAIN BROKEN at {r.first_bad_version}: {r.chain_problem}"
    typer.echo(f"# {verdict} (head {r.head_hash[:16]})", err=True)
    if not r.chain_ok:
        raise typer.Exit(3)


@log_app.command("checkpoint")
def checkpoint(ctx: typer.Context) -> None:
    """The log's head now, signed by the gateway, as JSON: keep it outside Redis (a file, a
    ticket, object storage with retention) and verify against it later."""
    from google.protobuf import json_format

    r = _call(ctx, "GetAdminLogCheckpoint", pb.GetAdminLogCheckpointRequest())
    body = json_format.MessageToDict(r, preserving_proto_field_name=True)
    typer.echo(json.dumps({"format": CHECKPOINT_FORMAT, **body}, indent=2, sort_keys=True))


@log_app.command("verify")
def verify(
    ctx: typer.Context,
    checkpoint_file: Annotated[
        Path | None, typer.Option("--checkpoint", help="A checkpoint kept earlier (log checkpoint)")
    ] = None,
) -> None:
    """The log's chain and signatures; against a kept checkpoint, a cut or rewritten tail; and
    every tenant record Redis holds that the log does not explain. Exit 3 on any problem."""
    request = pb.VerifyAdminLogRequest()
    if checkpoint_file is not None:
        request.checkpoint.CopyFrom(_read_checkpoint(checkpoint_file))
    r = _call(ctx, "VerifyAdminLog", request)
    typer.echo(f"admin log: {r.length} entries, head {r.head_hash[:16]}")
    if checkpoint_file is not None and r.checkpoint_ok:
        typer.echo(f"continues the checkpoint of {request.checkpoint.length} entries")
    for problem in r.problems:
        typer.echo(f"PROBLEM: {problem}")
    if not r.ok:
        raise typer.Exit(3)
    typer.echo("verifies: every entry since receipts began is signed, every tenant record explained")


CHECKPOINT_FORMAT = "guildhall-admin-log-checkpoint-v1"


def _read_checkpoint(path: Path) -> pb.AdminLogCheckpoint:
    from google.protobuf import json_format

    try:
        body = json.loads(path.read_text())
        if not isinstance(body, dict) or body.pop("format", None) != CHECKPOINT_FORMAT:
            raise ValueError(f"not a {CHECKPOINT_FORMAT} file")
        kept = pb.AdminLogCheckpoint()
        json_format.ParseDict(body, kept)
        return kept
    except (OSError, ValueError, json_format.ParseError) as error:
        raise typer.BadParameter(f"{path}: {error}", param_hint="--checkpoint") from None


def _rules_app() -> typer.Typer:
    from guildhall_client.admin_rules_cli import rules_app  # issue 40: rules versions side by side

    return rules_app


admin_app.add_typer(_rules_app(), name="rules")


# -- issue 43: admin keys ----------------------------------------------------------------------

keys_app = typer.Typer(
    help="Admin keys made at runtime: a role (read or write) and an expiry each, every change in the "
    "admin log; the tenants file's operators keys are listed beside them."
)
admin_app.add_typer(keys_app, name="admin-keys")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _seconds(text: str) -> int:
    """`90d`, `12h`, `30m`, `3600s` or `3600` as seconds."""
    number, unit = (text[:-1], text[-1]) if text and text[-1] in _UNITS else (text, "s")
    if not number.isdigit():
        raise typer.BadParameter(f"{text!r} is not a duration like 90d, 12h, 30m or 3600s")
    return int(number) * _UNITS[unit]


def _when(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ms / 1000)) if ms else "-"


@keys_app.command("create")
def create_admin_key(
    ctx: typer.Context,
    key_id: Annotated[str, typer.Argument(help="The key's id (the admin log names it)")],
    role: Annotated[
        str, typer.Option(help="read (list, get, usage, the log) or write (everything)")
    ] = "read",
    expires_in: Annotated[str, typer.Option(help="Lifetime: 1h to 400d")] = "90d",
) -> None:
    """A new admin key: shown once, stored only as its sha256."""
    request = pb.CreateAdminKeyRequest(key_id=key_id, role=role, ttl_seconds=_seconds(expires_in))
    r = _call(ctx, "CreateAdminKey", request)
    typer.echo(
        f"admin key {r.key.key_id} (role {r.key.role}, expires {_when(r.key.expires_ms)} UTC); shown once:"
    )
    typer.echo(r.api_key)


@keys_app.command("list")
def list_admin_keys(ctx: typer.Context) -> None:
    """Every admin key (ids, roles, expiries, hash prefixes; never the keys)."""
    table = Table(title="Admin keys")
    for column in ("id", "role", "source", "created", "by", "expires", "sha256"):
        table.add_column(column)
    for k in _call(ctx, "ListAdminKeys", pb.ListAdminKeysRequest()).keys:
        expires = _when(k.expires_ms) + (" (expired)" if k.expired else "")
        table.add_row(
            k.key_id,
            k.role,
            k.source,
            _when(k.created_ms),
            k.created_by or "-",
            expires,
            k.sha256_prefix + "...",
        )
    console.print(table)


@keys_app.command("revoke")
def revoke_admin_key(
    ctx: typer.Context, key_id: Annotated[str, typer.Argument(help="The key's id (admin-keys list)")]
) -> None:
    """Refuse the admin key on every replica within 2 seconds."""
    _call(ctx, "RevokeAdminKey", pb.RevokeAdminKeyRequest(key_id=key_id))
    typer.echo(f"admin key {key_id} revoked")
