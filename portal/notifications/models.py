"""An in-app notice for one member, written by the outbox's ``notify.*`` handler."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Index, String, UniqueConstraint, text
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


class NoticePreference(TenantScoped, Base):
    """How one member hears of what happens, over the defaults
    (``domain.notice_preferences``). No row: the defaults."""

    __tablename__ = "notice_preference"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("member_id", "membership", ondelete="RESTRICT"),
        UniqueConstraint("org_id", "member_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int]
    # {"<notice kind>": {"in_app": bool, "email": bool}, …}: only what differs from
    # the defaults is kept.
    channels: Mapped[dict[str, Any]] = mapped_column(JSON)
    # One mail a day listing what would have been mailed singly.
    email_digest: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    updated_at: Mapped[datetime]


class MailDigest(TenantScoped, Base):
    """One member's daily digest: one row per (member, day in their zone), written with
    the mail's outbox row, so a second run of the digest job sends nothing twice."""

    __tablename__ = "mail_digest"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("member_id", "membership", ondelete="RESTRICT"),
        UniqueConstraint("org_id", "member_id", "day"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int]
    day: Mapped[date]
    # The notifications it lists run up to (and including) this one.
    last_notification_id: Mapped[int]
    created_at: Mapped[datetime]
