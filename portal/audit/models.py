"""The audit feature's own records: every export (who took what, when) and every
verification of the organization's hash chains (when, how many, which broke).

Both append-only: a record of an export or a verification is evidence too.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from portal.core.db import Base, CreatedAt, TenantScoped, tenant_fk


class ExportKind:
    SEARCH_CSV = "search_csv"
    SEARCH_JSON = "search_json"
    DOCUMENT = "document"  # one document's complete record with its hash chain
    STALLS_CSV = "stalls_csv"
    ALL = (SEARCH_CSV, SEARCH_JSON, DOCUMENT, STALLS_CSV)


class AuditExport(TenantScoped, CreatedAt, Base):
    __tablename__ = "audit_export"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("member_id", "membership", ondelete="RESTRICT"),
        Index("ix_audit_export_created", "org_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int]
    kind: Mapped[str] = mapped_column(String(20))
    # The filter as the query string held it (search exports, the stall chart's CSV).
    filters: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # The document, for a one-document export.
    reference: Mapped[str | None] = mapped_column(String(32))
    # How many rows the export holds (counted before the first was sent).
    rows: Mapped[int]
    request_id: Mapped[str | None] = mapped_column(String(64))

    def __repr__(self) -> str:
        return f"<AuditExport {self.kind} by {self.member_id} rows={self.rows}>"


class VerificationTrigger:
    NIGHTLY = "nightly"
    MANUAL = "manual"  # an auditor or admin asked, from the audit home page
    CLI = "cli"  # an operator ran ``portal audit verify``
    ALL = (NIGHTLY, MANUAL, CLI)


class ChainVerification(TenantScoped, Base):
    """One pass over every document's hash chain in the organization."""

    __tablename__ = "chain_verification"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("member_id", "membership", ondelete="RESTRICT"),
        Index("ix_chain_verification_finished", "org_id", "finished_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    trigger: Mapped[str] = mapped_column(String(10))
    # Who asked (a manual pass); None for the nightly job and the command line.
    member_id: Mapped[int | None]
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime]
    # Documents whose chains were read, and the decisions in them.
    chains: Mapped[int]
    decisions: Mapped[int]
    # Each broken chain: [{"reference": "EXP-2026-00042", "document_id": 7, "seq": 3}],
    # ``seq`` the first decision that does not follow. Empty: every chain held.
    failures: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def __repr__(self) -> str:
        return (
            f"<ChainVerification {self.trigger} chains={self.chains} broken={len(self.failures)}>"
        )
