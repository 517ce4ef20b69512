"""Units form a tree; positions are seats that report to other seats; holdings say
which member sits in which seat, from when to when."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Date,
    Index,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.core.db import Base, CreatedAt, TenantScoped, tenant_fk


class OrgUnit(TenantScoped, CreatedAt, Base):
    __tablename__ = "org_unit"
    __table_args__ = (
        TenantScoped.tenant_key(),
        UniqueConstraint("org_id", "code"),
        tenant_fk("parent_id", "org_unit"),
        # Units and positions point at each other; the head key is added after both exist.
        tenant_fk("head_position_id", "position", use_alter=True, name="fk_org_unit_head_position"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(200))
    parent_id: Mapped[int | None]
    # The seat whose holders are this unit's head (grantee kind `unit_head`).
    head_position_id: Mapped[int | None]

    def __repr__(self) -> str:
        return f"<OrgUnit {self.id} {self.code!r}>"


class Position(TenantScoped, CreatedAt, Base):
    __tablename__ = "position"
    __table_args__ = (
        TenantScoped.tenant_key(),
        UniqueConstraint("org_id", "code"),
        tenant_fk("unit_id", "org_unit"),
        tenant_fk("reports_to_id", "position"),
        CheckConstraint("reports_to_id IS NULL OR reports_to_id <> id", name="not_own_superior"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(40))
    title: Mapped[str] = mapped_column(String(200))
    unit_id: Mapped[int]
    # The seat above; None for the top of the chart.
    reports_to_id: Mapped[int | None]
    # A retired seat keeps its history but resolves to nobody.
    active: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))

    def __repr__(self) -> str:
        return f"<Position {self.id} {self.code!r}>"


class HoldingKind:
    PRIMARY = "primary"
    SECONDARY = "secondary"
    ALL = (PRIMARY, SECONDARY)


class PositionHolding(TenantScoped, CreatedAt, Base):
    __tablename__ = "position_holding"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("member_id", "membership", ondelete="RESTRICT"),
        tenant_fk("position_id", "position", ondelete="RESTRICT"),
        CheckConstraint("kind IN ('primary', 'secondary')", name="kind"),
        CheckConstraint("valid_to IS NULL OR valid_to >= valid_from", name="dates_ordered"),
        Index("ix_position_holding_position", "org_id", "position_id"),
        Index("ix_position_holding_member", "org_id", "member_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int]
    position_id: Mapped[int]
    kind: Mapped[str] = mapped_column(String(10))
    valid_from: Mapped[date] = mapped_column(Date)
    # Inclusive last day; None = open-ended.
    valid_to: Mapped[date | None] = mapped_column(Date)

    def covers(self, day: date) -> bool:
        return self.valid_from <= day and (self.valid_to is None or day <= self.valid_to)

    def __repr__(self) -> str:
        return f"<PositionHolding member={self.member_id} position={self.position_id} {self.kind}>"


class SeatReservation(TenantScoped, CreatedAt, Base):
    """A seat a CSV import gave someone it invited: taken when they accept that very
    invitation (if the seat is still open to them then); a revoked or replaced
    invitation's reservations never seat anyone."""

    __tablename__ = "seat_reservation"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("position_id", "position", ondelete="RESTRICT"),
        tenant_fk("invitation_id", "invitation", ondelete="RESTRICT"),
        CheckConstraint("kind IN ('primary', 'secondary')", name="kind"),
        # Importing the same file again reserves nothing twice.
        UniqueConstraint("org_id", "invitation_id", "position_id", "kind"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    invitation_id: Mapped[int]
    position_id: Mapped[int]
    kind: Mapped[str] = mapped_column(String(10))
    valid_from: Mapped[date] = mapped_column(Date)
    # When the person joined and the reservation was settled (seated or not).
    settled_at: Mapped[datetime | None]


class ImportStatus:
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    ALL = (QUEUED, RUNNING, DONE, FAILED)


class ImportJob(TenantScoped, CreatedAt, Base):
    """A CSV file an admin uploaded, read and applied by a worker (all or nothing)."""

    __tablename__ = "import_job"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("created_by", "membership", ondelete="RESTRICT"),
        CheckConstraint("kind IN ('units', 'positions', 'members')", name="kind"),
        CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name="status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))
    filename: Mapped[str] = mapped_column(String(255))
    # The file as text (UTF-8, already read once when it was accepted).
    content: Mapped[str] = mapped_column(Text)
    rows: Mapped[int]
    status: Mapped[str] = mapped_column(String(10))
    # When a worker took it: a job "running" far longer than any import takes lost its
    # worker, and the next delivery takes it over.
    started_at: Mapped[datetime | None]
    created_by: Mapped[int]
    created: Mapped[int] = mapped_column(server_default=text("0"))
    updated: Mapped[int] = mapped_column(server_default=text("0"))
    invited: Mapped[int] = mapped_column(server_default=text("0"))
    # Every bad row ({row, column, code, params}); nothing was applied when any is here.
    problems: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    # A failure that is not about a row (the worker's own), by its message code.
    failure: Mapped[str | None] = mapped_column(String(63))
    finished_at: Mapped[datetime | None]

    def __repr__(self) -> str:
        return f"<ImportJob {self.id} {self.kind} {self.status}>"
