"""Audit and ExportMatch on the wire: the request's receipts checked and converted, the answers
as protobuf (the transports share them, as they share gateway/api/wire.py for the other RPCs)."""

from __future__ import annotations

from typing import Any

from guildhall.gateway.v1 import gateway_pb2

from gateway.api.wire import BadRequest
from gateway.domain.audit import HeldReceipt
from gateway.usecases.audit import MAX_CLIENT_RECEIPTS


def held_receipts(request: Any) -> list[HeldReceipt]:
    """AuditRequest.receipts, at most MAX_CLIENT_RECEIPTS of them."""
    if len(request.receipts) > MAX_CLIENT_RECEIPTS:
        raise BadRequest(f"an audit takes at most {MAX_CLIENT_RECEIPTS} receipts")
    return [
        HeldReceipt(r.tenant, r.match_id, r.key_id, int(r.version), r.head_hash, bytes(r.signature))
        for r in request.receipts
    ]


def audit_pb(result: Any) -> gateway_pb2.AuditResponse:
    return gateway_pb2.AuditResponse(
        ok=result.ok,
        checked_versions=result.checked_versions,
        first_bad_version=result.first_bad_version or 0,
        reason=result.reason or "",
        evidence=getattr(result, "evidence", ""),
        findings=[
            gateway_pb2.AuditFinding(
                version=f.version, through_version=f.through, evidence=f.evidence, reason=f.reason
            )
            for f in getattr(result, "findings", ())
        ],
        receipts_compared=getattr(result, "receipts_compared", 0),
        receipts_refused=getattr(result, "receipts_refused", 0),
    )


def up_to_version(request: Any) -> int | None:
    return int(request.up_to_version) if request.HasField("up_to_version") else None


def exported_pb(exported: Any) -> gateway_pb2.ExportMatchResponse:
    return gateway_pb2.ExportMatchResponse(
        data=exported.data, version=exported.version, finished=exported.finished
    )
