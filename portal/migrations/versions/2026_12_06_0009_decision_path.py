"""The decision path: a seek for the tasks a decision closes, and statistics that keep
up with a young organization.

- ``ix_task_open_by_document``: the open tasks of one document in one state, partial on
  ``status = 'open'`` like the statement that closes them. Before it, the plan a
  prepared statement settles on could reach those tasks through the inbox's partial
  index, seeking on the organization only and reading every open task it has.
- The tables every decision writes (document, task, decision, outbox) are analyzed
  after 2 % of their rows change (PostgreSQL's default is 10 %, and 50 rows): prepared
  statements are planned again whenever a table's statistics change, so a tenant whose
  history grows fast is planned for the size it has, not the size it had.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_OPEN = "status = 'open'"
_HOT_TABLES = ("document", "task", "decision", "outbox")
_ANALYZE = "autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 200"


def upgrade() -> None:
    op.create_index(
        "ix_task_open_by_document",
        "task",
        ["org_id", "document_id", "state"],
        postgresql_where=sa.text(_OPEN),
        sqlite_where=sa.text(_OPEN),
    )
    if op.get_bind().dialect.name == "postgresql":
        for table in _HOT_TABLES:
            op.execute(f"ALTER TABLE {table} SET ({_ANALYZE})")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in _HOT_TABLES:
            op.execute(
                f"ALTER TABLE {table} RESET"
                " (autovacuum_analyze_scale_factor, autovacuum_analyze_threshold)"
            )
    op.drop_index("ix_task_open_by_document", table_name="task")
