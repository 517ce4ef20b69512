"""Deadlines that act, reminders people choose, and what operators need to see.

- ``task.level`` (how many seats above the step's own approvers a task was opened)
  and ``task.sweep_at`` (when the deadline sweep next has work for it; tasks already
  open are due for a first look at once), with the two partial indexes the sweep
  reads: across organizations (the planner) and within one.
- ``deadline_effect``: one row per effect of the sweep, unique per (task, kind, level),
  append-only: a repeated sweep is a no-op, and the history can say what was done.
- ``organization.reminder_lead_minutes``: how long before a deadline its holder is
  reminded (default four hours; 0 turns it off).
- ``notice_preference``: a member's channels per kind of notice and their daily
  digest; ``mail_digest``: one row per member and day, so a digest goes out once.
- ``heartbeat``: when the sweep (and other periodic jobs) last ran.
- PostgreSQL: the platform operator (the sweep's planner, never a web request) may read
  which tasks are due across organizations; delivered outbox rows may be pruned, and
  only those (a restrictive policy; the platform operator may remove a throwaway
  organization's).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from portal.core.rls import (
    OPERATOR,
    append_only_sql,
    drop_append_only_sql,
    drop_tenant_policy_sql,
    tenant_policy_sql,
)

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)
_DUE = "status = 'open' AND sweep_at IS NOT NULL"
HEARTBEATS = ("deadline_sweep", "mail_digest")


def _org_column(table: str) -> sa.Column[int]:
    return sa.Column(
        "org_id",
        ID,
        sa.ForeignKey(
            "organization.id", ondelete="RESTRICT", name=f"fk_{table}_org_id_organization"
        ),
        nullable=False,
    )


def _tenant_fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["org_id", column],
        [f"{target}.org_id", f"{target}.id"],
        name=f"fk_{table}_org_id_{column}_{target}",
        ondelete="RESTRICT",
    )


def _create_tables() -> None:
    op.create_table(
        "deadline_effect",
        sa.Column("id", ID, primary_key=True),
        _org_column("deadline_effect"),
        sa.Column("task_id", ID, nullable=False),
        sa.Column("document_id", ID, nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("level", ID, nullable=False),
        sa.Column("action", sa.String(20), nullable=False),
        sa.Column("outcome", sa.JSON(), nullable=False),
        sa.Column("applied_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_deadline_effect_org_id_id"),
        sa.UniqueConstraint(
            "org_id",
            "task_id",
            "kind",
            "level",
            name="uq_deadline_effect_org_id_task_id_kind_level",
        ),
        _tenant_fk("deadline_effect", "task_id", "task"),
        _tenant_fk("deadline_effect", "document_id", "document"),
    )
    op.create_index(
        "ix_deadline_effect_document",
        "deadline_effect",
        ["org_id", "document_id", "applied_at"],
    )
    op.create_table(
        "notice_preference",
        sa.Column("id", ID, primary_key=True),
        _org_column("notice_preference"),
        sa.Column("member_id", ID, nullable=False),
        sa.Column("channels", sa.JSON(), nullable=False),
        sa.Column("email_digest", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_notice_preference_org_id_id"),
        sa.UniqueConstraint("org_id", "member_id", name="uq_notice_preference_org_id_member_id"),
        _tenant_fk("notice_preference", "member_id", "membership"),
    )
    op.create_table(
        "mail_digest",
        sa.Column("id", ID, primary_key=True),
        _org_column("mail_digest"),
        sa.Column("member_id", ID, nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("last_notification_id", ID, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_mail_digest_org_id_id"),
        sa.UniqueConstraint(
            "org_id", "member_id", "day", name="uq_mail_digest_org_id_member_id_day"
        ),
        _tenant_fk("mail_digest", "member_id", "membership"),
    )
    op.create_table(
        "heartbeat",
        sa.Column("name", sa.String(63), primary_key=True),
        sa.Column("beat_at", TIMESTAMP),
        sa.Column("detail", sa.JSON(), nullable=False),
    )


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.add_column("task", sa.Column("level", ID, server_default=sa.text("0"), nullable=False))
    op.add_column("task", sa.Column("sweep_at", TIMESTAMP))
    # Tasks open before this revision: due for a first look at once. The first sweep
    # works out each one's schedule, records what it missed while nothing acted as
    # superseded, acts on what is due now (one overdue notice, not a backlog) and moves
    # ``sweep_at`` on; tasks of states without a deadline simply get none.
    op.execute("UPDATE task SET sweep_at = created_at WHERE status = 'open'")
    op.create_index(
        "ix_task_sweep_due",
        "task",
        ["sweep_at"],
        postgresql_where=sa.text(_DUE),
        sqlite_where=sa.text(_DUE),
    )
    op.create_index(
        "ix_task_sweep_due_in_org",
        "task",
        ["org_id", "sweep_at"],
        postgresql_where=sa.text(_DUE),
        sqlite_where=sa.text(_DUE),
    )
    op.add_column(
        "organization",
        sa.Column(
            "reminder_lead_minutes", sa.Integer(), server_default=sa.text("240"), nullable=False
        ),
    )
    _create_tables()
    # Written once here (never beaten yet), so two schedulers never race to insert it.
    for name in HEARTBEATS:
        op.execute(
            sa.text("INSERT INTO heartbeat (name, detail) VALUES (:name, '{}')").bindparams(
                name=name
            )
        )
    for statement in append_only_sql("deadline_effect", dialect):
        op.execute(statement)
    if dialect == "postgresql":
        for table in ("deadline_effect", "notice_preference", "mail_digest"):
            for statement in tenant_policy_sql(table):
                op.execute(statement)
        op.execute(f"CREATE POLICY task_due_for_the_sweep ON task FOR SELECT USING ({OPERATOR})")
        op.execute(
            "CREATE POLICY outbox_prune_delivered_only ON outbox AS RESTRICTIVE "
            f"FOR DELETE USING (dispatched_at IS NOT NULL OR {OPERATOR})"
        )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP POLICY IF EXISTS outbox_prune_delivered_only ON outbox")
        op.execute("DROP POLICY IF EXISTS task_due_for_the_sweep ON task")
        for table in ("deadline_effect", "notice_preference", "mail_digest"):
            for statement in drop_tenant_policy_sql(table):
                op.execute(statement)
    for statement in drop_append_only_sql("deadline_effect", dialect):
        op.execute(statement)
    op.drop_table("heartbeat")
    op.drop_table("mail_digest")
    op.drop_table("notice_preference")
    op.drop_index("ix_deadline_effect_document", table_name="deadline_effect")
    op.drop_table("deadline_effect")
    op.drop_index("ix_task_sweep_due_in_org", table_name="task")
    op.drop_index("ix_task_sweep_due", table_name="task")
    for table, column in (
        ("organization", "reminder_lead_minutes"),
        ("task", "sweep_at"),
        ("task", "level"),
    ):
        if dialect == "postgresql":
            op.drop_column(table, column)
        else:
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
