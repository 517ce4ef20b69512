"""Documents, reference counters, tasks, the append-only decision history, the outbox
and in-app notifications.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from portal.core.rls import (
    append_only_sql,
    chart_version_sql,
    drop_append_only_sql,
    drop_chart_version_sql,
    drop_tenant_policy_sql,
    tenant_policy_sql,
)

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# Every integer column, as in the models (``Mapped[int]`` is BIGINT on PostgreSQL).
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)
MONEY = sa.Numeric(19, 4)
TENANT_TABLES = ("reference_counter", "document", "task", "decision", "outbox", "notification")


def _org_id(table: str) -> sa.Column:
    return sa.Column(
        "org_id",
        ID,
        sa.ForeignKey(
            "organization.id", ondelete="CASCADE", name=f"fk_{table}_org_id_organization"
        ),
        nullable=False,
    )


def _fk(table: str, column: str, target: str, **kw: Any) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["org_id", column],
        [f"{target}.org_id", f"{target}.id"],
        name=f"fk_{table}_org_id_{column}_{target}",
        **kw,
    )


def _key(table: str) -> sa.UniqueConstraint:
    return sa.UniqueConstraint("org_id", "id", name=f"uq_{table}_org_id_id")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    # The engine caches the chart snapshot by this; triggers move it on every change.
    # A plain ADD COLUMN (no table rebuild: triggers elsewhere name this table).
    op.add_column(
        "organization",
        sa.Column("chart_version", ID, server_default=sa.text("0"), nullable=False),
    )
    for statement in chart_version_sql(dialect):
        op.execute(statement)
    op.create_table(
        "reference_counter",
        sa.Column("id", ID, primary_key=True),
        _org_id("reference_counter"),
        sa.Column("prefix", sa.String(8), nullable=False),
        sa.Column("year", ID, nullable=False),
        sa.Column("last_number", ID, nullable=False),
        sa.UniqueConstraint(
            "org_id", "prefix", "year", name="uq_reference_counter_org_id_prefix_year"
        ),
    )
    op.create_table(
        "document",
        sa.Column("id", ID, primary_key=True),
        _org_id("document"),
        sa.Column("kind", sa.String(63), nullable=False),
        sa.Column("reference", sa.String(32), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("amount", MONEY, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("requester_id", ID, nullable=False),
        sa.Column("flow_version_id", ID, nullable=False),
        sa.Column("version", ID, nullable=False),
        sa.Column("state", sa.String(63), nullable=False),
        sa.Column("state_entered_at", TIMESTAMP, nullable=False),
        sa.Column("dispute_raiser_id", ID),
        sa.Column("row_version", ID, server_default=sa.text("1"), nullable=False),
        sa.Column("chain_seq", ID, server_default=sa.text("0"), nullable=False),
        sa.Column("chain_hash", sa.String(64), server_default="0" * 64, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        _key("document"),
        sa.UniqueConstraint("org_id", "reference", name="uq_document_org_id_reference"),
        _fk("document", "requester_id", "membership"),
        _fk("document", "flow_version_id", "flow_version"),
        _fk("document", "dispute_raiser_id", "membership"),
        sa.CheckConstraint("amount >= 0", name="ck_document_amount_not_negative"),
    )
    op.create_index("ix_document_requester", "document", ["org_id", "requester_id", "state"])
    op.create_index("ix_document_kind_state", "document", ["org_id", "kind", "state"])
    op.create_table(
        "task",
        sa.Column("id", ID, primary_key=True),
        _org_id("task"),
        sa.Column("document_id", ID, nullable=False),
        sa.Column("state", sa.String(63), nullable=False),
        sa.Column("assignee_id", ID, nullable=False),
        sa.Column("via", sa.String(20), nullable=False),
        sa.Column("transitions", sa.JSON(), nullable=False),
        sa.Column("band_floor", MONEY, nullable=False),
        sa.Column("due_at", TIMESTAMP),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("completed_at", TIMESTAMP),
        sa.Column("completed_by", ID),
        _key("task"),
        _fk("task", "document_id", "document", ondelete="CASCADE"),
        _fk("task", "assignee_id", "membership"),
        _fk("task", "completed_by", "membership"),
        sa.CheckConstraint("status IN ('open', 'completed', 'cancelled')", name="ck_task_status"),
    )
    op.create_index(
        "ix_task_open_by_assignee",
        "task",
        ["org_id", "assignee_id", "due_at"],
        postgresql_where=sa.text("status = 'open'"),
        sqlite_where=sa.text("status = 'open'"),
    )
    op.create_index("ix_task_document", "task", ["org_id", "document_id", "state"])
    op.create_table(
        "decision",
        sa.Column("id", ID, primary_key=True),
        _org_id("decision"),
        sa.Column("document_id", ID, nullable=False),
        sa.Column("seq", ID, nullable=False),
        sa.Column("flow_version_id", ID, nullable=False),
        sa.Column("from_state", sa.String(63), nullable=False),
        sa.Column("to_state", sa.String(63), nullable=False),
        sa.Column("transition", sa.String(63), nullable=False),
        sa.Column("gate", sa.String(20), nullable=False),
        sa.Column("actor_id", ID),
        sa.Column("authority_member_id", ID),
        sa.Column("via", sa.String(20), nullable=False),
        sa.Column("delegation_id", ID),
        sa.Column("amount", MONEY, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("winning_floor", MONEY),
        sa.Column("eligible", sa.JSON(), nullable=False),
        sa.Column("resolution", sa.JSON(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("request_id", sa.String(64)),
        sa.Column("decided_at", TIMESTAMP, nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        _key("decision"),
        sa.UniqueConstraint(
            "org_id", "document_id", "seq", name="uq_decision_org_id_document_id_seq"
        ),
        _fk("decision", "document_id", "document"),
        _fk("decision", "flow_version_id", "flow_version"),
        _fk("decision", "actor_id", "membership"),
        _fk("decision", "authority_member_id", "membership"),
    )
    op.create_table(
        "outbox",
        sa.Column("id", ID, primary_key=True),
        _org_id("outbox"),
        sa.Column("topic", sa.String(63), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("dispatched_at", TIMESTAMP),
        sa.Column("attempts", ID, server_default=sa.text("0"), nullable=False),
        sa.Column("next_attempt_at", TIMESTAMP, nullable=False),
        sa.Column("last_error", sa.Text()),
        _key("outbox"),
    )
    op.create_index(
        "ix_outbox_pending",
        "outbox",
        ["next_attempt_at"],
        postgresql_where=sa.text("dispatched_at IS NULL"),
        sqlite_where=sa.text("dispatched_at IS NULL"),
    )
    op.create_table(
        "notification",
        sa.Column("id", ID, primary_key=True),
        _org_id("notification"),
        sa.Column("member_id", ID, nullable=False),
        sa.Column("document_id", ID),
        sa.Column("outbox_id", ID, nullable=False),
        sa.Column("code", sa.String(63), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("read_at", TIMESTAMP),
        _key("notification"),
        _fk("notification", "member_id", "membership", ondelete="CASCADE"),
        _fk("notification", "document_id", "document", ondelete="CASCADE"),
        sa.UniqueConstraint(
            "org_id", "outbox_id", "member_id", name="uq_notification_org_id_outbox_id_member_id"
        ),
    )
    op.create_index("ix_notification_unread", "notification", ["org_id", "member_id", "read_at"])
    for statement in append_only_sql("decision", dialect):
        op.execute(statement)
    if dialect == "postgresql":
        for table in TENANT_TABLES:
            for statement in tenant_policy_sql(table):
                op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        for table in reversed(TENANT_TABLES):
            for statement in drop_tenant_policy_sql(table):
                op.execute(statement)
    for statement in drop_append_only_sql("decision", dialect):
        op.execute(statement)
    op.drop_index("ix_notification_unread", table_name="notification")
    op.drop_table("notification")
    op.drop_index("ix_outbox_pending", table_name="outbox")
    op.drop_table("outbox")
    op.drop_table("decision")
    op.drop_index("ix_task_document", table_name="task")
    op.drop_index("ix_task_open_by_assignee", table_name="task")
    op.drop_table("task")
    op.drop_index("ix_document_kind_state", table_name="document")
    op.drop_index("ix_document_requester", table_name="document")
    op.drop_table("document")
    op.drop_table("reference_counter")
    for statement in drop_chart_version_sql(dialect):
        op.execute(statement)
    op.drop_column("organization", "chart_version")
