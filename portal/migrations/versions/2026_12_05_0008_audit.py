"""The auditor's workplace: its own records, and the indexes its search seeks on.

- ``audit_export``: every export of the audit pages (who, which kind, the filter or the
  document, how many rows, the request); append-only, row-level security.
- ``chain_verification``: every pass over an organization's hash chains (nightly, asked
  for on the audit page, or from the command line): how many chains and decisions were
  read and which chains broke, at which decision; append-only, row-level security.
- Indexes for the audit search, each leading with the tenant: listed documents (not
  discarded drafts) by creation time, by amount and by their last decision
  (``state_entered_at``); decisions by who took them, but for the requester's own acts
  (the "approver" and "delegate" filters, and approvals per approver).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from portal.core.rls import (
    append_only_sql,
    drop_append_only_sql,
    drop_tenant_policy_sql,
    tenant_policy_sql,
)

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)
_TABLES = ("audit_export", "chain_verification")
# Partial: the search lists no discarded draft unless asked (then it scans), and an
# "approver" is anyone who decided but the requester acting on their own document —
# the predicates are the search's own, so an index answers without the table.
_LISTED = "discarded_at IS NULL"
_INDEXES = (
    ("ix_document_created", "document", ["org_id", "created_at"], _LISTED),
    ("ix_document_amount", "document", ["org_id", "amount"], _LISTED),
    ("ix_document_decided", "document", ["org_id", "state_entered_at"], _LISTED),
    ("ix_decision_actor", "decision", ["org_id", "actor_id", "document_id"], "via <> 'requester'"),
)


def _org(table: str) -> sa.Column:
    return sa.Column(
        "org_id",
        ID,
        sa.ForeignKey(
            "organization.id", ondelete="RESTRICT", name=f"fk_{table}_org_id_organization"
        ),
        nullable=False,
    )


def _member_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["org_id", "member_id"],
        ["membership.org_id", "membership.id"],
        name=f"fk_{table}_org_id_member_id_membership",
        ondelete="RESTRICT",
    )


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        "audit_export",
        sa.Column("id", ID, primary_key=True),
        _org("audit_export"),
        sa.Column("member_id", ID, nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("filters", sa.JSON(), nullable=False),
        sa.Column("reference", sa.String(32)),
        sa.Column("rows", ID, nullable=False),
        sa.Column("request_id", sa.String(64)),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_audit_export_org_id_id"),
        _member_fk("audit_export"),
        sa.CheckConstraint(
            "kind IN ('search_csv', 'search_json', 'document', 'stalls_csv')",
            name="ck_audit_export_kind",
        ),
        sa.CheckConstraint("rows >= 0", name="ck_audit_export_rows"),
    )
    op.create_index("ix_audit_export_created", "audit_export", ["org_id", "created_at"])
    op.create_table(
        "chain_verification",
        sa.Column("id", ID, primary_key=True),
        _org("chain_verification"),
        sa.Column("trigger", sa.String(10), nullable=False),
        sa.Column("member_id", ID),
        sa.Column("started_at", TIMESTAMP, nullable=False),
        sa.Column("finished_at", TIMESTAMP, nullable=False),
        sa.Column("chains", ID, nullable=False),
        sa.Column("decisions", ID, nullable=False),
        sa.Column("failures", sa.JSON(), nullable=False),
        sa.UniqueConstraint("org_id", "id", name="uq_chain_verification_org_id_id"),
        _member_fk("chain_verification"),
        sa.CheckConstraint(
            "trigger IN ('nightly', 'manual', 'cli')", name="ck_chain_verification_trigger"
        ),
        sa.CheckConstraint("finished_at >= started_at", name="ck_chain_verification_window"),
    )
    op.create_index(
        "ix_chain_verification_finished", "chain_verification", ["org_id", "finished_at"]
    )
    for name, table, columns, where in _INDEXES:
        op.create_index(
            name, table, columns, postgresql_where=sa.text(where), sqlite_where=sa.text(where)
        )
    for table in _TABLES:
        for statement in append_only_sql(table, dialect):
            op.execute(statement)
        if dialect == "postgresql":
            for statement in tenant_policy_sql(table):
                op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table in reversed(_TABLES):
        if dialect == "postgresql":
            for statement in drop_tenant_policy_sql(table):
                op.execute(statement)
        for statement in drop_append_only_sql(table, dialect):
            op.execute(statement)
    for name, table, _columns, _where in reversed(_INDEXES):
        op.drop_index(name, table_name=table)
    op.drop_index("ix_chain_verification_finished", table_name="chain_verification")
    op.drop_table("chain_verification")
    op.drop_index("ix_audit_export_created", table_name="audit_export")
    op.drop_table("audit_export")
