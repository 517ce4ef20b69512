"""The record of what the deadline sweep did: one row per effect, never changed.

An effect is keyed by (task, kind, level) with a unique constraint: a second sweep, a
second scheduler or a retried job that reaches the same breach finds the row there and
does nothing. The rows also tell the history "reminded", "escalated to …",
"reassigned to …".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from portal.core.db import Base, TenantScoped, tenant_fk


class DeadlineEffect(TenantScoped, Base):
    __tablename__ = "deadline_effect"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("task_id", "task", ondelete="RESTRICT"),
        tenant_fk("document_id", "document", ondelete="RESTRICT"),
        # Exactly once per effect, whoever sweeps and however often.
        UniqueConstraint("org_id", "task_id", "kind", "level"),
        Index("ix_deadline_effect_document", "org_id", "document_id", "applied_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    task_id: Mapped[int]
    document_id: Mapped[int]
    # "due_soon" (the reminder before the deadline), "breach" (the deadline passed),
    # "escalate_after" (the state's lazy escalation).
    kind: Mapped[str] = mapped_column(String(20))
    # 1, 2, …: the how-manieth of its kind for this task.
    level: Mapped[int]
    # What was done: remind, escalate_up, reassign, auto — or "gap" when nobody was
    # found above, "refused" when an automatic transition could not be taken.
    action: Mapped[str] = mapped_column(String(20))
    # Who was reached (members, new task ids), the gap, or the refusal: as JSON.
    outcome: Mapped[dict[str, Any]] = mapped_column(JSON)
    applied_at: Mapped[datetime]

    def __repr__(self) -> str:
        return f"<DeadlineEffect task={self.task_id} {self.kind}#{self.level} {self.action}>"
