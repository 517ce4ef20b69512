"""Flows: one draft per kind, and append-only published versions.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
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

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# Every integer column, as in the models (``Mapped[int]`` is BIGINT on PostgreSQL).
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)
TENANT_TABLES = ("flow_draft", "flow_version")


def _org_id(table: str) -> sa.Column:
    return sa.Column(
        "org_id",
        ID,
        sa.ForeignKey(
            "organization.id", ondelete="CASCADE", name=f"fk_{table}_org_id_organization"
        ),
        nullable=False,
    )


def _member_fk(table: str, column: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["org_id", column],
        ["membership.org_id", "membership.id"],
        name=f"fk_{table}_org_id_{column}_membership",
    )


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        "flow_draft",
        sa.Column("id", ID, primary_key=True),
        _org_id("flow_draft"),
        sa.Column("kind", sa.String(63), nullable=False),
        sa.Column("revision", ID, nullable=False),
        sa.Column("base_version", ID),
        sa.Column("graph", sa.JSON(), nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.Column("updated_by", ID),
        sa.UniqueConstraint("org_id", "id", name="uq_flow_draft_org_id_id"),
        sa.UniqueConstraint("org_id", "kind", name="uq_flow_draft_org_id_kind"),
        _member_fk("flow_draft", "updated_by"),
        sa.CheckConstraint("revision >= 1", name="ck_flow_draft_revision_positive"),
    )
    op.create_table(
        "flow_version",
        sa.Column("id", ID, primary_key=True),
        _org_id("flow_version"),
        sa.Column("kind", sa.String(63), nullable=False),
        sa.Column("version", ID, nullable=False),
        sa.Column("graph", sa.JSON(), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("published_at", TIMESTAMP, nullable=False),
        sa.Column("published_by", ID),
        sa.UniqueConstraint("org_id", "id", name="uq_flow_version_org_id_id"),
        sa.UniqueConstraint(
            "org_id", "kind", "version", name="uq_flow_version_org_id_kind_version"
        ),
        _member_fk("flow_version", "published_by"),
        sa.CheckConstraint("version >= 1", name="ck_flow_version_version_positive"),
    )
    for statement in append_only_sql("flow_version", dialect):
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
    for statement in drop_append_only_sql("flow_version", dialect):
        op.execute(statement)
    op.drop_table("flow_version")
    op.drop_table("flow_draft")
    if dialect == "postgresql":
        # Later tables may reuse the function; it goes with the last of them.
        op.execute("DROP FUNCTION IF EXISTS refuse_change()")
