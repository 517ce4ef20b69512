"""Every export is itself recorded: who took which kind, of what filter or document, and
how many rows — written in the transaction that counted them, before the first row is
sent, so an export that fails half-way is still on record."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy.orm import Session

from portal.audit.models import AuditExport, ExportKind
from portal.core.clock import clock
from portal.domain.actor import Actor


def record_export_in(
    session: Session,
    actor: Actor,
    kind: str,
    *,
    rows: int,
    filters: Mapping[str, str] | None = None,
    reference: str | None = None,
    request_id: str | None = None,
) -> AuditExport:
    assert kind in ExportKind.ALL, kind
    row = AuditExport(
        org_id=actor.org_id,
        member_id=actor.member_id,
        kind=kind,
        filters=dict(filters or {}),
        reference=reference,
        rows=rows,
        request_id=request_id,
        created_at=clock.now(),
    )
    session.add(row)
    session.flush()
    return row
