"""A delegation: one member's authority lent to another for whole days, never deleted.

The window is ``valid_from``..``valid_to`` in the organization's time zone, both days
included (a cover that ends today works until midnight there). Revoking stamps the
row; a decision taken under a delegation names it, so the row must outlive the cover.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import CheckConstraint, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from portal.core.db import Base, CreatedAt, TenantScoped, tenant_fk


class Delegation(TenantScoped, CreatedAt, Base):
    __tablename__ = "delegation"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("delegator_id", "membership", ondelete="RESTRICT"),
        tenant_fk("delegate_id", "membership", ondelete="RESTRICT"),
        tenant_fk("created_by", "membership", ondelete="RESTRICT"),
        tenant_fk("revoked_by", "membership", ondelete="RESTRICT"),
        CheckConstraint("delegator_id <> delegate_id", name="not_to_oneself"),
        CheckConstraint("valid_to >= valid_from", name="window"),
        CheckConstraint("(revoked_at IS NULL) = (revoked_by IS NULL)", name="revoked_by_someone"),
        # Whom I cover (the inbox, the document's authority); who covers me (the banner).
        Index("ix_delegation_delegate", "org_id", "delegate_id", "valid_to"),
        Index("ix_delegation_delegator", "org_id", "delegator_id", "valid_to"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # Whose authority is lent, and to whom.
    delegator_id: Mapped[int]
    delegate_id: Mapped[int]
    # One kind of document (``expense_claim``), or None: every kind.
    kind: Mapped[str | None] = mapped_column(String(63))
    # Whole days in the organization's zone, both included.
    valid_from: Mapped[date]
    valid_to: Mapped[date]
    reason: Mapped[str] = mapped_column(Text)
    # The delegator, or an admin setting cover for an absent member.
    created_by: Mapped[int]
    revoked_at: Mapped[datetime | None]
    revoked_by: Mapped[int | None]
    # When the delegate was told the cover began, and when both were told it ended
    # (the delegator with a summary): each notice once.
    start_noticed_at: Mapped[datetime | None]
    end_noticed_at: Mapped[datetime | None]

    def __repr__(self) -> str:
        return f"<Delegation {self.delegator_id}->{self.delegate_id} {self.valid_from}..{self.valid_to}>"
