"""An in-app notice for one member, written by the outbox's ``notify.*`` handler."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from portal.core.db import Base, CreatedAt, TenantScoped, tenant_fk


class Notification(TenantScoped, CreatedAt, Base):
    """An in-app notice for one member (the outbox delivers it)."""

    __tablename__ = "notification"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("member_id", "membership", ondelete="RESTRICT"),
        tenant_fk("document_id", "document", ondelete="RESTRICT"),
        # Delivery is at least once: the outbox row's id makes a repeat a no-op.
        UniqueConstraint("org_id", "outbox_id", "member_id"),
        Index("ix_notification_unread", "org_id", "member_id", "read_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int]
    document_id: Mapped[int | None]
    outbox_id: Mapped[int]
    # A message code and its parameters, translated when shown.
    code: Mapped[str] = mapped_column(String(63))
    params: Mapped[dict[str, Any]] = mapped_column(JSON)
    read_at: Mapped[datetime | None]
