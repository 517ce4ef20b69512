"""Documents, the tasks that say who may act on them, and their immutable history.

A document is pinned to the flow version it started on. Tasks are the inbox: "member M
may act on document D while it is in state S". Every transition appends one decision,
chained by SHA-256 per document so that tampering is evident.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Index,
    String,
    Text,
    UniqueConstraint,
    literal_column,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.core.db import Base, CreatedAt, TenantScoped, Timestamps, tenant_fk

# The audit's partial indexes: listed documents, and decisions but the requester's own.
_LISTED = "discarded_at IS NULL"
_APPROVED = "via <> 'requester'"


class Document(TenantScoped, Timestamps, Base):
    __tablename__ = "document"
    __table_args__ = (
        TenantScoped.tenant_key(),
        UniqueConstraint("org_id", "reference"),
        tenant_fk("requester_id", "membership"),
        tenant_fk("flow_version_id", "flow_version"),
        tenant_fk("dispute_raiser_id", "membership"),
        tenant_fk("discarded_by", "membership"),
        CheckConstraint("amount >= 0", name="amount_not_negative"),
        Index("ix_document_requester", "org_id", "requester_id", "state"),
        Index("ix_document_kind_state", "org_id", "kind", "state"),
        # The audit search (listed documents): newest first, by amount, by the last
        # decision.
        *(
            Index(
                name,
                "org_id",
                column,
                postgresql_where=text(_LISTED),
                sqlite_where=text(_LISTED),
            )
            for name, column in (
                ("ix_document_created", "created_at"),
                ("ix_document_amount", "amount"),
                ("ix_document_decided", "state_entered_at"),
            )
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(63))
    # Human reference, e.g. EXP-2026-00042: unique per organization, numbered without gaps.
    reference: Mapped[str] = mapped_column(String(32))
    title: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    # Frozen once the document leaves its draft state.
    amount: Mapped[Decimal]
    currency: Mapped[str] = mapped_column(String(3))
    # The flow's declared fields (``DocumentField``), by key; values as JSON scalars.
    fields: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    requester_id: Mapped[int]
    # The version the document started on; its rules govern it to the end.
    flow_version_id: Mapped[int]
    version: Mapped[int]
    state: Mapped[str] = mapped_column(String(63))
    state_entered_at: Mapped[datetime]
    # Who raised the dispute the document is in (they may not close it); None otherwise.
    dispute_raiser_id: Mapped[int | None]
    # Bumped by every transition: the conditional UPDATE that moves a document names it.
    row_version: Mapped[int] = mapped_column(server_default=text("1"))
    # The head of the document's decision chain, moved with the row under its lock:
    # the next decision links to it without reading the history, and a deleted last
    # decision shows as a head that no row matches.
    chain_seq: Mapped[int] = mapped_column(server_default=text("0"))
    chain_hash: Mapped[str] = mapped_column(String(64), server_default="0" * 64)
    # A draft its requester threw away before it was ever submitted: kept (its
    # reference stays taken, so the numbering shows no gap) but listed nowhere.
    discarded_at: Mapped[datetime | None]
    discarded_by: Mapped[int | None]

    def __repr__(self) -> str:
        return f"<Document {self.reference} {self.state!r}>"


class DocumentEdit(TenantScoped, Base):
    """One immutable row per change to a document outside a transition: an edit of its
    amount or fields while in draft or rework (old -> new), or its discarding.
    Append-only like the decisions."""

    __tablename__ = "document_edit"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("document_id", "document"),
        tenant_fk("actor_id", "membership"),
        Index("ix_document_edit_document", "org_id", "document_id", "edited_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int]
    actor_id: Mapped[int]
    # "edit" or "discard".
    kind: Mapped[str] = mapped_column(String(10))
    # [{"field": "amount", "old": "12.50", "new": "15.00"}, …]: values as text, amounts
    # in their stored spelling, so the record is what was typed and what it became.
    changes: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    request_id: Mapped[str | None] = mapped_column(String(64))
    edited_at: Mapped[datetime]


class ReferenceCounter(TenantScoped, Base):
    """The last number issued per (prefix, year). Incremented under a row lock in the
    creating transaction, so a rolled-back creation returns its number: no gaps."""

    __tablename__ = "reference_counter"
    __table_args__ = (UniqueConstraint("org_id", "prefix", "year"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    prefix: Mapped[str] = mapped_column(String(8))
    year: Mapped[int]
    last_number: Mapped[int]


class TaskStatus:
    OPEN = "open"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    ALL = (OPEN, COMPLETED, CANCELLED)


# ``status = 'open'`` with the constant in the SQL, not bound: the task table's partial
# indexes carry that predicate, and PostgreSQL's generic plan for a prepared statement
# (psycopg prepares after five uses) can use a partial index only when the query states
# the same constant — with a parameter it falls back to an index that seeks on the
# organization alone and walks every task in it.
OPEN_STATUS = literal_column("'open'", String)


class Task(TenantScoped, CreatedAt, Base):
    __tablename__ = "task"
    __table_args__ = (
        TenantScoped.tenant_key(),
        tenant_fk("document_id", "document", ondelete="RESTRICT"),
        tenant_fk("assignee_id", "membership"),
        tenant_fk("completed_by", "membership"),
        CheckConstraint("status IN ('open', 'completed', 'cancelled')", name="status"),
        # The inbox: my open tasks, most urgent first.
        Index(
            "ix_task_open_by_assignee",
            "org_id",
            "assignee_id",
            "due_at",
            postgresql_where=text("status = 'open'"),
            sqlite_where=text("status = 'open'"),
        ),
        Index("ix_task_document", "org_id", "document_id", "state"),
        # A decision closes the open tasks of its document in the state it leaves.
        Index(
            "ix_task_open_by_document",
            "org_id",
            "document_id",
            "state",
            postgresql_where=text("status = 'open'"),
            sqlite_where=text("status = 'open'"),
        ),
        # The deadline sweep: open tasks with work due, across organizations (the
        # planner, in the operator's scope) and within one (the claim).
        Index(
            "ix_task_sweep_due",
            "sweep_at",
            postgresql_where=text("status = 'open' AND sweep_at IS NOT NULL"),
            sqlite_where=text("status = 'open' AND sweep_at IS NOT NULL"),
        ),
        Index(
            "ix_task_sweep_due_in_org",
            "org_id",
            "sweep_at",
            postgresql_where=text("status = 'open' AND sweep_at IS NOT NULL"),
            sqlite_where=text("status = 'open' AND sweep_at IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int]
    # The state the task is open in; it ends when the document leaves that state.
    state: Mapped[str] = mapped_column(String(63))
    assignee_id: Mapped[int]
    # How the assignee came by it: grant, escalation, reassignment — or handover (the
    # work moved to them; it carries no authority of its own: ``domain.authority``).
    via: Mapped[str] = mapped_column(String(20))
    # The transitions (action keys) this task authorises, and the band it came from.
    transitions: Mapped[list[str]] = mapped_column(JSON)
    band_floor: Mapped[Decimal]
    due_at: Mapped[datetime | None]
    status: Mapped[str] = mapped_column(String(10), default=TaskStatus.OPEN)
    completed_at: Mapped[datetime | None]
    completed_by: Mapped[int | None]
    # How many seats above the step's own approvers the task was opened (0: by the
    # grants; each escalation or reassignment one more), bounded by the grants'
    # ``max_escalation_levels``.
    level: Mapped[int] = mapped_column(server_default=text("0"))
    # When the deadline sweep next has something to do for this task (a reminder
    # before it is due, the breach, a lazy escalation); None: nothing more.
    sweep_at: Mapped[datetime | None]

    def __repr__(self) -> str:
        return f"<Task doc={self.document_id} {self.state!r} -> member {self.assignee_id} {self.status}>"


class Decision(TenantScoped, Base):
    """One immutable row per transition. Append-only: no UPDATE or DELETE for the app
    role, and a trigger refuses both for everyone."""

    __tablename__ = "decision"
    __table_args__ = (
        TenantScoped.tenant_key(),
        UniqueConstraint("org_id", "document_id", "seq"),
        tenant_fk("document_id", "document"),
        tenant_fk("flow_version_id", "flow_version"),
        tenant_fk("actor_id", "membership"),
        tenant_fk("authority_member_id", "membership"),
        tenant_fk("delegation_id", "delegation", ondelete="RESTRICT"),
        # A decision taken under cover names the delegation, and only such a one does.
        CheckConstraint(
            "(via = 'delegation') = (delegation_id IS NOT NULL)", name="delegation_named"
        ),
        # Who decided what: the audit's approver and delegate filters, approvals per
        # approver.
        Index(
            "ix_decision_actor",
            "org_id",
            "actor_id",
            "document_id",
            postgresql_where=text(_APPROVED),
            sqlite_where=text(_APPROVED),
        ),
        # What was decided under a cover (the summary its delegator gets when it ends).
        Index(
            "ix_decision_delegation",
            "org_id",
            "delegation_id",
            postgresql_where=text("delegation_id IS NOT NULL"),
            sqlite_where=text("delegation_id IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int]
    # 1, 2, … per document: the order of the hash chain.
    seq: Mapped[int]
    flow_version_id: Mapped[int]
    from_state: Mapped[str] = mapped_column(String(63))
    to_state: Mapped[str] = mapped_column(String(63))
    transition: Mapped[str] = mapped_column(String(63))
    gate: Mapped[str] = mapped_column(String(20))
    # Null: the system acted (an automatic deadline).
    actor_id: Mapped[int | None]
    # The member whose authority was relied on (the delegator, for a delegate).
    authority_member_id: Mapped[int | None]
    # requester, grant, delegation, escalation, reassignment, system
    via: Mapped[str] = mapped_column(String(20))
    delegation_id: Mapped[int | None]
    amount: Mapped[Decimal]
    currency: Mapped[str] = mapped_column(String(3))
    winning_floor: Mapped[Decimal | None]
    # The eligible set and the full resolution as they stood, never recomputed.
    eligible: Mapped[list[int]] = mapped_column(JSON)
    resolution: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    comment: Mapped[str] = mapped_column(Text, default="")
    request_id: Mapped[str | None] = mapped_column(String(64))
    decided_at: Mapped[datetime]
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))

    def __repr__(self) -> str:
        return f"<Decision doc={self.document_id} #{self.seq} {self.from_state}->{self.to_state}>"
